//! jq's date functions: `gmtime`, `localtime`, `mktime`, `strftime`, `strflocaltime` and
//! `strptime` on "broken down time" arrays `[year, month0, mday, hours, minutes, seconds,
//! wday, yday]`. The calendar, the formats (`strftime` as the C library's) and the zone (`TZ`,
//! as the C library reads it) are the applets' shared ones; `mktime` is UTC, as jq's is
//! (`timegm`).

use super::val::{err, Res, Val};
use crate::applets::common::{civil, days_from_civil, strftime_in, Zone, DAYS, MONTHS};

/// A broken-down time.
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

/// The broken-down time of `t` seconds since the epoch in `zone` (fractions of a second kept).
fn tm_from_secs(t: f64, zone: &Zone) -> Tm {
    let secs = t.floor() as i64;
    let c = civil(secs + zone.at(secs).offset);
    Tm {
        year: c.year,
        mon: i64::from(c.month) - 1,
        mday: c.day.into(),
        hour: c.hour.into(),
        min: c.minute.into(),
        sec: f64::from(c.second) + (t - t.floor()),
        wday: c.weekday.into(),
        yday: c.yday.into(),
    }
}

/// Seconds since the epoch of a broken-down UTC time (`timegm`: fields out of range carry).
fn secs_from_tm(tm: &Tm) -> i64 {
    let days = days_from_civil(tm.year, tm.mon + 1, tm.mday);
    days * 86_400 + tm.hour * 3600 + tm.min * 60 + tm.sec.floor() as i64
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

/// `gmtime`, or `localtime` (named `name`) in `zone`.
pub fn gmtime(v: &Val, zone: &Zone, name: &str) -> Res<Val> {
    match v {
        Val::Num(n) => Ok(tm_to_val(&tm_from_secs(n.f, zone))),
        _ => Err(err(format!("{name}() requires numeric inputs"))),
    }
}

/// `mktime`: a broken-down time as UTC.
pub fn mktime(v: &Val) -> Res<Val> {
    let tm = tm_from_val(v, "mktime")?;
    Ok(Val::num(secs_from_tm(&tm) as f64))
}

/// `strftime(fmt)`, or `strflocaltime` (named `name`) in `zone`, on a number or a broken-down
/// time (a time in `zone`).
pub fn strftime(v: &Val, fmt: &Val, name: &str, zone: &Zone) -> Res<Val> {
    if !matches!(v, Val::Num(_) | Val::Arr(_)) {
        return Err(err(format!("{name}/1 requires parsed datetime inputs")));
    }
    let Val::Str(fmt) = fmt else {
        return Err(err(format!("{name}/1 requires a string format")));
    };
    let secs = match v {
        Val::Num(n) => n.f.floor() as i64,
        _ => {
            let local = secs_from_tm(&tm_from_val(v, &format!("{name}/1"))?);
            zone.to_utc(local)
                .unwrap_or_else(|| local - zone.at(local).offset)
        }
    };
    Ok(Val::from(strftime_in(fmt, secs, 0, zone)))
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
    let mut norm = tm_from_secs(secs_from_tm(&tm) as f64, &Zone::utc());
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
                let t = tm_from_secs(n as f64, &Zone::utc());
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
    fn broken_down_times() {
        let tm = tm_from_secs(1_425_599_507.5, &Zone::utc());
        assert_eq!(
            (tm.year, tm.mon, tm.mday, tm.wday, tm.yday, tm.sec),
            (2015, 2, 5, 4, 63, 47.5)
        );
        assert_eq!(secs_from_tm(&tm), 1_425_599_507);
        let tokyo = tm_from_secs(0.0, &Zone::from_tz(Some("JST-9")));
        assert_eq!((tokyo.year, tokyo.hour), (1970, 9));
    }
}
