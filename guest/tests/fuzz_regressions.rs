//! Replays every input a fuzz run once crashed on (`fuzz/regressions/<target>/*`, saved by
//! `nox -s fuzz`), and the seeds of every target: each must now be accepted or rejected
//! without a panic or a stack overflow.

#[path = "../fuzz/src/seeds.rs"]
mod seeds;
#[path = "../fuzz/src/targets.rs"]
mod targets;

use std::path::Path;

/// Debug builds use far bigger stack frames than the optimised fuzz driver (2 MiB).
const STACK: usize = 64 << 20;

fn replay(target: fn(&[u8]), input: Vec<u8>, what: &str) {
    let thread = std::thread::Builder::new().stack_size(STACK);
    let run = thread.spawn(move || target(&input));
    assert!(run.expect("thread").join().is_ok(), "{what} panics");
}

#[test]
fn every_regression_folder_is_a_target() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    for entry in std::fs::read_dir(dir).expect("fuzz/regressions") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if !entry.path().is_dir() {
            continue;
        }
        assert!(targets::target(&name).is_some(), "no fuzz target {name}");
    }
}

#[test]
fn saved_crashes_and_seeds_pass() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    for (name, target) in targets::TARGETS {
        for (i, seed) in seeds::for_target(name).0.into_iter().enumerate() {
            replay(*target, seed, &format!("seed {i} of {name}"));
        }
        let Ok(entries) = std::fs::read_dir(dir.join(name)) else {
            continue;
        };
        for path in entries.map(|e| e.expect("entry").path()) {
            let input = std::fs::read(&path).expect("read");
            replay(*target, input, &path.display().to_string());
        }
    }
}
