//! Timestamps for versions and proposals: RFC 3339 in UTC, from the system clock.
//!
//! Computed here (Howard Hinnant's days-to-civil algorithm) rather than through a date
//! crate: the toolkit only ever formats "now" in UTC, which needs no time-zone database.

use std::time::{SystemTime, UNIX_EPOCH};

/// A moment in UTC, to the second.
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
    pub fn now() -> Stamp {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Stamp::from_unix(i64::try_from(secs).unwrap_or(i64::MAX))
    }

    pub fn from_unix(secs: i64) -> Stamp {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
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

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11]
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32; // [1, 31]
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32; // [1, 12]
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_moments_format_as_rfc3339() {
        assert_eq!(Stamp::from_unix(0).rfc3339(), "1970-01-01T00:00:00Z");
        assert_eq!(
            Stamp::from_unix(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            Stamp::from_unix(1_709_251_199).rfc3339(),
            "2024-02-29T23:59:59Z"
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
}
