//! Totals over ledger entries: tokens, the share served from cache, and the estimated cost
//! and savings, overall and per brief, model, prefix hash, session or day.

mod sentence;

use std::collections::BTreeMap;

use super::Entry;

/// What to group entries by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Brief,
    Model,
    Prefix,
    /// The agent session of a proxied call (`brief proxy`); the toolkit's own calls have none.
    Session,
    Day,
    /// The machine that made the call (`host`); rows from before it was recorded have none.
    Machine,
}

impl GroupBy {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Brief => "brief",
            GroupBy::Model => "model",
            GroupBy::Prefix => "prefix",
            GroupBy::Session => "session",
            GroupBy::Day => "day",
            GroupBy::Machine => "machine",
        }
    }

    /// The group an entry belongs to; `(none)` for an entry without the field.
    pub fn key(self, entry: &Entry) -> String {
        let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".to_string());
        match self {
            GroupBy::Brief => or_none(&entry.brief),
            GroupBy::Model => format!("{}/{}", entry.provider, entry.model),
            GroupBy::Prefix => or_none(&entry.prefix_hash),
            GroupBy::Session => or_none(&entry.session),
            // Times are written in UTC, so the day is the date part.
            GroupBy::Day => entry.time.get(..10).unwrap_or(&entry.time).to_string(),
            GroupBy::Machine => or_none(&entry.host),
        }
    }
}

/// Prices per million tokens for one call, all resolved (see `brief usage` for where they
/// come from).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prices {
    pub input: f64,
    pub cached: f64,
    /// A cache write (Anthropic: a 5-minute one).
    pub write: f64,
    /// A one-hour cache write (Anthropic), priced apart from `write`.
    pub write_1h: f64,
    pub output: f64,
}

/// Money is summed in these units per currency unit: a price per million tokens with up
/// to nine decimals is a whole number of units per token, so every cost is an exact integer
/// and sums agree whatever order (or grouping, as SQL sums them) they are made in.
pub const UNITS_PER_CURRENCY: f64 = 1e15;

/// A sum of [`UNITS_PER_CURRENCY`] as every view shows it (`brief usage --json`, `/stats`,
/// both dashboards): rounded to a millionth of the currency, half away from zero, in
/// integers so that no view rounds differently from another.
pub fn cost_figure(units: i128) -> f64 {
    const PER_MILLIONTH: i128 = 1_000_000_000;
    let half = PER_MILLIONTH / 2;
    let millionths = if units >= 0 {
        units.saturating_add(half) / PER_MILLIONTH
    } else {
        units.saturating_sub(half) / PER_MILLIONTH
    };
    millionths as f64 / 1e6
}

impl Prices {
    /// Cost of a call's usage, and what it would have cost with no cache at all. Of the
    /// `write` tokens, `write_1h` were written for an hour and are priced as such.
    pub fn cost(
        &self,
        input: u64,
        cached: u64,
        write: u64,
        write_1h: u64,
        output: u64,
    ) -> (f64, f64) {
        let (with, without) = self.cost_units(input, cached, write, write_1h, output);
        (
            with as f64 / UNITS_PER_CURRENCY,
            without as f64 / UNITS_PER_CURRENCY,
        )
    }

    /// [`Prices::cost`] in [`UNITS_PER_CURRENCY`], exact.
    pub fn cost_units(
        &self,
        input: u64,
        cached: u64,
        write: u64,
        write_1h: u64,
        output: u64,
    ) -> (i128, i128) {
        // A price per million tokens times 1e9 is the price of one token in units.
        let per_token = |price: f64| (price * 1e9).round() as i128;
        let plain = i128::from(input.saturating_sub(cached).saturating_sub(write));
        let long = write_1h.min(write);
        let short = write - long;
        let out = i128::from(output).saturating_mul(per_token(self.output));
        let with = plain
            .saturating_mul(per_token(self.input))
            .saturating_add(i128::from(cached).saturating_mul(per_token(self.cached)))
            .saturating_add(i128::from(short).saturating_mul(per_token(self.write)))
            .saturating_add(i128::from(long).saturating_mul(per_token(self.write_1h)))
            .saturating_add(out);
        let without = i128::from(input)
            .saturating_mul(per_token(self.input))
            .saturating_add(out);
        (with, without)
    }
}

/// Sums over a set of entries.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub calls: u64,
    /// Calls whose status is not `ok`.
    pub failed: u64,
    pub input_tokens: u64,
    pub cached_input_tokens: u64,
    /// `None` while no call reported cache writes (`numbers::add_known`).
    pub cache_write_tokens: Option<u64>,
    pub output_tokens: u64,
    /// Successful calls whose answer had no cached-token field.
    pub calls_without_cache_field: u64,
    /// Input tokens of the calls that did report a cached field: the share's denominator.
    pub input_tokens_reporting: u64,
    /// Calls whose answer reported usage (failed calls usually did not).
    pub calls_with_usage: u64,
    /// Calls with usage that had prices; cost and savings cover only these.
    pub priced_calls: u64,
    /// The cost, and what it would have been with no cache, in [`UNITS_PER_CURRENCY`].
    pub cost_units: i128,
    pub cost_without_cache_units: i128,
    /// Proxied calls that had a previous call of their session to be compared with.
    pub drift_compared: u64,
    /// Of those, the calls whose tools, system or earlier messages differed (each one a
    /// cache write the agent paid for).
    pub drifted: u64,
    /// How often each part drifted (`tools`, `system`, `messages`), in the order first seen.
    pub drifted_parts: Vec<(String, u64)>,
    pub first_seen: Option<String>,
    pub last_seen: Option<String>,
}

impl Totals {
    /// Every count and sum saturates at 2^64 - 1 instead of wrapping.
    fn add(&mut self, entry: &Entry, prices: Option<Prices>) {
        self.calls = self.calls.saturating_add(1);
        if !entry.is_ok() {
            self.failed = self.failed.saturating_add(1);
        }
        let input = entry.input_tokens.unwrap_or(0);
        let cached = entry.cached_input_tokens.unwrap_or(0);
        let write = entry.cache_write_tokens.unwrap_or(0);
        let output = entry.output_tokens.unwrap_or(0);
        self.input_tokens = self.input_tokens.saturating_add(input);
        self.cached_input_tokens = self.cached_input_tokens.saturating_add(cached);
        self.cache_write_tokens =
            crate::numbers::add_known(self.cache_write_tokens, entry.cache_write_tokens);
        self.output_tokens = self.output_tokens.saturating_add(output);
        if entry.cached_input_tokens.is_some() {
            self.input_tokens_reporting = self.input_tokens_reporting.saturating_add(input);
        } else if entry.is_ok() {
            self.calls_without_cache_field = self.calls_without_cache_field.saturating_add(1);
        }
        if entry.input_tokens.is_some() {
            self.calls_with_usage = self.calls_with_usage.saturating_add(1);
        }
        if let Some(parts) = &entry.drifted_parts {
            self.drift_compared = self.drift_compared.saturating_add(1);
            if !parts.is_empty() {
                self.drifted = self.drifted.saturating_add(1);
            }
            for part in parts {
                match self.drifted_parts.iter_mut().find(|(p, _)| p == part) {
                    Some((_, n)) => *n = n.saturating_add(1),
                    None => self.drifted_parts.push((part.clone(), 1)),
                }
            }
        }
        if let (Some(prices), Some(_)) = (prices, entry.input_tokens) {
            let write_1h = entry.cache_write_1h_tokens.unwrap_or(0);
            let (with, without) = prices.cost_units(input, cached, write, write_1h, output);
            self.priced_calls = self.priced_calls.saturating_add(1);
            self.cost_units = self.cost_units.saturating_add(with);
            self.cost_without_cache_units = self.cost_without_cache_units.saturating_add(without);
        }
        let earlier = |a: &str, b: &str| match (crate::clock::parse(a), crate::clock::parse(b)) {
            (Some(a), Some(b)) => a < b,
            _ => a < b,
        };
        if self
            .first_seen
            .as_deref()
            .is_none_or(|f| earlier(&entry.time, f))
        {
            self.first_seen = Some(entry.time.clone());
        }
        if self
            .last_seen
            .as_deref()
            .is_none_or(|l| earlier(l, &entry.time))
        {
            self.last_seen = Some(entry.time.clone());
        }
    }

    /// Adds totals summed elsewhere (a group of rows summed by SQL), saturating like
    /// [`Totals::add`]; times compare as times.
    pub fn merge(&mut self, other: &Totals) {
        let bump = |total: &mut u64, by: u64| *total = total.saturating_add(by);
        bump(&mut self.calls, other.calls);
        bump(&mut self.failed, other.failed);
        bump(&mut self.input_tokens, other.input_tokens);
        bump(&mut self.cached_input_tokens, other.cached_input_tokens);
        self.cache_write_tokens =
            crate::numbers::add_known(self.cache_write_tokens, other.cache_write_tokens);
        bump(&mut self.output_tokens, other.output_tokens);
        bump(
            &mut self.calls_without_cache_field,
            other.calls_without_cache_field,
        );
        bump(
            &mut self.input_tokens_reporting,
            other.input_tokens_reporting,
        );
        bump(&mut self.calls_with_usage, other.calls_with_usage);
        bump(&mut self.priced_calls, other.priced_calls);
        self.cost_units = self.cost_units.saturating_add(other.cost_units);
        self.cost_without_cache_units = self
            .cost_without_cache_units
            .saturating_add(other.cost_without_cache_units);
        bump(&mut self.drift_compared, other.drift_compared);
        bump(&mut self.drifted, other.drifted);
        for (part, n) in &other.drifted_parts {
            self.add_drifted_part(part, *n);
        }
        let time = |t: &Option<String>| t.as_deref().and_then(crate::clock::parse);
        if other.first_seen.is_some()
            && (self.first_seen.is_none() || time(&other.first_seen) < time(&self.first_seen))
        {
            self.first_seen = other.first_seen.clone();
        }
        if other.last_seen.is_some()
            && (self.last_seen.is_none() || time(&other.last_seen) > time(&self.last_seen))
        {
            self.last_seen = other.last_seen.clone();
        }
    }

    fn add_drifted_part(&mut self, part: &str, n: u64) {
        match self.drifted_parts.iter_mut().find(|(p, _)| p == part) {
            Some((_, count)) => *count = count.saturating_add(n),
            None => self.drifted_parts.push((part.to_string(), n)),
        }
    }

    /// Cached input over all input, among calls that reported a cached field; `None` when
    /// none did.
    pub fn cached_share(&self) -> Option<f64> {
        (self.input_tokens_reporting > 0)
            .then(|| self.cached_input_tokens as f64 / self.input_tokens_reporting as f64)
    }

    /// The estimated cost of the priced calls.
    pub fn cost(&self) -> f64 {
        self.cost_units as f64 / UNITS_PER_CURRENCY
    }

    /// What the priced calls would have cost with no cache at all.
    pub fn cost_without_cache(&self) -> f64 {
        self.cost_without_cache_units as f64 / UNITS_PER_CURRENCY
    }

    /// What caching saved (negative when cache writes cost more than the reads saved).
    pub fn savings(&self) -> f64 {
        self.cost_without_cache_units
            .saturating_sub(self.cost_units) as f64
            / UNITS_PER_CURRENCY
    }
}

/// One group of entries.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub key: String,
    /// For prefix groups: the brief name(s) seen with the hash, for a reader.
    pub briefs: Vec<String>,
    pub totals: Totals,
}

/// Totals over all entries and per group, groups in order of first appearance in time
/// (days and other keys alike sort by when they were first seen).
pub fn summarise(
    entries: &[Entry],
    by: GroupBy,
    mut prices: impl FnMut(&Entry) -> Option<Prices>,
) -> (Totals, Vec<Group>) {
    let mut summary = Summary::new(by);
    for entry in entries {
        summary.add(entry, prices(entry));
    }
    summary.finish()
}

/// [`summarise`] one entry at a time, so a ledger is summed as it is read: memory follows
/// the number of groups, not the number of calls.
#[derive(Debug, Clone)]
pub struct Summary {
    by: GroupBy,
    total: Totals,
    groups: BTreeMap<String, Group>,
}

impl Summary {
    pub fn new(by: GroupBy) -> Summary {
        Summary {
            by,
            total: Totals::default(),
            groups: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, entry: &Entry, prices: Option<Prices>) {
        self.total.add(entry, prices);
        let key = self.by.key(entry);
        let group = self.groups.entry(key.clone()).or_insert_with(|| Group {
            key,
            briefs: Vec::new(),
            totals: Totals::default(),
        });
        group.totals.add(entry, prices);
        if let Some(brief) = &entry.brief
            && !group.briefs.contains(brief)
        {
            group.briefs.push(brief.clone());
        }
    }

    fn group(&mut self, key: &str) -> &mut Group {
        self.groups.entry(key.to_string()).or_insert_with(|| Group {
            key: key.to_string(),
            briefs: Vec::new(),
            totals: Totals::default(),
        })
    }

    /// Adds the totals of rows summed elsewhere (by SQL) to group `key` and the total.
    pub fn add_totals(&mut self, key: &str, totals: &Totals) {
        self.total.merge(totals);
        self.group(key).totals.merge(totals);
    }

    /// Notes that group `key` holds calls made for `brief` (call in order of first use).
    pub fn add_brief(&mut self, key: &str, brief: &str) {
        let group = self.group(key);
        if !group.briefs.iter().any(|b| b == brief) {
            group.briefs.push(brief.to_string());
        }
    }

    /// Adds `n` drifts of `part` in group `key` (call in order of first drift).
    pub fn add_drifted_part(&mut self, key: &str, part: &str, n: u64) {
        self.total.add_drifted_part(part, n);
        self.group(key).totals.add_drifted_part(part, n);
    }

    /// The totals and the groups, in order of first appearance in time.
    pub fn finish(self) -> (Totals, Vec<Group>) {
        let mut groups: Vec<Group> = self.groups.into_values().collect();
        groups.sort_by_cached_key(|g| {
            let first = g.totals.first_seen.as_deref().and_then(crate::clock::parse);
            (first, g.key.clone())
        });
        (self.total, groups)
    }
}

#[cfg(test)]
mod tests;
