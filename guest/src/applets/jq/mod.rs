//! jq, on the jaq crates.

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[];
