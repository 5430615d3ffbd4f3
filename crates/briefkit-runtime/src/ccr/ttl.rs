//! How long an original stays retrievable: `--ttl`, else `BRIEF_CCR_TTL_SECONDS`, else
//! [`DEFAULT_SECONDS`].
//!
//! A digest is only as good as its originals: a TTL shorter than the run that relies on it
//! turns every marker into a dead end mid-run (headroom's 300 s default expired originals
//! during 8–20 minute jobs; its 1,800 s successor still cannot cover an overnight run). The
//! default is therefore sized for a long autonomous run that pauses — a week covers a
//! multi-day run, a weekend without wakes, and a re-run the next working day — while
//! `brief ccr gc` keeps the disk bounded. A bad value is refused loudly rather than
//! silently replaced by the default, so a setting that is read by nothing cannot happen.

use crate::error::{Error, Result};

/// The environment variable sizing the lifetime of new entries, in seconds.
pub const ENV_TTL: &str = "BRIEF_CCR_TTL_SECONDS";
/// headroom's variable for the same setting, read when ours is not set, so an agent
/// configured for headroom keeps the lifetime it asked for.
pub const HEADROOM_ENV_TTL: &str = "HEADROOM_CCR_TTL_SECONDS";

/// Seven days.
pub const DEFAULT_SECONDS: u64 = 7 * 24 * 3600;

/// The longest accepted TTL (100 years): keeps expiry arithmetic far from overflow.
pub const MAX_SECONDS: u64 = 100 * 365 * 24 * 3600;

/// Where the TTL in force came from, for `brief ccr stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Flag,
    Env,
    /// `HEADROOM_CCR_TTL_SECONDS`, `BRIEF_CCR_TTL_SECONDS` being unset.
    HeadroomEnv,
    Default,
}

impl Source {
    /// The note a command shows when the TTL came from headroom's variable.
    pub fn note(self, seconds: u64) -> Option<String> {
        (self == Source::HeadroomEnv).then(|| {
            format!(
                "CCR TTL {} from {HEADROOM_ENV_TTL} ({ENV_TTL} is not set)",
                human(seconds)
            )
        })
    }
}

/// The TTL in force: the flag's text, else the environment variable, else the default.
pub fn resolve(flag: Option<&str>) -> Result<(u64, Source)> {
    if let Some(text) = flag {
        return parse(text)
            .map(|s| (s, Source::Flag))
            .map_err(|e| Error::input(format!("--ttl: {e}")).with_hint(HINT));
    }
    match std::env::var(ENV_TTL) {
        Ok(text) if !text.trim().is_empty() => parse(&text)
            .map(|s| (s, Source::Env))
            .map_err(|e| Error::input(format!("{ENV_TTL}: {e}")).with_hint(HINT)),
        Ok(_) | Err(std::env::VarError::NotPresent) => headroom(),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(Error::input(format!("{ENV_TTL} is not valid text")).with_hint(HINT))
        }
    }
}

/// headroom's variable, else the default.
fn headroom() -> Result<(u64, Source)> {
    match std::env::var(HEADROOM_ENV_TTL) {
        Ok(text) if !text.trim().is_empty() => parse(&text)
            .map(|s| (s, Source::HeadroomEnv))
            .map_err(|e| Error::input(format!("{HEADROOM_ENV_TTL}: {e}")).with_hint(HINT)),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok((DEFAULT_SECONDS, Source::Default)),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(Error::input(format!("{HEADROOM_ENV_TTL} is not valid text")).with_hint(HINT))
        }
    }
}

/// What a TTL value looks like, for a caller that gave a bad one.
pub const HINT: &str =
    "give a whole number of seconds above zero, or a number with s, m, h or d (e.g. 86400 or 24h)";

/// Values a TTL takes, for the message about one that is not a duration: whole seconds
/// only, since the store keeps seconds (`1500ms` would be refused).
const EXAMPLES: &str = "90s, 90m, 24h or 7d";

/// Parses a TTL: whole seconds (`86400`) or a number with a unit `s`, `m`, `h` or `d`
/// (`90m`, `24h`, `7d`). Zero, negative and fractional values are refused.
pub fn parse(text: &str) -> std::result::Result<u64, String> {
    let text = text.trim();
    let duration = crate::clock::parse_duration_suggesting(text, EXAMPLES)?;
    if duration.subsec_nanos() != 0 {
        return Err(format!("`{text}` is not a whole number of seconds"));
    }
    let seconds = duration.as_secs();
    if seconds == 0 {
        return Err("a TTL of zero would expire every entry at once".into());
    }
    if seconds > MAX_SECONDS {
        return Err(format!("`{text}` is longer than 100 years"));
    }
    Ok(seconds)
}

/// `604800` as `7d`, `5400` as `90m`, for messages.
pub fn human(seconds: u64) -> String {
    match seconds {
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3600 == 0 => format!("{}h", s / 3600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_seconds_and_units() {
        assert_eq!(parse("86400"), Ok(86_400));
        assert_eq!(parse("90m"), Ok(5400));
        assert_eq!(parse("24h"), Ok(86_400));
        assert_eq!(parse("7d"), Ok(DEFAULT_SECONDS));
        assert_eq!(parse(" 30s "), Ok(30));
    }

    #[test]
    fn refuses_zero_negative_fractions_and_junk() {
        for bad in [
            "0",
            "-5",
            "1.5",
            "",
            "h",
            "7 weeks",
            "99999999999999999999d",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_suggestion_for_a_bad_ttl_lists_only_values_a_ttl_takes() {
        let message = parse("99999999999999999999").unwrap_err();
        let examples = message
            .split("(try ")
            .nth(1)
            .expect("a suggestion")
            .trim_end_matches(')');
        let examples: Vec<&str> = examples
            .split([',', ' '])
            .filter(|w| !w.is_empty() && *w != "or")
            .collect();
        assert!(examples.len() >= 3, "{message}");
        for example in examples {
            assert!(
                parse(example).is_ok(),
                "suggested `{example}` is refused: {message}"
            );
        }
    }

    #[test]
    fn human_picks_the_largest_whole_unit() {
        assert_eq!(human(DEFAULT_SECONDS), "7d");
        assert_eq!(human(5400), "90m");
        assert_eq!(human(7200), "2h");
        assert_eq!(human(61), "61s");
    }
}
