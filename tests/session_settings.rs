//! Session settings (issue 25.4): the provider, model and base URL kept by `session new`
//! (flags, else the brief's `model:`), overridable per turn; volatile values given at `new`
//! or with each render, required only when a render needs them; an unknown `--var` warned
//! about in render, status, gate and turn as `compose` does.

use serde_json::Value;

use crate::common::{brief, json, run_in, stderr, stdout};
use crate::harness::{argv, argv_then, assert_exit, assert_stderr_has, session};
use crate::loopback::Server;
use crate::loopback::model::say;

#[test]
fn a_session_started_with_a_provider_needs_no_provider_flags_on_its_turns() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let server = Server::start(vec![say("openai", "Which day suits you?")]);
    let base = format!("{}/v1", server.url());
    let out = run_in(
        root,
        &argv_then(
            "session new s --brief clinic --context-limit 100000 --var patient=Ada --var last_visit=May --provider openai --model test-model --base-url",
            &[&base, "--json"],
        ),
    );
    assert_exit(&out, 0);
    let made = json(&out);
    assert_eq!(made["provider"], "openai");
    assert_eq!(made["model"], "test-model");
    assert_eq!(made["base_url"], base.as_str());
    let out = brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .args(["session", "turn", "s", "--user", "A follow-up, please."])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("Which day suits you?"));
    let sent = server.requests()[0].json();
    assert_eq!(sent["model"], "test-model");
    // A flag still wins for one turn: another model on the same server.
    let server2 = Server::start(vec![say("openai", "ok")]);
    let out = brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .args(argv("session turn s --user Tuesday? --model other-model"))
        .args(["--base-url", &format!("{}/v1", server2.url())])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_eq!(server2.requests()[0].json()["model"], "other-model");
}

#[test]
fn volatile_values_are_needed_only_by_a_render_and_an_unknown_var_is_warned_about() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let out = run_in(
        root,
        &argv("session new s --brief clinic --var pateint=Ada"),
    );
    assert_exit(&out, 0);
    assert_stderr_has(&out, "--var pateint is not used by any volatile item");
    session(root).user("hello");
    // Status and gate count Tier 3 as written; a render needs every value.
    let status: Value = session(root).status();
    assert!(status["tier3_tokens"].as_u64().unwrap() > 0);
    let out = run_in(root, &["session", "render", "s"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("{{patient}}") || stderr(&out).contains("patient"),
        "{}",
        stderr(&out)
    );
    let out = run_in(
        root,
        &argv("session render s --var patient=Ada --var last_visit=May"),
    );
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("Ada"));
    for args in [
        argv("session render s --var patient=Ada --var last_visit=May --var typo=1"),
        vec!["session", "status", "s", "--var", "typo=1"],
        vec!["session", "gate", "s", "--estimate", "1", "--var", "typo=1"],
    ] {
        let out = run_in(root, &args);
        assert!(
            stderr(&out).contains("--var typo is not used by any volatile item"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = brief()
        .current_dir(root)
        .args(argv("session turn s --var typo=1 --provider openai"))
        .args(["--model", "m", "--base-url", "http://127.0.0.1:9/v1"])
        .output()
        .unwrap();
    assert_stderr_has(&out, "--var typo is not used by any volatile item");
}

#[test]
fn a_session_of_a_brief_with_a_model_keeps_it_and_its_turns_need_no_flags() {
    let ws = crate::common::workspace("clinic");
    let root = ws.path();
    let server = Server::start(vec![say("openai", "Which day suits you?")]);
    crate::harness::command::brief_naming(root, &server);
    let made = json(&run_in(
        root,
        &argv("session new s --brief clinic --context-limit 100000 --json"),
    ));
    assert_eq!(made["provider"], "openai", "{made}");
    assert_eq!(made["model"], "brief-model");
    let out = brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .args(["session", "turn", "s", "--user", "A follow-up, please."])
        .args(["--var", "patient=Ada", "--var", "last_visit=May"])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    assert_eq!(server.requests()[0].json()["model"], "brief-model");
}
