//! `[[ ... ]]`: string, pattern, regex, numeric and file tests. The file tests and string
//! comparisons are shared with the `test` builtin.

use super::super::expand::{ExpandError, Expanded};
use super::super::io::Fds;
use super::super::state::{is_name, Value};
use super::super::Sh;
use crate::shell::ast::{BinaryTest, CondExpr, UnaryTest, Word, WordPart};
use crate::task::LocalFuture;
use crate::vfs::{FileKind, Vfs};

/// Whether `path` passes a file test.
pub fn file_test(vfs: &Vfs, cwd: &str, test: UnaryTest, path: &str) -> bool {
    use UnaryTest::*;
    if path.is_empty() {
        return false;
    }
    let stat = vfs.stat(cwd, path);
    match test {
        Exists | Readable => stat.is_ok(),
        RegularFile => stat.is_ok_and(|s| s.kind == FileKind::File),
        Directory => stat.is_ok_and(|s| s.kind == FileKind::Dir),
        CharDevice => stat.is_ok_and(|s| s.kind == FileKind::CharDevice),
        Symlink => vfs
            .lstat(cwd, path)
            .is_ok_and(|s| s.kind == FileKind::Symlink),
        NonEmptyFile => stat.is_ok_and(|s| s.size > 0),
        Executable => stat.is_ok_and(|s| s.kind == FileKind::Dir || s.mode & 0o111 != 0),
        Writable => stat.is_ok() && writable(vfs, cwd, path),
        OwnedByUser | OwnedByGroup => stat.is_ok(),
        BlockDevice | SetGid | Sticky | Fifo | Socket | SetUid | ModifiedSinceRead | Terminal => {
            false
        }
        EmptyString | NonEmptyString | OptionSet | VarSet | NameRef => false,
    }
}

/// Only the VFS's writable areas and `/dev/null` may be written.
fn writable(vfs: &Vfs, cwd: &str, path: &str) -> bool {
    let Ok(real) = vfs.canonicalize(cwd, path) else {
        return false;
    };
    let under = |root: &str| real == root || real.starts_with(&format!("{root}/"));
    crate::vfs::WRITABLE.into_iter().any(under) || real == "/dev/null"
}

/// `-nt`, `-ot`, `-ef`.
pub fn file_compare(vfs: &Vfs, cwd: &str, op: BinaryTest, a: &str, b: &str) -> bool {
    let (sa, sb) = (vfs.stat(cwd, a), vfs.stat(cwd, b));
    match op {
        BinaryTest::NewerThan => match (sa, sb) {
            (Ok(x), Ok(y)) => x.mtime_ms > y.mtime_ms,
            (Ok(_), Err(_)) => true,
            _ => false,
        },
        BinaryTest::OlderThan => match (sa, sb) {
            (Ok(x), Ok(y)) => x.mtime_ms < y.mtime_ms,
            (Err(_), Ok(_)) => true,
            _ => false,
        },
        // One inode, so two hard links of a file are the same file too.
        BinaryTest::SameFile => match (sa, sb) {
            (Ok(x), Ok(y)) => x.ino == y.ino,
            _ => false,
        },
        _ => false,
    }
}

impl Sh {
    /// Evaluates a `[[ ]]` expression. Errors are reported by the caller (status 2, or 1 for
    /// arithmetic errors, which are reported here).
    pub fn eval_cond<'a>(
        &'a self,
        expr: &'a CondExpr,
        fds: &'a Fds,
    ) -> LocalFuture<'a, Expanded<bool>> {
        Box::pin(async move {
            match expr {
                CondExpr::And(a, b) => {
                    Ok(self.eval_cond(a, fds).await? && self.eval_cond(b, fds).await?)
                }
                CondExpr::Or(a, b) => {
                    Ok(self.eval_cond(a, fds).await? || self.eval_cond(b, fds).await?)
                }
                CondExpr::Not(a) => Ok(!self.eval_cond(a, fds).await?),
                CondExpr::Word(w) => {
                    let extglob = self.state.borrow().opts.extglob;
                    match negated_group(w, extglob) {
                        // Without extglob, bash reads `!(x)` here as `! ( x )`.
                        Some(inner) => Ok(self.expand_string(&inner, fds).await?.is_empty()),
                        None => Ok(!self.expand_string(w, fds).await?.is_empty()),
                    }
                }
                CondExpr::Unary(test, w) => {
                    let operand = self.expand_string(w, fds).await?;
                    Ok(self.unary(*test, &operand))
                }
                CondExpr::Binary(l, op, r) => {
                    let left = self.expand_string(l, fds).await?;
                    match op {
                        BinaryTest::Match | BinaryTest::NoMatch => {
                            let mut pattern = self.expand_pattern(r, fds).await?;
                            pattern.nocase = self.state.borrow().opts.nocasematch;
                            Ok(pattern.matches(&left) == (*op == BinaryTest::Match))
                        }
                        BinaryTest::Regex => {
                            let chars = self.expand_pchars(r, fds).await?;
                            self.regex_match(&left, &chars)
                        }
                        _ => {
                            let right = self.expand_string(r, fds).await?;
                            self.binary(*op, &left, &right, true)
                        }
                    }
                }
            }
        })
    }

    fn regex_match(
        &self,
        left: &str,
        chars: &[super::super::expand::pattern::PChar],
    ) -> Expanded<bool> {
        let nocase = self.state.borrow().opts.nocasematch;
        let Ok(groups) = super::super::regex::rematch(chars, nocase, left) else {
            return Err(ExpandError::Flow(super::super::Flow::Normal(2)));
        };
        let groups = groups.unwrap_or_default();
        let matched = !groups.is_empty();
        self.set_array("BASH_REMATCH", groups);
        Ok(matched)
    }

    /// A unary test on a string (shared with `test`).
    pub fn unary(&self, test: UnaryTest, operand: &str) -> bool {
        match test {
            UnaryTest::EmptyString => operand.is_empty(),
            UnaryTest::NonEmptyString => !operand.is_empty(),
            UnaryTest::OptionSet => self.state.borrow().opts.get(operand) == Some(true),
            UnaryTest::VarSet => self.var_is_set(operand),
            UnaryTest::NameRef => false,
            UnaryTest::Terminal => false,
            test => {
                let cwd = self.state.borrow().cwd.clone();
                let vfs = self.world.vfs.borrow();
                file_test(&vfs, &cwd, test, operand)
            }
        }
    }

    /// The operand of `test -v 'name[sub]'` with its subscript expanded now, as bash does
    /// (`test -v 'A[$k]'`): `name[key]`, which [`Sh::unary`] then looks up as it is. Any
    /// other operand, or a subscript that fails to expand, stays as written.
    pub async fn resolve_var_operand(&self, operand: &str, fds: &Fds) -> String {
        let Some((name, sub)) = operand
            .split_once('[')
            .and_then(|(name, rest)| Some((name, rest.strip_suffix(']')?)))
        else {
            return operand.to_string();
        };
        if !is_name(name) || sub == "@" || sub == "*" {
            return operand.to_string();
        }
        match self.element_key(name, sub, fds).await {
            Ok(key) => format!("{name}[{}]", key.text()),
            Err(_) => operand.to_string(),
        }
    }

    /// `-v name` / `-v 'name[i]'`.
    fn var_is_set(&self, operand: &str) -> bool {
        if let Some((name, rest)) = operand.split_once('[') {
            let Some(sub) = rest.strip_suffix(']') else {
                return false;
            };
            if !is_name(name) {
                return false;
            }
            if sub == "@" || sub == "*" {
                return self.state.borrow().is_set(name);
            }
            return match self.key_for(name, sub) {
                Ok(key) => self.state.borrow().element(name, &key).is_some(),
                Err(_) => false,
            };
        }
        if let Ok(n) = operand.parse::<usize>() {
            return n == 0 || n <= self.state.borrow().positional.len();
        }
        let state = self.state.borrow();
        // An array's name stands for its element 0 (bash: `a=([1]=x); test -v a` fails).
        match state.var(operand).and_then(|v| v.value.as_ref()) {
            Some(Value::Indexed(map)) => map.contains_key(&0),
            Some(Value::Assoc(map)) => map.get("0").is_some(),
            _ => state.is_set(operand),
        }
    }

    /// A binary test (shared with `test`; `arith`: operands of `-eq` and friends are
    /// arithmetic expressions, as in `[[ ]]`, rather than plain integers).
    pub fn binary(&self, op: BinaryTest, left: &str, right: &str, arith: bool) -> Expanded<bool> {
        use BinaryTest::*;
        match op {
            Match => Ok(left == right),
            NoMatch => Ok(left != right),
            Less => Ok(left < right),
            Greater => Ok(left > right),
            Eq | Ne | Lt | Le | Gt | Ge => {
                let (a, b) = if arith {
                    let a = self.arith_text(left).map_err(cond_arith)?;
                    let b = self.arith_text(right).map_err(cond_arith)?;
                    (a, b)
                } else {
                    (test_int(left)?, test_int(right)?)
                };
                Ok(match op {
                    Eq => a == b,
                    Ne => a != b,
                    Lt => a < b,
                    Le => a <= b,
                    Gt => a > b,
                    _ => a >= b,
                })
            }
            NewerThan | OlderThan | SameFile => {
                let cwd = self.state.borrow().cwd.clone();
                let vfs = self.world.vfs.borrow();
                Ok(file_compare(&vfs, &cwd, op, left, right))
            }
            Regex => Ok(false),
        }
    }
}

/// Arithmetic errors inside `[[ ]]` are reported with a `[[: ` prefix and fail with 1.
fn cond_arith(e: ExpandError) -> ExpandError {
    match e {
        ExpandError::Discard(m) | ExpandError::Failed(m) => ExpandError::Failed(format!("[[: {m}")),
        other => other,
    }
}

/// An integer operand of `test`: optional blanks and sign, then digits.
pub fn test_int(s: &str) -> Expanded<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(ExpandError::Failed(format!(
            "{s}: integer expression expected"
        )));
    }
    Ok(t.parse::<i64>().unwrap_or(if t.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// The word inside `!( )` when `word` is that group alone and `extglob` is off.
fn negated_group(word: &Word, extglob: bool) -> Option<Word> {
    if extglob {
        return None;
    }
    let parts = match word.parts.as_slice() {
        [WordPart::Literal(only)] => {
            let inner = only.strip_prefix("!(")?.strip_suffix(')')?;
            vec![WordPart::Literal(inner.to_string())]
        }
        [WordPart::Literal(first), middle @ .., WordPart::Literal(last)] => {
            let mut parts = vec![WordPart::Literal(first.strip_prefix("!(")?.to_string())];
            parts.extend(middle.iter().cloned());
            parts.push(WordPart::Literal(last.strip_suffix(')')?.to_string()));
            parts
        }
        _ => return None,
    };
    Some(Word { parts })
}
