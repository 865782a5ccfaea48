//! `uname`, `arch`, `hostname` and `nproc`: what the sandbox says about the machine. It is a
//! Linux-like system (the applets behave as GNU's) named `sandbox`, on a 32-bit WebAssembly
//! "machine" with one processor: the same answers as the shell's `$HOSTNAME`, `$OSTYPE` and
//! `$HOSTTYPE`.

use crate::applets::common::{conclude, out_str, parse_args, usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The host name (`hostname`, `uname -n`, the shell's `$HOSTNAME`).
pub const HOSTNAME: &str = "sandbox";
/// The machine (`uname -m`, `arch`, the shell's `$HOSTTYPE`).
pub const MACHINE: &str = "wasm32";

/// `uname`'s fields in the order it prints them: short flag, long flag, value.
const UNAME_FIELDS: [(char, &str, &str); 8] = [
    ('s', "kernel-name", "Linux"),
    ('n', "nodename", HOSTNAME),
    ('r', "kernel-release", "6.1.0-corral"),
    ('v', "kernel-version", "#1 SMP corral"),
    ('m', "machine", MACHINE),
    ('p', "processor", "unknown"),
    ('i', "hardware-platform", "unknown"),
    ('o', "operating-system", "GNU/Linux"),
];

/// The `uname` applet.
pub const UNAME: Applet = Applet {
    name: "uname",
    usage: "uname [OPTION]...\nPrint system information (with no option, the same as -s).\n  -a, --all                print all of the following, omitting -p and -i when unknown\n  -s, --kernel-name        the kernel name (Linux)\n  -n, --nodename           the host name (sandbox)\n  -r, --kernel-release     the kernel release\n  -v, --kernel-version     the kernel version\n  -m, --machine            the machine (wasm32)\n  -p, --processor          the processor (unknown)\n  -i, --hardware-platform  the hardware platform (unknown)\n  -o, --operating-system   the operating system (GNU/Linux)",
    help: Help::Anywhere,
    run: run_uname,
};

/// The `arch` applet (`uname -m`).
pub const ARCH: Applet = Applet {
    name: "arch",
    usage: "arch\nPrint the machine (wasm32), as uname -m does.",
    help: Help::Anywhere,
    run: run_arch,
};

/// The `hostname` applet.
pub const HOSTNAME_APPLET: Applet = Applet {
    name: "hostname",
    usage: "hostname [-s|-f|-d|-i]\nPrint the host name (sandbox); it cannot be changed.\n  -s, --short        the name up to its first dot\n  -f, --fqdn, --long the fully qualified name\n  -d, --domain       the DNS domain (none)\n  -i, --ip-address   the address of the name (loopback: the sandbox has no network)",
    help: Help::Anywhere,
    run: run_hostname,
};

/// The `nproc` applet.
pub const NPROC: Applet = Applet {
    name: "nproc",
    usage: "nproc [OPTION]...\nPrint the number of processors (1: the sandbox runs one command at a time).\n      --all       the number of installed processors\n      --ignore=N  exclude N processors if possible",
    help: Help::Anywhere,
    run: run_nproc,
};

const UNAME_SPEC: OptSpec = OptSpec {
    short: "asnrvmpio",
    short_val: "",
    long: &[
        "all",
        "kernel-name",
        "nodename",
        "kernel-release",
        "kernel-version",
        "machine",
        "processor",
        "hardware-platform",
        "operating-system",
    ],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

fn run_uname(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &UNAME_SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        if let Some(extra) = operands.first() {
            return usage_error(&mut ctx, format!("extra operand '{extra}'"), 1).await;
        }
        let all = opts.iter().any(|o| o.is('a', "all"));
        let wanted = |short: char, long: &str| opts.iter().any(|o| o.is(short, long));
        let mut fields: Vec<&str> = UNAME_FIELDS
            .iter()
            .filter(|(short, long, value)| wanted(*short, long) || (all && *value != "unknown"))
            .map(|(_, _, value)| *value)
            .collect();
        if fields.is_empty() {
            fields.push(UNAME_FIELDS[0].2);
        }
        let result = out_str(&mut ctx, &format!("{}\n", fields.join(" "))).await;
        conclude(&mut ctx, result.map(|()| 0)).await
    })
}

/// Prints `line` after checking that there are no operands (`arch`, `nproc`, `whoami`).
pub(crate) async fn print_alone(ctx: &mut Ctx, spec: &OptSpec, line: String) -> i32 {
    let operands = match parse_args(ctx, spec, 1).await {
        Ok((_, operands)) => operands,
        Err(status) => return status,
    };
    if let Some(extra) = operands.first() {
        return usage_error(ctx, format!("extra operand '{extra}'"), 1).await;
    }
    let result = out_str(ctx, &line).await;
    conclude(ctx, result.map(|()| 0)).await
}

fn run_arch(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(
        async move { print_alone(&mut ctx, &OptSpec::default(), format!("{MACHINE}\n")).await },
    )
}

const NPROC_SPEC: OptSpec = OptSpec {
    short: "",
    short_val: "",
    long: &["all"],
    long_val: &["ignore"],
    digits: None,
    stop_at_operand: false,
};

fn run_nproc(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        // One processor, and `--ignore` never takes the count below one.
        let ignore = ctx
            .args
            .iter()
            .filter_map(|a| a.strip_prefix("--ignore="))
            .find(|n| n.parse::<u64>().is_err())
            .map(str::to_string);
        if let Some(bad) = ignore {
            warn(&mut ctx, format!("invalid number: '{bad}'")).await;
            return 1;
        }
        print_alone(&mut ctx, &NPROC_SPEC, "1\n".into()).await
    })
}

const HOSTNAME_SPEC: OptSpec = OptSpec {
    short: "sfdi",
    short_val: "",
    long: &["short", "fqdn", "long", "domain", "ip-address"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

fn run_hostname(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &HOSTNAME_SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        if !operands.is_empty() {
            warn(&mut ctx, "you must be root to change the host name").await;
            return 1;
        }
        let line = match opts.last() {
            Some(o) if o.is('d', "domain") => "",
            Some(o) if o.is('i', "ip-address") => "127.0.1.1",
            _ => HOSTNAME,
        };
        let result = out_str(&mut ctx, &format!("{line}\n")).await;
        conclude(&mut ctx, result.map(|()| 0)).await
    })
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::err;
    use crate::applets::testing::{ok, run};

    #[test]
    fn uname_prints_its_fields_in_gnu_order() {
        assert_eq!(run("uname", &[], ""), ok("Linux\n"));
        assert_eq!(
            run("uname", &["-a"], ""),
            ok("Linux sandbox 6.1.0-corral #1 SMP corral wasm32 GNU/Linux\n")
        );
        assert_eq!(run("uname", &["-m", "-s"], ""), ok("Linux wasm32\n"));
        assert_eq!(run("uname", &["-pi"], ""), ok("unknown unknown\n"));
        assert_eq!(run("uname", &["--nodename"], ""), ok("sandbox\n"));
        assert_eq!(
            run("uname", &["a"], ""),
            err(
                "uname: extra operand 'a'\nTry 'uname --help' for more information.\n",
                1
            )
        );
    }

    #[test]
    fn arch_hostname_and_nproc() {
        assert_eq!(run("arch", &[], ""), ok("wasm32\n"));
        assert_eq!(run("hostname", &[], ""), ok("sandbox\n"));
        assert_eq!(run("hostname", &["-d"], ""), ok("\n"));
        assert_eq!(run("hostname", &["-f"], ""), ok("sandbox\n"));
        assert_eq!(
            run("hostname", &["other"], ""),
            err("hostname: you must be root to change the host name\n", 1)
        );
        assert_eq!(run("nproc", &[], ""), ok("1\n"));
        assert_eq!(run("nproc", &["--all", "--ignore=3"], ""), ok("1\n"));
        assert_eq!(run("nproc", &["--ignore=x"], "").status, 1);
    }
}
