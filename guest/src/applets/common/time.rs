//! Calendar arithmetic (proleptic Gregorian, always UTC), `strftime` as GNU `date` formats,
//! and the date strings `date -d` and `touch -d` accept.

use std::sync::OnceLock;

use regex::Regex;

use super::zone::{Local, Zone};
use crate::limits::MAX_PRINTF_FIELD;

/// A moment broken down into calendar fields (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year, e.g. 2026.
    pub year: i64,
    /// Month, 1-12.
    pub month: u32,
    /// Day of the month, 1-31.
    pub day: u32,
    /// Hour, 0-23.
    pub hour: u32,
    /// Minute, 0-59.
    pub minute: u32,
    /// Second, 0-59.
    pub second: u32,
    /// Day of the week, 0 = Sunday.
    pub weekday: u32,
    /// Day of the year, 0-365.
    pub yday: u32,
}

/// Days since 1970-01-01 of a date (month and day may be out of range: they carry over).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = year + (month - 1).div_euclid(12);
    let month = (month - 1).rem_euclid(12) + 1;
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468 + (day - 1)
}

/// The calendar fields of `secs` seconds since the epoch.
pub fn civil(secs: i64) -> Civil {
    let days = secs.div_euclid(86_400);
    let rest = secs.rem_euclid(86_400) as u32;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    let yday = (days - days_from_civil(year, 1, 1)) as u32;
    Civil {
        year,
        month,
        day,
        hour: rest / 3600,
        minute: rest / 60 % 60,
        second: rest % 60,
        weekday: (days + 4).rem_euclid(7) as u32,
        yday,
    }
}

/// The names of the days of the week, Sunday first (the C locale's).
pub const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
/// The names of the months (the C locale's).
pub const MONTHS: [&str; 12] = [
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

/// How a conversion pads: `%-d` none, `%_d` spaces, `%0e` zeros.
#[derive(Clone, Copy, PartialEq)]
enum Pad {
    Default,
    None,
    Space,
    Zero,
}

/// Formats a moment like GNU `strftime` in the C locale, in UTC (`%Z` is `UTC`).
pub fn strftime(format: &str, secs: i64, nanos: u32) -> String {
    let utc = Local {
        offset: 0,
        abbr: "UTC",
        dst: false,
    };
    format_local(format, secs, nanos, &utc)
}

/// Formats a moment like GNU `strftime` in the C locale, in `zone`.
pub fn strftime_in(format: &str, secs: i64, nanos: u32, zone: &Zone) -> String {
    format_local(format, secs, nanos, &zone.at(secs))
}

fn format_local(format: &str, secs: i64, nanos: u32, local: &Local<'_>) -> String {
    let tm = civil(secs + local.offset);
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
        let (mut pad, mut upper, mut swap) = (Pad::Default, false, false);
        while let Some(&flag) = chars.get(i) {
            match flag {
                '-' => pad = Pad::None,
                '_' => pad = Pad::Space,
                '0' => pad = Pad::Zero,
                '^' => upper = true,
                '#' => swap = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = None;
        while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
            // GNU pads to any width it can allocate; here a width stops at printf's bound.
            let wider = width
                .unwrap_or(0usize)
                .saturating_mul(10)
                .saturating_add(d as usize);
            width = Some(wider.min(MAX_PRINTF_FIELD as usize));
            i += 1;
        }
        let mut colons = 0;
        while chars.get(i) == Some(&':') {
            colons += 1;
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            out.extend(&chars[start..]);
            break;
        };
        i += 1;
        let spec = Spec {
            pad,
            width,
            upper,
            swap,
        };
        match expand(conv, colons, &tm, (secs, nanos), local, spec) {
            Some(text) => out.push_str(&text),
            None => out.extend(&chars[start..i]),
        }
    }
    out
}

#[derive(Clone, Copy)]
struct Spec {
    pad: Pad,
    width: Option<usize>,
    upper: bool,
    swap: bool,
}

/// One conversion; None when `conv` is unknown (it is then printed as written).
fn expand(
    conv: char,
    colons: usize,
    tm: &Civil,
    (secs, nanos): (i64, u32),
    local: &Local<'_>,
    spec: Spec,
) -> Option<String> {
    let again = |format: &str| format_local(format, secs, nanos, local);
    let num = |value: i64, digits: usize| number(value, digits, '0', spec);
    let spaced = |value: i64, digits: usize| number(value, digits, ' ', spec);
    let text = |s: &str| word(s, spec);
    let hour12 = |h: u32| i64::from(if h.is_multiple_of(12) { 12 } else { h % 12 });
    let (iso_year, iso_week) = iso_week(tm);
    Some(match (conv, colons) {
        ('a', 0) => text(&DAYS[tm.weekday as usize][..3]),
        ('A', 0) => text(DAYS[tm.weekday as usize]),
        ('b' | 'h', 0) => text(&MONTHS[tm.month as usize - 1][..3]),
        ('B', 0) => text(MONTHS[tm.month as usize - 1]),
        ('c', 0) => text(&again("%a %b %e %H:%M:%S %Y")),
        ('C', 0) => num(tm.year.div_euclid(100), 2),
        ('d', 0) => num(tm.day.into(), 2),
        ('D' | 'x', 0) => text(&again("%m/%d/%y")),
        ('e', 0) => spaced(tm.day.into(), 2),
        ('F', 0) => text(&again("%Y-%m-%d")),
        ('g', 0) => num(iso_year.rem_euclid(100), 2),
        ('G', 0) => num(iso_year, 4),
        ('H', 0) => num(tm.hour.into(), 2),
        ('I', 0) => num(hour12(tm.hour), 2),
        ('j', 0) => num(i64::from(tm.yday) + 1, 3),
        ('k', 0) => spaced(tm.hour.into(), 2),
        ('l', 0) => spaced(hour12(tm.hour), 2),
        ('m', 0) => num(tm.month.into(), 2),
        ('M', 0) => num(tm.minute.into(), 2),
        ('n', 0) => "\n".to_string(),
        ('N', 0) => fraction(nanos, spec),
        ('p', 0) => text(if tm.hour < 12 { "AM" } else { "PM" }),
        ('P', 0) => text(if tm.hour < 12 { "am" } else { "pm" }),
        ('q', 0) => num(i64::from((tm.month - 1) / 3 + 1), 1),
        ('r', 0) => text(&again("%I:%M:%S %p")),
        ('R', 0) => text(&again("%H:%M")),
        ('s', 0) => num(secs, 1),
        ('S', 0) => num(tm.second.into(), 2),
        ('t', 0) => "\t".to_string(),
        ('T' | 'X', 0) => text(&again("%H:%M:%S")),
        ('u', 0) => num(i64::from(if tm.weekday == 0 { 7 } else { tm.weekday }), 1),
        ('U', 0) => num(i64::from((tm.yday + 7 - tm.weekday) / 7), 2),
        ('V', 0) => num(iso_week, 2),
        ('w', 0) => num(tm.weekday.into(), 1),
        ('W', 0) => num(i64::from((tm.yday + 7 - (tm.weekday + 6) % 7) / 7), 2),
        ('y', 0) => num(tm.year.rem_euclid(100), 2),
        ('Y', 0) => num(tm.year, 4),
        ('z', 0..=3) => text(&numeric_zone(local.offset, colons)),
        ('Z', 0) => text(local.abbr),
        ('%', 0) => "%".to_string(),
        _ => return None,
    })
}

/// `%z` (`+hhmm`), `%:z` (`+hh:mm`), `%::z` (`+hh:mm:ss`), `%:::z` (`+hh`, with `:mm` only
/// when the offset has minutes).
fn numeric_zone(offset: i64, colons: usize) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let a = offset.abs();
    let (h, m, s) = (a / 3600, a / 60 % 60, a % 60);
    match colons {
        0 => format!("{sign}{h:02}{m:02}"),
        1 => format!("{sign}{h:02}:{m:02}"),
        2 => format!("{sign}{h:02}:{m:02}:{s:02}"),
        _ if m == 0 && s == 0 => format!("{sign}{h:02}"),
        _ if s == 0 => format!("{sign}{h:02}:{m:02}"),
        _ => format!("{sign}{h:02}:{m:02}:{s:02}"),
    }
}

/// The ISO 8601 week-numbering year and week of `tm`.
fn iso_week(tm: &Civil) -> (i64, i64) {
    let wday = i64::from((tm.weekday + 6) % 7); // Monday = 0
    let yday = i64::from(tm.yday);
    let week = (yday - wday + 10) / 7;
    let year_days = |y: i64| days_from_civil(y + 1, 1, 1) - days_from_civil(y, 1, 1);
    if week < 1 {
        let prev = tm.year - 1;
        let prev_yday = yday + year_days(prev);
        return (prev, (prev_yday - wday + 10) / 7);
    }
    if week == 53 {
        // Week 53 exists only when Dec 31 falls on Thursday or later in the ISO week.
        let dec31_wday = (wday + (year_days(tm.year) - 1 - yday)).rem_euclid(7);
        if dec31_wday < 3 {
            return (tm.year + 1, 1);
        }
    }
    (tm.year, week)
}

/// A number padded to `digits` (or the width given) with `fill`, as the flags say.
fn number(value: i64, digits: usize, fill: char, spec: Spec) -> String {
    let fill = match spec.pad {
        Pad::Default => fill,
        Pad::Zero => '0',
        Pad::Space => ' ',
        Pad::None => return value.to_string(),
    };
    let width = spec.width.unwrap_or(digits);
    let digits_text = value.unsigned_abs().to_string();
    let sign = if value < 0 { "-" } else { "" };
    let len = sign.len() + digits_text.len();
    if len >= width {
        return format!("{sign}{digits_text}");
    }
    let padding: String = std::iter::repeat_n(fill, width - len).collect();
    if fill == '0' {
        format!("{sign}{padding}{digits_text}")
    } else {
        format!("{padding}{sign}{digits_text}")
    }
}

/// A word, with `^` (upper case), `#` (swap case: names go upper) and width padding.
fn word(s: &str, spec: Spec) -> String {
    let mut text = if spec.upper || spec.swap {
        s.to_uppercase()
    } else {
        s.to_string()
    };
    if let Some(width) = spec.width {
        let len = text.chars().count();
        if len < width && spec.pad != Pad::None {
            let fill = if spec.pad == Pad::Zero { '0' } else { ' ' };
            let padding: String = std::iter::repeat_n(fill, width - len).collect();
            text = padding + &text;
        }
    }
    text
}

/// `%N`: nanoseconds, the width giving the number of digits (`%3N` = milliseconds).
fn fraction(nanos: u32, spec: Spec) -> String {
    let full = format!("{nanos:09}");
    let width = spec.width.unwrap_or(9);
    if width <= 9 {
        full[..width].to_string()
    } else {
        full + &"0".repeat(width - 9)
    }
}

/// Why a date string was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateError;

/// What a date string said: absolute parts and relative adjustments.
#[derive(Default)]
struct Parsed {
    date: Option<(i64, i64, i64)>,
    time: Option<(i64, i64, i64, u32)>,
    zone: Option<i64>,
    weekday: Option<(i64, i64)>,
    months: i64,
    days: i64,
    seconds: i64,
}

fn rx(cell: &'static OnceLock<Option<Regex>>, pattern: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

macro_rules! pattern {
    ($name:ident, $re:expr) => {
        fn $name() -> Option<&'static Regex> {
            static CELL: OnceLock<Option<Regex>> = OnceLock::new();
            rx(&CELL, $re)
        }
    };
}

const MONTH_RE: &str = "(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?";
const UNIT_RE: &str =
    "(years?|months?|fortnights?|weeks?|days?|hours?|minutes?|mins?|seconds?|secs?)";

pattern!(iso_re, r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:t|\s+|$|[^\d:])");
pattern!(basic_re, r"^(\d{4})(\d{2})(\d{2})\b");
pattern!(us_re, r"^(\d{1,2})/(\d{1,2})/(\d{2,4})\b");
pattern!(slash_re, r"^(\d{4})/(\d{1,2})/(\d{1,2})\b");
pattern!(
    month_day_re,
    &format!(r"^{MONTH_RE}\s*(\d{{1,2}})(?:st|nd|rd|th)?\b,?(?:\s+(\d{{4}})\b)?")
);
pattern!(
    day_month_re,
    &format!(r"^(\d{{1,2}})(?:\s+|-){MONTH_RE}(?:(?:\s+|-)(\d{{4}})\b)?")
);
pattern!(
    time_re,
    r"^(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d+))?)?(?:\s*([ap])\.?m\.?\b)?"
);
pattern!(hour_ampm_re, r"^(\d{1,2})\s*([ap])\.?m\.?\b");
pattern!(zone_re, r"^(?:([a-z]{1,4})\b|([+-])(\d{2}):?(\d{2})\b)");
pattern!(year_re, r"^(\d{4})\b");

/// The zone abbreviations GNU `date -d` knows best, with their offsets in minutes.
const ZONES: &[(&str, i64)] = &[
    ("z", 0),
    ("ut", 0),
    ("utc", 0),
    ("gmt", 0),
    ("wet", 0),
    ("west", 60),
    ("bst", 60),
    ("cet", 60),
    ("met", 60),
    ("cest", 120),
    ("eet", 120),
    ("eest", 180),
    ("msk", 180),
    ("ist", 330),
    ("jst", 540),
    ("ast", -240),
    ("adt", -180),
    ("est", -300),
    ("edt", -240),
    ("cst", -360),
    ("cdt", -300),
    ("mst", -420),
    ("mdt", -360),
    ("pst", -480),
    ("pdt", -420),
    ("akst", -540),
    ("akdt", -480),
    ("hst", -600),
];
pattern!(
    rel_re,
    &format!(r"^(?:([+-]?)\s*(\d+)\s*|(next|last|this)\s+)?{UNIT_RE}\b(\s+ago\b)?")
);
pattern!(
    weekday_re,
    r"^(?:(next|last|this)\s+)?(sun|mon|tue|wed|thu|fri|sat)[a-z]*\.?\b,?"
);
pattern!(word_re, r"^(now|today|yesterday|tomorrow)\b");

fn month_number(name: &str) -> i64 {
    let names = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    names
        .iter()
        .position(|m| name.starts_with(m))
        .map_or(1, |i| i as i64 + 1)
}

fn int(caps: &regex::Captures<'_>, i: usize) -> Option<i64> {
    caps.get(i).and_then(|m| m.as_str().parse().ok())
}

/// Parses what `date -d` accepts: `@EPOCH[.frac]`, ISO dates and times (`2024-01-15`,
/// `2024-01-15T10:30:00Z`, `10:30 +0530`), `Nov 15 2023`, `12/25/2023`, weekdays, and
/// relative items (`yesterday`, `3 days ago`, `+2 hours`, `next week`). Returns seconds and
/// nanoseconds since the epoch; `now` fills in what the string leaves out.
pub fn parse_date(text: &str, now_secs: i64, now_nanos: u32) -> Result<(i64, u32), DateError> {
    parse_date_in(text, now_secs, now_nanos, &Zone::utc())
}

/// [`parse_date`] for local times in `zone` (a leading `TZ="NAME"` item chooses another).
pub fn parse_date_in(
    text: &str,
    now_secs: i64,
    now_nanos: u32,
    zone: &Zone,
) -> Result<(i64, u32), DateError> {
    let trimmed = text.trim_start();
    if let Some(rest) = trimmed.strip_prefix("TZ=\"") {
        let (tz, rest) = rest.split_once('"').ok_or(DateError)?;
        return parse_date_in(rest, now_secs, now_nanos, &Zone::from_tz(Some(tz)));
    }
    let lower = text.trim().to_lowercase();
    if let Some(epoch) = lower.strip_prefix('@') {
        return parse_epoch(epoch.trim());
    }
    let parsed = parse_items(&lower)?;
    resolve(&parsed, lower.is_empty(), (now_secs, now_nanos), zone)
}

fn parse_epoch(text: &str) -> Result<(i64, u32), DateError> {
    let (int_part, frac) = text.split_once('.').unwrap_or((text, ""));
    let secs: i64 = int_part.parse().map_err(|_| DateError)?;
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DateError);
    }
    let digits: String = frac.chars().chain(std::iter::repeat('0')).take(9).collect();
    let nanos: u32 = digits.parse().map_err(|_| DateError)?;
    if secs < 0 && nanos > 0 {
        return Ok((secs - 1, 1_000_000_000 - nanos));
    }
    Ok((secs, nanos))
}

fn parse_items(text: &str) -> Result<Parsed, DateError> {
    let mut p = Parsed::default();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let used = parse_one(rest, &mut p)?;
        rest = rest[used..].trim_start();
    }
    Ok(p)
}

/// Consumes one item at the start of `s`; returns how many bytes it used.
fn parse_one(s: &str, p: &mut Parsed) -> Result<usize, DateError> {
    if let Some(c) = iso_re().and_then(|r| r.captures(s)) {
        let (y, m, d) = (int(&c, 1), int(&c, 2), int(&c, 3));
        p.date = Some((
            y.ok_or(DateError)?,
            m.ok_or(DateError)?,
            d.ok_or(DateError)?,
        ));
        let whole = c.get(0).map_or(0, |m| m.end());
        // The separator after the date belongs to what follows, except `T`.
        let sep = s[..whole].chars().last();
        return Ok(if sep == Some('t') {
            whole
        } else {
            c.get(3).map_or(whole, |m| m.end())
        });
    }
    for re in [basic_re(), slash_re()].into_iter().flatten() {
        if let Some(c) = re.captures(s) {
            p.date = Some((
                int(&c, 1).ok_or(DateError)?,
                int(&c, 2).ok_or(DateError)?,
                int(&c, 3).ok_or(DateError)?,
            ));
            return Ok(c.get(0).map_or(0, |m| m.end()));
        }
    }
    if let Some(c) = us_re().and_then(|r| r.captures(s)) {
        let mut year = int(&c, 3).ok_or(DateError)?;
        if year < 100 {
            year += if year < 69 { 2000 } else { 1900 };
        }
        p.date = Some((
            year,
            int(&c, 1).ok_or(DateError)?,
            int(&c, 2).ok_or(DateError)?,
        ));
        return Ok(c.get(0).map_or(0, |m| m.end()));
    }
    if let Some(c) = month_day_re().and_then(|r| r.captures(s)) {
        let month = month_number(c.get(1).map_or("", |m| m.as_str()));
        p.date = Some((
            int(&c, 3).unwrap_or(i64::MIN),
            month,
            int(&c, 2).ok_or(DateError)?,
        ));
        return Ok(c.get(0).map_or(0, |m| m.end()));
    }
    if let Some(c) = day_month_re().and_then(|r| r.captures(s)) {
        let month = month_number(c.get(2).map_or("", |m| m.as_str()));
        p.date = Some((
            int(&c, 3).unwrap_or(i64::MIN),
            month,
            int(&c, 1).ok_or(DateError)?,
        ));
        return Ok(c.get(0).map_or(0, |m| m.end()));
    }
    if let Some(used) = parse_time(s, p)? {
        return Ok(used);
    }
    if let Some(used) = parse_relative(s, p)? {
        return Ok(used);
    }
    Err(DateError)
}

/// Times, zones, weekdays and the words `now`/`today`/`yesterday`/`tomorrow`.
fn parse_time(s: &str, p: &mut Parsed) -> Result<Option<usize>, DateError> {
    if let Some(c) = time_re().and_then(|r| r.captures(s)) {
        let mut hour = int(&c, 1).ok_or(DateError)?;
        let ampm = c.get(5).map(|m| m.as_str());
        hour = apply_ampm(hour, ampm)?;
        let frac = c.get(4).map_or("", |m| m.as_str());
        let digits: String = frac.chars().chain(std::iter::repeat('0')).take(9).collect();
        let nanos = digits.parse().map_err(|_| DateError)?;
        let (minute, second) = (int(&c, 2).unwrap_or(0), int(&c, 3).unwrap_or(0));
        if minute > 59 || second > 60 || hour > 24 {
            return Err(DateError);
        }
        p.time = Some((hour, minute, second, nanos));
        return Ok(Some(c.get(0).map_or(0, |m| m.end())));
    }
    if let Some(c) = hour_ampm_re().and_then(|r| r.captures(s)) {
        let hour = apply_ampm(int(&c, 1).ok_or(DateError)?, c.get(2).map(|m| m.as_str()))?;
        p.time = Some((hour, 0, 0, 0));
        return Ok(Some(c.get(0).map_or(0, |m| m.end())));
    }
    if let Some(c) = zone_re().and_then(|r| r.captures(s)) {
        let offset = match (c.get(1), c.get(2)) {
            (Some(name), _) => ZONES.iter().find(|z| z.0 == name.as_str()).map(|z| z.1),
            // A numeric offset needs a time before it (`10:30 +0530`).
            (None, Some(sign)) if p.time.is_some() => {
                let minutes = int(&c, 3).unwrap_or(0) * 60 + int(&c, 4).unwrap_or(0);
                Some(if sign.as_str() == "-" {
                    -minutes
                } else {
                    minutes
                })
            }
            _ => None,
        };
        if let Some(offset) = offset {
            p.zone = Some(offset * 60);
            return Ok(Some(c.get(0).map_or(0, |m| m.end())));
        }
    }
    // The year of `Sat Jan 29 21:24:08 PST 2000`, as `date` prints it.
    if let (Some((i64::MIN, m, d)), Some(c)) = (p.date, year_re().and_then(|r| r.captures(s))) {
        p.date = Some((int(&c, 1).ok_or(DateError)?, m, d));
        return Ok(Some(c.get(0).map_or(0, |m| m.end())));
    }
    Ok(None)
}

fn apply_ampm(hour: i64, ampm: Option<&str>) -> Result<i64, DateError> {
    match ampm {
        None => Ok(hour),
        Some(_) if !(1..=12).contains(&hour) => Err(DateError),
        Some("a") => Ok(hour % 12),
        Some(_) => Ok(hour % 12 + 12),
    }
}

/// Relative items: `3 days ago`, `+1 month`, `next week`, weekdays, `yesterday`.
fn parse_relative(s: &str, p: &mut Parsed) -> Result<Option<usize>, DateError> {
    if let Some(c) = word_re().and_then(|r| r.captures(s)) {
        match c.get(1).map_or("", |m| m.as_str()) {
            "yesterday" => p.days -= 1,
            "tomorrow" => p.days += 1,
            _ => {}
        }
        return Ok(Some(c.get(0).map_or(0, |m| m.end())));
    }
    if let Some(c) = rel_re().and_then(|r| r.captures(s)) {
        let mut count = match (c.get(2), c.get(3).map(|m| m.as_str())) {
            (Some(_), _) => int(&c, 2).ok_or(DateError)?,
            (None, Some("last")) => -1,
            (None, Some("this")) => 0,
            _ => 1,
        };
        if c.get(1).is_some_and(|m| m.as_str() == "-") {
            count = -count;
        }
        if c.get(5).is_some() {
            count = -count;
        }
        let unit = c.get(4).map_or("", |m| m.as_str());
        add_unit(p, unit, count);
        return Ok(Some(c.get(0).map_or(0, |m| m.end())));
    }
    if let Some(c) = weekday_re().and_then(|r| r.captures(s)) {
        let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
        let name = c.get(2).map_or("", |m| m.as_str());
        let wday = days.iter().position(|d| *d == name).unwrap_or(0) as i64;
        let shift = match c.get(1).map(|m| m.as_str()) {
            Some("next") => 1,
            Some("last") => -1,
            _ => 0,
        };
        p.weekday = Some((wday, shift));
        return Ok(Some(c.get(0).map_or(0, |m| m.end())));
    }
    Ok(None)
}

fn add_unit(p: &mut Parsed, unit: &str, count: i64) {
    let unit = unit.trim_end_matches('s');
    match unit {
        "year" => p.months += 12 * count,
        "month" => p.months += count,
        "fortnight" => p.days += 14 * count,
        "week" => p.days += 7 * count,
        "day" => p.days += count,
        "hour" => p.seconds += 3600 * count,
        "minute" | "min" => p.seconds += 60 * count,
        _ => p.seconds += count,
    }
}

/// Turns parsed items into a moment, filling in from now.
fn resolve(
    p: &Parsed,
    empty: bool,
    (now_secs, now_nanos): (i64, u32),
    zone: &Zone,
) -> Result<(i64, u32), DateError> {
    let now = civil(now_secs + zone.at(now_secs).offset);
    let (y, m, d) = match p.date {
        Some((y, m, d)) => {
            let y = if y == i64::MIN { now.year } else { y };
            check_date(y, m, d)?;
            (y, m, d)
        }
        None => (now.year, i64::from(now.month), i64::from(now.day)),
    };
    let midnight = empty || p.date.is_some() || p.weekday.is_some();
    let (hh, mm, ss, nanos) = match p.time {
        Some(t) => t,
        None if midnight => (0, 0, 0, 0),
        None => (
            i64::from(now.hour),
            i64::from(now.minute),
            i64::from(now.second),
            now_nanos,
        ),
    };
    let clock = hh * 3600 + mm * 60 + ss;
    // A local time that a change to daylight time skips is no time at all...
    if p.zone.is_none()
        && zone
            .to_utc(days_from_civil(y, m, d) * 86_400 + clock)
            .is_none()
    {
        return Err(DateError);
    }
    let mut days = days_from_civil(y, m + p.months, 1) + d - 1;
    if p.months != 0 {
        // `Jan 31 + 1 month` overflows into March, like mktime.
        days = days_from_civil(y, m + p.months, d);
    }
    if let Some((wday, shift)) = p.weekday {
        let current = (days + 4).rem_euclid(7);
        let mut ahead = (wday - current).rem_euclid(7);
        if shift > 0 && ahead == 0 {
            ahead = 7;
        }
        if shift < 0 {
            ahead = if ahead == 0 { -7 } else { ahead - 7 };
        }
        days += ahead;
    }
    days += p.days;
    let local = days * 86_400 + clock;
    let secs = match p.zone {
        Some(offset) => local - offset,
        // ...but one that moving by days lands in moves on past the gap, as mktime does.
        None => zone
            .to_utc(local)
            .unwrap_or_else(|| local - zone.at(local).offset),
    };
    Ok((secs + p.seconds, nanos))
}

fn check_date(y: i64, m: i64, d: i64) -> Result<(), DateError> {
    if !(1..=12).contains(&m) || d < 1 {
        return Err(DateError);
    }
    let month_days = days_from_civil(y, m + 1, 1) - days_from_civil(y, m, 1);
    if d > month_days {
        return Err(DateError);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_700_000_000; // Tue Nov 14 22:13:20 UTC 2023

    #[test]
    fn civil_round_trips() {
        let tm = civil(T);
        assert_eq!(
            (tm.year, tm.month, tm.day, tm.hour, tm.minute, tm.second),
            (2023, 11, 14, 22, 13, 20)
        );
        assert_eq!((tm.weekday, tm.yday), (2, 317));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil(-1).year, 1969);
        assert_eq!(days_from_civil(2024, 3, 0), days_from_civil(2024, 2, 29));
    }

    #[test]
    fn strftime_width_is_bounded() {
        // A width past any sane size pads to printf's bound instead of exhausting memory.
        let got = strftime("%99999999999999999999999d", T, 0);
        assert_eq!(got.len(), crate::limits::MAX_PRINTF_FIELD as usize);
        assert!(got.ends_with("014"));
    }

    #[test]
    fn strftime_matches_gnu_date() {
        let got = strftime(
            "%c|%x|%X|%r|%p|%P|%U|%W|%V|%G|%g|%j|%u|%w|%C|%k|%l|%_H|%-d|%^a|%#b|%10Y|%-10d|%3N|%N|%:z|%::z|%s|%e|%h|%q|%Q|%%",
            T,
            0,
        );
        assert_eq!(got, "Tue Nov 14 22:13:20 2023|11/14/23|22:13:20|10:13:20 PM|PM|pm|46|46|46|2023|23|318|2|2|20|22|10|22|14|TUE|NOV|0000002023|14|000|000000000|+00:00|+00:00:00|1700000000|14|Nov|4|%Q|%");
        assert_eq!(
            strftime("%a %b %e %H:%M:%S %Z %Y", 0, 0),
            "Thu Jan  1 00:00:00 UTC 1970"
        );
    }

    #[test]
    fn iso_weeks_at_year_ends() {
        let at = |y, m, d| days_from_civil(y, m, d) * 86_400;
        assert_eq!(strftime("%G-%V", at(2021, 1, 1), 0), "2020-53");
        assert_eq!(strftime("%G-%V", at(2024, 12, 30), 0), "2025-01");
        assert_eq!(strftime("%G-%V", at(2026, 12, 31), 0), "2026-53");
        assert_eq!(strftime("%U %W", at(2023, 1, 1), 0), "01 00");
    }

    fn show(text: &str) -> String {
        match parse_date(text, T, 5) {
            Ok((secs, nanos)) => format!("{} {nanos}", strftime("%F %T", secs, 0)),
            Err(_) => "invalid".into(),
        }
    }

    #[test]
    fn parses_what_agents_write() {
        let cases = [
            ("@0", "1970-01-01 00:00:00 0"),
            ("@1.5", "1970-01-01 00:00:01 500000000"),
            ("2024-01-15", "2024-01-15 00:00:00 0"),
            ("2024-01-15 10:30", "2024-01-15 10:30:00 0"),
            ("2024-01-15T10:30:00Z", "2024-01-15 10:30:00 0"),
            ("2024-01-15T10:30:00+02:00", "2024-01-15 08:30:00 0"),
            ("2024-01-15 10:30 +0530", "2024-01-15 05:00:00 0"),
            ("2023-11-14 22:13:20.123", "2023-11-14 22:13:20 123000000"),
            ("20240115", "2024-01-15 00:00:00 0"),
            ("12/25/2023", "2023-12-25 00:00:00 0"),
            ("Nov 15, 2023 3pm", "2023-11-15 15:00:00 0"),
            ("15 Nov 2023", "2023-11-15 00:00:00 0"),
            ("yesterday", "2023-11-13 22:13:20 5"),
            ("1 week ago", "2023-11-07 22:13:20 5"),
            ("+2 hours", "2023-11-15 00:13:20 5"),
            ("3 weeks 2 days ago", "2023-12-03 22:13:20 5"),
            ("jan 31 2024 +1 month", "2024-03-02 00:00:00 0"),
            ("2024-02-29 +1 year", "2025-03-01 00:00:00 0"),
            ("next monday", "2023-11-20 00:00:00 0"),
            ("tuesday", "2023-11-14 00:00:00 0"),
            ("last tuesday", "2023-11-07 00:00:00 0"),
            ("yesterday 10:00", "2023-11-13 10:00:00 0"),
            ("", "2023-11-14 00:00:00 0"),
            ("now", "2023-11-14 22:13:20 5"),
            ("10:30", "2023-11-14 10:30:00 0"),
            ("1999-1-2 3:4:5Z", "1999-01-02 03:04:05 0"),
            ("1999-1-2 3:4:5 +0100", "1999-01-02 02:04:05 0"),
            ("Sat Jan 29 21:24:08 PST 2000", "2000-01-30 05:24:08 0"),
            ("10:00 EDT", "2023-11-14 14:00:00 0"),
            ("Mon, 14 Jan 2019 09:00:00 GMT", "2019-01-14 09:00:00 0"),
            ("10:00 xyz", "invalid"),
            ("2024-13-01", "invalid"),
            ("2024-02-30", "invalid"),
            ("xyz", "invalid"),
            ("Nov 2023", "invalid"),
        ];
        for (text, want) in cases {
            assert_eq!(show(text), want, "{text}");
        }
    }
}
