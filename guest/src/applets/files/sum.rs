//! `sum [-r | -s] [FILE]...`: the old 16-bit checksums and block counts (BSD's by default,
//! System V's with `-s`), as GNU prints them: a name follows when FILE operands are given.
//! `cksum [FILE]...`: the POSIX CRC-32 of each file and its length.

use crate::applets::common::{conclude, out_str, parse_args, Res};
use crate::applets::common::{inputs_or_stdin, open_each, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `sum` applet.
pub const APPLET: Applet = Applet {
    name: "sum",
    usage: "sum [OPTION]... [FILE]...\nPrint a 16-bit checksum and block count of each FILE (`-` or none: standard input).\n  -r         BSD checksum, 1 KiB blocks (default)\n  -s, --sysv System V checksum, 512-byte blocks",
    help: Help::Anywhere,
    run,
};

/// The `cksum` applet.
pub const CKSUM: Applet = Applet {
    name: "cksum",
    usage: "cksum [FILE]...\nPrint the POSIX CRC checksum and byte count of each FILE (`-` or none: standard input).\nFor other digests use md5sum, sha1sum, sha256sum... (`-a` is not supported).",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "rs",
    short_val: "",
    long: &["sysv"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    // The last of -r and -s wins, as in GNU.
    let sysv = opts
        .iter()
        .rev()
        .find(|o| o.is('r', "") || o.is('s', "sysv"));
    let kind = match sysv {
        _ if ctx.name == "cksum" => Kind::Crc,
        Some(o) if o.is('s', "sysv") => Kind::SysV,
        _ => Kind::Bsd,
    };
    if kind == Kind::Crc && !opts.is_empty() {
        let message = "options are not supported; use md5sum, sha256sum... for other digests";
        return crate::applets::common::usage_error(&mut ctx, message, 1).await;
    }
    let result = sum_all(&mut ctx, operands, kind).await;
    conclude(&mut ctx, result).await
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bsd,
    SysV,
    Crc,
}

/// The POSIX `cksum` CRC (polynomial 0x04C11DB7, most significant bit first) of `bytes`.
fn crc(mut crc: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        crc ^= u32::from(b) << 24;
        for _ in 0..8 {
            crc = (crc << 1)
                ^ if crc & 0x8000_0000 != 0 {
                    0x04C1_1DB7
                } else {
                    0
                };
        }
    }
    crc
}

async fn sum_all(ctx: &mut Ctx, operands: Vec<String>, kind: Kind) -> Res<i32> {
    let named = !operands.is_empty();
    let mut status = 0;
    for path in inputs_or_stdin(operands) {
        let Some(mut input) = open_each(ctx, &path, &mut status).await else {
            continue;
        };
        let (mut bsd, mut total, mut bytes, mut cyclic) = (0u16, 0u32, 0u64, 0u32);
        while let Some(chunk) = input.read_chunk().await {
            if kind == Kind::Crc {
                cyclic = crc(cyclic, &chunk);
            }
            for &b in chunk.iter() {
                bsd = bsd.rotate_right(1).wrapping_add(u16::from(b));
                total = total.wrapping_add(u32::from(b));
            }
            bytes += chunk.len() as u64;
        }
        let mut line = match kind {
            Kind::SysV => {
                let r = (total & 0xffff) + (total >> 16);
                format!("{} {}", (r & 0xffff) + (r >> 16), bytes.div_ceil(512))
            }
            Kind::Bsd => format!("{bsd:05} {:5}", bytes.div_ceil(1024)),
            Kind::Crc => {
                // The length follows the data, least significant byte first, without zeros.
                let length = bytes.to_le_bytes();
                let used = length.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                format!("{} {bytes}", !crc(cyclic, &length[..used]))
            }
        };
        if named {
            line = format!("{line} {path}");
        }
        out_str(ctx, &(line + "\n")).await?;
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::run;

    #[test]
    fn bsd_and_sysv_sums_with_names_only_for_operands() {
        assert_eq!(run("sum", &[], "abc\n").stdout, "08288     1\n");
        assert_eq!(run("sum", &["-s"], "abc\n").stdout, "304 1\n");
        assert_eq!(run("sum", &["-s", "-"], "abc\n").stdout, "304 1 -\n");
        assert_eq!(
            run("sum", &["-s", "-r", "-"], "abc\n").stdout,
            "08288     1 -\n"
        );
        let x = "x".repeat(3000);
        assert_eq!(run("sum", &[], &x).stdout, "05357     3\n");
        assert_eq!(run("sum", &["--sysv"], &x).stdout, "32325 6\n");
        assert_eq!(run("cksum", &[], "").stdout, "4294967295 0\n");
        assert_eq!(run("cksum", &["-"], "abc\n").stdout, "1112837078 4 -\n");
        assert_eq!(run("cksum", &["-a", "md5"], "").status, 1);
        let missing = run("sum", &["nope"], "");
        assert_eq!(
            (missing.status, missing.stderr.as_str()),
            (1, "sum: nope: No such file or directory\n")
        );
    }
}
