use proptest::prelude::*;
use serde_json::json;

use super::*;

/// What `align` and `wire::prefix` say of the whole body parsed at once.
fn full(body: &Value) -> Option<(String, usize, Vec<String>)> {
    let layout = prefix::layout(body).ok()?;
    let stable = StablePrefix::of_layout(&layout);
    let texts = layout
        .conversation
        .iter()
        .map(|e| comparison_text(e.value))
        .collect();
    Some((stable.hash, layout.conversation.len(), texts))
}

fn check_same_as_full(body: &Value) {
    let bytes = serde_json::to_vec(body).unwrap();
    let ours = digest(&bytes).prefix;
    // The same with a warm head cache, and a cache some other body filled first.
    let cache = Mutex::new(HeadCache::default());
    let other = json!({"model": "m", "messages": [{"role": "user", "content": "other"}]});
    digest_with(&serde_json::to_vec(&other).unwrap(), Some(&cache));
    assert_eq!(digest_with(&bytes, Some(&cache)).prefix, ours, "{body}");
    assert_eq!(digest_with(&bytes, Some(&cache)).prefix, ours, "{body}");
    match (full(body), ours) {
        (None, None) => {}
        (Some((hash, len, texts)), Some(ours)) => {
            assert_eq!(ours.hash, hash, "{body}");
            assert_eq!(ours.chain.len(), len, "{body}");
            let mut last = [0; 16];
            for (text, link_hash) in texts.iter().zip(&ours.chain) {
                last = link(&last, text);
                assert_eq!(&last, link_hash, "{body}");
            }
        }
        (theirs, ours) => panic!("{body}: full {theirs:?}, digest {ours:?}"),
    }
}

#[test]
fn an_openai_body_digests_to_the_one_prefix_identity() {
    let body = json!({"model": "gpt-x", "tools": [{"type": "function", "function": {"name": "f"}}],
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi", "name": "example_user"},
            {"role": "assistant", "content": "hello", "name": "example_assistant"},
            {"role": "system", "content": "Today is Monday."},
            {"role": "user", "content": "next"},
            {"role": "assistant", "content": null, "tool_calls": []}]});
    check_same_as_full(&body);
    let d = digest(serde_json::to_vec(&body).unwrap().as_slice());
    assert_eq!(d.model.as_deref(), Some("gpt-x"));
    let prefix = d.prefix.unwrap();
    assert_eq!(prefix.chain.len(), 2);
    assert!(prefix.examples.is_some());
}

#[test]
fn anthropic_worked_examples_far_down_a_plain_text_conversation_are_found() {
    // Plain-text turns, then the breakpoint on an assistant message of blocks: all of them
    // are worked examples, so the head reaches that message and the one after it.
    let mut messages: Vec<Value> = (0..9)
        .map(|i| json!({"role": if i % 2 == 0 {"user"} else {"assistant"}, "content": format!("turn {i}")}))
        .collect();
    messages.push(json!({"role": "assistant", "content": [
        {"type": "text", "text": "last", "cache_control": {"type": "ephemeral"}}]}));
    messages.push(json!({"role": "user", "content": "Today is Monday."}));
    messages.push(json!({"role": "user", "content": [{"type": "text", "text": "go"}]}));
    let body = json!({"model": "claude-x", "system": "Be brief.", "messages": messages});
    check_same_as_full(&body);
    let prefix = digest(&serde_json::to_vec(&body).unwrap()).prefix.unwrap();
    assert!(prefix.examples.is_some());
    assert_eq!(prefix.chain.len(), 1);
}

#[test]
fn the_head_cache_is_keyed_by_every_byte_of_the_head() {
    let cache = Mutex::new(HeadCache::default());
    let body = |system: &str, turn: &str| {
        serde_json::to_vec(&json!({"model": "m", "messages": [
            {"role": "system", "content": system}, {"role": "user", "content": turn}]}))
        .unwrap()
    };
    let a = digest_with(&body("Be brief.", "one"), Some(&cache))
        .prefix
        .unwrap();
    let b = digest_with(&body("Be brief.", "two"), Some(&cache))
        .prefix
        .unwrap();
    let c = digest_with(&body("Be brief!", "one"), Some(&cache))
        .prefix
        .unwrap();
    assert_eq!(a.hash, b.hash);
    assert_ne!(a.chain, b.chain);
    assert_ne!(a.hash, c.hash);
    assert_eq!(
        cache.lock().unwrap().heads.len(),
        3,
        "the first turn is in the head"
    );
}

#[test]
fn a_body_that_is_not_a_chat_request_has_no_prefix_but_keeps_its_model() {
    for body in [
        &b"{\"model\":\"m\",\"prompt\":\"x\"}"[..],
        b"{\"model\":\"m\",\"input\":3}",
        b"{\"model\":\"m\",\"contents\":{}}",
        b"{\"model\":\"m\",\"messages\":[1]}",
        b"{\"model\":\"m\",\"messages\":{\"a\":1}}",
        b"{\"model\":\"m\",\"messages\":12.50}",
        b"{\"model\":\"m\",\"messages\":[{\"role\":\"user\"}],\"tools\":3}",
        b"[1,2]",
        b"not json",
    ] {
        let d = digest(body);
        assert_eq!(d.prefix, None, "{}", String::from_utf8_lossy(body));
    }
    assert_eq!(
        digest(b"{\"model\":\"m\",\"prompt\":\"x\"}")
            .model
            .as_deref(),
        Some("m")
    );
    assert_eq!(digest(b"{\"model\":7,\"messages\":[]}").model, None);
}

#[test]
fn the_last_of_a_key_given_twice_wins_as_in_a_parsed_tree() {
    let body = br#"{"model":"a","model":"b","messages":[{"role":"user","content":"x"}]}"#;
    assert_eq!(digest(body).model.as_deref(), Some("b"));
    let parsed: Value = serde_json::from_slice(body).unwrap();
    assert_eq!(parsed["model"], "b");
}

#[test]
fn proxy_memory_grows_with_each_sessions_last_request_digest_is_16_bytes_a_message() {
    // Regression (issue 21, defect 5): a body of many small messages digests to a chain of
    // 16-byte hashes; the conversation is never held parsed whole.
    let mut body =
        String::from("{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"s\"}");
    for i in 0..50_000 {
        body.push_str(&format!(
            ",{{\"role\":\"user\",\"content\":\"{}\"}}",
            i % 10
        ));
    }
    body.push_str("]}");
    let prefix = digest(body.as_bytes()).prefix.unwrap();
    assert_eq!(prefix.chain.len(), 50_000);
    assert_eq!(std::mem::size_of_val(prefix.chain.as_slice()), 50_000 * 16);
}

fn message() -> impl Strategy<Value = Value> {
    let role = prop_oneof![
        Just("system"),
        Just("developer"),
        Just("user"),
        Just("assistant")
    ];
    let name = prop_oneof![
        3 => Just(None),
        1 => Just(Some("example_user")),
        1 => Just(Some("example_assistant")),
    ];
    let content = prop_oneof![
        3 => "[a-c]{0,3}".prop_map(Value::from),
        1 => Just(Value::Null),
        1 => Just(json!([{"type": "text", "text": "t"}])),
        1 => Just(json!([{"type": "text", "text": "t", "cache_control": {"type": "ephemeral"}}])),
        1 => Just(json!([{"type": "image"}, {"type": "text", "text": "u", "cache_control": {"type": "ephemeral"}}])),
    ];
    (role, name, content).prop_map(|(role, name, content)| {
        let mut m = json!({"role": role, "content": content});
        if let Some(name) = name {
            m["name"] = json!(name);
        }
        m
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// The digest reads only the head of `messages` as a tree, yet lays every body out as
    /// the whole-tree layout does.
    #[test]
    fn the_head_lays_out_every_body_as_the_whole_does(
        messages in prop::collection::vec(message(), 0..14),
        system in prop_oneof![
            Just(None),
            Just(Some(json!("S"))),
            Just(Some(json!([{"type": "text", "text": "S", "cache_control": {"type": "ephemeral"}}, {"type": "text", "text": "live"}]))),
        ],
        anthropic_tools in any::<bool>(),
    ) {
        let mut body = json!({"model": "m", "messages": messages});
        if let Some(system) = system {
            body["system"] = system;
        }
        if anthropic_tools {
            body["tools"] = json!([{"name": "t", "input_schema": {}}]);
        }
        check_same_as_full(&body);
    }

    /// The same for Responses bodies, whose head is the developer items and the worked
    /// examples after `instructions`.
    #[test]
    fn the_head_lays_out_every_responses_body_as_the_whole_does(
        input in prop::collection::vec(message(), 0..14),
        instructions in any::<bool>(),
    ) {
        let mut body = json!({"model": "m", "input": input});
        if instructions {
            body["instructions"] = json!("S");
        }
        check_same_as_full(&body);
    }
}

#[test]
fn responses_and_gemini_bodies_digest_to_the_one_prefix_identity() {
    let codex = json!({"model": "gpt-5-codex", "instructions": "S", "input": [
        {"role": "user", "content": "q"}, {"role": "assistant", "content": "a"},
        {"role": "developer", "content": "Today is Monday."},
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "done"}],
        "tools": [{"type": "function", "name": "f", "parameters": {}}],
        "prompt_cache_key": "thread-1"});
    check_same_as_full(&codex);
    let d = digest(&serde_json::to_vec(&codex).unwrap());
    assert_eq!(d.client_session.as_deref(), Some("thread-1"));
    let prefix = d.prefix.unwrap();
    assert_eq!(prefix.chain.len(), 3);
    assert!(prefix.examples.is_some());
    for body in [
        json!({"model": "m", "input": "just a string", "instructions": "S"}),
        json!({"model": "m", "input": [{"role": "developer", "content": "D"},
            {"role": "user", "content": "u"}]}),
        json!({"instructions": "S", "input": [{"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]}),
        json!({"systemInstruction": {"parts": [{"text": "S"}, {"text": "V"}]},
            "tools": [{"functionDeclarations": [{"name": "f"}]}],
            "contents": [{"role": "user", "parts": [{"text": "hi"}]},
                {"role": "model", "parts": [{"text": "yo"}]}]}),
        json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
    ] {
        check_same_as_full(&body);
        assert!(
            digest(&serde_json::to_vec(&body).unwrap()).prefix.is_some(),
            "{body}"
        );
    }
}

#[test]
fn claude_codes_metadata_names_its_session() {
    let user_id = r#"{"device_id":"d1","account_uuid":"","session_id":"5e1f-77"}"#;
    let body = json!({"model": "claude-x", "metadata": {"user_id": user_id}, "messages": []});
    let d = digest(&serde_json::to_vec(&body).unwrap());
    assert_eq!(d.client_session.as_deref(), Some("5e1f-77"));
    let older = json!({"model": "c", "metadata": {"user_id": "user_ab12_account__session_9c-01"},
        "messages": []});
    let d = digest(&serde_json::to_vec(&older).unwrap());
    assert_eq!(d.client_session.as_deref(), Some("9c-01"));
    let plain = json!({"model": "c", "metadata": {"user_id": "customer-42"}, "messages": []});
    assert_eq!(
        digest(&serde_json::to_vec(&plain).unwrap()).client_session,
        None
    );
}
