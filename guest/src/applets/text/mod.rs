//! Text applets: the line and byte tools agents pipe together (head, tail, wc, sort, uniq,
//! cut, tr, paste, join, comm, column, ...), plus printf, expr, seq, yes, tee, split,
//! basename and dirname.
//!
//! They follow GNU coreutils (util-linux for `column` and `rev`; bash's builtins for `printf`
//! and `echo`, which is what an agent's shell runs), with these choices:
//! - Collation is the C locale's byte order (`LC_ALL=C sort`); `wc -m`, `wc -L`, `rev`,
//!   `expr length` and `column` decode UTF-8; `cut -c`, `tr`, `fold` and `expand` count
//!   bytes, as GNU's do.
//! - Messages quote with ASCII `'...'` (GNU uses curly quotes in UTF-8 locales).
//! - Every table of test cases is replayed against the real tools by the ignored `gnu`
//!   tests: `cargo test applets::text -- --ignored`.

mod basename;
mod cat;
mod cmp;
mod column;
mod comm;
mod cut;
mod dirname;
mod echo;
mod expand;
mod expr;
mod fold;
mod head;
mod headtail;
mod hexdump;
mod hexfmt;
mod join;
mod nl;
mod od;
mod paste;
mod printf;
mod rev;
mod seq;
mod shuf;
mod sort;
mod split;
mod tac;
mod tail;
mod tee;
mod tr;
mod uniq;

mod wc;
mod width;
mod xxd;
mod yes;

#[cfg(test)]
mod cases;

use super::Applet;
pub use echo::text as echo_text;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[
    &basename::APPLET,
    &cat::APPLET,
    &cmp::APPLET,
    &column::APPLET,
    &comm::APPLET,
    &cut::APPLET,
    &dirname::APPLET,
    &expr::APPLET,
    &echo::APPLET,
    &expand::APPLET,
    &expand::UNEXPAND,
    &fold::APPLET,
    &head::APPLET,
    &hexdump::APPLET,
    &join::APPLET,
    &nl::APPLET,
    &od::APPLET,
    &paste::APPLET,
    &printf::APPLET,
    &rev::APPLET,
    &seq::APPLET,
    &sort::APPLET,
    &split::APPLET,
    &tac::APPLET,
    &shuf::APPLET,
    &tail::APPLET,
    &tee::APPLET,
    &tr::APPLET,
    &uniq::APPLET,
    &wc::APPLET,
    &xxd::APPLET,
    &yes::APPLET,
];
