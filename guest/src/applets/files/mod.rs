//! File and system applets: ls, find, cp, mv, rm, tar, gzip, checksums, xargs, date, ...
//!
//! Shared helpers (quoting, time, globbing, running children) live in `../common/`; each
//! applet is one file, and the big ones (find, diff, tar) have their own folders.

mod base64;
mod checksum;
mod chmod;
mod cp;
mod date;
mod dd;
mod diff;
mod du;
mod env;
mod find;
mod gzip;
mod id;
mod link;
mod ln;
mod ls;
mod mkdir;
mod mktemp;
mod mv;
mod patch;
mod pwd;
mod readlink;
mod realpath;
mod rm;
mod rmdir;
mod sleep;
mod stat;
mod sum;
mod system;
mod tar;
mod timeout;
mod touch;
mod tree;
mod truefalse;
mod xargs;

#[cfg(test)]
pub(crate) mod testutil;

use super::Applet;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[
    &truefalse::TRUE,
    &truefalse::FALSE,
    &pwd::APPLET,
    &ls::APPLET,
    &find::APPLET,
    &xargs::APPLET,
    &base64::APPLET,
    &checksum::MD5SUM,
    &checksum::SHA1SUM,
    &checksum::SHA224SUM,
    &checksum::SHA256SUM,
    &checksum::SHA384SUM,
    &checksum::SHA512SUM,
    &sum::APPLET,
    &sum::CKSUM,
    &gzip::GZIP,
    &gzip::GUNZIP,
    &gzip::ZCAT,
    &tar::APPLET,
    &diff::APPLET,
    &patch::APPLET,
    &env::ENV,
    &env::PRINTENV,
    &sleep::APPLET,
    &date::APPLET,
    &dd::APPLET,
    &id::ID,
    &id::WHOAMI,
    &system::UNAME,
    &system::ARCH,
    &system::HOSTNAME_APPLET,
    &system::NPROC,
    &timeout::TIMEOUT,
    &timeout::NICE,
    &timeout::NOHUP,
    &timeout::BUSYBOX,
    &mkdir::APPLET,
    &mktemp::APPLET,
    &rmdir::APPLET,
    &rm::APPLET,
    &cp::APPLET,
    &mv::APPLET,
    &touch::APPLET,
    &chmod::APPLET,
    &ln::APPLET,
    &link::LINK,
    &link::UNLINK,
    &realpath::APPLET,
    &readlink::APPLET,
    &stat::APPLET,
    &du::APPLET,
    &tree::APPLET,
];
