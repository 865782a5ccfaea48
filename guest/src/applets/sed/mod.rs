//! sed: its own lexer, parser and executor.

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[];
