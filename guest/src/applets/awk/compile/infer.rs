//! Which variables are arrays: gawk decides at run time, the first time a variable is used;
//! here it is decided before running, from every use in the program, propagated through
//! function calls (a parameter passed an array is an array, and the reverse) to a fixpoint.

use std::collections::HashMap;

use super::super::ast::{Expr, GetSrc, Pattern, Program, Redirect, Stmt};

/// A variable for inference: a global by name or a function's parameter.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Sym {
    /// A global, by name.
    Global(String),
    /// Parameter `p` of function `f`: (f, p).
    Param(usize, usize),
}

/// What a variable holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A number or string.
    Scalar,
    /// An array.
    Array,
}

struct Infer<'a> {
    prog: &'a Program,
    warnings: Vec<String>,
    misuse: Option<String>,
    funcs: &'a HashMap<String, usize>,
    kinds: HashMap<Sym, Kind>,
    links: Vec<(Sym, Sym)>,
    func: Option<usize>,
}

/// Variable kinds, warnings (gawk's, for calls with extra arguments), and the first use of
/// a function name as a variable (an `error:` in gawk).
pub type Inferred = (HashMap<Sym, Kind>, Vec<String>, Option<String>);

/// Infers every variable's kind; the error is gawk's message for a conflicting use.
pub fn infer(prog: &Program, funcs: &HashMap<String, usize>) -> Result<Inferred, String> {
    let mut inf = Infer {
        prog,
        warnings: Vec::new(),
        misuse: None,
        funcs,
        kinds: HashMap::new(),
        links: Vec::new(),
        func: None,
    };
    for name in ["ENVIRON", "ARGV", "PROCINFO"] {
        inf.kinds.insert(Sym::Global(name.to_string()), Kind::Array);
    }
    for body in prog
        .begin
        .iter()
        .chain(&prog.end)
        .chain(&prog.begin_file)
        .chain(&prog.end_file)
    {
        inf.stmts(body)?;
    }
    for rule in &prog.rules {
        match &rule.pattern {
            Pattern::All => {}
            Pattern::Expr(e) => inf.expr(e)?,
            Pattern::Range(a, b) => {
                inf.expr(a)?;
                inf.expr(b)?;
            }
        }
        if let Some(action) = &rule.action {
            inf.stmts(action)?;
        }
    }
    for (i, f) in prog.functions.iter().enumerate() {
        inf.func = Some(i);
        inf.stmts(&f.body)?;
    }
    inf.propagate()?;
    Ok((inf.kinds, inf.warnings, inf.misuse))
}

impl Infer<'_> {
    fn sym(&mut self, name: &str) -> Sym {
        if let Some(f) = self.func {
            if let Some(p) = self.prog.functions[f].params.iter().position(|p| p == name) {
                return Sym::Param(f, p);
            }
        }
        if self.funcs.contains_key(name) && self.misuse.is_none() {
            self.misuse = Some(format!(
                "function `{name}' called with space between name and `(',\n\
                 or used as a variable or an array"
            ));
        }
        Sym::Global(name.to_string())
    }

    fn mark(&mut self, sym: Sym, kind: Kind) -> Result<(), String> {
        match self.kinds.get(&sym) {
            Some(&k) if k != kind => Err(self.conflict(&sym, k)),
            Some(_) => Ok(()),
            None => {
                self.kinds.insert(sym, kind);
                Ok(())
            }
        }
    }

    fn conflict(&self, sym: &Sym, known: Kind) -> String {
        let name = match sym {
            Sym::Global(n) => n.clone(),
            Sym::Param(f, p) => self.prog.functions[*f].params[*p].clone(),
        };
        match (sym, known) {
            (Sym::Param(..), Kind::Scalar) => {
                format!("attempt to use scalar parameter `{name}' as an array")
            }
            (Sym::Global(_), Kind::Scalar) => {
                format!("attempt to use scalar `{name}' as an array")
            }
            _ => format!("attempt to use array `{name}' in a scalar context"),
        }
    }

    fn array(&mut self, name: &str) -> Result<(), String> {
        let sym = self.sym(name);
        self.mark(sym, Kind::Array)
    }

    fn scalar(&mut self, name: &str) -> Result<(), String> {
        let sym = self.sym(name);
        self.mark(sym, Kind::Scalar)
    }

    fn propagate(&mut self) -> Result<(), String> {
        loop {
            let mut changed = false;
            for (a, b) in self.links.clone() {
                match (self.kinds.get(&a).copied(), self.kinds.get(&b).copied()) {
                    (Some(x), Some(y)) if x != y => {
                        // gawk names the parameter: "attempt to use scalar parameter `a'".
                        return Err(match b {
                            Sym::Param(..) => self.conflict(&b, x),
                            Sym::Global(_) => self.conflict(&a, y),
                        });
                    }
                    (Some(x), None) => {
                        self.kinds.insert(b, x);
                        changed = true;
                    }
                    (None, Some(y)) => {
                        self.kinds.insert(a, y);
                        changed = true;
                    }
                    _ => {}
                }
            }
            if !changed {
                return Ok(());
            }
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Result<(), String> {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        match s {
            Stmt::Expr(e) => self.expr(e),
            Stmt::Print(args, redirect) | Stmt::Printf(args, redirect) => {
                self.exprs(args)?;
                match redirect {
                    Some(Redirect::Write(e) | Redirect::Append(e) | Redirect::Pipe(e)) => {
                        self.expr(e)
                    }
                    None => Ok(()),
                }
            }
            Stmt::If(c, a, b) => {
                self.expr(c)?;
                self.stmt(a)?;
                b.as_ref().map_or(Ok(()), |b| self.stmt(b))
            }
            Stmt::While(c, body) | Stmt::Do(body, c) => {
                self.expr(c)?;
                self.stmt(body)
            }
            Stmt::For(init, cond, step, body) => {
                if let Some(init) = init {
                    self.stmt(init)?;
                }
                if let Some(cond) = cond {
                    self.expr(cond)?;
                }
                if let Some(step) = step {
                    self.stmt(step)?;
                }
                self.stmt(body)
            }
            Stmt::ForIn(var, arr, body) => {
                self.scalar(var)?;
                self.array(arr)?;
                self.stmt(body)
            }
            Stmt::Block(stmts) => self.stmts(stmts),
            Stmt::Exit(e) | Stmt::Return(e) => e.as_ref().map_or(Ok(()), |e| self.expr(e)),
            Stmt::Delete(name, subs) => {
                self.array(name)?;
                subs.as_ref().map_or(Ok(()), |s| self.exprs(s))
            }
            Stmt::Next | Stmt::NextFile | Stmt::Break | Stmt::Continue => Ok(()),
        }
    }

    fn exprs(&mut self, es: &[Expr]) -> Result<(), String> {
        es.iter().try_for_each(|e| self.expr(e))
    }

    fn expr(&mut self, e: &Expr) -> Result<(), String> {
        match e {
            Expr::Num(_) | Expr::Str(_) | Expr::Regex(_) => Ok(()),
            Expr::Var(name) => self.scalar(name),
            Expr::Index(name, subs) => {
                self.array(name)?;
                self.exprs(subs)
            }
            Expr::In(subs, name) => {
                self.array(name)?;
                self.exprs(subs)
            }
            Expr::Field(e)
            | Expr::Not(e)
            | Expr::Neg(e)
            | Expr::Plus(e)
            | Expr::Group(e)
            | Expr::Incr { target: e, .. } => self.expr(e),
            Expr::Assign(a, _, b)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Binary(_, a, b)
            | Expr::Cmp(_, a, b)
            | Expr::Match(_, a, b)
            | Expr::Concat(a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
            Expr::Cond(a, b, c) => {
                self.expr(a)?;
                self.expr(b)?;
                self.expr(c)
            }
            Expr::Call(name, args) => self.call(name, args),
            Expr::Builtin(name, args) => self.builtin(name, args),
            Expr::Getline(src, var) => {
                if let GetSrc::File(e) | GetSrc::Cmd(e) = src {
                    self.expr(e)?;
                }
                var.as_ref().map_or(Ok(()), |v| self.expr(v))
            }
        }
    }

    fn call(&mut self, name: &str, args: &[Expr]) -> Result<(), String> {
        let Some(&f) = self.funcs.get(name) else {
            return Err(format!("function `{name}' not defined"));
        };
        let nparams = self.prog.functions[f].params.len();
        if args.len() > nparams {
            self.warnings.push(format!(
                "function `{name}' called with more arguments than declared"
            ));
        }
        for (i, arg) in args.iter().enumerate() {
            if i >= nparams {
                self.expr(arg)?;
                continue;
            }
            match arg {
                Expr::Var(var) => {
                    let sym = self.sym(var);
                    self.links.push((sym, Sym::Param(f, i)));
                }
                other => {
                    self.expr(other)?;
                    self.mark(Sym::Param(f, i), Kind::Scalar)?;
                }
            }
        }
        Ok(())
    }

    fn builtin(&mut self, name: &str, args: &[Expr]) -> Result<(), String> {
        // Arguments that must be arrays, by function.
        let array_args: &[usize] = match name {
            "split" | "patsplit" => &[1, 3],
            "match" => &[2],
            "asort" | "asorti" => &[0, 1],
            _ => &[],
        };
        for (i, arg) in args.iter().enumerate() {
            match arg {
                Expr::Var(var) if array_args.contains(&i) => self.array(var)?,
                Expr::Var(_) if name == "length" || name == "isarray" || name == "typeof" => {}
                other => self.expr(other)?,
            }
        }
        Ok(())
    }
}
