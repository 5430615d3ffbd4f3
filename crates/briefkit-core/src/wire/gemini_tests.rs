use serde_json::json;

use super::*;
use crate::wire::prefix::{StablePrefix, layout as split};
use crate::wire::prompt::fixtures::{keys, prompt, with_examples};

#[test]
fn the_body_has_the_system_instruction_declarations_and_user_model_contents() {
    let sent = body(&with_examples());
    let keys = keys(&sent);
    assert_eq!(keys, ["systemInstruction", "tools", "contents"]);
    assert_eq!(
        sent["systemInstruction"],
        json!({"parts": [{"text": "You are a helper."}, {"text": "Customer: Ada"}]})
    );
    assert_eq!(
        sent["tools"],
        json!([{"functionDeclarations": [{"name": "lookup", "description": "Find an order",
            "parametersJsonSchema": {"type": "object"}}]}])
    );
    let roles: Vec<&str> = sent["contents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "model", "user"]);
    assert_eq!(sent["contents"][2]["parts"][0]["text"], "hi");
    assert!(sent.get("model").is_none(), "the model is in the path");
}

#[test]
fn the_volatile_part_is_live_and_the_prefix_is_the_first_part() {
    let sent = body(&prompt());
    let layout = split(&sent).unwrap();
    assert_eq!(layout.wire, Wire::Gemini);
    assert_eq!(layout.stable_system, 1);
    let live: Vec<&str> = layout.live().map(|e| e.pointer.as_str()).collect();
    assert_eq!(live, ["/systemInstruction/parts/1"]);
    assert_eq!(layout.tools[0].pointer, "/tools/0/functionDeclarations/0");
    assert_eq!(layout.conversation[0].pointer, "/contents/0");
    let mut other = prompt();
    other.volatile_system = Some("Customer: Grace".into());
    assert_eq!(
        StablePrefix::of_body(&sent).unwrap().hash,
        StablePrefix::of_body(&body(&other)).unwrap().hash
    );
}

#[test]
fn snake_case_fields_and_other_tools_are_read_too() {
    let sent = json!({"system_instruction": {"parts": [{"text": "S"}]},
        "tools": [{"function_declarations": [{"name": "a"}, {"name": "b"}]}, {"googleSearch": {}}],
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let layout = split(&sent).unwrap();
    let tools: Vec<&str> = layout.tools.iter().map(|e| e.pointer.as_str()).collect();
    assert_eq!(
        tools,
        [
            "/tools/0/function_declarations/0",
            "/tools/0/function_declarations/1",
            "/tools/1"
        ]
    );
    assert_eq!(layout.system[0].pointer, "/system_instruction/parts/0");
    assert_eq!(Wire::of_body(&sent), Some(Wire::Gemini));
    assert!(split(&json!({"contents": "hi"})).is_err());
    assert!(split(&json!({"contents": [1]})).is_err());
    assert!(split(&json!({"contents": [], "systemInstruction": 3})).is_err());
}

#[test]
fn usage_metadata_is_normalised_with_thoughts_as_output() {
    let usage = usage(&json!({
        "promptTokenCount": 2100, "cachedContentTokenCount": 2048,
        "candidatesTokenCount": 5, "thoughtsTokenCount": 30, "totalTokenCount": 2135
    }))
    .unwrap();
    assert_eq!(usage.input_tokens, 2100);
    assert_eq!(usage.cached_input_tokens, Some(2048));
    assert_eq!(usage.output_tokens, 35);
    assert_eq!(usage.reasoning_tokens, Some(30));
    // Issue 33: a missing cached count is unknown (null in the ledger), as the ledger says
    // of every absent field, not a made-up 0.
    let cold = crate::wire::gemini::usage(&json!({"promptTokenCount": 9})).unwrap();
    assert_eq!(cold.cached_input_tokens, None);
    assert_eq!(cold.output_tokens, 0);
    let array = json!([{"candidates": []}, {"usageMetadata": {"promptTokenCount": 7}}]);
    assert_eq!(answer_usage(&array).unwrap().input_tokens, 7);
}

#[test]
fn a_stream_ends_with_the_finish_reason_and_keeps_the_last_usage() {
    let mut stream = Stream::default();
    for data in [
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"thinking","thought":true},{"text":"po"}]}}],"modelVersion":"gemini-2.5-flash"}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"ng"},{"functionCall":{"name":"lookup","args":{"q":"x"}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"cachedContentTokenCount":4,"candidatesTokenCount":2}}"#,
    ] {
        assert_eq!(stream.event(None, data).unwrap(), Flow::Continue);
    }
    assert_eq!(stream.unfinished(), None);
    let streamed = stream.take();
    assert_eq!(streamed.text, "pong");
    assert_eq!(streamed.finish_reason.as_deref(), Some("STOP"));
    assert_eq!(streamed.tool_calls[0].name, "lookup");
    assert_eq!(streamed.tool_calls[0].id, "call_1");
    assert_eq!(streamed.tool_calls[0].arguments, r#"{"q":"x"}"#);
    assert_eq!(
        usage(&streamed.usage.unwrap()).unwrap().cached_input_tokens,
        Some(4)
    );
    let mut cut = Stream::default();
    cut.event(
        None,
        r#"{"candidates":[{"content":{"parts":[{"text":"p"}]}}]}"#,
    )
    .unwrap();
    assert!(cut.unfinished().unwrap().reason.contains("cut off"));
    let err = cut
        .event(
            None,
            r#"{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}"#,
        )
        .unwrap_err();
    assert!(matches!(err, EventError::Carried(c) if c.message == "RESOURCE_EXHAUSTED: quota"));
}

#[test]
fn per_call_fields_go_in_the_generation_config() {
    let fields = crate::wire::CallFields {
        model: "gemini-2.5-flash",
        max_tokens: 1,
        temperature: Some(0.5),
        cache_key: None,
        length_field: "max_tokens",
    };
    let sent = per_call(body(&prompt()), &fields);
    assert_eq!(
        sent["generationConfig"],
        json!({"maxOutputTokens": 1, "temperature": 0.5})
    );
    assert!(sent.get("model").is_none());
    assert_eq!(
        Wire::Gemini.call_path("gemini-2.5-flash"),
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
}
