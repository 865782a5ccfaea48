//! The main input: ARGV operands in turn (`var=value` operands assign when reached, `-` is
//! standard input, stdin when there are no file operands), record by record, with NR, FNR,
//! FILENAME, RT and the BEGINFILE/ENDFILE rules.

use std::rc::Rc;

use super::super::code::slot;
use super::super::ere;
use super::super::record::Reader;
use super::super::value::Value;
use super::{bytes, Interp, Stop};
use crate::vfs::Errno;

impl Interp {
    /// Reads the next main-input record into `$0` (NR, FNR updated); false at the end.
    pub(super) async fn next_main_record(&mut self) -> Result<bool, Stop> {
        let mut rec = std::mem::take(&mut self.rec_buf);
        let got = self.read_main(&mut rec).await;
        if let Ok(true) = got {
            let fs = Rc::clone(&self.fs);
            self.fields.set_swap(&mut rec, &fs);
            self.count_record();
        }
        self.rec_buf = rec;
        got
    }

    pub(super) fn count_record(&mut self) {
        self.nr += 1.0;
        self.fnr += 1.0;
        self.globals[slot::NR as usize] = Value::Num(self.nr);
        self.globals[slot::FNR as usize] = Value::Num(self.fnr);
    }

    /// The next main-input record into `rec` (and RT); false when every input is done.
    pub(super) async fn read_main(&mut self, rec: &mut Vec<u8>) -> Result<bool, Stop> {
        loop {
            if self.main.done {
                return Ok(false);
            }
            if self.main.reader.is_none() && !self.open_next_input().await? {
                self.main.done = true;
                return Ok(false);
            }
            let mut rt = std::mem::take(&mut self.rt_buf);
            let got = match self.main.reader.as_mut() {
                Some(reader) => reader.next(&self.rs, rec, &mut rt).await,
                None => false,
            };
            if got {
                // Set only when it changes (a new string per record costs two allocations),
                // and only by a record: at the end RT keeps the last one's, as in gawk.
                let rt_global = &mut self.globals[slot::RT as usize];
                if !matches!(rt_global, Value::Str(s) if **s == *rt) {
                    *rt_global = Value::str(&rt);
                }
                self.rt_buf = rt;
                return Ok(true);
            }
            self.rt_buf = rt;
            self.end_file().await?;
        }
    }

    /// Finishes the current input file (ENDFILE rules run).
    pub(super) async fn end_file(&mut self) -> Result<(), Stop> {
        if self.main.reader.take().is_some() {
            let prog = Rc::clone(&self.prog);
            for &chunk in &prog.end_file {
                self.run_chunk(chunk).await?;
            }
        }
        Ok(())
    }

    /// Opens the next ARGV operand (doing `var=value` assignments on the way); false when
    /// there is none left.
    pub(super) async fn open_next_input(&mut self) -> Result<bool, Stop> {
        loop {
            let argc = self.globals[slot::ARGC as usize].num().max(0.0) as usize;
            if self.main.next_arg >= argc {
                if self.main.opened_any {
                    return Ok(false);
                }
                self.main.opened_any = true;
                let stdin = self.io.take_stdin();
                self.start_file("-", stdin).await?;
                return Ok(true);
            }
            let i = self.main.next_arg;
            self.main.next_arg += 1;
            let arg = self.argv(i);
            if arg.is_empty() {
                continue;
            }
            if let Some((name, value)) = split_assignment(&arg) {
                self.assign_var(name, value.as_bytes()).await?;
                continue;
            }
            self.main.opened_any = true;
            match self.io.open_main(&arg) {
                Ok(input) => {
                    self.start_file(&arg, input).await?;
                    return Ok(true);
                }
                Err(Errno::EISDIR) => {
                    let msg = format!(
                        "awk: warning: command line argument `{arg}' is a directory: skipped\n"
                    );
                    let _ = self.io.stderr.write_str(&msg).await;
                }
                Err(e) => {
                    return Err(Stop::Fatal(
                        format!("cannot open file `{arg}' for reading: {}", e.description()),
                        "open",
                        2,
                    ));
                }
            }
        }
    }

    pub(super) async fn start_file(
        &mut self,
        name: &str,
        input: crate::task::Input,
    ) -> Result<(), Stop> {
        self.main.reader = Some(Reader::new(input));
        self.globals[slot::FILENAME as usize] = Value::str(name.as_bytes());
        self.fnr = 0.0;
        self.globals[slot::FNR as usize] = Value::Num(0.0);
        self.in_main = true;
        let prog = Rc::clone(&self.prog);
        for &chunk in &prog.begin_file {
            self.run_chunk(chunk).await?;
        }
        Ok(())
    }

    pub(super) fn argv(&self, i: usize) -> String {
        match &self.globals[slot::ARGV as usize] {
            Value::Arr(a) => a
                .borrow()
                .get(i.to_string().as_bytes())
                .map(|v| String::from_utf8_lossy(&v.to_bytes(&self.convfmt)).into_owned())
                .unwrap_or_default(),
            _ => String::new(),
        }
    }

    /// `name=value` from the command line (escapes processed; the value is a strnum).
    pub(super) async fn assign_var(&mut self, name: &str, value: &[u8]) -> Result<(), Stop> {
        let mut warnings = Vec::new();
        let value = process_escapes(value, &mut warnings);
        for warning in warnings {
            let _ = self
                .io
                .stderr
                .write_str(&format!("awk: warning: {warning}\n"))
                .await;
        }
        let Some(slot) = self.prog.globals.iter().position(|(n, _)| n == name) else {
            return Ok(());
        };
        if self.prog.globals[slot].1 {
            return Err(Stop::fatal(format!(
                "cannot use array `{name}' as a scalar (command-line assignment)"
            )));
        }
        let value = Value::StrNum(bytes(&value));
        self.set_global(slot as u32, value)
    }
}

/// `name=value` if `arg` is a command-line assignment (a valid awk name before `=`).
pub fn split_assignment(arg: &str) -> Option<(&str, &str)> {
    let (name, value) = arg.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    if super::super::lexer::BUILTINS.contains(&name) {
        return None;
    }
    Some((name, value))
}

/// Processes string escapes (`\t`, `\n`, `\\`, octal) in a command-line value.
pub fn process_escapes(s: &[u8], warnings: &mut Vec<String>) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' && i + 1 < s.len() {
            if let Some((b, len)) = ere::escape_byte(&s[i + 1..]) {
                out.push(b);
                i += 1 + len;
                continue;
            }
            if s[i + 1] == b'\\' {
                out.push(b'\\');
                i += 2;
                continue;
            }
            let len = super::super::chars::len_at(&s[i + 1..], 0);
            let c = &s[i + 1..i + 1 + len];
            warnings.push(super::super::lexer::escape_warning(
                &String::from_utf8_lossy(c),
            ));
            out.extend_from_slice(c);
            i += 1 + len;
            continue;
        }
        out.push(s[i]);
        i += 1;
    }
    out
}
