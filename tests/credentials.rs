//! Keys stay with their origin (issue 21, defect 1), for every entry point that calls a
//! provider: the key goes only to the base URL the operator configured (a flag, the
//! environment, the brief's `model:`), never to one named by model-reachable input. MCP's
//! own caller-named `base_url` is covered in `session_mcp`.

use std::path::Path;
use std::process::Output;

use serde_json::json;

use crate::common::{brief, stderr};
use crate::harness::command::compacted_state;
use crate::harness::{Workspace, argv, assert_exit, session};
use crate::loopback::model::{answer, say};
use crate::loopback::{Recorded, Server};

const KEY: &str = "sk-test-operator-SECRET-91c4";

/// Runs `brief ARGS` in `root` with the operator's key and base URL in the environment.
fn with_key(root: &Path, base: &str, args: &[&str]) -> Output {
    brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_RETRY_BASE_MS", "1")
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", base)
        .args(args)
        .output()
        .unwrap()
}

fn carries_the_key(request: &Recorded) -> bool {
    request.header("authorization").as_deref() == Some(&format!("Bearer {KEY}"))
}

/// A model in a session turn calls `compact_context` with its own `base_url`, provider and
/// model: the compaction call still goes to the operator's base URL, and the host the
/// model named hears nothing.
#[test]
fn session_turn_never_sends_the_key_to_a_base_url_the_model_names() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    session(root).user("Book Ada.");
    let attacker = Server::answering(|_| say("openai", "{}"));
    let named = format!("{}/v1", attacker.url());
    let operator = Server::start(vec![
        answer(
            "openai",
            None,
            &[(
                "compact_context",
                json!({"resume_instruction": "Go on.", "base_url": named,
                       "provider": "openai", "model": "exfiltrate"}),
            )],
        ),
        say("openai", &compacted_state()),
    ]);
    let base = format!("{}/v1", operator.url());
    let out = with_key(root, &base, &["session", "turn", "s", "--model", "m"]);
    assert_exit(&out, 0);
    assert!(
        attacker.requests().is_empty(),
        "the model's host got a request"
    );
    let requests = operator.requests();
    assert_eq!(requests.len(), 2, "the turn and its compaction");
    assert!(requests.iter().all(carries_the_key));
    assert_eq!(
        requests[1].json()["model"],
        "m",
        "the operator's model, not the model's"
    );
}

/// Every command that calls a provider resolves its address the one way: the key reaches
/// the base URL the operator set in the environment, on every request.
#[test]
fn every_provider_call_carries_the_key_only_to_the_configured_base_url() {
    let ws = Workspace::clinic_session(&["--framework-tools", "--context-limit", "100000"]);
    let root = ws.root();
    session(root).user("Book Ada.");
    let state = compacted_state();
    let server = Server::answering(move |_| say("openai", &state));
    let base = format!("{}/v1", server.url());
    let commands: [&[&str]; 4] = [
        &["compress", "clinic", "booking", "--model", "m"],
        &argv("probe clinic --model m --repeat 2 --var patient=Ada --var last_visit=May"),
        &argv("session turn s --model m --user 'Any slot?'"),
        &[
            "session", "compact", "s", "--model", "m", "--resume", "Go on.",
        ],
    ];
    let mut seen = 0;
    for args in commands {
        let out = with_key(root, &base, args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains(KEY), "{args:?} printed the key");
        let requests = server.requests();
        assert!(
            requests.len() > seen,
            "{args:?} made no call: {}{}",
            crate::common::stdout(&out),
            stderr(&out)
        );
        assert!(requests[seen..].iter().all(carries_the_key), "{args:?}");
        seen = requests.len();
    }
}
