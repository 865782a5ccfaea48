//! Reading a patch: unified, context and normal diffs (and git's extended headers) into one
//! model — a list of file patches, each a list of hunks made of kept, deleted and added lines.

/// One line of a file or a hunk: its bytes without the newline, and whether it had one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: Vec<u8>,
    pub newline: bool,
}

/// One step of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// A context line: in the old file and the new.
    Keep(Line),
    /// A line only the old file has.
    Del(Line),
    /// A line only the new file has.
    Add(Line),
}

/// Which of the three formats a hunk came in (the reject file is written in the same one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Unified,
    Context,
    Normal,
}

/// A hunk: where it says it goes, and its steps.
#[derive(Debug, Clone)]
pub struct Hunk {
    /// First old line (1-based) as the header gives it; with no old lines, the line after
    /// which the new ones go.
    pub old_start: usize,
    /// First new line, in the same way.
    pub new_start: usize,
    pub ops: Vec<Op>,
}

impl Hunk {
    /// The lines the file must have where the hunk applies.
    pub fn old_lines(&self) -> impl Iterator<Item = &Line> {
        self.ops.iter().filter_map(|op| match op {
            Op::Keep(l) | Op::Del(l) => Some(l),
            Op::Add(_) => None,
        })
    }

    /// The lines the hunk leaves there.
    pub fn new_lines(&self) -> impl Iterator<Item = &Line> {
        self.ops.iter().filter_map(|op| match op {
            Op::Keep(l) | Op::Add(l) => Some(l),
            Op::Del(_) => None,
        })
    }

    pub fn old_len(&self) -> usize {
        self.old_lines().count()
    }

    pub fn new_len(&self) -> usize {
        self.new_lines().count()
    }

    /// Context lines before the first change, and after the last.
    pub fn context(&self) -> (usize, usize) {
        let keep = |op: &&Op| matches!(op, Op::Keep(_));
        let prefix = self.ops.iter().take_while(keep).count();
        let suffix = if prefix == self.ops.len() {
            0
        } else {
            self.ops.iter().rev().take_while(keep).count()
        };
        (prefix, suffix)
    }

    /// The same hunk undone (`patch -R`).
    pub fn reversed(&self) -> Hunk {
        let ops = self
            .ops
            .iter()
            .map(|op| match op {
                Op::Keep(l) => Op::Keep(l.clone()),
                Op::Del(l) => Op::Add(l.clone()),
                Op::Add(l) => Op::Del(l.clone()),
            })
            .collect();
        Hunk {
            old_start: self.new_start,
            new_start: self.old_start,
            ops,
        }
    }
}

/// What git's extended header lines say about a file.
#[derive(Debug, Clone, Default)]
pub struct Git {
    pub old: String,
    pub new: String,
    pub new_file: bool,
    pub deleted_file: bool,
    pub rename: bool,
    pub copy: bool,
}

/// The changes to one file.
#[derive(Debug, Clone)]
pub struct FilePatch {
    /// Name on the `---` (unified) or `***` (context) line; `None` when absent.
    pub old: Option<String>,
    /// Name on the `+++` (unified) or `---` (context) line.
    pub new: Option<String>,
    /// Name on an `Index:` line.
    pub index: Option<String>,
    /// The old and new header lines after their markers, as written (for the reject file).
    pub headers: (String, String),
    pub git: Option<Git>,
    pub format: Format,
    pub hunks: Vec<Hunk>,
    /// The patch's line (1-based) where the first hunk starts.
    pub hunk_line: usize,
    /// The lines before the first hunk since the previous file's patch, as "can't find file"
    /// shows them.
    pub leading: Vec<String>,
    /// Set when the patch is malformed after this file's good hunks: GNU's message.
    pub broken: Option<String>,
}

impl FilePatch {
    fn new(leading: Vec<String>) -> FilePatch {
        FilePatch {
            old: None,
            new: None,
            index: None,
            headers: (String::new(), String::new()),
            git: None,
            format: Format::Unified,
            hunks: Vec::new(),
            hunk_line: 0,
            leading,
            broken: None,
        }
    }

    /// Whether the patch creates the file (`--- /dev/null`, git's `new file`, or one hunk
    /// with no old lines at line 0).
    pub fn creates(&self) -> bool {
        self.git.as_ref().is_some_and(|g| g.new_file)
            || self.old.as_deref() == Some(DEV_NULL)
            || (self.hunks.len() == 1
                && self.hunks[0].old_start == 0
                && self.hunks[0].old_len() == 0)
    }

    /// Whether it names any file.
    pub fn named(&self) -> bool {
        self.old.is_some() || self.new.is_some() || self.index.is_some() || self.git.is_some()
    }

    /// Whether the patch deletes the file.
    pub fn deletes(&self) -> bool {
        self.git.as_ref().is_some_and(|g| g.deleted_file) || self.new.as_deref() == Some(DEV_NULL)
    }
}

pub const DEV_NULL: &str = "/dev/null";

/// What a whole patch holds: the file patches, or GNU's fatal message when there are none.
pub fn parse(text: &[u8]) -> Result<Vec<FilePatch>, String> {
    let lines = split(text);
    let mut parser = Parser {
        lines: &lines,
        at: 0,
    };
    let patches = parser.files();
    if patches.is_empty() {
        return Err("Only garbage was found in the patch input.".to_string());
    }
    Ok(patches)
}

/// A patch's lines, each with its newline flag.
fn split(text: &[u8]) -> Vec<Line> {
    let mut lines: Vec<Line> = text
        .split_inclusive(|&b| b == b'\n')
        .map(|raw| match raw.strip_suffix(b"\n") {
            Some(body) => Line {
                text: body.strip_suffix(b"\r").unwrap_or(body).to_vec(),
                newline: true,
            },
            None => Line {
                text: raw.to_vec(),
                newline: false,
            },
        })
        .collect();
    lines.retain(|l| l.newline || !l.text.is_empty());
    lines
}

struct Parser<'a> {
    lines: &'a [Line],
    at: usize,
}

fn text(line: &Line) -> String {
    String::from_utf8_lossy(&line.text).into_owned()
}

impl Parser<'_> {
    fn peek(&self, ahead: usize) -> Option<&Line> {
        self.lines.get(self.at + ahead)
    }

    fn starts(&self, ahead: usize, prefix: &str) -> bool {
        self.peek(ahead)
            .is_some_and(|l| l.text.starts_with(prefix.as_bytes()))
    }

    /// Every file patch, in order.
    fn files(&mut self) -> Vec<FilePatch> {
        let mut out = Vec::new();
        let mut leading = Vec::new();
        let mut index = None;
        let mut git: Option<Git> = None;
        let mut git_leading: Vec<String> = Vec::new();
        while let Some(line) = self.peek(0) {
            let s = text(line);
            if let Some(rest) = s.strip_prefix("diff --git ") {
                if let Some(g) = git.take() {
                    // A git patch without hunks: a rename, copy, or mode change.
                    out.push(self.bare_git(g, std::mem::take(&mut git_leading)));
                }
                git = Some(git_names(rest));
                leading.push(s.clone());
                git_leading = leading.clone();
                self.at += 1;
                continue;
            }
            if let Some(g) = git.as_mut() {
                if git_extended(g, &s) {
                    leading.push(s);
                    git_leading = leading.clone();
                    self.at += 1;
                    continue;
                }
            }
            if let Some(name) = s.strip_prefix("Index: ") {
                index = Some(name.trim().to_string());
            }
            let mut fp = None;
            let unified = s.starts_with("--- ") && self.starts(1, "+++ ") && self.starts(2, "@@ ");
            let context = s.starts_with("*** ")
                && self.starts(1, "--- ")
                && self.starts(2, "***************");
            if unified || context {
                let format = if unified {
                    Format::Unified
                } else {
                    Format::Context
                };
                let mut p = self.named(&s, &mut leading, format);
                match format {
                    Format::Context => self.context_hunks(&mut p),
                    _ => self.unified_hunks(&mut p),
                }
                fp = Some(p);
            } else if unified_header(&s).is_some() {
                // Hunks without file names: only a named file (`patch FILE`) takes them.
                let mut p = FilePatch::new(std::mem::take(&mut leading));
                p.hunk_line = self.at + 1;
                self.unified_hunks(&mut p);
                fp = Some(p);
            } else if normal_header(&s).is_some() {
                let mut p = FilePatch::new(std::mem::take(&mut leading));
                p.format = Format::Normal;
                p.hunk_line = self.at + 1;
                self.normal_hunks(&mut p);
                fp = Some(p);
            }
            match fp {
                Some(mut p) => {
                    p.index = index.take();
                    if let Some(g) = git.take() {
                        git_leading.clear();
                        p.git = Some(g);
                    }
                    let broken = p.broken.is_some();
                    out.push(p);
                    if broken {
                        return out;
                    }
                }
                None => {
                    leading.push(s);
                    self.at += 1;
                }
            }
        }
        if let Some(g) = git.take() {
            out.push(self.bare_git(g, git_leading));
        }
        out
    }

    /// The patch of a file whose two name lines (`---`/`+++` unified, `***`/`---` context)
    /// start at the cursor with `first`; the cursor moves past them to the hunks.
    fn named(&mut self, first: &str, leading: &mut Vec<String>, format: Format) -> FilePatch {
        let second = text(&self.lines[self.at + 1]);
        leading.extend([first.to_string(), second.clone()]);
        let mut p = FilePatch::new(std::mem::take(leading));
        p.format = format;
        p.headers = (first[4..].to_string(), second[4..].to_string());
        p.old = Some(name_of(&p.headers.0));
        p.new = Some(name_of(&p.headers.1));
        self.at += 2;
        p.hunk_line = self.at + 1;
        p
    }

    fn bare_git(&self, g: Git, leading: Vec<String>) -> FilePatch {
        let mut p = FilePatch::new(leading);
        p.old = Some(g.old.clone());
        p.new = Some(g.new.clone());
        p.git = Some(g);
        p
    }

    /// GNU's message for a hunk cut short or holding a line of no kind.
    fn malformed(&self) -> String {
        match self.peek(0) {
            Some(line) => format!("malformed patch at line {}: {}\n", self.at + 1, text(line)),
            None => format!("malformed patch at line {}:  \n", self.at),
        }
    }

    fn unified_hunks(&mut self, p: &mut FilePatch) {
        while let Some(header) = self.peek(0).map(text) {
            let Some((old_start, old_len, new_start, new_len)) = unified_header(&header) else {
                return;
            };
            self.at += 1;
            let mut hunk = Hunk {
                old_start,
                new_start,
                ops: Vec::new(),
            };
            let (mut olds, mut news) = (0, 0);
            while olds < old_len || news < new_len {
                let Some(line) = self.peek(0) else {
                    p.broken = Some(self.malformed());
                    return;
                };
                let body = Line {
                    text: line.text.get(1..).unwrap_or_default().to_vec(),
                    newline: true,
                };
                match line.text.first() {
                    // diff and some mailers drop the space of an empty context line.
                    Some(b' ') | None => {
                        olds += 1;
                        news += 1;
                        hunk.ops.push(Op::Keep(body));
                    }
                    Some(b'-') => {
                        olds += 1;
                        hunk.ops.push(Op::Del(body));
                    }
                    Some(b'+') => {
                        news += 1;
                        hunk.ops.push(Op::Add(body));
                    }
                    Some(b'\\') => no_newline(&mut hunk.ops),
                    _ => {
                        p.broken = Some(self.malformed());
                        return;
                    }
                }
                self.at += 1;
                if olds > old_len || news > new_len {
                    p.broken = Some(self.malformed());
                    return;
                }
            }
            while self.starts(0, "\\") {
                no_newline(&mut hunk.ops);
                self.at += 1;
            }
            p.hunks.push(hunk);
        }
    }

    fn context_hunks(&mut self, p: &mut FilePatch) {
        while self.starts(0, "***************") {
            self.at += 1;
            let Some((old_start, old_len)) = self
                .peek(0)
                .map(text)
                .and_then(|s| context_range(&s, "*** ", " ****"))
            else {
                p.broken = Some(self.malformed());
                return;
            };
            self.at += 1;
            let mut old = Vec::new();
            while !self.starts(0, "--- ") {
                match self.context_line(&mut old) {
                    Ok(()) => {}
                    Err(()) => {
                        p.broken = Some(self.malformed());
                        return;
                    }
                }
            }
            let Some((new_start, new_len)) = self
                .peek(0)
                .map(text)
                .and_then(|s| context_range(&s, "--- ", " ----"))
            else {
                p.broken = Some(self.malformed());
                return;
            };
            self.at += 1;
            let mut new = Vec::new();
            while new.len() < new_len
                && !self.starts(0, "***************")
                && self.peek(0).is_some()
                && !(new.is_empty() && old.len() == old_len && self.next_is_file_header())
            {
                if self.context_line(&mut new).is_err() {
                    break;
                }
            }
            let ops = merge_context(old, new, old_len, new_len);
            p.hunks.push(Hunk {
                old_start,
                new_start,
                ops,
            });
        }
    }

    fn next_is_file_header(&self) -> bool {
        let s = self.peek(0).map(text).unwrap_or_default();
        s.starts_with("diff ") || s.starts_with("Index: ") || s.starts_with("*** ")
    }

    /// One `  x`, `! x`, `- x` or `+ x` line of a context hunk (and a `\ No newline` after it).
    fn context_line(&mut self, into: &mut Vec<(u8, Line)>) -> Result<(), ()> {
        let line = self.peek(0).ok_or(())?;
        let kind = *line.text.first().ok_or(())?;
        if !matches!(kind, b' ' | b'!' | b'-' | b'+') {
            return Err(());
        }
        let body = Line {
            text: line.text.get(2..).unwrap_or_default().to_vec(),
            newline: true,
        };
        into.push((kind, body));
        self.at += 1;
        if self.starts(0, "\\") {
            if let Some((_, last)) = into.last_mut() {
                last.newline = false;
            }
            self.at += 1;
        }
        Ok(())
    }

    fn normal_hunks(&mut self, p: &mut FilePatch) {
        while let Some((kind, (o1, o2), (n1, n2))) =
            self.peek(0).map(text).and_then(|s| normal_header(&s))
        {
            self.at += 1;
            let mut ops = Vec::new();
            let dels = if kind == b'a' { 0 } else { o2 + 1 - o1 };
            let adds = if kind == b'd' { 0 } else { n2 + 1 - n1 };
            for (count, marker) in [(dels, "< "), (adds, "> ")] {
                if marker == "> " && dels > 0 && adds > 0 {
                    if !self.starts(0, "---") {
                        p.broken = Some(self.malformed());
                        return;
                    }
                    self.at += 1;
                }
                for _ in 0..count {
                    if !self.starts(0, marker) {
                        p.broken = Some(self.malformed());
                        return;
                    }
                    let body = Line {
                        text: self.lines[self.at].text[2..].to_vec(),
                        newline: true,
                    };
                    ops.push(if marker == "< " {
                        Op::Del(body)
                    } else {
                        Op::Add(body)
                    });
                    self.at += 1;
                    if self.starts(0, "\\") {
                        no_newline(&mut ops);
                        self.at += 1;
                    }
                }
            }
            p.hunks.push(Hunk {
                old_start: o1,
                new_start: n1,
                ops,
            });
        }
    }
}

/// `\ No newline at end of file`: the step before it ends without one.
fn no_newline(ops: &mut [Op]) {
    if let Some(Op::Keep(l) | Op::Del(l) | Op::Add(l)) = ops.last_mut() {
        l.newline = false;
    }
}

/// The steps of a context hunk from its old and new halves (a half with only context is
/// left out by diff: the other half then says it all).
fn merge_context(
    old: Vec<(u8, Line)>,
    new: Vec<(u8, Line)>,
    old_len: usize,
    new_len: usize,
) -> Vec<Op> {
    let kept = |kind: u8, l: Line, change: fn(Line) -> Op| {
        if kind == b' ' {
            Op::Keep(l)
        } else {
            change(l)
        }
    };
    if old.is_empty() && old_len > 0
        || old.is_empty() && new.iter().all(|(k, _)| *k != b' ') && old_len == 0
    {
        return new.into_iter().map(|(k, l)| kept(k, l, Op::Add)).collect();
    }
    if new.is_empty() && (new_len > 0 || old.iter().all(|(k, _)| *k != b' ')) {
        return old.into_iter().map(|(k, l)| kept(k, l, Op::Del)).collect();
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i).map(|o| o.0), new.get(j).map(|n| n.0)) {
            (Some(b'-'), _) => {
                ops.push(Op::Del(old[i].1.clone()));
                i += 1;
            }
            (_, Some(b'+')) => {
                ops.push(Op::Add(new[j].1.clone()));
                j += 1;
            }
            (Some(b'!'), _) | (_, Some(b'!')) => {
                while old.get(i).is_some_and(|o| o.0 == b'!') {
                    ops.push(Op::Del(old[i].1.clone()));
                    i += 1;
                }
                while new.get(j).is_some_and(|n| n.0 == b'!') {
                    ops.push(Op::Add(new[j].1.clone()));
                    j += 1;
                }
            }
            (Some(_), _) => {
                ops.push(Op::Keep(old[i].1.clone()));
                i += 1;
                j += 1;
            }
            (None, Some(_)) => {
                ops.push(Op::Keep(new[j].1.clone()));
                j += 1;
            }
            (None, None) => break,
        }
    }
    ops
}

/// `@@ -A[,B] +C[,D] @@`: (A, B, C, D), counts defaulting to 1.
fn unified_header(s: &str) -> Option<(usize, usize, usize, usize)> {
    let rest = s.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (a, b) = range(old)?;
    let (c, d) = range(new)?;
    Some((a, b, c, d))
}

/// `*** A,B ****` / `--- A,B ----`: (start, line count).
fn context_range(s: &str, open: &str, close: &str) -> Option<(usize, usize)> {
    let inner = s.strip_prefix(open)?.strip_suffix(close)?;
    let (a, b) = match inner.split_once(',') {
        Some((a, b)) => (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?),
        None => {
            let a = inner.parse::<usize>().ok()?;
            (a, a)
        }
    };
    let len = if b == 0 { 0 } else { (b + 1).saturating_sub(a) };
    Some((a, len))
}

/// First and last line of a normal diff's range.
type Span = (usize, usize);

/// `L1[,L2]{a,c,d}R1[,R2]`: the kind and both ranges.
fn normal_header(s: &str) -> Option<(u8, Span, Span)> {
    let at = s.find(['a', 'c', 'd'])?;
    let kind = s.as_bytes()[at];
    let range = |r: &str| -> Option<(usize, usize)> {
        if r.is_empty() || !r.bytes().all(|b| b.is_ascii_digit() || b == b',') {
            return None;
        }
        match r.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => {
                let a = r.parse().ok()?;
                Some((a, a))
            }
        }
    };
    Some((kind, range(&s[..at])?, range(&s[at + 1..])?))
}

/// The file name of a header line: up to a tab (before the timestamp), or the first blank;
/// a C-quoted name (`"a b\tc"`) is unquoted.
fn name_of(header: &str) -> String {
    if let Some(quoted) = header.strip_prefix('"') {
        return unquote(quoted);
    }
    let end = header.find('\t').unwrap_or(header.len());
    let name = &header[..end];
    let name = if end == header.len() {
        name.split(' ').next().unwrap_or("")
    } else {
        name
    };
    // `diff -N` writes an absent file with the epoch as its time.
    let stamp = header[end..].trim();
    if stamp.starts_with("1970-01-01 00:00:00") || stamp.starts_with("1969-12-31 ") {
        return DEV_NULL.to_string();
    }
    name.trim_end().to_string()
}

/// The rest of a C-quoted name after its opening quote.
fn unquote(s: &str) -> String {
    let mut out = Vec::new();
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'"' => break,
            b'\\' => match bytes.next() {
                Some(b'n') => out.push(b'\n'),
                Some(b't') => out.push(b'\t'),
                Some(d @ b'0'..=b'7') => {
                    let mut v = u32::from(d - b'0');
                    for _ in 0..2 {
                        match bytes.clone().next() {
                            Some(d @ b'0'..=b'7') => {
                                v = v * 8 + u32::from(d - b'0');
                                bytes.next();
                            }
                            _ => break,
                        }
                    }
                    out.push(v as u8);
                }
                Some(other) => out.push(other),
                None => break,
            },
            _ => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `a/OLD b/NEW` of a `diff --git` line.
fn git_names(rest: &str) -> Git {
    let (old, new) = if let Some(quoted) = rest.strip_prefix('"') {
        let old = unquote(quoted);
        let after = quoted.split_once("\" ").map_or("", |(_, after)| after);
        let new = after.strip_prefix('"').map_or(after.to_string(), unquote);
        (old, new)
    } else {
        // `a/x b/x`: split where the second half starts; names with spaces are split at the
        // middle when both halves are the same file.
        let half = rest.len() / 2;
        match rest
            .get(half..)
            .filter(|_| rest.as_bytes().get(half) == Some(&b' '))
        {
            Some(_) if rest[..half].get(2..) == rest[half + 1..].get(2..) => {
                (rest[..half].to_string(), rest[half + 1..].to_string())
            }
            _ => match rest.split_once(' ') {
                Some((a, b)) => (a.to_string(), b.to_string()),
                None => (rest.to_string(), rest.to_string()),
            },
        }
    };
    Git {
        old,
        new,
        ..Git::default()
    }
}

/// Takes one of git's extended header lines; false when `s` is not one.
fn git_extended(g: &mut Git, s: &str) -> bool {
    if s.starts_with("new file mode ") {
        g.new_file = true;
    } else if s.starts_with("deleted file mode ") {
        g.deleted_file = true;
    } else if let Some(name) = s.strip_prefix("rename from ") {
        g.rename = true;
        g.old = format!("a/{name}");
    } else if let Some(name) = s.strip_prefix("rename to ") {
        g.rename = true;
        g.new = format!("b/{name}");
    } else if let Some(name) = s.strip_prefix("copy from ") {
        g.copy = true;
        g.old = format!("a/{name}");
    } else if let Some(name) = s.strip_prefix("copy to ") {
        g.copy = true;
        g.new = format!("b/{name}");
    } else {
        return [
            "old mode ",
            "new mode ",
            "similarity index ",
            "dissimilarity index ",
            "index ",
        ]
        .iter()
        .any(|p| s.starts_with(p));
    }
    true
}
