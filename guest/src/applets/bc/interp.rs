//! Running bc programs: variables with dynamic scoping (a function's parameters and autos
//! shadow globals for everything it calls), arrays, `scale`/`ibase`/`obase`/`last`, and
//! output wrapped at 70 columns with `\` like GNU bc.

use std::collections::HashMap;
use std::rc::Rc;

use super::num::{Num, NumError};
use super::parser::{Arg, BinOp, Expr, Func, LValue, PrintItem, Stmt};

/// bc's largest array index.
const DIM_MAX: i64 = 16_777_215;
/// Native stack bc recursion may use (the wasm guest has 1 MiB in all; a call takes about
/// 1.3 KiB in release builds): deeper recursion is a runtime error instead of a trap.
const STACK_BUDGET: usize = 512 * 1024;
/// bc's largest output base.
const BASE_MAX: i64 = 2_147_483_647;

const LIMITS: &str = "BC_BASE_MAX     = 2147483647\nBC_DIM_MAX      = 16777215\nBC_SCALE_MAX    = 2147483647\nBC_STRING_MAX   = 2147483647\nMAX Exponent    = 9223372036854775807\nNumber of vars  = 32767\n";

const WARRANTY: &str = "This program is free software; you can redistribute it and/or modify\nit under the terms of the GNU General Public License as published by\nthe Free Software Foundation; either version 3 of the License , or\n(at your option) any later version.\n\nThis program is distributed in the hope that it will be useful,\nbut WITHOUT ANY WARRANTY; without even the implied warranty of\nMERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the\nGNU General Public License for more details.\n";

type Array = HashMap<i64, Num>;
/// A call's evaluated arguments: values and arrays, by parameter name.
type Bound = (Vec<(String, Num)>, Vec<(String, Array)>);

/// How a statement ended.
enum Flow {
    Next,
    Break,
    Continue,
    Return(Num),
}

/// Why execution of the current input line stopped.
pub enum Stop {
    /// A runtime error (already reported on stderr).
    Error,
    /// `halt`.
    Halt,
    /// The execution's deadline passed (the shell reports the timeout).
    OutOfTime,
}

type Run<T> = Result<T, Stop>;

/// The interpreter's state across input lines.
pub struct Interp {
    scalars: HashMap<String, Vec<Num>>,
    arrays: HashMap<String, Vec<Array>>,
    funcs: HashMap<String, Rc<Func>>,
    scale: usize,
    ibase: u32,
    obase: u64,
    last: Num,
    /// Pending standard output.
    pub out: Vec<u8>,
    /// Pending standard error.
    pub err: Vec<u8>,
    col: usize,
    line_len: usize,
    calls: Vec<String>,
    adr: usize,
    /// Address of a local in `run_line`: how deep the native stack was when bc started.
    stack_base: usize,
}

/// Stops a loop or a call once the execution is out of time: bc never yields to the shell.
fn spin() -> Run<()> {
    if crate::task::out_of_time() {
        Err(Stop::OutOfTime)
    } else {
        Ok(())
    }
}

/// The address of a local of the caller's frame (the stack grows down on every target).
#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

impl Interp {
    /// A fresh interpreter; lines are wrapped at `line_len` columns (0: never).
    pub fn new(line_len: usize) -> Self {
        Interp {
            scalars: HashMap::new(),
            arrays: HashMap::new(),
            funcs: HashMap::new(),
            scale: 0,
            ibase: 10,
            obase: 10,
            last: Num::zero(),
            out: Vec::new(),
            err: Vec::new(),
            col: 0,
            line_len,
            calls: Vec::new(),
            adr: 0,
            stack_base: 0,
        }
    }

    /// Adds (or replaces) a function.
    pub fn define(&mut self, f: Rc<Func>) {
        self.funcs.insert(f.name.clone(), f);
    }

    /// Runs the statements of one input line.
    pub fn run_line(&mut self, stmts: &[Stmt]) -> Run<()> {
        self.adr = 0;
        self.stack_base = stack_position();
        for stmt in stmts {
            match self.exec(stmt)? {
                Flow::Next => {}
                Flow::Break | Flow::Continue | Flow::Return(_) => break,
            }
        }
        Ok(())
    }

    fn func_name(&self) -> &str {
        self.calls.last().map_or("(main)", String::as_str)
    }

    #[inline(never)]
    fn runtime_error(&mut self, msg: &str) -> Stop {
        let line = format!(
            "Runtime error (func={}, adr={}): {msg}\n",
            self.func_name(),
            self.adr
        );
        self.err.extend_from_slice(line.as_bytes());
        Stop::Error
    }

    #[inline(never)]
    fn warning(&mut self, msg: &str) {
        let line = format!(
            "Runtime warning (func={}, adr={}): {msg}\n",
            self.func_name(),
            self.adr
        );
        self.err.extend_from_slice(line.as_bytes());
    }

    fn num_error(&mut self, e: NumError) -> Stop {
        self.runtime_error(e.message())
    }

    /// GNU bc's `out_char`: wraps before the last column with `\`.
    fn out_char(&mut self, c: char) {
        if c == '\n' {
            self.col = 0;
            self.out.push(b'\n');
            return;
        }
        self.col += 1;
        if self.line_len > 1 && self.col == self.line_len - 1 {
            self.out.extend_from_slice(b"\\\n");
            self.col = 1;
        }
        let mut buf = [0; 4];
        self.out
            .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
    }

    fn out_str(&mut self, s: &str) {
        for c in s.chars() {
            self.out_char(c);
        }
    }

    #[inline(never)]
    fn out_num(&mut self, n: &Num) {
        let text = n.to_base(self.obase);
        self.out_str(&text);
    }

    fn exec(&mut self, stmt: &Stmt) -> Run<Flow> {
        self.adr += 1;
        match stmt {
            Stmt::Expr(e, print) => self.exec_expr(e, *print)?,
            Stmt::Str(s) => self.out_str(s),
            Stmt::Print(items) => self.print(items)?,
            Stmt::If(c, then, otherwise) => {
                if !self.eval(c)?.is_zero() {
                    return self.exec(then);
                } else if let Some(s) = otherwise {
                    return self.exec(s);
                }
            }
            Stmt::While(c, body) => return self.exec_while(c, body),
            Stmt::For(init, cond, step, body) => return self.exec_for(init, cond, step, body),
            Stmt::Block(stmts) => {
                for s in stmts {
                    match self.exec(s)? {
                        Flow::Next => {}
                        flow => return Ok(flow),
                    }
                }
            }
            Stmt::Break => return Ok(Flow::Break),
            Stmt::Continue => return Ok(Flow::Continue),
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Num::zero(),
                };
                return Ok(Flow::Return(v));
            }
            Stmt::Halt => return Err(Stop::Halt),
            Stmt::Limits => self.out.extend_from_slice(LIMITS.as_bytes()),
            Stmt::Warranty => self.out.extend_from_slice(WARRANTY.as_bytes()),
        }
        Ok(Flow::Next)
    }

    #[inline(never)]
    fn exec_expr(&mut self, e: &Expr, print: bool) -> Run<()> {
        if let Expr::Call(name, args) = e {
            if self.funcs.get(name).is_some_and(|f| f.void) {
                self.call(name, args)?;
                return Ok(());
            }
        }
        let v = self.eval(e)?;
        if print {
            self.out_num(&v);
            self.out_char('\n');
            self.last = v;
        }
        Ok(())
    }

    #[inline(never)]
    fn print(&mut self, items: &[PrintItem]) -> Run<()> {
        for item in items {
            match item {
                PrintItem::Str(s) => self.out_str(s),
                PrintItem::Expr(e) => {
                    let v = self.eval(e)?;
                    self.out_num(&v);
                    self.last = v;
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn exec_while(&mut self, cond: &Expr, body: &Stmt) -> Run<Flow> {
        while !self.eval(cond)?.is_zero() {
            spin()?;
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Next | Flow::Continue => {}
            }
        }
        Ok(Flow::Next)
    }

    #[inline(never)]
    fn exec_for(
        &mut self,
        init: &Option<Expr>,
        cond: &Option<Expr>,
        step: &Option<Expr>,
        body: &Stmt,
    ) -> Run<Flow> {
        if let Some(e) = init {
            self.eval(e)?;
        }
        loop {
            if let Some(c) = cond {
                if self.eval(c)?.is_zero() {
                    break;
                }
            }
            spin()?;
            match self.exec(body)? {
                Flow::Break => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Next | Flow::Continue => {}
            }
            if let Some(e) = step {
                self.eval(e)?;
            }
        }
        Ok(Flow::Next)
    }

    /// Converts a literal with the current `ibase` (GNU's digit clamping rules).
    #[inline(never)]
    fn literal(&self, text: &str) -> Num {
        let base = self.ibase;
        if base == 10 && text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return Num::parse_decimal(text);
        }
        let value = |c: char| c.to_digit(36).unwrap_or(0);
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        let single = int.len() == 1 && !text.contains('.');
        let b = Num::from_i64(i64::from(base));
        let mut acc = Num::zero();
        for (i, c) in int.chars().enumerate() {
            let mut d = value(c);
            if d >= base && !(single && i == 0) {
                d = base - 1;
            }
            acc = acc.mul(&b, 0).add(&Num::from_i64(i64::from(d)));
        }
        if frac.is_empty() {
            return acc;
        }
        let mut num = Num::zero();
        let mut den = Num::from_i64(1);
        for c in frac.chars() {
            let d = value(c).min(base - 1);
            num = num.mul(&b, 0).add(&Num::from_i64(i64::from(d)));
            den = den.mul(&b, 0);
        }
        let frac = num.div(&den, frac.len()).unwrap_or_default();
        acc.add(&frac)
    }

    fn eval(&mut self, e: &Expr) -> Run<Num> {
        self.adr += 1;
        // a thin dispatcher: bc recursion goes through here, so its frame must stay small
        match e {
            Expr::Num(text) => Ok(self.literal(text)),
            Expr::Load(lv) => self.load(lv),
            Expr::Call(name, args) => self.call(name, args),
            Expr::Bin(op, a, b) => self.eval_bin(*op, a, b),
            Expr::Assign(op, target, value) => self.eval_assign(*op, target, value),
            other => self.eval_other(other),
        }
    }

    #[inline(never)]
    fn eval_bin(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Run<Num> {
        let l = self.eval(a)?;
        let r = self.eval(b)?;
        self.binop(op, &l, &r)
    }

    #[inline(never)]
    fn eval_assign(&mut self, op: Option<BinOp>, target: &LValue, value: &Expr) -> Run<Num> {
        let v = self.eval(value)?;
        let v = match op {
            Some(op) => {
                let old = self.load(target)?;
                self.binop(op, &old, &v)?
            }
            None => v,
        };
        self.store(target, v)
    }

    #[inline(never)]
    fn eval_other(&mut self, e: &Expr) -> Run<Num> {
        Ok(match e {
            Expr::Length(x) => Num::from_i64(self.eval(x)?.length() as i64),
            Expr::ScaleOf(x) => Num::from_i64(self.eval(x)?.scale() as i64),
            Expr::Sqrt(x) => {
                let v = self.eval(x)?;
                v.sqrt(self.scale).map_err(|e| self.num_error(e))?
            }
            Expr::Read => return Err(self.runtime_error("read() is not supported")),
            Expr::Neg(x) => self.eval(x)?.neg(),
            Expr::Not(x) => bool_num(self.eval(x)?.is_zero()),
            Expr::And(a, b) => {
                let l = !self.eval(a)?.is_zero();
                bool_num(l && !self.eval(b)?.is_zero())
            }
            Expr::Or(a, b) => {
                let l = !self.eval(a)?.is_zero();
                bool_num(l || !self.eval(b)?.is_zero())
            }
            Expr::IncDec { pre, inc, target } => {
                let old = self.load(target)?;
                let one = Num::from_i64(1);
                let new = if *inc { old.add(&one) } else { old.sub(&one) };
                let stored = self.store(target, new)?;
                if *pre {
                    stored
                } else {
                    old
                }
            }
            Expr::Num(_) | Expr::Load(_) | Expr::Call(..) | Expr::Bin(..) | Expr::Assign(..) => {
                return self.eval(e)
            }
        })
    }

    #[inline(never)]
    fn binop(&mut self, op: BinOp, l: &Num, r: &Num) -> Run<Num> {
        let scale = self.scale;
        let result = match op {
            BinOp::Add => Ok(l.add(r)),
            BinOp::Sub => Ok(l.sub(r)),
            BinOp::Mul => Ok(l.mul(r, scale)),
            BinOp::Div => l.div(r, scale),
            BinOp::Rem => l.rem(r, scale),
            BinOp::Pow => {
                if r.scale() > 0 && !r.rescale(0).sub(r).is_zero() {
                    self.warning("non-zero scale in exponent");
                }
                if !r.fits_i64() {
                    return Err(self.runtime_error("exponent too large in raise"));
                }
                l.pow(r.to_i64(), scale)
            }
            BinOp::Eq => Ok(bool_num(l.cmp_value(r).is_eq())),
            BinOp::Ne => Ok(bool_num(l.cmp_value(r).is_ne())),
            BinOp::Lt => Ok(bool_num(l.cmp_value(r).is_lt())),
            BinOp::Le => Ok(bool_num(l.cmp_value(r).is_le())),
            BinOp::Gt => Ok(bool_num(l.cmp_value(r).is_gt())),
            BinOp::Ge => Ok(bool_num(l.cmp_value(r).is_ge())),
        };
        result.map_err(|e| self.num_error(e))
    }

    #[inline(never)]
    fn index(&mut self, name: &str, index: &Expr) -> Run<i64> {
        let i = self.eval(index)?;
        let i = if i.fits_i64() { i.to_i64() } else { -1 };
        if !(0..=DIM_MAX).contains(&i) {
            let msg = format!("Array {name} subscript out of bounds.");
            return Err(self.runtime_error(&msg));
        }
        Ok(i)
    }

    #[inline(never)]
    fn load(&mut self, lv: &LValue) -> Run<Num> {
        Ok(match lv {
            LValue::Var(name) => self
                .scalars
                .get(name)
                .and_then(|s| s.last())
                .cloned()
                .unwrap_or_default(),
            LValue::Elem(name, index) => {
                let i = self.index(name, index)?;
                self.arrays
                    .get(name)
                    .and_then(|s| s.last())
                    .and_then(|a| a.get(&i))
                    .cloned()
                    .unwrap_or_default()
            }
            LValue::Scale => Num::from_i64(self.scale as i64),
            LValue::Ibase => Num::from_i64(i64::from(self.ibase)),
            LValue::Obase => Num::from_i64(self.obase as i64),
            LValue::Last => self.last.clone(),
        })
    }

    /// Stores `v`; returns the value the assignment expression has.
    #[inline(never)]
    fn store(&mut self, lv: &LValue, v: Num) -> Run<Num> {
        match lv {
            LValue::Var(name) => {
                let stack = self.scalars.entry(name.clone()).or_default();
                match stack.last_mut() {
                    Some(slot) => *slot = v.clone(),
                    None => stack.push(v.clone()),
                }
            }
            LValue::Elem(name, index) => {
                let i = self.index(name, index)?;
                let stack = self.arrays.entry(name.clone()).or_default();
                if stack.is_empty() {
                    stack.push(Array::new());
                }
                if let Some(a) = stack.last_mut() {
                    a.insert(i, v.clone());
                }
            }
            LValue::Scale => {
                let s = v.to_i64();
                if s < 0 {
                    self.warning("negative scale, set to 0");
                }
                self.scale = s.clamp(0, i64::from(i32::MAX)) as usize;
            }
            LValue::Ibase => {
                let b = v.to_i64();
                self.ibase = if b < 2 {
                    self.warning("ibase too small, set to 2");
                    2
                } else if b > 16 {
                    self.warning("ibase too large, set to 16");
                    16
                } else {
                    b as u32
                };
            }
            LValue::Obase => {
                let b = v.to_i64();
                self.obase = if b < 2 {
                    self.warning("obase too small, set to 2");
                    2
                } else if b > BASE_MAX {
                    self.warning("obase too large, set to 2147483647");
                    BASE_MAX as u64
                } else {
                    b as u64
                };
            }
            LValue::Last => self.last = v.clone(),
        }
        Ok(v)
    }

    #[inline(never)]
    fn call(&mut self, name: &str, args: &[Arg]) -> Run<Num> {
        let Some(f) = self.funcs.get(name).cloned() else {
            let msg = format!("Function {name} not defined.");
            return Err(self.runtime_error(&msg));
        };
        let (values, arrays) = self.bind_args(&f, args)?;
        spin()?;
        self.invoke(&f, values, arrays)
    }

    /// Evaluates the arguments (before the callee's locals exist).
    #[inline(never)]
    fn bind_args(&mut self, f: &Func, args: &[Arg]) -> Run<Bound> {
        if f.params.len() != args.len() {
            return Err(self.runtime_error("Parameter number mismatch"));
        }
        let mut values = Vec::new();
        let mut arrays = Vec::new();
        for (param, arg) in f.params.iter().zip(args) {
            match (param.array, arg) {
                (false, Arg::Value(e)) => values.push((param.name.clone(), self.eval(e)?)),
                (true, Arg::Array(a)) => {
                    let copy = self
                        .arrays
                        .get(a)
                        .and_then(|s| s.last())
                        .cloned()
                        .unwrap_or_default();
                    arrays.push((param.name.clone(), copy));
                }
                _ => return Err(self.runtime_error("Parameter type mismatch")),
            }
        }
        let deep = self.calls.len() >= crate::limits::MAX_BC_CALL_DEPTH;
        if deep || self.stack_base.saturating_sub(stack_position()) > STACK_BUDGET {
            return Err(self.runtime_error("Function call nesting too deep"));
        }
        Ok((values, arrays))
    }

    #[inline(never)]
    fn invoke(
        &mut self,
        f: &Rc<Func>,
        values: Vec<(String, Num)>,
        arrays: Vec<(String, Array)>,
    ) -> Run<Num> {
        self.push_locals(f, values, arrays);
        self.calls.push(f.name.clone());
        let saved_adr = std::mem::replace(&mut self.adr, 0);
        let result = self.run_body(f);
        self.adr = saved_adr;
        self.calls.pop();
        self.pop_locals(f);
        result
    }

    #[inline(never)]
    fn run_body(&mut self, f: &Func) -> Run<Num> {
        for stmt in &f.body {
            match self.exec(stmt)? {
                Flow::Return(v) => return Ok(v),
                Flow::Next | Flow::Break | Flow::Continue => {}
            }
        }
        Ok(Num::zero())
    }

    #[inline(never)]
    fn push_locals(&mut self, f: &Func, values: Vec<(String, Num)>, arrays: Vec<(String, Array)>) {
        for (name, v) in values {
            self.scalars.entry(name).or_default().push(v);
        }
        for (name, a) in arrays {
            self.arrays.entry(name).or_default().push(a);
        }
        for auto in &f.autos {
            if auto.array {
                self.arrays
                    .entry(auto.name.clone())
                    .or_default()
                    .push(Array::new());
            } else {
                self.scalars
                    .entry(auto.name.clone())
                    .or_default()
                    .push(Num::zero());
            }
        }
    }

    #[inline(never)]
    fn pop_locals(&mut self, f: &Func) {
        for p in f.params.iter().chain(&f.autos) {
            if p.array {
                if let Some(stack) = self.arrays.get_mut(&p.name) {
                    stack.pop();
                }
            } else if let Some(stack) = self.scalars.get_mut(&p.name) {
                stack.pop();
            }
        }
    }
}

fn bool_num(b: bool) -> Num {
    Num::from_i64(i64::from(b))
}
