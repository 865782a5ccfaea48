//! grep, egrep and fgrep.

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[];
