use serde_json::{Value, json};

use super::*;

fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_hash_is_over_the_bytes_as_sent_so_key_order_counts() {
    let a = parse(
        r#"{"tools":[{"name":"t","input_schema":{"type":"object","properties":{}}}],"system":"s","messages":[]}"#,
    );
    let b = parse(
        r#"{"tools":[{"name":"t","input_schema":{"properties":{},"type":"object"}}],"system":"s","messages":[]}"#,
    );
    let (a, b) = (
        StablePrefix::of_body(&a).unwrap(),
        StablePrefix::of_body(&b).unwrap(),
    );
    assert_ne!(a.hash, b.hash);
    assert_ne!(a.tools_hash, b.tools_hash);
    assert_eq!(a.system_hash, b.system_hash);
}

#[test]
fn the_prefix_text_is_a_json_document_of_what_is_sent() {
    let body = parse(
        r#"{"model":"m","messages":[{"role":"system","content":"static"},{"role":"system","content":"live"},{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f"}}]}"#,
    );
    let prefix = StablePrefix::of_body(&body).unwrap();
    assert_eq!(prefix.wire, Wire::OpenAi);
    assert_eq!(
        prefix.text(),
        r#"{"tools":[{"type":"function","function":{"name":"f"}}],"system":[{"role":"system","content":"static"}]}"#
    );
    assert_eq!(prefix.bytes(), prefix.text().len());
    assert_eq!(prefix.hash, sha256_hex(prefix.text().as_bytes()));
    assert_eq!(prefix.live.pointers, ["/messages/1"]);
    assert_eq!(
        prefix.live.bytes,
        r#"{"role":"system","content":"live"}"#.len()
    );
}

#[test]
fn of_bytes_and_of_body_agree() {
    let text = r#"{"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}],"messages":[]}"#;
    assert_eq!(
        StablePrefix::of_bytes(text.as_bytes()).unwrap(),
        StablePrefix::of_body(&parse(text)).unwrap()
    );
    assert!(StablePrefix::of_bytes(b"{").is_err());
}

#[test]
fn anthropic_blocks_after_the_last_system_breakpoint_are_live() {
    let body = json!({"system": [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "live 1"},
        {"type": "text", "text": "live 2"}
    ], "tools": [{"name": "t", "input_schema": {}}], "messages": []});
    let layout = layout(&body).unwrap();
    assert_eq!(layout.wire, Wire::Anthropic);
    assert_eq!((layout.stable_tools, layout.stable_system), (1, 2));
    let live: Vec<_> = layout.live().map(|e| e.pointer.as_str()).collect();
    assert_eq!(live, ["/system/2", "/system/3"]);
}

#[test]
fn a_breakpoint_on_the_last_tool_makes_all_of_system_live() {
    let body = json!({"system": [{"type": "text", "text": "v"}],
        "tools": [{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": {}, "cache_control": {"type": "ephemeral"}}],
        "messages": []});
    let layout = layout(&body).unwrap();
    assert_eq!((layout.stable_tools, layout.stable_system), (2, 0));
    assert_eq!(StablePrefix::of_layout(&layout).system_text, "[]");
}

#[test]
fn without_a_breakpoint_all_of_tools_and_system_is_stable() {
    let body = json!({"system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "messages": []});
    let layout = layout(&body).unwrap();
    assert_eq!(layout.stable_system, 2);
    assert!(layout.live().next().is_none());
    let string = json!({"system": "plain", "messages": []});
    let prefix = StablePrefix::of_body(&string).unwrap();
    // A string is its documented equivalent, one text block.
    assert_eq!(prefix.system_text, r#"[{"type":"text","text":"plain"}]"#);
    assert_eq!(prefix.tools_text, "[]");
}

#[test]
fn openai_only_system_messages_before_the_conversation_are_system() {
    let body = json!({"messages": [
        {"role": "system", "content": "a"},
        {"role": "developer", "content": "b"},
        {"role": "user", "content": "c"},
        {"role": "system", "content": "d"}
    ]});
    let layout = layout(&body).unwrap();
    assert_eq!(layout.system.len(), 2);
    assert_eq!(layout.stable_system, 1);
    let pointers: Vec<_> = layout
        .conversation
        .iter()
        .map(|m| m.pointer.as_str())
        .collect();
    assert_eq!(pointers, ["/messages/2", "/messages/3"]);
}

#[test]
fn anthropic_tools_without_a_system_are_recognised() {
    let body =
        json!({"system": null, "tools": [{"name": "t", "input_schema": {}}], "messages": []});
    assert_eq!(layout(&body).unwrap().wire, Wire::Anthropic);
}

#[test]
fn bodies_that_are_not_requests_say_why() {
    for body in [
        json!([1, 2]),
        json!({"prompt": "hi"}),
        json!({"messages": "hi", "input": []}),
        json!({"messages": [], "tools": {}}),
        json!({"messages": ["hi"]}),
        json!({"messages": [], "system": 3}),
    ] {
        assert!(layout(&body).is_err(), "{body}");
    }
}

#[test]
fn openai_examples_follow_the_first_system_message_and_join_the_prefix() {
    let body = parse(
        r#"{"messages":[{"role":"system","content":"s"},{"role":"user","name":"example_user","content":"q"},{"role":"assistant","name":"example_assistant","content":"a"},{"role":"system","content":"live"},{"role":"user","content":"hi"}]}"#,
    );
    let layout = layout(&body).unwrap();
    assert_eq!(layout.examples.len(), 2);
    assert_eq!(layout.examples[0].pointer, "/messages/1");
    assert_eq!(layout.conversation.len(), 1);
    assert_eq!(layout.conversation[0].pointer, "/messages/4");
    let prefix = StablePrefix::of_layout(&layout);
    assert_eq!(prefix.live.pointers, ["/messages/3"]);
    assert_eq!(
        prefix.text(),
        r#"{"tools":[],"system":[{"role":"system","content":"s"}],"examples":[{"role":"user","name":"example_user","content":"q"},{"role":"assistant","name":"example_assistant","content":"a"}]}"#
    );
    assert_eq!(prefix.bytes(), prefix.text().len());
    assert_eq!(prefix.hash, sha256_hex(prefix.text().as_bytes()));
}

#[test]
fn anthropic_examples_are_string_turns_up_to_an_assistant_breakpoint() {
    let cc = r#""cache_control":{"type":"ephemeral"}"#;
    let examples = parse(&format!(
        r#"{{"system":[{{"type":"text","text":"s",{cc}}}],"messages":[{{"role":"user","content":"q"}},{{"role":"assistant","content":[{{"type":"text","text":"a",{cc}}}]}},{{"role":"user","content":"today"}},{{"role":"user","content":"hi"}}]}}"#
    ));
    let layout_ = layout(&examples).unwrap();
    assert_eq!(layout_.examples.len(), 2);
    let prefix = StablePrefix::of_layout(&layout_);
    assert_eq!(prefix.live.pointers, ["/messages/2"]);
    assert_eq!(layout_.conversation[0].pointer, "/messages/3");
    // A session's turns carry content blocks: conversation, never examples.
    let session = parse(&format!(
        r#"{{"system":[{{"type":"text","text":"s",{cc}}}],"messages":[{{"role":"user","content":[{{"type":"text","text":"q"}}]}},{{"role":"assistant","content":[{{"type":"text","text":"a",{cc}}}]}},{{"role":"user","content":[{{"type":"text","text":"t3"}}]}}]}}"#
    ));
    let layout_ = layout(&session).unwrap();
    assert!(layout_.examples.is_empty());
    assert_eq!(layout_.conversation.len(), 3);
    assert!(
        !StablePrefix::of_layout(&layout_)
            .text()
            .contains("examples")
    );
}

#[test]
fn anthropic_examples_without_system_or_tools_still_read_as_anthropic() {
    let body = parse(
        r#"{"messages":[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":"today"}]}"#,
    );
    let layout = layout(&body).unwrap();
    assert_eq!(layout.wire, Wire::Anthropic);
    assert_eq!(layout.examples.len(), 2);
    assert_eq!(
        StablePrefix::of_layout(&layout).live.pointers,
        ["/messages/2"]
    );
}

#[test]
fn an_anthropic_system_string_is_the_same_prefix_as_its_one_text_block() {
    // Issue 33: the Messages API documents a `system` string as shorthand for one text
    // block; a client sending the same text either way was drift.
    let string = parse(r#"{"model":"m","system":"Be brief.","messages":[]}"#);
    let block =
        parse(r#"{"model":"m","system":[{"type":"text","text":"Be brief."}],"messages":[]}"#);
    let (string, block) = (
        StablePrefix::of_body(&string).unwrap(),
        StablePrefix::of_body(&block).unwrap(),
    );
    assert_eq!(string, block);
    assert_eq!(
        string.system_text,
        r#"[{"type":"text","text":"Be brief."}]"#
    );
    // Other text, or a block that asks for more (a breakpoint), is another prefix.
    let other = parse(r#"{"model":"m","system":"Be kind.","messages":[]}"#);
    assert_ne!(StablePrefix::of_body(&other).unwrap().hash, string.hash);
    let marked = parse(
        r#"{"model":"m","system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],"messages":[]}"#,
    );
    assert_ne!(StablePrefix::of_body(&marked).unwrap().hash, string.hash);
    // The OpenAI wire's system message keeps its string: that is what it sends.
    let openai = parse(r#"{"messages":[{"role":"system","content":"Be brief."}]}"#);
    assert_eq!(
        StablePrefix::of_body(&openai).unwrap().system_text,
        r#"[{"role":"system","content":"Be brief."}]"#
    );
}
