//! Text applets: cat, echo, and the line tools (head, sort, cut, ...).

mod cat;
mod echo;

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[&cat::APPLET, &echo::APPLET];
