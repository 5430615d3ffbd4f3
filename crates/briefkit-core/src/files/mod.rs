//! Files, read and written so that no file makes a command hang, grow without bound or
//! reach outside what it was pointed at: the one policy for briefs and sessions alike.
//!
//! - [`policy`]: anything but a regular file (a FIFO that would hang a reader, a device
//!   that never ends, a directory, a socket) is refused before it is opened; files the
//!   toolkit owns are opened without following a link; temporary files have unpredictable
//!   names, and those a killed writer left are swept by the next writer under its lock.
//! - [`inside`]: a path under a brief is used only when it resolves inside the brief.
//! - [`atomic`]: every write replaces a file whole (temporary file, fsync, rename).
//! - [`input`]: what a user names on the command line (a file or `-` for stdin) is read
//!   within the documented limit of [`limits`], checked before the first byte is read.
//!
//! A leaf: it imports nothing of the crate but the error type.

pub mod atomic;
pub mod input;
pub mod inside;
pub mod limits;
pub mod policy;

pub use atomic::{write_atomic, write_derived};
