//! Printing an edit script: normal (`2c2`, `< old`, `---`, `> new`) and unified (`@@ -1,3
//! +1,3 @@`) formats, with `-B` dropping changes that only touch blank lines.

use super::analyze::{Change, Line};

/// How to print.
pub struct Style {
    /// `-B`.
    pub ignore_blank: bool,
    /// `-b`/`-w`: a line of white space counts as blank for `-B`.
    pub skip_white: bool,
}

/// Whether a line counts as blank for `-B`.
fn blank(line: &Line<'_>, style: &Style) -> bool {
    if style.skip_white {
        line.text
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\x0b' | b'\x0c' | b'\r'))
    } else {
        line.text.is_empty()
    }
}

/// Whether every line a change touches is blank (so `-B` hides it).
fn ignorable(c: &Change, a: &[Line<'_>], b: &[Line<'_>], style: &Style) -> bool {
    style.ignore_blank
        && a[c.line0..c.line0 + c.deleted]
            .iter()
            .all(|l| blank(l, style))
        && b[c.line1..c.line1 + c.inserted]
            .iter()
            .all(|l| blank(l, style))
}

/// Whether the script has a change that is printed (the exit status is 1 then).
pub fn has_changes(script: &[Change], a: &[Line<'_>], b: &[Line<'_>], style: &Style) -> bool {
    script.iter().any(|c| !ignorable(c, a, b, style))
}

fn push_line(out: &mut Vec<u8>, mark: &[u8], line: &Line<'_>) {
    out.extend_from_slice(mark);
    out.extend_from_slice(line.text);
    out.push(b'\n');
    if !line.complete {
        out.extend_from_slice(b"\\ No newline at end of file\n");
    }
}

/// `a,b` (1-based, inclusive) or `a`; an empty range prints the line before it.
fn range(first: usize, count: usize) -> String {
    match count {
        0 => first.to_string(),
        1 => (first + 1).to_string(),
        n => format!("{},{}", first + 1, first + n),
    }
}

/// The normal format: one hunk per change.
pub fn normal(script: &[Change], a: &[Line<'_>], b: &[Line<'_>], style: &Style) -> Vec<u8> {
    let mut out = Vec::new();
    for c in script.iter().filter(|c| !ignorable(c, a, b, style)) {
        let op = match (c.deleted, c.inserted) {
            (0, _) => 'a',
            (_, 0) => 'd',
            _ => 'c',
        };
        out.extend_from_slice(
            format!(
                "{}{op}{}\n",
                range(c.line0, c.deleted),
                range(c.line1, c.inserted)
            )
            .as_bytes(),
        );
        for line in &a[c.line0..c.line0 + c.deleted] {
            push_line(&mut out, b"< ", line);
        }
        if c.deleted > 0 && c.inserted > 0 {
            out.extend_from_slice(b"---\n");
        }
        for line in &b[c.line1..c.line1 + c.inserted] {
            push_line(&mut out, b"> ", line);
        }
    }
    out
}

/// `l,n` for a unified hunk header (`l,0` names the line before an empty range).
fn unified_range(first: usize, count: usize) -> String {
    match count {
        0 => format!("{first},0"),
        1 => (first + 1).to_string(),
        n => format!("{},{n}", first + 1),
    }
}

/// The two formats with context around changes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Around {
    /// `-u`: `@@ -1,3 +1,3 @@`, lines marked ` `, `-`, `+`.
    Unified,
    /// `-c`: `*** 1,3 ****` then `--- 1,3 ----`, lines marked `  `, `- `, `+ `, `! `.
    Context,
}

/// The unified or context format: changes closer than twice the context share a hunk.
pub fn with_context(
    script: &[Change],
    a: &[Line<'_>],
    b: &[Line<'_>],
    style: &Style,
    context: usize,
    around: Around,
) -> Vec<u8> {
    let mut out = Vec::new();
    let ignore: Vec<bool> = script.iter().map(|c| ignorable(c, a, b, style)).collect();
    let mut start = 0;
    while start < script.len() {
        let mut end = start;
        loop {
            let top0 = script[end].line0 + script[end].deleted;
            let Some(next) = script.get(end + 1) else {
                break;
            };
            let threshold = if ignore[end + 1] {
                context
            } else {
                2 * context + 1
            };
            if next.line0 - top0 >= threshold {
                break;
            }
            end += 1;
        }
        if ignore[start..=end].iter().any(|i| !i) {
            match around {
                Around::Unified => hunk(&mut out, &script[start..=end], a, b, context),
                Around::Context => context_hunk(&mut out, &script[start..=end], a, b, context),
            }
        }
        start = end + 1;
    }
    out
}

fn hunk(out: &mut Vec<u8>, changes: &[Change], a: &[Line<'_>], b: &[Line<'_>], context: usize) {
    let (Some(first), Some(last)) = (changes.first(), changes.last()) else {
        return;
    };
    let first0 = first.line0.saturating_sub(context);
    let first1 = first.line1.saturating_sub(context);
    let end0 = (last.line0 + last.deleted + context).min(a.len());
    let end1 = (last.line1 + last.inserted + context).min(b.len());
    let header = format!(
        "@@ -{} +{} @@\n",
        unified_range(first0, end0 - first0),
        unified_range(first1, end1 - first1)
    );
    out.extend_from_slice(header.as_bytes());
    let (mut i, mut j) = (first0, first1);
    let mut next = changes.iter().peekable();
    while i < end0 || j < end1 {
        match next.peek() {
            Some(c) if i >= c.line0 => {
                for line in &a[c.line0..c.line0 + c.deleted] {
                    push_line(out, b"-", line);
                }
                for line in &b[c.line1..c.line1 + c.inserted] {
                    push_line(out, b"+", line);
                }
                i += c.deleted;
                j += c.inserted;
                next.next();
            }
            _ => {
                if let Some(line) = a.get(i) {
                    push_line(out, b" ", line);
                }
                i += 1;
                j += 1;
            }
        }
    }
}

/// One hunk of the context format: the old lines (when some are deleted), then the new ones
/// (when some are inserted); a line of a change that both deletes and inserts is `!`.
fn context_hunk(
    out: &mut Vec<u8>,
    changes: &[Change],
    a: &[Line<'_>],
    b: &[Line<'_>],
    context: usize,
) {
    let (Some(first), Some(last)) = (changes.first(), changes.last()) else {
        return;
    };
    let first0 = first.line0.saturating_sub(context);
    let first1 = first.line1.saturating_sub(context);
    let end0 = (last.line0 + last.deleted + context).min(a.len());
    let end1 = (last.line1 + last.inserted + context).min(b.len());
    out.extend_from_slice(b"***************\n");
    let side = |out: &mut Vec<u8>, old: bool| {
        let (lines, start, end) = if old {
            (a, first0, end0)
        } else {
            (b, first1, end1)
        };
        let header = if old {
            format!("*** {} ****\n", range(start, end - start))
        } else {
            format!("--- {} ----\n", range(start, end - start))
        };
        out.extend_from_slice(header.as_bytes());
        let span = |c: &Change| {
            if old {
                (c.line0, c.deleted, c.inserted)
            } else {
                (c.line1, c.inserted, c.deleted)
            }
        };
        if changes.iter().all(|c| span(c).1 == 0) {
            return;
        }
        let mut i = start;
        for c in changes {
            let (at, count, other) = span(c);
            while i < at {
                push_line(out, b"  ", &lines[i]);
                i += 1;
            }
            let mark: &[u8] = match (other > 0, old) {
                (true, _) => b"! ",
                (false, true) => b"- ",
                (false, false) => b"+ ",
            };
            for line in &lines[at..at + count] {
                push_line(out, mark, line);
            }
            i = at + count;
        }
        while i < end {
            push_line(out, b"  ", &lines[i]);
            i += 1;
        }
    };
    side(out, true);
    side(out, false);
}
