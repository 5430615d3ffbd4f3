//! How a model call ended, in the one vocabulary the provider layer, the proxy and the
//! usage ledger share: the ledger's `status` column.
//!
//! The words are a contract (scripts, DuckDB and ClickHouse queries filter on them): `ok`,
//! `http_<code>`, `timeout`, `connect`, `truncated_stream`, `stream_error`,
//! `client_disconnected`, `cancelled` and `error`. A ledger written by another version or
//! tool may hold other words; they are read and written back unchanged.
//!
//! A leaf: it imports nothing of the crate.

use std::fmt;

/// The status of one model call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum CallStatus {
    /// The call answered completely.
    #[default]
    Ok,
    /// The server answered with this error status.
    Http(u16),
    /// No answer (or no next byte) within the timeout.
    Timeout,
    /// The connection could not be made.
    Connect,
    /// The answer stream broke off before the provider's end marker.
    TruncatedStream,
    /// The stream carried the provider's own error event.
    StreamError,
    /// The client (of the proxy) went away before the answer ended.
    ClientDisconnected,
    /// The operator interrupted the call (Ctrl-C) before it answered.
    Cancelled,
    /// Anything else: a malformed or empty answer, a request that could not be sent.
    Error,
    /// A word this version does not know, kept as read.
    Other(String),
}

impl CallStatus {
    pub fn is_ok(&self) -> bool {
        *self == CallStatus::Ok
    }

    /// The ledger's word for it.
    pub fn as_str(&self) -> std::borrow::Cow<'_, str> {
        use std::borrow::Cow;
        Cow::Borrowed(match self {
            CallStatus::Ok => "ok",
            CallStatus::Http(code) => return Cow::Owned(format!("http_{code}")),
            CallStatus::Timeout => "timeout",
            CallStatus::Connect => "connect",
            CallStatus::TruncatedStream => "truncated_stream",
            CallStatus::StreamError => "stream_error",
            CallStatus::ClientDisconnected => "client_disconnected",
            CallStatus::Cancelled => "cancelled",
            CallStatus::Error => "error",
            CallStatus::Other(word) => word,
        })
    }

    /// Reads a ledger word; one this version does not know is kept as [`CallStatus::Other`].
    pub fn parse(word: &str) -> CallStatus {
        match word {
            "ok" => CallStatus::Ok,
            "timeout" => CallStatus::Timeout,
            "connect" => CallStatus::Connect,
            "truncated_stream" => CallStatus::TruncatedStream,
            "stream_error" => CallStatus::StreamError,
            "client_disconnected" => CallStatus::ClientDisconnected,
            "cancelled" => CallStatus::Cancelled,
            "error" => CallStatus::Error,
            other => match other
                .strip_prefix("http_")
                .filter(|code| {
                    code.len() == 3
                        && code.bytes().all(|b| b.is_ascii_digit())
                        && !code.starts_with('0')
                })
                .and_then(|code| code.parse().ok())
            {
                Some(code) => CallStatus::Http(code),
                None => CallStatus::Other(other.to_string()),
            },
        }
    }
}

impl fmt::Display for CallStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl PartialEq<&str> for CallStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl serde::Serialize for CallStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for CallStatus {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let word = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(CallStatus::parse(&word))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn every_status_keeps_its_ledger_word() {
        let words = [
            (CallStatus::Ok, "ok"),
            (CallStatus::Http(429), "http_429"),
            (CallStatus::Http(500), "http_500"),
            (CallStatus::Timeout, "timeout"),
            (CallStatus::Connect, "connect"),
            (CallStatus::TruncatedStream, "truncated_stream"),
            (CallStatus::StreamError, "stream_error"),
            (CallStatus::ClientDisconnected, "client_disconnected"),
            (CallStatus::Cancelled, "cancelled"),
            (CallStatus::Error, "error"),
        ];
        for (status, word) in words {
            assert_eq!(status.to_string(), word);
            assert_eq!(CallStatus::parse(word), status);
            assert_eq!(
                serde_json::to_string(&status).unwrap(),
                format!("\"{word}\"")
            );
            assert_eq!(
                serde_json::from_str::<CallStatus>(&format!("\"{word}\"")).unwrap(),
                status
            );
        }
        assert!(CallStatus::Ok.is_ok() && !CallStatus::Error.is_ok());
        assert_eq!(
            CallStatus::parse("http_4290"),
            CallStatus::Other("http_4290".into())
        );
    }

    proptest! {
        #[test]
        fn any_word_reads_back_as_written(word in "\\PC{0,24}") {
            prop_assert_eq!(CallStatus::parse(&word).to_string(), word);
        }
    }
}
