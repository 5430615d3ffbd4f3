//! `compress --estimate`: what a compress call would send and cost, without calling. The
//! input is counted from the exact prompt that would be sent; the output is bounded by the
//! item's own size, since a shorter body never needs more tokens than the original.

use serde::Serialize;

use super::Compressor;
use crate::brief::{Brief, Item};
use crate::error::Result;
use crate::tokens;

/// One call's estimate.
#[derive(Debug, Clone, Serialize)]
pub struct Estimate {
    pub item: String,
    /// Tokens of the request: the compressor's system prompt and the item's message,
    /// counted with the brief's tokenizer (the provider's own count differs a little).
    pub input_tokens: usize,
    /// At most this many answer tokens: the item's current size.
    pub output_tokens: usize,
    /// Estimated cost of the call in the pricing's currency; `null` when no price is known.
    pub cost: Option<f64>,
    /// Requests it takes: one, or one per message of a `format: messages` sample.
    pub calls: usize,
}

/// Prices per million tokens for an estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub output: f64,
}

/// The prices a compress call to `model` is estimated with: the flags, else the brief's
/// `pricing` when the call goes to the brief's own model (its prices are for that model).
pub fn prices(
    brief: &Brief,
    model: &str,
    input: Option<f64>,
    output: Option<f64>,
) -> Option<Prices> {
    let own = brief.manifest.pricing.as_ref().filter(|_| {
        brief
            .manifest
            .model
            .as_ref()
            .is_none_or(|m| m.name == model)
    });
    let input = input.or(own.map(|p| p.input_per_mtok))?;
    let output = output
        .or(own.and_then(|p| p.output_per_mtok))
        .unwrap_or(input);
    Some(Prices { input, output })
}

/// The estimate of compressing `item` with `compressor`.
pub fn estimate(
    brief: &Brief,
    item: &Item,
    compressor: &Compressor,
    prices: Option<Prices>,
) -> Estimate {
    let encoding = brief.manifest.tokenizer;
    let prompts = super::prompts(compressor, item);
    let input_tokens = prompts
        .iter()
        .map(|prompt| {
            crate::prompt::compose::static_tokens(encoding, &prompt.static_system, &prompt.examples)
                + prompt
                    .messages
                    .iter()
                    .map(|m| tokens::count(encoding, &m.content))
                    .sum::<usize>()
        })
        .sum();
    let output_tokens = tokens::count(encoding, item.body());
    let cost = prices
        .map(|p| (input_tokens as f64 * p.input + output_tokens as f64 * p.output) / 1_000_000.0);
    Estimate {
        item: item.id.clone(),
        input_tokens,
        output_tokens,
        cost,
        calls: prompts.len(),
    }
}

/// What `compress --estimate` is asked about: the items a run would send, the compressor,
/// the provider settings named (no key is needed to count) and the prices given.
#[derive(Debug, Clone)]
pub struct EstimateRequest<'a> {
    pub brief: &'a Brief,
    /// The item a run would compress; `None`: every eligible item.
    pub item: Option<&'a str>,
    /// A compressor brief's directory; `None`: the bundled compressor.
    pub compressor: Option<&'a std::path::Path>,
    pub provider: &'a crate::provider::Overrides,
    /// Prices per million tokens that override the brief's `pricing`.
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
}

/// Every call a compress run would make, counted and priced; nothing is sent. A refused
/// item is refused as by the run.
pub fn estimate_run(request: &EstimateRequest) -> Result<Estimates> {
    let brief = request.brief;
    let targets = super::targets(brief, request.item)?;
    let compressor = match request.compressor {
        Some(dir) => super::from_dir(dir)?,
        None => super::bundled()?,
    };
    let (wire, model) = crate::provider::choice(request.provider, brief.manifest.model.as_ref());
    let prices = prices(
        brief,
        model.as_deref().unwrap_or_default(),
        request.price_input,
        request.price_output,
    );
    let estimates: Vec<Estimate> = targets
        .iter()
        .map(|item| estimate(brief, item, &compressor, prices))
        .collect();
    let cost = prices.map(|_| {
        let sum = estimates.iter().filter_map(|e| e.cost).sum::<f64>();
        (sum * 1e6).round() / 1e6
    });
    // For every eligible item, the items that would not be sent are named too.
    let refused = if request.item.is_none() {
        super::eligible(brief)
            .1
            .iter()
            .map(|(item, _)| item.id.clone())
            .collect()
    } else {
        Vec::new()
    };
    Ok(Estimates {
        provider: wire.as_str(),
        model,
        compressor: compressor.source.clone(),
        calls: estimates.iter().map(|e| e.calls).sum(),
        input_tokens: estimates.iter().map(|e| e.input_tokens).sum(),
        output_tokens: estimates.iter().map(|e| e.output_tokens).sum(),
        estimates,
        cost,
        currency: cost.map(|_| {
            brief
                .manifest
                .pricing
                .as_ref()
                .map_or_else(|| "USD".to_string(), |p| p.currency.clone())
        }),
        refused,
    })
}

/// [`estimate_run`]'s report, in the order `compress --estimate --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct Estimates {
    pub provider: &'static str,
    pub model: Option<String>,
    pub compressor: String,
    pub estimates: Vec<Estimate>,
    pub calls: usize,
    pub input_tokens: usize,
    pub output_tokens: usize,
    /// The whole run's cost, rounded to a millionth; `null` when no price is known.
    pub cost: Option<f64>,
    /// The currency of every cost here (the brief's `pricing.currency`, else `USD`);
    /// absent when no price is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// For every eligible item, the items that would not be sent.
    pub refused: Vec<String>,
}
