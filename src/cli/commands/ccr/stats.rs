//! `brief ccr stats` and `brief ccr gc`: the store's counts, and the sweep of expired
//! originals.

use std::path::Path;

use serde::Serialize;

use crate::ccr::{self, Collected, Overview, thousands, ttl};
use crate::cli::output::{self, Form, Outcome, Report};
use crate::cli::table::{Align, Table};
use crate::cli::ui::{Tone, Ui};
use crate::document::Document;
use crate::error::Result;

pub(super) fn stats(path: &Path, as_json: bool, ui: &Ui) -> Result<Outcome> {
    output::print(
        ui,
        Form::json_if(as_json),
        &StatsReport(ccr::overview(path)?),
    )
}

/// `ccr stats`.
#[derive(Serialize)]
#[serde(transparent)]
struct StatsReport(Overview);

impl Report for StatsReport {
    fn status(&self) -> &str {
        self.0.status()
    }

    fn summary(&self) -> String {
        self.0.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        if let Some(note) = self.0.ttl_source.note(self.0.ttl_seconds) {
            ui.info(&note);
        }
        let stats = &self.0;
        let ttl_from = match stats.ttl_source {
            ttl::Source::Flag | ttl::Source::Env => ttl::ENV_TTL,
            ttl::Source::HeadroomEnv => ttl::HEADROOM_ENV_TTL,
            ttl::Source::Default => "default",
        };
        let mut out = format!(
            "{}\n",
            ui.paint(
                &format!(
                    "CCR store {} ({} bytes): {}",
                    stats.path,
                    thousands(stats.file_bytes),
                    self.summary()
                ),
                Tone::Strong
            )
        );
        out.push_str(&format!(
            "TTL {} ({ttl_from}); {} expired original(s) awaiting `brief ccr gc`\n",
            ttl::human(stats.ttl_seconds),
            thousands(stats.awaiting_gc)
        ));
        if stats.exists {
            out.push('\n');
            use Align::{Left, Right};
            let mut table = Table::new(&[Left, Right, Right, Right, Right, Right, Right]).header([
                "STRATEGY",
                "LIVE",
                "EXPIRED",
                "ORIG BYTES",
                "COMPR BYTES",
                "ORIG TOK",
                "COMPR TOK",
            ]);
            for (name, s) in &stats.strategies {
                table.row([
                    name.to_string(),
                    thousands(s.live),
                    thousands(s.expired),
                    thousands(s.original_bytes),
                    thousands(s.compressed_bytes),
                    thousands(s.original_tokens),
                    thousands(s.compressed_tokens),
                ]);
            }
            out.push_str(&table.render_header_with(|line| ui.paint(line, Tone::Dim)));
        }
        ui.out(&out)
    }
}

pub(super) fn gc(path: &Path, as_json: bool, ui: &Ui) -> Result<Outcome> {
    output::print(ui, Form::json_if(as_json), &GcReport(ccr::collect(path)?))
}

/// `ccr gc`.
#[derive(Serialize)]
#[serde(transparent)]
struct GcReport(Collected);

impl Report for GcReport {
    fn status(&self) -> &str {
        self.0.status()
    }

    fn summary(&self) -> String {
        self.0.summary()
    }

    fn human(&self, ui: &Ui) -> Result<()> {
        ui.confirm(&self.summary())
    }
}
