//! File and system applets: ls, find, cp, mv, rm, tar, gzip, checksums, xargs, date, ...

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[];
