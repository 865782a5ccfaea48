//! bc: arbitrary-precision calculator.

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[];
