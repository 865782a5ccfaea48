//! awk: its own lexer, parser and interpreter.

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[];
