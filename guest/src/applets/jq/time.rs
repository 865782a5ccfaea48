//! jq's date functions in UTC: `gmtime`, `mktime`, `strftime`, `strptime` on "broken down
//! time" arrays `[year, month0, mday, hours, minutes, seconds, wday, yday]`.

use super::val::{err, Res, Val};

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// A broken-down UTC time.
#[derive(Clone, Copy, Debug, Default)]
struct Tm {
    year: i64,
    mon: i64,
    mday: i64,
    hour: i64,
    min: i64,
    sec: f64,
    wday: i64,
    yday: i64,
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn tm_from_secs(t: f64) -> Tm {
    let secs = t.floor() as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, mon, mday) = civil_from_days(days);
    Tm {
        year,
        mon: mon - 1,
        mday,
        hour: rem / 3600,
        min: rem % 3600 / 60,
        sec: (rem % 60) as f64 + (t - t.floor()),
        wday: (days + 4).rem_euclid(7),
        yday: days - days_from_civil(year, 1, 1),
    }
}

fn secs_from_tm(tm: &Tm) -> f64 {
    let days = days_from_civil(tm.year, tm.mon + 1, tm.mday);
    (days * 86_400 + tm.hour * 3600 + tm.min * 60) as f64 + tm.sec.floor()
}

fn tm_to_val(tm: &Tm) -> Val {
    let nums = [
        tm.year as f64,
        tm.mon as f64,
        tm.mday as f64,
        tm.hour as f64,
        tm.min as f64,
        tm.sec,
        tm.wday as f64,
        tm.yday as f64,
    ];
    Val::arr(nums.iter().map(|&f| Val::num(f)).collect())
}

fn tm_from_val(v: &Val, what: &str) -> Res<Tm> {
    let Val::Arr(a) = v else {
        return Err(err(format!("{what} requires array inputs")));
    };
    // jq 1.8 takes missing trailing fields as 0 (`[2024,2,15] | mktime`).
    let nums: Option<Vec<f64>> = a.iter().map(Val::as_f64).collect();
    let nums = nums.filter(|n| !n.is_empty()).map(|mut n| {
        n.resize(n.len().max(6), 0.0);
        n
    });
    match nums.as_deref() {
        Some([y, mo, d, h, mi, s, rest @ ..]) => Ok(Tm {
            year: *y as i64,
            mon: *mo as i64,
            mday: *d as i64,
            hour: *h as i64,
            min: *mi as i64,
            sec: *s,
            wday: rest.first().map_or(0, |&w| w as i64),
            yday: rest.get(1).map_or(0, |&y| y as i64),
        }),
        _ => Err(err(format!("{what} requires parsed datetime inputs"))),
    }
}

/// `gmtime` (and `localtime`: the sandbox runs in UTC).
pub fn gmtime(v: &Val) -> Res<Val> {
    match v {
        Val::Num(n) => Ok(tm_to_val(&tm_from_secs(n.f))),
        _ => Err(err("gmtime() requires numeric inputs")),
    }
}

/// `mktime`.
pub fn mktime(v: &Val) -> Res<Val> {
    let tm = tm_from_val(v, "mktime")?;
    Ok(Val::num(secs_from_tm(&tm)))
}

/// `strftime(fmt)` (or `strflocaltime`, named `name`) on a number or a broken-down time.
pub fn strftime(v: &Val, fmt: &Val, name: &str) -> Res<Val> {
    let Val::Str(fmt) = fmt else {
        return Err(err(format!("{name}/1 requires a string format")));
    };
    let tm = match v {
        Val::Num(n) => tm_from_secs(n.f),
        Val::Arr(_) => {
            let tm = tm_from_val(v, &format!("{name}/1"))?;
            tm_from_secs(secs_from_tm(&tm))
        }
        _ => return Err(err(format!("{name}/1 requires parsed datetime inputs"))),
    };
    Ok(Val::from(format_tm(&tm, fmt)))
}

fn format_tm(tm: &Tm, fmt: &str) -> String {
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(spec) => format_spec(&mut out, tm, spec),
            None => out.push('%'),
        }
    }
    out
}

fn format_spec(out: &mut String, tm: &Tm, spec: char) {
    let hour12 = if tm.hour % 12 == 0 { 12 } else { tm.hour % 12 };
    let sec = tm.sec.floor() as i64;
    let text = match spec {
        'Y' => tm.year.to_string(),
        'C' => format!("{:02}", tm.year.div_euclid(100)),
        'y' => format!("{:02}", tm.year.rem_euclid(100)),
        'm' => format!("{:02}", tm.mon + 1),
        'd' => format!("{:02}", tm.mday),
        'e' => format!("{:2}", tm.mday),
        'H' => format!("{:02}", tm.hour),
        'k' => format!("{:2}", tm.hour),
        'I' => format!("{hour12:02}"),
        'l' => format!("{hour12:2}"),
        'M' => format!("{:02}", tm.min),
        'S' => format!("{sec:02}"),
        'j' => format!("{:03}", tm.yday + 1),
        'a' => DAYS[tm.wday.rem_euclid(7) as usize][..3].to_string(),
        'A' => DAYS[tm.wday.rem_euclid(7) as usize].to_string(),
        'b' | 'h' => MONTHS[tm.mon.rem_euclid(12) as usize][..3].to_string(),
        'B' => MONTHS[tm.mon.rem_euclid(12) as usize].to_string(),
        'p' => if tm.hour < 12 { "AM" } else { "PM" }.to_string(),
        'P' => if tm.hour < 12 { "am" } else { "pm" }.to_string(),
        'Z' => "UTC".to_string(),
        'z' => "+0000".to_string(),
        's' => (secs_from_tm(tm) as i64).to_string(),
        'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
        'w' => tm.wday.to_string(),
        'n' => "\n".to_string(),
        't' => "\t".to_string(),
        '%' => "%".to_string(),
        'D' => format_tm(tm, "%m/%d/%y"),
        'F' => format_tm(tm, "%Y-%m-%d"),
        'T' => format_tm(tm, "%H:%M:%S"),
        'R' => format_tm(tm, "%H:%M"),
        'r' => format_tm(tm, "%I:%M:%S %p"),
        'c' => format_tm(tm, "%a %b %e %H:%M:%S %Y"),
        'x' => format_tm(tm, "%m/%d/%y"),
        'X' => format_tm(tm, "%H:%M:%S"),
        'G' => iso_week(tm).0.to_string(),
        'g' => format!("{:02}", iso_week(tm).0.rem_euclid(100)),
        'V' => format!("{:02}", iso_week(tm).1),
        'U' => format!("{:02}", (tm.yday + 7 - tm.wday) / 7),
        'W' => format!("{:02}", (tm.yday + 7 - (tm.wday + 6) % 7) / 7),
        other => format!("%{other}"),
    };
    out.push_str(&text);
}

/// The ISO 8601 week-based year and week number.
fn iso_week(tm: &Tm) -> (i64, i64) {
    let weekday = (tm.wday + 6).rem_euclid(7); // Monday = 0
    let week = (tm.yday - weekday + 10) / 7;
    if week < 1 {
        let prev = tm.year - 1;
        let prev_days = days_from_civil(tm.year, 1, 1) - days_from_civil(prev, 1, 1);
        let prev_tm = Tm {
            year: prev,
            yday: tm.yday + prev_days,
            ..*tm
        };
        return iso_week(&prev_tm);
    }
    let year_days = days_from_civil(tm.year + 1, 1, 1) - days_from_civil(tm.year, 1, 1);
    if week == 53 && tm.yday - weekday + 3 >= year_days {
        return (tm.year + 1, 1);
    }
    (tm.year, week)
}

/// `strptime(fmt)`: parses a date string into a broken-down time.
pub fn strptime(v: &Val, fmt: &Val) -> Res<Val> {
    let (Val::Str(s), Val::Str(f)) = (v, fmt) else {
        return Err(err("strptime/1 requires string inputs and arguments"));
    };
    let fail = || err(format!("date \"{s}\" does not match format \"{f}\""));
    let mut tm = Tm {
        year: 1900,
        mday: 1,
        ..Tm::default()
    };
    let mut offset = 0;
    let rest = parse_with(s, f, &mut tm, &mut offset).ok_or_else(fail)?;
    if !rest.is_empty() {
        return Err(fail());
    }
    // like glibc's timegm, the parsed %z offset does not shift the time
    let _ = offset;
    let secs = secs_from_tm(&tm);
    let mut norm = tm_from_secs(secs);
    norm.sec = tm.sec;
    Ok(tm_to_val(&norm))
}

fn take_num<'a>(s: &'a str, max: usize, value: &mut i64) -> Option<&'a str> {
    let (sign, body) = match s.strip_prefix(['+', '-']) {
        Some(rest) if max > 2 => (if s.starts_with('-') { -1 } else { 1 }, rest),
        _ => (1, s),
    };
    let len = body
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    if len == 0 {
        return None;
    }
    *value = sign * body[..len].parse::<i64>().ok()?;
    Some(&body[len..])
}

fn take_name<'a>(s: &'a str, names: &[&str], value: &mut i64) -> Option<&'a str> {
    for (i, name) in names.iter().enumerate() {
        for candidate in [*name, &name[..3]] {
            if s.len() >= candidate.len()
                && s.is_char_boundary(candidate.len())
                && s[..candidate.len()].eq_ignore_ascii_case(candidate)
            {
                *value = i as i64;
                return Some(&s[candidate.len()..]);
            }
        }
    }
    None
}

fn parse_with<'a>(s: &'a str, fmt: &str, tm: &mut Tm, offset: &mut i64) -> Option<&'a str> {
    let mut s = s;
    let mut chars = fmt.chars();
    let mut pm: Option<bool> = None;
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            s = s.trim_start();
            continue;
        }
        if c != '%' {
            s = s.strip_prefix(c)?;
            continue;
        }
        let mut n = 0;
        s = match chars.next()? {
            'Y' => take_num(s, 4, &mut tm.year)?,
            'm' => {
                let r = take_num(s, 2, &mut n)?;
                tm.mon = n - 1;
                r
            }
            'd' | 'e' => take_num(s.trim_start(), 2, &mut tm.mday)?,
            'H' | 'k' => take_num(s.trim_start(), 2, &mut tm.hour)?,
            'I' | 'l' => take_num(s.trim_start(), 2, &mut tm.hour)?,
            'M' => take_num(s, 2, &mut tm.min)?,
            'S' => {
                let r = take_num(s, 2, &mut n)?;
                tm.sec = n as f64;
                r
            }
            'y' => {
                let r = take_num(s, 2, &mut n)?;
                tm.year = if n < 69 { 2000 + n } else { 1900 + n };
                r
            }
            'j' => {
                let r = take_num(s, 3, &mut n)?;
                tm.yday = n - 1;
                r
            }
            'a' | 'A' => take_name(s, &DAYS, &mut tm.wday)?,
            'b' | 'B' | 'h' => take_name(s, &MONTHS, &mut tm.mon)?,
            'p' => {
                let upper = s.get(..2)?.to_ascii_uppercase();
                pm = Some(upper == "PM");
                if upper != "AM" && upper != "PM" {
                    return None;
                }
                &s[2..]
            }
            'Z' => s.trim_start_matches(|c: char| c.is_ascii_alphabetic()),
            'z' => parse_zone(s, offset)?,
            's' => {
                let r = take_num(s, 20, &mut n)?;
                let t = tm_from_secs(n as f64);
                *tm = t;
                r
            }
            'T' => parse_with(s, "%H:%M:%S", tm, offset)?,
            'F' => parse_with(s, "%Y-%m-%d", tm, offset)?,
            'D' => parse_with(s, "%m/%d/%y", tm, offset)?,
            'R' => parse_with(s, "%H:%M", tm, offset)?,
            'n' | 't' => s.trim_start(),
            '%' => s.strip_prefix('%')?,
            _ => return None,
        };
    }
    if let Some(pm) = pm {
        tm.hour = tm.hour % 12 + if pm { 12 } else { 0 };
    }
    Some(s)
}

fn parse_zone<'a>(s: &'a str, offset: &mut i64) -> Option<&'a str> {
    if let Some(rest) = s.strip_prefix('Z') {
        return Some(rest);
    }
    let sign = match s.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let digits: String = s[1..].chars().filter(|c| *c != ':').take(4).collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i64 = digits[..2].parse().ok()?;
    let minutes: i64 = digits[2..].parse().ok()?;
    *offset = sign * (hours * 3600 + minutes * 60);
    let used = if s[1..].starts_with(|c: char| c.is_ascii_digit()) && s.get(3..4) == Some(":") {
        6
    } else {
        5
    };
    s.get(used..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        for days in [-1_000_000, -1, 0, 16_500, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        let tm = tm_from_secs(1_425_599_507.0);
        assert_eq!(
            (tm.year, tm.mon, tm.mday, tm.wday, tm.yday),
            (2015, 2, 5, 4, 63)
        );
    }
}
