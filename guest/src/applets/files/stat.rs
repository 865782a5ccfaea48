//! `stat [-L] [-c FORMAT | --printf FORMAT | -t] FILE...`: show file metadata.
//!
//! The sandbox has one user (uid 1000, `user`), one device, and one time per file: access,
//! modify and change times are all the VFS mtime; the birth time is unknown (`-`).

use crate::applets::common::{
    blocks_kib, conclude, mode_string, out_str, parse_args, quote, strftime, type_name, Res,
};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{FileKind, Stat};

/// The `stat` applet.
pub const APPLET: Applet = Applet {
    name: "stat",
    usage: "stat [OPTION]... FILE...\nDisplay file status.\n  -L, --dereference     follow links\n  -c, --format=FORMAT   use FORMAT, with a newline after each file\n      --printf=FORMAT   like --format, but interpret backslash escapes, no newline\n  -t, --terse           print the information in terse form\nFORMAT sequences: %n name, %N quoted name (with link target), %s size, %b blocks,\n%B block size, %o I/O block, %F type, %a octal mode, %A mode string, %f raw mode (hex),\n%h links, %i inode, %u %U owner id/name, %g %G group id/name, %d %D device,\n%x %y %z times, %X %Y %Z times as epoch seconds, %w %W birth (unknown), %% a percent",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "Lt",
    short_val: "c",
    long: &["dereference", "terse"],
    long_val: &["format", "printf"],
    digits: None,
    stop_at_operand: false,
};

const DEFAULT: &str = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\nDevice: %Hd,%Ld\tInode: %-10i  Links: %h\nAccess: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: %w\n";
const DEVICE: &str = "  File: %N\n  Size: %-10s\tBlocks: %-10b IO Block: %-6o %F\nDevice: %Hd,%Ld\tInode: %-10i  Links: %-5h Device type: %Hr,%Lr\nAccess: (%04a/%10.10A)  Uid: (%5u/%8U)   Gid: (%5g/%8G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: %w\n";
const TERSE: &str = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n";

/// The sandbox's one device: `Device: 0,30`.
const DEV_MINOR: u64 = 30;

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let follow = opts.iter().any(|o| o.is('L', "dereference"));
        let mut format: Option<String> = None;
        for opt in &opts {
            if opt.is('c', "format") {
                format = Some(format!("{}\n", opt.value()));
            } else if opt.is('\0', "printf") {
                format = Some(unescape(opt.value()));
            } else if opt.is('t', "terse") {
                format = Some(TERSE.to_string());
            }
        }
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing operand", 1).await;
        }
        let result = show_all(&mut ctx, &operands, follow, format.as_deref()).await;
        conclude(&mut ctx, result).await
    })
}

async fn show_all(
    ctx: &mut Ctx,
    operands: &[String],
    follow: bool,
    format: Option<&str>,
) -> Res<i32> {
    let mut status = 0;
    for path in operands {
        let found = {
            let vfs = ctx.vfs.borrow();
            let stat = if follow {
                vfs.stat(&ctx.cwd, path)
            } else {
                vfs.lstat(&ctx.cwd, path)
            };
            stat.map(|s| {
                let link = vfs
                    .read_link(&ctx.cwd, path)
                    .ok()
                    .filter(|_| s.kind == FileKind::Symlink);
                (s, link)
            })
        };
        match found {
            Ok((stat, link)) => {
                let default = if stat.kind == FileKind::CharDevice {
                    DEVICE
                } else {
                    DEFAULT
                };
                let info = Info {
                    name: path,
                    stat: &stat,
                    link: link.as_deref(),
                    plain_name: format.is_none(),
                };
                out_str(ctx, &render(format.unwrap_or(default), &info)).await?;
            }
            Err(e) => {
                warn(
                    ctx,
                    format_args!("cannot statx {}: {}", quote(path), e.code),
                )
                .await;
                status = 1;
            }
        }
    }
    Ok(status)
}

struct Info<'a> {
    name: &'a str,
    stat: &'a Stat,
    link: Option<&'a str>,
    /// The default format shows `%N` without quotes.
    plain_name: bool,
}

/// Backslash escapes of `--printf`.
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some(d) if d.is_digit(8) => {
                let mut value = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(v) => {
                            value = value * 8 + v;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('?'));
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Expands every `%` directive of `format` for one file.
fn render(format: &str, info: &Info<'_>) -> String {
    let mut out = String::new();
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut flags = String::new();
        while let Some(&c) = chars.get(i).filter(|c| "-0+ #'".contains(**c)) {
            flags.push(c);
            i += 1;
        }
        let mut width = String::new();
        while let Some(&c) = chars.get(i).filter(|c| c.is_ascii_digit()) {
            width.push(c);
            i += 1;
        }
        let mut precision = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            let mut digits = String::new();
            while let Some(&c) = chars.get(i).filter(|c| c.is_ascii_digit()) {
                digits.push(c);
                i += 1;
            }
            precision = Some(digits.parse::<usize>().unwrap_or(0));
        }
        let mut conv = chars.get(i).copied();
        let mut which = None;
        if matches!(conv, Some('H' | 'L')) && matches!(chars.get(i + 1), Some('d' | 'r')) {
            which = conv;
            i += 1;
            conv = chars.get(i).copied();
        }
        let Some(conv) = conv else {
            out.extend(&chars[start..]);
            break;
        };
        i += 1;
        match directive(conv, which, precision, info) {
            Some(Value::Num(text)) => out.push_str(&pad(&text, &flags, &width, true)),
            Some(Value::Text(text)) => {
                let text = match precision {
                    Some(p) if !matches!(conv, 'X' | 'Y' | 'Z' | 'W') => {
                        text.chars().take(p).collect()
                    }
                    _ => text,
                };
                out.push_str(&pad(&text, &flags, &width, false));
            }
            None => out.extend(&chars[start..i]),
        }
    }
    out
}

enum Value {
    Num(String),
    Text(String),
}

fn pad(text: &str, flags: &str, width: &str, numeric: bool) -> String {
    let width: usize = width.parse().unwrap_or(0);
    let len = text.chars().count();
    if len >= width {
        return text.to_string();
    }
    let fill = width - len;
    if flags.contains('-') {
        format!("{text}{}", " ".repeat(fill))
    } else if flags.contains('0') && numeric {
        format!("{}{text}", "0".repeat(fill))
    } else {
        format!("{}{text}", " ".repeat(fill))
    }
}

/// The value of one directive; None for an unknown one (printed as written).
fn directive(
    conv: char,
    which: Option<char>,
    precision: Option<usize>,
    info: &Info<'_>,
) -> Option<Value> {
    let s = info.stat;
    let num = |n: u64| Some(Value::Num(n.to_string()));
    let text = |t: String| Some(Value::Text(t));
    let (major, minor) = s.device.map_or((0, 0), |d| d.numbers());
    let secs = (s.mtime_ms / 1000.0).floor();
    let nanos = ((s.mtime_ms - secs * 1000.0) * 1e6).round() as u32;
    match (conv, which) {
        ('d', Some('H')) => num(0),
        ('d', Some('L')) => num(DEV_MINOR),
        ('r', Some('H')) => num(major),
        ('r', Some('L')) => num(minor),
        ('n', _) => text(info.name.to_string()),
        ('N', _) => text(display_name(info)),
        ('s', _) => num(s.size),
        ('b', _) => num(blocks_kib(s) * 2),
        ('B', _) => num(512),
        ('o', _) => num(4096),
        ('F', _) => text(type_name(s).to_string()),
        ('a', _) => Some(Value::Num(format!("{:o}", s.mode))),
        ('A', _) => text(mode_string(s.kind, s.mode)),
        ('f', _) => text(format!("{:x}", type_bits(s.kind) | s.mode)),
        ('h', _) => num(s.nlink),
        ('i', _) => num(s.ino),
        ('u' | 'g', _) => num(1000),
        ('U' | 'G', _) => text("user".to_string()),
        ('d', _) => num(DEV_MINOR),
        ('D', _) => text(format!("{DEV_MINOR:x}")),
        ('t', _) => text(format!("{major:x}")),
        ('T', _) => text(format!("{minor:x}")),
        ('m', _) => text("/".to_string()),
        ('x' | 'y' | 'z', _) => text(strftime("%Y-%m-%d %H:%M:%S.%N %z", secs as i64, nanos)),
        ('X' | 'Y' | 'Z', _) => text(epoch(secs as i64, nanos, precision)),
        ('w', _) => text("-".to_string()),
        ('W', _) => num(0),
        ('%', _) => text("%".to_string()),
        _ => None,
    }
}

/// `%Y` with an optional precision: `%.3Y` is `1700000000.000`.
fn epoch(secs: i64, nanos: u32, precision: Option<usize>) -> String {
    match precision {
        None | Some(0) => secs.to_string(),
        Some(p) => {
            let digits = format!("{nanos:09}");
            let frac: String = digits
                .chars()
                .chain(std::iter::repeat('0'))
                .take(p)
                .collect();
            format!("{secs}.{frac}")
        }
    }
}

fn type_bits(kind: FileKind) -> u32 {
    match kind {
        FileKind::File => 0o100_000,
        FileKind::Dir => 0o040_000,
        FileKind::Symlink => 0o120_000,
        FileKind::CharDevice => 0o020_000,
    }
}

fn display_name(info: &Info<'_>) -> String {
    let name = if info.plain_name {
        info.name.to_string()
    } else {
        quote(info.name)
    };
    match info.link {
        Some(target) if info.plain_name => format!("{name} -> {target}"),
        Some(target) => format!("{name} -> {}", quote(target)),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    fn setup() -> std::rc::Rc<std::cell::RefCell<crate::vfs::Vfs>> {
        let vfs = vfs_with(&[("a", "hello"), ("d/x", "")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "a", "l");
        vfs
    }

    #[test]
    fn stat_default_format() {
        let vfs = setup();
        let ino = |p: &str| {
            vfs.borrow()
                .lstat("/workspace", p)
                .map(|s| s.ino)
                .unwrap_or(0)
        };
        let times = "Access: 2023-11-14 22:13:20.000000000 +0000\nModify: 2023-11-14 22:13:20.000000000 +0000\nChange: 2023-11-14 22:13:20.000000000 +0000\n Birth: -\n";
        let want = format!("  File: a\n  Size: 5         \tBlocks: 8          IO Block: 4096   regular file\nDevice: 0,30\tInode: {:<10}  Links: 1\nAccess: (0644/-rw-r--r--)  Uid: ( 1000/    user)   Gid: ( 1000/    user)\n{times}", ino("a"));
        assert_eq!(run_in(&vfs, "stat", &["a"], ""), ok(&want));
        let want = format!("  File: d\n  Size: 4096      \tBlocks: 8          IO Block: 4096   directory\nDevice: 0,30\tInode: {:<10}  Links: 2\nAccess: (0755/drwxr-xr-x)  Uid: ( 1000/    user)   Gid: ( 1000/    user)\n{times}", ino("d"));
        assert_eq!(run_in(&vfs, "stat", &["d"], ""), ok(&want));
        let out = run_in(&vfs, "stat", &["l"], "").stdout;
        assert!(out.starts_with("  File: l -> a\n  Size: 1         \tBlocks: 0          IO Block: 4096   symbolic link\n"));
        assert!(run_in(&vfs, "stat", &["-L", "l"], "")
            .stdout
            .starts_with("  File: l\n  Size: 5 "));
        assert!(run_in(&vfs, "stat", &["/dev/null"], "")
            .stdout
            .contains("Links: 1     Device type: 1,3\n"));
    }

    #[test]
    fn stat_formats() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "stat", &["-c", "%n %s %F %a %A %Y %U %G %h %u %g %b %B %o %w %W %%", "a", "l", "d"], ""),
            ok("a 5 regular file 644 -rw-r--r-- 1700000000 user user 1 1000 1000 8 512 4096 - 0 %\nl 1 symbolic link 777 lrwxrwxrwx 1700000000 user user 1 1000 1000 0 512 4096 - 0 %\nd 4096 directory 755 drwxr-xr-x 1700000000 user user 2 1000 1000 8 512 4096 - 0 %\n")
        );
        assert_eq!(
            run_in(&vfs, "stat", &["-c", "%y", "a"], ""),
            ok("2023-11-14 22:13:20.000000000 +0000\n")
        );
        assert_eq!(
            run_in(&vfs, "stat", &["-c", "%N|%f", "l", "a", "d"], ""),
            ok("'l' -> 'a'|a1ff\n'a'|81a4\n'd'|41ed\n")
        );
        assert_eq!(
            run_in(&vfs, "stat", &["--printf=%n|%s\\n", "a", "d"], ""),
            ok("a|5\nd|4096\n")
        );
        assert_eq!(
            run_in(
                &vfs,
                "stat",
                &["-c", "[%-6s][%6s][%06s][%.3Y][%q]", "a"],
                ""
            ),
            ok("[5     ][     5][000005][1700000000.000][%q]\n")
        );
        assert_eq!(
            run_in(&vfs, "stat", &["--format", "%F", "/workspace/d/x"], ""),
            ok("regular empty file\n")
        );
        let ino = vfs
            .borrow()
            .lstat("/workspace", "a")
            .map(|s| s.ino)
            .unwrap_or(0);
        assert_eq!(
            run_in(&vfs, "stat", &["-t", "a"], ""),
            ok(&format!(
                "a 5 8 81a4 1000 1000 1e {ino} 1 0 0 1700000000 1700000000 1700000000 0 4096\n"
            ))
        );
        assert_eq!(
            run_in(&vfs, "stat", &["-c", "%i", "a"], ""),
            ok(&format!("{ino}\n"))
        );
    }

    #[test]
    fn stat_errors() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "stat", &["nope"], ""),
            err("stat: cannot statx 'nope': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "stat", &["-c", "%s", "nope", "a"], ""),
            both(
                "5\n",
                "stat: cannot statx 'nope': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run("stat", &[], ""),
            err(
                "stat: missing operand\nTry 'stat --help' for more information.\n",
                1
            )
        );
        assert_eq!(run("stat", &["-c"], ""), err("stat: option requires an argument -- 'c'\nTry 'stat --help' for more information.\n", 1));
    }
}
