//! `brief session compact`: the seed's four-step compaction, run by the operator.

use std::path::PathBuf;

use serde_json::json;

use crate::cache::ledger;
use crate::cli::Outcome;
use crate::cli::ui::Ui;
use crate::error::{Error, Result};
use crate::provider::{self, BriefModel, CallOptions, Overrides, ProviderKind, Settings};
use crate::session::Session;
use crate::session::budget::thousands;
use crate::session::compact::{self, CompactReport};

/// Condense all of Tier 2 into a CompactedState with a separate model call, then replace
/// Tier 2 with the state and the resume instruction
///
/// The answer must be valid against schemas/compacted-state.schema.json; an invalid one
/// is sent back once with its violations, a second invalid one fails (exit 3) with
/// nothing changed. Reports tokens before and after and, from the deterministic guard,
/// the facts of the old Tier 2 the state no longer holds. The old entries stay in the
/// log (`brief session show`). Every call is recorded in the ledger (`command: compact`).
#[derive(Debug, clap::Args)]
pub struct CompactArgs {
    /// The session directory
    pub dir: PathBuf,
    /// What to do first after the reset (or - for stdin)
    #[arg(long, value_name = "TEXT")]
    pub resume: String,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print {"status", "summary", "tokens_before", "tokens_after", "state_id",
    /// "resume_id", "forgotten"}
    #[arg(long)]
    pub json: bool,
}

/// Which model to call.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
    /// `openai` (any OpenAI-compatible server) or `anthropic` [default: the brief's, else openai]
    #[arg(long, value_name = "NAME", value_parser = parse_kind)]
    pub provider: Option<ProviderKind>,
    /// The model [default: the brief's `model.name`]
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The server's base URL [default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL, the brief's, the official one]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The ledger file the calls are recorded in [default: $BRIEF_LEDGER, else the user's state directory]
    #[arg(long, value_name = "PATH")]
    pub ledger: Option<PathBuf>,
}

fn parse_kind(text: &str) -> Result<ProviderKind, String> {
    text.parse()
}

/// The longest state asked for.
const MAX_STATE_TOKENS: u32 = 8192;

pub fn settings(args: &ModelArgs, session: &Session) -> Result<Settings> {
    let brief = &session.brief;
    let from_brief = match &brief.manifest.model {
        Some(model) => Some(BriefModel {
            kind: model.provider.parse().map_err(|e: String| {
                Error::input(format!(
                    "{}: model.provider: {e}",
                    brief.manifest_path().display()
                ))
            })?,
            model: model.name.clone(),
            base_url: model.base_url.clone(),
        }),
        None => None,
    };
    let flags = Overrides {
        kind: args.provider,
        model: args.model.clone(),
        base_url: args.base_url.clone(),
        timeout: None,
    };
    Settings::resolve(flags, from_brief)
}

/// Runs the compaction: one call, one retry with the violations, then the replacement.
pub fn compact(
    session: &Session,
    resume: &str,
    args: &ModelArgs,
    ui: &Ui,
) -> Result<CompactReport> {
    if resume.trim().is_empty() {
        return Err(Error::input(
            "--resume is empty: say what to do first after the reset",
        ));
    }
    let state = session.state()?;
    let tier2: Vec<_> = state.tier2().collect();
    if tier2.is_empty() {
        return Err(Error::input("Tier 2 is empty: nothing to compact"));
    }
    let expected: Vec<String> = tier2.iter().map(|e| e.id.clone()).collect();
    let settings = settings(args, session)?;
    let (system, hash) = compact::compaction_brief()?;
    let transcript = compact::transcript(&tier2);
    let options = CallOptions::text(MAX_STATE_TOKENS);
    let mut retry: Option<(String, Vec<crate::session::schema::Violation>)> = None;
    for attempt in 1..=2 {
        let prompt = compact::request(
            &system,
            &transcript,
            retry.as_ref().map(|(a, v)| (a.as_str(), v.as_slice())),
        );
        ui.info(&format!(
            "asking {} for the compacted state (call {attempt} of at most 2)",
            settings.model
        ));
        let started = std::time::Instant::now();
        let result = provider::call(&settings, &prompt, &options);
        let mut entry = ledger::Entry::new("compact", settings.kind.as_str(), &settings.model);
        entry.brief = Some(session.brief.manifest.name.clone());
        entry.brief_dir = Some(session.config.brief.display().to_string());
        entry.prefix_hash = Some(hash.clone());
        let entry = entry.record(started.elapsed(), &result);
        if let Err(err) = ledger::append(&ledger::resolve_path(args.ledger.clone()), &entry) {
            ui.warn(&format!(
                "the call was not recorded in the ledger: {}",
                err.message
            ));
        }
        let answer = result?;
        match compact::parse_state(&answer.text) {
            Ok(value) => return session.apply_compaction(&expected, &value, resume),
            Err(violations) => {
                for v in &violations {
                    ui.info(&format!("  invalid CompactedState: {v}"));
                }
                retry = Some((answer.text, violations));
            }
        }
    }
    let (_, violations) = retry.unwrap_or_default();
    Err(Error::provider(format!(
        "{} answered with an invalid CompactedState twice: nothing changed",
        settings.model
    ))
    .with_details(violations.iter().map(ToString::to_string).collect()))
}

pub fn run(args: CompactArgs, ui: &Ui) -> Result<Outcome> {
    let session = super::open(&args.dir, ui)?;
    let resume = super::text_arg(args.resume)?;
    let report = compact(&session, &resume, &args.model, ui);
    super::notices(&session, ui);
    let r = report?;
    let forgotten = r.forgotten.as_array().map_or(0, Vec::len);
    let summary = format!(
        "compacted {} entries: Tier 2 {} -> {} tokens ({} state, {} resume); {forgotten} fact{} of the old memory not in the state",
        r.removed_ids.len(),
        thousands(r.tokens_before),
        thousands(r.tokens_after),
        r.state_id,
        r.resume_id,
        if forgotten == 1 { "" } else { "s" }
    );
    if args.json {
        ui.json(&json!({
            "status": "ok",
            "summary": summary,
            "tokens_before": r.tokens_before,
            "tokens_after": r.tokens_after,
            "state_id": r.state_id,
            "resume_id": r.resume_id,
            "forgotten": r.forgotten,
            "removed_ids": r.removed_ids,
            "tokens_rewritten": r.tokens_rewritten,
        }))?;
        return Ok(Outcome::Ok);
    }
    ui.outln(&summary)?;
    ui.outln(&format!(
        "cache: all of Tier 2 changed; {} tokens written to the cache again",
        thousands(r.tokens_rewritten)
    ))?;
    for fact in r.forgotten.as_array().into_iter().flatten() {
        let kind = fact["kind"].as_str().unwrap_or("fact");
        let text = fact["value"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| fact.to_string());
        ui.outln(&format!("  forgotten {kind}: {text}"))?;
    }
    Ok(Outcome::Ok)
}
