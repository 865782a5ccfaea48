//! Applying hunks to a file's lines as GNU patch does: each hunk is looked for where its
//! header says, shifted by the offset of the hunk before, then at growing distances (forward
//! first); when it is not found, again with up to `fuzz` of its outer context lines ignored.

use super::parse::{Format, Hunk, Line, Op};

/// A file split into lines.
pub fn lines_of(data: &[u8]) -> Vec<Line> {
    data.split_inclusive(|&b| b == b'\n')
        .map(|raw| match raw.strip_suffix(b"\n") {
            Some(body) => Line {
                text: body.to_vec(),
                newline: true,
            },
            None => Line {
                text: raw.to_vec(),
                newline: false,
            },
        })
        .collect()
}

/// Lines back to bytes.
pub fn bytes_of(lines: &[Line]) -> Vec<u8> {
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.text.len() + 1).sum());
    for line in lines {
        out.extend_from_slice(&line.text);
        if line.newline {
            out.push(b'\n');
        }
    }
    out
}

/// How lines are compared: exactly, or with runs of blanks equal (`-l`).
#[derive(Clone, Copy)]
pub struct Compare {
    pub ignore_whitespace: bool,
}

impl Compare {
    fn same(self, a: &[u8], b: &[u8]) -> bool {
        if !self.ignore_whitespace {
            return a == b;
        }
        // Runs of blanks match runs of blanks; blanks at the end do not count.
        let squeeze = |s: &[u8]| -> Vec<u8> {
            let mut out = Vec::with_capacity(s.len());
            for &b in s {
                let blank = b == b' ' || b == b'\t';
                if !(blank && out.last() == Some(&b' ')) {
                    out.push(if blank { b' ' } else { b });
                }
            }
            while out.last() == Some(&b' ') {
                out.pop();
            }
            out
        };
        squeeze(a) == squeeze(b)
    }
}

/// Where a hunk was placed: its first old line (1-based) and the fuzz it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub line: usize,
    pub fuzz: usize,
}

/// The line (1-based) where the hunk's old lines should start in the original file.
pub fn first_guess(hunk: &Hunk) -> usize {
    if hunk.old_len() == 0 {
        hunk.old_start + 1
    } else {
        hunk.old_start.max(1)
    }
}

/// Finds where `hunk` applies in `file` at or after line `from` (1-based), trying fuzz 0 up
/// to `max_fuzz`.
pub fn locate(
    file: &[Line],
    hunk: &Hunk,
    guess: i64,
    from: usize,
    max_fuzz: usize,
    cmp: Compare,
) -> Option<Place> {
    let (prefix, suffix) = hunk.context();
    let context = prefix.max(suffix);
    (0..=max_fuzz.min(context)).find_map(|fuzz| {
        locate_with(file, hunk, guess, from, fuzz, (prefix, suffix), cmp)
            .map(|line| Place { line, fuzz })
    })
}

fn locate_with(
    file: &[Line],
    hunk: &Hunk,
    guess: i64,
    from: usize,
    fuzz: usize,
    (prefix, suffix): (usize, usize),
    cmp: Compare,
) -> Option<usize> {
    let old: Vec<&Line> = hunk.old_lines().collect();
    let context = prefix.max(suffix);
    // A hunk with less context on one side than the other sits at that end of the file.
    let mut skip_front = (fuzz + prefix) as i64 - context as i64;
    let mut skip_back = (fuzz + suffix) as i64 - context as i64;
    let mut only = None;
    if skip_front < 0 {
        skip_front = 0;
        if hunk.old_start <= 1 {
            only = Some(1);
        }
    }
    if skip_back < 0 {
        skip_back = 0;
        only = Some((file.len() + 1).saturating_sub(old.len()).max(1));
    }
    let (front, back) = (skip_front as usize, skip_back as usize);
    let fits = |at: usize| -> bool {
        if at < from.max(1) || at - 1 + old.len() - back > file.len() {
            return false;
        }
        old[front..old.len() - back]
            .iter()
            .zip(&file[at - 1 + front..])
            .all(|(want, have)| cmp.same(&want.text, &have.text))
    };
    if let Some(at) = only {
        return fits(at).then_some(at);
    }
    let highest = (file.len() + 1 + back).saturating_sub(old.len()) as i64;
    let lowest = from.max(1) as i64;
    let mut offset = 0i64;
    loop {
        let (up, down) = (guess + offset, guess - offset);
        if up > highest && down < lowest {
            return None;
        }
        if up >= lowest && up <= highest && fits(up as usize) {
            return Some(up as usize);
        }
        if offset > 0 && down >= lowest && down <= highest && fits(down as usize) {
            return Some(down as usize);
        }
        offset += 1;
    }
}

/// Writes `hunk` placed at `at` into `out`: kept lines come from the file (so context that
/// fuzz ignored stays as the file has it), deleted ones are dropped, added ones inserted.
pub fn splice(file: &[Line], at: usize, hunk: &Hunk, out: &mut Vec<Line>) -> usize {
    let mut pos = at - 1;
    for op in &hunk.ops {
        match op {
            Op::Keep(l) => {
                out.push(file.get(pos).cloned().unwrap_or_else(|| l.clone()));
                pos += 1;
            }
            Op::Del(_) => pos += 1,
            Op::Add(l) => out.push(l.clone()),
        }
    }
    pos.min(file.len())
}

/// A reject file's text for `hunks`, in the patch's own format (normal diffs as context
/// diffs, as GNU does).
/// Each hunk comes with the lines added before it (its numbers move by as many).
pub fn rejects(format: Format, headers: (&str, &str), hunks: &[(&Hunk, i64)]) -> Vec<u8> {
    let mut out = Vec::new();
    match format {
        Format::Unified => {
            out.extend_from_slice(format!("--- {}\n+++ {}\n", headers.0, headers.1).as_bytes());
            for &(hunk, moved) in hunks {
                let at = |start: usize| (start as i64 + moved).max(0);
                let range = |start: usize, len: usize| match len {
                    1 => format!("{}", at(start)),
                    _ => format!("{},{len}", at(start)),
                };
                let header = format!(
                    "@@ -{} +{} @@\n",
                    range(hunk.old_start, hunk.old_len()),
                    range(hunk.new_start, hunk.new_len())
                );
                out.extend_from_slice(header.as_bytes());
                for op in &hunk.ops {
                    let (mark, line) = match op {
                        Op::Keep(l) => (b' ', l),
                        Op::Del(l) => (b'-', l),
                        Op::Add(l) => (b'+', l),
                    };
                    push_line(&mut out, &[mark], line);
                }
            }
        }
        Format::Context | Format::Normal => {
            out.extend_from_slice(format!("*** {}\n--- {}\n", headers.0, headers.1).as_bytes());
            for &(hunk, moved) in hunks {
                out.extend_from_slice(b"***************\n");
                let range = |start: usize, len: usize| {
                    let start = (start as i64 + moved).max(0);
                    match len {
                        0 | 1 => format!("{start}"),
                        _ => format!("{start},{}", start + len as i64 - 1),
                    }
                };
                let has = |del: bool| {
                    hunk.ops.iter().any(|op| {
                        if del {
                            matches!(op, Op::Del(_))
                        } else {
                            matches!(op, Op::Add(_))
                        }
                    })
                };
                let side = |out: &mut Vec<u8>, del: bool| {
                    for (i, op) in hunk.ops.iter().enumerate() {
                        let changed = |j: usize| {
                            hunk.ops.get(j).is_some_and(|o| {
                                if del {
                                    matches!(o, Op::Add(_))
                                } else {
                                    matches!(o, Op::Del(_))
                                }
                            })
                        };
                        match (op, del) {
                            (Op::Keep(l), _) => push_line(out, b"  ", l),
                            (Op::Del(l), true) | (Op::Add(l), false) => {
                                // A line replaced by others is `!`, a plain one `-`/`+`.
                                let replaced = (i + 1..hunk.ops.len())
                                    .take_while(|&j| !matches!(hunk.ops[j], Op::Keep(_)))
                                    .any(changed)
                                    || (0..i)
                                        .rev()
                                        .take_while(|&j| !matches!(hunk.ops[j], Op::Keep(_)))
                                        .any(changed);
                                let mark: &[u8] = match (replaced, del) {
                                    (true, _) => b"! ",
                                    (false, true) => b"- ",
                                    (false, false) => b"+ ",
                                };
                                push_line(out, mark, l);
                            }
                            _ => {}
                        }
                    }
                };
                out.extend_from_slice(
                    format!("*** {} ****\n", range(hunk.old_start, hunk.old_len())).as_bytes(),
                );
                if has(true) {
                    side(&mut out, true);
                }
                out.extend_from_slice(
                    format!("--- {} ----\n", range(hunk.new_start, hunk.new_len())).as_bytes(),
                );
                if has(false) {
                    side(&mut out, false);
                }
            }
        }
    }
    out
}

fn push_line(out: &mut Vec<u8>, mark: &[u8], line: &Line) {
    out.extend_from_slice(mark);
    out.extend_from_slice(&line.text);
    out.push(b'\n');
    if !line.newline {
        out.extend_from_slice(b"\\ No newline at end of file\n");
    }
}
