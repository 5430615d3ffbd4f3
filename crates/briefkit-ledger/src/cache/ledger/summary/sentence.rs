//! A ledger's sums in one sentence, said the same way by `brief usage` (its summary) and
//! the HTML report (its headline).

use super::Totals;

impl Totals {
    /// Calls, the share of input served from cache, and the estimated cost and savings
    /// where prices were known.
    pub fn sentence(&self) -> String {
        // The count as `brief usage --json`'s summary has always said it (scripts match it).
        let mut text = format!(
            "{} call{}",
            self.calls,
            if self.calls == 1 { "" } else { "s" }
        );
        match self.cached_share() {
            Some(s) => text.push_str(&format!(", {:.1}% of input served from cache", s * 100.0)),
            None if self.calls > 0 => text.push_str(", no cached-token figures reported"),
            None => {}
        }
        if self.priced_calls > 0 {
            text.push_str(&format!(
                ", estimated cost {:.4}, saved {:.4}",
                self.cost(),
                self.savings()
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_counts_one_call_and_many() {
        let mut t = Totals {
            calls: 1,
            ..Totals::default()
        };
        assert_eq!(t.sentence(), "1 call, no cached-token figures reported");
        t.calls = 1234;
        assert!(t.sentence().starts_with("1234 calls"), "{}", t.sentence());
        assert_eq!(Totals::default().sentence(), "0 calls");
    }
}
