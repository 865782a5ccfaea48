//! Back-references (`\1`..`\9`), which the `regex` crate cannot express. The translation
//! writes each `\N` as a group named `bN_K` (see [`super::translate`]; its content, a
//! noncharacter, keeps `regex-syntax` from folding a repeated `\N` away); a pattern that
//! has one is parsed with `regex-syntax` and matched here by backtracking: every way is
//! tried and the longest match kept, as POSIX wants, within a step budget.

use regex_syntax::hir::{Class, Hir, HirKind, Look};
use regex_syntax::ParserBuilder;

use super::Spans;
use crate::limits::{MAX_BACKREF_PROGRAM, MAX_BACKREF_STEPS};

/// Steps between two looks at the execution's deadline: a search may run for up to
/// [`MAX_BACKREF_STEPS`] steps (a second or more), longer than the time limit.
const DEADLINE_EVERY: u64 = 1 << 8;

/// One instruction of a compiled pattern.
#[derive(Debug)]
enum Inst {
    /// These bytes, exactly.
    Bytes(Box<[u8]>),
    /// One character (UTF-8) in one of these ranges.
    Chars(Box<[(char, char)]>),
    /// One byte in one of these ranges.
    ByteRange(Box<[(u8, u8)]>),
    /// An assertion about the position.
    Look(Look),
    /// Go on at the first target; on failure, at the second.
    Split(usize, usize),
    Jump(usize),
    /// Record the position in a capture slot.
    Save(usize),
    /// Record the position where an unbounded loop's iteration starts.
    Mark(usize),
    /// Fail unless the iteration begun at the mark consumed something (no empty loops).
    Moved(usize),
    /// The text that group N matched, again (fails while the group is unset).
    Backref(usize),
    Match,
}

/// A pattern with back-references, compiled for backtracking.
#[derive(Debug)]
pub struct Backtrack {
    prog: Vec<Inst>,
    /// Capturing groups (without group 0).
    groups: usize,
    marks: usize,
    icase: bool,
    /// The byte before which `$` and after which `^` match in multi-line mode.
    eol: u8,
}

/// A search's working memory, reused from one start position to the next.
struct State {
    slots: Vec<Option<usize>>,
    marks: Vec<usize>,
    stack: Vec<Frame>,
}

/// What a step of the search puts aside.
enum Frame {
    Try(usize, usize),
    Slot(usize, Option<usize>),
    Mark(usize, usize),
}

impl Backtrack {
    /// Compiles `pattern` (a translation in `regex` syntax, with `(?P<bN_K>)` for `\N`).
    pub fn new(pattern: &str, icase: bool, multiline: bool, eol: u8) -> Result<Self, String> {
        let hir = ParserBuilder::new()
            .utf8(false)
            .dot_matches_new_line(true)
            .multi_line(multiline)
            .case_insensitive(icase)
            .build()
            .parse(pattern)
            .map_err(|e| e.to_string().lines().last().unwrap_or_default().to_string())?;
        let mut real = Vec::new();
        capture_indexes(&hir, &mut real);
        real.sort_unstable();
        let mut c = Compiler {
            prog: Vec::new(),
            real,
            marks: 0,
        };
        c.emit(&hir)?;
        c.prog.push(Inst::Match);
        Ok(Backtrack {
            groups: c.real.len(),
            prog: c.prog,
            marks: c.marks,
            icase,
            eol,
        })
    }

    /// The leftmost-longest match at or after `at`: its groups' positions.
    pub fn spans_at(&self, text: &[u8], at: usize) -> Option<Spans> {
        let mut steps = 0u64;
        let mut state = State {
            slots: vec![None; 2 * (self.groups + 1)],
            marks: vec![usize::MAX; self.marks],
            stack: Vec::new(),
        };
        if crate::task::out_of_time() {
            return None;
        }
        for start in at..=text.len() {
            if let Some(slots) = self.longest(text, start, &mut steps, &mut state) {
                let mut spans = vec![Some((start, slots[1].unwrap_or(start)))];
                spans.extend((1..=self.groups).map(|g| slots[2 * g].zip(slots[2 * g + 1])));
                return Some(spans);
            }
            if steps > MAX_BACKREF_STEPS {
                return None;
            }
        }
        None
    }

    /// The leftmost-longest match at or after `at`.
    pub fn find_at(&self, text: &[u8], at: usize) -> Option<(usize, usize)> {
        self.spans_at(text, at).and_then(|spans| spans[0])
    }

    /// The slots of the longest match that starts at `start` (slot 1: its end).
    fn longest(
        &self,
        text: &[u8],
        start: usize,
        steps: &mut u64,
        state: &mut State,
    ) -> Option<Vec<Option<usize>>> {
        let State {
            slots,
            marks,
            stack,
        } = state;
        slots.fill(None);
        marks.fill(usize::MAX);
        stack.clear();
        stack.push(Frame::Try(0, start));
        let mut best: Option<Vec<Option<usize>>> = None;
        while let Some(frame) = stack.pop() {
            let (mut pc, mut pos) = match frame {
                Frame::Try(pc, pos) => (pc, pos),
                Frame::Slot(slot, old) => {
                    slots[slot] = old;
                    continue;
                }
                Frame::Mark(mark, old) => {
                    marks[mark] = old;
                    continue;
                }
            };
            loop {
                *steps += 1;
                if *steps > MAX_BACKREF_STEPS {
                    return best;
                }
                if steps.is_multiple_of(DEADLINE_EVERY) && crate::task::out_of_time() {
                    // Out of time: no match, and no further start position is tried (the
                    // shell then ends the execution with the timeout).
                    *steps = u64::MAX;
                    return None;
                }
                match &self.prog[pc] {
                    Inst::Bytes(bytes) => {
                        if !text[pos..].starts_with(bytes) {
                            break;
                        }
                        pos += bytes.len();
                    }
                    Inst::Chars(ranges) => {
                        let Some((c, len)) = char_at(text, pos) else {
                            break;
                        };
                        if !ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) {
                            break;
                        }
                        pos += len;
                    }
                    Inst::ByteRange(ranges) => {
                        let Some(&b) = text.get(pos) else {
                            break;
                        };
                        if !ranges.iter().any(|&(lo, hi)| lo <= b && b <= hi) {
                            break;
                        }
                        pos += 1;
                    }
                    Inst::Look(look) => {
                        if !self.holds(*look, text, pos) {
                            break;
                        }
                    }
                    &Inst::Split(first, second) => {
                        stack.push(Frame::Try(second, pos));
                        pc = first;
                        continue;
                    }
                    &Inst::Jump(to) => {
                        pc = to;
                        continue;
                    }
                    &Inst::Save(slot) => {
                        stack.push(Frame::Slot(slot, slots[slot]));
                        slots[slot] = Some(pos);
                    }
                    &Inst::Mark(mark) => {
                        stack.push(Frame::Mark(mark, marks[mark]));
                        marks[mark] = pos;
                    }
                    &Inst::Moved(mark) => {
                        if marks[mark] == pos {
                            break;
                        }
                    }
                    &Inst::Backref(group) => {
                        let Some((s, e)) = slots[2 * group].zip(slots[2 * group + 1]) else {
                            break;
                        };
                        let (want, rest) = (&text[s..e], &text[pos..]);
                        *steps += want.len() as u64 / 16;
                        let same = rest.len() >= want.len()
                            && if self.icase {
                                want.eq_ignore_ascii_case(&rest[..want.len()])
                            } else {
                                want == &rest[..want.len()]
                            };
                        if !same {
                            break;
                        }
                        pos += want.len();
                    }
                    Inst::Match => {
                        if best.as_ref().is_none_or(|b| b[1] < Some(pos)) {
                            slots[1] = Some(pos);
                            best = Some(slots.clone());
                            if pos == text.len() {
                                return best; // nothing can be longer
                            }
                        }
                        break;
                    }
                }
                pc += 1;
            }
        }
        best
    }

    fn holds(&self, look: Look, text: &[u8], pos: usize) -> bool {
        let before = pos.checked_sub(1).map(|i| text[i]);
        let after = text.get(pos).copied();
        let word_before = word_ends_at(text, pos);
        let word_after = word_starts_at(text, pos);
        match look {
            Look::Start => pos == 0,
            Look::End => pos == text.len(),
            Look::StartLF | Look::StartCRLF => before.is_none_or(|b| b == self.eol),
            Look::EndLF | Look::EndCRLF => after.is_none_or(|b| b == self.eol),
            Look::WordAscii | Look::WordUnicode => word_before != word_after,
            Look::WordAsciiNegate | Look::WordUnicodeNegate => word_before == word_after,
            Look::WordStartAscii | Look::WordStartUnicode => !word_before && word_after,
            Look::WordEndAscii | Look::WordEndUnicode => word_before && !word_after,
            Look::WordStartHalfAscii | Look::WordStartHalfUnicode => !word_before,
            Look::WordEndHalfAscii | Look::WordEndHalfUnicode => !word_after,
        }
    }
}

/// The character starting at `pos` and its length in bytes (None at the end or on a byte
/// that does not start valid UTF-8).
fn char_at(text: &[u8], pos: usize) -> Option<(char, usize)> {
    let rest = text.get(pos..)?;
    let head = &rest[..rest.len().min(4)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    valid.chars().next().map(|c| (c, c.len_utf8()))
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn word_starts_at(text: &[u8], pos: usize) -> bool {
    char_at(text, pos).is_some_and(|(c, _)| is_word(c))
}

fn word_ends_at(text: &[u8], pos: usize) -> bool {
    (1..=pos.min(4)).any(|len| {
        std::str::from_utf8(&text[pos - len..pos])
            .ok()
            .and_then(|s| s.chars().next())
            .is_some_and(|c| c.len_utf8() == len && is_word(c))
    })
}

/// The `regex-syntax` indexes of the real capturing groups (not the `bN` placeholders).
fn capture_indexes(hir: &Hir, out: &mut Vec<u32>) {
    match hir.kind() {
        HirKind::Capture(cap) => {
            if cap.name.is_none() {
                out.push(cap.index);
            }
            capture_indexes(&cap.sub, out);
        }
        HirKind::Repetition(rep) => capture_indexes(&rep.sub, out),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().for_each(|sub| capture_indexes(sub, out));
        }
        _ => {}
    }
}

struct Compiler {
    prog: Vec<Inst>,
    /// Real groups' `regex-syntax` indexes, in order: group N is at N - 1.
    real: Vec<u32>,
    marks: usize,
}

impl Compiler {
    fn push(&mut self, inst: Inst) -> Result<usize, String> {
        if self.prog.len() >= MAX_BACKREF_PROGRAM {
            return Err("regular expression is too big".into());
        }
        self.prog.push(inst);
        Ok(self.prog.len() - 1)
    }

    fn emit(&mut self, hir: &Hir) -> Result<(), String> {
        match hir.kind() {
            HirKind::Empty => {}
            HirKind::Literal(lit) => {
                self.push(Inst::Bytes(lit.0.clone()))?;
            }
            HirKind::Class(Class::Unicode(class)) => {
                let ranges = class.ranges().iter().map(|r| (r.start(), r.end()));
                self.push(Inst::Chars(ranges.collect()))?;
            }
            HirKind::Class(Class::Bytes(class)) => {
                let ranges = class.ranges().iter().map(|r| (r.start(), r.end()));
                self.push(Inst::ByteRange(ranges.collect()))?;
            }
            HirKind::Look(look) => {
                self.push(Inst::Look(*look))?;
            }
            HirKind::Capture(cap) => match cap.name.as_deref() {
                Some(name) => {
                    let digits = name[1..].split('_').next().unwrap_or_default();
                    let group = digits.parse::<usize>().map_err(|e| e.to_string())?;
                    self.push(Inst::Backref(group))?;
                }
                None => {
                    let group = 1 + self.real.iter().position(|&i| i == cap.index).unwrap_or(0);
                    self.push(Inst::Save(2 * group))?;
                    self.emit(&cap.sub)?;
                    self.push(Inst::Save(2 * group + 1))?;
                }
            },
            HirKind::Concat(subs) => {
                for sub in subs {
                    self.emit(sub)?;
                }
            }
            HirKind::Alternation(subs) => {
                let mut jumps = Vec::new();
                for (i, sub) in subs.iter().enumerate() {
                    let split = (i + 1 < subs.len()).then(|| self.push(Inst::Split(0, 0)));
                    let split = split.transpose()?;
                    self.emit(sub)?;
                    if let Some(split) = split {
                        jumps.push(self.push(Inst::Jump(0))?);
                        self.prog[split] = Inst::Split(split + 1, self.prog.len());
                    }
                }
                let end = self.prog.len();
                for jump in jumps {
                    self.prog[jump] = Inst::Jump(end);
                }
            }
            HirKind::Repetition(rep) => {
                for _ in 0..rep.min {
                    self.emit(&rep.sub)?;
                }
                let order = |body: usize, exit: usize| {
                    if rep.greedy {
                        Inst::Split(body, exit)
                    } else {
                        Inst::Split(exit, body)
                    }
                };
                match rep.max {
                    None => {
                        let mark = self.marks;
                        self.marks += 1;
                        let head = self.push(Inst::Split(0, 0))?;
                        self.push(Inst::Mark(mark))?;
                        self.emit(&rep.sub)?;
                        self.push(Inst::Moved(mark))?;
                        self.push(Inst::Jump(head))?;
                        self.prog[head] = order(head + 1, self.prog.len());
                    }
                    Some(max) => {
                        let mut splits = Vec::new();
                        for _ in rep.min..max {
                            splits.push(self.push(Inst::Split(0, 0))?);
                            self.emit(&rep.sub)?;
                        }
                        let end = self.prog.len();
                        for split in splits {
                            self.prog[split] = order(split + 1, end);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(pattern: &str, text: &str) -> Option<(usize, usize)> {
        Backtrack::new(pattern, false, false, b'\n')
            .expect("compiles")
            .find_at(text.as_bytes(), 0)
    }

    #[test]
    fn back_references_match_what_their_group_matched() {
        assert_eq!(find("(a|b)(?P<b1_0>\\x{FFFF})", "xabba"), Some((2, 4)));
        assert_eq!(find("(.)(?P<b1_0>\\x{FFFF})", "abcdde"), Some((3, 5)));
        assert_eq!(
            find("^(.*)\n(?P<b1_0>\\x{FFFF})$", "abc\nabc"),
            Some((0, 7))
        );
        assert_eq!(find("^(.*)\n(?P<b1_0>\\x{FFFF})$", "abc\nabd"), None);
        assert_eq!(find("(a*)(?P<b1_0>\\x{FFFF})b", "aaaab"), Some((0, 5)));
        assert_eq!(find("(a*)(?P<b1_0>\\x{FFFF})b", "aaab"), Some((1, 4)));
    }

    #[test]
    fn the_longest_match_wins_and_empty_loops_end() {
        assert_eq!(
            find("(a|ab)(c|bcd)(?P<b1_0>\\x{FFFF})?", "abcd"),
            Some((0, 4))
        );
        assert_eq!(find("(a*)*(?P<b1_0>\\x{FFFF})", "aaa"), Some((0, 3)));
        assert_eq!(find("(x)(?P<b1_0>\\x{FFFF}){2,3}", "xxxxx"), Some((0, 4)));
    }

    #[test]
    fn hostile_patterns_stop_at_the_budget() {
        let text = "a".repeat(64);
        assert_eq!(find("((a*)*)*(?P<b1_0>\\x{FFFF})b", &text), None);
    }

    #[test]
    fn a_search_looks_at_the_deadline() {
        let deadline = std::rc::Rc::new(crate::task::Deadline::default());
        deadline.set(Some(crate::task::now()));
        let _running = deadline.enter();
        let text = "a".repeat(5000);
        assert_eq!(find("((a*)*)*(?P<b1_0>\\x{FFFF})b", &text), None);
        assert!(deadline.fired(), "the search never looked at the clock");
    }

    #[test]
    fn groups_are_numbered_without_the_placeholders() {
        let re = Backtrack::new(
            "(a)(?P<b1_0>\\x{FFFF})(b)(?P<b2_0>\\x{FFFF})",
            false,
            false,
            b'\n',
        )
        .expect("compiles");
        assert_eq!(
            re.spans_at(b"aabb", 0),
            Some(vec![Some((0, 4)), Some((0, 1)), Some((2, 3))])
        );
    }
}
