//! File modes as `chmod` and `mkdir -m` take them: octal (`755`) or symbolic (`u+x,go-w`,
//! `a=r`, `+X`, `g=u`), parsed and applied the way GNU's `modechange.c` does.

/// Every bit a mode change may touch: permissions, setuid, setgid, sticky.
const ALL: u32 = 0o7777;
const SETUID: u32 = 0o4000;
const SETGID: u32 = 0o2000;
const STICKY: u32 = 0o1000;
const READ: u32 = 0o444;
const WRITE: u32 = 0o222;
const EXEC: u32 = 0o111;

/// Where one change takes its bits from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The bits given (`rwxst`, or octal).
    Given,
    /// Those bits, plus execute if the file is a directory or already executable (`X`).
    ExecIfAny,
    /// The file's own `u`, `g` or `o` bits, copied to every class (`g=u`).
    Copy,
}

/// One `op` clause: `u+x` is `{ op: '+', affected: u's bits, value: 0o111, .. }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Change {
    op: char,
    source: Source,
    /// The `ugoa` bits named; 0 when none was (the umask then limits the change).
    affected: u32,
    value: u32,
    /// Bits the clause names explicitly (a directory's setuid/setgid bits survive otherwise).
    mentioned: u32,
}

/// A parsed mode: the changes to apply in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModeChange(Vec<Change>);

impl ModeChange {
    /// Parses an octal or symbolic mode; None if it is not one.
    pub fn parse(text: &str) -> Option<ModeChange> {
        if text.starts_with(|c: char| c.is_digit(8)) {
            let mode = octal(text)?;
            // Up to 4 digits keep a directory's setuid/setgid bits unless they are set here.
            let mentioned = match text.len() < 5 {
                true => (mode & (SETUID | SETGID)) | STICKY | 0o777,
                false => ALL,
            };
            return Some(ModeChange(vec![equals(mode, mentioned)]));
        }
        let mut changes = Vec::new();
        for clause in text.split(',') {
            let ops_at = clause.find(['+', '-', '='])?;
            let mut affected = 0;
            for who in clause[..ops_at].chars() {
                affected |= match who {
                    'u' => SETUID | 0o700,
                    'g' => SETGID | 0o070,
                    'o' => STICKY | 0o007,
                    'a' => ALL,
                    _ => return None,
                };
            }
            let mut rest = &clause[ops_at..];
            while let Some(op) = rest.chars().next().filter(|c| "+-=".contains(*c)) {
                let end = rest[1..]
                    .find(['+', '-', '='])
                    .map_or(rest.len(), |i| i + 1);
                let what = &rest[1..end];
                // An octal value ends its clause (`+7-w` is invalid).
                if what.starts_with(|c: char| c.is_digit(8)) && end < rest.len() {
                    return None;
                }
                changes.push(action(op, affected, what)?);
                rest = &rest[end..];
            }
            if !rest.is_empty() {
                return None;
            }
        }
        Some(ModeChange(changes))
    }

    /// A mode copied from another file (`--reference`): every bit is set as given.
    pub fn exactly(mode: u32) -> ModeChange {
        ModeChange(vec![equals(mode & ALL, ALL)])
    }

    /// The mode after the changes, from `old`, for a directory or not, under `umask` (which
    /// limits clauses that name no `ugoa`).
    pub fn apply(&self, old: u32, is_dir: bool, umask: u32) -> u32 {
        let mut mode = old & ALL;
        for c in &self.0 {
            let omit = if is_dir { SETUID | SETGID } else { 0 } & !c.mentioned;
            let mut value = c.value;
            match c.source {
                Source::Given => {}
                Source::Copy => {
                    value &= mode;
                    let spread = |bits: u32| if value & bits != 0 { bits } else { 0 };
                    value |= spread(READ) | spread(WRITE) | spread(EXEC);
                }
                Source::ExecIfAny if is_dir || mode & EXEC != 0 => value |= EXEC,
                Source::ExecIfAny => {}
            }
            let limit = if c.affected != 0 { c.affected } else { !umask };
            value &= limit & !omit;
            mode = match c.op {
                '=' => {
                    let kept = if c.affected != 0 { !c.affected } else { 0 } | omit;
                    (mode & kept) | value
                }
                '+' => mode | value,
                _ => mode & !value,
            };
        }
        mode
    }
}

/// `=mode` over every bit, keeping what `mentioned` leaves out.
fn equals(mode: u32, mentioned: u32) -> Change {
    Change {
        op: '=',
        source: Source::Given,
        affected: ALL,
        value: mode,
        mentioned,
    }
}

/// An octal number of at most `0o7777` (leading zeros allowed).
fn octal(text: &str) -> Option<u32> {
    if text.is_empty() {
        return None;
    }
    text.chars().try_fold(0, |mode: u32, c| {
        let mode = mode * 8 + c.to_digit(8)?;
        (mode <= ALL).then_some(mode)
    })
}

/// The change after one operator: `rwxXst` letters, one of `ugo` (copy), or octal.
fn action(op: char, affected: u32, what: &str) -> Option<Change> {
    let (source, value) = match what {
        "u" => (Source::Copy, 0o700),
        "g" => (Source::Copy, 0o070),
        "o" => (Source::Copy, 0o007),
        _ if what.starts_with(|c: char| c.is_digit(8)) => {
            // `+755` is allowed, `u+755` is not: octal sets every class at once.
            if affected != 0 {
                return None;
            }
            return Some(Change {
                op,
                source: Source::Given,
                affected: ALL,
                value: octal(what)?,
                mentioned: ALL,
            });
        }
        _ => {
            let mut source = Source::Given;
            let mut value = 0;
            for letter in what.chars() {
                value |= match letter {
                    'r' => READ,
                    'w' => WRITE,
                    'x' => EXEC,
                    's' => SETUID | SETGID,
                    't' => STICKY,
                    'X' => {
                        source = Source::ExecIfAny;
                        0
                    }
                    _ => return None,
                };
            }
            (source, value)
        }
    };
    let mentioned = if affected != 0 {
        affected & value
    } else {
        value
    };
    Some(Change {
        op,
        source,
        affected,
        value,
        mentioned,
    })
}

#[cfg(test)]
mod tests {
    use super::ModeChange;

    /// The default umask.
    const UMASK: u32 = 0o022;

    /// The mode `text` gives a file (or directory) whose mode was `old`.
    fn apply(text: &str, old: u32, is_dir: bool) -> Option<u32> {
        ModeChange::parse(text).map(|m| m.apply(old, is_dir, UMASK))
    }

    #[test]
    fn octal_modes() {
        assert_eq!(apply("755", 0o644, false), Some(0o755));
        assert_eq!(apply("0", 0o644, false), Some(0));
        assert_eq!(apply("4711", 0o644, false), Some(0o4711));
        assert_eq!(apply("000644", 0o777, false), Some(0o644));
        // A directory keeps setgid unless five digits say otherwise.
        assert_eq!(apply("755", 0o2755, true), Some(0o2755));
        assert_eq!(apply("00755", 0o2755, true), Some(0o755));
        assert_eq!(apply("755", 0o2755, false), Some(0o755));
        for bad in ["8", "17777", "75x", ""] {
            assert_eq!(ModeChange::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn symbolic_modes() {
        assert_eq!(apply("+x", 0o644, false), Some(0o755));
        assert_eq!(apply("u+rw", 0o400, false), Some(0o600));
        assert_eq!(apply("go-w", 0o666, false), Some(0o644));
        assert_eq!(apply("a=r", 0o755, false), Some(0o444));
        assert_eq!(apply("u=rwx,g=rx,o=", 0o644, false), Some(0o750));
        assert_eq!(apply("u+x,g-r", 0o644, false), Some(0o704));
        assert_eq!(apply("=r", 0o755, false), Some(0o444));
        assert_eq!(apply("u-w+x", 0o644, false), Some(0o544));
        assert_eq!(apply("g=u", 0o640, false), Some(0o660));
        assert_eq!(apply("o=u-w", 0o750, false), Some(0o755));
        assert_eq!(apply("u+s,+t", 0o755, false), Some(0o5755));
        assert_eq!(apply("+7", 0o751, false), Some(0o757));
        assert_eq!(apply("a=rwxst+x", 0, false), Some(0o7777));
        for bad in ["q", "u+7", "x", "u", "u+q", "u+x,", "z=r", "+7-w"] {
            assert_eq!(ModeChange::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_umask_limits_clauses_without_who() {
        assert_eq!(apply("+w", 0o444, false), Some(0o644));
        assert_eq!(apply("-w", 0o666, false), Some(0o466));
        assert_eq!(apply("a+w", 0o444, false), Some(0o666));
    }

    #[test]
    fn capital_x_only_for_directories_and_executables() {
        assert_eq!(apply("a+X", 0o644, false), Some(0o644));
        assert_eq!(apply("a+X", 0o744, false), Some(0o755));
        assert_eq!(apply("a+X", 0o644, true), Some(0o755));
        assert_eq!(apply("go=X", 0o744, false), Some(0o711));
    }
}
