//! Everything the toolkit writes inside a brief, written so that a crash loses nothing.

pub mod change;
pub mod git;
pub mod history;
pub mod inspect;
pub mod pick;
pub mod proposals;
mod refusal;
pub mod retype;
pub mod review;
pub mod transaction;
mod writer_lock;

pub use crate::files::write_atomic;
pub use writer_lock::{WRITER_LOCK_FILE, WriterLock};
