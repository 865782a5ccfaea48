//! GNU-style option parsing: `-abc` bundles, `-n5` and `-n 5` values, `--long`,
//! `--long=value` and `--long value`, options after operands, and `--` to stop; and the one
//! answer to `--help` and `--version` (see [`Help`]).

use super::output::{conclude, out_str};
use super::usage_error;
use crate::applets::Ctx;

/// Where an applet looks for `--help`. The registry answers it (see `Applet::start`) by
/// printing `Usage: ` and the applet's usage, so no applet writes that check itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Help {
    /// Anywhere before `--`: GNU tools that take options after operands (`cat a --help`).
    Anywhere,
    /// Among the options before the first operand: tools that run a command (`env`,
    /// `xargs`), where a later `--help` belongs to the command.
    BeforeOperand,
    /// Only as the first argument: tools whose operands may look like options (`printf`,
    /// `dd`, `find`).
    First,
    /// Only as the one argument (`yes`, `expr`, `true`).
    Alone,
    /// Nowhere: the applet reads its arguments itself (`echo` prints `--help`; `false` exits 1
    /// after its help; grep, sed, awk, jq and bc accept abbreviated long options).
    Own,
}

impl Help {
    /// Whether `args` ask for `flag` (`--help` or `--version`: GNU tools look for both in
    /// the same places) under this rule.
    pub fn asked(self, args: &[String], flag: &str) -> bool {
        let is_help = |arg: &String| arg == flag;
        match self {
            Help::Anywhere => args.iter().take_while(|a| *a != "--").any(is_help),
            Help::BeforeOperand => args
                .iter()
                .take_while(|a| *a != "--" && a.starts_with('-'))
                .any(is_help),
            Help::First => args.first().is_some_and(is_help),
            Help::Alone => args.len() == 1 && is_help(&args[0]),
            Help::Own => false,
        }
    }
}

/// Prints what `NAME --version` prints first: the GNU (or util-linux...) package and version
/// whose behaviour the applet follows, which scripts test to tell GNU tools from others; then
/// that this is corral's reimplementation.
pub async fn print_version(ctx: &mut Ctx, name: &str) -> i32 {
    let first = match name {
        "find" | "xargs" => format!("{name} (GNU findutils) 4.9.0"),
        "diff" | "cmp" => format!("{name} (GNU diffutils) 3.8"),
        "tar" => "tar (GNU tar) 1.34".into(),
        "gzip" => "gzip 1.12".into(),
        "gunzip" | "zcat" => format!("{name} (gzip) 1.12"),
        "patch" => "GNU patch 2.7.6".into(),
        "rev" | "column" | "hexdump" => format!("{name} from util-linux 2.38.1"),
        "xxd" => "xxd 2022-01-14".into(),
        _ => format!("{name} (GNU coreutils) 9.1"),
    };
    let text = format!(
        "{first}
corral's reimplementation, in the sandbox, of this version.
"
    );
    let result = out_str(ctx, &text).await;
    conclude(ctx, result.map(|()| 0)).await
}

/// Prints `usage` to stdout, as `NAME --help` does; resolves to exit status 0 (or what a
/// failed write calls for).
pub async fn print_help(ctx: &mut Ctx, usage: &str) -> i32 {
    let text = format!("Usage: {usage}\n");
    let result = out_str(ctx, &text).await;
    conclude(ctx, result.map(|()| 0)).await
}

/// Parses the options GNU-style, reporting a bad one with `bad_status` (and GNU's `Try
/// 'NAME --help'` hint); `Err` holds the status to return at once.
pub async fn parse_args(
    ctx: &mut Ctx,
    spec: &OptSpec,
    bad_status: i32,
) -> Result<(Vec<Opt>, Vec<String>), i32> {
    match getopt(&ctx.args, spec) {
        Ok(parsed) => Ok(parsed),
        Err(message) => Err(usage_error(ctx, message, bad_status).await),
    }
}

/// Which options an applet accepts.
#[derive(Default, Clone, Copy)]
pub struct OptSpec {
    /// Short flags without a value, e.g. `"nrsu"`.
    pub short: &'static str,
    /// Short options that take a value, e.g. `"kt"`.
    pub short_val: &'static str,
    /// Long flags without a value, e.g. `&["reverse"]`.
    pub long: &'static [&'static str],
    /// Long options that take a value, e.g. `&["key"]`. One in both lists takes an optional
    /// value, only as `--name=VALUE` (`uniq --group[=METHOD]`).
    pub long_val: &'static [&'static str],
    /// `-5` means this short option with value 5 (`head -5` is `head -n 5`).
    pub digits: Option<char>,
    /// Stop at the first operand (`xargs cmd -n`, `env VAR=1 cmd -x`).
    pub stop_at_operand: bool,
}

/// One parsed option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opt {
    /// A short option and its value, if it takes one.
    Short(char, Option<String>),
    /// A long option (without `--`) and its value, if it takes one.
    Long(String, Option<String>),
}

impl Opt {
    /// Whether this is short `c` or long `name` (either spelling of one option).
    pub fn is(&self, c: char, name: &str) -> bool {
        match self {
            Opt::Short(s, _) => *s == c,
            Opt::Long(l, _) => l == name,
        }
    }

    /// The option's value ("" when it has none).
    pub fn value(&self) -> &str {
        match self {
            Opt::Short(_, v) | Opt::Long(_, v) => v.as_deref().unwrap_or(""),
        }
    }
}

/// Splits `args` into options and operands, or says what is wrong (`invalid option -- 'z'`).
pub fn getopt(args: &[String], spec: &OptSpec) -> Result<(Vec<Opt>, Vec<String>), String> {
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            i = parse_long(long, args, i, spec, &mut opts)?;
        } else if arg.len() > 1 && arg.starts_with('-') {
            i = parse_short(&arg[1..], args, i, spec, &mut opts)?;
        } else {
            operands.push(arg.clone());
            if spec.stop_at_operand {
                operands.extend(args[i..].iter().cloned());
                break;
            }
        }
    }
    Ok((opts, operands))
}

fn parse_long(
    long: &str,
    args: &[String],
    mut i: usize,
    spec: &OptSpec,
    opts: &mut Vec<Opt>,
) -> Result<usize, String> {
    let (name, inline) = match long.split_once('=') {
        Some((name, value)) => (name, Some(value.to_string())),
        None => (long, None),
    };
    let name = unique_prefix(name, spec)?;
    if spec.long_val.contains(&name) && (inline.is_some() || !spec.long.contains(&name)) {
        let value = match inline {
            Some(value) => value,
            None => {
                let value = args.get(i).cloned();
                i += 1;
                value.ok_or_else(|| format!("option '--{name}' requires an argument"))?
            }
        };
        opts.push(Opt::Long(name.to_string(), Some(value)));
    } else if inline.is_some() {
        return Err(format!("option '--{name}' doesn't allow an argument"));
    } else {
        opts.push(Opt::Long(name.to_string(), None));
    }
    Ok(i)
}

/// GNU accepts any unambiguous prefix of a long option.
fn unique_prefix(name: &str, spec: &OptSpec) -> Result<&'static str, String> {
    let all = spec.long.iter().chain(spec.long_val.iter()).copied();
    if let Some(exact) = all.clone().find(|&l| l == name) {
        return Ok(exact);
    }
    let mut matches: Vec<&'static str> = all.filter(|l| l.starts_with(name)).collect();
    matches.sort_unstable();
    matches.dedup();
    match matches.as_slice() {
        [only] => Ok(only),
        [] => Err(format!("unrecognized option '--{name}'")),
        _ => Err(format!("option '--{name}' is ambiguous")),
    }
}

fn parse_short(
    bundle: &str,
    args: &[String],
    mut i: usize,
    spec: &OptSpec,
    opts: &mut Vec<Opt>,
) -> Result<usize, String> {
    if let Some(c) = spec.digits {
        if bundle.bytes().all(|b| b.is_ascii_digit()) {
            opts.push(Opt::Short(c, Some(bundle.to_string())));
            return Ok(i);
        }
    }
    for (at, c) in bundle.char_indices() {
        if spec.short_val.contains(c) {
            let rest = &bundle[at + c.len_utf8()..];
            let value = if !rest.is_empty() {
                rest.to_string()
            } else {
                let value = args.get(i).cloned();
                i += 1;
                value.ok_or_else(|| format!("option requires an argument -- '{c}'"))?
            };
            opts.push(Opt::Short(c, Some(value)));
            return Ok(i);
        }
        if !spec.short.contains(c) {
            return Err(format!("invalid option -- '{c}'"));
        }
        opts.push(Opt::Short(c, None));
    }
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: OptSpec = OptSpec {
        short: "nrv",
        short_val: "kt",
        long: &["reverse", "version", "verbose"],
        long_val: &["key"],
        digits: Some('n'),
        stop_at_operand: false,
    };

    fn parse(args: &[&str]) -> Result<(Vec<Opt>, Vec<String>), String> {
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        getopt(&owned, &SPEC)
    }

    fn short(c: char, v: Option<&str>) -> Opt {
        Opt::Short(c, v.map(str::to_string))
    }

    #[test]
    fn bundles_values_longs_and_operands_in_any_order() {
        let (opts, operands) =
            parse(&["-nr", "f", "-k2,2", "-t", ",", "--key=3", "--rev", "g"]).unwrap_or_default();
        assert_eq!(
            opts,
            vec![
                short('n', None),
                short('r', None),
                short('k', Some("2,2")),
                short('t', Some(",")),
                Opt::Long("key".into(), Some("3".into())),
                Opt::Long("reverse".into(), None),
            ]
        );
        assert_eq!(operands, vec!["f", "g"]);
    }

    #[test]
    fn digits_dash_dash_and_errors() {
        assert_eq!(
            parse(&["-5", "--", "-r"]).unwrap_or_default().0,
            vec![short('n', Some("5"))]
        );
        assert_eq!(parse(&["-5", "--", "-r"]).unwrap_or_default().1, vec!["-r"]);
        assert_eq!(parse(&["-z"]), Err("invalid option -- 'z'".into()));
        assert_eq!(
            parse(&["-k"]),
            Err("option requires an argument -- 'k'".into())
        );
        assert_eq!(
            parse(&["--vers"]).map(|r| r.0),
            Ok(vec![Opt::Long("version".into(), None)])
        );
        assert_eq!(parse(&["--ver"]), Err("option '--ver' is ambiguous".into()));
        assert_eq!(
            parse(&["--nope"]),
            Err("unrecognized option '--nope'".into())
        );
        assert_eq!(parse(&["-"]).unwrap_or_default().1, vec!["-"]);
    }
}
