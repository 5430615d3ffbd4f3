//! A prompt in provider-neutral form: what composition and sessions build, and what each
//! wire's module turns into its request body.

use serde_json::Value;

/// A tool as the brief declares it; rendered per provider.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

/// A prompt in provider-neutral form.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prompt {
    /// The static system text: the cacheable prefix (with the tools).
    pub static_system: String,
    /// Worked examples (`format: messages` samples, in manifest order): few-shot turns sent
    /// right after the static system text, inside the stable prefix.
    pub examples: Vec<Message>,
    /// The volatile system text, rebuilt every turn; sent after the prefix.
    pub volatile_system: Option<String>,
    pub tools: Vec<ToolDef>,
    pub messages: Vec<Message>,
}

impl Prompt {
    /// The whole system text as one string: static, a blank line, volatile.
    pub fn system_text(&self) -> String {
        match &self.volatile_system {
            Some(volatile) if !volatile.is_empty() => {
                if self.static_system.is_empty() {
                    volatile.clone()
                } else {
                    format!("{}\n\n{}", self.static_system, volatile)
                }
            }
            _ => self.static_system.clone(),
        }
    }
}

/// A small prompt for the wire modules' tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;
    use serde_json::json;

    pub fn prompt() -> Prompt {
        Prompt {
            static_system: "You are a helper.".into(),
            examples: Vec::new(),
            volatile_system: Some("Customer: Ada".into()),
            tools: vec![ToolDef {
                name: "lookup".into(),
                description: "Find an order".into(),
                input_schema: json!({"type": "object"}),
            }],
            messages: vec![Message {
                role: Role::User,
                content: "hi".into(),
            }],
        }
    }

    pub fn with_examples() -> Prompt {
        let mut prompt = prompt();
        prompt.examples = vec![
            Message {
                role: Role::User,
                content: "q".into(),
            },
            Message {
                role: Role::Assistant,
                content: "a".into(),
            },
        ];
        prompt
    }

    /// The top-level keys of a request body, in order.
    pub fn keys(body: &serde_json::Value) -> Vec<&str> {
        body.as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }
}
