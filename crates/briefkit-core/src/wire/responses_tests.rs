use serde_json::json;

use super::*;
use crate::wire::prefix::{StablePrefix, layout as split};
use crate::wire::prompt::fixtures::{keys, prompt, with_examples};
use crate::wire::stream::Reader;

#[test]
fn the_body_has_instructions_flat_tools_and_the_volatile_part_as_a_developer_message() {
    let sent = body(&prompt(), Some("gpt-5"), Some("k"));
    let keys = keys(&sent);
    assert_eq!(
        keys,
        [
            "model",
            "instructions",
            "tools",
            "input",
            "prompt_cache_key"
        ]
    );
    assert_eq!(sent["instructions"], "You are a helper.");
    assert_eq!(
        sent["tools"][0],
        json!({"type": "function", "name": "lookup", "description": "Find an order",
               "parameters": {"type": "object"}, "strict": false})
    );
    assert_eq!(
        sent["input"],
        json!([{"role": "developer", "content": "Customer: Ada"},
               {"role": "user", "content": "hi"}])
    );
}

#[test]
fn the_layout_of_a_composed_body_puts_the_volatile_part_in_the_live_zone() {
    let sent = body(&prompt(), Some("gpt-5"), None);
    let layout = split(&sent).unwrap();
    assert_eq!(layout.wire, Wire::Responses);
    assert_eq!(layout.system.len(), 2);
    assert_eq!(layout.stable_system, 1);
    assert_eq!(layout.system[0].pointer, "/instructions");
    let live: Vec<&str> = layout.live().map(|e| e.pointer.as_str()).collect();
    assert_eq!(live, ["/input/0"]);
    assert_eq!(layout.conversation.len(), 1);
    assert_eq!(layout.conversation[0].pointer, "/input/1");
    // The volatile part is not in the prefix: another value, the same hash.
    let mut other = prompt();
    other.volatile_system = Some("Customer: Grace".into());
    let a = StablePrefix::of_body(&sent).unwrap();
    let b = StablePrefix::of_body(&body(&other, Some("gpt-5"), None)).unwrap();
    assert_eq!(a.hash, b.hash);
    assert_eq!(a.system_text, "\"You are a helper.\"");
}

#[test]
fn worked_examples_before_the_volatile_part_are_in_the_prefix() {
    let sent = body(&with_examples(), None, None);
    assert_eq!(sent["input"][0], json!({"role": "user", "content": "q"}));
    assert_eq!(
        sent["input"][1],
        json!({"role": "assistant", "content": "a"})
    );
    assert_eq!(sent["input"][2]["role"], "developer");
    let layout = split(&sent).unwrap();
    assert_eq!(layout.examples.len(), 2);
    assert_eq!(layout.live().count(), 1);
    assert_eq!(layout.conversation[0].pointer, "/input/3");
    let mut changed = with_examples();
    changed.examples[1].content = "b".into();
    assert_ne!(
        StablePrefix::of_body(&sent).unwrap().hash,
        StablePrefix::of_body(&body(&changed, None, None))
            .unwrap()
            .hash
    );
}

#[test]
fn a_plain_conversation_is_never_taken_for_examples() {
    // No developer message after the exchange: a client's history, not examples.
    let grown = json!({"instructions": "S", "input": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "more"}]});
    let layout = split(&grown).unwrap();
    assert!(layout.examples.is_empty());
    assert_eq!(layout.conversation.len(), 3);
}

#[test]
fn a_codex_body_has_its_developer_messages_as_system() {
    // Codex: no `instructions`; developer messages lead `input`.
    let codex = json!({"model": "gpt-5-codex", "input": [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "skills"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "say pong"}]}],
        "tools": [{"type": "function", "name": "exec_command", "parameters": {}}],
        "prompt_cache_key": "019a-thread"});
    let layout = split(&codex).unwrap();
    assert_eq!(layout.stable_system, 1);
    assert_eq!(layout.system.len(), 2);
    assert_eq!(layout.conversation.len(), 2);
    assert_eq!(layout.conversation[0].pointer, "/input/2");
    // A string input is one user message.
    let short = json!({"model": "m", "input": "hello", "instructions": "Be brief."});
    let layout = split(&short).unwrap();
    assert_eq!(layout.conversation[0].pointer, "/input");
    assert_eq!(Wire::of_body(&short), Some(Wire::Responses));
}

#[test]
fn what_is_not_a_responses_body_is_refused() {
    assert!(split(&json!({"input": 3})).is_err());
    assert!(split(&json!({"input": [1]})).is_err());
    assert!(split(&json!({"input": [], "instructions": 3})).is_err());
}

#[test]
fn usage_counts_cached_and_reasoning_tokens_inside_their_totals() {
    let usage = usage(&json!({
        "input_tokens": 1500, "input_tokens_details": {"cached_tokens": 1024},
        "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 8},
        "total_tokens": 1520
    }))
    .unwrap();
    assert_eq!(usage.input_tokens, 1500);
    assert_eq!(usage.cached_input_tokens, Some(1024));
    assert_eq!(usage.output_tokens, 20);
    assert_eq!(usage.reasoning_tokens, Some(8));
    assert_eq!(usage.cache_write_tokens, None);
    let compact =
        json!({"object": "response.compaction", "usage": {"input_tokens": 9, "output_tokens": 1}});
    assert_eq!(answer_usage(&compact).unwrap().input_tokens, 9);
}

fn run(events: &[(&str, &str)]) -> Stream {
    let mut stream = Stream::default();
    for (name, data) in events {
        let _ = stream.event(Some(name), data);
    }
    stream
}

#[test]
fn a_stream_gives_text_tool_calls_and_the_completed_usage() {
    let mut stream = run(&[
        (
            "response.created",
            r#"{"type":"response.created","response":{"model":"gpt-5","status":"in_progress"}}"#,
        ),
        (
            "response.output_item.added",
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}}"#,
        ),
        (
            "response.output_text.delta",
            r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"delta":"po"}"#,
        ),
        (
            "response.output_text.delta",
            r#"{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"delta":"ng"}"#,
        ),
        (
            "response.output_item.done",
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"pong"}]}}"#,
        ),
        (
            "response.output_item.added",
            r#"{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_9","name":"lookup","arguments":""}}"#,
        ),
        (
            "response.function_call_arguments.delta",
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"q\":"}"#,
        ),
        (
            "response.function_call_arguments.delta",
            r#"{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"\"x\"}"}"#,
        ),
        (
            "response.completed",
            r#"{"type":"response.completed","response":{"model":"gpt-5-2026","status":"completed","usage":{"input_tokens":1500,"input_tokens_details":{"cached_tokens":1024},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":8}}}}"#,
        ),
    ]);
    assert_eq!(stream.unfinished(), None);
    let streamed = stream.take();
    assert_eq!(streamed.text, "pong");
    assert_eq!(streamed.finish_reason.as_deref(), Some("completed"));
    assert_eq!(streamed.model.as_deref(), Some("gpt-5-2026"));
    assert_eq!(streamed.tool_calls.len(), 1);
    assert_eq!(streamed.tool_calls[0].id, "call_9");
    assert_eq!(streamed.tool_calls[0].arguments, "{\"q\":\"x\"}");
    assert_eq!(
        usage(&streamed.usage.unwrap()).unwrap().cached_input_tokens,
        Some(1024)
    );
}

#[test]
fn a_minimal_stream_takes_its_text_from_the_finished_item() {
    // What Codex needs at least: the finished message item, then response.completed.
    let mut stream = run(&[
        (
            "response.output_item.done",
            r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"m","type":"message","content":[{"type":"output_text","text":"pong"}]}}"#,
        ),
        (
            "response.completed",
            r#"{"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":3,"output_tokens":1}}}"#,
        ),
    ]);
    assert_eq!(stream.take().text, "pong");
}

#[test]
fn incomplete_failed_and_cut_streams_are_told_apart() {
    let mut incomplete = run(&[(
        "response.incomplete",
        r#"{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":3,"output_tokens":16}}}"#,
    )]);
    assert_eq!(incomplete.unfinished(), None);
    assert_eq!(
        incomplete.take().finish_reason.as_deref(),
        Some("max_output_tokens")
    );
    let mut failed = Stream::default();
    let err = failed
        .event(
            None,
            r#"{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"},"usage":{"input_tokens":3,"output_tokens":0}}}"#,
        )
        .unwrap_err();
    assert!(matches!(err, EventError::Carried(c) if c.retry && c.message.contains("boom")));
    assert!(failed.streamed().usage.is_some());
    let cut = run(&[(
        "response.output_text.delta",
        r#"{"type":"response.output_text.delta","delta":"po"}"#,
    )]);
    assert!(
        cut.unfinished()
            .unwrap()
            .reason
            .contains("response.completed")
    );
}

#[test]
fn per_call_fields_stream_keep_nothing_and_respect_the_minimum_cap() {
    let fields = crate::wire::CallFields {
        model: "gpt-5",
        max_tokens: 1,
        temperature: None,
        cache_key: Some("brief-abc"),
        length_field: "max_tokens",
    };
    let sent = per_call(body(&prompt(), None, None), &fields);
    assert_eq!(sent["max_output_tokens"], MIN_OUTPUT_TOKENS);
    assert_eq!(sent["store"], false);
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["prompt_cache_key"], "brief-abc");
    assert!(sent.get("max_tokens").is_none());
}
