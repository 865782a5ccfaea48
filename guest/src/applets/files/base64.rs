//! `base64 [-d] [-i] [-w COLS] [FILE]`: encode or decode base64, streaming.

use crate::applets::common::{conclude, out, parse_args, parse_count, quote, Res};
use crate::applets::common::{open_input, usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture};

/// The `base64` applet.
pub const APPLET: Applet = Applet {
    name: "base64",
    usage: "base64 [OPTION]... [FILE]\nBase64 encode or decode FILE, or standard input, to standard output.\n  -d, --decode          decode data\n  -i, --ignore-garbage  when decoding, ignore non-alphabet characters\n  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76);\n                        use 0 to disable line wrapping",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "di",
    short_val: "w",
    long: &["decode", "ignore-garbage"],
    long_val: &["wrap"],
    digits: None,
    stop_at_operand: false,
};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let (mut decode, mut garbage, mut wrap) = (false, false, 76usize);
        for opt in &opts {
            if opt.is('d', "decode") {
                decode = true;
            } else if opt.is('i', "ignore-garbage") {
                garbage = true;
            } else if opt.is('w', "wrap") {
                match parse_count(opt.value()).and_then(|n| usize::try_from(n).ok()) {
                    Some(n) => wrap = n,
                    None => {
                        warn(
                            &mut ctx,
                            format_args!("invalid wrap size: {}", quote(opt.value())),
                        )
                        .await;
                        return 1;
                    }
                }
            }
        }
        if operands.len() > 1 {
            let message = format!("extra operand {}", quote(&operands[1]));
            return usage_error(&mut ctx, message, 1).await;
        }
        let path = operands.first().map_or("-", String::as_str).to_string();
        let input = match open_input(&mut ctx, &path) {
            Ok(input) => input,
            Err(message) => {
                warn(&mut ctx, message).await;
                return 1;
            }
        };
        let result = if decode {
            decode_stream(&mut ctx, input, garbage).await
        } else {
            encode_stream(&mut ctx, input, wrap).await.map(|()| 0)
        };
        conclude(&mut ctx, result).await
    })
}

/// Encodes `data` (3-byte groups; a short last group is padded with `=`) onto `encoded`.
fn encode_groups(data: &[u8], encoded: &mut Vec<u8>) {
    encoded.reserve(data.len().div_ceil(3) * 4);
    let mut groups = data.chunks_exact(3);
    for g in &mut groups {
        let n = (u32::from(g[0]) << 16) | (u32::from(g[1]) << 8) | u32::from(g[2]);
        encoded.extend_from_slice(&[
            ALPHABET[(n >> 18) as usize & 63],
            ALPHABET[(n >> 12) as usize & 63],
            ALPHABET[(n >> 6) as usize & 63],
            ALPHABET[n as usize & 63],
        ]);
    }
    let rest = groups.remainder();
    if !rest.is_empty() {
        let b1 = rest.get(1).copied().unwrap_or(0);
        let n = (u32::from(rest[0]) << 16) | (u32::from(b1) << 8);
        encoded.push(ALPHABET[(n >> 18) as usize & 63]);
        encoded.push(ALPHABET[(n >> 12) as usize & 63]);
        encoded.push(if rest.len() == 2 {
            ALPHABET[(n >> 6) as usize & 63]
        } else {
            b'='
        });
        encoded.push(b'=');
    }
}

/// Inserts newlines every `wrap` columns, continuing from `column`.
fn wrap_into(encoded: &[u8], wrap: usize, column: &mut usize, text: &mut Vec<u8>) {
    if wrap == 0 {
        text.extend_from_slice(encoded);
        return;
    }
    let mut rest = encoded;
    while !rest.is_empty() {
        let take = (wrap - *column).min(rest.len());
        text.extend_from_slice(&rest[..take]);
        rest = &rest[take..];
        *column += take;
        if *column == wrap {
            text.push(b'\n');
            *column = 0;
        }
    }
}

async fn encode_stream(ctx: &mut Ctx, mut input: Input, wrap: usize) -> Res {
    let mut pending: Vec<u8> = Vec::new();
    let mut column = 0;
    let mut any = false;
    let mut encoded = Vec::new();
    let mut text = Vec::new();
    while let Some(chunk) = input.read_chunk().await {
        pending.extend_from_slice(&chunk);
        let whole = pending.len() / 3 * 3;
        encoded.clear();
        text.clear();
        encode_groups(&pending[..whole], &mut encoded);
        pending.drain(..whole);
        any |= !encoded.is_empty();
        wrap_into(&encoded, wrap, &mut column, &mut text);
        out(ctx, &text).await?;
    }
    encoded.clear();
    text.clear();
    encode_groups(&pending, &mut encoded);
    any |= !encoded.is_empty();
    wrap_into(&encoded, wrap, &mut column, &mut text);
    if any && column > 0 {
        text.push(b'\n');
    }
    out(ctx, &text).await
}

/// What a byte means to the decoder: a sextet, padding, a skipped newline, or garbage.
const PAD: u8 = 64;
const SKIP: u8 = 65;
const BAD: u8 = 66;

const fn decode_table() -> [u8; 256] {
    let mut table = [BAD; 256];
    let mut i = 0;
    while i < 64 {
        table[ALPHABET[i] as usize] = i as u8;
        i += 1;
    }
    table[b'=' as usize] = PAD;
    table[b'\n' as usize] = SKIP;
    table
}

const TABLE: [u8; 256] = decode_table();

/// Decoding state: the bits of the current quad, how many characters it has, and how many of
/// them were `=`.
#[derive(Default)]
struct Decoder {
    bits: u32,
    count: u8,
    pads: u8,
}

impl Decoder {
    /// Decodes what it can; Err when the input is not base64 (what was decoded is in `decoded`).
    fn feed(&mut self, data: &[u8], garbage: bool, decoded: &mut Vec<u8>) -> Result<(), ()> {
        decoded.reserve(data.len() / 4 * 3 + 3);
        for &c in data {
            match TABLE[c as usize] {
                SKIP => continue,
                BAD if garbage => continue,
                BAD => return Err(()),
                PAD => {
                    if self.count < 2 {
                        return Err(());
                    }
                    self.pads += 1;
                    self.bits <<= 6;
                }
                v => {
                    if self.pads > 0 {
                        return Err(());
                    }
                    self.bits = (self.bits << 6) | u32::from(v);
                }
            }
            self.count += 1;
            if self.count == 4 {
                let bytes = [
                    (self.bits >> 16) as u8,
                    (self.bits >> 8) as u8,
                    self.bits as u8,
                ];
                decoded.extend_from_slice(&bytes[..3 - usize::from(self.pads)]);
                *self = Decoder::default();
            }
        }
        Ok(())
    }

    /// The end of input: a partial quad decodes what it can and is an error.
    fn finish(&mut self, decoded: &mut Vec<u8>) -> Result<(), ()> {
        if self.count == 0 {
            return Ok(());
        }
        let sextets = self.count - self.pads;
        if sextets >= 2 {
            let bits = self.bits << (6 * u32::from(4 - self.count));
            let bytes = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
            decoded.extend_from_slice(&bytes[..usize::from(sextets) - 1]);
        }
        Err(())
    }
}

async fn decode_stream(ctx: &mut Ctx, mut input: Input, garbage: bool) -> Res<i32> {
    let mut decoder = Decoder::default();
    let mut decoded = Vec::new();
    while let Some(chunk) = input.read_chunk().await {
        decoded.clear();
        let fed = decoder.feed(&chunk, garbage, &mut decoded);
        out(ctx, &decoded).await?;
        if fed.is_err() {
            warn(ctx, "invalid input").await;
            return Ok(1);
        }
    }
    decoded.clear();
    let finished = decoder.finish(&mut decoded);
    out(ctx, &decoded).await?;
    if finished.is_err() {
        warn(ctx, "invalid input").await;
        return Ok(1);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, run_bytes};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn base64_encodes() {
        assert_eq!(run("base64", &[], "hello world"), ok("aGVsbG8gd29ybGQ=\n"));
        assert_eq!(run("base64", &[], ""), ok(""));
        let zeros = "\0".repeat(100);
        let line = "AAAAAAAAAAAAAAAAAAAA\n";
        assert_eq!(
            run("base64", &["-w", "20"], &zeros),
            ok(&format!("{}AAAAAAAAAAAAAA==\n", line.repeat(6)))
        );
        assert_eq!(run("base64", &["-w0"], "abc"), ok("YWJj"));
        assert_eq!(run("base64", &["--wrap=4"], "abcd"), ok("YWJj\nZA==\n"));
        let long = "x".repeat(60);
        assert_eq!(
            run("base64", &[], &long),
            ok(&format!("{}\n{}\n", "eHh4".repeat(19), "eHh4"))
        );
        let vfs = vfs_with(&[("f", "x")]);
        assert_eq!(run_in(&vfs, "base64", &["f"], ""), ok("eA==\n"));
    }

    #[test]
    fn base64_decodes() {
        assert_eq!(
            run("base64", &["-d"], "aGVsbG8gd29ybGQ="),
            ok("hello world")
        );
        assert_eq!(run("base64", &["-d"], "aGVs\nbG8=\n"), ok("hello"));
        assert_eq!(
            run("base64", &["-d"], "aGVs!bG8="),
            both("hel", "base64: invalid input\n", 1)
        );
        assert_eq!(run("base64", &["-di"], "aGVs!bG8="), ok("hello"));
        assert_eq!(
            run("base64", &["-d"], "aGVsbG8"),
            both("hello", "base64: invalid input\n", 1)
        );
        assert_eq!(run("base64", &["-d"], "aGVsbG8=aGk="), ok("hellohi"));
        assert_eq!(
            run("base64", &["-d"], "===="),
            err("base64: invalid input\n", 1)
        );
        assert_eq!(
            run("base64", &["--decode"], "YQ"),
            both("a", "base64: invalid input\n", 1)
        );
        let vfs = vfs_with(&[]);
        let (bytes, _, status) = run_bytes(&vfs, "base64", &["-d"], b"/+8A");
        assert_eq!((bytes, status), (vec![0xff, 0xef, 0x00], 0));
    }

    #[test]
    fn base64_errors() {
        assert_eq!(
            run("base64", &["nope"], ""),
            err("base64: nope: No such file or directory\n", 1)
        );
        assert_eq!(
            run("base64", &["-w", "x"], ""),
            err("base64: invalid wrap size: 'x'\n", 1)
        );
        assert_eq!(
            run("base64", &["a", "b"], ""),
            err(
                "base64: extra operand 'b'\nTry 'base64 --help' for more information.\n",
                1
            )
        );
        assert_eq!(run("base64", &["-q"], "").status, 1);
    }
}
