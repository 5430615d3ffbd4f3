//! UTC times without a date-time dependency: the one place the toolkit does calendar
//! arithmetic (Howard Hinnant's days-from-civil algorithms).
//!
//! The toolkit only ever needs "now" in UTC in a fixed RFC 3339 form (ledger lines that
//! DuckDB and ClickHouse read as timestamps, version and proposal stamps), a `--since` date
//! turned into an instant, and an HTTP date from `Retry-After`: no time-zone database.

use std::time::{SystemTime, UNIX_EPOCH};

const MS_PER_DAY: i64 = 86_400_000;

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_millis()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_millis()).unwrap_or(i64::MAX),
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
