//! The built-in functions: strings (`substr`, `index`, `split`, `sub`/`gsub`/`gensub`,
//! `match`, `sprintf`, case), math, `rand`/`srand`, files (`close`, `fflush`), time
//! (`systime`, `strftime`, `mktime`), bits, and gawk's `asort`/`asorti`.

use std::rc::Rc;

use super::super::array::Array;
use super::super::chars;
use super::super::code::{slot, ArrRef, Bf, LVal, Re};
use super::super::ere::Ere;
use super::super::format;
use super::super::record::{split as split_fields, FieldSep};
use super::super::value::{Bytes, Value};
use super::{Interp, Stop};
use crate::applets::common::{days_from_civil, strftime_in, Zone};
use crate::limits::MAX_AWK_STRING;

fn num(args: &[Value], i: usize) -> f64 {
    args.get(i).map_or(0.0, Value::num)
}

impl Interp {
    /// A plain built-in call.
    pub(super) async fn builtin(&mut self, bf: Bf, args: Vec<Value>) -> Result<Value, Stop> {
        let s = |i: usize| {
            args.get(i)
                .map_or_else(super::super::value::empty, |v| v.to_bytes(&self.convfmt))
        };
        Ok(match bf {
            Bf::Length => Value::Num(match args.first() {
                Some(Value::Arr(a)) => a.borrow().len() as f64,
                _ => chars::count(&s(0)) as f64,
            }),
            Bf::Substr => Value::Str(substr(&s(0), num(&args, 1), args.get(2).map(Value::num))),
            Bf::Index => {
                let (mut hay, mut needle) = (s(0), s(1));
                if self.ignore_case {
                    hay = Bytes::from(chars::map_case(&hay, false));
                    needle = Bytes::from(chars::map_case(&needle, false));
                }
                let at = if needle.is_empty() {
                    1
                } else {
                    find(&hay, &needle).map_or(0, |b| chars::char_index(&hay, b) + 1)
                };
                Value::Num(at as f64)
            }
            Bf::Sprintf => {
                let fmt = s(0);
                let mut out = Vec::new();
                format::sprintf(&mut out, &fmt, &args[1..], &self.convfmt).map_err(Stop::fatal)?;
                if out.len() > MAX_AWK_STRING {
                    return Err(Stop::fatal("string too long (over 64 MiB)"));
                }
                Value::Str(Bytes::from(out))
            }
            Bf::Tolower => Value::Str(Bytes::from(chars::map_case(&s(0), false))),
            Bf::Toupper => Value::Str(Bytes::from(chars::map_case(&s(0), true))),
            Bf::Int => Value::Num(num(&args, 0).trunc()),
            Bf::Sqrt => {
                let x = num(&args, 0);
                if x < 0.0 {
                    self.warn(&format!("sqrt: received negative argument {}", fmt_num(x)))
                        .await;
                    Value::Num(-f64::NAN)
                } else {
                    Value::Num(x.sqrt())
                }
            }
            Bf::Exp => Value::Num(num(&args, 0).exp()),
            Bf::Log => {
                let x = num(&args, 0);
                if x < 0.0 {
                    self.warn(&format!("log: received negative argument {}", fmt_num(x)))
                        .await;
                    Value::Num(-f64::NAN)
                } else {
                    Value::Num(x.ln())
                }
            }
            Bf::Sin => Value::Num(num(&args, 0).sin()),
            Bf::Cos => Value::Num(num(&args, 0).cos()),
            Bf::Atan2 => Value::Num(num(&args, 0).atan2(num(&args, 1))),
            Bf::Rand => Value::Num(self.next_rand()),
            Bf::Srand => {
                let previous = self.seed;
                let seed = match args.first() {
                    Some(v) => v.num().trunc(),
                    None => (self.host.now_ms() / 1000.0).floor(),
                };
                self.seed_rng(seed);
                Value::Num(previous)
            }
            Bf::System => Value::Num(f64::from(self.io.system(&s(0)).await?)),
            Bf::Close => Value::Num(f64::from(self.io.close(&s(0)).await?)),
            Bf::Fflush => match args.first() {
                None => {
                    self.io.flush_all().await?;
                    Value::Num(0.0)
                }
                Some(_) => Value::Num(f64::from(self.io.flush_named(&s(0)).await?)),
            },
            Bf::Systime => Value::Num((self.host.now_ms() / 1000.0).floor()),
            Bf::Strftime => {
                let fmt = if args.is_empty() {
                    Bytes::from(&b"%a %b %e %H:%M:%S %Z %Y"[..])
                } else {
                    s(0)
                };
                let t = match args.get(1) {
                    Some(v) => v.num(),
                    None => (self.host.now_ms() / 1000.0).floor(),
                };
                let utc = args.get(2).is_some_and(|v| v.truthy());
                // gmtime(3)'s zone is called GMT.
                let zone = if utc {
                    Zone::from_tz(Some("GMT0"))
                } else {
                    self.zone.clone()
                };
                Value::Str(Bytes::from(strftime(&fmt, t as i64, &zone)))
            }
            Bf::Mktime => Value::Num(mktime(&s(0), &self.zone)),
            Bf::And => Value::Num(bits(&args, |a, b| a & b)),
            Bf::Or => Value::Num(bits(&args, |a, b| a | b)),
            Bf::Xor => Value::Num(bits(&args, |a, b| a ^ b)),
            Bf::Lshift => {
                Value::Num(to_u64(num(&args, 0)).wrapping_shl(to_u64(num(&args, 1)) as u32) as f64)
            }
            Bf::Rshift => {
                Value::Num(to_u64(num(&args, 0)).wrapping_shr(to_u64(num(&args, 1)) as u32) as f64)
            }
            Bf::Compl => Value::Num((!to_u64(num(&args, 0)) & ((1u64 << 53) - 1)) as f64),
            Bf::Strtonum => Value::Num(strtonum(
                args.first().unwrap_or(&Value::Uninit),
                &self.convfmt,
            )),
        })
    }

    /// Prints a gawk-style warning.
    pub(super) async fn warn(&mut self, msg: &str) {
        let line = format!("awk: {}:1: warning: {msg}\n", self.source);
        let _ = self.io.stderr.write_str(&line).await;
    }

    /// `split(s, a [, sep [, seps]])`; stack: s, [sep].
    pub(super) fn split(
        &mut self,
        a: ArrRef,
        sep: Option<Re>,
        seps: Option<ArrRef>,
    ) -> Result<Value, Stop> {
        let sep: Rc<FieldSep> = match sep {
            None => Rc::clone(&self.fs),
            Some(Re::Const(i)) => Rc::new(FieldSep::Regex(self.const_regex(i)?)),
            Some(Re::Dynamic) => {
                let v = self.pop();
                let text = v.to_bytes(&self.convfmt);
                Rc::new(FieldSep::new(&text, self.ignore_case, false).map_err(Stop::fatal)?)
            }
        };
        let s = self.pop().to_bytes(&self.convfmt);
        let mut ranges = Vec::new();
        split_fields(&s, &sep, &mut ranges);
        if let Some(seps) = seps {
            let seps = self.array(seps)?;
            fill_separators(
                &mut seps.borrow_mut(),
                &s,
                &ranges,
                matches!(*sep, FieldSep::Space),
            );
        }
        let arr = self.array(a)?;
        let mut arr = arr.borrow_mut();
        arr.clear();
        for (i, &(start, end)) in ranges.iter().enumerate() {
            arr.set(
                &index_key(i + 1),
                Value::strnum(&s[start as usize..end as usize]),
            );
        }
        Ok(Value::Num(ranges.len() as f64))
    }

    /// `match(s, re [, arr])`; stack: s, [re].
    pub(super) fn match_fn(&mut self, re: Re, arr: Option<ArrRef>) -> Result<Value, Stop> {
        let re = self.regex_operand(re)?;
        let s = self.pop().to_bytes(&self.convfmt);
        let caps = re.captures_at(&s, 0);
        let (start, len) = match caps.as_ref().and_then(|c| c.get(0)) {
            Some(m) => (
                chars::char_index(&s, m.start()) + 1,
                chars::count(&s[m.start()..m.end()]) as f64,
            ),
            None => (0, -1.0),
        };
        self.globals[slot::RSTART as usize] = Value::Num(start as f64);
        self.globals[slot::RLENGTH as usize] = Value::Num(len);
        if let Some(a) = arr {
            let arr = self.array(a)?;
            let mut arr = arr.borrow_mut();
            arr.clear();
            if let Some(caps) = &caps {
                for (i, group) in caps.iter().enumerate() {
                    let Some(m) = group else { continue };
                    let key = i.to_string();
                    arr.set(&Bytes::from(key.as_bytes()), Value::strnum(m.as_bytes()));
                    let start = chars::char_index(&s, m.start()) + 1;
                    let len = chars::count(m.as_bytes());
                    let sub = |what: &str| Bytes::from(format!("{key}\x1c{what}").into_bytes());
                    arr.set(&sub("start"), Value::Num(start as f64));
                    arr.set(&sub("length"), Value::Num(len as f64));
                }
            }
        }
        Ok(Value::Num(start as f64))
    }

    /// `sub`/`gsub`; stack: [re], repl, [key].
    pub(super) fn sub(&mut self, global: bool, re: Re, lv: LVal) -> Result<Value, Stop> {
        let key = self.lv_key(lv);
        let repl = self.pop().to_bytes(&self.convfmt);
        let re = self.regex_operand(re)?;
        let target = self.read_lv(lv, key.as_ref())?.to_bytes(&self.convfmt);
        let (out, count) = substitute(&re, &target, global, 0, |m, _, out| {
            expand_sub(&repl, m, out);
        });
        if count > 0 {
            if out.len() > MAX_AWK_STRING {
                return Err(Stop::fatal("string too long (over 64 MiB)"));
            }
            self.write_lv(lv, key, Value::Str(Bytes::from(out)))?;
        }
        Ok(Value::Num(count as f64))
    }

    /// `gensub(re, repl, how [, target])`; stack: [re], repl, how, [target].
    pub(super) fn gensub(&mut self, re: Re, has_target: bool) -> Result<Value, Stop> {
        let target = if has_target {
            self.pop().to_bytes(&self.convfmt)
        } else {
            self.field_at(0).to_bytes(&self.convfmt)
        };
        let how = self.pop();
        let repl = self.pop().to_bytes(&self.convfmt);
        let re = self.regex_operand(re)?;
        let how_text = how.to_bytes(&self.convfmt);
        let (global, nth) = if how_text.first().is_some_and(|&b| b == b'g' || b == b'G') {
            (true, 0)
        } else {
            (false, (how.num() as usize).max(1) - 1)
        };
        let (out, _) = substitute(&re, &target, global, nth, |_, caps, out| {
            expand_gensub(&repl, caps, out);
        });
        Ok(Value::Str(Bytes::from(out)))
    }

    /// `asort`/`asorti(src [, dest])`.
    pub(super) fn asort(
        &mut self,
        src: ArrRef,
        dest: Option<ArrRef>,
        indices: bool,
    ) -> Result<Value, Stop> {
        let source = self.array(src)?;
        // Each value with its number, worked out once (not at every comparison).
        let mut items: Vec<(Option<f64>, Value)> = {
            let source = source.borrow();
            if indices {
                source
                    .iter()
                    .map(|(k, _)| (None, Value::Str(k.clone())))
                    .collect()
            } else {
                source
                    .iter()
                    .map(|(_, v)| (v.numeric(), v.clone()))
                    .collect()
            }
        };
        // The library's sort, not the shared one of `crate::sort`: asort is a hot path
        // (200,000 numbers sorted 1.5x faster).
        items.sort_by(sort_order);
        let target = match dest {
            Some(d) => self.array(d)?,
            None => source,
        };
        let mut target = target.borrow_mut();
        target.clear();
        let n = items.len();
        for (i, (_, v)) in items.into_iter().enumerate() {
            target.set(&index_key(i + 1), v);
        }
        Ok(Value::Num(n as f64))
    }
}

fn index_key(i: usize) -> Bytes {
    Bytes::from(i.to_string().into_bytes())
}

/// split's fourth argument: the separator text between fields (and, for blank splitting,
/// the leading and trailing blanks as elements 0 and n).
fn fill_separators(seps: &mut Array, s: &[u8], ranges: &[(u32, u32)], blanks: bool) {
    seps.clear();
    for (i, pair) in ranges.windows(2).enumerate() {
        seps.set(
            &index_key(i + 1),
            Value::strnum(&s[pair[0].1 as usize..pair[1].0 as usize]),
        );
    }
    if !blanks {
        return;
    }
    if let (Some(first), Some(last)) = (ranges.first(), ranges.last()) {
        if first.0 > 0 {
            seps.set(&index_key(0), Value::strnum(&s[..first.0 as usize]));
        }
        if (last.1 as usize) < s.len() {
            seps.set(
                &index_key(ranges.len()),
                Value::strnum(&s[last.1 as usize..]),
            );
        }
    }
}

/// asort's order of (number, value) pairs: numbers first (numerically), then strings
/// (bytewise).
fn sort_order(a: &(Option<f64>, Value), b: &(Option<f64>, Value)) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.0, b.0) {
        (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Less),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => crate::sort::cmp_bytes(text(&a.1), text(&b.1)),
    }
}

/// The text of a value that is not a number.
fn text(v: &Value) -> &[u8] {
    match v {
        Value::Str(s) | Value::StrNum(s) => s,
        _ => &[],
    }
}

fn fmt_num(x: f64) -> String {
    String::from_utf8_lossy(&super::super::value::num_to_bytes(x, b"%.6g")).into_owned()
}

fn to_u64(x: f64) -> u64 {
    if x < 0.0 {
        (x as i64) as u64
    } else {
        x as u64
    }
}

fn bits(args: &[Value], f: impl Fn(u64, u64) -> u64) -> f64 {
    let mut acc = to_u64(num(args, 0));
    for v in &args[1..] {
        acc = f(acc, to_u64(v.num()));
    }
    acc as f64
}

fn strtonum(v: &Value, convfmt: &[u8]) -> f64 {
    if let Value::Num(n) = v {
        return *n;
    }
    let s = v.to_bytes(convfmt);
    let text = String::from_utf8_lossy(&s);
    let t = text.trim_start();
    // Only a leading 0x or 0 makes hex or octal; a sign before them is not read (as gawk).
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let digits: String = hex.chars().take_while(char::is_ascii_hexdigit).collect();
        return u64::from_str_radix(&digits, 16).map_or(0.0, |n| n as f64);
    }
    if t.len() > 1 && t.starts_with('0') && t[1..].starts_with(|c: char| c.is_ascii_digit()) {
        let digits: String = t.chars().take_while(|c| ('0'..='7').contains(c)).collect();
        return u64::from_str_radix(&digits, 8).map_or(0.0, |n| n as f64);
    }
    super::super::value::str_to_num(t.as_bytes())
}

/// `substr(s, m [, n])` as gawk computes it (truncated start and length).
pub fn substr(s: &[u8], m: f64, n: Option<f64>) -> Bytes {
    let total = chars::count(s) as f64;
    let mut start = m.trunc();
    let len = match n {
        Some(n) if n.is_nan() => return Bytes::default(),
        Some(n) => n.trunc(),
        None => f64::INFINITY,
    };
    // gawk 5 starts at 1 without shortening the length (substr("hello", 0, 2) is "he").
    if start < 1.0 {
        start = 1.0;
    }
    if start > total || len <= 0.0 {
        return Bytes::default();
    }
    let end = (start - 1.0 + len).min(total);
    let a = chars::byte_offset(s, start as usize - 1);
    let b = chars::byte_offset(s, end as usize);
    Bytes::from(&s[a..b])
}

/// The byte offset of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Replaces matches of `re` in `text`: all of them (`global`), or only the `nth` (0-based).
/// Empty matches right after a match are skipped, as in gawk.
pub fn substitute(
    re: &Ere,
    text: &[u8],
    global: bool,
    nth: usize,
    mut expand: impl FnMut(&[u8], &regex::bytes::Captures<'_>, &mut Vec<u8>),
) -> (Vec<u8>, usize) {
    let mut out = Vec::with_capacity(text.len());
    let mut pos = 0;
    let mut seen = 0;
    let mut count = 0;
    let mut last_end: Option<usize> = None;
    while pos <= text.len() {
        let Some(caps) = re.captures_at(text, pos) else {
            break;
        };
        let Some(m) = caps.get(0) else { break };
        let (start, end) = (m.start(), m.end());
        if start == end && last_end == Some(start) {
            // An empty match just after a match does not count; step over one character.
            if start >= text.len() {
                break;
            }
            let step = chars::len_at(text, start);
            out.extend_from_slice(&text[pos..start + step]);
            pos = start + step;
            continue;
        }
        out.extend_from_slice(&text[pos..start]);
        if global || seen == nth {
            expand(&text[start..end], &caps, &mut out);
            count += 1;
        } else {
            out.extend_from_slice(&text[start..end]);
        }
        seen += 1;
        last_end = Some(end);
        pos = end;
        if start == end {
            if start >= text.len() {
                pos = text.len() + 1;
                break;
            }
            let step = chars::len_at(text, start);
            out.extend_from_slice(&text[start..start + step]);
            pos = start + step;
        }
        if !global && count > 0 {
            break;
        }
    }
    if pos < text.len() {
        out.extend_from_slice(&text[pos..]);
    }
    (out, count)
}

/// sub/gsub replacement text: `&` is the match; `\&` a literal `&`; `\\&` a backslash then
/// the match; `\\\&` a literal `\&`; other backslashes stay.
fn expand_sub(repl: &[u8], matched: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < repl.len() {
        let rest = &repl[i..];
        if rest.starts_with(b"\\\\\\&") {
            out.extend_from_slice(b"\\&");
            i += 4;
        } else if rest.starts_with(b"\\\\&") {
            out.push(b'\\');
            out.extend_from_slice(matched);
            i += 3;
        } else if rest.starts_with(b"\\&") {
            out.push(b'&');
            i += 2;
        } else if rest[0] == b'&' {
            out.extend_from_slice(matched);
            i += 1;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
}

/// gensub replacement text: `\0` and `&` are the match, `\1`..`\9` groups, `\\` a
/// backslash, `\&` a literal `&`.
fn expand_gensub(repl: &[u8], caps: &regex::bytes::Captures<'_>, out: &mut Vec<u8>) {
    let mut i = 0;
    while i < repl.len() {
        let c = repl[i];
        if c == b'&' {
            out.extend_from_slice(caps.get(0).map_or(&b""[..], |m| m.as_bytes()));
            i += 1;
        } else if c == b'\\' && i + 1 < repl.len() {
            let d = repl[i + 1];
            if d.is_ascii_digit() {
                let group = usize::from(d - b'0');
                out.extend_from_slice(caps.get(group).map_or(&b""[..], |m| m.as_bytes()));
            } else {
                out.push(d);
            }
            i += 2;
        } else {
            out.push(c);
            i += 1;
        }
    }
}

// ---- time ----

/// gawk's `strftime(FORMAT, T, UTC)`: the C library's conversions, in `TZ`'s zone unless
/// UTC is asked (one implementation with `date`: `common::strftime_in`).
fn strftime(fmt: &[u8], t: i64, zone: &Zone) -> Vec<u8> {
    strftime_in(&String::from_utf8_lossy(fmt), t, 0, zone).into_bytes()
}

/// `mktime("YYYY MM DD HH MM SS")` as a local time in `zone`; -1 when malformed. Fields out of
/// range carry over, as mktime(3) normalizes them.
fn mktime(spec: &[u8], zone: &Zone) -> f64 {
    let text = String::from_utf8_lossy(spec);
    let parts: Vec<i64> = text
        .split_whitespace()
        .map_while(|p| p.parse::<i64>().ok())
        .collect();
    if parts.len() < 6 {
        return -1.0;
    }
    let (y, mo, d, h, mi, s) = (parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]);
    let local = (days_from_civil(y, mo, 1) + d - 1) * 86_400 + h * 3600 + mi * 60 + s;
    // A local time skipped by a change to daylight time counts in standard time.
    let utc = zone
        .to_utc(local)
        .unwrap_or_else(|| local - zone.at(local).offset);
    utc as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_conversions() {
        assert_eq!(
            strftime(b"%Y-%m-%d %H:%M:%S %j %a", 0, &Zone::utc()),
            b"1970-01-01 00:00:00 001 Thu".to_vec()
        );
        assert_eq!(
            strftime(b"%F %T", 1_700_000_000, &Zone::utc()),
            b"2023-11-14 22:13:20".to_vec()
        );
        assert_eq!(
            mktime(b"2023 11 14 22 13 20", &Zone::utc()),
            1_700_000_000.0
        );
        assert_eq!(mktime(b"bad", &Zone::utc()), -1.0);
        let tokyo = Zone::from_tz(Some("Asia/Tokyo"));
        assert_eq!(mktime(b"2023 11 15 07 13 20", &tokyo), 1_700_000_000.0);
        assert_eq!(
            strftime(b"%T %Z", 1_700_000_000, &tokyo),
            b"07:13:20 JST".to_vec()
        );
    }

    #[test]
    fn substr_edges() {
        let s =
            |m: f64, n: Option<f64>| String::from_utf8_lossy(&substr(b"hello", m, n)).into_owned();
        assert_eq!(s(0.0, None), "hello");
        assert_eq!(s(2.0, Some(3.0)), "ell");
        assert_eq!(s(10.0, None), "");
        assert_eq!(s(2.0, Some(-1.0)), "");
    }
}
