//! `brief proxy`: the local caching-instrumentation proxy (see `crate::proxy`).

use std::net::SocketAddr;
use std::time::Duration;

use crate::cli::output::Outcome;
use crate::cli::shared_args::LedgerArgs;
use crate::cli::ui::Ui;
use crate::clock::parse_timeout;
use crate::error::Result;
use crate::provider::configured_base_url;
use crate::proxy::{self, Config};
use crate::wire::Wire;

/// Relay an agent's model calls and record their cache hits, cache writes and prefix drift
///
/// Point the agent at the proxy by its base URL (OPENAI_BASE_URL=http://127.0.0.1:8787/v1,
/// ANTHROPIC_BASE_URL=http://127.0.0.1:8787). Requests pass upstream byte for byte and
/// answers come back as they arrive, streams included. Each model call (POST
/// /v1/chat/completions, /v1/responses, /v1/messages, /v1beta/models/MODEL:generateContent
/// or :streamGenerateContent) adds one ledger row (command `proxy`) with its usage, prefix
/// hash, session and the parts that drifted since the session's previous call; every other
/// request goes to its provider's upstream and is counted as unmetered. GET /stats and GET
/// /metrics show the running figures. A session is the X-Brief-Session header, else the
/// client's own session header (Claude Code's), else the conversation the call continues
/// (by its messages; a new one is named by its fingerprint). The bound address
/// is printed on stdout. Stop with Ctrl-C or SIGTERM: calls in flight get
/// --shutdown-timeout to finish, and every row is written.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  brief proxy\n  OPENAI_BASE_URL=http://127.0.0.1:8787/v1 my-agent\n  curl -s http://127.0.0.1:8787/stats"
)]
pub struct Args {
    /// The address to listen on (loopback only unless --allow-remote)
    #[arg(long, value_name = "ADDR", default_value = proxy::DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// The OpenAI-compatible upstream [default: $OPENAI_BASE_URL, else https://api.openai.com/v1]
    #[arg(long, value_name = "URL")]
    pub openai_upstream: Option<String>,
    /// The Anthropic upstream [default: $ANTHROPIC_BASE_URL, else https://api.anthropic.com]
    #[arg(long, value_name = "URL")]
    pub anthropic_upstream: Option<String>,
    /// The Gemini upstream [default: $GOOGLE_GEMINI_BASE_URL, else https://generativelanguage.googleapis.com]
    #[arg(long, value_name = "URL")]
    pub gemini_upstream: Option<String>,
    #[command(flatten)]
    pub ledger: LedgerArgs,
    /// Listen on a non-loopback address (the proxy relays credentials: mind who can reach it)
    #[arg(long)]
    pub allow_remote: bool,
    /// How long the upstream may take to start answering, and between two chunks
    /// (90s, 1500ms, 2m)
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, default_value = "600s")]
    pub timeout: Duration,
    /// How long a client may take to send a request's headers; an idle keep-alive
    /// connection is closed after it too
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, default_value = "10s")]
    pub header_timeout: Duration,
    /// The longest pause while a client sends its request body or takes its answer; a
    /// stalled body is answered 408, a client that stops reading is disconnected
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, default_value = "30s")]
    pub client_idle_timeout: Duration,
    /// Client connections held at once; past it a new connection is answered 503 (lowered
    /// to what the open-file limit allows)
    #[arg(long, value_name = "N", default_value_t = proxy::DEFAULT_MAX_CONNECTIONS, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: u32,
    /// After Ctrl-C or SIGTERM, how long calls in flight may take to finish before they are
    /// cut (their rows say `cancelled`)
    #[arg(long, value_name = "DURATION", value_parser = parse_timeout, default_value = "20s")]
    pub shutdown_timeout: Duration,
    /// Input price per million tokens, for the cost and savings on /stats and the dashboard;
    /// recorded in every row, so brief usage shows the same cost
    #[arg(long, value_name = "PRICE")]
    pub price_input: Option<f64>,
    /// Cached input price per million tokens [default: the provider's known multiplier of
    /// the input price]
    #[arg(long, value_name = "PRICE")]
    pub price_cached: Option<f64>,
    /// Output price per million tokens
    #[arg(long, value_name = "PRICE")]
    pub price_output: Option<f64>,
}

pub fn run(args: Args, ui: &Ui, sinks: &crate::cache::ledger::Sinks) -> Result<Outcome> {
    crate::cli::shared_args::check_prices(&[
        ("--price-input", args.price_input),
        ("--price-cached", args.price_cached),
        ("--price-output", args.price_output),
    ])?;
    // The upstreams resolve as every provider address does: the flag, the wire's
    // variable, the official endpoint.
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let upstream = |flag: Option<String>, wire: Wire, name: &str| {
        configured_base_url(wire, flag.as_deref(), None, &env).map_err(|mut err| {
            err.message = format!("{name}: {}", err.message);
            err
        })
    };
    let config = Config {
        listen: args.listen,
        openai_upstream: upstream(args.openai_upstream, Wire::OpenAi, "--openai-upstream")?,
        anthropic_upstream: upstream(
            args.anthropic_upstream,
            Wire::Anthropic,
            "--anthropic-upstream",
        )?,
        gemini_upstream: upstream(args.gemini_upstream, Wire::Gemini, "--gemini-upstream")?,
        ledger: args.ledger.destination_for_writing(ui)?,
        sinks: sinks.clone(),
        allow_remote: args.allow_remote,
        timeout: args.timeout,
        header_timeout: args.header_timeout,
        client_idle_timeout: args.client_idle_timeout,
        max_connections: args.max_connections as usize,
        shutdown_timeout: args.shutdown_timeout,
        prices: proxy::PriceFlags {
            input: args.price_input,
            cached: args.price_cached,
            output: args.price_output,
        },
    };
    let ledger_path = config.ledger.display();
    let (openai, anthropic, gemini) = (
        config.openai_upstream.clone(),
        config.anthropic_upstream.clone(),
        config.gemini_upstream.clone(),
    );
    let summary = proxy::run(config, |addr| {
        // The address first, on stdout, so a script can read the port it got.
        let _ = ui.outln(&format!("http://{addr}"));
        ui.info(&format!(
            "brief proxy: listening on http://{addr}\n  OpenAI:    POST /v1/chat/completions, /v1/responses -> {openai}\n  Anthropic: POST /v1/messages -> {anthropic}\n  Gemini:    POST /v1beta/models/MODEL:generateContent -> {gemini}\n  ledger: {}\n  dashboard: http://{addr}/ (figures: /stats, /metrics)\n  point an agent here: OPENAI_BASE_URL=http://{addr}/v1  ANTHROPIC_BASE_URL=http://{addr}  GOOGLE_GEMINI_BASE_URL=http://{addr}",
            ledger_path
        ));
    })?;
    let errors = if summary.ledger_errors > 0 {
        format!(
            " ({} not be written)",
            crate::numbers::count(summary.ledger_errors as u64, "row could", "rows could")
        )
    } else {
        String::new()
    };
    let sink = &summary.sink;
    if sink.kind == "clickhouse" {
        ui.info(&format!(
            "brief proxy: stopped after {}; {} spooled{errors}, {} sent to {} since start, {} waiting in the spool",
            crate::numbers::count(summary.calls as u64, "call", "calls"),
            crate::numbers::count(summary.rows_written as u64, "row", "rows"),
            sink.rows_stored,
            ledger_path,
            sink.rows_pending
        ));
    } else {
        ui.info(&format!(
            "brief proxy: stopped after {}; {} written to {}{errors}",
            crate::numbers::count(summary.calls as u64, "call", "calls"),
            crate::numbers::count(summary.rows_written as u64, "row", "rows"),
            ledger_path,
        ));
    }
    Ok(Outcome::Ok)
}
