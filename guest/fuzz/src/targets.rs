//! The fuzz targets: each takes arbitrary bytes and must return (accepting or rejecting them)
//! without panicking, overflowing the stack or hanging. Shared by the fuzz driver
//! (`src/main.rs`) and by the guest's regression test (`guest/tests/fuzz_regressions.rs`),
//! which replays every saved input in `guest/fuzz/regressions/<target>/`.

use corral_guest::applets::parsers;
use corral_guest::protocol::{Config, Frame, Job, Resume};
use corral_guest::shell;
use corral_guest::vfs::{FileKind, Vfs, VfsLimits};

/// A fuzz target: a name (the folder of its regressions) and the function that takes an input.
pub type Target = (&'static str, fn(&[u8]));

/// Every target, by name.
pub const TARGETS: &[Target] = &[
    ("shell", shell_parser),
    ("arith", shell_arith),
    ("awk", awk),
    ("sed", sed),
    ("bc", bc),
    ("jq", jq),
    ("jq-json", jq_json),
    ("protocol", protocol),
    ("vfs", vfs_ops),
];

/// The target called `name`.
pub fn target(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

fn shell_parser(data: &[u8]) {
    let _ = shell::parse(&text(data));
}

fn shell_arith(data: &[u8]) {
    let _ = shell::arith::parse_arith(&text(data));
}

fn awk(data: &[u8]) {
    parsers::awk(data);
}

fn sed(data: &[u8]) {
    let script = text(data);
    parsers::sed(&script, false);
    parsers::sed(&script, true);
}

fn bc(data: &[u8]) {
    parsers::bc(&text(data));
}

fn jq(data: &[u8]) {
    parsers::jq(&text(data));
}

fn jq_json(data: &[u8]) {
    parsers::jq_json(data);
}

/// A host→guest frame: split, then read as each message the guest accepts, following its ranges.
fn protocol(data: &[u8]) {
    let Ok(frame) = Frame::decode(data) else {
        return;
    };
    if let Ok(job) = Job::decode(&frame) {
        let _ = frame.text(job.code);
        let _ = job.stdin.map(|range| frame.bytes(range));
    }
    if let Ok(resume) = Resume::decode(&frame) {
        for result in resume.results {
            let (first, second) = match result.outcome {
                Ok(range) => (range, (0, 0)),
                Err(ranges) => ranges,
            };
            let _ = (frame.text(first), frame.text(second));
        }
    }
    let _ = frame.parse::<Config>();
}

/// Small quotas, so that random operations reach them.
const LIMITS: VfsLimits = VfsLimits {
    max_bytes: 4096,
    max_files: 24,
    max_file_size: 1024,
};

/// Paths the operations pick from: nested, relative, through `..` and symlinks, read-only.
const PATHS: &[&str] = &[
    "/workspace/a",
    "/workspace/a/b",
    "/workspace/a/b/c",
    "b",
    "l",
    "l/x",
    "/workspace/l/../a",
    "/tmp/t",
    "/tmp",
    "/workspace",
    "/",
    "/etc/passwd",
    "/dev/null",
    "..",
    "a/./b//",
    "",
];

/// Each pair of input bytes is one operation on one path (and a second path or a size); after
/// each, the quotas must hold and the usage must equal what the tree holds.
fn vfs_ops(data: &[u8]) {
    let mut vfs = Vfs::new(LIMITS, Box::new(|| 0.0));
    for (i, op) in data.chunks(3).enumerate() {
        let [code, a, b] = [
            op[0],
            op.get(1).copied().unwrap_or(0),
            op.get(2).copied().unwrap_or(0),
        ];
        apply(&mut vfs, code, a, b, i);
        check(&vfs);
    }
    let mut restored = Vfs::new(LIMITS, Box::new(|| 0.0));
    if restored.restore(&vfs.snapshot()).is_err() {
        fail("a snapshot does not restore");
    }
    if restored.usage() != vfs.usage() || walk(&restored) != walk(&vfs) {
        fail("a restored snapshot differs from the filesystem it was taken of");
    }
}

fn apply(vfs: &mut Vfs, code: u8, a: u8, b: u8, i: usize) {
    let cwd = "/workspace";
    let p = PATHS[a as usize % PATHS.len()];
    let q = PATHS[b as usize % PATHS.len()];
    let data = vec![b'x'; (b as usize) * 5 + i % 7];
    let _ = match code % 18 {
        0 => vfs.write(cwd, p, &data),
        1 => vfs.append(cwd, p, &data),
        2 => vfs.mkdir(cwd, p),
        3 => vfs.mkdir_all(cwd, p),
        4 => vfs.symlink(cwd, q, p),
        5 => vfs.remove_file(cwd, p),
        6 => vfs.remove_dir(cwd, p),
        7 => vfs.remove_all(cwd, p),
        8 => vfs.rename(cwd, p, q),
        9 => vfs.truncate(cwd, p, u64::from(b) * 9),
        10 => vfs.copy_file(cwd, p, q),
        11 => vfs.create_exclusive(cwd, p, &data),
        12 => vfs.set_mode(cwd, p, u32::from(b) << 3),
        13 => vfs.read(cwd, p).map(drop),
        14 => vfs.read_dir(cwd, p).map(drop),
        15 => vfs.canonicalize(cwd, p).map(drop),
        16 => vfs.read_link(cwd, p).map(drop),
        _ => vfs.set_mtime(cwd, p, Some(f64::from(b) * 1e3)),
    };
}

/// What the writable areas hold: (path, kind, size) of every node, and the usage it adds up to.
fn walk(vfs: &Vfs) -> (Vec<(String, FileKind, u64)>, u64, u64) {
    let mut nodes = Vec::new();
    let mut pending = vec!["/workspace".to_string(), "/tmp".to_string()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = vfs.read_dir("/", &dir) else {
            fail("a writable directory cannot be listed");
        };
        for (name, kind) in entries {
            let path = format!("{dir}/{name}");
            let Ok(stat) = vfs.lstat("/", &path) else {
                fail("a listed entry cannot be stat'ed");
            };
            if stat.kind != kind {
                fail("read_dir and lstat disagree on a node's kind");
            }
            if kind == FileKind::Dir {
                pending.push(path.clone());
            }
            nodes.push((path, kind, stat.size));
        }
    }
    nodes.sort_by(|x, y| x.0.cmp(&y.0));
    let bytes = nodes
        .iter()
        .filter(|n| n.1 != FileKind::Dir)
        .map(|n| n.2)
        .sum();
    let files = nodes.len() as u64;
    (nodes, bytes, files)
}

fn check(vfs: &Vfs) {
    let usage = vfs.usage();
    let (nodes, bytes, files) = walk(vfs);
    if usage.bytes > LIMITS.max_bytes || usage.files > LIMITS.max_files {
        fail("usage exceeds the quota");
    }
    if nodes
        .iter()
        .any(|n| n.1 == FileKind::File && n.2 > LIMITS.max_file_size)
    {
        fail("a file exceeds the size limit");
    }
    if (usage.bytes, usage.files) != (bytes, files) {
        fail("the usage differs from what the tree holds");
    }
}

/// An invariant broke: a crash, like a panic in the code under test.
#[allow(clippy::panic)]
fn fail(what: &str) -> ! {
    panic!("invariant: {what}");
}
