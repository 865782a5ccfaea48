//! Snapshots of the writable areas, in a compact binary format, and their restoration.
//!
//! Format (little-endian): the magic `CVFS` and a version byte, then the node records of the
//! writable areas in [`WRITABLE`] order: versions 3 and 2 have all four (`/workspace`, `/tmp`,
//! `/state`, `/cache`); version 1, written before `/state` and `/cache` existed, has the first
//! two and restores with the others empty. A node record is its kind byte (0 file, 1 directory,
//! 2 symlink), `u32` mode, `f64` mtime in ms, then for a file a `u64` length and the bytes, for
//! a symlink a `u32` length and the target, for a directory a `u32` entry count and, per entry
//! in name order, a `u32` name length, the name and the entry's node record.
//!
//! Version 3 adds hard links: an entry whose node was already recorded under another name is
//! the kind byte 3 and a `u32` index, that node's position among the file and symlink records
//! before it (counting from 0, in snapshot order). Versions 1 and 2 have no such records.
//!
//! The input to `restore` may be hostile (the host keeps snapshots outside the guest): every
//! length is checked against what is left, names and targets are validated like paths, the
//! quotas apply, and nesting is walked with an explicit stack, never recursion.

use std::collections::HashMap;
use std::rc::Rc;

use super::error::{Errno, VfsError};
use super::node::{Data, Ino, Node};
use super::path::{self, NAME_MAX};
use super::tree::Tree;
use super::{Vfs, WRITABLE};

const MAGIC: &[u8; 5] = b"CVFS\x03";
/// The snapshot versions [`Vfs::restore`] reads, each with how many writable areas it records.
const VERSIONS: [(u8, usize); 3] = [(1, 2), (2, WRITABLE.len()), (3, WRITABLE.len())];
/// The first version with hard-link records.
const HARD_LINKS_SINCE: u8 = 3;
const FILE: u8 = 0;
const DIR: u8 = 1;
const LINK: u8 = 2;
/// Another name of a node recorded before (version 3).
const HARD_LINK: u8 = 3;

/// A snapshot in pieces: records copied into `bytes`, large file contents referenced where
/// they are, so that taking a snapshot does not copy the files (see [`Vfs::snapshot_pieces`]).
pub struct Pieces<'a> {
    /// The copied parts.
    pub bytes: Vec<u8>,
    /// The snapshot, in order: ranges of `bytes`, and file contents in place.
    pub pieces: Vec<Piece<'a>>,
}

/// One part of a [`Pieces`] snapshot.
pub enum Piece<'a> {
    /// A range of [`Pieces::bytes`].
    Copied(std::ops::Range<usize>),
    /// A file's contents, where the file keeps them.
    Shared(&'a [u8]),
}

impl Vfs {
    /// Everything in the writable areas (kinds, modes, mtimes, contents, link targets),
    /// as bytes that [`Vfs::restore`] turns back into the same tree.
    pub fn snapshot(&self) -> Vec<u8> {
        encode(&self.tree, usize::MAX).bytes
    }

    /// The bytes of [`Vfs::snapshot`] as pieces whose concatenation they are: file contents of
    /// `share_from` bytes or more are referenced, not copied.
    pub fn snapshot_pieces(&self, share_from: usize) -> Pieces<'_> {
        encode(&self.tree, share_from)
    }

    /// Replaces the writable areas with the contents of a snapshot, all or nothing.
    /// Malformed input fails with EINVAL (path `snapshot`); one over the quotas with ENOSPC or
    /// EFBIG. Inode numbers are reassigned.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<(), VfsError> {
        self.generation += 1;
        let tree = decode(bytes, &self.tree).map_err(|code| VfsError::new(code, "snapshot"))?;
        self.tree = tree;
        Ok(())
    }
}

/// An encoding under way: `bytes` from `copied_from` on are not yet in a piece.
struct Encoder<'a> {
    bytes: Vec<u8>,
    pieces: Vec<Piece<'a>>,
    copied_from: usize,
    share_from: usize,
}

impl<'a> Encoder<'a> {
    /// File contents: referenced when large, else copied.
    fn contents(&mut self, contents: &'a [u8]) {
        if contents.len() < self.share_from {
            self.bytes.extend_from_slice(contents);
            return;
        }
        self.cut();
        self.pieces.push(Piece::Shared(contents));
    }

    /// Closes the copied range under way.
    fn cut(&mut self) {
        if self.copied_from < self.bytes.len() {
            self.pieces
                .push(Piece::Copied(self.copied_from..self.bytes.len()));
            self.copied_from = self.bytes.len();
        }
    }
}

fn encode(tree: &Tree, share_from: usize) -> Pieces<'_> {
    let mut encoder = Encoder {
        bytes: MAGIC.to_vec(),
        pieces: Vec::new(),
        copied_from: 0,
        share_from,
    };
    let out = &mut encoder;
    // Nodes with several names, by slot: their index among the file and symlink records.
    let mut linked: HashMap<Ino, u32> = HashMap::new();
    let mut records = 0u32;
    // Pre-order with an explicit stack: a directory's record, then each child's in name order.
    let mut stack: Vec<(Option<&str>, Ino)> =
        tree.writable.iter().rev().map(|&ino| (None, ino)).collect();
    while let Some((name, ino)) = stack.pop() {
        if let Some(name) = name {
            put_u32_bytes(&mut out.bytes, name.as_bytes());
        }
        let Ok(node) = tree.node(ino) else {
            encode_node(&mut out.bytes, &Node::file(Rc::default(), 0.0));
            continue;
        };
        if !node.is_dir() {
            // Only a node with several names can have been recorded before.
            if node.links > 1 {
                if let Some(index) = linked.get(&ino) {
                    out.bytes.push(HARD_LINK);
                    out.bytes.extend_from_slice(&index.to_le_bytes());
                    continue;
                }
                linked.insert(ino, records);
            }
            records += 1;
        }
        let contents = encode_node(&mut out.bytes, node);
        out.contents(contents);
        if let Data::Dir(entries) = &node.data {
            stack.extend(entries.iter().rev().map(|(n, &i)| (Some(n.as_str()), i)));
        }
    }
    encoder.cut();
    Pieces {
        bytes: encoder.bytes,
        pieces: encoder.pieces,
    }
}

/// A node's own record (a directory's entries follow it), but for a file's contents, which it
/// returns: they come next.
fn encode_node<'n>(out: &mut Vec<u8>, node: &'n Node) -> &'n [u8] {
    let kind = match node.data {
        Data::Dir(_) => DIR,
        Data::Symlink(_) => LINK,
        Data::File(_) | Data::Device(_) => FILE,
    };
    out.push(kind);
    out.extend_from_slice(&node.mode.to_le_bytes());
    out.extend_from_slice(&node.mtime_ms.to_le_bytes());
    match &node.data {
        Data::File(bytes) => {
            out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
            return bytes;
        }
        Data::Symlink(target) => put_u32_bytes(out, target.as_bytes()),
        Data::Dir(entries) => out.extend_from_slice(&(entries.len() as u32).to_le_bytes()),
        // Never in a writable area; written as an empty file to keep the record well-formed.
        Data::Device(_) => out.extend_from_slice(&0u64.to_le_bytes()),
    }
    &[]
}

fn put_u32_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// A fresh tree with `current`'s skeleton and limits, filled from `bytes`.
fn decode(bytes: &[u8], current: &Tree) -> Result<Tree, Errno> {
    let mut input = Input { bytes };
    let magic = &MAGIC[..MAGIC.len() - 1];
    if input.take(magic.len())? != magic {
        return Err(Errno::EINVAL);
    }
    let version = input.array::<1>()?[0];
    let (_, areas) = VERSIONS
        .into_iter()
        .find(|&(known, _)| known == version)
        .ok_or(Errno::EINVAL)?;
    let mut tree = Tree::skeleton(current.limits, current.boot_ms);
    for (path, bytes) in &current.system {
        tree.add_system_file(path, Rc::clone(bytes))?;
    }
    let mut records = Records {
        hard_links: version >= HARD_LINKS_SINCE,
        files: Vec::new(),
    };
    for root in tree.writable.into_iter().take(areas) {
        let (node, count) = input.node()?;
        let count = count.ok_or(Errno::EINVAL)?;
        *tree.nodes.get_mut(root)? = node;
        decode_entries(&mut input, &mut tree, &mut records, root, count)?;
    }
    match input.bytes.is_empty() {
        true => Ok(tree),
        false => Err(Errno::EINVAL),
    }
}

/// What a decoding has seen of file and symlink records, for hard-link records to refer to.
struct Records {
    /// Whether the version has hard-link records.
    hard_links: bool,
    /// The slot of each file and symlink record so far, in order.
    files: Vec<Ino>,
}

/// Reads the `count` entries of directory `root` and everything below them.
fn decode_entries(
    input: &mut Input,
    tree: &mut Tree,
    records: &mut Records,
    root: Ino,
    count: u32,
) -> Result<(), Errno> {
    // A duplicate name or an impossible link is a malformed snapshot; quotas stay quotas.
    let malformed = |e| match e {
        Errno::EEXIST | Errno::EMLINK | Errno::EPERM => Errno::EINVAL,
        other => other,
    };
    let mut stack = vec![(root, count)];
    while let Some((dir, left)) = stack.last_mut() {
        let dir = *dir;
        if *left == 0 {
            stack.pop();
            continue;
        }
        *left -= 1;
        let name = input.name()?;
        // Attaching stamps the parent; with its own recorded mtime that changes nothing.
        let stamp = tree.node(dir)?.mtime_ms;
        if let Some(index) = input.hard_link(records.hard_links)? {
            let ino = records.files.get(index as usize).ok_or(Errno::EINVAL)?;
            tree.link(dir, name, *ino, stamp).map_err(malformed)?;
            continue;
        }
        let (node, count) = input.node()?;
        let ino = tree.attach(dir, name, node, stamp).map_err(malformed)?;
        match count {
            Some(count) => stack.push((ino, count)),
            None => records.files.push(ino),
        }
    }
    Ok(())
}

/// The unread rest of a snapshot.
struct Input<'a> {
    bytes: &'a [u8],
}

impl<'a> Input<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], Errno> {
        if len > self.bytes.len() {
            return Err(Errno::EINVAL);
        }
        let (head, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Errno> {
        self.take(N)?.try_into().map_err(|_| Errno::EINVAL)
    }

    fn u32(&mut self) -> Result<u32, Errno> {
        self.array().map(u32::from_le_bytes)
    }

    fn len_u64(&mut self) -> Result<usize, Errno> {
        let len = u64::from_le_bytes(self.array()?);
        usize::try_from(len).map_err(|_| Errno::EINVAL)
    }

    fn text(&mut self) -> Result<&'a str, Errno> {
        let len = self.u32()? as usize;
        std::str::from_utf8(self.take(len)?).map_err(|_| Errno::EINVAL)
    }

    /// An entry name: what a path component can be.
    fn name(&mut self) -> Result<&'a str, Errno> {
        let name = self.text()?;
        let bad = name.is_empty() || name == "." || name == "..";
        if bad || name.len() > NAME_MAX || name.contains(['/', '\0']) {
            return Err(Errno::EINVAL);
        }
        Ok(name)
    }

    /// The index of a hard-link record, if one comes next (and `allowed` in this version).
    fn hard_link(&mut self, allowed: bool) -> Result<Option<u32>, Errno> {
        if !allowed || self.bytes.first() != Some(&HARD_LINK) {
            return Ok(None);
        }
        self.take(1)?;
        self.u32().map(Some)
    }

    /// A node record; for a directory also its entry count (the entries follow).
    fn node(&mut self) -> Result<(Node, Option<u32>), Errno> {
        let kind = self.array::<1>()?[0];
        let mode = self.u32()?;
        let mtime = f64::from_le_bytes(self.array()?);
        if mode > 0o7777 || !mtime.is_finite() {
            return Err(Errno::EINVAL);
        }
        let (data, count) = match kind {
            FILE => {
                let len = self.len_u64()?;
                (Data::File(Rc::new(self.take(len)?.to_vec())), None)
            }
            DIR => (Data::Dir(Default::default()), Some(self.u32()?)),
            LINK => {
                let target = self.text()?;
                path::check(target).map_err(|_| Errno::EINVAL)?;
                (Data::Symlink(target.to_string()), None)
            }
            _ => return Err(Errno::EINVAL),
        };
        Ok((Node::with(data, mode, mtime), count))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Errno, FileKind, VfsLimits, VfsUsage, WORKSPACE, WRITABLE};
    use super::*;

    const W: &str = WORKSPACE;

    /// Every node under the writable areas as one line: path, kind, mode, mtime, size,
    /// contents or target.
    fn dump(vfs: &Vfs) -> Vec<String> {
        let mut lines = Vec::new();
        let mut todo: Vec<String> = WRITABLE.iter().map(|area| area.to_string()).collect();
        while let Some(path) = todo.pop() {
            let Ok(s) = vfs.lstat("/", &path) else {
                lines.push(format!("{path} missing"));
                continue;
            };
            let body = match s.kind {
                FileKind::File => format!("{:?}", vfs.read("/", &path).unwrap_or_default()),
                FileKind::Symlink => vfs.read_link("/", &path).unwrap_or_default(),
                _ => String::new(),
            };
            let head = format!("{path} {:?} {:o} {} {}", s.kind, s.mode, s.mtime_ms, s.size);
            lines.push(format!("{head} {body}"));
            for (name, _) in vfs.read_dir("/", &path).unwrap_or_default() {
                todo.push(format!("{path}/{name}"));
            }
        }
        lines
    }

    fn sample() -> Vfs {
        let mut vfs = vfs();
        let ok = [
            vfs.mkdir_all(W, "src/deep/er"),
            vfs.write(W, "src/main.rs", b"fn main() {}\n"),
            vfs.write(W, "bin.dat", &[0, 255, 10, 13, 0]),
            vfs.write(W, "empty", b""),
            vfs.symlink(W, "src/main.rs", "link"),
            vfs.symlink(W, "/nowhere/at/all", "dangling"),
            vfs.write("/tmp", "t", "ünïcode".as_bytes()),
            vfs.set_mode(W, "bin.dat", 0o600),
            vfs.set_mtime(W, "src", Some(-12.5)),
            vfs.set_mode("/tmp", "t", 0o400),
            vfs.write("/state", "turn.json", b"{}"),
            vfs.mkdir_all("/cache", "api/v1"),
        ];
        assert!(ok.iter().all(Result::is_ok), "{ok:?}");
        vfs
    }

    #[test]
    fn pieces_concatenate_to_the_snapshot_and_share_large_files() {
        let vfs = sample();
        for share_from in [0, 1, 5, 6, usize::MAX] {
            let pieces = vfs.snapshot_pieces(share_from);
            let mut joined = Vec::new();
            for piece in &pieces.pieces {
                match piece {
                    Piece::Copied(range) => joined.extend_from_slice(&pieces.bytes[range.clone()]),
                    Piece::Shared(contents) => joined.extend_from_slice(contents),
                }
            }
            assert_eq!(joined, vfs.snapshot(), "share_from {share_from}");
        }
        let shared = vfs.snapshot_pieces(6).pieces;
        let sizes: Vec<usize> = shared
            .iter()
            .filter_map(|p| match p {
                Piece::Shared(contents) => Some(contents.len()),
                Piece::Copied(_) => None,
            })
            .collect();
        assert_eq!(sizes, vec![13, 9]); // src/main.rs and /tmp/t; not bin.dat (5 bytes)
    }

    #[test]
    fn round_trip_is_exact() {
        let original = sample();
        let bytes = original.snapshot();
        let mut copy = vfs();
        assert_eq!(copy.restore(&bytes), Ok(()));
        assert_eq!(dump(&copy), dump(&original));
        assert_eq!(copy.snapshot(), bytes);
        assert_eq!(copy.usage(), original.usage());
        assert_eq!(
            copy.usage(),
            VfsUsage {
                bytes: 55,
                files: 12
            }
        );
        assert_eq!(text(&copy, "link"), "fn main() {}\n");
        assert_eq!(text(&copy, "/state/turn.json"), "{}");
        assert_eq!(ls(&copy, "/cache/api"), ["v1/"]);
    }

    #[test]
    fn hard_links_round_trip_across_areas() {
        let mut original = sample();
        let ok = [
            original.link(W, "src/main.rs", "main-again", false),
            original.link(W, "src/main.rs", "/tmp/main", false),
            original.link(W, "link", "/state/link2", false),
            original.link(W, "empty", "src/deep/empty", false),
        ];
        assert!(ok.iter().all(Result::is_ok), "{ok:?}");
        let bytes = original.snapshot();
        assert_eq!(bytes[4], 3);
        let mut copy = vfs();
        assert_eq!(copy.restore(&bytes), Ok(()));
        assert_eq!(dump(&copy), dump(&original));
        assert_eq!(copy.snapshot(), bytes);
        assert_eq!(copy.usage(), original.usage());
        let ino = |vfs: &Vfs, p: &str| vfs.lstat(W, p).map(|s| (s.ino, s.nlink));
        let main = ino(&copy, "src/main.rs");
        assert_eq!(main.as_ref().map(|m| m.1), Ok(3));
        assert_eq!(ino(&copy, "/tmp/main"), main);
        assert_eq!(ino(&copy, "main-again"), main);
        assert_eq!(ino(&copy, "/state/link2"), ino(&copy, "link"));
        assert_eq!(ino(&copy, "src/deep/empty").map(|m| m.1), Ok(2));
        put(&mut copy, "/tmp/main", "changed");
        assert_eq!(text(&copy, "src/main.rs"), "changed");
    }

    #[test]
    fn restores_version_2_and_refuses_links_in_it() {
        let v3 = sample().snapshot();
        let mut v2 = v3.clone();
        v2[4] = 2;
        let mut vfs = vfs();
        assert_eq!(vfs.restore(&v2), Ok(()));
        assert_eq!(vfs.snapshot(), v3);
        // /workspace holding "a" (an empty file) and "b", a hard link to it.
        let dir = |count: u32| {
            [
                &[DIR][..],
                &0o755u32.to_le_bytes(),
                &[0; 8],
                &count.to_le_bytes(),
            ]
            .concat()
        };
        let file = [&[FILE][..], &0o644u32.to_le_bytes(), &[0; 8], &[0; 8]].concat();
        let entry =
            |name: &str, record: &[u8]| [&1u32.to_le_bytes()[..], name.as_bytes(), record].concat();
        let linked = |version: u8, index: u32| {
            let hard = [&[HARD_LINK][..], &index.to_le_bytes()].concat();
            let empty = dir(0);
            let magic = [&MAGIC[..4], &[version]].concat();
            [
                &magic[..],
                &dir(2),
                &entry("a", &file),
                &entry("b", &hard),
                &empty,
                &empty,
                &empty,
            ]
            .concat()
        };
        assert_eq!(vfs.restore(&linked(3, 0)), Ok(()));
        assert_eq!(vfs.stat(W, "b").map(|s| s.nlink), Ok(2));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 0, files: 2 });
        assert_eq!(code(vfs.restore(&linked(3, 1))), Some(Errno::EINVAL));
        assert_eq!(code(vfs.restore(&linked(2, 0))), Some(Errno::EINVAL));
        assert_eq!(vfs.stat(W, "b").map(|s| s.nlink), Ok(2));
    }

    #[test]
    fn restore_replaces_everything_writable() {
        let mut vfs = sample();
        let empty = super::super::testing::vfs().snapshot();
        assert_eq!(vfs.restore(&empty), Ok(()));
        assert!(WRITABLE.iter().all(|area| ls(&vfs, area).is_empty()));
        assert_eq!(vfs.usage(), VfsUsage::default());
        assert_eq!(ls(&vfs, "/usr"), ["bin/"]);
    }

    #[test]
    fn system_files_survive_a_restore_and_stay_out_of_snapshots() {
        let mut vfs = sample();
        assert_eq!(
            vfs.add_system_file("/tools/index.d.ts", b"x".to_vec()),
            Ok(())
        );
        let snapshot = vfs.snapshot();
        assert_eq!(snapshot, sample().snapshot());
        assert_eq!(vfs.restore(&snapshot), Ok(()));
        assert_eq!(text(&vfs, "/tools/index.d.ts"), "x");
        assert_eq!(
            code(vfs.write(WORKSPACE, "/tools/index.d.ts", b"")),
            Some(Errno::EACCES)
        );
        assert_eq!(vfs.usage(), sample().usage());
    }

    #[test]
    fn restore_enforces_quotas_and_keeps_old_state_on_failure() {
        let bytes = sample().snapshot();
        let limits = VfsLimits {
            max_files: 5,
            ..VfsLimits::default()
        };
        let mut small = vfs_with(limits);
        put(&mut small, "keep", "me");
        let e = small.restore(&bytes).err();
        assert_eq!(e, Some(VfsError::new(Errno::ENOSPC, "snapshot")));
        assert_eq!(ls(&small, "."), ["keep"]);
        let e = small
            .restore(b"CVFS\x01garbage")
            .err()
            .map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("snapshot: Invalid argument"));
        assert_eq!(text(&small, "keep"), "me");
    }

    #[test]
    fn rejects_malformed_snapshots() {
        let good = sample().snapshot();
        let mut vfs = vfs();
        let mut bad = |bytes: &[u8]| code(vfs.restore(bytes));
        assert_eq!(bad(b""), Some(Errno::EINVAL));
        assert_eq!(bad(&good[..good.len() - 1]), Some(Errno::EINVAL));
        assert_eq!(bad(&[good.as_slice(), b"x"].concat()), Some(Errno::EINVAL));
        let mut wrong_version = good.clone();
        wrong_version[4] = 4;
        assert_eq!(bad(&wrong_version), Some(Errno::EINVAL));
        // A root that is a file, a bad mode, a name with a slash, a duplicate name.
        let mode = 0o755u32.to_le_bytes();
        let dir = |count: u32| [&[DIR][..], &mode, &[0; 8], &count.to_le_bytes()].concat();
        let file = [&[FILE][..], &0o644u32.to_le_bytes(), &[0; 8], &[0; 8]].concat();
        let named = |name: &str| {
            [
                &(name.len() as u32).to_le_bytes()[..],
                name.as_bytes(),
                &file,
            ]
            .concat()
        };
        let empty = dir(0);
        let snap = |entries: &[u8]| [&MAGIC[..], &dir(2), entries, &empty, &empty, &empty].concat();
        assert_eq!(bad(&snap(&[named("a"), named("b")].concat())), None);
        assert_eq!(
            bad(&snap(&[named("a"), named("a")].concat())),
            Some(Errno::EINVAL)
        );
        assert_eq!(
            bad(&snap(&[named("a"), named("b/c")].concat())),
            Some(Errno::EINVAL)
        );
        assert_eq!(
            bad(&snap(&[named("a"), named("..")].concat())),
            Some(Errno::EINVAL)
        );
        assert_eq!(
            bad(&snap(&[named("a"), named("")].concat())),
            Some(Errno::EINVAL)
        );
        let rootfile = [&MAGIC[..], &file, &dir(0)].concat();
        assert_eq!(bad(&rootfile), Some(Errno::EINVAL));
    }

    #[test]
    fn restores_version_1_with_empty_state_and_cache() {
        let dir = |count: u32| {
            [
                &[DIR][..],
                &0o755u32.to_le_bytes(),
                &[0; 8],
                &count.to_le_bytes(),
            ]
            .concat()
        };
        let file = [
            &[FILE][..],
            &0o644u32.to_le_bytes(),
            &[0; 8],
            &2u64.to_le_bytes(),
            b"hi",
        ]
        .concat();
        let v1 = [
            &b"CVFS\x01"[..],
            &dir(1),
            &1u32.to_le_bytes(),
            b"a",
            &file,
            &dir(0),
        ]
        .concat();
        let mut vfs = sample();
        assert_eq!(vfs.restore(&v1), Ok(()));
        assert_eq!(text(&vfs, "a"), "hi");
        assert!(ls(&vfs, "/state").is_empty() && ls(&vfs, "/cache").is_empty());
        assert_eq!(vfs.usage(), VfsUsage { bytes: 2, files: 1 });
        let extra = [v1.as_slice(), &dir(0)].concat();
        assert_eq!(code(vfs.restore(&extra)), Some(Errno::EINVAL));
    }

    /// A tiny xorshift: deterministic noise without a dependency.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn garbage_never_panics() {
        let good = sample().snapshot();
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut vfs = vfs();
        let mut accepted = 0;
        for round in 0..600 {
            let bytes: Vec<u8> = if round % 2 == 0 {
                let len = (rng.next() % 300) as usize;
                let mut noise: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                if round % 4 == 0 {
                    noise.splice(0..0, MAGIC.iter().copied());
                }
                noise
            } else {
                // A valid snapshot with a few bytes flipped and perhaps cut short.
                let mut bytes = good.clone();
                for _ in 0..(1 + rng.next() % 4) {
                    let i = (rng.next() as usize) % bytes.len();
                    bytes[i] = rng.next() as u8;
                }
                bytes.truncate(bytes.len() - (rng.next() % 3) as usize);
                bytes
            };
            if vfs.restore(&bytes).is_ok() {
                accepted += 1;
                // Whatever was accepted must be a consistent tree that round-trips.
                let again = vfs.snapshot();
                assert_eq!(vfs.restore(&again), Ok(()));
                assert_eq!(vfs.snapshot(), again);
            }
        }
        assert!(accepted < 600);
    }
}
