//! A small Rust orchestrator over `briefkit::session`: it drives one session through the
//! loop an agent runtime runs — append the user's message, gate the tool call, append the
//! call and its result, render the next request body, and purge what the model no longer
//! needs — printing what each step did. No model is called: the "model" is scripted.
//!
//! ```sh
//! cargo run --example session_orchestrator -- briefs/support /tmp/demo-session
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use briefkit::session::ops::GateRequest;
use briefkit::session::render::Format;
use briefkit::session::{NewEntry, NewSession, OpKind, RenderedBody, Session};
use serde_json::json;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let brief = PathBuf::from(args.next().unwrap_or_else(|| "briefs/support".into()));
    let dir = PathBuf::from(args.next().unwrap_or_else(|| {
        std::env::temp_dir()
            .join(format!("briefkit-orchestrator-{}", std::process::id()))
            .display()
            .to_string()
    }));
    match run(brief, dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            for detail in &err.details {
                eprintln!("  {detail}");
            }
            ExitCode::from(err.exit_code())
        }
    }
}

fn run(brief: PathBuf, dir: PathBuf) -> briefkit::error::Result<()> {
    let mut new = NewSession::new(brief);
    new.framework_tools = true;
    new.vars = [
        ("date", "2026-11-30"),
        ("customer_name", "Ada"),
        ("plan", "Pro"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let session = Session::create(&dir, new)?;
    let vars = BTreeMap::new();
    println!("session {}", dir.display());

    let user = session.append(vec![NewEntry::User("Where is order NW-20417?".into())])?;
    println!("appended {}", user[0].id);

    // The model answers with a tool call; the orchestrator gates it before running it.
    let call = session.append(vec![
        NewEntry::Assistant("Let me look that up.".into()),
        NewEntry::ToolCall {
            name: "lookup_order".into(),
            arguments: json!({"order_id": "NW-20417"}),
            call_id: Some("call_1".into()),
        },
    ])?;
    let call_id = call[1].id.clone();
    let gate = session.gate(
        GateRequest::New {
            estimate: 300,
            kind: OpKind::Tool,
            high_volume: false,
            call: Some(call_id.clone()),
        },
        &vars,
    )?;
    let answer = serde_json::to_string(&gate.answer())
        .map_err(|e| briefkit::error::Error::internal(format!("cannot render JSON: {e}")))?;
    println!("gate: {answer}");
    if !gate.allowed {
        return Ok(());
    }
    let result = session.append(vec![NewEntry::ToolResult {
        call: call_id.clone(),
        text: "Delivered 2026-11-24; carrier: UPS; 2 items, $148.00.".into(),
        source: "text".into(),
    }])?;
    println!("appended {} and {}", call_id, result[0].id);

    let rendered = session.render(Format::Openai, &vars)?;
    if let RenderedBody::Json(body) = &rendered.body {
        let messages = body["messages"].as_array().map_or(0, Vec::len);
        println!(
            "render: {messages} messages; {}",
            rendered.figures.telemetry
        );
    }

    // The model is done with the lookup: it purges the call and result with a summary.
    let purge = session.purge(
        &[call_id, result[0].id.clone()],
        Some("Order NW-20417 was delivered on 2026-11-24 by UPS ($148.00)."),
    )?;
    println!(
        "purge: removed {} ({} tokens), summary {} ({} tokens), cache breaks at {}, {} tokens rewritten",
        purge.removed_ids.join(", "),
        purge.removed_tokens,
        purge.summary_id.as_deref().unwrap_or("-"),
        purge.summary_tokens,
        purge.cache_break_at,
        purge.tokens_rewritten
    );
    println!("{}", session.status(&vars)?.figures.telemetry);
    Ok(())
}
