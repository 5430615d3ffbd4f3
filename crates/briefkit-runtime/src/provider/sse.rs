//! An incremental reader of server-sent events, fed with byte chunks as they arrive.
//!
//! The network splits a stream wherever it likes: inside `data:`, between `\r` and `\n`,
//! inside a multi-byte character. So bytes are buffered until a whole line is there and
//! only whole lines are decoded; an event is complete only at its blank line. Comment lines
//! (`: keep-alive`) and fields we do not use (`id`, `retry`) are skipped, as the
//! WHATWG event-stream rules say.

/// One dispatched event: its `event:` name (if any) and its data lines joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub name: Option<String>,
    pub data: String,
}

/// One event (its data lines together, or one line) larger than this is not an event
/// stream we can trust; refusing it bounds memory whatever the server sends. Real events
/// are a few KiB.
pub const MAX_EVENT: usize = 4 * 1024 * 1024;

#[derive(Debug, Default)]
pub struct Decoder {
    line: Vec<u8>,
    /// The previous chunk ended with `\r`: a `\n` starting the next chunk belongs to it.
    after_cr: bool,
    first_line: bool,
    name: Option<String>,
    data: String,
    has_data: bool,
}

impl Decoder {
    pub fn new() -> Self {
        Decoder {
            first_line: true,
            ..Decoder::default()
        }
    }

    /// Feeds one chunk; returns the events it completed, in order.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<Event>, String> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if let Some(b'\n') = rest.first() {
                rest = &rest[1..];
            }
        }
        while let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..end]);
            if rest[end] == b'\r' {
                match rest.get(end + 1) {
                    Some(b'\n') => rest = &rest[end + 2..],
                    Some(_) => rest = &rest[end + 1..],
                    None => {
                        self.after_cr = true;
                        rest = &[];
                    }
                }
            } else {
                rest = &rest[end + 1..];
            }
            let line = std::mem::take(&mut self.line);
            if let Some(event) = self.line_done(&line) {
                events.push(event);
            }
            if self.data.len() > MAX_EVENT {
                return Err(too_big());
            }
        }
        self.line.extend_from_slice(rest);
        if self.line.len() + self.data.len() > MAX_EVENT {
            return Err(too_big());
        }
        Ok(events)
    }

    /// True when bytes or fields of an unfinished event are buffered: the stream stopped
    /// in the middle of an event.
    pub fn mid_event(&self) -> bool {
        !self.line.is_empty() || self.has_data || self.name.is_some()
    }

    fn line_done(&mut self, raw: &[u8]) -> Option<Event> {
        let decoded = String::from_utf8_lossy(raw);
        let mut line: &str = &decoded;
        if self.first_line {
            self.first_line = false;
            line = line.strip_prefix('\u{feff}').unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => self.name = Some(value.to_string()),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        let name = self.name.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(Event {
            name,
            data: std::mem::take(&mut self.data),
        })
    }
}

fn too_big() -> String {
    format!(
        "the event stream has an event larger than {} MiB",
        MAX_EVENT / 1024 / 1024
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Comments, CRLF and lone CR endings, a multi-line event, multi-byte characters and
    /// escape sequences: everything a split could break.
    const STREAM: &[u8] = "\u{feff}: keep-alive\r\n\r\nevent: delta\r\ndata: {\"t\":\"caf\u{e9} \u{2713}\"}\r\n\r\n:\rdata: one\rdata:two\r\rdata: \u{1b}[31mred\u{1b}]8;;x\u{7}\n\nid: 7\nretry: 10\ndata: [DONE]\n\n".as_bytes();

    fn expected() -> Vec<Event> {
        vec![
            Event {
                name: Some("delta".into()),
                data: "{\"t\":\"caf\u{e9} \u{2713}\"}".into(),
            },
            Event {
                name: None,
                data: "one\ntwo".into(),
            },
            Event {
                name: None,
                data: "\u{1b}[31mred\u{1b}]8;;x\u{7}".into(),
            },
            Event {
                name: None,
                data: "[DONE]".into(),
            },
        ]
    }

    fn decode_in_pieces(stream: &[u8], cuts: &[usize]) -> Vec<Event> {
        let mut decoder = Decoder::new();
        let mut events = Vec::new();
        let mut start = 0;
        for &cut in cuts.iter().chain(std::iter::once(&stream.len())) {
            let cut = cut.clamp(start, stream.len());
            events.extend(decoder.feed(&stream[start..cut]).expect("decodes"));
            start = cut;
        }
        assert!(!decoder.mid_event());
        events
    }

    #[test]
    fn whole_stream_decodes_to_the_expected_events() {
        assert_eq!(decode_in_pieces(STREAM, &[]), expected());
    }

    #[test]
    fn every_split_into_two_or_three_pieces_gives_the_same_events() {
        for i in 0..=STREAM.len() {
            assert_eq!(decode_in_pieces(STREAM, &[i]), expected(), "split at {i}");
            for j in i..=STREAM.len() {
                assert_eq!(
                    decode_in_pieces(STREAM, &[i, j]),
                    expected(),
                    "split at {i}, {j}"
                );
            }
        }
    }

    #[test]
    fn byte_by_byte_gives_the_same_events() {
        let cuts: Vec<usize> = (1..STREAM.len()).collect();
        assert_eq!(decode_in_pieces(STREAM, &cuts), expected());
    }

    #[test]
    fn a_stream_cut_inside_an_event_is_reported_as_mid_event() {
        let mut decoder = Decoder::new();
        let events = decoder.feed(b"data: {\"a\":1}\n\ndata: {\"b\"").unwrap();
        assert_eq!(events.len(), 1);
        assert!(decoder.mid_event());
        let mut decoder = Decoder::new();
        decoder
            .feed(b"data: complete line but no blank line\n")
            .unwrap();
        assert!(decoder.mid_event());
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        let mut decoder = Decoder::new();
        assert!(
            decoder
                .feed(b"event: ping\n\n: only a comment\n\n")
                .unwrap()
                .is_empty()
        );
        assert!(!decoder.mid_event());
    }

    #[test]
    fn an_endless_line_is_refused() {
        let mut decoder = Decoder::new();
        let chunk = vec![b'x'; 1024 * 1024];
        let mut result = Ok(Vec::new());
        for _ in 0..5 {
            result = decoder.feed(&chunk);
            if result.is_err() {
                break;
            }
        }
        assert!(result.unwrap_err().contains("larger than"));
    }

    #[test]
    fn an_endless_event_of_short_data_lines_is_refused() {
        // Regression: many `data:` lines without a blank line grew one event without bound.
        let mut decoder = Decoder::new();
        let chunk =
            "data: xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n".repeat(16 * 1024);
        let mut result = Ok(Vec::new());
        for _ in 0..5 {
            result = decoder.feed(chunk.as_bytes());
            if result.is_err() {
                break;
            }
        }
        assert!(result.unwrap_err().contains("larger than"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn any_chunking_gives_the_same_events(mut cuts in proptest::collection::vec(0..STREAM.len(), 0..24)) {
            cuts.sort_unstable();
            prop_assert_eq!(decode_in_pieces(STREAM, &cuts), expected());
        }

        #[test]
        fn any_bytes_in_any_chunks_decode_without_panic_and_within_the_cap(
            chunks in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(any::<u8>(), 0..64),
                    "(data|event|id|retry|:)?[:a-z ]{0,3}[ -~]{0,20}[\r\n]{0,3}".prop_map(String::into_bytes),
                ],
                0..40,
            )
        ) {
            let mut decoder = Decoder::new();
            let total: usize = chunks.iter().map(Vec::len).sum();
            let mut data = 0usize;
            for chunk in &chunks {
                for event in decoder.feed(chunk).expect("small input is never too big") {
                    prop_assert!(event.data.len() <= MAX_EVENT);
                    data += event.data.len();
                }
            }
            // Every byte of data came from the input. The one growth is a byte that is not
            // UTF-8: it is read as U+FFFD, three bytes, so the data is at most three times it.
            prop_assert!(data <= 3 * total);
        }
    }
}
