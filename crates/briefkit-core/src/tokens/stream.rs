//! Exact token counts of whole files and streams (`brief count`), in bounded memory and on
//! every core.
//!
//! A text's count is the sum of the counts of its segments between *hard boundaries* (see
//! [`super::memo`]: a space right after a character that is not whitespace always ends a
//! pre-tokeniser piece). So a stream is read in blocks, each block is cut at its last hard
//! boundary, and the pieces are counted apart, on worker threads, each with its own
//! [`Counter`] (a word met again is not counted again). The text between the cut and the
//! block's end waits for the next block. Nothing is approximate: the sum equals
//! `count` of the whole text, which the tests check against direct counts.

use std::io::{self, Read};
use std::sync::mpsc;

use super::memo::last_boundary;
use super::{Counter, Encoding};

/// Bytes read at a time; also the size of a piece sent to a worker.
const BLOCK: usize = 1 << 20;
/// Pieces waiting for a worker, at most (bounds memory on a fast reader).
const QUEUE: usize = 4;

/// What was counted in one input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counted {
    pub tokens: usize,
    pub bytes: u64,
}

/// Why an input could not be counted.
#[derive(Debug)]
pub enum StreamError {
    Io(io::Error),
    /// Not UTF-8 text: the offset of the first byte that is not, and its 1-based line.
    NotUtf8 {
        offset: u64,
        line: u64,
    },
}

impl From<io::Error> for StreamError {
    fn from(err: io::Error) -> Self {
        StreamError::Io(err)
    }
}

/// Counts every input in turn, each read once from start to end; `inputs` yields readers
/// (opened lazily, so that only one is open at a time). Returns the per-input counts in
/// order, or the first input's error with its index.
pub fn count_all<R, I>(encoding: Encoding, inputs: I) -> Result<Vec<Counted>, (usize, StreamError)>
where
    R: Read,
    I: IntoIterator<Item = io::Result<R>>,
{
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let (to_workers, from_reader) = mpsc::sync_channel::<(usize, String)>(QUEUE);
    let from_reader = std::sync::Mutex::new(from_reader);
    let (to_sum, sums) = mpsc::channel::<(usize, usize)>();
    std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for _ in 0..workers {
            let from_reader = &from_reader;
            let to_sum = to_sum.clone();
            handles.push(scope.spawn(move || {
                let mut counter = Counter::new(encoding);
                loop {
                    let next = match from_reader.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((index, piece)) = next else { return };
                    if to_sum.send((index, counter.count(&piece))).is_err() {
                        return;
                    }
                }
            }));
        }
        drop(to_sum);
        let mut counted: Vec<Counted> = Vec::new();
        let mut failure = None;
        for (index, reader) in inputs.into_iter().enumerate() {
            counted.push(Counted::default());
            let result = reader.map_err(StreamError::from).and_then(|reader| {
                split(reader, |piece| {
                    // A send fails only when every worker stopped, which they do not
                    // while the sender lives.
                    let _ = to_workers.send((index, piece));
                })
            });
            match result {
                Ok(bytes) => counted[index].bytes = bytes,
                Err(err) => {
                    failure = Some((index, err));
                    break;
                }
            }
        }
        drop(to_workers);
        for handle in handles {
            let _ = handle.join();
        }
        if let Some(failure) = failure {
            return Err(failure);
        }
        for (index, tokens) in sums.try_iter() {
            counted[index].tokens += tokens;
        }
        Ok(counted)
    })
}

/// Reads `reader` to its end and hands `piece` every run of its text between hard
/// boundaries, about a block at a time; returns the bytes read.
fn split(mut reader: impl Read, mut piece: impl FnMut(String)) -> Result<u64, StreamError> {
    let mut pending: Vec<u8> = Vec::with_capacity(2 * BLOCK);
    let mut buffer = vec![0u8; BLOCK];
    let mut total: u64 = 0;
    // Bytes of `pending` already known to be valid UTF-8, and searched for a boundary.
    let mut checked = 0;
    let mut searched: usize = 0;
    // Line breaks in the text already handed on, for the line of a byte that is not UTF-8.
    let mut lines_before: u64 = 0;
    loop {
        let read = loop {
            match reader.read(&mut buffer) {
                Ok(n) => break n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) => return Err(err.into()),
            }
        };
        pending.extend_from_slice(&buffer[..read]);
        total += read as u64;
        let eof = read == 0;
        let valid = match std::str::from_utf8(&pending[checked..]) {
            Ok(_) => pending.len(),
            // An incomplete character at the end waits for the next read.
            Err(err) if err.error_len().is_none() && !eof => checked + err.valid_up_to(),
            Err(err) => {
                let at = checked + err.valid_up_to();
                let offset = total - (pending.len() - at) as u64;
                let line =
                    lines_before + memchr::memchr_iter(b'\n', &pending[..at]).count() as u64 + 1;
                return Err(StreamError::NotUtf8 { offset, line });
            }
        };
        checked = valid;
        if eof {
            if !pending.is_empty() {
                piece(into_string(pending));
            }
            return Ok(total);
        }
        if valid < BLOCK {
            continue;
        }
        // Only the text not searched yet (from the character before it, which a boundary
        // needs), so that a long run without one is not searched again per block.
        let mut from = searched.saturating_sub(1);
        while from > 0 && pending[from] & 0xC0 == 0x80 {
            from -= 1;
        }
        // Valid UTF-8 up to `valid`, checked above; `from` is a character's start.
        let text = std::str::from_utf8(&pending[from..valid]).unwrap_or_default();
        match last_boundary(text) {
            Some(q) => {
                let cut = from + q;
                let rest = pending.split_off(cut);
                lines_before += memchr::memchr_iter(b'\n', &pending).count() as u64;
                piece(into_string(std::mem::replace(&mut pending, rest)));
                checked -= cut;
                searched = valid - cut;
            }
            None => searched = valid,
        }
    }
}

fn into_string(bytes: Vec<u8>) -> String {
    // Only ever called on bytes checked to be UTF-8 up to a character boundary.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::count;

    /// Reads a few bytes at a time, so blocks end mid-word and mid-character.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn text(size: usize) -> String {
        let words = [
            "refund ",
            "Ünïcödé ",
            "退款 ",
            "   ",
            "\n\n",
            "don't ",
            "12,345 ",
            "🚀",
            "x",
            "\t",
        ];
        let mut out = String::new();
        let mut i = 7usize;
        while out.len() < size {
            i = i.wrapping_mul(2_654_435_761) % 1_000_003;
            out.push_str(words[i % words.len()]);
        }
        out
    }

    #[test]
    fn a_stream_counts_the_same_as_the_whole_text() {
        let text = text(3 * BLOCK + 12_345);
        for &encoding in Encoding::ALL {
            let counted = count_all(encoding, [Ok(text.as_bytes())]).unwrap();
            assert_eq!(counted[0].tokens, count(encoding, &text));
            assert_eq!(counted[0].bytes, text.len() as u64);
        }
    }

    #[test]
    fn reads_that_end_mid_character_still_count_exactly() {
        let text = text(BLOCK + 1000);
        let counted = count_all(
            Encoding::O200kBase,
            [Ok(Trickle(text.as_bytes(), 7)), Ok(Trickle(b"", 3))],
        )
        .unwrap();
        assert_eq!(counted[0].tokens, count(Encoding::O200kBase, &text));
        assert_eq!(counted[1], Counted::default());
    }

    #[test]
    fn several_inputs_are_counted_apart() {
        let (a, b) = (text(5000), "hello world".to_string());
        let counted = count_all(Encoding::O200kBase, [Ok(a.as_bytes()), Ok(b.as_bytes())]).unwrap();
        assert_eq!(counted[0].tokens, count(Encoding::O200kBase, &a));
        assert_eq!(counted[1].tokens, 2);
    }

    #[test]
    fn text_without_any_hard_boundary_is_one_piece() {
        let text = "x".repeat(2 * BLOCK + 5);
        let counted = count_all(Encoding::O200kBase, [Ok(text.as_bytes())]).unwrap();
        assert_eq!(counted[0].tokens, count(Encoding::O200kBase, &text));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_refused_with_their_offset() {
        let mut bytes = text(BLOCK + 10).into_bytes();
        let at = bytes.len() - 4;
        bytes[at] = 0xff;
        match count_all(Encoding::O200kBase, [Ok(&b"ok"[..]), Ok(&bytes[..])]) {
            Err((1, StreamError::NotUtf8 { offset, line })) => {
                assert_eq!(offset, at as u64);
                let expected = bytes[..at].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                assert_eq!(line, expected);
            }
            other => panic!("{other:?}"),
        }
    }
}
