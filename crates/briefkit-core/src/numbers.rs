//! How counts are written for people: one place, so a token count reads the same in a CCR
//! marker, a session report and a usage table.

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 token`, `2 tokens`, `1204 tokens`: a count with its noun in the right number.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", noun(n, one, many))
}

/// `one` for a count of 1, else `many`.
pub fn noun<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::{count, thousands};

    #[test]
    fn count_says_one_in_the_singular() {
        assert_eq!(count(1, "token", "tokens"), "1 token");
        assert_eq!(count(0, "entry", "entries"), "0 entries");
        assert_eq!(count(1204, "call", "calls"), "1204 calls");
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1204), "1,204");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }
}
