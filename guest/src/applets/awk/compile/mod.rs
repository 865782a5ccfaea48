//! From syntax tree to bytecode: resolves names (function parameters shadow globals), infers
//! which variables are arrays (across calls, to a fixpoint, as gawk decides at run time), and
//! emits the stack-machine code of every rule and function.

use std::collections::HashMap;
use std::rc::Rc;

mod infer;

use super::ast::{Expr, Function, GetSrc, Pattern, Program, Redirect, Stmt};
use super::code::{
    slot, ArrRef, Bf, CPattern, CRule, Compiled, Dest, FuncInfo, GetFrom, LVal, Op, Re,
};
use super::ere;
use super::value::Bytes;
use infer::{infer, Kind, Sym};

/// A compile error: gawk's message, and the exit status (1 for `error:`, 2 for `fatal:`).
#[derive(Debug)]
pub struct CompileError {
    /// The message (without `awk: cmd. line:1: fatal:`).
    pub msg: String,
    /// 1 (`error:`) or 2 (`fatal:`).
    pub status: i32,
}

impl From<String> for CompileError {
    fn from(msg: String) -> Self {
        CompileError { msg, status: 2 }
    }
}

fn error(msg: String) -> CompileError {
    CompileError { msg, status: 1 }
}

/// Compiles a parsed program.
pub fn compile(prog: &Program) -> Result<Compiled, CompileError> {
    let funcs: HashMap<String, usize> = prog
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), i))
        .collect();
    let (kinds, warnings, misuse) = infer(prog, &funcs)?;
    if let Some(msg) = misuse {
        return Err(error(msg));
    }
    let mut c = Compiler {
        out: Compiled::default(),
        globals: HashMap::new(),
        funcs,
        kinds,
        strings: HashMap::new(),
        func: None,
        loops: Vec::new(),
        line: 1,
        special_block: None,
    };
    for (i, name) in slot::NAMES.iter().enumerate() {
        let is_array = i as u32 >= slot::ENVIRON;
        c.out.globals.push((name.to_string(), is_array));
        c.globals.insert(name.to_string(), i as u32);
    }
    c.program(prog)?;
    c.out.warnings = warnings;
    Ok(c.out)
}

// ---- code generation ----

struct FuncCtx {
    params: HashMap<String, u32>,
    index: usize,
}

struct LoopCtx {
    breaks: Vec<usize>,
    continues: Vec<usize>,
}

struct Compiler {
    out: Compiled,
    globals: HashMap<String, u32>,
    funcs: HashMap<String, usize>,
    kinds: HashMap<Sym, Kind>,
    strings: HashMap<Vec<u8>, u32>,
    func: Option<FuncCtx>,
    loops: Vec<LoopCtx>,
    line: usize,
    /// "BEGIN" or "END" while compiling those (where `next` is not allowed).
    special_block: Option<&'static str>,
}

/// A resolved variable.
enum Var {
    Global(u32),
    Local(u32),
}

type CResult = Result<(), CompileError>;

impl Compiler {
    fn emit(&mut self, op: Op) -> usize {
        self.out.code.push(op);
        self.out.lines.push(self.line as u32);
        self.out.code.len() - 1
    }

    fn here(&self) -> u32 {
        self.out.code.len() as u32
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.out.code[at] {
            Op::Jump(t) | Op::JumpIfFalse(t) | Op::JumpIfTrue(t) | Op::ForInNext(_, t) => {
                *t = target;
            }
            _ => {}
        }
    }

    fn string(&mut self, s: &[u8]) -> u32 {
        if let Some(&i) = self.strings.get(s) {
            return i;
        }
        let i = self.out.strings.len() as u32;
        self.out.strings.push(Bytes::from(s));
        self.strings.insert(s.to_vec(), i);
        i
    }

    fn regex(&mut self, src: &[u8]) -> Result<u32, CompileError> {
        let re = ere::compile(src, false).map_err(error)?;
        self.out.regexes.push(Rc::new(re));
        self.out.regex_src.push(Bytes::from(src));
        Ok(self.out.regexes.len() as u32 - 1)
    }

    fn kind(&self, name: &str) -> Option<Kind> {
        let sym = match &self.func {
            Some(f) if f.params.contains_key(name) => Sym::Param(f.index, f.params[name] as usize),
            _ => Sym::Global(name.to_string()),
        };
        self.kinds.get(&sym).copied()
    }

    fn var(&mut self, name: &str) -> Var {
        if let Some(f) = &self.func {
            if let Some(&i) = f.params.get(name) {
                return Var::Local(i);
            }
        }
        if let Some(&slot) = self.globals.get(name) {
            return Var::Global(slot);
        }
        let slot = self.out.globals.len() as u32;
        let is_array = self.kinds.get(&Sym::Global(name.to_string())) == Some(&Kind::Array);
        self.out.globals.push((name.to_string(), is_array));
        self.globals.insert(name.to_string(), slot);
        Var::Global(slot)
    }

    fn arr(&mut self, name: &str) -> ArrRef {
        match self.var(name) {
            Var::Global(s) => ArrRef::Global(s),
            Var::Local(i) => ArrRef::Local(i),
        }
    }

    fn program(&mut self, prog: &Program) -> CResult {
        self.special_block = Some("BEGIN");
        for body in &prog.begin {
            let at = self.chunk(body)?;
            self.out.begin.push(at);
        }
        self.special_block = None;
        for rule in &prog.rules {
            self.line = rule.line;
            let pattern = match &rule.pattern {
                Pattern::All => CPattern::All,
                Pattern::Expr(e) => CPattern::Expr(self.pattern(e)?),
                Pattern::Range(a, b) => {
                    let a = self.pattern(a)?;
                    CPattern::Range(a, self.pattern(b)?)
                }
            };
            let action = self.here();
            match &rule.action {
                Some(stmts) => self.stmts(stmts)?,
                None => {
                    self.emit(Op::LoadFieldConst(0));
                    self.emit(Op::Print(1, Dest::Stdout));
                }
            }
            self.emit(Op::Halt);
            self.out.rules.push(CRule { pattern, action });
        }
        for body in &prog.begin_file {
            let at = self.chunk(body)?;
            self.out.begin_file.push(at);
        }
        for body in &prog.end_file {
            let at = self.chunk(body)?;
            self.out.end_file.push(at);
        }
        self.special_block = Some("END");
        for body in &prog.end {
            let at = self.chunk(body)?;
            self.out.end.push(at);
        }
        self.special_block = None;
        for f in &prog.functions {
            self.function(f)?;
        }
        Ok(())
    }

    fn chunk(&mut self, body: &[Stmt]) -> Result<u32, CompileError> {
        let at = self.here();
        self.stmts(body)?;
        self.emit(Op::Halt);
        Ok(at)
    }

    fn pattern(&mut self, e: &Expr) -> Result<u32, CompileError> {
        let at = self.here();
        self.expr(e)?;
        self.emit(Op::Halt);
        Ok(at)
    }

    fn function(&mut self, f: &Function) -> CResult {
        let index = self.funcs.get(&f.name).copied().unwrap_or(0);
        self.line = f.line;
        let params = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), i as u32))
            .collect();
        self.func = Some(FuncCtx { params, index });
        let entry = self.here();
        self.stmts(&f.body)?;
        self.emit(Op::Uninit);
        self.emit(Op::Return);
        self.func = None;
        let array_params = (0..f.params.len())
            .map(|p| self.kinds.get(&Sym::Param(index, p)) == Some(&Kind::Array))
            .collect();
        self.out.funcs.push(FuncInfo {
            entry,
            nparams: f.params.len() as u32,
            array_params,
            params: f.params.clone(),
        });
        Ok(())
    }

    // ---- statements ----

    fn stmts(&mut self, stmts: &[Stmt]) -> CResult {
        stmts.iter().try_for_each(|s| self.stmt(s))
    }

    fn stmt(&mut self, s: &Stmt) -> CResult {
        match s {
            Stmt::Expr(e) => {
                self.expr(e)?;
                self.emit(Op::Pop);
            }
            Stmt::Print(args, redirect) => self.print(args, redirect, false)?,
            Stmt::Printf(args, redirect) => self.print(args, redirect, true)?,
            Stmt::If(c, a, b) => self.if_stmt(c, a, b.as_deref())?,
            Stmt::While(c, body) => self.while_stmt(c, body)?,
            Stmt::Do(body, c) => self.do_stmt(body, c)?,
            Stmt::For(init, cond, step, body) => {
                self.for_stmt(init.as_deref(), cond.as_ref(), step.as_deref(), body)?;
            }
            Stmt::ForIn(var, arr, body) => self.for_in(var, arr, body)?,
            Stmt::Block(stmts) => self.stmts(stmts)?,
            Stmt::Next | Stmt::NextFile => {
                if let Some(place) = self.special_block {
                    let what = if matches!(s, Stmt::Next) {
                        "next"
                    } else {
                        "nextfile"
                    };
                    return Err(error(format!("`{what}' used in {place} action")));
                }
                self.emit(if matches!(s, Stmt::Next) {
                    Op::Next
                } else {
                    Op::NextFile
                });
            }
            Stmt::Exit(code) => {
                if let Some(code) = code {
                    self.expr(code)?;
                }
                self.emit(Op::Exit(code.is_some()));
            }
            Stmt::Return(value) => {
                if self.func.is_none() {
                    return Err(error("`return' used outside function context".to_string()));
                }
                match value {
                    Some(v) => self.expr(v)?,
                    None => {
                        self.emit(Op::Uninit);
                    }
                }
                self.emit(Op::Return);
            }
            Stmt::Break | Stmt::Continue => {
                let at = self.emit(Op::Jump(0));
                let is_break = matches!(s, Stmt::Break);
                let Some(ctx) = self.loops.last_mut() else {
                    let what = if is_break { "break" } else { "continue" };
                    return Err(error(format!(
                        "`{what}' is not allowed outside a loop or switch"
                    )));
                };
                if is_break {
                    ctx.breaks.push(at);
                } else {
                    ctx.continues.push(at);
                }
            }
            Stmt::Delete(name, subs) => {
                let arr = self.arr(name);
                match subs {
                    Some(subs) => {
                        self.key(subs)?;
                        self.emit(Op::Delete(arr));
                    }
                    None => {
                        self.emit(Op::DeleteAll(arr));
                    }
                }
            }
        }
        Ok(())
    }

    fn print(&mut self, args: &[Expr], redirect: &Option<Redirect>, printf: bool) -> CResult {
        if args.is_empty() {
            self.emit(Op::LoadFieldConst(0));
        }
        for arg in args {
            self.expr(arg)?;
        }
        let dest = match redirect {
            None => Dest::Stdout,
            Some(Redirect::Write(e)) => {
                self.expr(e)?;
                Dest::Write
            }
            Some(Redirect::Append(e)) => {
                self.expr(e)?;
                Dest::Append
            }
            Some(Redirect::Pipe(e)) => {
                self.expr(e)?;
                Dest::Pipe
            }
        };
        let n = args.len().max(1) as u32;
        self.emit(if printf {
            Op::Printf(n, dest)
        } else {
            Op::Print(n, dest)
        });
        Ok(())
    }

    fn if_stmt(&mut self, c: &Expr, a: &Stmt, b: Option<&Stmt>) -> CResult {
        self.expr(c)?;
        let jf = self.emit(Op::JumpIfFalse(0));
        self.stmt(a)?;
        match b {
            Some(b) => {
                let jend = self.emit(Op::Jump(0));
                let here = self.here();
                self.patch(jf, here);
                self.stmt(b)?;
                let end = self.here();
                self.patch(jend, end);
            }
            None => {
                let end = self.here();
                self.patch(jf, end);
            }
        }
        Ok(())
    }

    fn loop_body(&mut self, body: &Stmt) -> Result<LoopCtx, CompileError> {
        self.loops.push(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        let result = self.stmt(body);
        let ctx = self.loops.pop().unwrap_or(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        result.map(|()| ctx)
    }

    fn close_loop(&mut self, ctx: LoopCtx, cont: u32, end: u32) {
        for at in ctx.breaks {
            self.patch(at, end);
        }
        for at in ctx.continues {
            self.patch(at, cont);
        }
    }

    fn while_stmt(&mut self, c: &Expr, body: &Stmt) -> CResult {
        let top = self.here();
        self.expr(c)?;
        let jf = self.emit(Op::JumpIfFalse(0));
        let ctx = self.loop_body(body)?;
        self.emit(Op::Jump(top));
        let end = self.here();
        self.patch(jf, end);
        self.close_loop(ctx, top, end);
        Ok(())
    }

    fn do_stmt(&mut self, body: &Stmt, c: &Expr) -> CResult {
        let top = self.here();
        let ctx = self.loop_body(body)?;
        let cont = self.here();
        self.expr(c)?;
        self.emit(Op::JumpIfTrue(top));
        let end = self.here();
        self.close_loop(ctx, cont, end);
        Ok(())
    }

    fn for_stmt(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        step: Option<&Stmt>,
        body: &Stmt,
    ) -> CResult {
        if let Some(init) = init {
            self.stmt(init)?;
        }
        let top = self.here();
        let jf = match cond {
            Some(c) => {
                self.expr(c)?;
                Some(self.emit(Op::JumpIfFalse(0)))
            }
            None => None,
        };
        let ctx = self.loop_body(body)?;
        let cont = self.here();
        if let Some(step) = step {
            self.stmt(step)?;
        }
        self.emit(Op::Jump(top));
        let end = self.here();
        if let Some(jf) = jf {
            self.patch(jf, end);
        }
        self.close_loop(ctx, cont, end);
        Ok(())
    }

    fn for_in(&mut self, var: &str, arr: &str, body: &Stmt) -> CResult {
        let arr = self.arr(arr);
        let target = self.scalar_lval(var)?;
        self.emit(Op::ForInStart(arr));
        let top = self.emit(Op::ForInNext(target, 0));
        let ctx = self.loop_body(body)?;
        self.emit(Op::Jump(top as u32));
        let end = self.here();
        self.patch(top, end);
        self.emit(Op::ForInEnd);
        self.close_loop(ctx, top as u32, end);
        Ok(())
    }

    // ---- expressions ----

    fn key(&mut self, subs: &[Expr]) -> CResult {
        for sub in subs {
            self.expr(sub)?;
        }
        if subs.len() > 1 {
            self.emit(Op::JoinKey(subs.len() as u32));
        }
        Ok(())
    }

    fn scalar_lval(&mut self, name: &str) -> Result<LVal, CompileError> {
        if self.kind(name) == Some(Kind::Array) {
            return Err(format!("attempt to use array `{name}' in a scalar context").into());
        }
        Ok(match self.var(name) {
            Var::Global(s) => LVal::Global(s),
            Var::Local(i) => LVal::Local(i),
        })
    }

    /// Emits what an lvalue needs on the stack (field index, element key) and returns it.
    fn lval(&mut self, e: &Expr) -> Result<LVal, CompileError> {
        match e {
            Expr::Var(name) => self.scalar_lval(name),
            Expr::Field(index) => {
                self.expr(index)?;
                Ok(LVal::Field)
            }
            Expr::Index(name, subs) => {
                self.key(subs)?;
                Ok(LVal::Elem(self.arr(name)))
            }
            Expr::Group(inner) => self.lval(inner),
            _ => Err(error("assignment to a non-variable".to_string())),
        }
    }

    /// An lvalue written after `value` is evaluated: `a[$n]` looks its element up by the
    /// field's text then, without a copy, when `value` cannot change the record.
    fn lval_after(&mut self, e: &Expr, value: Option<&Expr>) -> Result<LVal, CompileError> {
        if let Expr::Index(name, subs) = e {
            if let [Expr::Field(index)] = subs.as_slice() {
                if let Expr::Num(n) = **index {
                    if n >= 1.0 && n == n.trunc() && n < 1e9 && value.is_none_or(keeps_record) {
                        return Ok(LVal::ElemField(self.arr(name), n as u32));
                    }
                }
            }
        }
        self.lval(e)
    }

    fn expr(&mut self, e: &Expr) -> CResult {
        match e {
            Expr::Num(n) => {
                self.emit(Op::Num(*n));
            }
            Expr::Str(s) => {
                let i = self.string(s);
                self.emit(Op::Str(i));
            }
            Expr::Regex(r) => {
                let i = self.regex(r)?;
                self.emit(Op::MatchRecord(i));
            }
            Expr::Group(e) => self.expr(e)?,
            Expr::Var(name) => self.load_var(name)?,
            Expr::Field(index) => match **index {
                Expr::Num(n) if n >= 0.0 && n == n.trunc() && n < 1e9 => {
                    self.emit(Op::LoadFieldConst(n as u32));
                }
                _ => {
                    self.expr(index)?;
                    self.emit(Op::LoadField);
                }
            },
            Expr::Index(name, subs) => {
                self.key(subs)?;
                let arr = self.arr(name);
                self.emit(Op::LoadElem(arr));
            }
            Expr::Assign(target, None, value) if self.appends_to(target, value) => {
                let mut parts = Vec::new();
                concat_parts(value, &mut parts);
                let lv = self.lval(target)?;
                for part in &parts[1..] {
                    self.expr(part)?;
                }
                self.emit(Op::Append(lv, parts.len() as u32 - 1));
            }
            Expr::Assign(target, op, value) => {
                // gawk evaluates the value before the target's subscript or field number
                // (`a[i] += (i = 2)` adds to `a[2]`).
                match op {
                    None => self.expr(value)?,
                    Some(_) => self.number(value)?,
                }
                let lv = self.lval_after(target, Some(value))?;
                self.emit(match op {
                    None => Op::Assign(lv),
                    Some(op) => Op::AugAssign(lv, *op),
                });
            }
            Expr::Cond(c, a, b) => {
                self.expr(c)?;
                let jf = self.emit(Op::JumpIfFalse(0));
                self.expr(a)?;
                let jend = self.emit(Op::Jump(0));
                let here = self.here();
                self.patch(jf, here);
                self.expr(b)?;
                let end = self.here();
                self.patch(jend, end);
            }
            Expr::And(a, b) => self.short_circuit(a, b, true)?,
            Expr::Or(a, b) => self.short_circuit(a, b, false)?,
            Expr::Not(a) => self.unary(a, Op::Not)?,
            Expr::Neg(a) => {
                self.number(a)?;
                self.emit(Op::Neg);
            }
            Expr::Plus(a) => {
                self.number(a)?;
                self.emit(Op::Plus);
            }
            Expr::Binary(op, a, b) => {
                self.number(a)?;
                self.number(b)?;
                self.emit(Op::Arith(*op));
            }
            Expr::Cmp(op, a, b) => self.binary(a, b, Op::Cmp(*op))?,
            Expr::Concat(a, b) => self.binary(a, b, Op::Concat)?,
            Expr::Match(negate, a, b) => {
                self.expr(a)?;
                let re = self.regex_arg(b)?;
                self.emit(Op::Match(re, *negate));
            }
            Expr::In(subs, name) => {
                self.key(subs)?;
                let arr = self.arr(name);
                self.emit(Op::In(arr));
            }
            Expr::Incr { pre, delta, target } => {
                let lv = self.lval_after(target, None)?;
                self.emit(Op::Incr(lv, *pre, *delta));
            }
            Expr::Call(name, args) => self.call(name, args)?,
            Expr::Builtin(name, args) => self.builtin(name, args)?,
            Expr::Getline(src, var) => self.getline(src, var.as_deref())?,
        }
        Ok(())
    }

    /// Whether `target = value` is `x = x a b...` (compiled to an in-place append, so building
    /// a string in a loop is linear, not quadratic).
    fn appends_to(&self, target: &Expr, value: &Expr) -> bool {
        let mut parts = Vec::new();
        concat_parts(value, &mut parts);
        // (An element's subscript is taken before the pieces: they must not change it.)
        let keep_subscript = |e: &&Expr| !matches!(target, Expr::Index(..)) || keeps_record(e);
        parts.len() >= 2
            && matches!(target, Expr::Var(_) | Expr::Index(..))
            && same_place(target, parts[0])
            && parts[1..].iter().all(keep_subscript)
    }

    fn load_var(&mut self, name: &str) -> CResult {
        if self.kind(name) == Some(Kind::Array) {
            return Err(format!("attempt to use array `{name}' in a scalar context").into());
        }
        match self.var(name) {
            Var::Global(slot::NF) => self.emit(Op::LoadNF),
            Var::Global(s) => self.emit(Op::LoadGlobal(s)),
            Var::Local(i) => self.emit(Op::LoadLocal(i)),
        };
        Ok(())
    }

    /// An operand of which only the number is used: a constant field pushes its number
    /// without making its string.
    fn number(&mut self, e: &Expr) -> CResult {
        match e {
            Expr::Group(inner) => self.number(inner),
            Expr::Field(index) => match **index {
                Expr::Num(n) if n >= 1.0 && n == n.trunc() && n < 1e9 => {
                    self.emit(Op::LoadFieldNum(n as u32));
                    Ok(())
                }
                _ => self.expr(e),
            },
            _ => self.expr(e),
        }
    }

    fn unary(&mut self, a: &Expr, op: Op) -> CResult {
        self.expr(a)?;
        self.emit(op);
        Ok(())
    }

    fn binary(&mut self, a: &Expr, b: &Expr, op: Op) -> CResult {
        self.expr(a)?;
        self.expr(b)?;
        self.emit(op);
        Ok(())
    }

    fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> CResult {
        self.expr(a)?;
        let skip = self.emit(if and {
            Op::JumpIfFalse(0)
        } else {
            Op::JumpIfTrue(0)
        });
        self.expr(b)?;
        self.emit(Op::ToBool);
        let jend = self.emit(Op::Jump(0));
        let here = self.here();
        self.patch(skip, here);
        self.emit(Op::Num(if and { 0.0 } else { 1.0 }));
        let end = self.here();
        self.patch(jend, end);
        Ok(())
    }

    /// A regex argument: a constant for `/re/`, else a dynamic string on the stack.
    fn regex_arg(&mut self, e: &Expr) -> Result<Re, CompileError> {
        match e {
            Expr::Regex(r) => Ok(Re::Const(self.regex(r)?)),
            Expr::Group(inner) if matches!(**inner, Expr::Regex(_)) => self.regex_arg(inner),
            other => {
                self.expr(other)?;
                Ok(Re::Dynamic)
            }
        }
    }

    fn call(&mut self, name: &str, args: &[Expr]) -> CResult {
        let Some(&index) = self.funcs.get(name) else {
            return Err(format!("function `{name}' not defined").into());
        };
        for (i, arg) in args.iter().enumerate() {
            let param_is_array = self.kinds.get(&Sym::Param(index, i)) == Some(&Kind::Array);
            match arg {
                Expr::Var(var) if self.kind(var) == Some(Kind::Array) || param_is_array => {
                    let arr = self.arr(var);
                    self.emit(Op::PushArr(arr));
                }
                Expr::Var(var) if self.kind(var).is_none() => {
                    // Untyped both sides: pass the variable as it is at run time.
                    match self.var(var) {
                        Var::Global(slot::NF) => self.emit(Op::LoadNF),
                        Var::Global(s) => self.emit(Op::LoadGlobal(s)),
                        Var::Local(i) => self.emit(Op::LoadLocal(i)),
                    };
                }
                other => self.expr(other)?,
            }
        }
        self.emit(Op::Call(index as u32, args.len() as u32));
        Ok(())
    }

    fn array_arg(&mut self, e: Option<&Expr>, func: &str) -> Result<ArrRef, CompileError> {
        match e {
            Some(Expr::Var(name)) => Ok(self.arr(name)),
            _ => Err(format!("{func}: argument is not an array").into()),
        }
    }

    fn arity(name: &str, n: usize, min: usize, max: usize) -> CResult {
        if n < min || n > max {
            return Err(error(format!(
                "{n} is invalid as number of arguments for {name}"
            )));
        }
        Ok(())
    }

    fn builtin(&mut self, name: &str, args: &[Expr]) -> CResult {
        let n = args.len();
        let plain = |bf: Bf, min: usize, max: usize| (bf, min, max);
        let (bf, min, max) = match name {
            "length" => return self.length(args),
            "split" => return self.split(args),
            "match" => return self.match_fn(args),
            "sub" | "gsub" => return self.sub(name, args),
            "gensub" => return self.gensub(args),
            "asort" | "asorti" => return self.asort(name, args),
            "substr" => plain(Bf::Substr, 2, 3),
            "index" => plain(Bf::Index, 2, 2),
            "sprintf" => plain(Bf::Sprintf, 1, usize::MAX),
            "tolower" => plain(Bf::Tolower, 1, 1),
            "toupper" => plain(Bf::Toupper, 1, 1),
            "int" => plain(Bf::Int, 1, 1),
            "sqrt" => plain(Bf::Sqrt, 1, 1),
            "exp" => plain(Bf::Exp, 1, 1),
            "log" => plain(Bf::Log, 1, 1),
            "sin" => plain(Bf::Sin, 1, 1),
            "cos" => plain(Bf::Cos, 1, 1),
            "atan2" => plain(Bf::Atan2, 2, 2),
            "rand" => plain(Bf::Rand, 0, 0),
            "srand" => plain(Bf::Srand, 0, 1),
            "system" => plain(Bf::System, 1, 1),
            "close" => plain(Bf::Close, 1, 2),
            "fflush" => plain(Bf::Fflush, 0, 1),
            "systime" => plain(Bf::Systime, 0, 0),
            "strftime" => plain(Bf::Strftime, 0, 3),
            "mktime" => plain(Bf::Mktime, 1, 2),
            "and" => plain(Bf::And, 2, usize::MAX),
            "or" => plain(Bf::Or, 2, usize::MAX),
            "xor" => plain(Bf::Xor, 2, usize::MAX),
            "lshift" => plain(Bf::Lshift, 2, 2),
            "rshift" => plain(Bf::Rshift, 2, 2),
            "compl" => plain(Bf::Compl, 1, 1),
            "strtonum" => plain(Bf::Strtonum, 1, 1),
            _ => return Err(format!("function `{name}' is not supported").into()),
        };
        Self::arity(name, n, min, max)?;
        for arg in args {
            self.expr(arg)?;
        }
        self.emit(Op::Builtin(bf, n as u32));
        Ok(())
    }

    fn length(&mut self, args: &[Expr]) -> CResult {
        Self::arity("length", args.len(), 0, 1)?;
        match args.first() {
            None => {
                self.emit(Op::LengthRecord);
            }
            Some(Expr::Var(name)) if self.kind(name) == Some(Kind::Array) => {
                let arr = self.arr(name);
                self.emit(Op::LengthArr(arr));
            }
            Some(arg) => {
                self.expr(arg)?;
                self.emit(Op::Builtin(Bf::Length, 1));
            }
        }
        Ok(())
    }

    fn split(&mut self, args: &[Expr]) -> CResult {
        Self::arity("split", args.len(), 2, 4)?;
        self.expr(&args[0])?;
        let arr = self.array_arg(args.get(1), "split")?;
        let sep = match args.get(2) {
            Some(e) => Some(self.regex_arg(e)?),
            None => None,
        };
        let seps = match args.get(3) {
            Some(e) => Some(self.array_arg(Some(e), "split")?),
            None => None,
        };
        self.emit(Op::Split(arr, sep, seps));
        Ok(())
    }

    fn match_fn(&mut self, args: &[Expr]) -> CResult {
        Self::arity("match", args.len(), 2, 3)?;
        self.expr(&args[0])?;
        let re = self.regex_arg(&args[1])?;
        let arr = match args.get(2) {
            Some(e) => Some(self.array_arg(Some(e), "match")?),
            None => None,
        };
        self.emit(Op::MatchFn(re, arr));
        Ok(())
    }

    fn sub(&mut self, name: &str, args: &[Expr]) -> CResult {
        Self::arity(name, args.len(), 2, 3)?;
        let re = self.regex_arg(&args[0])?;
        self.expr(&args[1])?;
        let lv = match args.get(2) {
            Some(target) => self
                .lval(target)
                .map_err(|_| error(format!("{name} third parameter is not a changeable object")))?,
            None => {
                self.emit(Op::Num(0.0));
                LVal::Field
            }
        };
        self.emit(Op::Sub(name == "gsub", re, lv));
        Ok(())
    }

    fn gensub(&mut self, args: &[Expr]) -> CResult {
        Self::arity("gensub", args.len(), 3, 4)?;
        let re = self.regex_arg(&args[0])?;
        self.expr(&args[1])?;
        self.expr(&args[2])?;
        if let Some(target) = args.get(3) {
            self.expr(target)?;
        }
        self.emit(Op::Gensub(re, args.len() == 4));
        Ok(())
    }

    fn asort(&mut self, name: &str, args: &[Expr]) -> CResult {
        Self::arity(name, args.len(), 1, 2)?;
        let src = self.array_arg(args.first(), name)?;
        let dest = match args.get(1) {
            Some(e) => Some(self.array_arg(Some(e), name)?),
            None => None,
        };
        self.emit(Op::Asort(src, dest, name == "asorti"));
        Ok(())
    }

    fn getline(&mut self, src: &GetSrc, var: Option<&Expr>) -> CResult {
        let from = match src {
            GetSrc::Main => GetFrom::Main,
            GetSrc::File(e) => {
                self.expr(e)?;
                GetFrom::File
            }
            GetSrc::Cmd(e) => {
                self.expr(e)?;
                GetFrom::Cmd
            }
        };
        let lv = match var {
            Some(v) => Some(self.lval(v)?),
            None => None,
        };
        self.emit(Op::Getline(from, lv));
        Ok(())
    }
}

/// The operands of a concatenation chain, leftmost first.
fn concat_parts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::Concat(a, b) => {
            concat_parts(a, out);
            out.push(b);
        }
        other => out.push(other),
    }
}

/// Whether two lvalues are the same variable or element, with side-effect-free subscripts.
fn same_place(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Var(x), Expr::Var(y)) => x == y,
        (Expr::Index(x, xs), Expr::Index(y, ys)) => {
            x == y && xs.len() == ys.len() && xs.iter().zip(ys).all(|(p, q)| same_pure(p, q))
        }
        _ => false,
    }
}

/// Structural equality of expressions without side effects.
fn same_pure(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Num(x), Expr::Num(y)) => x == y,
        (Expr::Str(x), Expr::Str(y)) => x == y,
        (Expr::Var(x), Expr::Var(y)) => x == y,
        (Expr::Field(x), Expr::Field(y)) | (Expr::Group(x), Expr::Group(y)) => same_pure(x, y),
        (Expr::Concat(a1, a2), Expr::Concat(b1, b2)) => same_pure(a1, b1) && same_pure(a2, b2),
        (Expr::Binary(o1, a1, a2), Expr::Binary(o2, b1, b2)) => {
            o1 == o2 && same_pure(a1, b1) && same_pure(a2, b2)
        }
        _ => false,
    }
}

/// Whether evaluating `e` leaves the record and the arrays as they are (no assignment,
/// call, getline or element read), so that an lvalue's subscript may be read after it.
fn keeps_record(e: &Expr) -> bool {
    match e {
        Expr::Num(_) | Expr::Str(_) | Expr::Var(_) => true,
        Expr::Field(a) | Expr::Group(a) | Expr::Neg(a) | Expr::Plus(a) | Expr::Not(a) => {
            keeps_record(a)
        }
        Expr::Binary(_, a, b) | Expr::Cmp(_, a, b) | Expr::Concat(a, b) => {
            keeps_record(a) && keeps_record(b)
        }
        _ => false,
    }
}
