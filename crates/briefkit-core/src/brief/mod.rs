//! A brief on disk: the manifest, its items, and the validation that guards both.

mod embedded;
mod files;
pub mod import;
pub mod init;
mod item;
mod load;
mod lockfile;
mod lookup;
mod manifest;
mod problem;
pub mod sample;
mod types;

pub use item::parse_markdown;
pub use item::{Item, fill_placeholders, placeholders, unescape_braces};
pub use load::{
    Brief, MANIFEST, MAX_FILE_BYTES, MAX_LOCK_BYTES, MAX_MANIFEST_BYTES, MAX_VERSIONED_ITEM_BYTES,
};
pub use lockfile::{LOCK_FILE, Lock, LockedPrefix, LockedRule};
pub use manifest::{Budget, MAX_PRICE_PER_MTOK, Manifest, ModelConfig, Pricing};
pub use problem::{LineIndex, Problem, Severity, line_col};
pub use sample::{BodyFormat, SampleMessage};
pub use types::{ItemType, Policy, Tier, valid_id};
