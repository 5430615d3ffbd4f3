//! Tool calls in model answers, every wire format: assembled from stream fragments by each
//! wire's reader (OpenAI `delta.tool_calls` pieces by `index`, Responses `function_call`
//! items, Anthropic `tool_use` blocks with `input_json_delta`s, Gemini `functionCall`
//! parts), judged here. A call whose name is missing or whose
//! arguments are not one JSON object is a malformed answer: the whole answer is refused
//! (exit 3), since executing or storing half of what the model meant would be worse.

use serde_json::Value;

use super::stream::{Failure, RawToolCall};

/// A tool call as the model made it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's id for the call (`call_…`, `toolu_…`).
    pub id: String,
    pub name: String,
    /// Always a JSON object.
    pub arguments: Value,
}

/// The stop reasons that mean the model ended on its own by calling tools.
pub fn is_tool_stop(reason: &str) -> bool {
    matches!(reason, "tool_calls" | "function_call" | "tool_use")
}

/// Checks every streamed call; the first malformed one fails the answer.
pub fn judge(raw: Vec<RawToolCall>) -> Result<Vec<ToolCall>, Failure> {
    raw.into_iter()
        .enumerate()
        .map(|(n, call)| {
            let which = if call.name.is_empty() {
                format!("tool call {}", n + 1)
            } else {
                format!(
                    "tool call {} (`{}`)",
                    n + 1,
                    super::stream::one_line(&call.name, 64)
                )
            };
            if call.name.is_empty() {
                return Err(Failure::fatal(format!("the model's {which} has no name")));
            }
            if call.id.is_empty() {
                return Err(Failure::fatal(format!("the model's {which} has no id")));
            }
            let text = call.arguments.trim();
            let arguments = if text.is_empty() {
                Value::Object(Default::default())
            } else {
                serde_json::from_str::<Value>(text).map_err(|e| {
                    Failure::fatal(format!(
                        "the model's {which} has arguments that are not JSON ({e}): {}",
                        super::stream::snippet(text)
                    ))
                })?
            };
            if !arguments.is_object() {
                return Err(Failure::fatal(format!(
                    "the model's {which} has arguments that are not a JSON object: {}",
                    super::stream::snippet(text)
                )));
            }
            Ok(ToolCall {
                id: call.id,
                name: call.name,
                arguments,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::sse::Event;
    use crate::provider::stream::Parser;
    use crate::wire::Wire;

    fn event(data: &str) -> Event {
        Event {
            name: None,
            data: data.to_string(),
        }
    }

    #[test]
    fn openai_fragments_are_joined_by_index() {
        let mut stream = Parser::new(Wire::OpenAi);
        for data in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"purge","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"lookup","arguments":"{\"q\":"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ids\":[\"msg_1\"]"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}},{"index":1,"function":{"arguments":"\"x\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ] {
            stream.event(&event(data)).unwrap();
        }
        let calls = judge(stream.finish().unwrap().tool_calls).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].id, "call_a");
        assert_eq!(calls[0].arguments["ids"][0], "msg_1");
        assert_eq!(calls[1].name, "lookup");
        assert_eq!(calls[1].arguments["q"], "x");
    }

    #[test]
    fn anthropic_input_json_deltas_replace_the_placeholder_input() {
        let mut stream = Parser::new(Wire::Anthropic);
        for data in [
            r#"{"type":"message_start","message":{"model":"m","usage":{"input_tokens":3,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Looking."}}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"lookup","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\": \"a"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"b\"}"}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_2","name":"ping","input":{}}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
            r#"{"type":"message_stop"}"#,
        ] {
            stream.event(&event(data)).unwrap();
        }
        let collected = stream.finish().unwrap();
        assert_eq!(collected.text, "Looking.");
        let calls = judge(collected.tool_calls).unwrap();
        assert_eq!(calls[0].arguments["q"], "ab");
        assert_eq!(calls[1].arguments, serde_json::json!({}));
    }

    #[test]
    fn malformed_calls_are_refused() {
        let raw = |id: &str, name: &str, args: &str| RawToolCall {
            id: id.into(),
            name: name.into(),
            arguments: args.into(),
        };
        assert!(
            judge(vec![raw("c", "f", "{\"a\":")])
                .unwrap_err()
                .reason
                .contains("not JSON")
        );
        assert!(
            judge(vec![raw("c", "f", "[1]")])
                .unwrap_err()
                .reason
                .contains("not a JSON object")
        );
        assert!(
            judge(vec![raw("c", "", "{}")])
                .unwrap_err()
                .reason
                .contains("no name")
        );
        assert!(
            judge(vec![raw("", "f", "{}")])
                .unwrap_err()
                .reason
                .contains("no id")
        );
        assert_eq!(
            judge(vec![raw("c", "f", "")]).unwrap()[0].arguments,
            serde_json::json!({})
        );
    }
}
