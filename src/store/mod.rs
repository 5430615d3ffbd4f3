//! Everything the toolkit writes inside a brief, written so that a crash loses nothing.

mod atomic;

pub use atomic::write_atomic;
