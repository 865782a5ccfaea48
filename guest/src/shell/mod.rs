//! The shell: a bash-like language interpreted in Rust.
//!
//! The front end follows the usual split: a lexer and a recursive-descent parser (private)
//! turn source text into the syntax tree of [`ast`] via [`parse`]; [`arith`] parses and
//! evaluates the text of `$(( ))`, `(( ))` and `let` once the interpreter has expanded it.

pub mod arith;
pub mod ast;
/// Raw bytes in shell strings (shared with the applets, which sit below the shell).
pub use crate::applets::common::bytes;
mod lexer;
mod parser;

pub use parser::{parse, parse_at, parse_script, ParseError};
pub mod builtins;
pub mod interp;
