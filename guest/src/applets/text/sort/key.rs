//! Sort keys: `-k POS1[,POS2]` parsing, the per-key ordering flags, and finding a key's
//! bytes in a line exactly as GNU's `begfield`/`limfield` do.

/// How a key's text is compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// Bytes (C locale).
    #[default]
    Text,
    /// `-n`: a decimal number, non-numbers as 0.
    Numeric,
    /// `-g`: floating point, conversion failures first.
    General,
    /// `-h`: numbers with K, M, G... suffixes.
    Human,
    /// `-M`: JAN < FEB < ... < DEC, unknown first.
    Month,
    /// `-V`: version numbers within text.
    Version,
    /// `-R`: by a hash of the key.
    Random,
}

/// Ordering flags of a key (or the global ones).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// The comparison.
    pub order: Order,
    /// `-r`.
    pub reverse: bool,
    /// `-f`: lower case as upper case.
    pub fold: bool,
    /// `-d`: only blanks and alphanumerics.
    pub dictionary: bool,
    /// `-i`: only printable characters.
    pub printable: bool,
    /// `-b` on the start position.
    pub blanks_start: bool,
    /// `-b` on the end position.
    pub blanks_end: bool,
    /// Every comparison asked for (`n`, `g`, `h`, `M`, `V`, `R` as bits in that order):
    /// `order` keeps only the last, GNU refuses some pairs.
    pub asked: u8,
}

impl Flags {
    /// Whether no ordering option is set (then the key inherits the global ones).
    pub fn is_default(&self) -> bool {
        self.order == Order::Text
            && !self.fold
            && !self.dictionary
            && !self.printable
            && !self.blanks_start
            && !self.blanks_end
    }

    /// Applies one option letter; false if it is not an ordering option. `end` says whether
    /// it follows POS2 (where `b` means blanks at the end).
    pub fn set(&mut self, letter: char, end: bool) -> bool {
        match letter {
            'b' if end => self.blanks_end = true,
            'b' => self.blanks_start = true,
            'd' => self.dictionary = true,
            'f' => self.fold = true,
            'i' => self.printable = true,
            'r' => self.reverse = true,
            _ => {
                let Some(bit) = ASKED.iter().position(|&(c, _)| c == letter) else {
                    return false;
                };
                self.order = ASKED[bit].1;
                self.asked |= 1 << bit;
            }
        }
        true
    }

    /// GNU's refusal of a key that mixes comparisons (`-n` with `-g`, `-V` with `-d`, `-R`
    /// with `-M`...): its message names the key's options in GNU's order.
    pub fn incompatible(&self) -> Option<String> {
        let asked = |c: char| {
            ASKED
                .iter()
                .position(|&(l, _)| l == c)
                .is_some_and(|b| self.asked & (1 << b) != 0)
        };
        let numeric = ['n', 'g', 'h', 'M'].iter().filter(|&&c| asked(c)).count();
        let other = asked('V') || asked('R') || self.dictionary || self.printable;
        if numeric + usize::from(other) < 2 {
            return None;
        }
        let letters = [
            ('d', self.dictionary),
            ('f', self.fold),
            ('g', asked('g')),
            ('h', asked('h')),
            ('i', self.printable),
            ('M', asked('M')),
            ('n', asked('n')),
            ('R', asked('R')),
            ('V', asked('V')),
        ];
        let letters: String = letters.iter().filter(|l| l.1).map(|l| l.0).collect();
        Some(format!("options '-{letters}' are incompatible"))
    }
}

/// The comparison letters, in the bit order of [`Flags::asked`].
const ASKED: [(char, Order); 6] = [
    ('n', Order::Numeric),
    ('g', Order::General),
    ('h', Order::Human),
    ('M', Order::Month),
    ('V', Order::Version),
    ('R', Order::Random),
];

/// A `-k` key: 0-based start field and character, end field and character (0 = the whole
/// end field), and its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// Start field, 0-based.
    pub sword: usize,
    /// Start character within it, 0-based.
    pub schar: usize,
    /// End field, 0-based; `usize::MAX` for the end of the line.
    pub eword: usize,
    /// End character, 1-based; 0 means the end of the field.
    pub echar: usize,
    /// Ordering flags.
    pub flags: Flags,
}

impl Key {
    /// The whole line with `flags` (the key GNU makes when there is no `-k`).
    pub fn whole(flags: Flags) -> Key {
        Key {
            sword: 0,
            schar: 0,
            eword: usize::MAX,
            echar: 0,
            flags,
        }
    }
}

/// Parses `F[.C][OPTS][,F[.C][OPTS]]`; the error is GNU's message.
pub fn parse_key(spec: &str) -> Result<Key, String> {
    let invalid = |why: &str| format!("{why}: invalid field specification '{spec}'");
    let mut flags = Flags::default();
    let (start, end) = match spec.split_once(',') {
        Some((start, end)) => (start, Some(end)),
        None => (spec, None),
    };
    let (sword, rest) = count(start).ok_or_else(|| {
        format!("invalid number at field start: invalid count at start of '{start}'")
    })?;
    if sword == 0 {
        return Err(invalid("field number is zero"));
    }
    let (schar, rest) = match rest.strip_prefix('.') {
        Some(after) => {
            let (c, rest) = count(after).ok_or_else(|| {
                format!("invalid number after '.': invalid count at start of '{after}'")
            })?;
            if c == 0 {
                return Err(invalid("character offset is zero"));
            }
            (c - 1, rest)
        }
        None => (0, rest),
    };
    letters(rest, &mut flags, false).map_err(|()| invalid("stray character in field spec"))?;
    let (eword, echar) = match end {
        None => (usize::MAX, 0),
        Some(end) => {
            let (ew, rest) = count(end).ok_or_else(|| {
                format!("invalid number after ',': invalid count at start of '{end}'")
            })?;
            if ew == 0 {
                return Err(invalid("field number is zero"));
            }
            let (ec, rest) = match rest.strip_prefix('.') {
                Some(after) => count(after).ok_or_else(|| {
                    format!("invalid number after '.': invalid count at start of '{after}'")
                })?,
                None => (0, rest),
            };
            letters(rest, &mut flags, true)
                .map_err(|()| invalid("stray character in field spec"))?;
            (ew - 1, ec)
        }
    };
    Ok(Key {
        sword: sword - 1,
        schar,
        eword,
        echar,
        flags,
    })
}

/// Leading digits as a number (saturating) and the rest; None without digits.
fn count(text: &str) -> Option<(usize, &str)> {
    let end = text
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len());
    if end == 0 {
        return None;
    }
    let n = text[..end].parse().unwrap_or(usize::MAX);
    Some((n, &text[end..]))
}

fn letters(text: &str, flags: &mut Flags, end: bool) -> Result<(), ()> {
    for c in text.chars() {
        if !flags.set(c, end) {
            return Err(());
        }
    }
    Ok(())
}

/// Blank characters: they separate fields when there is no `-t`.
pub fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

/// The bytes of `key` in `line` (without its terminator); `tab` is the `-t` separator.
pub fn key_text<'a>(line: &'a [u8], key: &Key, tab: Option<u8>) -> &'a [u8] {
    let start = begfield(line, key, tab);
    let end = limfield(line, key, tab);
    if end <= start {
        &line[start..start]
    } else {
        &line[start..end]
    }
}

fn skip_fields(
    line: &[u8],
    mut ptr: usize,
    mut count: usize,
    tab: Option<u8>,
    last: bool,
) -> usize {
    let lim = line.len();
    while ptr < lim && count > 0 {
        count -= 1;
        match tab {
            Some(t) => {
                while ptr < lim && line[ptr] != t {
                    ptr += 1;
                }
                // Step over the separator, except after the end field of a whole-field end.
                if ptr < lim && (count > 0 || last) {
                    ptr += 1;
                }
            }
            None => {
                while ptr < lim && is_blank(line[ptr]) {
                    ptr += 1;
                }
                while ptr < lim && !is_blank(line[ptr]) {
                    ptr += 1;
                }
            }
        }
    }
    ptr
}

fn begfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    let mut ptr = skip_fields(line, 0, key.sword, tab, true);
    if key.flags.blanks_start {
        while ptr < lim && is_blank(line[ptr]) {
            ptr += 1;
        }
    }
    (ptr + key.schar).min(lim)
}

fn limfield(line: &[u8], key: &Key, tab: Option<u8>) -> usize {
    let lim = line.len();
    if key.eword == usize::MAX {
        return lim;
    }
    let eword = if key.echar == 0 {
        key.eword + 1
    } else {
        key.eword
    };
    let mut ptr = skip_fields(line, 0, eword, tab, key.echar != 0);
    if key.echar != 0 {
        if key.flags.blanks_end {
            while ptr < lim && is_blank(line[ptr]) {
                ptr += 1;
            }
        }
        ptr = (ptr + key.echar).min(lim);
    }
    ptr
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text<'a>(line: &'a str, spec: &str, tab: Option<u8>) -> &'a str {
        let key = parse_key(spec).unwrap_or(Key::whole(Flags::default()));
        std::str::from_utf8(key_text(line.as_bytes(), &key, tab)).unwrap_or("?")
    }

    #[test]
    fn keys_like_gnu() {
        assert_eq!(text("a b c", "2", None), " b c");
        assert_eq!(text("a b c", "2,2", None), " b");
        assert_eq!(text("a b c", "2b,2", None), "b");
        assert_eq!(text("a:b:c", "2,2", Some(b':')), "b");
        assert_eq!(text("a:b:c", "2", Some(b':')), "b:c");
        assert_eq!(text("abc def", "1.2,1.3", None), "bc");
        assert_eq!(text("abc", "3", None), "");
        assert_eq!(
            parse_key("2,3nr").map(|k| (k.sword, k.eword, k.flags.reverse)),
            Ok((1, 2, true))
        );
        assert!(parse_key("0").is_err());
        assert!(parse_key("1x").is_err());
    }
}
