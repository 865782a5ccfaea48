//! The instruction loop: one `match` per instruction, user function calls on an explicit
//! frame stack (deep awk recursion never grows the Rust stack; its depth is bounded), and
//! awaits only where output, input or the scheduler need them.

use std::cell::RefCell;
use std::rc::Rc;

use super::super::array::Array;
use super::super::ast::{Arith, CmpOp};
use super::super::chars;
use super::super::code::{slot, ArrRef, Dest, GetFrom, LVal, Op, Re};
use super::super::ere::Ere;
use super::super::format;
use super::super::value::{compare, equal, push_num, ArrayRef, Bytes, Value};
use super::{Flow, ForIn, Frame, Interp, Stop};
use crate::limits::{MAX_AWK_CALL_DEPTH, MAX_AWK_FIELDS, MAX_AWK_STRING};

fn arith(op: Arith, a: f64, b: f64) -> Result<f64, Stop> {
    Ok(match op {
        Arith::Add => a + b,
        Arith::Sub => a - b,
        Arith::Mul => a * b,
        Arith::Div => {
            if b == 0.0 {
                return Err(Stop::Fatal("division by zero attempted".into(), "error", 1));
            }
            a / b
        }
        Arith::Mod => {
            if b == 0.0 {
                return Err(Stop::Fatal(
                    "division by zero attempted in `%'".into(),
                    "error",
                    1,
                ));
            }
            a % b
        }
        Arith::Pow => power(a, b),
    })
}

/// `a ^ b`: integral exponents by repeated squaring, like gawk (exact for integers).
fn power(a: f64, b: f64) -> f64 {
    if b == b.trunc() && b.abs() < 2_147_483_647.0 {
        a.powi(b as i32)
    } else {
        a.powf(b)
    }
}

/// Appends `pieces` to the string in `cell` (in place when the cell owns it alone).
fn append_in_place(cell: &mut Value, pieces: &[Value], convfmt: &[u8]) -> Result<Value, Stop> {
    let mut buf = match std::mem::replace(cell, Value::Uninit) {
        Value::Str(b) | Value::StrNum(b) => b,
        Value::Num(n) => Bytes::from(super::super::value::num_to_bytes(n, convfmt)),
        Value::Uninit => Bytes::default(),
        arr @ Value::Arr(_) => {
            *cell = arr;
            return Err(Stop::fatal("attempt to use array in a scalar context"));
        }
    };
    let text = buf.make_mut();
    for piece in pieces {
        piece.append_to(text, convfmt);
    }
    if text.len() > MAX_AWK_STRING {
        return Err(Stop::fatal("string too long (over 64 MiB)"));
    }
    *cell = Value::Str(buf.clone());
    Ok(Value::Str(buf))
}

impl Interp {
    /// Runs code from `start` until `Halt` (or `next`, `nextfile`, `exit`).
    ///
    /// One long `match`, on purpose: it is the dispatch loop, each arm is a few lines or a
    /// call, and keeping it in one async function means only the arms that do I/O await.
    pub(super) async fn run(&mut self, start: usize) -> Result<Flow, Stop> {
        let prog = Rc::clone(&self.prog);
        let mut pc = start;
        loop {
            let Some(&op) = prog.code.get(pc) else {
                return Ok(Flow::Halt);
            };
            pc += 1;
            match op {
                Op::Num(n) => self.push(Value::Num(n)),
                Op::Str(i) => self.push(Value::Str(prog.strings[i as usize].clone())),
                Op::Uninit => self.push(Value::Uninit),
                Op::Pop => {
                    self.stack.pop();
                }
                Op::LoadGlobal(s) => {
                    let v = self.globals[s as usize].clone();
                    self.push(v);
                }
                Op::LoadLocal(i) => {
                    let v = self.locals[self.lbase + i as usize].clone();
                    self.push(v);
                }
                Op::LoadNF => {
                    let n = self.fields.nf();
                    self.push(Value::Num(n as f64));
                }
                Op::LoadField => {
                    let i = self.pop();
                    let v = self.field(&i)?;
                    self.push(v);
                }
                Op::LoadFieldConst(i) => {
                    let v = self.field_at(i as usize);
                    self.push(v);
                }
                Op::LoadFieldNum(i) => {
                    let n = self.fields.num(i as usize);
                    self.push(Value::Num(n));
                }
                Op::LoadElem(a) => {
                    let key = self.pop();
                    let key = self.key(&key);
                    let arr = self.array(a)?;
                    let v = arr.borrow_mut().entry(&key).clone();
                    self.push(v);
                }
                Op::PushArr(a) => {
                    let arr = self.array(a)?;
                    self.push(Value::Arr(arr));
                }
                Op::In(a) => {
                    let key = self.pop();
                    let key = self.key(&key);
                    let found = self.array(a)?.borrow().contains(&key);
                    self.push(Value::bool(found));
                }
                Op::Delete(a) => {
                    let key = self.pop();
                    let key = self.key(&key);
                    self.array(a)?.borrow_mut().remove(&key);
                }
                Op::DeleteAll(a) => self.array(a)?.borrow_mut().clear(),
                Op::Assign(lv) => {
                    let key = self.lv_key(lv);
                    let v = self.pop();
                    let v = self.scalar(v)?;
                    self.write_lv(lv, key, v.clone())?;
                    self.push(v);
                }
                Op::AugAssign(lv, op) => {
                    let key = self.lv_key(lv);
                    let rhs = self.pop().num();
                    let new =
                        self.modify(lv, key, |old| Ok(Value::Num(arith(op, old.num(), rhs)?)))?;
                    self.push(new);
                }
                Op::Append(lv, n) => {
                    let pieces = self.take_args(n);
                    let key = self.lv_key(lv);
                    let v = self.append(lv, key, &pieces)?;
                    self.push(v);
                }
                Op::Incr(lv, pre, delta) => {
                    let key = self.lv_key(lv);
                    let mut old = 0.0;
                    let new = self.modify(lv, key, |v| {
                        old = v.num();
                        Ok(Value::Num(old + delta))
                    })?;
                    self.push(if pre { new } else { Value::Num(old) });
                }
                Op::Arith(op) => {
                    let b = self.pop().num();
                    let a = self.pop().num();
                    self.push(Value::Num(arith(op, a, b)?));
                }
                Op::Neg => {
                    let a = self.pop().num();
                    self.push(Value::Num(-a));
                }
                Op::Plus => {
                    let a = self.pop().num();
                    self.push(Value::Num(a));
                }
                Op::Not => {
                    let a = self.pop().truthy();
                    self.push(Value::bool(!a));
                }
                Op::ToBool => {
                    let a = self.pop().truthy();
                    self.push(Value::bool(a));
                }
                Op::Concat => {
                    let b = self.pop();
                    let a = self.pop();
                    let v = self.concat(&a, &b)?;
                    self.push(v);
                }
                Op::Cmp(op) => {
                    let b = self.pop();
                    let a = self.pop();
                    let result = self.cmp(op, &a, &b);
                    self.push(Value::bool(result));
                }
                Op::Match(re, negate) => {
                    let re = self.regex_operand(re)?;
                    let v = self.pop();
                    let s = v.to_bytes(&self.convfmt);
                    self.push(Value::bool(re.is_match(&s) != negate));
                }
                Op::MatchRecord(i) => {
                    let re = self.const_regex(i)?;
                    let (ofs, convfmt) = (self.ofs.clone(), self.convfmt.clone());
                    let m = re.is_match(self.fields.text(&ofs, &convfmt));
                    self.push(Value::bool(m));
                }
                Op::JoinKey(n) => {
                    let parts = self.take_args(n);
                    let mut key = Vec::new();
                    for (i, part) in parts.iter().enumerate() {
                        if i > 0 {
                            key.extend_from_slice(&self.subsep);
                        }
                        part.append_to(&mut key, &self.convfmt);
                    }
                    self.push(Value::Str(Bytes::from(key)));
                }
                Op::Jump(t) => {
                    if (t as usize) < pc {
                        self.tick().await;
                    }
                    pc = t as usize;
                }
                Op::JumpIfFalse(t) => {
                    if !self.pop().truthy() {
                        pc = t as usize;
                    }
                }
                Op::JumpIfTrue(t) => {
                    if self.pop().truthy() {
                        if (t as usize) < pc {
                            self.tick().await;
                        }
                        pc = t as usize;
                    }
                }
                Op::Builtin(bf, n) => {
                    let args = self.take_args(n);
                    let v = self.builtin(bf, args).await?;
                    self.push(v);
                }
                Op::LengthRecord => {
                    let (ofs, convfmt) = (self.ofs.clone(), self.convfmt.clone());
                    let n = chars::count(self.fields.text(&ofs, &convfmt));
                    self.push(Value::Num(n as f64));
                }
                Op::LengthArr(a) => {
                    let n = self.array(a)?.borrow().len();
                    self.push(Value::Num(n as f64));
                }
                Op::Split(a, sep, seps) => {
                    let v = self.split(a, sep, seps)?;
                    self.push(v);
                }
                Op::MatchFn(re, arr) => {
                    let v = self.match_fn(re, arr)?;
                    self.push(v);
                }
                Op::Sub(global, re, lv) => {
                    let v = self.sub(global, re, lv)?;
                    self.push(v);
                }
                Op::Gensub(re, has_target) => {
                    let v = self.gensub(re, has_target)?;
                    self.push(v);
                }
                Op::Asort(src, dest, indices) => {
                    let v = self.asort(src, dest, indices)?;
                    self.push(v);
                }
                Op::Getline(from, lv) => {
                    let v = self.getline(from, lv).await?;
                    self.push(v);
                }
                Op::Call(f, n) => {
                    pc = self.call(f, n, pc)?;
                    self.tick().await;
                }
                Op::Return => {
                    let v = self.pop();
                    let Some(frame) = self.frames.pop() else {
                        return Ok(Flow::Halt);
                    };
                    self.locals.truncate(frame.locals);
                    self.stack.truncate(frame.stack);
                    self.iters.truncate(frame.iters);
                    self.lbase = frame.caller_lbase;
                    pc = frame.ret;
                    let v = if matches!(v, Value::Arr(_)) {
                        Value::Uninit
                    } else {
                        v
                    };
                    self.push(v);
                }
                Op::Print(n, dest) => self.print(n, dest).await?,
                Op::Printf(n, dest) => self.printf(n, dest).await?,
                Op::Next => return Ok(self.unwind(Flow::Next)),
                Op::NextFile => return Ok(self.unwind(Flow::NextFile)),
                Op::Exit(has_code) => {
                    if has_code {
                        let code = self.pop().num();
                        self.exit_code = (code as i64).rem_euclid(256) as i32;
                    }
                    return Ok(self.unwind(Flow::Exit));
                }
                Op::ForInStart(a) => {
                    let arr = self.array(a)?;
                    let keys = self.loop_keys(&arr.borrow());
                    self.iters.push(ForIn { keys, at: 0 });
                }
                Op::ForInNext(lv, end) => {
                    let next = self.iters.last_mut().and_then(|it| {
                        let key = it.keys.get(it.at).cloned();
                        it.at += 1;
                        key
                    });
                    match next {
                        Some(key) => self.write_lv(lv, None, Value::StrNum(key))?,
                        None => pc = end as usize,
                    }
                }
                Op::ForInEnd => {
                    self.iters.pop();
                }
                Op::Halt => return Ok(Flow::Halt),
            }
        }
    }

    /// Leaves every function and loop (for `next`, `nextfile`, `exit`).
    fn unwind(&mut self, flow: Flow) -> Flow {
        self.frames.clear();
        self.locals.clear();
        self.stack.clear();
        self.iters.clear();
        self.lbase = 0;
        flow
    }

    fn call(&mut self, f: u32, n: u32, ret: usize) -> Result<usize, Stop> {
        if self.frames.len() >= MAX_AWK_CALL_DEPTH {
            return Err(Stop::fatal(format!(
                "function call nesting too deep (more than {MAX_AWK_CALL_DEPTH} levels)"
            )));
        }
        let prog = Rc::clone(&self.prog);
        let info = &prog.funcs[f as usize];
        let args_start = self.stack.len().saturating_sub(n as usize);
        let base = self.locals.len();
        self.frames.push(Frame {
            ret,
            caller_lbase: self.lbase,
            locals: base,
            stack: args_start,
            iters: self.iters.len(),
            func: f,
        });
        self.locals.extend(self.stack.drain(args_start..));
        for i in n as usize..info.nparams as usize {
            let fresh = if info.array_params.get(i) == Some(&true) {
                Value::Arr(Rc::new(RefCell::new(Array::default())))
            } else {
                Value::Uninit
            };
            self.locals.push(fresh);
        }
        self.lbase = base;
        Ok(info.entry as usize)
    }

    /// The last `n` values of the stack, in order.
    pub(super) fn take_args(&mut self, n: u32) -> Vec<Value> {
        let at = self.stack.len().saturating_sub(n as usize);
        self.stack.split_off(at)
    }

    fn scalar(&self, v: Value) -> Result<Value, Stop> {
        match v {
            Value::Arr(_) => Err(Stop::fatal("attempt to use array in a scalar context")),
            v => Ok(v),
        }
    }

    fn cmp(&self, op: CmpOp, a: &Value, b: &Value) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        let order = if self.ignore_case && (a.numeric().is_none() || b.numeric().is_none()) {
            // IGNORECASE makes string comparisons case-blind too (gawk).
            let fold = |v: &Value| chars::map_case(&v.to_bytes(&self.convfmt), false);
            fold(a).cmp(&fold(b))
        } else if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            if equal(a, b, &self.convfmt) {
                Equal
            } else {
                Less
            }
        } else {
            compare(a, b, &self.convfmt)
        };
        match op {
            CmpOp::Eq => order == Equal,
            CmpOp::Ne => order != Equal,
            CmpOp::Lt => order == Less,
            CmpOp::Le => order != Greater,
            CmpOp::Gt => order == Greater,
            CmpOp::Ge => order != Less,
        }
    }

    fn concat(&self, a: &Value, b: &Value) -> Result<Value, Stop> {
        let mut out = Vec::new();
        a.append_to(&mut out, &self.convfmt);
        b.append_to(&mut out, &self.convfmt);
        if out.len() > MAX_AWK_STRING {
            return Err(Stop::fatal("string too long (over 64 MiB)"));
        }
        Ok(Value::Str(Bytes::from(out)))
    }

    // ---- fields, arrays, lvalues ----

    /// `$i` for a computed i.
    pub(super) fn field(&mut self, i: &Value) -> Result<Value, Stop> {
        let n = i.num();
        if n < 0.0 {
            return Err(Stop::fatal(format!("attempt to access field {}", n as i64)));
        }
        Ok(self.field_at(n as usize))
    }

    /// `$i`
    pub(super) fn field_at(&mut self, i: usize) -> Value {
        if i == 0 {
            let (ofs, convfmt) = (self.ofs.clone(), self.convfmt.clone());
            return self.fields.record(&ofs, &convfmt);
        }
        self.fields.get(i)
    }

    /// Assigns `$i`.
    pub(super) fn set_field(&mut self, i: &Value, v: Value) -> Result<(), Stop> {
        let n = i.num();
        if n < 0.0 {
            return Err(Stop::fatal(format!("attempt to access field {}", n as i64)));
        }
        // Checked as a float: usize is 32 bits in the wasm build.
        if n > MAX_AWK_FIELDS as f64 {
            return Err(Stop::fatal(format!(
                "field index {} is too large",
                n as i64
            )));
        }
        match n as usize {
            0 => {
                let text = v.to_bytes(&self.convfmt);
                let fs = Rc::clone(&self.fs);
                self.fields.set(&text, &fs);
            }
            n => self.fields.set_field(n, v),
        }
        Ok(())
    }

    /// The array an operand names (an untyped variable becomes an empty array).
    pub(super) fn array(&mut self, a: ArrRef) -> Result<ArrayRef, Stop> {
        let cell = match a {
            ArrRef::Global(s) => &mut self.globals[s as usize],
            ArrRef::Local(i) => &mut self.locals[self.lbase + i as usize],
        };
        match cell {
            Value::Arr(arr) => Ok(Rc::clone(arr)),
            Value::Uninit => {
                let arr = Rc::new(RefCell::new(Array::default()));
                *cell = Value::Arr(Rc::clone(&arr));
                Ok(arr)
            }
            _ => Err(Stop::fatal(format!(
                "attempt to use scalar `{}' as an array",
                self.arr_name(a)
            ))),
        }
    }

    fn arr_name(&self, a: ArrRef) -> String {
        match a {
            ArrRef::Global(s) => self.prog.globals[s as usize].0.clone(),
            ArrRef::Local(i) => self
                .frames
                .last()
                .and_then(|f| self.prog.funcs[f.func as usize].params.get(i as usize))
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// An array subscript: strings as they are, integers without decimals, others by CONVFMT.
    pub(super) fn key(&self, v: &Value) -> Bytes {
        match v {
            Value::Str(s) | Value::StrNum(s) => s.clone(),
            Value::Num(n) => {
                let mut out = Vec::new();
                push_num(&mut out, *n, &self.convfmt);
                Bytes::from(out)
            }
            Value::Uninit | Value::Arr(_) => Bytes::default(),
        }
    }

    /// Pops what an lvalue needs from the stack (field index or element key).
    pub(super) fn lv_key(&mut self, lv: LVal) -> Option<Value> {
        match lv {
            LVal::Field | LVal::Elem(_) => Some(self.pop()),
            LVal::Global(_) | LVal::Local(_) | LVal::ElemField(..) => None,
        }
    }

    /// Reads an lvalue.
    pub(super) fn read_lv(&mut self, lv: LVal, key: Option<&Value>) -> Result<Value, Stop> {
        let key_or_empty = || key.cloned().unwrap_or(Value::Uninit);
        Ok(match lv {
            LVal::Global(slot::NF) => Value::Num(self.fields.nf() as f64),
            LVal::Global(s) => self.globals[s as usize].clone(),
            LVal::Local(i) => self.locals[self.lbase + i as usize].clone(),
            LVal::Field => self.field(&key_or_empty())?,
            LVal::Elem(a) => {
                let k = self.key(&key_or_empty());
                let arr = self.array(a)?;
                let v = arr.borrow_mut().entry(&k).clone();
                v
            }
            LVal::ElemField(a, n) => self.with_field_elem(a, n, |v| v.clone())?,
        })
    }

    /// Runs `f` on the element `a[$n]` (created if missing), found by the field's text
    /// without copying it.
    fn with_field_elem<R>(
        &mut self,
        a: ArrRef,
        n: u32,
        f: impl FnOnce(&mut Value) -> R,
    ) -> Result<R, Stop> {
        let arr = self.array(a)?;
        let mut arr = arr.borrow_mut();
        let cell = match self.fields.text_of(n as usize) {
            Some(text) => arr.entry_slice(text),
            None => {
                let field = self.fields.get(n as usize);
                arr.entry(&self.key(&field))
            }
        };
        Ok(f(cell))
    }

    /// Writes an lvalue.
    pub(super) fn write_lv(&mut self, lv: LVal, key: Option<Value>, v: Value) -> Result<(), Stop> {
        match lv {
            LVal::Global(s) => self.set_global(s, v)?,
            LVal::Local(i) => {
                let cell = &mut self.locals[self.lbase + i as usize];
                if matches!(cell, Value::Arr(_)) {
                    return Err(Stop::fatal("attempt to use array in a scalar context"));
                }
                *cell = v;
            }
            LVal::Field => self.set_field(&key.unwrap_or(Value::Uninit), v)?,
            LVal::Elem(a) => {
                let k = self.key(&key.unwrap_or(Value::Uninit));
                self.array(a)?.borrow_mut().set(&k, v);
            }
            LVal::ElemField(a, n) => self.with_field_elem(a, n, |cell| *cell = v)?,
        }
        Ok(())
    }

    /// `x = x a b...`: appends to the variable's own string when nothing else shares it.
    fn append(&mut self, lv: LVal, key: Option<Value>, pieces: &[Value]) -> Result<Value, Stop> {
        let convfmt = self.convfmt.clone();
        match lv {
            LVal::Global(s) if s >= slot::SPECIAL_SCALARS => {
                append_in_place(&mut self.globals[s as usize], pieces, &convfmt)
            }
            LVal::Local(i) => {
                append_in_place(&mut self.locals[self.lbase + i as usize], pieces, &convfmt)
            }
            LVal::Elem(a) => {
                let k = self.key(&key.unwrap_or(Value::Uninit));
                let arr = self.array(a)?;
                let mut arr = arr.borrow_mut();
                append_in_place(arr.entry(&k), pieces, &convfmt)
            }
            _ => {
                let old = self.read_lv(lv, key.as_ref())?;
                let mut text = old.to_bytes(&convfmt).to_vec();
                for piece in pieces {
                    piece.append_to(&mut text, &convfmt);
                }
                let v = Value::Str(Bytes::from(text));
                self.write_lv(lv, key, v.clone())?;
                Ok(v)
            }
        }
    }

    /// Reads, computes and writes an lvalue; returns the new value.
    fn modify(
        &mut self,
        lv: LVal,
        key: Option<Value>,
        f: impl FnOnce(&Value) -> Result<Value, Stop>,
    ) -> Result<Value, Stop> {
        if let LVal::Elem(a) = lv {
            let k = self.key(&key.unwrap_or(Value::Uninit));
            let arr = self.array(a)?;
            let mut arr = arr.borrow_mut();
            let cell = arr.entry(&k);
            let new = f(cell)?;
            *cell = new.clone();
            return Ok(new);
        }
        if let LVal::ElemField(a, n) = lv {
            return self.with_field_elem(a, n, |cell| {
                let new = f(cell)?;
                *cell = new.clone();
                Ok(new)
            })?;
        }
        let old = self.read_lv(lv, key.as_ref())?;
        let new = f(&old)?;
        self.write_lv(lv, key, new.clone())?;
        Ok(new)
    }

    // ---- regexes ----

    /// A constant regex (recompiled without case when IGNORECASE is set).
    pub(super) fn const_regex(&mut self, i: u32) -> Result<Rc<Ere>, Stop> {
        if !self.ignore_case {
            return Ok(Rc::clone(&self.prog.regexes[i as usize]));
        }
        let src = self.prog.regex_src[i as usize].clone();
        self.regexes.get(&src, true).map_err(Stop::fatal)
    }

    /// The regex of a value used as one (`$0 ~ "a+"`).
    pub(super) fn dynamic_regex(&mut self, v: &Value) -> Result<Rc<Ere>, Stop> {
        let src = v.to_bytes(&self.convfmt);
        self.regexes
            .get(&src, self.ignore_case)
            .map_err(Stop::fatal)
    }

    /// A regex operand (popping the dynamic one from the stack).
    pub(super) fn regex_operand(&mut self, re: Re) -> Result<Rc<Ere>, Stop> {
        match re {
            Re::Const(i) => self.const_regex(i),
            Re::Dynamic => {
                let v = self.pop();
                self.dynamic_regex(&v)
            }
        }
    }

    // ---- for-in order ----

    /// The keys a for-in loop visits: insertion order, or PROCINFO["sorted_in"]'s order.
    fn loop_keys(&self, arr: &Array) -> Vec<Bytes> {
        let order = match &self.globals[slot::PROCINFO as usize] {
            Value::Arr(p) => p
                .borrow()
                .get(b"sorted_in")
                .map(|v| v.to_bytes(b"%.6g").to_vec()),
            _ => None,
        };
        let Some(order) = order else {
            return arr.keys();
        };
        // By index or value, as numbers or strings, ascending or descending; ties by index.
        let (by_value, numeric, descending) = match order.as_slice() {
            b"@ind_str_asc" => (false, false, false),
            b"@ind_str_desc" => (false, false, true),
            b"@ind_num_asc" => (false, true, false),
            b"@ind_num_desc" => (false, true, true),
            b"@val_str_asc" => (true, false, false),
            b"@val_str_desc" => (true, false, true),
            b"@val_num_asc" => (true, true, false),
            b"@val_num_desc" => (true, true, true),
            _ => return arr.keys(),
        };
        let mut items: Vec<(Bytes, Value)> =
            arr.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let num = |(k, v): &(Bytes, Value)| {
            if by_value {
                v.num()
            } else {
                super::super::value::str_to_num(k)
            }
        };
        let text = |(k, v): &(Bytes, Value)| {
            if by_value {
                v.to_bytes(&self.convfmt)
            } else {
                k.clone()
            }
        };
        // One comparator for every order (and the crate's shared sort): each `sort_by` call
        // site is a separate copy of the sorting code in the module.
        crate::sort::sort_by(&mut items, |a, b| {
            let primary = if numeric {
                num(a)
                    .partial_cmp(&num(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            } else {
                text(a).cmp(&text(b))
            };
            let order = primary.then_with(|| a.0.cmp(&b.0));
            if descending {
                order.reverse()
            } else {
                order
            }
        });
        items.into_iter().map(|(k, _)| k).collect()
    }

    // ---- output ----

    /// Appends a value as `print` shows it (numbers through OFMT).
    fn output_form(&self, v: &Value, out: &mut Vec<u8>) {
        match v {
            Value::Num(n) => push_num(out, *n, &self.ofmt),
            other => other.append_to(out, &self.convfmt),
        }
    }

    async fn print(&mut self, n: u32, dest: Dest) -> Result<(), Stop> {
        let name = self.dest_name(dest);
        let args = self.take_args(n);
        let mut out = std::mem::take(&mut self.out_buf);
        out.clear();
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.ofs);
            }
            if let Value::Arr(_) = arg {
                return Err(Stop::fatal("attempt to use array in a scalar context"));
            }
            self.output_form(arg, &mut out);
        }
        out.extend_from_slice(&self.ors);
        let written = self.emit(dest, &name, &out).await;
        self.out_buf = out;
        written
    }

    async fn printf(&mut self, n: u32, dest: Dest) -> Result<(), Stop> {
        let name = self.dest_name(dest);
        let args = self.take_args(n);
        let Some((fmt, rest)) = args.split_first() else {
            return Ok(());
        };
        let fmt = fmt.to_bytes(&self.convfmt);
        let mut out = std::mem::take(&mut self.out_buf);
        out.clear();
        format::sprintf(&mut out, &fmt, rest, &self.convfmt).map_err(Stop::fatal)?;
        let written = self.emit(dest, &name, &out).await;
        self.out_buf = out;
        written
    }

    fn dest_name(&mut self, dest: Dest) -> Bytes {
        match dest {
            Dest::Stdout => Bytes::default(),
            _ => {
                let v = self.pop();
                v.to_bytes(&self.convfmt)
            }
        }
    }

    async fn emit(&mut self, dest: Dest, name: &[u8], data: &[u8]) -> Result<(), Stop> {
        if dest == Dest::Stdout {
            return Ok(self.io.write_stdout(data).await?);
        }
        if name.is_empty() && dest != Dest::Pipe {
            return Err(Stop::fatal(
                "expression for `>' redirection has null string value",
            ));
        }
        Ok(self.io.write(dest, name, data).await?)
    }

    // ---- getline ----

    async fn getline(&mut self, from: GetFrom, lv: Option<LVal>) -> Result<Value, Stop> {
        let key = lv.and_then(|lv| self.lv_key(lv));
        match from {
            GetFrom::Main => {
                let mut rec = Vec::new();
                if !self.read_main(&mut rec).await? {
                    return Ok(Value::Num(0.0));
                }
                self.count_record();
                self.store_line(lv, key, rec)?;
                Ok(Value::Num(1.0))
            }
            GetFrom::File | GetFrom::Cmd => {
                let name = self.pop().to_bytes(&self.convfmt);
                let (mut rec, mut rt) = (Vec::new(), Vec::new());
                let got = if from == GetFrom::Cmd {
                    let got = self
                        .io
                        .read_command(&name, &self.rs, &mut rec, &mut rt)
                        .await?;
                    if got {
                        self.nr += 1.0;
                        self.globals[slot::NR as usize] = Value::Num(self.nr);
                    }
                    got
                } else {
                    match self
                        .io
                        .read_record(&name, &self.rs, &mut rec, &mut rt)
                        .await
                    {
                        Ok(got) => got,
                        Err(errno) => {
                            let text = errno.to_string();
                            self.globals[slot::ERRNO as usize] = Value::str(text.as_bytes());
                            return Ok(Value::Num(-1.0));
                        }
                    }
                };
                if !got {
                    return Ok(Value::Num(0.0));
                }
                self.globals[slot::RT as usize] = Value::str(&rt);
                self.store_line(lv, key, rec)?;
                Ok(Value::Num(1.0))
            }
        }
    }

    fn store_line(
        &mut self,
        lv: Option<LVal>,
        key: Option<Value>,
        mut rec: Vec<u8>,
    ) -> Result<(), Stop> {
        match lv {
            None => {
                let fs = Rc::clone(&self.fs);
                self.fields.set_swap(&mut rec, &fs);
                Ok(())
            }
            Some(lv) => self.write_lv(lv, key, Value::StrNum(Bytes::from(rec))),
        }
    }
}
