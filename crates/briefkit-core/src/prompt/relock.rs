//! After a body change (`accept`, `restore`, `record`): whether brief.lock still holds, and
//! when it does not, `brief lock` as the next command with what the change costs in cache
//! writes. Without it every accept silently broke `brief check --strict` (issue 36).

use std::path::Path;

use crate::brief::{Brief, Problem};
use crate::error::Result;
use crate::prompt::check::{Options, check_with};
use crate::store::change::{self, ChangeReport, Money, Relock};

/// The finding kinds that `brief lock` resolves.
const LOCK_KINDS: &[&str] = &[
    "no-lock",
    "prefix-changed",
    "rule-changed",
    "rule-not-locked",
    "rule-removed",
];

/// What the brief at `dir` needs after a change: `None` when its lock still holds.
pub fn advice(dir: &Path) -> Result<Option<Relock>> {
    let brief = Brief::load(dir)?;
    let report = check_with(&brief, Options::default())?;
    if !report.findings.iter().any(|f| LOCK_KINDS.contains(&f.kind)) {
        return Ok(None);
    }
    let prefix_changed = report
        .locked_prefix_hash
        .as_ref()
        .is_some_and(|locked| *locked != report.prefix_hash);
    let cache_write_cost = match (&brief.manifest.pricing, report.tokens_rewritten) {
        (Some(p), Some(tokens)) => Some(Money {
            amount: tokens as f64 * p.cache_write_per_mtok.unwrap_or(p.input_per_mtok) / 1e6,
            currency: p.currency.clone(),
        }),
        _ => None,
    };
    Ok(Some(Relock {
        next: format!("brief lock {}", dir.display()),
        prefix_changed,
        tokens_rewritten: report.tokens_rewritten,
        cache_write_cost,
    }))
}

/// Attaches [`advice`] to a report whose change moved a body (a `record` versions a body
/// edited by hand, so it writes none itself).
fn with_advice(dir: &Path, mut report: ChangeReport) -> Result<ChangeReport> {
    // The change is already written: a brief that cannot be loaded or checked now (an item
    // over the loader's limit, which only history, show, diff, restore and record accept)
    // gets no advice rather than an error that would read as "nothing was written".
    if report.status != "unchanged" {
        report.relock = advice(dir).ok().flatten();
    }
    Ok(report)
}

/// [`change::accept`], then [`advice`] when the brief still loads.
pub fn accept(
    dir: &Path,
    id: &str,
    allow_flags: bool,
    warn: &mut dyn FnMut(&Problem),
) -> Result<ChangeReport> {
    with_advice(dir, change::accept(dir, id, allow_flags, warn)?)
}

/// [`change::restore`], then [`advice`].
pub fn restore(
    dir: &Path,
    item: &str,
    number: u32,
    warn: &mut dyn FnMut(&Problem),
) -> Result<ChangeReport> {
    with_advice(dir, change::restore(dir, item, number, warn)?)
}

/// [`change::record`], then [`advice`].
pub fn record(
    dir: &Path,
    item: &str,
    note: Option<String>,
    warn: &mut dyn FnMut(&Problem),
) -> Result<ChangeReport> {
    with_advice(dir, change::record(dir, item, note, warn)?)
}
