//! The one redactor: removes API keys from any text before it is printed, logged or saved.
//!
//! A server we do not control may echo a key back changed, to slip it past a plain string
//! replace: upper- or lower-cased, percent-encoded (wholly or in part), base64-encoded
//! (standard or URL-safe alphabet, at any alignment inside a longer encoded string). So
//! each key is turned into its base64 forms once, the text is searched through a
//! percent-decoded view of it, and one case-insensitive Aho-Corasick pass finds them all,
//! in time linear in the text. Keys are the request's own key plus the values of environment
//! variables named `*_API_KEY`, `*_TOKEN` or `*_PASSWORD`, and for a database the
//! password its URL or environment gave (removed whatever its length); tokens shaped like
//! provider keys (`sk-…`, 16+ characters after the dash) are removed too, whatever their
//! source.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// What a removed key is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Keys shorter than this are placeholders for servers that want none (`x`, `none`):
/// redacting them would mangle ordinary words.
const MIN_KEY: usize = 8;

/// Shorter secrets than this are not looked for at all (they would match everywhere).
const MIN_SECRET: usize = 4;

/// Finds and removes known keys in every form a server could echo them.
#[derive(Debug, Clone)]
pub struct Redactor {
    matcher: Option<AhoCorasick>,
    /// Short secrets (a database password under 8 characters), removed only where they
    /// appear exactly: matched loosely they would eat ordinary words.
    exact: Vec<String>,
}

impl Redactor {
    /// For `key` (the request's own, if any) and the keys in the process environment.
    pub fn new(key: Option<&str>) -> Redactor {
        let env = env_keys();
        Self::with_keys(key.into_iter().chain(env.iter().map(String::as_str)))
    }

    /// For exactly these keys (tests, and callers that know them).
    pub fn with_keys<'k>(keys: impl IntoIterator<Item = &'k str>) -> Redactor {
        let mut patterns: Vec<String> = Vec::new();
        for key in keys {
            let key = key.trim();
            if key.len() < MIN_KEY {
                continue;
            }
            patterns.push(key.to_string());
            for alphabet in [STANDARD, URL_SAFE] {
                for offset in 0..3 {
                    let core = base64_core(key.as_bytes(), offset, alphabet);
                    if core.len() >= MIN_KEY {
                        patterns.push(core);
                    }
                }
            }
        }
        patterns.sort();
        patterns.dedup();
        let matcher = (!patterns.is_empty()).then(|| {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&patterns)
                .expect("literal patterns always build")
        });
        Redactor {
            matcher,
            exact: Vec::new(),
        }
    }

    /// For the environment's keys and `secrets` (a database's password): a password an
    /// operator chose may be short; from 4 characters on it is removed where it appears
    /// as is.
    pub fn with_secrets<'k>(secrets: impl IntoIterator<Item = &'k str>) -> Redactor {
        let env = env_keys();
        let secrets: Vec<&str> = secrets.into_iter().map(str::trim).collect();
        let mut redactor = Self::with_keys(
            secrets
                .iter()
                .copied()
                .chain(env.iter().map(String::as_str)),
        );
        redactor.exact = secrets
            .into_iter()
            .filter(|s| (MIN_SECRET..MIN_KEY).contains(&s.len()))
            .map(str::to_string)
            .collect();
        redactor
    }

    /// `text` with every key (in any form above) and every key-shaped token replaced by
    /// [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        let mut text = std::borrow::Cow::Borrowed(text);
        for secret in &self.exact {
            if text.contains(secret.as_str()) {
                text = std::borrow::Cow::Owned(text.replace(secret.as_str(), REDACTED));
            }
        }
        let text = text.as_ref();
        let Some(matcher) = &self.matcher else {
            return redact_key_shapes(text);
        };
        let (view, spans) = decoded_view(text);
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for found in matcher.find_iter(&view) {
            let mut start = spans[found.start()].0;
            let mut end = spans[found.end() - 1].1;
            // A key of non-ASCII characters can end mid-character in the view.
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            while !text.is_char_boundary(end) {
                end += 1;
            }
            if start < copied {
                continue;
            }
            out.push_str(&text[copied..start]);
            out.push_str(REDACTED);
            copied = end;
        }
        out.push_str(&text[copied..]);
        redact_key_shapes(&out)
    }

    /// True when `text` holds a known key in any form (an answer that does must not be
    /// saved as if it were an ordinary one).
    pub fn finds_key(&self, text: &str) -> bool {
        self.matcher
            .as_ref()
            .is_some_and(|m| m.is_match(&decoded_view(text).0))
    }
}

/// The values of the environment's `*_API_KEY`, `*_TOKEN` and `*_PASSWORD` variables.
fn env_keys() -> Vec<String> {
    std::env::vars_os()
        .filter_map(|(name, value)| {
            let name = name.to_str()?;
            (name.ends_with("_API_KEY") || name.ends_with("_TOKEN") || name.ends_with("_PASSWORD"))
                .then(|| value.into_string().ok())?
        })
        .collect()
}

/// `redact` with the environment's keys: for text whose request key is not at hand.
pub fn redact(text: &str) -> String {
    Redactor::new(None).redact(text)
}

/// Tokens shaped like provider keys (`sk-` and 16 or more key characters).
fn redact_key_shapes(text: &str) -> String {
    let mut result = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("sk-") {
        let tail = &rest[at + 3..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(tail.len());
        result.push_str(&rest[..at]);
        if len >= 16 {
            result.push_str(REDACTED);
        } else {
            result.push_str(&rest[at..at + 3 + len]);
        }
        rest = &tail[len..];
    }
    result.push_str(rest);
    result
}

/// `text` with every `%XX` escape decoded, and for each decoded byte the range of
/// `text` it came from, so a match in the view maps back to the text it hides in.
fn decoded_view(text: &str) -> (Vec<u8>, Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut view = Vec::with_capacity(bytes.len());
    let mut spans = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).and_then(|b| hex(*b)),
                bytes.get(i + 2).and_then(|b| hex(*b)),
            )
        {
            view.push((hi * 16 + lo) as u8);
            spans.push((i, i + 3));
            i += 3;
        } else {
            view.push(bytes[i]);
            spans.push((i, i + 1));
            i += 1;
        }
    }
    (view, spans)
}

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The base64 characters that depend only on the key's bytes when the key starts
/// `offset` bytes into a 3-byte group of a longer encoded text: skip to the first whole
/// group, encode whole groups only.
fn base64_core(key: &[u8], offset: usize, alphabet: &[u8; 64]) -> String {
    let skip = (3 - offset % 3) % 3;
    let rest = key.get(skip..).unwrap_or_default();
    let whole = rest.len() / 3 * 3;
    let mut out = String::with_capacity(whole / 3 * 4);
    for group in rest[..whole].chunks(3) {
        let n = (u32::from(group[0]) << 16) | (u32::from(group[1]) << 8) | u32::from(group[2]);
        for shift in [18, 12, 6, 0] {
            out.push(alphabet[((n >> shift) & 63) as usize] as char);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-test-SECRET123-abcdef";

    /// Plain base64 of `text`, with padding, for building echoes.
    fn base64(text: &[u8], alphabet: &[u8; 64]) -> String {
        let mut padded = text.to_vec();
        let pad = (3 - text.len() % 3) % 3;
        padded.extend(std::iter::repeat_n(0, pad));
        let mut out = base64_core(&padded, 0, alphabet);
        out.truncate(out.len() - pad);
        out.extend(std::iter::repeat_n('=', pad));
        out
    }

    #[test]
    fn a_key_echoed_changed_is_still_redacted() {
        let redactor = Redactor::with_keys([KEY]);
        let echoes = [
            format!("bad key {KEY}!"),
            format!("bad key {}", KEY.to_uppercase()),
            format!("bad key {}", KEY.to_lowercase()),
            format!("key={}", KEY.replace('-', "%2D")),
            format!("key={}", KEY.replace('-', "%2d").replace('S', "%53")),
            KEY.bytes().map(|b| format!("%{b:02x}")).collect(),
        ];
        let mut echoes = echoes.to_vec();
        for prefix in ["", "a", "ab", "Bearer ", "x-api-key: "] {
            for alphabet in [STANDARD, URL_SAFE] {
                echoes.push(format!(
                    "token {}",
                    base64(format!("{prefix}{KEY}").as_bytes(), alphabet)
                ));
            }
        }
        for echo in &echoes {
            assert!(redactor.finds_key(echo), "{echo}");
            let clean = redactor.redact(echo);
            assert!(clean.contains(REDACTED), "{echo} -> {clean}");
            assert!(!redactor.finds_key(&clean), "{echo} -> {clean}");
        }
    }

    #[test]
    fn ordinary_text_and_placeholder_keys_are_left_alone() {
        let redactor = Redactor::with_keys(["none", KEY]);
        let text = "None of this is a key; none at all. sk-short";
        assert_eq!(redactor.redact(text), text);
        assert!(!redactor.finds_key(text));
    }

    #[test]
    fn a_short_database_password_is_removed_as_is_and_words_are_kept() {
        let redactor = Redactor::with_secrets(["s3cr"]);
        assert_eq!(
            redactor.redact("user brief:s3cr@host; S3CR is not it"),
            format!("user brief:{REDACTED}@host; S3CR is not it")
        );
        let long = Redactor::with_secrets(["a-long-db-password"]);
        assert_eq!(
            long.redact("pw A-LONG-DB-PASSWORD"),
            format!("pw {REDACTED}")
        );
        // Under 4 characters a password would match everywhere: left to never be printed.
        assert_eq!(Redactor::with_secrets(["pw"]).redact("pw"), "pw");
    }

    #[test]
    fn key_shaped_tokens_are_redacted_without_knowing_the_key() {
        let clean = Redactor::with_keys([]).redact("use sk-proj-abcdefghijklmnop1234 now");
        assert_eq!(clean, "use [redacted] now");
    }
}
