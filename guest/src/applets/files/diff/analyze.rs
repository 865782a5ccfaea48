//! Line comparison the way GNU diff does it, so that among equally short edit scripts the
//! same one is chosen: common prefix and suffix set aside (keeping `horizon` lines),
//! lines grouped into equivalence classes (per `-i`, `-b`, `-w`), lines without a match
//! discarded, Myers' O(ND) middle-snake search (with the cost cut-off GNU uses on big
//! inputs), then change boundaries shifted to merge and align hunks.

use std::borrow::Cow;
use std::collections::HashMap;

/// One line: its bytes without the newline, and whether it had one.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// The text.
    pub text: &'a [u8],
    /// False for a last line with no newline.
    pub complete: bool,
}

/// Splits `data` into lines.
pub fn lines(data: &[u8]) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        match rest.iter().position(|&b| b == b'\n') {
            Some(at) => {
                out.push(Line {
                    text: &rest[..at],
                    complete: true,
                });
                rest = &rest[at + 1..];
            }
            None => {
                out.push(Line {
                    text: rest,
                    complete: false,
                });
                rest = &[];
            }
        }
    }
    out
}

/// How white space is compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum White {
    /// Exactly.
    Exact,
    /// `-b`: runs of white space are one space; trailing white space is ignored.
    Change,
    /// `-w`: all white space is ignored.
    All,
}

/// What makes lines equal.
#[derive(Clone, Copy, Debug)]
pub struct Compare {
    /// `-i`.
    pub ignore_case: bool,
    /// `-b` / `-w`.
    pub white: White,
    /// `-d`: no discarding, no cost cut-off.
    pub minimal: bool,
    /// Lines of common prefix and suffix kept around the middle (the context width).
    pub horizon: usize,
}

/// A run of deleted and inserted lines: `deleted` lines of file 0 from `line0`, replaced by
/// `inserted` lines of file 1 from `line1` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// First line of file 0 involved.
    pub line0: usize,
    /// First line of file 1 involved.
    pub line1: usize,
    /// Lines deleted from file 0.
    pub deleted: usize,
    /// Lines inserted from file 1.
    pub inserted: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The text a line is compared by.
fn key<'a>(line: &Line<'a>, cmp: &Compare) -> Cow<'a, [u8]> {
    let mut text: Cow<'a, [u8]> = Cow::Borrowed(line.text);
    match cmp.white {
        White::Exact => {}
        White::All => text = Cow::Owned(text.iter().copied().filter(|&b| !is_space(b)).collect()),
        White::Change => {
            let mut out = Vec::with_capacity(text.len());
            let mut pending = false;
            for &b in text.iter() {
                if is_space(b) {
                    pending = true;
                    continue;
                }
                if pending {
                    out.push(b' ');
                    pending = false;
                }
                out.push(b);
            }
            text = Cow::Owned(out);
        }
    }
    if cmp.ignore_case {
        text = Cow::Owned(text.to_ascii_lowercase());
    }
    if !line.complete && cmp.white == White::Exact {
        // A last line without newline only equals the other file's last line without one.
        let mut owned = text.into_owned();
        owned.extend_from_slice(b"\n\0incomplete");
        text = Cow::Owned(owned);
    }
    text
}

fn same(a: &Line<'_>, b: &Line<'_>) -> bool {
    a.text == b.text && a.complete == b.complete
}

/// The edit script turning `a` into `b`.
pub fn diff<'a>(a: &[Line<'a>], b: &[Line<'a>], cmp: &Compare) -> Vec<Change> {
    let common = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
    let prefix = common - common.min(cmp.horizon);
    let max_suffix = (a.len() - prefix).min(b.len() - prefix);
    let common_end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| same(x, y))
        .count();
    let suffix = common_end - common_end.min(cmp.horizon);
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut classes: HashMap<Cow<'a, [u8]>, usize> = HashMap::new();
    let mut class_of = |line: &Line<'a>| {
        let next = classes.len() + 1;
        *classes.entry(key(line, cmp)).or_insert(next)
    };
    let eq0: Vec<usize> = a_mid.iter().map(&mut class_of).collect();
    let eq1: Vec<usize> = b_mid.iter().map(&mut class_of).collect();
    let classes = classes.len() + 1;
    let mut changed = [Flags::new(eq0.len()), Flags::new(eq1.len())];
    let kept = discard_confusing(&eq0, &eq1, classes, cmp.minimal, &mut changed);
    let mut ctx = Context::new(&kept[0].0, &kept[1].0, cmp.minimal);
    ctx.compare(0, kept[0].0.len(), 0, kept[1].0.len(), cmp.minimal);
    for &x in &ctx.deleted {
        changed[0].set(kept[0].1[x] as isize, true);
    }
    for &y in &ctx.inserted {
        changed[1].set(kept[1].1[y] as isize, true);
    }
    shift_boundaries(&eq0, &eq1, &mut changed);
    build_script(&changed, eq0.len(), eq1.len(), prefix)
}

/// Change flags with a false sentinel before and after, as GNU's loops rely on.
struct Flags(Vec<bool>);

impl Flags {
    fn new(len: usize) -> Self {
        Flags(vec![false; len + 2])
    }

    fn get(&self, i: isize) -> bool {
        usize::try_from(i + 1)
            .ok()
            .and_then(|i| self.0.get(i).copied())
            .unwrap_or(false)
    }

    fn set(&mut self, i: isize, value: bool) {
        if let Some(slot) = usize::try_from(i + 1).ok().and_then(|i| self.0.get_mut(i)) {
            *slot = value;
        }
    }
}

fn floor_log2(n: usize) -> u32 {
    usize::BITS - 1 - n.max(1).leading_zeros()
}

/// Drops lines with no match in the other file (and long runs of lines matching very many)
/// from the comparison, marking them changed. Returns, per file, the kept classes and the
/// real index of each.
fn discard_confusing(
    eq0: &[usize],
    eq1: &[usize],
    classes: usize,
    minimal: bool,
    changed: &mut [Flags; 2],
) -> [(Vec<usize>, Vec<usize>); 2] {
    let mut counts = [vec![0usize; classes], vec![0usize; classes]];
    for &c in eq0 {
        counts[0][c] += 1;
    }
    for &c in eq1 {
        counts[1][c] += 1;
    }
    let files = [eq0, eq1];
    let mut discards: [Vec<u8>; 2] = [vec![0; eq0.len()], vec![0; eq1.len()]];
    for f in 0..2 {
        let end = files[f].len();
        let many = if end < 64 {
            5
        } else {
            5usize << ((floor_log2(end) >> 1) - 3)
        };
        for (i, &c) in files[f].iter().enumerate() {
            let matches = counts[1 - f][c];
            discards[f][i] = if matches == 0 {
                1
            } else if matches > many {
                2
            } else {
                0
            };
        }
        settle_provisional(&mut discards[f]);
    }
    let mut kept: [(Vec<usize>, Vec<usize>); 2] = Default::default();
    for f in 0..2 {
        for (i, &c) in files[f].iter().enumerate() {
            if minimal || discards[f][i] == 0 {
                kept[f].0.push(c);
                kept[f].1.push(i);
            } else {
                changed[f].set(i as isize, true);
            }
        }
    }
    kept
}

/// Keeps provisional discards (2) only inside runs of discardable lines that start and end
/// with definite ones (1), and not in long stretches of provisionals.
fn settle_provisional(discards: &mut [u8]) {
    let end = discards.len();
    let mut i = 0;
    while i < end {
        if discards[i] == 2 {
            discards[i] = 0;
        } else if discards[i] != 0 {
            let mut provisional = 0;
            let mut j = i;
            while j < end && discards[j] != 0 {
                if discards[j] == 2 {
                    provisional += 1;
                }
                j += 1;
            }
            while j > i && discards[j - 1] == 2 {
                j -= 1;
                discards[j] = 0;
                provisional -= 1;
            }
            let length = j - i;
            if length >> 2 < provisional {
                for slot in &mut discards[i..j] {
                    if *slot == 2 {
                        *slot = 0;
                    }
                }
            } else {
                trim_run(discards, i, length);
            }
            i += length.max(1) - 1;
        }
        i += 1;
    }
}

/// Within a run of `length` discardable lines at `start`: cancels long sub-runs of
/// provisionals, and provisionals near either end before three definite ones in a row.
fn trim_run(discards: &mut [u8], start: usize, length: usize) {
    let minimum = if length < 4 {
        2
    } else {
        (1usize << ((floor_log2(length) >> 1) - 1)) + 1
    };
    let mut consec = 0;
    let mut j = 0;
    while j < length {
        if discards[start + j] != 2 {
            consec = 0;
        } else {
            consec += 1;
            if consec == minimum {
                // Back up to the start of this sub-run, to cancel all of it.
                j = j + 1 - consec;
                continue;
            } else if consec > minimum {
                discards[start + j] = 0;
            }
        }
        j += 1;
    }
    for forward in [true, false] {
        let mut consec = 0;
        for k in 0..length {
            let at = if forward {
                start + k
            } else {
                start + length - 1 - k
            };
            if k >= 8 && discards[at] == 1 {
                break;
            }
            if discards[at] == 2 {
                consec = 0;
                discards[at] = 0;
            } else if discards[at] == 0 {
                consec = 0;
            } else {
                consec += 1;
            }
            if consec == 3 {
                break;
            }
        }
    }
}

/// The state of the middle-snake search.
struct Context<'a> {
    x: &'a [usize],
    y: &'a [usize],
    fdiag: Vec<isize>,
    bdiag: Vec<isize>,
    offset: isize,
    too_expensive: isize,
    deleted: Vec<usize>,
    inserted: Vec<usize>,
}

/// Where a search split the problem, and whether each half is known minimal.
struct Split {
    xmid: isize,
    ymid: isize,
    lo_minimal: bool,
    hi_minimal: bool,
}

impl<'a> Context<'a> {
    fn new(x: &'a [usize], y: &'a [usize], minimal: bool) -> Self {
        let diags = x.len() + y.len() + 3;
        let expensive = 1isize << ((floor_log2(diags) >> 1) + 1);
        Context {
            x,
            y,
            fdiag: vec![0; diags],
            bdiag: vec![0; diags],
            offset: y.len() as isize + 1,
            too_expensive: if minimal {
                isize::MAX
            } else {
                expensive.max(4096)
            },
            deleted: Vec::new(),
            inserted: Vec::new(),
        }
    }

    fn fd(&self, d: isize) -> isize {
        self.fdiag[(d + self.offset) as usize]
    }

    fn set_fd(&mut self, d: isize, v: isize) {
        self.fdiag[(d + self.offset) as usize] = v;
    }

    fn bd(&self, d: isize) -> isize {
        self.bdiag[(d + self.offset) as usize]
    }

    fn set_bd(&mut self, d: isize, v: isize) {
        self.bdiag[(d + self.offset) as usize] = v;
    }

    fn eq(&self, i: isize, j: isize) -> bool {
        self.x[i as usize] == self.y[j as usize]
    }

    /// Compares `x[xoff..xlim]` with `y[yoff..ylim]`, recording deletions and insertions.
    fn compare(&mut self, xoff: usize, xlim: usize, yoff: usize, ylim: usize, minimal: bool) {
        let (mut xoff, mut xlim, mut yoff, mut ylim) =
            (xoff as isize, xlim as isize, yoff as isize, ylim as isize);
        while xoff < xlim && yoff < ylim && self.eq(xoff, yoff) {
            xoff += 1;
            yoff += 1;
        }
        while xoff < xlim && yoff < ylim && self.eq(xlim - 1, ylim - 1) {
            xlim -= 1;
            ylim -= 1;
        }
        if xoff == xlim {
            self.inserted.extend(yoff as usize..ylim as usize);
        } else if yoff == ylim {
            self.deleted.extend(xoff as usize..xlim as usize);
        } else {
            let split = self.middle(xoff, xlim, yoff, ylim, minimal);
            self.compare(
                xoff as usize,
                split.xmid as usize,
                yoff as usize,
                split.ymid as usize,
                split.lo_minimal,
            );
            self.compare(
                split.xmid as usize,
                xlim as usize,
                split.ymid as usize,
                ylim as usize,
                split.hi_minimal,
            );
        }
    }

    /// Finds the middle snake of the shortest edit script by searching forward from the
    /// start and backward from the end at once (Myers 1986, section 4.2).
    fn middle(
        &mut self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        minimal: bool,
    ) -> Split {
        let dmin = xoff - ylim;
        let dmax = xlim - yoff;
        let fmid = xoff - yoff;
        let bmid = xlim - ylim;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let odd = (fmid - bmid) & 1 != 0;
        self.set_fd(fmid, xoff);
        self.set_bd(bmid, xlim);
        let mut cost = 1;
        loop {
            if fmin > dmin {
                fmin -= 1;
                self.set_fd(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_fd(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let (lo, hi) = (self.fd(d - 1), self.fd(d + 1));
                let x0 = if lo < hi { hi } else { lo + 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while x < xlim && y < ylim && self.eq(x, y) {
                    x += 1;
                    y += 1;
                }
                self.set_fd(d, x);
                if odd && bmin <= d && d <= bmax && self.bd(d) <= x {
                    return Split {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if bmin > dmin {
                bmin -= 1;
                self.set_bd(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_bd(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let (lo, hi) = (self.bd(d - 1), self.bd(d + 1));
                let x0 = if lo < hi { lo } else { hi - 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while xoff < x && yoff < y && self.eq(x - 1, y - 1) {
                    x -= 1;
                    y -= 1;
                }
                self.set_bd(d, x);
                if !odd && fmin <= d && d <= fmax && x <= self.fd(d) {
                    return Split {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if !minimal && cost >= self.too_expensive {
                return self.give_up(xoff, xlim, yoff, ylim, (fmin, fmax), (bmin, bmax));
            }
            cost += 1;
        }
    }

    /// The search went on too long: split at the furthest point either search reached.
    fn give_up(
        &self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        f: (isize, isize),
        b: (isize, isize),
    ) -> Split {
        let (mut fxybest, mut fxbest) = (-1, 0);
        let mut d = f.1;
        while d >= f.0 {
            let mut x = self.fd(d).min(xlim);
            let mut y = x - d;
            if ylim < y {
                x = ylim + d;
                y = ylim;
            }
            if fxybest < x + y {
                fxybest = x + y;
                fxbest = x;
            }
            d -= 2;
        }
        let (mut bxybest, mut bxbest) = (isize::MAX, 0);
        let mut d = b.1;
        while d >= b.0 {
            let mut x = xoff.max(self.bd(d));
            let mut y = x - d;
            if y < yoff {
                x = yoff + d;
                y = yoff;
            }
            if x + y < bxybest {
                bxybest = x + y;
                bxbest = x;
            }
            d -= 2;
        }
        if (xlim + ylim) - bxybest < fxybest - (xoff + yoff) {
            Split {
                xmid: fxbest,
                ymid: fxybest - fxbest,
                lo_minimal: true,
                hi_minimal: false,
            }
        } else {
            Split {
                xmid: bxbest,
                ymid: bxybest - bxbest,
                lo_minimal: false,
                hi_minimal: true,
            }
        }
    }
}

/// Slides each run of changes over identical neighbouring lines so runs merge, and end where
/// a run in the other file ends (GNU's `shift_boundaries`).
fn shift_boundaries(eq0: &[usize], eq1: &[usize], changed: &mut [Flags; 2]) {
    for f in 0..2 {
        let equivs = if f == 0 { eq0 } else { eq1 };
        let (left, right) = changed.split_at_mut(1);
        let (this, other) = if f == 0 {
            (&mut left[0], &right[0])
        } else {
            (&mut right[0], &left[0])
        };
        shift_one(equivs, this, other);
    }
}

fn shift_one(equivs: &[usize], changed: &mut Flags, other: &Flags) {
    let i_end = equivs.len() as isize;
    let eqv = |k: isize| equivs[k as usize];
    let (mut i, mut j): (isize, isize) = (0, 0);
    loop {
        while i < i_end && !changed.get(i) {
            while other.get(j) {
                j += 1;
            }
            j += 1;
            i += 1;
        }
        if i == i_end {
            break;
        }
        let mut start = i;
        i += 1;
        while changed.get(i) {
            i += 1;
        }
        while other.get(j) {
            j += 1;
        }
        let mut corresponding;
        loop {
            let runlength = i - start;
            while start > 0 && eqv(start - 1) == eqv(i - 1) {
                start -= 1;
                changed.set(start, true);
                i -= 1;
                changed.set(i, false);
                while changed.get(start - 1) {
                    start -= 1;
                }
                j -= 1;
                while other.get(j) {
                    j -= 1;
                }
            }
            corresponding = if other.get(j - 1) { i } else { i_end };
            while i != i_end && eqv(start) == eqv(i) {
                changed.set(start, false);
                start += 1;
                changed.set(i, true);
                i += 1;
                while changed.get(i) {
                    i += 1;
                }
                loop {
                    j += 1;
                    if !other.get(j) {
                        break;
                    }
                    corresponding = i;
                }
            }
            if runlength == i - start {
                break;
            }
        }
        while corresponding < i {
            start -= 1;
            changed.set(start, true);
            i -= 1;
            changed.set(i, false);
            j -= 1;
            while other.get(j) {
                j -= 1;
            }
        }
    }
}

/// Turns the change flags into a forward list of changes, in whole-file line numbers.
fn build_script(changed: &[Flags; 2], len0: usize, len1: usize, prefix: usize) -> Vec<Change> {
    let mut script = Vec::new();
    let (mut i0, mut i1) = (0isize, 0isize);
    while i0 < len0 as isize || i1 < len1 as isize {
        if changed[0].get(i0) || changed[1].get(i1) {
            let (line0, line1) = (i0, i1);
            while changed[0].get(i0) {
                i0 += 1;
            }
            while changed[1].get(i1) {
                i1 += 1;
            }
            script.push(Change {
                line0: line0 as usize + prefix,
                line1: line1 as usize + prefix,
                deleted: (i0 - line0) as usize,
                inserted: (i1 - line1) as usize,
            });
        }
        i0 += 1;
        i1 += 1;
    }
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(a: &str, b: &str) -> Vec<(usize, usize, usize, usize)> {
        let cmp = Compare {
            ignore_case: false,
            white: White::Exact,
            minimal: false,
            horizon: 0,
        };
        diff(&lines(a.as_bytes()), &lines(b.as_bytes()), &cmp)
            .iter()
            .map(|c| (c.line0, c.line1, c.deleted, c.inserted))
            .collect()
    }

    #[test]
    fn scripts() {
        assert_eq!(run("a\nb\nc\n", "a\nb\nc\n"), vec![]);
        assert_eq!(run("a\nb\nc\n", "a\nc\n"), vec![(1, 1, 1, 0)]);
        assert_eq!(run("a\nc\n", "a\nb\nc\n"), vec![(1, 1, 0, 1)]);
        assert_eq!(run("a\nb\n", "a\nB\n"), vec![(1, 1, 1, 1)]);
        assert_eq!(run("", "x\n"), vec![(0, 0, 0, 1)]);
        assert_eq!(run("x", "x\n"), vec![(0, 0, 1, 1)]);
        // Shifting: the inserted copy of a repeated line goes after the run.
        assert_eq!(run("a\nb\nb\nc\n", "a\nb\nb\nb\nc\n"), vec![(3, 3, 0, 1)]);
    }

    #[test]
    fn provisional_runs() {
        let mut d = vec![1, 2, 2, 1];
        settle_provisional(&mut d);
        assert_eq!(d, vec![1, 0, 0, 1]);
        let mut d = vec![0, 2, 1, 0];
        settle_provisional(&mut d);
        assert_eq!(d, vec![0, 0, 1, 0]);
    }
}
