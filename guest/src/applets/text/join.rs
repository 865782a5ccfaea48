//! `join [-t CHAR] [-1 F] [-2 F] [-a N] [-v N] [-e STR] [-o FORMAT] FILE1 FILE2`: join
//! the lines of two sorted files on a common field (GNU's algorithm and order checks).

use crate::applets::common::{finish, open, parse_args, quote_if_needed, split_lines};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `join` applet.
pub const APPLET: Applet = Applet {
    name: "join",
    usage: "join [OPTION]... FILE1 FILE2\n  -a FILENUM      also print unpairable lines of file FILENUM (1 or 2)\n  -v FILENUM      like -a FILENUM, but only the unpairable lines\n  -e EMPTY        replace missing fields with EMPTY (with -o)\n  -i, --ignore-case  ignore case when comparing join fields\n  -j FIELD        join on FIELD of both files\n  -1 FIELD        join on this FIELD of file 1 (default 1)\n  -2 FIELD        join on this FIELD of file 2 (default 1)\n  -o FORMAT       output fields: '0' (the join field) or 'FILENUM.FIELD', comma or blank\n                  separated; 'auto' takes the field counts of the first lines\n  -t CHAR         field separator (default: runs of blanks; output one space)\n  --check-order / --nocheck-order   fail on / never check unsorted input\n  --header        pair the first lines as headers\n  -z, --zero-terminated  lines end with NUL",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "iz",
    short_val: "av12jeot",
    long: &[
        "ignore-case",
        "check-order",
        "nocheck-order",
        "header",
        "zero-terminated",
    ],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

/// One output field: the join field, or field N (0-based) of file 1 or 2.
#[derive(Clone, Copy)]
enum OutField {
    Join,
    Of(usize, usize),
}

#[derive(Clone, Copy, PartialEq)]
enum CheckOrder {
    Default,
    Enabled,
    Disabled,
}

struct Options {
    fields: [usize; 2],
    unpaired: [bool; 2],
    paired: bool,
    empty: Option<String>,
    format: Option<Vec<OutField>>,
    auto: bool,
    tab: Option<u8>,
    ignore_case: bool,
    check: CheckOrder,
    header: bool,
    eol: u8,
}

/// A line split into fields (byte ranges).
struct Line<'a> {
    text: &'a [u8],
    fields: Vec<&'a [u8]>,
}

/// One input: its lines, where we are, and the order-check state.
struct File<'a> {
    name: String,
    lines: Vec<&'a [u8]>,
    next: usize,
    prev: Option<usize>,
    warned: bool,
}

/// The run's shared state.
struct Joiner<'a> {
    o: &'a Options,
    seen_unpairable: bool,
    fatal: bool,
    autocount: [usize; 2],
    out: Vec<u8>,
    errors: Vec<String>,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let o = match options(&opts) {
        Ok(o) => o,
        Err(message) => {
            warn(&mut ctx, message).await;
            return 1;
        }
    };
    if operands.len() != 2 {
        let message = match operands.len() {
            0 => "missing operand".to_string(),
            1 => format!("missing operand after '{}'", operands[0]),
            _ => format!("extra operand '{}'", operands[2]),
        };
        return usage_error(&mut ctx, message, 1).await;
    }
    if operands[0] == "-" && operands[1] == "-" {
        warn(&mut ctx, "both files cannot be standard input").await;
        return 1;
    }
    let mut data = Vec::new();
    for path in &operands {
        match open(&mut ctx, path) {
            Ok(mut input) => data.push(input.read_all().await),
            Err(e) => {
                warn(&mut ctx, format!("{}: {}", quote_if_needed(path), e.reason)).await;
                return 1;
            }
        }
    }
    let [mut f1, mut f2] = [0, 1].map(|i| File {
        name: operands[i].clone(),
        lines: split_lines(&data[i], o.eol)
            .map(|l| l.strip_suffix(&[o.eol]).unwrap_or(l))
            .collect(),
        next: 0,
        prev: None,
        warned: false,
    });
    let mut joiner = Joiner {
        o: &o,
        seen_unpairable: false,
        fatal: false,
        autocount: [0, 0],
        out: Vec::new(),
        errors: Vec::new(),
    };
    joiner.join(&mut f1, &mut f2);
    let status = i32::from(joiner.fatal || !joiner.errors.is_empty());
    let written = ctx.stdout.write(&joiner.out).await;
    let flushed = match written {
        Ok(()) => ctx.stdout.flush().await,
        Err(e) => Err(e),
    };
    for message in &joiner.errors {
        warn(&mut ctx, message).await;
    }
    if !joiner.fatal && !joiner.errors.is_empty() {
        warn(&mut ctx, "input is not in sorted order").await;
    }
    finish(&mut ctx, flushed.map(|()| status)).await
}

fn field_number(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n - 1),
        _ => Err(format!("invalid field number: '{text}'")),
    }
}

fn options(opts: &[crate::applets::common::Opt]) -> Result<Options, String> {
    let mut o = Options {
        fields: [0, 0],
        unpaired: [false, false],
        paired: true,
        empty: None,
        format: None,
        auto: false,
        tab: None,
        ignore_case: false,
        check: CheckOrder::Default,
        header: false,
        eol: b'\n',
    };
    for opt in opts {
        let value = opt.value();
        if opt.is('a', "") || opt.is('v', "") {
            let file = match value {
                "1" => 0,
                "2" => 1,
                _ => return Err(format!("invalid field number: '{value}'")),
            };
            o.unpaired[file] = true;
            if opt.is('v', "") {
                o.paired = false;
            }
        } else if opt.is('1', "") {
            o.fields[0] = field_number(value)?;
        } else if opt.is('2', "") {
            o.fields[1] = field_number(value)?;
        } else if opt.is('j', "") {
            let field = field_number(value)?;
            o.fields = [field, field];
        } else if opt.is('e', "") {
            o.empty = Some(value.to_string());
        } else if opt.is('o', "") {
            if value == "auto" {
                o.auto = true;
            } else {
                let list = o.format.get_or_insert_with(Vec::new);
                list.extend(parse_format(value)?);
            }
        } else if opt.is('t', "") {
            o.tab = Some(match value.as_bytes() {
                [] => b'\n',
                [b] => *b,
                b"\\0" => 0,
                _ => return Err(format!("multi-character tab '{value}'")),
            });
        } else if opt.is('i', "ignore-case") {
            o.ignore_case = true;
        } else if opt.is('\0', "check-order") {
            o.check = CheckOrder::Enabled;
        } else if opt.is('\0', "nocheck-order") {
            o.check = CheckOrder::Disabled;
        } else if opt.is('\0', "header") {
            o.header = true;
        } else if opt.is('z', "zero-terminated") {
            o.eol = 0;
        }
    }
    Ok(o)
}

fn parse_format(text: &str) -> Result<Vec<OutField>, String> {
    let mut out = Vec::new();
    for spec in text.split([',', ' ', '\t']) {
        let field = match spec.as_bytes() {
            b"0" => OutField::Join,
            [file @ (b'1' | b'2'), b'.', ..] => {
                OutField::Of(usize::from(file - b'1'), field_number(&spec[2..])?)
            }
            [b'0', ..] | [b'1' | b'2', ..] => {
                return Err(format!("invalid field specifier: '{spec}'"))
            }
            _ => return Err(format!("invalid file number in field spec: '{spec}'")),
        };
        out.push(field);
    }
    Ok(out)
}

/// GNU's `xfields` without `-t`: leading blanks skipped, runs of blanks separate, and
/// trailing blanks make one last empty field.
fn blank_fields(text: &[u8]) -> Vec<&[u8]> {
    let blank = |b: u8| b == b' ' || b == b'\t' || b == b'\n';
    let mut fields = Vec::new();
    let Some(mut at) = text.iter().position(|&b| !blank(b)) else {
        return fields;
    };
    loop {
        let end = text[at..]
            .iter()
            .position(|&b| blank(b))
            .map_or(text.len(), |p| at + p);
        fields.push(&text[at..end]);
        if end == text.len() {
            return fields;
        }
        match text[end..].iter().position(|&b| !blank(b)) {
            Some(p) => at = end + p,
            None => {
                fields.push(&text[text.len()..]);
                return fields;
            }
        }
    }
}

impl<'a> Joiner<'a> {
    fn split<'l>(&self, text: &'l [u8]) -> Line<'l> {
        let fields = match self.o.tab {
            Some(b'\n') => vec![text],
            Some(tab) => {
                if text.is_empty() {
                    Vec::new()
                } else {
                    text.split(|&b| b == tab).collect()
                }
            }
            None => blank_fields(text),
        };
        Line { text, fields }
    }

    /// GNU's `keycmp` on join fields `f1` and `f2`.
    fn keycmp(&self, a: &Line, b: &Line, f1: usize, f2: usize) -> std::cmp::Ordering {
        let ka = a.fields.get(f1).copied().unwrap_or(b"");
        let kb = b.fields.get(f2).copied().unwrap_or(b"");
        if self.o.ignore_case {
            let fold = |s: &[u8]| s.to_ascii_lowercase();
            fold(ka).cmp(&fold(kb))
        } else {
            ka.cmp(kb)
        }
    }

    /// The next line of file `which`, checking it against the previous one.
    fn get_line<'l>(&mut self, file: &mut File<'l>, which: usize) -> Option<Line<'l>> {
        let text = *file.lines.get(file.next)?;
        let line = self.split(text);
        if let Some(prev) = file.prev {
            let prev_line = self.split(file.lines[prev]);
            self.check_order(file, &prev_line, &line, which);
        }
        file.prev = Some(file.next);
        file.next += 1;
        Some(line)
    }

    fn check_order(&mut self, file: &mut File, prev: &Line, current: &Line, which: usize) {
        let o = self.o;
        let active = o.check == CheckOrder::Enabled
            || (o.check == CheckOrder::Default && self.seen_unpairable);
        if !active || file.warned || self.fatal {
            return;
        }
        let field = o.fields[which];
        if self.keycmp(prev, current, field, field) == std::cmp::Ordering::Greater {
            let text = String::from_utf8_lossy(current.text);
            self.errors.push(format!(
                "{}:{}: is not sorted: {text}",
                file.name,
                file.next + 1
            ));
            file.warned = true;
            if o.check == CheckOrder::Enabled {
                self.fatal = true;
            }
        }
    }

    fn join<'b>(&mut self, f1: &mut File<'b>, f2: &mut File<'b>) {
        let mut seq1: Vec<Line> = self.get_line(f1, 0).into_iter().collect();
        let mut seq2: Vec<Line> = self.get_line(f2, 1).into_iter().collect();
        if self.o.auto {
            self.autocount = [
                seq1.first().map_or(0, |l| l.fields.len()),
                seq2.first().map_or(0, |l| l.fields.len()),
            ];
        }
        if self.o.header && (!seq1.is_empty() || !seq2.is_empty()) {
            self.prjoin(seq1.first(), seq2.first());
            f1.prev = None;
            f2.prev = None;
            seq1 = self.get_line(f1, 0).into_iter().collect();
            seq2 = self.get_line(f2, 1).into_iter().collect();
        }
        let [j1, j2] = self.o.fields;
        while !seq1.is_empty() && !seq2.is_empty() && !self.fatal {
            let diff = self.keycmp(&seq1[0], &seq2[0], j1, j2);
            if diff.is_lt() {
                if self.o.unpaired[0] {
                    self.prjoin(Some(&seq1[0]), None);
                }
                seq1 = self.get_line(f1, 0).into_iter().collect();
                self.seen_unpairable = true;
                continue;
            }
            if diff.is_gt() {
                if self.o.unpaired[1] {
                    self.prjoin(None, Some(&seq2[0]));
                }
                seq2 = self.get_line(f2, 1).into_iter().collect();
                self.seen_unpairable = true;
                continue;
            }
            let eof1 = self.extend_group(f1, 0, &mut seq1, &seq2[0], true);
            let eof2 = self.extend_group(f2, 1, &mut seq2, &seq1[0], false);
            if self.fatal {
                return;
            }
            if self.o.paired {
                let n1 = seq1.len() - usize::from(!eof1);
                let n2 = seq2.len() - usize::from(!eof2);
                for a in &seq1[..n1] {
                    for b in &seq2[..n2] {
                        self.prjoin(Some(a), Some(b));
                    }
                }
            }
            seq1 = if eof1 {
                Vec::new()
            } else {
                seq1.pop().into_iter().collect()
            };
            seq2 = if eof2 {
                Vec::new()
            } else {
                seq2.pop().into_iter().collect()
            };
        }
        self.tails([f1, f2], seq1, seq2);
    }

    /// Reads lines into `seq` while they match `other`; true at end of file (every line in
    /// `seq` then matches), false when the last line read does not match.
    fn extend_group<'l>(
        &mut self,
        file: &mut File<'l>,
        which: usize,
        seq: &mut Vec<Line<'l>>,
        other: &Line,
        first_file: bool,
    ) -> bool {
        let [j1, j2] = self.o.fields;
        loop {
            let Some(line) = self.get_line(file, which) else {
                return true;
            };
            let same = if first_file {
                self.keycmp(&line, other, j1, j2).is_eq()
            } else {
                self.keycmp(other, &line, j1, j2).is_eq()
            };
            seq.push(line);
            if !same || self.fatal {
                return false;
            }
        }
    }

    /// After the merge: unpairable tails (with -a) and the order check of what is left.
    fn tails<'b>(&mut self, files: [&mut File<'b>; 2], seq1: Vec<Line>, seq2: Vec<Line>) {
        if self.fatal {
            return;
        }
        let [f1, f2] = files;
        let checktail = self.o.check != CheckOrder::Disabled && !(f1.warned && f2.warned);
        let seqs = [seq1, seq2];
        for (which, file) in [(0, f1), (1, f2)] {
            let Some(first) = seqs[which].first() else {
                continue;
            };
            if !(self.o.unpaired[which] || checktail) {
                continue;
            }
            self.print_unpaired(which, first);
            if !seqs[1 - which].is_empty() {
                self.seen_unpairable = true;
            }
            while let Some(line) = self.get_line(file, which) {
                if self.fatal {
                    return;
                }
                self.print_unpaired(which, &line);
                if file.warned && !self.o.unpaired[which] {
                    break;
                }
            }
        }
    }

    fn print_unpaired(&mut self, which: usize, line: &Line) {
        if !self.o.unpaired[which] {
            return;
        }
        if which == 0 {
            self.prjoin(Some(line), None);
        } else {
            self.prjoin(None, Some(line));
        }
    }

    fn prfield(&mut self, line: Option<&Line>, n: usize) {
        let field = line.and_then(|l| l.fields.get(n)).copied().unwrap_or(b"");
        if !field.is_empty() {
            self.out.extend_from_slice(field);
        } else if let Some(empty) = &self.o.empty {
            self.out.extend_from_slice(empty.as_bytes());
        }
    }

    fn separator(&self) -> u8 {
        match self.o.tab {
            None | Some(b'\n') => b' ',
            Some(tab) => tab,
        }
    }

    fn prjoin(&mut self, a: Option<&Line>, b: Option<&Line>) {
        let sep = self.separator();
        let [j1, j2] = self.o.fields;
        let (join_line, join_field) = if a.is_none() { (b, j2) } else { (a, j1) };
        if let Some(format) = self.o.format.clone() {
            for (i, field) in format.iter().enumerate() {
                if i > 0 {
                    self.out.push(sep);
                }
                match *field {
                    OutField::Join => self.prfield(join_line, join_field),
                    OutField::Of(0, n) => self.prfield(a, n),
                    OutField::Of(_, n) => self.prfield(b, n),
                }
            }
        } else {
            self.prfield(join_line, join_field);
            self.prfields(a, j1, 0);
            self.prfields(b, j2, 1);
        }
        self.out.push(self.o.eol);
    }

    fn prfields(&mut self, line: Option<&Line>, join_field: usize, which: usize) {
        let count = if self.o.auto {
            self.autocount[which]
        } else {
            line.map_or(0, |l| l.fields.len())
        };
        let sep = self.separator();
        for i in (0..count).filter(|&i| i != join_field) {
            self.out.push(sep);
            self.prfield(line, i);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "join",
        files: &[
            ("j1", "1 a\n2 b\n3 c\n"),
            ("j2", "1 x\n3 y\n4 z\n"),
            ("j3", "a,1\nb,2\n"),
            ("j4", "a,x\nb,y\n"),
            ("j5", "x 1\ny 2\n"),
            ("j6", "1 a\n1 b\n"),
            ("j7", "1 x\n1 y\n"),
            ("ju", "b 1\na 2\n"),
            ("auto", "a 1 2\nb 3\n"),
            ("ax", "a x\n"),
        ],
        ok: &[
            (&["j1", "j2"], "", "1 a x\n3 c y\n"),
            (&["-a1", "j1", "j2"], "", "1 a x\n2 b\n3 c y\n"),
            (&["-a2", "j1", "j2"], "", "1 a x\n3 c y\n4 z\n"),
            (&["-a1", "-a2", "j1", "j2"], "", "1 a x\n2 b\n3 c y\n4 z\n"),
            (&["-v1", "j1", "j2"], "", "2 b\n"),
            (&["-v2", "j1", "j2"], "", "4 z\n"),
            (&["-v1", "-v2", "j1", "j2"], "", "2 b\n4 z\n"),
            (&["-o", "1.2,2.2", "j1", "j2"], "", "a x\nc y\n"),
            (
                &["-o", "0,1.2,2.2", "-a1", "-e", "X", "j1", "j2"],
                "",
                "1 a x\n2 b X\n3 c y\n",
            ),
            (&["-e", "X", "-a1", "j1", "j2"], "", "1 a x\n2 b\n3 c y\n"),
            (&["-t,", "j3", "j4"], "", "a,1,x\nb,2,y\n"),
            (&["-1", "2", "-2", "1", "j5", "j2"], "", "1 x x\n"),
            (&["j6", "j7"], "", "1 a x\n1 a y\n1 b x\n1 b y\n"),
            (&["-", "j2"], "  1   a\n", "1 a x\n"),
            (
                &["-o", "auto", "-a1", "-e", "-", "j1", "j2"],
                "",
                "1 a x\n2 b -\n3 c y\n",
            ),
            (
                &["-a1", "-o", "auto", "-e", "E", "auto", "ax"],
                "",
                "a 1 2 x\nb 3 E E\n",
            ),
            (&["-i", "-", "j2"], "", ""),
            (&["--header", "-", "j2"], "k v\n1 a\n", "k v x\n"),
            (&["-j", "1", "j1", "j2"], "", "1 a x\n3 c y\n"),
            (&["-o", "1.1 2.2", "j1", "j2"], "", "1 x\n3 y\n"),
            (&["-t", "", "j1", "j2"], "", ""),
            (
                &["-t,", "-e", "X", "-o", "1.1,1.2,2.2", "-", "j4"],
                "a,,1\n",
                "a,X,x\n",
            ),
            (&["-z", "-", "j2"], "1 a\0", "1 a x 3 y 4 z \0"),
            (&["-", "j2"], "1 a \n", "1 a  x\n"),
            (&["-j", "2", "j5", "j5"], "", "1 x x\n2 y y\n"),
            (&["-i", "-", "j4"], "", ""),
        ],
        err: &[
            (
                &["ju", "j2"],
                "",
                "",
                "join: ju:2: is not sorted: a 2\njoin: input is not in sorted order\n",
                1,
            ),
            (
                &["--check-order", "-t,", "-", "j4"],
                "b,1\na,2\n",
                "",
                "join: -:2: is not sorted: a,2\n",
                1,
            ),
            (
                &["j1"],
                "",
                "",
                "join: missing operand after 'j1'\nTry 'join --help' for more information.\n",
                1,
            ),
            (
                &["j1", "missing"],
                "",
                "",
                "join: missing: No such file or directory\n",
                1,
            ),
            (
                &["-o", "3.1", "j1", "j2"],
                "",
                "",
                "join: invalid file number in field spec: '3.1'\n",
                1,
            ),
            (
                &["-o", "1.0", "j1", "j2"],
                "",
                "",
                "join: invalid field number: '0'\n",
                1,
            ),
            (
                &["-1", "0", "j1", "j2"],
                "",
                "",
                "join: invalid field number: '0'\n",
                1,
            ),
            (
                &["-a", "3", "j1", "j2"],
                "",
                "",
                "join: invalid field number: '3'\n",
                1,
            ),
            (
                &["j1", "j2", "j3"],
                "",
                "",
                "join: extra operand 'j3'\nTry 'join --help' for more information.\n",
                1,
            ),
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
