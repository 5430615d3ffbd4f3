//! The one clock of the toolkit, UTC times without a date-time dependency (the one place
//! the toolkit does calendar arithmetic: Howard Hinnant's days-from-civil algorithms), and
//! the one way durations are read from the command line and written for people.
//!
//! The toolkit only ever needs "now" in UTC in a fixed RFC 3339 form (ledger lines that
//! DuckDB and ClickHouse read as timestamps, version and proposal stamps) and a `--since`
//! date turned into an instant: no time-zone database. (`Retry-After`'s HTTP dates are
//! read by the `httpdate` crate.)
//!
//! "Now" is injectable: library callers pass a [`Clock`] (`Clock::Fixed` in tests), and the
//! binary honours `BRIEF_NOW` (an RFC 3339 time) so that end-to-end tests and reproducible
//! demos get the same stamps on every run.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

const MS_PER_DAY: i64 = 86_400_000;

/// The variable that pins the binary's "now" (RFC 3339 or `YYYY-MM-DD`).
pub const NOW_VAR: &str = "BRIEF_NOW";

/// Where "now" comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// The operating system's clock, unless `BRIEF_NOW` pins it.
    #[default]
    System,
    /// A fixed instant, in milliseconds since the Unix epoch.
    Fixed(i64),
}

impl Clock {
    /// Milliseconds since the Unix epoch.
    pub fn now_ms(self) -> i64 {
        match self {
            Clock::Fixed(ms) => ms,
            Clock::System => pinned_ms().unwrap_or_else(system_ms),
        }
    }

    /// Now, to the second, as a [`Stamp`].
    pub fn stamp(self) -> Stamp {
        Stamp::from_unix(self.now_ms().div_euclid(1000))
    }
}

/// Milliseconds since the Unix epoch, now (the system clock, or `BRIEF_NOW`).
pub fn now_ms() -> i64 {
    Clock::System.now_ms()
}

fn pinned_ms() -> Option<i64> {
    std::env::var(NOW_VAR).ok().as_deref().and_then(parse)
}

fn system_ms() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

/// A moment in UTC, to the second: the stamp of versions and proposals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl Stamp {
    /// Now, from the [`Clock::System`] clock.
    pub fn now() -> Stamp {
        Clock::System.stamp()
    }

    pub fn from_unix(secs: i64) -> Stamp {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        // Months are 1 to 12 and days 1 to 31.
        let (month, day) = (month as u32, day as u32);
        // `rem` is in 0..86_400, so these fit.
        let rem = rem as u32;
        Stamp {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem / 60 % 60,
            second: rem % 60,
        }
    }

    /// `2026-03-14T09:26:53Z`
    pub fn rfc3339(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `20260314092653`: sorts like the moment it names, and is safe in a file name.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}{:02}{:02}{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// `2026-11-30T09:05:01.250Z`: UTC, always milliseconds, always `Z`.
pub fn format_rfc3339(ms: i64) -> String {
    let days = ms.div_euclid(MS_PER_DAY);
    let rest = ms.rem_euclid(MS_PER_DAY);
    let (y, m, d) = civil_from_days(days);
    let (h, min, s, milli) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}.{milli:03}Z")
}

/// Parses `YYYY-MM-DD` (midnight UTC) or an RFC 3339 date-time (`T` or a space between
/// date and time, seconds and fraction optional, `Z` or `±HH:MM`; no offset means UTC) into
/// milliseconds since the epoch. `None` when the text is not one of those.
pub fn parse(text: &str) -> Option<i64> {
    let text = text.trim();
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        if part.is_empty() || !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) {
        return None;
    }
    let day_ms = days_from_civil(y, mo, d) * MS_PER_DAY;
    if b.len() == 10 {
        return Some(day_ms);
    }
    if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 16 || b[13] != b':' {
        return None;
    }
    let (h, mi) = (num(11..13)?, num(14..16)?);
    let mut i = 16;
    let mut s = 0;
    let mut frac_ms = 0;
    if b.get(i) == Some(&b':') {
        s = num(i + 1..i + 3)?;
        i += 3;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            let mut end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            if end == start {
                return None;
            }
            let digits = &text[start..end.min(start + 3)];
            frac_ms = format!("{digits:0<3}").parse().ok()?;
            i = end;
        }
    }
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let offset_ms = match &text[i..] {
        "" | "Z" | "z" => 0,
        zone if zone.len() == 6 && (zone.starts_with('+') || zone.starts_with('-')) => {
            if zone.as_bytes()[3] != b':' {
                return None;
            }
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            sign * (oh * 3_600_000 + om * 60_000)
        }
        _ => return None,
    };
    Some(day_ms + h * 3_600_000 + mi * 60_000 + s * 1000 + frac_ms - offset_ms)
}

/// Parses a duration as the command line and the environment give it: a whole number
/// with a unit, `ms`, `s`, `m`, `h` or `d` (`1500ms`, `90s`, `2m`, `24h`, `7d`), or alone
/// for seconds (`90`). A length that does not fit is refused, never wrapped; zero is the
/// caller's to judge.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    parse_duration_suggesting(text, "90s, 1500ms, 2m or 24h")
}

/// [`parse_duration`] for a caller that accepts fewer lengths (a TTL stored in whole
/// seconds has no use for `1500ms`): a text that is not a duration is told to try
/// `examples`, so the suggestion only ever names values the caller takes.
pub fn parse_duration_suggesting(text: &str, examples: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let not_a_duration = || format!("`{text}` is not a duration (try {examples})");
    let value: u64 = number.parse().map_err(|_| not_a_duration())?;
    let seconds = |scale: u64| {
        value
            .checked_mul(scale)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("`{text}` is too long a duration"))
    };
    match unit.trim() {
        "ms" => Ok(Duration::from_millis(value)),
        "s" => seconds(1),
        "m" => seconds(60),
        "h" => seconds(3600),
        "d" => seconds(86_400),
        _ => Err(not_a_duration()),
    }
}

/// The longest timeout taken: a day. No call or idle connection waits that long, and a
/// longer one is a typo (as `--ttl` refuses more than 100 years, a timeout refuses this).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);

/// A timeout as [`parse_duration`] reads it, more than zero (a timeout of nothing would
/// fail every call) and at most [`MAX_TIMEOUT`].
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err("a timeout must be more than zero".into());
    }
    if duration > MAX_TIMEOUT {
        return Err(format!(
            "`{}` is longer than the longest timeout, 24h",
            text.trim()
        ));
    }
    Ok(duration)
}

/// A duration as a person reads it: `250 ms` under a second, else seconds, whole (`2 s`,
/// `999999 s`) or to the millisecond (`1.5 s`, `1.25 s`).
pub fn format_duration(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        let text = format!("{}.{:03}", duration.as_secs(), duration.subsec_millis());
        format!("{} s", text.trim_end_matches('0'))
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1 to 12).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month 1 to 12, day) of a number of days since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_timeout_longer_than_a_day_is_refused_as_a_ttl_longer_than_100_years_is() {
        assert_eq!(parse_timeout("24h"), Ok(MAX_TIMEOUT));
        assert_eq!(parse_timeout("600s"), Ok(Duration::from_secs(600)));
        let err = parse_timeout("99999999999h").unwrap_err();
        assert!(err.contains("longer than the longest timeout"), "{err}");
        assert!(parse_timeout("25h").is_err());
        assert!(parse_timeout("0").is_err());
    }

    #[test]
    fn durations_parse_as_the_command_line_writes_them() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3h"), Ok(Duration::from_secs(3 * 3600)));
        assert_eq!(parse_duration(" 7d "), Ok(Duration::from_secs(7 * 86_400)));
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert!(parse_timeout("0").is_err());
        assert!(parse_duration("fast").is_err());
        assert!(parse_duration("3w").is_err());
        assert!(parse_duration("-5").is_err());
        assert!(parse_duration("1.5").is_err());
    }

    /// Regression (issue 23): `value * 60` overflowed (a panic in a debug build, a wrapped
    /// and wrong timeout in a release one) for a minute count past u64::MAX / 60.
    #[test]
    fn a_duration_too_long_to_hold_is_refused_not_overflowed() {
        let huge = format!("{}m", u64::MAX / 60 + 1);
        assert!(parse_duration(&huge).unwrap_err().contains("too long"));
        assert!(parse_duration(&format!("{}d", u64::MAX / 86_400 + 1)).is_err());
        assert_eq!(
            parse_duration(&format!("{}m", u64::MAX / 60)),
            Ok(Duration::from_secs(u64::MAX / 60 * 60))
        );
        assert!(parse_duration("99999999999999999999999m").is_err());
    }

    #[test]
    fn durations_format_for_people() {
        assert_eq!(format_duration(Duration::ZERO), "0 ms");
        assert_eq!(format_duration(Duration::from_millis(250)), "250 ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2 s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(format_duration(Duration::from_millis(1250)), "1.25 s");
        assert_eq!(format_duration(Duration::from_secs(999_999)), "999999 s");
        assert_eq!(
            format_duration(Duration::MAX),
            format!("{}.999 s", u64::MAX)
        );
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(
            format_rfc3339(1_796_029_501_250),
            "2026-11-30T09:05:01.250Z"
        );
    }

    #[test]
    fn parses_dates_and_times_with_offsets() {
        assert_eq!(parse("2026-11-30"), Some(1_795_996_800_000));
        assert_eq!(parse("2026-11-30T09:05:01.250Z"), Some(1_796_029_501_250));
        assert_eq!(
            parse("2026-11-30T10:05:01.25+01:00"),
            Some(1_796_029_501_250)
        );
        assert_eq!(parse("2026-11-30 09:05"), Some(1_796_029_500_000));
        for bad in [
            "",
            "2026-13-01",
            "2026-02-30",
            "30/11/2026",
            "2026-11-30T25:00",
            "2026-11-30T09:05+0100",
            "2026-11-30Tx",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_fixed_clock_is_what_now_says() {
        let clock = Clock::Fixed(1_796_029_501_250);
        assert_eq!(clock.now_ms(), 1_796_029_501_250);
        assert_eq!(clock.stamp().rfc3339(), "2026-11-30T09:05:01Z");
    }

    #[test]
    fn stamps_format_as_rfc3339_and_compact() {
        assert_eq!(Stamp::from_unix(0).rfc3339(), "1970-01-01T00:00:00Z");
        assert_eq!(
            Stamp::from_unix(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            Stamp::from_unix(4_102_444_800).rfc3339(),
            "2100-01-01T00:00:00Z"
        );
        assert_eq!(Stamp::from_unix(-1).rfc3339(), "1969-12-31T23:59:59Z");
        assert_eq!(Stamp::from_unix(1_709_251_199).compact(), "20240229235959");
    }

    #[test]
    fn consecutive_days_never_repeat_or_skip() {
        let mut previous = Stamp::from_unix(0);
        for day in 1..(400 * 366) {
            let next = Stamp::from_unix(day * 86_400);
            assert!(next > previous, "{next:?} after {previous:?}");
            previous = next;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn format_then_parse_round_trips(ms in -10_000_000_000_000i64..10_000_000_000_000i64) {
            let text = format_rfc3339(ms);
            prop_assume!(!text.starts_with('-'));
            prop_assert_eq!(parse(&text), Some(ms));
        }
    }
}
