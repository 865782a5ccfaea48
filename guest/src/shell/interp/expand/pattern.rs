//! Shell patterns (`case`, `[[ == ]]`, `${x#pat}`, pathname expansion): the matcher lives
//! in the applets' common code, which `find -name`, `tar --exclude` and `diff -x` share.

pub use crate::applets::common::pattern::{has_glob, unescape, PChar, Pattern};
