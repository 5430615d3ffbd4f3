//! Timestamps for versions and proposals: RFC 3339 in UTC, from the system clock.
//!
//! The calendar arithmetic is `crate::clock`'s.

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
        let (year, month, day) = crate::clock::civil_from_days(days);
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
