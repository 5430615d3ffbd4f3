//! Units and their magnitudes: part of a value (`10 MB` ≠ `10 GB`, `30 minutes` ≠
//! `30 hours`). Symbols are language-neutral; unit words are English for now: a language
//! table may add its own words here.

/// Units and their magnitudes, language-neutral symbols first: `(spelling, dimension,
/// magnitude)`. Matched case-sensitively for symbols, case-insensitively for words.
pub const UNITS: &[(&str, &str, f64)] = &[
    ("B", "bytes", 1.0),
    ("KB", "bytes", 1e3),
    ("kB", "bytes", 1e3),
    ("MB", "bytes", 1e6),
    ("GB", "bytes", 1e9),
    ("TB", "bytes", 1e12),
    ("KiB", "bytes", 1024.0),
    ("MiB", "bytes", 1_048_576.0),
    ("GiB", "bytes", 1_073_741_824.0),
    ("ms", "seconds", 1e-3),
    ("s", "seconds", 1.0),
    ("sec", "seconds", 1.0),
    ("min", "seconds", 60.0),
    ("h", "seconds", 3600.0),
    ("hr", "seconds", 3600.0),
    ("km", "metres", 1e3),
    ("m", "metres", 1.0),
    ("cm", "metres", 1e-2),
    ("mm", "metres", 1e-3),
    ("kg", "grams", 1e3),
    ("g", "grams", 1.0),
    ("mg", "grams", 1e-3),
    ("lb", "pounds", 1.0),
    ("lbs", "pounds", 1.0),
    ("kbps", "bits/s", 1e3),
    ("mbps", "bits/s", 1e6),
    ("gbps", "bits/s", 1e9),
    ("bytes", "bytes", 1.0),
    ("byte", "bytes", 1.0),
    ("kilobyte", "bytes", 1e3),
    ("megabyte", "bytes", 1e6),
    ("gigabyte", "bytes", 1e9),
    ("terabyte", "bytes", 1e12),
    ("millisecond", "seconds", 1e-3),
    ("second", "seconds", 1.0),
    ("secs", "seconds", 1.0),
    ("minute", "seconds", 60.0),
    ("mins", "seconds", 60.0),
    ("hour", "seconds", 3600.0),
    ("hrs", "seconds", 3600.0),
    ("day", "seconds", 86_400.0),
    ("week", "seconds", 604_800.0),
    ("month", "seconds", 2_592_000.0),
    ("year", "seconds", 31_536_000.0),
    ("kilometre", "metres", 1e3),
    ("kilometer", "metres", 1e3),
    ("metre", "metres", 1.0),
    ("meter", "metres", 1.0),
    ("mile", "miles", 1.0),
    ("kilogram", "grams", 1e3),
    ("gram", "grams", 1.0),
    ("pound", "pounds", 1.0),
    ("character", "characters", 1.0),
    ("char", "characters", 1.0),
    ("word", "words", 1.0),
    ("token", "tokens", 1.0),
    ("line", "lines", 1.0),
    // Notation's short form (`fn.len≤30ln`), only as a token of its own.
    ("ln", "lines", 1.0),
];

/// The unit a token names: `(dimension, magnitude)`. Words may be plural or capitalised.
pub fn unit(token: &str) -> Option<(&'static str, f64)> {
    if let Some(&(_, dim, mag)) = UNITS.iter().find(|(u, _, _)| *u == token) {
        return Some((dim, mag));
    }
    let lower = token.to_lowercase();
    if lower.chars().count() < 3 {
        return None;
    }
    let singular = lower.strip_suffix('s').unwrap_or(&lower);
    UNITS
        .iter()
        .find(|(u, _, _)| u.len() > 2 && (*u == lower || *u == singular))
        .map(|&(_, dim, mag)| (dim, mag))
}

/// The unit a lowercased word names (`mb` = megabytes, `hours`): symbols of two letters or
/// more read case-insensitively, for comparing words rather than values.
pub fn unit_word(lower: &str) -> Option<(&'static str, f64)> {
    if lower.len() >= 2
        && let Some(&(_, dim, mag)) = UNITS
            .iter()
            .find(|(u, _, _)| u.len() >= 2 && u.eq_ignore_ascii_case(lower))
    {
        return Some((dim, mag));
    }
    unit(lower)
}
