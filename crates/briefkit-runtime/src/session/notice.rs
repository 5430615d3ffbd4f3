//! What a session operation noticed on the way and the operator should know: a torn line
//! cut off, a value no volatile item uses, a length cap lowered. A notice is data; its
//! `Display` is in words true at every edge, and the command line words the ones about its
//! own flags itself (`cli/commands/session.rs`).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A volatile value given for a placeholder no volatile item has.
    UnusedVar { name: String },
    /// A turn interrupted after its answer arrived was finished first; the user message
    /// given with this run was not sent.
    UserNotSent { op: String },
    /// A retried turn asked for a longer answer than the gate checked: capped at `cap`.
    LengthCapped { asked: u32, cap: u32, op: String },
    /// Anything else, in words true at every edge.
    Text(String),
}

impl From<String> for Notice {
    fn from(text: String) -> Notice {
        Notice::Text(text)
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::UnusedVar { name } => {
                write!(f, "the value for {name} is not used by any volatile item")
            }
            Notice::UserNotSent { op } => write!(
                f,
                "finished {op} first, whose answer had arrived before an interruption; the new user message was not sent: run the turn again"
            ),
            Notice::LengthCapped { asked, cap, op } => write!(
                f,
                "a length cap of {asked} is over the {cap} the gate checked for {op}; the answer is capped at {cap}"
            ),
            Notice::Text(text) => f.write_str(text),
        }
    }
}
