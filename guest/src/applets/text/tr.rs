//! `tr [-cdst] SET1 [SET2]`: translate, delete or squeeze bytes from stdin to stdout.

use crate::applets::common::{finish, parse_args};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `tr` applet.
pub const APPLET: Applet = Applet {
    name: "tr",
    usage: "tr [OPTION]... SET1 [SET2]\n  -c, -C, --complement    use the complement of SET1\n  -d, --delete            delete bytes in SET1\n  -s, --squeeze-repeats   squeeze runs of a byte in the last SET given into one\n  -t, --truncate-set1     first truncate SET1 to the length of SET2\nSETs: chars, a-z ranges, \\n \\t \\\\ \\NNN escapes, [:alpha:] [:digit:] [:alnum:] [:upper:]\n[:lower:] [:space:] [:blank:] [:punct:] [:print:] [:graph:] [:cntrl:] [:xdigit:], [=c=],\nand in SET2 [c*N] or [c*] repeats. Bytes, not multibyte characters.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "cCdst",
    short_val: "",
    long: &["complement", "delete", "squeeze-repeats", "truncate-set1"],
    long_val: &[],
    digits: None,
    stop_at_operand: true,
};

#[derive(Default)]
struct Flags {
    complement: bool,
    delete: bool,
    squeeze: bool,
    truncate: bool,
}

/// One piece of a set as written.
#[derive(Debug, Clone, PartialEq)]
enum Elem {
    Byte(u8),
    Range(u8, u8),
    Class(&'static str),
    /// `[c*n]`; `None` is `[c*]`: as many as SET1 needs.
    Repeat(u8, Option<usize>),
}

/// What the run does to each byte.
struct Plan {
    map: [u8; 256],
    delete: [bool; 256],
    squeeze: [bool; 256],
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut flags = Flags::default();
    for opt in &opts {
        if opt.is('c', "complement") || opt.is('C', "") {
            flags.complement = true;
        } else if opt.is('d', "delete") {
            flags.delete = true;
        } else if opt.is('s', "squeeze-repeats") {
            flags.squeeze = true;
        } else if opt.is('t', "truncate-set1") {
            flags.truncate = true;
        }
    }
    if let Err(status) = check_operands(&mut ctx, &flags, &operands).await {
        return status;
    }
    let plan = match build(&flags, &operands) {
        Ok(plan) => plan,
        Err(message) => {
            warn(&mut ctx, message).await;
            return 1;
        }
    };
    for set in &operands {
        if set.ends_with('\\') && !set.ends_with("\\\\") {
            let message = "warning: an unescaped backslash at end of string is not portable";
            warn(&mut ctx, message).await;
        }
    }
    let result = filter(&mut ctx, &plan).await;
    finish(&mut ctx, result.map(|()| 0)).await
}

/// GNU's operand-count rules: translating and `-ds` need two sets, `-d` alone one.
async fn check_operands(ctx: &mut Ctx, flags: &Flags, operands: &[String]) -> Result<(), i32> {
    let min = 1 + usize::from(flags.delete == flags.squeeze);
    let max = 1 + usize::from(flags.delete <= flags.squeeze);
    if operands.is_empty() {
        return Err(usage_error(ctx, "missing operand", 1).await);
    }
    if operands.len() < min {
        let why = if flags.squeeze {
            "Two strings must be given when both deleting and squeezing repeats."
        } else {
            "Two strings must be given when translating."
        };
        let last = &operands[operands.len() - 1];
        let message = format!("missing operand after '{last}'\n{why}");
        return Err(usage_error(ctx, message, 1).await);
    }
    if operands.len() > max {
        let mut message = format!("extra operand '{}'", operands[max]);
        if operands.len() == 2 {
            message.push_str(
                "\nOnly one string may be given when deleting without squeezing repeats.",
            );
        }
        return Err(usage_error(ctx, message, 1).await);
    }
    Ok(())
}

fn build(flags: &Flags, operands: &[String]) -> Result<Plan, String> {
    let set1 = parse_set(operands[0].as_bytes())?;
    let mut bytes1 = expand(&set1, 0)?;
    if flags.complement {
        bytes1 = complement(&bytes1);
    }
    let mut plan = Plan {
        map: std::array::from_fn(|i| i as u8),
        delete: [false; 256],
        squeeze: [false; 256],
    };
    let set2 = match operands.get(1) {
        Some(text) => Some(parse_set(text.as_bytes())?),
        None => None,
    };
    if flags.delete {
        for &b in &bytes1 {
            plan.delete[usize::from(b)] = true;
        }
        if let Some(set2) = &set2 {
            if set2.iter().any(|e| matches!(e, Elem::Repeat(_, None))) {
                let message = "the [c*] construct may appear in string2 only when translating";
                return Err(message.to_string());
            }
            for b in expand(set2, 0)? {
                plan.squeeze[usize::from(b)] = true;
            }
        }
        return Ok(plan);
    }
    match &set2 {
        Some(set2) => translate(&mut plan, flags, &set1, &bytes1, set2)?,
        None => {
            for &b in &bytes1 {
                plan.squeeze[usize::from(b)] = true;
            }
        }
    }
    Ok(plan)
}

fn translate(
    plan: &mut Plan,
    flags: &Flags,
    set1: &[Elem],
    bytes1: &[u8],
    set2: &[Elem],
) -> Result<(), String> {
    let allowed = |e: &Elem| !matches!(e, Elem::Class(c) if *c != "upper" && *c != "lower");
    if !set2.iter().all(allowed) {
        return Err(
            "when translating, the only character classes that may appear in\n\
                    string2 are 'upper' and 'lower'"
                .to_string(),
        );
    }
    if !flags.complement && misaligned(set1, set2) {
        return Err("misaligned [:upper:] and/or [:lower:] construct".to_string());
    }
    let mut bytes1 = bytes1.to_vec();
    let mut bytes2 = expand(set2, bytes1.len())?;
    if classes_align(set1, set2) && !flags.complement {
        bytes2 = expand(set2, 0)?;
    }
    if flags.truncate {
        bytes1.truncate(bytes2.len());
    } else if bytes2.len() < bytes1.len() {
        let Some(&last) = bytes2.last() else {
            return Err("when not truncating set1, string2 must be non-empty".to_string());
        };
        if matches!(set2.last(), Some(Elem::Class(_))) {
            return Err("when translating with string1 longer than string2,\n\
                        the latter string must not end with a character class"
                .to_string());
        }
        bytes2.resize(bytes1.len(), last);
    }
    // A complemented class has no order of its own to map one by one.
    let one_target = bytes2.len() == bytes1.len() && bytes2.iter().all(|&b| b == bytes2[0]);
    if flags.complement && set1.iter().any(|e| matches!(e, Elem::Class(_))) && !one_target {
        return Err("when translating with complemented character classes,\n\
                    string2 must map all characters in the domain to one"
            .to_string());
    }
    for (&from, &to) in bytes1.iter().zip(&bytes2) {
        plan.map[usize::from(from)] = to;
    }
    if flags.squeeze {
        for &b in &bytes2 {
            plan.squeeze[usize::from(b)] = true;
        }
    }
    Ok(())
}

/// `[:upper:]` against `[:lower:]` (or the reverse) maps case by case.
fn classes_align(set1: &[Elem], set2: &[Elem]) -> bool {
    set1.len() == set2.len()
        && set1.iter().any(|e| matches!(e, Elem::Class(_)))
        && set1.iter().zip(set2).all(|pair| match pair {
            (Elem::Class(a), Elem::Class(b)) => {
                matches!((*a, *b), ("upper", "lower") | ("lower", "upper"))
            }
            (Elem::Class(_), _) | (_, Elem::Class(_)) => false,
            _ => true,
        })
}

/// GNU's rule: a `[:upper:]` or `[:lower:]` in SET2 must start where one of them starts
/// in SET1, so the two are mapped case by case.
fn misaligned(set1: &[Elem], set2: &[Elem]) -> bool {
    let case = |e: &Elem| matches!(e, Elem::Class("upper" | "lower"));
    let starts = |set: &[Elem]| {
        let mut at = 0;
        let mut starts = Vec::new();
        for e in set {
            starts.push((at, case(e)));
            at += expand(std::slice::from_ref(e), 0).map_or(0, |b| b.len());
        }
        starts
    };
    let starts1 = starts(set1);
    starts(set2)
        .iter()
        .any(|&(at, is_case)| is_case && !starts1.contains(&(at, true)))
}

fn complement(bytes: &[u8]) -> Vec<u8> {
    let mut present = [false; 256];
    for &b in bytes {
        present[usize::from(b)] = true;
    }
    (0..=255u8).filter(|&b| !present[usize::from(b)]).collect()
}

/// Parses a set's text into elements (escapes, ranges, classes, repeats).
fn parse_set(text: &[u8]) -> Result<Vec<Elem>, String> {
    let mut elems = Vec::new();
    let mut at = 0;
    while at < text.len() {
        if text[at] == b'[' {
            if let Some((elem, next)) = bracket(text, at)? {
                elems.push(elem);
                at = next;
                continue;
            }
        }
        let (first, next) = one_byte(text, at);
        if text.get(next) == Some(&b'-') && next + 1 < text.len() {
            let (last, after) = one_byte(text, next + 1);
            if last < first {
                let shown = String::from_utf8_lossy(&text[at..after]);
                return Err(format!(
                    "range-endpoints of '{shown}' are in reverse collating sequence order"
                ));
            }
            elems.push(Elem::Range(first, last));
            at = after;
        } else {
            elems.push(Elem::Byte(first));
            at = next;
        }
    }
    Ok(elems)
}

/// `[:class:]`, `[=c=]` or `[c*n]` at `at`, if that is what is there.
fn bracket(text: &[u8], at: usize) -> Result<Option<(Elem, usize)>, String> {
    let rest = &text[at + 1..];
    if let Some(body) = rest.strip_prefix(b":") {
        if let Some(end) = find(body, b":]") {
            let name = String::from_utf8_lossy(&body[..end]);
            let class = CLASSES
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| format!("invalid character class '{name}'"))?;
            return Ok(Some((Elem::Class(class.0), at + 1 + 1 + end + 2)));
        }
    }
    if let Some(body) = rest.strip_prefix(b"=") {
        if body.len() >= 3 && &body[1..3] == b"=]" {
            return Ok(Some((Elem::Byte(body[0]), at + 5)));
        }
    }
    if rest.is_empty() {
        return Ok(None);
    }
    let (c, next) = one_byte(text, at + 1);
    if text.get(next) != Some(&b'*') {
        return Ok(None);
    }
    let Some(close) = text[next..].iter().position(|&b| b == b']') else {
        return Ok(None);
    };
    let count = std::str::from_utf8(&text[next + 1..next + close]).unwrap_or("x");
    let n = if count.is_empty() {
        None
    } else {
        let radix = if count.starts_with('0') { 8 } else { 10 };
        match usize::from_str_radix(count, radix) {
            Ok(0) => None,
            Ok(n) => Some(n),
            Err(_) => return Err(format!("invalid repeat count '{count}' in [c*n] construct")),
        }
    };
    Ok(Some((Elem::Repeat(c, n), next + close + 1)))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// One possibly escaped byte at `at`: the byte and where the next element starts.
fn one_byte(text: &[u8], at: usize) -> (u8, usize) {
    if text[at] != b'\\' || at + 1 >= text.len() {
        return (text[at], at + 1);
    }
    let c = text[at + 1];
    let simple = match c {
        b'a' => 7,
        b'b' => 8,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'v' => 0x0b,
        b'0'..=b'7' => {
            let mut value = 0u32;
            let mut end = at + 1;
            while end < text.len() && end < at + 4 && (b'0'..=b'7').contains(&text[end]) {
                value = value * 8 + u32::from(text[end] - b'0');
                end += 1;
            }
            return ((value & 0xff) as u8, end);
        }
        other => other,
    };
    (simple, at + 2)
}

/// A character class: its name and membership test.
type Class = (&'static str, fn(u8) -> bool);

const CLASSES: &[Class] = &[
    ("alpha", |b| b.is_ascii_alphabetic()),
    ("digit", |b| b.is_ascii_digit()),
    ("alnum", |b| b.is_ascii_alphanumeric()),
    ("upper", |b| b.is_ascii_uppercase()),
    ("lower", |b| b.is_ascii_lowercase()),
    ("space", |b| b.is_ascii_whitespace() || b == 0x0b),
    ("blank", |b| b == b' ' || b == b'\t'),
    ("punct", |b| b.is_ascii_punctuation()),
    ("print", |b| (0x20..0x7f).contains(&b)),
    ("graph", |b| b.is_ascii_graphic()),
    ("cntrl", |b| b < 0x20 || b == 0x7f),
    ("xdigit", |b| b.is_ascii_hexdigit()),
];

/// The bytes a set stands for, in order; `[c*]` fills up to `target` bytes.
fn expand(elems: &[Elem], target: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut fill_at = None;
    for elem in elems {
        match *elem {
            Elem::Byte(b) => out.push(b),
            Elem::Range(a, b) => out.extend(a..=b),
            Elem::Class(name) => {
                let test = CLASSES
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map_or((|_| false) as fn(u8) -> bool, |c| c.1);
                out.extend((0..=255u8).filter(|&b| test(b)));
            }
            Elem::Repeat(c, Some(n)) => out.extend(std::iter::repeat_n(c, n)),
            Elem::Repeat(c, None) => {
                fill_at = Some((out.len(), c));
            }
        }
    }
    if let Some((at, c)) = fill_at {
        let fill = target.saturating_sub(out.len());
        out.splice(at..at, std::iter::repeat_n(c, fill));
    }
    Ok(out)
}

async fn filter(ctx: &mut Ctx, plan: &Plan) -> Result<(), WriteError> {
    let mut last: Option<u8> = None;
    let mut out = Vec::new();
    while let Some(chunk) = ctx.stdin.read_chunk().await {
        out.clear();
        for &b in &chunk {
            if plan.delete[usize::from(b)] {
                continue;
            }
            let mapped = plan.map[usize::from(b)];
            if plan.squeeze[usize::from(mapped)] && last == Some(mapped) {
                continue;
            }
            last = Some(mapped);
            out.push(mapped);
        }
        ctx.stdout.write(&out).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "tr",
        files: &[],
        ok: &[
            (&["a-cx-z", "A-CX-Z"], "abcxyz-m", "ABCXYZ-m"),
            (&["-c", "a-z\\n", "_"], "ab1-c\n", "ab__c\n"),
            (&["0-9", "a-j"], "2024-05", "cace-af"),
            (&["[:digit:]", "[x*]"], "a1b22", "axbxx"),
            (&["-s", "a-z"], "aabbccdd  ee", "abcd  e"),
            (&["aa", "xy"], "aabbcc", "yybbcc"),
            (&["a-z", "A-Z"], "hello", "HELLO"),
            (&["[:lower:]", "[:upper:]"], "hello world\n", "HELLO WORLD\n"),
            (&["[:upper:]", "[:lower:]"], "Hello World\n", "hello world\n"),
            (&["[:upper:][:lower:]", "[:lower:][:upper:]"], "AbC", "aBc"),
            (&["-d", "[:digit:]"], "Hello 123", "Hello "),
            (&["-s", "ab"], "aaabbbccc", "abccc"),
            (&["-s", " "], "hello  world", "hello world"),
            (&["abc", "x"], "abc", "xxx"),
            (&["-t", "abc", "xy"], "abcd", "xycd"),
            (&["-cd", "[:alpha:]"], "a1b2\n", "ab"),
            (&["-c", "[:alpha:]", "#"], "a1b2\n", "a#b##"),
            (&["-C", "ab", "X"], "abcabc", "abXabX"),
            (&["-ds", " ", "a"], "aa  bb", "abb"),
            (&["a-c", "[x*]"], "abc", "xxx"),
            (&["a-f", "x[y*2]z"], "abcdef", "xyyzzz"),
            (&["a", "[b*]q"], "ab", "qb"),
            (&["a-", "x"], "a-b", "xxb"),
            (&["-d", "--", "-a"], "a-b", "b"),
            (&["-d", "a\\-"], "a-b", "b"),
            (&["[=a=]", "x"], "ab", "xb"),
            (&["\\141", "X"], "abc", "Xbc"),
            (&["\\\\", "/"], "a\\b", "a/b"),
            (&["\\t", "_"], "tab\tx", "tab_x"),
            (&["[:space:]", "\\n"], "x y", "x\ny"),
            (&["-d", "[:punct:]"], "a!b,c", "abc"),
            (&["[:alnum:]", "*"], "aAb1", "****"),
            (&["-s", "a", "x"], "aabbaacc", "xbbxcc"),
            (&["a-y", "b-z"], "hello", "ifmmp"),
            (&["-d", "é"], "héllo", "hllo"),
            (&["\\n", " "], "a\nb\n", "a b "),
            (&["-s", "[:space:]"], "a \n\n  b\t\tc", "a \n b\tc"),
            (&["-d", "\\r"], "dos\r\nline\r\n", "dos\nline\n"),
            (&["x[:upper:]", "y[:lower:]"], "xAB", "yab"),
            (&["-c", "[:lower:]", "[x*]"], "aB1", "axx"),
            (&["-cs", "[:alnum:]", "\\n"], "the quick, brown  fox!", "the\nquick\nbrown\nfox\n"),
        ],
        err: &[
            (&["-d", "a-c", "--"], "abcd", "", "tr: extra operand '--'\nOnly one string may be given when deleting without squeezing repeats.\nTry 'tr --help' for more information.\n", 1),
            (&["z-a", "x"], "abc", "", "tr: range-endpoints of 'z-a' are in reverse collating sequence order\n", 1),
            (&["[:foo:]", "x"], "abc", "", "tr: invalid character class 'foo'\n", 1),
            (&["abc"], "abc", "", "tr: missing operand after 'abc'\nTwo strings must be given when translating.\nTry 'tr --help' for more information.\n", 1),
            (&[], "abc", "", "tr: missing operand\nTry 'tr --help' for more information.\n", 1),
            (&["a", "b", "c"], "abc", "", "tr: extra operand 'c'\nTry 'tr --help' for more information.\n", 1),
            (&["-d", "a", "b"], "abc", "", "tr: extra operand 'b'\nOnly one string may be given when deleting without squeezing repeats.\nTry 'tr --help' for more information.\n", 1),
            (&["a", ""], "abc", "", "tr: when not truncating set1, string2 must be non-empty\n", 1),
            (&["[:alpha:]", "[:digit:]"], "x", "", "tr: when translating, the only character classes that may appear in\nstring2 are 'upper' and 'lower'\n", 1),
            (&["a", "\\"], "abc", "\\bc", "tr: warning: an unescaped backslash at end of string is not portable\n", 0),
            (&["-ds", "a", "[x*]"], "abc", "", "tr: the [c*] construct may appear in string2 only when translating\n", 1),
            (&["abc", "[:upper:]"], "abc", "", "tr: misaligned [:upper:] and/or [:lower:] construct\n", 1),
            (&["x[:upper:]", "[:lower:]y"], "abc", "", "tr: misaligned [:upper:] and/or [:lower:] construct\n", 1),
            (&["-c", "aeiou", "[:lower:]"], "abc", "", "tr: when translating with string1 longer than string2,\nthe latter string must not end with a character class\n", 1),
            (&["-c", "[:lower:]", "xyz"], "abc", "", "tr: when translating with complemented character classes,\nstring2 must map all characters in the domain to one\n", 1),
            (&["-x", "a"], "", "", "tr: invalid option -- 'x'\nTry 'tr --help' for more information.\n", 1),
        ],
    };

    #[test]
    fn cases() {
        TABLE.check();
    }

    #[test]
    #[ignore = "compares the tables with the real GNU tools"]
    fn gnu() {
        TABLE.check_gnu();
    }
}
