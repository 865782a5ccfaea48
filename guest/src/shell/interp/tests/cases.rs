//! The table of scripts checked against real bash (`cases.txt`).
//!
//! Format: `#### name [needs: applet ...] [nostderr]`, the script, then `---- stdout`,
//! `---- stderr` (each `nonl` when the text has no final newline) and `---- status N`, as
//! `record.py` writes them from bash's behaviour. `nostderr`: stderr is not compared (the
//! message comes from an applet, not the shell).

use super::Harness;

/// Cases where corral deliberately differs from bash, and why. Each must still differ.
const DEVIATIONS: &[(&str, &str)] = &[
    (
        "syntax-error-unclosed-quote",
        "the parser reports an unclosed quote at the line where the input ended, bash at the \
         line where the quote started",
    ),
    (
        "set-u-unbound",
        "`bash -c` exits 127 after an expansion error; corral exits 1, as a bash script file does",
    ),
    (
        "set-u-positional",
        "`bash -c` exits 127 after an expansion error; corral exits 1, as a bash script file does",
    ),
    (
        "set-u-arith",
        "`bash -c` exits 127 after an expansion error; corral exits 1, as a bash script file does",
    ),
    (
        "unbound-error-message",
        "`bash -c` exits 127 after an expansion error; corral exits 1, as a bash script file does",
    ),
];

#[derive(Debug, Default)]
struct Case {
    name: String,
    needs: Vec<String>,
    check_stderr: bool,
    script: String,
    stdout: String,
    stderr: String,
    status: i32,
}

fn parse(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut case: Option<Case> = None;
    let mut section = "";
    let mut nonl = false;
    let finish = |case: &mut Case, section: &str, nonl: bool| {
        let field = match section {
            "script" => &mut case.script,
            "stdout" => &mut case.stdout,
            "stderr" => &mut case.stderr,
            _ => return,
        };
        if nonl && field.ends_with('\n') {
            field.pop();
        }
    };
    for line in text.split_inclusive('\n') {
        if let Some(header) = line.strip_prefix("#### ") {
            if let Some(mut c) = case.take() {
                finish(&mut c, section, nonl);
                cases.push(c);
            }
            let mut c = Case {
                check_stderr: true,
                ..Case::default()
            };
            let header = header.trim_end();
            let (name, tags) = header.split_once(' ').unwrap_or((header, ""));
            c.name = name.to_string();
            c.check_stderr = !tags.contains("[nostderr]");
            if let Some(rest) = tags.split("[needs:").nth(1) {
                let list = rest.split(']').next().unwrap_or_default();
                c.needs = list.split_whitespace().map(str::to_string).collect();
            }
            case = Some(c);
            section = "script";
            nonl = false;
            continue;
        }
        let Some(c) = case.as_mut() else {
            continue;
        };
        if let Some(marker) = line.strip_prefix("---- ") {
            finish(c, section, nonl);
            let marker = marker.trim_end();
            let mut words = marker.split_whitespace();
            section = match words.next() {
                Some("stdout") => "stdout",
                Some("stderr") => "stderr",
                Some("status") => {
                    c.status = words.next().and_then(|s| s.parse().ok()).unwrap_or(-99);
                    "status"
                }
                _ => "",
            };
            nonl = marker.ends_with("nonl");
            continue;
        }
        match section {
            "script" => c.script.push_str(line),
            "stdout" => c.stdout.push_str(line),
            "stderr" => c.stderr.push_str(line),
            _ => {}
        }
    }
    if let Some(mut c) = case.take() {
        finish(&mut c, section, nonl);
        cases.push(c);
    }
    cases
}

fn runnable(case: &Case) -> bool {
    case.needs
        .iter()
        .all(|name| crate::applets::lookup(name).is_some())
}

/// Debug builds poll deeply nested futures with large frames: give the cases a big stack.
fn with_stack(f: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new().stack_size(256 << 20).spawn(f);
    if let Ok(handle) = handle {
        if let Err(e) = handle.join() {
            std::panic::resume_unwind(e);
        }
    }
}

#[test]
fn cases_match_bash() {
    with_stack(check_cases);
}

fn check_cases() {
    let cases = parse(include_str!("cases.txt"));
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in &cases {
        if !runnable(case) {
            continue;
        }
        ran += 1;
        if std::env::var("CASE_TRACE").is_ok() {
            eprintln!("CASE {}", case.name);
        }
        let got = Harness::new().run(&case.script);
        let same = got.stdout == case.stdout
            && got.status == case.status
            && (!case.check_stderr || got.stderr == case.stderr);
        let deviation = DEVIATIONS.iter().find(|(name, _)| *name == case.name);
        match (same, deviation) {
            (true, None) | (false, Some(_)) => {}
            (true, Some((name, _))) => failures.push(format!(
                "{name}: listed as a deviation but now matches bash; remove it from DEVIATIONS"
            )),
            (false, None) => failures.push(format!(
                "{}:\n--- script\n{}--- want stdout\n{:?}\n--- got stdout\n{:?}\n--- want stderr\n{:?}\n--- got stderr\n{:?}\n--- status want {} got {}",
                case.name, case.script, case.stdout, got.stdout, case.stderr, got.stderr, case.status, got.status
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {ran} cases differ from bash:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn deviations_name_cases() {
    let cases = parse(include_str!("cases.txt"));
    for (name, _) in DEVIATIONS {
        assert!(cases.iter().any(|c| c.name == *name), "no case {name}");
    }
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    let count = names.len();
    names.dedup();
    assert_eq!(names.len(), count, "case names must be unique");
}
