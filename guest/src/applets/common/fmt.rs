//! How metadata prints: `-rw-r--r--` mode strings, human sizes (`4.0K`), block counts; and
//! text's case changed as GNU tools change it.

use crate::vfs::{FileKind, Stat};

/// `drwxr-xr-x`-style mode string, with setuid/setgid/sticky letters as `ls` shows them.
pub fn mode_string(kind: FileKind, mode: u32) -> String {
    let mut s = String::with_capacity(10);
    s.push(match kind {
        FileKind::File => '-',
        FileKind::Dir => 'd',
        FileKind::Symlink => 'l',
        FileKind::CharDevice => 'c',
    });
    let special = [(0o4000, 's', 'S'), (0o2000, 's', 'S'), (0o1000, 't', 'T')];
    for (who, (bit, lower, upper)) in special.iter().enumerate() {
        let shift = 6 - 3 * who as u32;
        let bits = (mode >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        let exec = bits & 1 != 0;
        s.push(match (mode & bit != 0, exec) {
            (true, true) => *lower,
            (true, false) => *upper,
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    s
}

/// What `stat %F` calls a node.
pub fn type_name(stat: &Stat) -> &'static str {
    match stat.kind {
        FileKind::File if stat.size == 0 => "regular empty file",
        FileKind::File => "regular file",
        FileKind::Dir => "directory",
        FileKind::Symlink => "symbolic link",
        FileKind::CharDevice => "character special file",
    }
}

/// KiB of disk a node would take on ext4 (4 KiB blocks; symlinks and devices take none):
/// what `ls -s`, `ls -l`'s total and `stat`'s block count report.
pub fn blocks_kib(stat: &Stat) -> u64 {
    match stat.kind {
        FileKind::File => stat.size.div_ceil(4096) * 4,
        FileKind::Dir => 4,
        FileKind::Symlink | FileKind::CharDevice => 0,
    }
}

/// Whether `ls -l` shows a time as `Nov 14 22:13` (recent) rather than `Nov 14  2023`: within
/// the last six months. A minute in the future still counts, since file times and "now" may
/// come from clocks read a moment apart (GNU re-reads its clock for the same reason).
pub fn recent(mtime_secs: f64, now_secs: f64) -> bool {
    mtime_secs > now_secs - 15_778_476.0 && mtime_secs <= now_secs + 60.0
}

const SUFFIXES: [&str; 9] = ["", "K", "M", "G", "T", "P", "E", "Z", "Y"];

/// A size the way `-h` prints it: powers of 1024, rounded up, one decimal below 10
/// (`1023`, `1.1K`, `11K`, `1.0M`).
pub fn human(bytes: u64) -> String {
    if bytes < 1024 {
        return bytes.to_string();
    }
    let bytes = u128::from(bytes);
    let (mut exp, mut unit) = (0usize, 1u128);
    while bytes / unit >= 1024 && exp < 8 {
        unit *= 1024;
        exp += 1;
    }
    let suffix = SUFFIXES[exp];
    if bytes / unit < 10 {
        let tenths = (bytes * 10).div_ceil(unit);
        return match tenths {
            t if t < 100 => format!("{}.{}{suffix}", t / 10, t % 10),
            _ => format!("10{suffix}"),
        };
    }
    let amount = bytes.div_ceil(unit);
    if amount == 1024 && exp < 8 {
        return format!("1.0{}", SUFFIXES[exp + 1]);
    }
    format!("{amount}{suffix}")
}

/// `s` in upper or lower case (awk's `toupper`, sed's `\\U`): character for character as C's
/// `towupper` maps them, so a character without a one-character mapping (`ß`) stays; invalid
/// bytes are kept.
pub fn map_case(s: &[u8], upper: bool) -> Vec<u8> {
    if s.is_ascii() {
        return if upper {
            s.to_ascii_uppercase()
        } else {
            s.to_ascii_lowercase()
        };
    }
    let mut out = Vec::with_capacity(s.len());
    for chunk in s.utf8_chunks() {
        for c in chunk.valid().chars() {
            let one = if upper {
                single(c.to_uppercase())
            } else {
                single(c.to_lowercase())
            };
            let c = one.unwrap_or(c);
            out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes());
        }
        out.extend_from_slice(chunk.invalid());
    }
    out
}

/// The only character of `chars`, if it has exactly one.
fn single(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let first = chars.next()?;
    chars.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes_match_ls_h() {
        let cases = [
            (0, "0"),
            (1023, "1023"),
            (1024, "1.0K"),
            (1025, "1.1K"),
            (1536, "1.5K"),
            (10240, "10K"),
            (10241, "11K"),
            (102400, "100K"),
            (1048576, "1.0M"),
            (1048577, "1.1M"),
            (5000000, "4.8M"),
            (123456789, "118M"),
            (10239, "10K"),
            (1048575, "1.0M"),
        ];
        for (bytes, want) in cases {
            assert_eq!(human(bytes), want, "{bytes}");
        }
    }

    #[test]
    fn recent_times() {
        let now = 1_700_000_000.0;
        assert!(recent(now, now) && recent(now + 30.0, now) && recent(now - 86_400.0, now));
        assert!(!recent(now + 3600.0, now) && !recent(now - 15_778_477.0, now));
    }

    #[test]
    fn mode_strings() {
        assert_eq!(mode_string(FileKind::Dir, 0o755), "drwxr-xr-x");
        assert_eq!(mode_string(FileKind::File, 0o644), "-rw-r--r--");
        assert_eq!(mode_string(FileKind::Symlink, 0o777), "lrwxrwxrwx");
        assert_eq!(mode_string(FileKind::File, 0o4755), "-rwsr-xr-x");
        assert_eq!(mode_string(FileKind::Dir, 0o1777), "drwxrwxrwt");
        assert_eq!(mode_string(FileKind::File, 0o2640), "-rw-r-S---");
    }
}
