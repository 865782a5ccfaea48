//! jq, on the jaq crates: jaq parses, compiles and runs the filters; this folder supplies
//! jq's values (numbers that keep their literal, ordered objects), jq's builtins and error
//! messages, the streaming JSON reader and writer, and the command line.

mod cli;
mod desugar;
mod engine;
mod errors;
mod funs;
mod input;
mod json;
mod map;
mod math;
mod num;
mod paths;
mod strings;
mod time;
mod val;

#[cfg(test)]
mod tests;

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[&cli::APPLET];
