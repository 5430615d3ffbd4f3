//! Canonical forms: the spelling a fact is compared in, so that rewording a value
//! (`1,200` for `1200`, `USD 1200` for `$1,200.00`) is not mistaken for dropping it.

/// A decimal amount without thousands separators, scaled by `10^shift` (a `K`, `M` or `B`
/// suffix). With `trim`, leading zeros and trailing zeros of the fraction go too (prices:
/// `1200.00` = `1200`); without it the digits stay as written (`3.10` is not `3.1` when
/// it is a version of something).
pub fn decimal(amount: &str, shift: usize, trim: bool) -> String {
    let digits: String = amount.chars().filter(|c| *c != ',').collect();
    let (int, frac) = digits.split_once('.').unwrap_or((&digits, ""));
    let (mut int, mut frac) = if shift == 0 {
        (int.to_string(), frac.to_string())
    } else {
        let all = format!("{int}{frac}");
        let point = int.len() + shift;
        if point >= all.len() {
            let mut int = all;
            int.extend(std::iter::repeat_n('0', point - int.len()));
            (int, String::new())
        } else {
            (all[..point].to_string(), all[point..].to_string())
        }
    };
    if trim || shift > 0 {
        let kept = int.trim_start_matches('0');
        int = if kept.is_empty() { "0" } else { kept }.to_string();
        frac.truncate(frac.trim_end_matches('0').len());
    }
    if frac.is_empty() {
        int
    } else {
        format!("{int}.{frac}")
    }
}

/// The power of ten a number suffix stands for (`K` thousand, `M` million, `B`/`bn`
/// billion); other units (`s`, `ms`, `GB`, `x`) do not scale the number.
pub fn multiplier(suffix: &str) -> usize {
    match suffix {
        "k" | "K" => 3,
        "M" => 6,
        "B" | "bn" => 9,
        _ => 0,
    }
}

/// The ISO code a currency symbol, code or word stands for.
pub fn currency(mark: &str) -> String {
    match mark.to_ascii_lowercase().as_str() {
        "$" | "dollar" | "dollars" => "USD".to_string(),
        "€" | "euro" | "euros" => "EUR".to_string(),
        "£" => "GBP".to_string(),
        "¥" | "yen" => "JPY".to_string(),
        "₹" => "INR".to_string(),
        _ => mark.to_ascii_uppercase(),
    }
}

/// A billing period in one spelling: `/mo`, `/month` and ` per month` are the same.
pub fn period(word: &str) -> String {
    let word = word.to_ascii_lowercase();
    let known = match word.as_str() {
        "mo" | "mon" | "month" | "months" => "month",
        "yr" | "year" | "years" | "annum" => "year",
        "wk" | "week" | "weeks" => "week",
        "d" | "day" | "days" => "day",
        "h" | "hr" | "hour" | "hours" => "hour",
        "min" | "minute" | "minutes" => "minute",
        _ => return word,
    };
    known.to_string()
}

/// A URL with its scheme and host lowercased and one trailing `/` dropped.
pub fn url(url: &str) -> String {
    let (scheme, rest) = match url.find("://") {
        Some(at) => (url[..at + 3].to_ascii_lowercase(), &url[at + 3..]),
        None => (String::new(), url),
    };
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let mut out = scheme;
    out.push_str(&rest[..host_end].to_lowercase());
    out.push_str(&rest[host_end..]);
    if out.ends_with('/') && out.len() > 1 {
        out.pop();
    }
    out
}

/// A template placeholder with the whitespace inside its delimiters trimmed and collapsed.
pub fn placeholder(text: &str) -> String {
    let (open, close) = if text.starts_with("${") {
        ("${", "}")
    } else if text.starts_with("{%") {
        ("{%", "%}")
    } else {
        ("{{", "}}")
    };
    let inner = text
        .strip_prefix(open)
        .and_then(|t| t.strip_suffix(close))
        .unwrap_or(text);
    let inner = inner.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("{open}{inner}{close}")
}

/// A clock time without spaces or dots, lowercased: `3 P.M.` = `3pm`.
pub fn time(text: &str) -> String {
    let split = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let clock = text[..split].trim_end();
    let half: String = text[split..]
        .chars()
        .filter(char::is_ascii_alphabetic)
        .collect();
    format!("{clock}{}", half.to_ascii_lowercase())
}

/// A version without its `v`: `v2.3.1` = `2.3.1`.
pub fn version(text: &str) -> String {
    text.trim_start_matches(['v', 'V']).to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_lose_separators_and_scale_by_their_suffix() {
        assert_eq!(decimal("1,200", 0, false), "1200");
        assert_eq!(decimal("1,200.00", 0, true), "1200");
        assert_eq!(decimal("0.05", 0, true), "0.05");
        assert_eq!(decimal("1.50", 0, true), "1.5");
        assert_eq!(decimal("3.10", 0, false), "3.10");
        assert_eq!(decimal("45", 3, false), "45000");
        assert_eq!(decimal("1.5", 6, false), "1500000");
        assert_eq!(decimal("2.25", 1, false), "22.5");
        assert_eq!(decimal("007", 0, false), "007");
        assert_eq!(decimal("007", 0, true), "7");
        assert_eq!(decimal("0", 0, true), "0");
    }

    #[test]
    fn urls_compare_case_insensitively_only_in_scheme_and_host() {
        assert_eq!(url("HTTPS://Example.COM/Docs/"), "https://example.com/Docs");
        assert_eq!(url("www.Example.com"), "www.example.com");
        assert_eq!(url("https://x.io?q=A"), "https://x.io?q=A");
    }

    #[test]
    fn placeholders_ignore_inner_spacing() {
        assert_eq!(placeholder("{{ name }}"), "{{name}}");
        assert_eq!(placeholder("{%  if  x %}"), "{%if x%}");
        assert_eq!(placeholder("${HOME}"), "${HOME}");
    }

    #[test]
    fn times_and_versions_and_words() {
        assert_eq!(time("3 P.M."), "3pm");
        assert_eq!(time("15:00:00"), "15:00:00");
        assert_eq!(time("15:00:00.5"), "15:00:00.5");
        assert_eq!(version("v2.3.1"), "2.3.1");
        assert_eq!(period("mo"), "month");
        assert_eq!(period("User"), "user");
        assert_eq!(currency("€"), "EUR");
        assert_eq!(currency("usd"), "USD");
    }
}
