//! grep, egrep and fgrep: GNU grep's options over the VFS, searching whole buffers with the
//! `regex` crate; the POSIX patterns are translated by `applets::common::regex`.

pub mod bytes;
pub mod matcher;
mod options;
mod run;
mod scan;
#[cfg(test)]
mod tests;

use super::{Applet, Help};

/// `grep`.
pub const GREP: Applet = Applet {
    name: "grep",
    usage: run::USAGE,
    help: Help::Own,
    run: run::run,
};

/// `egrep`: `grep -E`.
pub const EGREP: Applet = Applet {
    name: "egrep",
    usage: run::USAGE,
    help: Help::Own,
    run: run::run,
};

/// `fgrep`: `grep -F`.
pub const FGREP: Applet = Applet {
    name: "fgrep",
    usage: run::USAGE,
    help: Help::Own,
    run: run::run,
};

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[&GREP, &EGREP, &FGREP];
