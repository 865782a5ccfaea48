//! jq, on the jaq crates: jaq parses, compiles and runs the filters; this folder supplies
//! jq's values (numbers that keep their literal, ordered objects), jq's builtins and error
//! messages, the streaming JSON reader and writer, and the command line.

mod cli;
mod deep;
mod desugar;
mod engine;
mod errors;
mod fast;
mod funs;
mod input;
mod items;
mod json;
mod map;
mod math;
mod modules;
mod num;
mod paths;
mod recurse;
mod strings;
mod time;
mod val;

#[cfg(test)]
mod tests;

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[&cli::APPLET];

/// Compiles a jq filter without running it; true when it is accepted. The entry point of the
/// `jq` fuzz target (`guest/fuzz/`).
pub fn check_filter(code: &str) -> bool {
    let no_modules = engine::Modules {
        dirs: Vec::new(),
        read: Box::new(|_| None),
    };
    engine::compile(code, &[], &no_modules).is_ok()
}

/// Parses a stream of JSON texts as `jq` reads its input; true when it is valid. The entry
/// point of the `jq-json` fuzz target (`guest/fuzz/`).
pub fn check_input(text: &[u8]) -> bool {
    json::parse_all(text).is_ok()
}
