//! Time zones from `TZ`, as the C library reads it: a POSIX rule (`EST5EDT,M3.2.0,M11.1.0`,
//! `<+0530>-5:30`, `CET-1CEST,M3.5.0,M10.5.0/3`) or a zone name. The sandbox has no tzdata
//! files, so a name is looked up in a table of the most used zones, each with the rule it
//! follows today: times before a zone's current rule (older offsets and DST laws) differ from
//! GNU's, which reads the zone's whole history. A name not in the table, as with the C
//! library, is UTC with the name's letters as its abbreviation.

use super::time::{civil, days_from_civil};

/// A zone: standard time, and daylight time with the rules of its start and end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    std: Period,
    dst: Option<(Period, Transition, Transition)>,
}

/// An abbreviation and its offset east of UTC, in seconds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Period {
    abbr: String,
    offset: i64,
}

/// The day and local time a change of period happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Transition {
    day: RuleDay,
    /// Seconds after local midnight (may be negative or past 24 hours).
    time: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleDay {
    /// `Jn`: day 1-365, February 29 never counted.
    Julian(i64),
    /// `n`: day 0-365, February 29 counted.
    Zero(i64),
    /// `Mm.w.d`: weekday d (0 = Sunday) of week w (5 = the last) of month m.
    Month(i64, i64, i64),
}

/// What a moment looks like in a zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local<'a> {
    /// Seconds east of UTC.
    pub offset: i64,
    /// `%Z`.
    pub abbr: &'a str,
    /// Daylight time.
    pub dst: bool,
}

/// The most used zone names and the POSIX rule each follows today (tzdata 2024's last line).
const NAMES: &[(&str, &str)] = &[
    ("UTC", "UTC0"),
    ("Etc/UTC", "UTC0"),
    ("Universal", "UTC0"),
    ("Zulu", "UTC0"),
    ("Etc/GMT", "GMT0"),
    ("GMT", "GMT0"),
    ("Africa/Cairo", "EET-2EEST,M4.5.5/0,M10.5.4/24"),
    ("Africa/Johannesburg", "SAST-2"),
    ("Africa/Lagos", "WAT-1"),
    ("Africa/Nairobi", "EAT-3"),
    ("America/Anchorage", "AKST9AKDT,M3.2.0,M11.1.0"),
    ("America/Argentina/Buenos_Aires", "<-03>3"),
    ("America/Bogota", "<-05>5"),
    ("America/Chicago", "CST6CDT,M3.2.0,M11.1.0"),
    ("America/Denver", "MST7MDT,M3.2.0,M11.1.0"),
    ("America/Halifax", "AST4ADT,M3.2.0,M11.1.0"),
    ("America/Los_Angeles", "PST8PDT,M3.2.0,M11.1.0"),
    ("America/Mexico_City", "CST6"),
    ("America/New_York", "EST5EDT,M3.2.0,M11.1.0"),
    ("America/Phoenix", "MST7"),
    ("America/Santiago", "<-04>4<-03>,M9.1.6/24,M4.1.6/24"),
    ("America/Sao_Paulo", "<-03>3"),
    ("America/St_Johns", "NST3:30NDT,M3.2.0,M11.1.0"),
    ("America/Toronto", "EST5EDT,M3.2.0,M11.1.0"),
    ("America/Vancouver", "PST8PDT,M3.2.0,M11.1.0"),
    ("Asia/Bangkok", "<+07>-7"),
    ("Asia/Dhaka", "<+06>-6"),
    ("Asia/Dubai", "<+04>-4"),
    ("Asia/Hong_Kong", "HKT-8"),
    ("Asia/Jakarta", "WIB-7"),
    ("Asia/Jerusalem", "IST-2IDT,M3.4.4/26,M10.5.0"),
    ("Asia/Karachi", "PKT-5"),
    ("Asia/Kathmandu", "<+0545>-5:45"),
    ("Asia/Kolkata", "IST-5:30"),
    ("Asia/Calcutta", "IST-5:30"),
    ("Asia/Manila", "PST-8"),
    ("Asia/Seoul", "KST-9"),
    ("Asia/Shanghai", "CST-8"),
    ("Asia/Singapore", "<+08>-8"),
    ("Asia/Taipei", "CST-8"),
    ("Asia/Tehran", "<+0330>-3:30"),
    ("Asia/Tokyo", "JST-9"),
    ("Atlantic/Reykjavik", "GMT0"),
    ("Australia/Adelaide", "ACST-9:30ACDT,M10.1.0,M4.1.0/3"),
    ("Australia/Brisbane", "AEST-10"),
    ("Australia/Darwin", "ACST-9:30"),
    ("Australia/Melbourne", "AEST-10AEDT,M10.1.0,M4.1.0/3"),
    ("Australia/Perth", "AWST-8"),
    ("Australia/Sydney", "AEST-10AEDT,M10.1.0,M4.1.0/3"),
    ("Europe/Amsterdam", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Athens", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Brussels", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Bucharest", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Budapest", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Copenhagen", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Dublin", "IST-1GMT0,M10.5.0,M3.5.0/1"),
    ("Europe/Helsinki", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Istanbul", "<+03>-3"),
    ("Europe/Kiev", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Kyiv", "EET-2EEST,M3.5.0/3,M10.5.0/4"),
    ("Europe/Lisbon", "WET0WEST,M3.5.0/1,M10.5.0"),
    ("Europe/London", "GMT0BST,M3.5.0/1,M10.5.0"),
    ("Europe/Madrid", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Moscow", "MSK-3"),
    ("Europe/Oslo", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Paris", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Prague", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Rome", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Stockholm", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Vienna", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Warsaw", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Europe/Zurich", "CET-1CEST,M3.5.0,M10.5.0/3"),
    ("Pacific/Auckland", "NZST-12NZDT,M9.5.0,M4.1.0/3"),
    ("Pacific/Honolulu", "HST10"),
    // tzdata's backward names, still common in scripts.
    ("US/Eastern", "EST5EDT,M3.2.0,M11.1.0"),
    ("US/Central", "CST6CDT,M3.2.0,M11.1.0"),
    ("US/Mountain", "MST7MDT,M3.2.0,M11.1.0"),
    ("US/Pacific", "PST8PDT,M3.2.0,M11.1.0"),
    ("US/Alaska", "AKST9AKDT,M3.2.0,M11.1.0"),
    ("US/Arizona", "MST7"),
    ("US/Hawaii", "HST10"),
    ("Japan", "JST-9"),
    ("Portugal", "WET0WEST,M3.5.0/1,M10.5.0"),
];

/// The rule the C library assumes when a zone has daylight time but names no dates.
const DEFAULT_RULE: &str = "M3.2.0,M11.1.0";

impl Zone {
    /// UTC, as `TZ` unset or empty means.
    pub fn utc() -> Zone {
        Zone {
            std: Period {
                abbr: "UTC".into(),
                offset: 0,
            },
            dst: None,
        }
    }

    /// The zone `TZ` describes (`None`: unset).
    pub fn from_tz(tz: Option<&str>) -> Zone {
        let Some(tz) = tz.filter(|t| !t.is_empty()) else {
            return Zone::utc();
        };
        let name = tz.strip_prefix(':').unwrap_or(tz);
        let rule = NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(name, |(_, rule)| rule);
        parse_rule(rule).unwrap_or_else(|| {
            // As glibc: an unknown zone is UTC, abbreviated by the name's leading letters.
            let letters: String = name.chars().take_while(char::is_ascii_alphabetic).collect();
            Zone {
                std: Period {
                    abbr: if letters.is_empty() {
                        "UTC".into()
                    } else {
                        letters
                    },
                    offset: 0,
                },
                dst: None,
            }
        })
    }

    /// How the moment `secs` (seconds since the epoch) is shown in this zone.
    pub fn at(&self, secs: i64) -> Local<'_> {
        let std = Local {
            offset: self.std.offset,
            abbr: &self.std.abbr,
            dst: false,
        };
        let Some((dst, start, end)) = &self.dst else {
            return std;
        };
        let year = civil(secs + self.std.offset).year;
        // A change happens at a local time: the start in standard time, the end in daylight.
        let begins = start.utc_in(year, self.std.offset);
        let ends = end.utc_in(year, dst.offset);
        let in_dst = if begins < ends {
            begins <= secs && secs < ends
        } else {
            !(ends <= secs && secs < begins)
        };
        if in_dst {
            Local {
                offset: dst.offset,
                abbr: &dst.abbr,
                dst: true,
            }
        } else {
            std
        }
    }

    /// The moment whose local time here is `local` (seconds since the epoch as if the zone
    /// were UTC); `None` for a time that a change to daylight time skips. A time that occurs
    /// twice is taken in daylight time, as GNU date does.
    pub fn to_utc(&self, local: i64) -> Option<i64> {
        let mut offsets = vec![self.std.offset];
        if let Some((dst, _, _)) = &self.dst {
            offsets.insert(0, dst.offset);
        }
        offsets
            .into_iter()
            .map(|offset| local - offset)
            .find(|&utc| self.at(utc).offset == local - utc)
    }
}

impl Transition {
    /// When this change happens in `year`, in UTC, for a zone at `offset` before it.
    fn utc_in(self, year: i64, offset: i64) -> i64 {
        let leap = days_from_civil(year, 3, 1) - days_from_civil(year, 2, 1) == 29;
        let jan1 = days_from_civil(year, 1, 1);
        let day = match self.day {
            RuleDay::Julian(n) => jan1 + n - 1 + i64::from(leap && n >= 60),
            RuleDay::Zero(n) => jan1 + n,
            RuleDay::Month(m, w, d) => {
                let first = days_from_civil(year, m, 1);
                let length = days_from_civil(year, m + 1, 1) - first;
                let weekday = (first + 4).rem_euclid(7);
                let mut day = (d - weekday).rem_euclid(7) + 7 * (w - 1);
                while day >= length {
                    day -= 7;
                }
                first + day
            }
        };
        day * 86_400 + self.time - offset
    }
}

/// Parses a POSIX `TZ` rule; `None` when it is not one.
fn parse_rule(text: &str) -> Option<Zone> {
    let mut s = Scanner { rest: text };
    let std_abbr = s.abbr()?;
    let std_offset = -s.offset()?;
    let std = Period {
        abbr: std_abbr,
        offset: std_offset,
    };
    if s.rest.is_empty() {
        return Some(Zone { std, dst: None });
    }
    let dst_abbr = s.abbr()?;
    let dst_offset = if s.rest.is_empty() || s.rest.starts_with(',') {
        std_offset + 3600
    } else {
        -s.offset()?
    };
    let rules = if s.rest.is_empty() {
        DEFAULT_RULE.to_string()
    } else {
        s.rest.strip_prefix(',')?.to_string()
    };
    let (start, end) = rules.split_once(',')?;
    let dst = Period {
        abbr: dst_abbr,
        offset: dst_offset,
    };
    Some(Zone {
        std,
        dst: Some((dst, transition(start)?, transition(end)?)),
    })
}

/// `Mm.w.d[/time]`, `Jn[/time]` or `n[/time]`.
fn transition(text: &str) -> Option<Transition> {
    let (day, time) = match text.split_once('/') {
        Some((day, time)) => {
            let mut s = Scanner { rest: time };
            let secs = s.offset()?;
            if !s.rest.is_empty() {
                return None;
            }
            (day, secs)
        }
        None => (text, 7200),
    };
    let day = if let Some(m) = day.strip_prefix('M') {
        let parts: Vec<i64> = m
            .split('.')
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        match parts[..] {
            [m, w, d] if (1..=12).contains(&m) && (1..=5).contains(&w) && (0..=6).contains(&d) => {
                RuleDay::Month(m, w, d)
            }
            _ => return None,
        }
    } else if let Some(n) = day.strip_prefix('J') {
        RuleDay::Julian(n.parse().ok().filter(|n| (1..=365).contains(n))?)
    } else {
        RuleDay::Zero(day.parse().ok().filter(|n| (0..=365).contains(n))?)
    };
    Some(Transition { day, time })
}

struct Scanner<'a> {
    rest: &'a str,
}

impl Scanner<'_> {
    /// `<+0530>` or three or more letters.
    fn abbr(&mut self) -> Option<String> {
        if let Some(quoted) = self.rest.strip_prefix('<') {
            let (abbr, rest) = quoted.split_once('>')?;
            self.rest = rest;
            return (abbr.len() >= 3).then(|| abbr.to_string());
        }
        let len = self
            .rest
            .bytes()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        if len < 3 {
            return None;
        }
        let (abbr, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(abbr.to_string())
    }

    /// `[+-]hh[:mm[:ss]]` in seconds (positive west of Greenwich, as POSIX writes it).
    fn offset(&mut self) -> Option<i64> {
        let (sign, rest) = match self.rest.as_bytes().first() {
            Some(b'-') => (-1, &self.rest[1..]),
            Some(b'+') => (1, &self.rest[1..]),
            _ => (1, self.rest),
        };
        let mut total = 0;
        let mut rest = rest;
        for (i, unit) in [3600, 60, 1].into_iter().enumerate() {
            if i > 0 {
                match rest.strip_prefix(':') {
                    Some(r) => rest = r,
                    None => break,
                }
            }
            let len = rest.bytes().take_while(u8::is_ascii_digit).count();
            if len == 0 || len > 3 {
                return None;
            }
            let value: i64 = rest[..len].parse().ok()?;
            if i > 0 && value > 59 || i == 0 && value > 167 {
                return None;
            }
            total += value * unit;
            rest = &rest[len..];
        }
        self.rest = rest;
        Some(sign * total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(tz: &str, secs: i64) -> (i64, String) {
        let zone = Zone::from_tz(Some(tz));
        let local = zone.at(secs);
        (local.offset, local.abbr.to_string())
    }

    // 2024-07-01 12:00 UTC and 2024-01-15 12:00 UTC.
    const SUMMER: i64 = 1_719_835_200;
    const WINTER: i64 = 1_705_320_000;

    #[test]
    fn rules_and_names() {
        assert_eq!(show("America/New_York", SUMMER), (-4 * 3600, "EDT".into()));
        assert_eq!(show("US/Eastern", SUMMER), (-4 * 3600, "EDT".into()));
        assert_eq!(show("Portugal", SUMMER), (3600, "WEST".into()));
        assert_eq!(show("America/New_York", WINTER), (-5 * 3600, "EST".into()));
        assert_eq!(show("EST5EDT", SUMMER), (-4 * 3600, "EDT".into()));
        assert_eq!(show("<+0530>-5:30", SUMMER), (19_800, "+0530".into()));
        assert_eq!(show("Australia/Sydney", SUMMER), (10 * 3600, "AEST".into()));
        assert_eq!(show("Australia/Sydney", WINTER), (11 * 3600, "AEDT".into()));
        assert_eq!(show("Europe/Dublin", SUMMER), (3600, "IST".into()));
        assert_eq!(show("Europe/Dublin", WINTER), (0, "GMT".into()));
        assert_eq!(show("Foo/Bar", SUMMER), (0, "Foo".into()));
        assert_eq!(show("", SUMMER), (0, "UTC".into()));
    }

    #[test]
    fn changes_happen_at_local_times() {
        let zone = Zone::from_tz(Some("America/New_York"));
        // 2024-03-10 02:00 EST = 07:00 UTC: the moment before is standard time.
        let change = 1_710_054_000;
        assert!(!zone.at(change - 1).dst);
        assert!(zone.at(change).dst);
        // 02:30 that day does not exist; 01:30 on 2024-11-03 exists twice (daylight taken).
        let local =
            |d: i64, h: i64, m: i64| days_from_civil(2024, 3, d) * 86_400 + h * 3600 + m * 60;
        assert_eq!(zone.to_utc(local(10, 2, 30)), None);
        let nov = days_from_civil(2024, 11, 3) * 86_400 + 3600 + 1800;
        assert_eq!(zone.to_utc(nov), Some(1_730_611_800));
    }
}
