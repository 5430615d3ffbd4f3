//! Where `brief usage` gets a call's prices: the command line, else the `pricing` of the
//! brief the call was made for (read again from its directory, since the ledger keeps no
//! prices), else the dated list price of a well-known model (`cache::list_prices`); cached
//! and cache-write prices not given come from the provider's known multipliers of the
//! input price.

use std::collections::HashMap;
use std::path::Path;

use super::Entry;
use super::summary::Prices;
use crate::brief::{Manifest, Pricing};
use crate::cache::facts;

/// Prices for each call: flags first, then the pricing of the brief it was made for, then
/// the provider's multipliers for what is still missing.
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
        self.prices_for(&entry.provider, &entry.model, dir.map(String::as_str))
    }

    /// The prices of calls to `provider`'s `model` made for the brief in `dir` (the
    /// entry's `brief_dir`, else its `target_brief_dir`).
    pub fn prices_for(&mut self, provider: &str, model: &str, dir: Option<&str>) -> Option<Prices> {
        let brief = self.brief_pricing(model, dir);
        let listed = crate::cache::list_prices::lookup(model);
        let input = self
            .input
            .or(brief.as_ref().map(|p| p.input_per_mtok))
            .or(listed.map(|l| l.input_per_mtok))?;
        let facts = facts::lookup(provider, model);
        let cached = self
            .cached
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
