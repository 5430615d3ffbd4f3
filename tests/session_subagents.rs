//! The framework's sub-agents run end to end (issue 25.2) against loopback servers: a page
//! server, a SearxNG-compatible search backend and a scripted model. Each returns a
//! validated envelope appended whole as its call's result, is gated, metered in the ledger
//! (`command: subagent`) and shown in `session log`; nothing of ours reaches a page.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::common::{brief, json, run_in, stdout};
use crate::harness::{
    self, Workspace, argv, assert_exit, command::with_openai, new_session, ok, session,
};
use crate::harness::{assert_stderr_has, command::ledger_rows};
use crate::loopback::model::{answer, say};
use crate::loopback::{Reply, Server};

const PAGE: &str = "<!doctype html><html><head><title>Plans</title><script>track()</script><style>p{color:red}</style></head><body><nav>Home | Blog</nav><h1>Plans and prices</h1><p>The <b>Pro</b> plan costs $12 a month and allows 5 seats.</p><p>Support answers within 4 hours.</p></body></html>";

fn envelope(url: &str) -> String {
    harness::envelope(
        "Pro costs $12 a month for 5 seats.",
        "Pro is $12 a month",
        "Plans and prices",
        url,
    )
}

fn pages() -> Server {
    Server::answering(|request| {
        if request.path().starts_with("/moved") {
            Reply::status(302, &[("location", "/plans")], "text/plain", "")
        } else if request.path().starts_with("/search") {
            Reply::status(404, &[], "text/plain", "no")
        } else {
            Reply::status(200, &[], "text/html; charset=utf-8", PAGE)
        }
    })
}

fn run(root: &Path, model: &Server, args: &[&str], allow_private: bool) -> Output {
    let mut cmd = with_openai(root, model, args);
    cmd.env("OPENAI_API_KEY", "sk-test-subagent-key-0123456789");
    if allow_private {
        cmd.env("BRIEF_FETCH_ALLOW_PRIVATE", "1");
    }
    cmd.output().unwrap()
}

/// `session subagent s tool_call_2 --json`, which exits 0: its report.
fn subagent(root: &Path, model: &Server, allow_private: bool) -> Value {
    let out = run(
        root,
        model,
        &["session", "subagent", "s", "tool_call_2", "--json"],
        allow_private,
    );
    assert_exit(&out, 0);
    json(&out)
}

fn session_with_call(root: &Path, name: &str, args: Value) {
    new_session(root, &["--framework-tools", "--context-limit", "100000"]);
    session(root).user("What does the Pro plan cost?");
    session(root).tool_call(name, &args.to_string());
}

/// The page server, and the session with a `fetch_url` call of its `/plans` page.
fn with_a_fetch_of_plans(root: &Path) -> Server {
    let site = pages();
    session_with_call(
        root,
        "fetch_url",
        json!({"url": format!("{}/plans", site.url())}),
    );
    site
}

fn result(root: &Path, id: &str) -> Value {
    let shown = json(&run_in(root, &["session", "show", "s", id, "--json"]));
    serde_json::from_str(shown["entry"]["text"].as_str().unwrap()).unwrap()
}

#[test]
fn fetch_url_reads_a_page_and_appends_a_validated_envelope_that_cites_it() {
    let ws = Workspace::new().brief("clinic");
    let root = ws.root();
    let site = pages();
    let url = format!("{}/moved", site.url());
    session_with_call(
        root,
        "fetch_url",
        json!({"url": url, "focus": "the price of Pro"}),
    );
    // The first answer is not an envelope: sent back once with its violations.
    let model = Server::start(vec![
        say("openai", "Pro costs $12."),
        say("openai", &envelope(&url)),
    ]);
    let report = subagent(root, &model, true);
    assert_eq!(report["result_id"], "tool_res_3");
    assert_eq!(report["outcome"], "completed");
    assert_eq!(report["model_calls"], 2);
    let kept = result(root, "tool_res_3");
    assert_eq!(kept["summary"], "Pro costs $12 a month for 5 seats.");
    let sources = kept["sources"].as_array().unwrap();
    assert!(sources.contains(&json!(url)), "{kept}");
    assert!(
        sources.contains(&json!(format!("{}/plans", site.url()))),
        "{kept}"
    );

    // The model read the page as text, with the focus, under the bundled brief.
    let requests = model.requests();
    let first = requests[0].json().to_string();
    assert!(
        first.contains("Plans and prices") && first.contains("$12 a month"),
        "{first}"
    );
    assert!(first.contains("the price of Pro"));
    assert!(
        !first.contains("<p>") && !first.contains("track()"),
        "{first}"
    );
    assert!(first.contains("reading sub-agent"), "{first}");
    assert!(
        !first.contains("What does the Pro plan cost?"),
        "isolated from Tier 2"
    );
    let retry = requests[1].json().to_string();
    assert!(retry.contains("not a valid result envelope"), "{retry}");
    // Nothing of ours reached the page: no key, no authorization.
    for request in site.requests() {
        assert!(request.header("authorization").is_none());
        assert!(
            !request.head.contains("sk-test-subagent"),
            "{}",
            request.head
        );
    }
    // Metered, shown in the log, and renders every provider accepts.
    let commands: Vec<Value> = ledger_rows(root)
        .iter()
        .map(|r| r["command"].clone())
        .collect();
    assert_eq!(commands, [json!("subagent"), json!("subagent")]);
    assert!(ok(root, &["session", "log", "s"]).contains("sub-agent result"));
    let log = session(root).log();
    assert_eq!(log["entries"][2]["source"], "subagent");
    for format in ["openai", "anthropic"] {
        ok(root, &["session", "render", "s", "--format", format]);
    }
}

#[test]
fn fetch_url_refuses_loopback_unless_allowed_and_answers_the_call_with_why() {
    let ws = Workspace::new().brief("clinic");
    let root = ws.root();
    let site = with_a_fetch_of_plans(root);
    let model = Server::start(vec![]);
    assert_eq!(subagent(root, &model, false)["outcome"], "failed");
    let kept = result(root, "tool_res_3");
    assert!(
        kept["summary"]
            .as_str()
            .unwrap()
            .contains("BRIEF_FETCH_ALLOW_PRIVATE"),
        "{kept}"
    );
    assert!(site.requests().is_empty(), "never fetched");
    assert!(model.requests().is_empty(), "no model call");
}

#[test]
fn web_search_agent_searches_fetches_the_top_results_and_synthesises_once() {
    let ws = Workspace::new().brief("clinic");
    let root = ws.root();
    let site = pages();
    let page = format!("{}/plans", site.url());
    let results = json!({"results": [
        {"url": page, "title": "Plans", "content": "Pro plan pricing"},
        {"url": format!("{}/plans?b", site.url()), "title": "Plans again", "content": "more"},
    ]})
    .to_string();
    let backend = Server::answering(move |_| Reply::status(200, &[], "application/json", &results));
    session_with_call(
        root,
        "web_search_agent",
        json!({"query": "pro plan price", "focus": "seats"}),
    );
    // Without a backend: a clear error, nothing appended.
    let model = Server::start(vec![say("openai", &envelope(&page))]);
    let out = run(
        root,
        &model,
        &["session", "subagent", "s", "tool_call_2"],
        true,
    );
    assert_eq!(out.status.code(), Some(2));
    assert_stderr_has(&out, "BRIEF_SEARCH_URL");
    let out = brief()
        .current_dir(root)
        .env("XDG_STATE_HOME", root.join("state"))
        .env("BRIEF_LEDGER", root.join("ledger.jsonl"))
        .env("BRIEF_FETCH_ALLOW_PRIVATE", "1")
        .env("BRIEF_SEARCH_URL", backend.url())
        .env("OPENAI_API_KEY", "sk-test")
        .args(["session", "subagent", "s", "tool_call_2", "--json"])
        .args(["--provider", "openai", "--model", "test-model"])
        .args(["--base-url", &format!("{}/v1", model.url())])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let search = &backend.requests()[0];
    assert!(
        search
            .path()
            .starts_with("/search?q=pro+plan+price&format=json"),
        "{}",
        search.path()
    );
    assert_eq!(site.requests().len(), 2, "both results fetched");
    let sent = model.requests()[0].json().to_string();
    assert!(
        sent.contains("pro plan price")
            && sent.contains("Plans and prices")
            && sent.contains("seats")
    );
    assert_eq!(model.requests().len(), 1, "one synthesis");
    let kept = result(root, "tool_res_3");
    assert!(kept["sources"].as_array().unwrap().contains(&json!(page)));
}

#[test]
fn delegate_task_runs_a_child_session_hands_back_its_calls_and_returns_an_envelope() {
    let ws = Workspace::new().brief("clinic");
    let root = ws.root();
    session_with_call(
        root,
        "delegate_task",
        json!({"goal": "Find a free slot on 2026-12-01", "constraints": "mornings only"}),
    );
    let done =
        json!({"status": "completed", "summary": "10:30 on 2026-12-01 is free."}).to_string();
    let model = Server::start(vec![
        answer(
            "openai",
            Some("Checking."),
            &[("find_slot", json!({"day": "2026-12-01"}))],
        ),
        say("openai", &done),
    ]);
    let waiting = subagent(root, &model, false);
    assert_eq!(waiting["status"], "waiting");
    let child = waiting["delegate"]["session"].as_str().unwrap().to_string();
    let call = waiting["tool_calls"][0].clone();
    assert_eq!(call["name"], "find_slot");
    // The child saw the goal and constraints, its own tools, and nothing of the parent.
    let first = model.requests()[0].json().to_string();
    assert!(first.contains("Find a free slot") && first.contains("mornings only"));
    assert!(first.contains("find_slot"));
    assert!(!first.contains("What does the Pro plan cost?"), "{first}");
    // The caller answers the child's call there, and runs the sub-agent again.
    let id = call["id"].as_str().unwrap();
    ok(
        root,
        &[
            "session",
            "append",
            &child,
            "--tool-result",
            id,
            "--text",
            "10:30 free",
        ],
    );
    let report = subagent(root, &model, false);
    assert_eq!(report["result_id"], "tool_res_3");
    let kept = result(root, "tool_res_3");
    assert_eq!(kept["summary"], "10:30 on 2026-12-01 is free.");
    assert_eq!(kept["delegate"]["turns"], 2);
    assert_eq!(kept["delegate"]["turn_cap"], 8);
    assert!(kept["delegate"]["token_cap"].as_u64().unwrap() > 0);
    let commands: Vec<Value> = ledger_rows(root)
        .iter()
        .map(|r| r["command"].clone())
        .collect();
    assert_eq!(commands, [json!("subagent"), json!("subagent")]);
}

#[test]
fn a_turn_runs_its_subagents_and_a_subagent_that_does_not_fit_is_not_started() {
    let ws = Workspace::new().brief("clinic");
    let root = ws.root();
    let site = pages();
    let url = format!("{}/plans", site.url());
    new_session(root, &["--framework-tools", "--context-limit", "100000"]);
    let model = Server::start(vec![
        answer("openai", None, &[("fetch_url", json!({"url": url}))]),
        say("openai", &envelope(&url)),
    ]);
    let out = run(
        root,
        &model,
        &argv("session turn s --user 'Price of Pro?' --run-subagents --json"),
        true,
    );
    assert_exit(&out, 0);
    let report = json(&out);
    assert_eq!(report["subagents"][0]["outcome"], "completed", "{report}");
    assert_eq!(report["subagents"][0]["result_id"], "tool_res_3");
    assert!(report["tool_calls"].as_array().unwrap().is_empty());
    let commands: Vec<Value> = ledger_rows(root)
        .iter()
        .map(|r| r["command"].clone())
        .collect();
    assert_eq!(commands, [json!("session"), json!("subagent")]);

    // A sub-agent whose estimate does not fit is held back: nothing fetched.
    let ws = Workspace::new().brief("clinic");
    let root = ws.root();
    let site = with_a_fetch_of_plans(root);
    let model = Server::start(vec![]);
    let out = run(
        root,
        &model,
        &argv("session subagent s tool_call_2 --estimate 500000"),
        true,
    );
    assert_exit(&out, 1);
    assert_eq!(json(&out)["status"], "context_budget_exceeded");
    assert!(site.requests().is_empty() && model.requests().is_empty());
    assert!(stdout(&out).contains("pending_operation_id"));
}

#[test]
fn a_fetch_follows_at_most_five_redirects_and_cuts_a_page_at_its_size_cap() {
    use briefkit::session::subagent::fetch::{MAX_BYTES, MAX_REDIRECTS, Reach, fetch};
    let reach = Reach { private: true };
    // A redirect loop: the first request and five redirects, then a clear refusal.
    let looping =
        Server::answering(|_| Reply::status(302, &[("location", "/again")], "text/plain", ""));
    let err = fetch(&format!("{}/start", looping.url()), reach).unwrap_err();
    assert_eq!(err.exit_code(), 3, "{}", err.message);
    assert!(
        err.message
            .contains(&format!("more than {MAX_REDIRECTS} redirects")),
        "{}",
        err.message
    );
    assert_eq!(looping.requests().len(), MAX_REDIRECTS + 1);

    // A page over the cap: read up to the cap, the rest left unread and the cut reported.
    let line = "a line of a very long plain text page\n";
    let big = line.repeat(MAX_BYTES as usize / line.len() + 1000);
    let huge = Server::answering(move |_| Reply::status(200, &[], "text/plain", &big));
    let page = fetch(&format!("{}/big.txt", huge.url()), reach).unwrap();
    assert!(page.cut);
    assert_eq!(page.bytes, MAX_BYTES);
    assert!(page.text.starts_with(line));

    // Without the operator's leave, loopback is refused before any request.
    let quiet = Server::answering(|_| Reply::status(200, &[], "text/plain", "hi"));
    let err = fetch(&quiet.url(), Reach { private: false }).unwrap_err();
    assert!(err.message.contains("BRIEF_FETCH_ALLOW_PRIVATE") || err.hint.is_some());
    assert!(quiet.requests().is_empty());
}

#[test]
fn a_turn_with_run_subagents_does_not_start_a_subagent_that_does_not_fit() {
    let ws = Workspace::new().brief("clinic");
    let root = ws.root();
    let site = pages();
    let url = format!("{}/plans", site.url());
    new_session(root, &["--framework-tools", "--context-limit", "100000"]);
    let model = Server::start(vec![answer(
        "openai",
        None,
        &[("fetch_url", json!({"url": url}))],
    )]);
    let out = run(
        root,
        &model,
        &argv(
            "session turn s --user 'Price of Pro?' --run-subagents --subagent-estimate 500000 --json",
        ),
        true,
    );
    assert_exit(&out, 1);
    let report = json(&out);
    assert!(
        report["subagents"].as_array().unwrap().is_empty(),
        "{report}"
    );
    let blocked = &report["blocked"][0];
    assert_eq!(blocked["name"], "fetch_url", "{report}");
    assert_eq!(blocked["gate"]["status"], "context_budget_exceeded");
    assert!(site.requests().is_empty(), "nothing fetched");
    assert_eq!(model.requests().len(), 1, "only the turn's own call");
    let commands: Vec<Value> = ledger_rows(root)
        .iter()
        .map(|r| r["command"].clone())
        .collect();
    assert_eq!(commands, [json!("session")]);
}
