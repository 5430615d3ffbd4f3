//! The one clock of the toolkit, UTC times (calendar arithmetic by `jiff`, within the
//! years it holds, -9999 to 9999), and the one way durations are read from the command
//! line and written for people.
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

use jiff::SignedDuration;
use jiff::civil::{Date, DateTime};

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

    /// The moment `secs` seconds after the Unix epoch (one before year -9999 or after
    /// 9999 is the first or last second of those years).
    pub fn from_unix(secs: i64) -> Stamp {
        let at = utc(secs.saturating_mul(1000));
        Stamp {
            year: i64::from(at.year()),
            month: at.month().unsigned_abs().into(),
            day: at.day().unsigned_abs().into(),
            hour: at.hour().unsigned_abs().into(),
            minute: at.minute().unsigned_abs().into(),
            second: at.second().unsigned_abs().into(),
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

/// `2026-11-30T09:05:01.250Z`: UTC, always milliseconds, always `Z` (an instant before
/// year -9999 or after 9999 is written as the first or last of those years).
pub fn format_rfc3339(ms: i64) -> String {
    let at = utc(ms);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}

/// The Unix epoch as a UTC date and time.
const EPOCH: DateTime = DateTime::constant(1970, 1, 1, 0, 0, 0, 0);

/// The UTC date and time `ms` milliseconds after the Unix epoch, clamped to the years jiff
/// holds.
fn utc(ms: i64) -> DateTime {
    EPOCH
        .checked_add(SignedDuration::from_millis(ms))
        .unwrap_or(if ms < 0 { DateTime::MIN } else { DateTime::MAX })
}

/// Milliseconds from the Unix epoch to midnight UTC of `y-m-d`; `None` when that is no
/// date (month 13, February 30).
fn midnight_ms(y: i64, m: i64, d: i64) -> Option<i64> {
    let date = Date::new(
        i16::try_from(y).ok()?,
        i8::try_from(m).ok()?,
        i8::try_from(d).ok()?,
    )
    .ok()?;
    i64::try_from(EPOCH.duration_until(date.into()).as_millis()).ok()
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
    let day_ms = midnight_ms(y, mo, d)?;
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

    /// Output change, documented: the hand-written calendar wrote years past 9999 (and
    /// before -9999) with more digits; jiff holds no such year, so the instant is clamped to
    /// the last (first) one it holds.
    #[test]
    fn an_instant_past_the_years_held_is_the_last_or_first_of_them() {
        assert_eq!(format_rfc3339(i64::MAX), "9999-12-31T23:59:59.999Z");
        assert_eq!(Stamp::from_unix(i64::MAX).rfc3339(), "9999-12-31T23:59:59Z");
        assert_eq!(format_rfc3339(i64::MIN), "-9999-01-01T00:00:00.000Z");
        assert_eq!(Stamp::from_unix(i64::MIN).year, -9999);
        assert_eq!(
            format_rfc3339(253_402_300_799_999),
            "9999-12-31T23:59:59.999Z"
        );
        assert_eq!(parse("9999-12-31T23:59:59.999Z"), Some(253_402_300_799_999));
    }

    #[test]
    fn leap_days_are_dates_and_other_february_29ths_are_not() {
        assert_eq!(parse("2000-02-29"), Some(951_782_400_000));
        assert_eq!(
            parse("2024-02-29").map(format_rfc3339),
            Some("2024-02-29T00:00:00.000Z".into())
        );
        assert_eq!(parse("1900-02-29"), None);
        assert_eq!(parse("2023-02-29"), None);
        assert_eq!(
            parse("0000-01-01").map(format_rfc3339),
            Some("0000-01-01T00:00:00.000Z".into())
        );
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
