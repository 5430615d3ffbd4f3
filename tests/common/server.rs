//! The provider server for command tests: it answers each request in the wire format its
//! path asks for (`…/chat/completions` or `…/messages`) and records every request, so a
//! test can prove what was sent and that nothing was. Built on the scripted loopback
//! server of the provider tests, with their stream fixtures.

pub(crate) use crate::loopback;

use loopback::fixtures::{OPENAI_USAGE, anthropic_stream, openai_stream};

#[derive(Debug, Clone)]
pub struct Request {
    pub path: String,
    pub body: String,
}

/// How the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete streamed answer with this text.
    Text(String),
    /// A stream cut off before its end: no finish reason, no end marker.
    Truncated(String),
    /// An HTTP error status with a JSON body.
    Status(u16, String),
}

pub struct Server {
    pub base_url: String,
    inner: loopback::Server,
}

impl Server {
    /// Starts a server answering every request with `reply`.
    pub fn start(reply: Reply) -> Server {
        let inner = loopback::Server::answering(move |request| {
            wire_reply(&reply, request.path().ends_with("/messages"))
        });
        Server {
            base_url: inner.url(),
            inner,
        }
    }

    pub fn requests(&self) -> Vec<Request> {
        self.inner
            .requests()
            .into_iter()
            .map(|r| Request {
                path: r.path(),
                body: String::from_utf8_lossy(&r.body).into_owned(),
            })
            .collect()
    }
}

fn wire_reply(reply: &Reply, anthropic: bool) -> loopback::Reply {
    match reply {
        Reply::Status(code, body) => loopback::Reply::status(*code, &[], "application/json", body),
        Reply::Text(text) => {
            let body = if anthropic {
                anthropic_stream(text, Some("end_turn"), true)
            } else {
                openai_stream(text, Some("stop"), Some(OPENAI_USAGE), true)
            };
            // Split once mid-stream to exercise reassembly.
            loopback::Reply::sse(&body, &[body.len() / 2])
        }
        Reply::Truncated(text) => {
            let body = if anthropic {
                anthropic_stream(text, None, false)
            } else {
                openai_stream(text, None, None, false)
            };
            loopback::Reply::sse(&body, &[])
        }
    }
}
