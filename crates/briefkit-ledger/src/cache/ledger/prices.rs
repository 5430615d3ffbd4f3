//! Where a call's prices come from, for `brief usage`, the proxy's `/stats` and both
//! dashboards alike: the reader's command line, else the prices the row itself carries
//! (those `brief proxy --price-*` was given when it recorded the call), else the `pricing`
//! of the brief the call was made for (read again from its directory), else the dated list
//! price of a well-known model (`cache::list_prices`); cached and cache-write prices not
//! given come from the provider's known multipliers of the input price. Every view prices a
//! row through [`PriceResolver`] and sums [`Prices::cost_units`], so they agree to the unit.

use std::collections::HashMap;
use std::path::Path;

use super::Entry;
use super::summary::Prices;
use crate::brief::{Manifest, Pricing};
use crate::cache::facts;

/// Prices for each call: flags first, then the row's own prices, then the pricing of the
/// brief it was made for, then the list price, then the provider's multipliers for what is
/// still missing.
#[derive(Debug, Default)]
pub struct PriceResolver {
    input: Option<f64>,
    cached: Option<f64>,
    output: Option<f64>,
    manifests: HashMap<String, Option<Manifest>>,
}

impl PriceResolver {
    /// Prices given on the command line (per million tokens) override the briefs'.
    pub fn new(input: Option<f64>, cached: Option<f64>, output: Option<f64>) -> Self {
        PriceResolver {
            input,
            cached,
            output,
            manifests: HashMap::new(),
        }
    }

    fn brief_pricing(&mut self, model: &str, dir: Option<&str>) -> Option<Pricing> {
        let dir = dir?;
        let manifest = self
            .manifests
            .entry(dir.to_string())
            .or_insert_with(|| {
                // The directory comes from a ledger line: its manifest is read as any named
                // file is (a regular file within the manifest limit), so a FIFO or a device
                // planted there cannot hang or exhaust `usage`.
                let limit = crate::files::limits::Limit {
                    bytes: crate::brief::MAX_MANIFEST_BYTES,
                    what: "a manifest",
                };
                let path = Path::new(dir).join("brief.yaml");
                let text = crate::files::input::read_text(&path, limit).ok()?;
                crate::text::yaml::from_str::<Manifest>(&text).ok()
            })
            .as_ref()?;
        // A brief's prices are for its own model; a call to another model is not priced by them.
        match &manifest.model {
            Some(brief_model) if brief_model.name != model => None,
            _ => manifest.pricing.clone(),
        }
    }

    /// The prices of one call; `None` when no input price is known for it.
    pub fn prices(&mut self, entry: &Entry) -> Option<Prices> {
        // A compress call made with the bundled compressor is priced like its target's.
        let dir = entry.brief_dir.as_ref().or(entry.target_brief_dir.as_ref());
        self.prices_for(
            &entry.provider,
            &entry.model,
            dir.map(String::as_str),
            RowPrices::of(entry),
        )
    }

    /// The prices of calls to `provider`'s `model` made for the brief in `dir` (the
    /// entry's `brief_dir`, else its `target_brief_dir`), whose rows carry `row`.
    pub fn prices_for(
        &mut self,
        provider: &str,
        model: &str,
        dir: Option<&str>,
        row: RowPrices,
    ) -> Option<Prices> {
        let brief = self.brief_pricing(model, dir);
        let listed = crate::cache::list_prices::lookup(model);
        let input = self
            .input
            .or(row.input)
            .or(brief.as_ref().map(|p| p.input_per_mtok))
            .or(listed.map(|l| l.input_per_mtok))?;
        let facts = facts::lookup(provider, model);
        let cached = self
            .cached
            .or(row.cached)
            .or(brief.as_ref().and_then(|p| p.cached_input_per_mtok))
            .or(facts.read_multiplier.map(|m| m * input))
            .unwrap_or(input);
        let write = brief
            .as_ref()
            .and_then(|p| p.cache_write_per_mtok)
            .or(facts.write_multiplier.map(|m| m * input))
            .unwrap_or(input);
        let write_1h = brief
            .as_ref()
            .and_then(|p| p.cache_write_1h_per_mtok)
            .or(facts.write_1h_multiplier.map(|m| m * input))
            .unwrap_or(write);
        let output = self
            .output
            .or(row.output)
            .or(brief.as_ref().and_then(|p| p.output_per_mtok))
            .or(listed.map(|l| l.output_per_mtok))
            .unwrap_or(0.0);
        Some(Prices {
            input,
            cached,
            write,
            write_1h,
            output,
        })
    }
}

/// The prices a ledger row carries (`price_*_per_mtok`), per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RowPrices {
    pub input: Option<f64>,
    pub cached: Option<f64>,
    pub output: Option<f64>,
}

impl RowPrices {
    pub fn of(entry: &Entry) -> RowPrices {
        RowPrices {
            input: entry.price_input_per_mtok,
            cached: entry.price_cached_per_mtok,
            output: entry.price_output_per_mtok,
        }
    }

    /// Writes these prices into `entry`'s row.
    pub fn stamp(self, entry: &mut Entry) {
        entry.price_input_per_mtok = self.input;
        entry.price_cached_per_mtok = self.cached;
        entry.price_output_per_mtok = self.output;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::ledger::summary::cost_figure;

    fn row(model: &str, prices: RowPrices) -> Entry {
        let mut entry = Entry::new("proxy", "openai", model);
        prices.stamp(&mut entry);
        entry
    }

    #[test]
    fn the_reader_flags_win_then_the_row_then_the_list_price() {
        let stamped = RowPrices {
            input: Some(2.5),
            cached: Some(0.25),
            output: Some(10.0),
        };
        let listed = row("gpt-4.1-mini", RowPrices::default());
        let carried = row("gpt-4.1-mini", stamped);
        let mut plain = PriceResolver::default();
        let list = plain.prices(&listed).unwrap();
        assert_eq!((list.input, list.output), (0.4, 1.6));
        let own = plain.prices(&carried).unwrap();
        assert_eq!((own.input, own.cached, own.output), (2.5, 0.25, 10.0));
        let mut flagged = PriceResolver::new(Some(1.0), None, None);
        let over = flagged.prices(&carried).unwrap();
        // Each price on its own: the flag's input, the row's cached and output.
        assert_eq!((over.input, over.cached, over.output), (1.0, 0.25, 10.0));
        // An unlisted model is priced by its row alone.
        assert!(plain.prices(&row("demo", RowPrices::default())).is_none());
        assert_eq!(plain.prices(&row("demo", stamped)).unwrap().input, 2.5);
    }

    #[test]
    fn a_cost_is_shown_to_the_millionth_rounded_half_away_from_zero() {
        let unit = 1_000_000_000i128; // a millionth of the currency
        assert_eq!(cost_figure(0), 0.0);
        assert_eq!(cost_figure(5_500_000 * unit), 5.5);
        assert_eq!(cost_figure(unit / 2), 0.000001);
        assert_eq!(cost_figure(unit / 2 - 1), 0.0);
        assert_eq!(cost_figure(-unit / 2), -0.000001);
        assert_eq!(cost_figure(2_200 * unit + 499_999_999), 0.0022);
        assert!(cost_figure(i128::MAX).is_finite());
        assert!(cost_figure(i128::MIN).is_finite());
    }
}
