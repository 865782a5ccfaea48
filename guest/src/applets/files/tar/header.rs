//! The 512-byte tar header: writing POSIX ustar (with GNU `L`/`K` records for names too long
//! for it) and reading ustar, GNU and pax headers.

/// A block of the archive.
pub const BLOCK: usize = 512;

/// What an archive member is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A hard link to an earlier member.
    HardLink,
    /// Something this sandbox cannot hold (device, FIFO...).
    Other(u8),
}

/// One member's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The path in the archive (`d/`, `d/a`).
    pub name: String,
    /// File, directory, link...
    pub kind: Kind,
    /// Permission bits.
    pub mode: u32,
    /// Bytes of content that follow the header.
    pub size: u64,
    /// Modification time, seconds since the epoch.
    pub mtime: i64,
    /// A link's target.
    pub link: String,
    /// Owner and group names.
    pub owner: (String, String),
}

fn put_octal(field: &mut [u8], value: u64) {
    let width = field.len() - 1;
    let text = format!("{value:0width$o}");
    let bytes = text.as_bytes();
    let start = bytes.len().saturating_sub(width);
    field[..width].copy_from_slice(&bytes[start..]);
    field[width] = 0;
}

fn put_str(field: &mut [u8], value: &str) {
    let bytes = value.as_bytes();
    let n = bytes.len().min(field.len());
    field[..n].copy_from_slice(&bytes[..n]);
}

/// Splits a long name into ustar's prefix (≤155) and name (≤100) at a `/`.
fn split_name(name: &str) -> Option<(&str, &str)> {
    if name.len() <= 100 {
        return Some(("", name));
    }
    let bytes = name.as_bytes();
    (0..bytes.len())
        .rev()
        .filter(|&i| bytes[i] == b'/')
        .find_map(|i| {
            let (prefix, rest) = (&name[..i], &name[i + 1..]);
            (prefix.len() <= 155 && rest.len() <= 100 && !rest.is_empty()).then_some((prefix, rest))
        })
}

fn raw_header(
    name: &str,
    prefix: &str,
    typeflag: u8,
    m: &Member,
    size: u64,
    link: &str,
) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    put_str(&mut h[0..100], name);
    put_octal(&mut h[100..108], u64::from(m.mode & 0o7777));
    put_octal(&mut h[108..116], 1000);
    put_octal(&mut h[116..124], 1000);
    put_octal(&mut h[124..136], size);
    put_octal(&mut h[136..148], m.mtime.max(0) as u64);
    h[156] = typeflag;
    put_str(&mut h[157..257], link);
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    put_str(&mut h[265..297], &m.owner.0);
    put_str(&mut h[297..329], &m.owner.1);
    put_str(&mut h[345..500], prefix);
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&b| u32::from(b)).sum();
    let text = format!("{sum:06o}\0 ");
    h[148..156].copy_from_slice(text.as_bytes());
    h
}

/// A GNU long-name (`L`) or long-link (`K`) record: a header and the padded text.
fn long_record(typeflag: u8, text: &str, m: &Member) -> Vec<u8> {
    let mut data = text.as_bytes().to_vec();
    data.push(0);
    let header = raw_header("././@LongLink", "", typeflag, m, data.len() as u64, "");
    let mut out = header.to_vec();
    out.extend_from_slice(&data);
    out.resize(out.len() + padding(data.len() as u64), 0);
    out
}

/// Zero bytes that bring `len` to a whole number of blocks.
pub fn padding(len: u64) -> usize {
    ((BLOCK as u64 - len % BLOCK as u64) % BLOCK as u64) as usize
}

/// The header block(s) for `m`.
pub fn encode(m: &Member) -> Vec<u8> {
    let typeflag = match m.kind {
        Kind::File => b'0',
        Kind::Dir => b'5',
        Kind::Symlink => b'2',
        Kind::HardLink => b'1',
        Kind::Other(t) => t,
    };
    let mut out = Vec::new();
    let link = if m.link.len() > 100 {
        out.extend(long_record(b'K', &m.link, m));
        &m.link[..100]
    } else {
        &m.link
    };
    let size = if m.kind == Kind::File { m.size } else { 0 };
    match split_name(&m.name) {
        Some((prefix, name)) => {
            out.extend_from_slice(&raw_header(name, prefix, typeflag, m, size, link))
        }
        None => {
            out.extend(long_record(b'L', &m.name, m));
            let short: String = m.name.chars().take(100).collect();
            out.extend_from_slice(&raw_header(&short, "", typeflag, m, size, link));
        }
    }
    out
}

fn field_str(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

fn field_num(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        // GNU base-256 for big numbers.
        return Some(
            field[1..]
                .iter()
                .fold(0u64, |n, &b| (n << 8) | u64::from(b)),
        );
    }
    let text = field_str(field);
    let text = text.trim_matches(|c: char| c == ' ' || c == '\0');
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

/// What a header block says.
pub enum Block {
    /// All zeros: the end of the archive.
    End,
    /// A member header, with its type flag (`L`, `K`, `x` are extensions).
    Header(u8, Member),
}

/// Decodes a header block; None when it is not one (bad checksum or numbers).
pub fn decode(h: &[u8]) -> Option<Block> {
    let h = h.get(..BLOCK)?;
    if h.iter().all(|&b| b == 0) {
        return Some(Block::End);
    }
    let stored = field_num(&h[148..156])?;
    let sum: u64 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u64::from(b)
            }
        })
        .sum();
    if stored != sum {
        return None;
    }
    let typeflag = h[156];
    let mut name = field_str(&h[0..100]);
    if &h[257..262] == b"ustar" && h[262] == 0 {
        let prefix = field_str(&h[345..500]);
        if !prefix.is_empty() {
            name = format!("{prefix}/{name}");
        }
    }
    let kind = match typeflag {
        b'0' | 0 | b'7' if name.ends_with('/') => Kind::Dir,
        b'0' | 0 | b'7' => Kind::File,
        b'5' => Kind::Dir,
        b'2' => Kind::Symlink,
        b'1' => Kind::HardLink,
        other => Kind::Other(other),
    };
    let member = Member {
        name,
        kind,
        mode: field_num(&h[100..108])? as u32 & 0o7777,
        size: field_num(&h[124..136])?,
        mtime: field_num(&h[136..148])? as i64,
        link: field_str(&h[157..257]),
        owner: (field_str(&h[265..297]), field_str(&h[297..329])),
    };
    Some(Block::Header(typeflag, member))
}

/// The `path` and `linkpath` records of a pax extended header.
pub fn pax_records(data: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(space) = rest.iter().position(|&b| b == b' ') {
        let Some(len) = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
        else {
            break;
        };
        if len == 0 || len > rest.len() {
            break;
        }
        let record = String::from_utf8_lossy(&rest[space + 1..len]).into_owned();
        if let Some((key, value)) = record.trim_end_matches('\n').split_once('=') {
            out.push((key.to_string(), value.to_string()));
        }
        rest = &rest[len..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(name: &str, kind: Kind) -> Member {
        Member {
            name: name.to_string(),
            kind,
            mode: 0o644,
            size: 5,
            mtime: 1_700_000_000,
            link: String::new(),
            owner: ("user".into(), "user".into()),
        }
    }

    #[test]
    fn headers_round_trip() {
        let m = member("d/a", Kind::File);
        let block = encode(&m);
        assert_eq!(block.len(), BLOCK);
        match decode(&block) {
            Some(Block::Header(b'0', back)) => assert_eq!(back, m),
            _ => unreachable!("not a header"),
        }
        let long = format!("{}/{}", "n".repeat(60), "m".repeat(60));
        let block = encode(&member(&long, Kind::File));
        assert_eq!(block.len(), BLOCK);
        assert!(matches!(decode(&block), Some(Block::Header(_, ref back)) if back.name == long));
        let longer = "x".repeat(150);
        let blocks = encode(&member(&longer, Kind::File));
        assert_eq!(blocks.len(), 3 * BLOCK);
        assert!(matches!(decode(&blocks), Some(Block::Header(b'L', _))));
        assert!(matches!(decode(&[0u8; BLOCK]), Some(Block::End)));
        let mut bad = encode(&m);
        bad[0] ^= 1;
        assert!(decode(&bad).is_none());
        assert_eq!(padding(5), 507);
        assert_eq!(padding(512), 0);
        assert_eq!(
            pax_records(b"16 path=a/b/cde\n11 x=yz12\n"),
            vec![("path".into(), "a/b/cde".into())]
        );
    }
}
