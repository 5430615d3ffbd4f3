// TEMPORARY local stand-in until the compact branch merges; never committed.
use serde::{Deserialize, Serialize};
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding { O200kBase, Cl100kBase }
impl std::fmt::Display for Encoding { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(match self { Encoding::O200kBase => "o200k_base", Encoding::Cl100kBase => "cl100k_base" }) } }
pub fn count(encoding: Encoding, text: &str) -> usize { match encoding { Encoding::O200kBase => tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len(), Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton().encode_ordinary(text).len() } }
pub fn estimate(text: &str) -> usize { text.len().div_ceil(4) }
