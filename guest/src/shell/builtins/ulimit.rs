//! `ulimit [-SHa] [-cdefilmnpqrstuvxR [limit]] ...`: resource limits in bash's format. The
//! sandbox enforces its own limits (time, memory, output, files); these are the values a
//! small Linux box shows, which a script may lower (and raise up to the hard limit).

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

const USAGE: &str = "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]";

/// `ulimit`.
pub(crate) const ULIMIT: Builtin = Builtin {
    name: "ulimit",
    synopsis: "ulimit [-SHa] [-cdefilmnpqrstuvxR] [limit] — show or lower resource limits \
               (the sandbox enforces its own time, memory and file limits)",
    run,
};

/// A resource: its letter, description, unit, and soft and hard defaults (None: unlimited).
struct Resource {
    letter: char,
    description: &'static str,
    unit: Option<&'static str>,
    soft: Option<u64>,
    hard: Option<u64>,
}

const fn res(
    letter: char,
    description: &'static str,
    unit: Option<&'static str>,
    soft: Option<u64>,
    hard: Option<u64>,
) -> Resource {
    Resource {
        letter,
        description,
        unit,
        soft,
        hard,
    }
}

/// Every resource, in `ulimit -a` order.
const RESOURCES: &[Resource] = &[
    res(
        'R',
        "real-time non-blocking time",
        Some("microseconds"),
        None,
        None,
    ),
    res('c', "core file size", Some("blocks"), Some(0), None),
    res('d', "data seg size", Some("kbytes"), None, None),
    res('e', "scheduling priority", None, Some(0), Some(0)),
    res('f', "file size", Some("blocks"), None, None),
    res('i', "pending signals", None, Some(7823), Some(7823)),
    res(
        'l',
        "max locked memory",
        Some("kbytes"),
        Some(8192),
        Some(8192),
    ),
    res('m', "max memory size", Some("kbytes"), None, None),
    res('n', "open files", None, Some(1024), Some(1_048_576)),
    res('p', "pipe size", Some("512 bytes"), Some(8), Some(8)),
    res(
        'q',
        "POSIX message queues",
        Some("bytes"),
        Some(819_200),
        Some(819_200),
    ),
    res('r', "real-time priority", None, Some(0), Some(0)),
    res('s', "stack size", Some("kbytes"), Some(8192), None),
    res('t', "cpu time", Some("seconds"), None, None),
    res('u', "max user processes", None, Some(7823), Some(7823)),
    res('v', "virtual memory", Some("kbytes"), None, None),
    res('x', "file locks", None, None, None),
];

fn resource(letter: char) -> Option<(usize, &'static Resource)> {
    RESOURCES
        .iter()
        .enumerate()
        .find(|(_, r)| r.letter == letter)
}

/// The (soft, hard) limits of resource `index` now.
fn current(ctx: &Ctx, index: usize) -> (Option<u64>, Option<u64>) {
    let set = ctx.sh.state.borrow().ulimits.get(&index).copied();
    set.unwrap_or((RESOURCES[index].soft, RESOURCES[index].hard))
}

fn shown(limit: Option<u64>) -> String {
    limit.map_or_else(|| "unlimited".into(), |n| n.to_string())
}

/// `description (unit, -x) `, padded as bash pads it.
fn label(r: &Resource) -> String {
    let inner = match r.unit {
        Some(unit) => format!("({unit}, -{}) ", r.letter),
        None => format!("(-{}) ", r.letter),
    };
    format!("{:<20} {inner:>20}", r.description)
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (mut soft, mut hard, mut all) = (false, false, false);
        let mut wanted: Vec<(usize, Option<String>)> = Vec::new();
        let args = ctx.operands().to_vec();
        let mut i = 0;
        let mut loose_value = None;
        while let Some(arg) = args.get(i) {
            i += 1;
            let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
                loose_value.get_or_insert_with(|| arg.clone());
                continue;
            };
            for letter in letters.chars() {
                match letter {
                    'S' => soft = true,
                    'H' => hard = true,
                    'a' => all = true,
                    l => match resource(l) {
                        Some((index, _)) => wanted.push((index, None)),
                        None => return ctx.bad_option(&format!("-{l}"), USAGE).await,
                    },
                }
            }
            let value = args.get(i).filter(|a| !a.starts_with('-'));
            if let (Some(value), Some(last)) = (value, wanted.last_mut()) {
                last.1 = Some(value.clone());
                i += 1;
            }
        }
        if all {
            let text: String = (0..RESOURCES.len())
                .map(|index| line(&ctx, index, hard && !soft, true))
                .collect();
            return ctx.print_status(&text).await;
        }
        if wanted.is_empty() {
            wanted.push((4, None));
        }
        if let (Some(value), Some(last)) = (loose_value, wanted.last_mut()) {
            last.1.get_or_insert(value);
        }
        let labelled = wanted.len() > 1;
        let mut out = String::new();
        let mut status = 0;
        for (index, value) in wanted {
            match value {
                None => out.push_str(&line(&ctx, index, hard && !soft, labelled)),
                Some(value) => {
                    let (set_soft, set_hard) = if soft || hard {
                        (soft, hard)
                    } else {
                        (true, true)
                    };
                    if let Err(message) = set(&ctx, index, &value, set_soft, set_hard) {
                        ctx.out(&out).await;
                        out.clear();
                        ctx.fail(&message, 1).await;
                        status = 1;
                    }
                }
            }
        }
        if !ctx.out(&out).await {
            return Flow::Normal(1);
        }
        Flow::Normal(status)
    })
}

fn line(ctx: &Ctx, index: usize, hard: bool, labelled: bool) -> String {
    let (soft_limit, hard_limit) = current(ctx, index);
    let value = shown(if hard { hard_limit } else { soft_limit });
    if labelled {
        format!("{}{value}\n", label(&RESOURCES[index]))
    } else {
        format!("{value}\n")
    }
}

/// Sets resource `index` to `value` (a number, `unlimited`, `soft` or `hard`).
fn set(ctx: &Ctx, index: usize, value: &str, soft: bool, hard: bool) -> Result<(), String> {
    let (soft_limit, hard_limit) = current(ctx, index);
    let limit = match value {
        "unlimited" => None,
        "hard" => hard_limit,
        "soft" => soft_limit,
        n => {
            let number = n
                .parse::<u64>()
                .map_err(|_| format!("{n}: invalid number"))?;
            // bash checks the value in bytes (or the resource's own unit) fits.
            let scale = match RESOURCES[index].unit {
                Some("blocks" | "512 bytes") => 512,
                Some("kbytes") => 1024,
                _ => 1,
            };
            number
                .checked_mul(scale)
                .filter(|bytes| *bytes <= i64::MAX as u64)
                .ok_or(format!("{n}: limit out of range"))?;
            Some(number)
        }
    };
    let above = |limit: Option<u64>, ceiling: Option<u64>| match (limit, ceiling) {
        (_, None) => false,
        (None, Some(_)) => true,
        (Some(l), Some(c)) => l > c,
    };
    let new_hard = if hard { limit } else { hard_limit };
    let new_soft = if soft { limit } else { soft_limit };
    if above(new_hard, hard_limit) || above(new_soft, new_hard) {
        let what = RESOURCES[index].description;
        return Err(format!(
            "{what}: cannot modify limit: Operation not permitted"
        ));
    }
    ctx.sh
        .state
        .borrow_mut()
        .ulimits
        .insert(index, (new_soft, new_hard));
    Ok(())
}
