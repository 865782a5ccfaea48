//! A dependency-free fuzz driver for the guest's parsers, protocol decoder and VFS:
//! `corral-fuzz TARGET --budget SECONDS [--seed N] [--regressions DIR] [--last FILE]`.
//!
//! No coverage feedback (libFuzzer needs a nightly toolchain and sanitizer builds): inputs are
//! seeds and grammar tokens mutated at random by a seeded generator, so a run is reproducible.
//! A panic is shrunk and saved as `DIR/TARGET/crash-HASH`, once per panic location; the run goes
//! on. Before each input the driver writes it to `--last` (a little-endian `u32` length, then
//! the input; one `pwrite`, so the file may hold stale bytes after them), so that a stack
//! overflow (an abort) or a hang (the watchdog exits with status 3 after 10 s on one input)
//! leaves its input behind.

mod seeds;
mod targets;

use std::collections::BTreeSet;
use std::os::unix::fs::FileExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Inputs grow to at most this many bytes.
const MAX_LEN: usize = 8192;
/// The stack the targets run on: near the guest's (1 MiB of shadow stack in wasm32-wasip1), so
/// a recursion that the guest could not afford overflows here too.
const STACK: usize = 2 << 20;
/// One input running longer than this is a hang.
const HANG: Duration = Duration::from_secs(10);

struct Options {
    target: String,
    budget: f64,
    seed: u64,
    regressions: PathBuf,
    last: Option<PathBuf>,
}

fn main() {
    let options = match parse_args(std::env::args().skip(1).collect()) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("corral-fuzz: {message}");
            eprintln!("usage: corral-fuzz TARGET --budget SECONDS [--seed N] [--regressions DIR] [--last FILE]");
            eprintln!(
                "targets: {}",
                targets::TARGETS
                    .iter()
                    .map(|t| t.0)
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            std::process::exit(2);
        }
    };
    let run = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || fuzz(&options));
    match run.map(|handle| handle.join()) {
        Ok(Ok(found)) => std::process::exit(i32::from(found > 0)),
        _ => std::process::exit(4),
    }
}

fn parse_args(args: Vec<String>) -> Result<Options, String> {
    let mut args = args.into_iter();
    let target = args.next().ok_or("no target given")?;
    if targets::target(&target).is_none() {
        return Err(format!("unknown target {target:?}"));
    }
    let mut options = Options {
        target,
        budget: 60.0,
        seed: 1,
        regressions: PathBuf::from("regressions"),
        last: None,
    };
    while let Some(flag) = args.next() {
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<f64>()
                .map_err(|_| format!("{flag} needs a number, not {value:?}"))
        };
        match flag.as_str() {
            "--budget" => options.budget = number()?,
            "--seed" => options.seed = number()? as u64,
            "--regressions" => options.regressions = PathBuf::from(&value),
            "--last" => options.last = Some(PathBuf::from(&value)),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(options)
}

/// Runs the target for the budget; returns the number of new crashes saved.
fn fuzz(o: &Options) -> usize {
    let Some(target) = targets::target(&o.target) else {
        return 0;
    };
    let dir = o.regressions.join(&o.target);
    let (mut corpus, tokens) = seeds::for_target(&o.target);
    corpus.extend(saved(&dir));
    let mut rng = Rng(o.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut locations = BTreeSet::new();
    let started = Instant::now();
    let (count, found) = (Arc::new(AtomicU64::new(0)), std::cell::Cell::new(0));
    watchdog(Arc::clone(&count));
    std::panic::set_hook(Box::new(|_| {}));
    let last = o
        .last
        .as_ref()
        .and_then(|path| std::fs::File::create(path).ok());
    while started.elapsed().as_secs_f64() < o.budget {
        let input = mutate(&mut rng, &corpus, tokens);
        if let Some(last) = &last {
            let mut framed = (input.len() as u32).to_le_bytes().to_vec();
            framed.extend_from_slice(&input);
            let _ = last.write_all_at(&framed, 0);
        }
        count.fetch_add(1, Ordering::Relaxed);
        match catch_unwind(AssertUnwindSafe(|| target(&input))) {
            Ok(()) if rng.below(64) == 0 && corpus.len() < 4096 => corpus.push(input),
            Ok(()) => {}
            Err(payload) => {
                let message = describe(payload.as_ref());
                let at = key(&message);
                if locations.insert(at.clone()) {
                    let small = shrink(target, input, &at);
                    save(&dir, &small, &message);
                    found.set(found.get() + 1);
                }
            }
        }
    }
    let runs = count.load(Ordering::Relaxed);
    let secs = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds().map_or(String::new(), |cpu| format!(" ({cpu:.1} s of CPU)"));
    eprintln!(
        "{}: {runs} inputs in {secs:.0} s{cpu}, {} new crash(es)",
        o.target,
        found.get()
    );
    found.get()
}

/// The CPU time this process has used (user and system), from `/proc/self/stat` (Linux).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (in parentheses, possibly with spaces): utime, stime are
    // the 14th and 15th of the whole line, in clock ticks of 1/100 s.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Exits with status 3 when one input has run longer than [`HANG`].
fn watchdog(count: Arc<AtomicU64>) {
    std::thread::spawn(move || {
        let mut seen = count.load(Ordering::Relaxed);
        loop {
            std::thread::sleep(HANG);
            let now = count.load(Ordering::Relaxed);
            if now == seen {
                eprintln!(
                    "corral-fuzz: one input ran longer than {} s (a hang)",
                    HANG.as_secs()
                );
                std::process::exit(3);
            }
            seen = now;
        }
    });
}

/// The panic's message (a location is not part of the payload; the message identifies it).
fn describe(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

fn panics_with(target: fn(&[u8]), input: &[u8], at: &str) -> bool {
    catch_unwind(|| target(input)).is_err_and(|p| key(&describe(p.as_ref())) == at)
}

/// What tells two crashes apart: the panic message without its numbers (offsets, lengths).
fn key(message: &str) -> String {
    message
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .take(60)
        .collect()
}

/// Removes ever smaller pieces of `input` while it still panics the same way.
fn shrink(target: fn(&[u8]), mut input: Vec<u8>, at: &str) -> Vec<u8> {
    let mut piece = input.len() / 2;
    while piece > 0 {
        let mut start = 0;
        while start + piece <= input.len() {
            let mut shorter = input.clone();
            shorter.drain(start..start + piece);
            if panics_with(target, &shorter, at) {
                input = shorter;
            } else {
                start += piece;
            }
        }
        piece /= 2;
    }
    input
}

fn save(dir: &Path, input: &[u8], at: &str) {
    let name = format!("crash-{:016x}", fnv(input));
    eprintln!("crash: {at}\n  saved as {}", dir.join(&name).display());
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(dir.join(name), input);
}

fn saved(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect()
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// xorshift64*: small, fast and reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A corpus entry changed by one to four random edits.
fn mutate(rng: &mut Rng, corpus: &[Vec<u8>], tokens: &[&str]) -> Vec<u8> {
    let mut input = corpus[rng.below(corpus.len())].clone();
    for _ in 0..=rng.below(4) {
        let at = rng.below(input.len() + 1);
        match rng.below(8) {
            0 => input.insert(at, rng.next() as u8),
            1 if !input.is_empty() => {
                let i = rng.below(input.len());
                input[i] ^= 1 << rng.below(8);
            }
            2 if at < input.len() => {
                let end = at + rng.below(input.len() - at + 1);
                input.drain(at..end);
            }
            3 => {
                let other = &corpus[rng.below(corpus.len())];
                let from = rng.below(other.len() + 1);
                let piece = other[from..from + rng.below(other.len() - from + 1)].to_vec();
                input.splice(at..at, piece);
            }
            4 if at < input.len() => {
                // Repeats a piece: deep nesting and long runs.
                let end = (at + 1 + rng.below(8)).min(input.len());
                let piece = input[at..end].repeat(1 + rng.below(300));
                input.splice(at..at, piece);
            }
            _ if !tokens.is_empty() => {
                let token = tokens[rng.below(tokens.len())].as_bytes();
                input.splice(at..at, token.iter().copied());
            }
            _ => input.push(rng.next() as u8),
        }
    }
    input.truncate(MAX_LEN);
    input
}
