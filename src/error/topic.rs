//! What an error is about, as data: the edge that shows an error (the command line, the
//! MCP server) words its advice from this, in its own terms.

use crate::wire::Wire;

/// What an error is about, as data, for the edge that shows it (the CLI, the MCP server)
/// to say what to do in its own words: the CLI names its flags, MCP its tool arguments and
/// the server's operator. Domain code sets the topic and leaves edge-specific advice out;
/// a hint it gives itself is in words true at every edge (a variable, a file, a wait).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Topic {
    /// No model was named for this wire.
    NoModel { wire: Wire },
    /// The official endpoint needs a key and the wire's key variable is not set.
    NoApiKey { wire: Wire },
    /// A base URL is not usable; `from` says where it was given.
    BadBaseUrl { wire: Wire, from: Origin },
    /// A caller (an MCP tool call) named a base URL the operator neither configured nor
    /// allowed; the key was not sent.
    BaseUrlNotAllowed { url: String },
    /// The provider's server could not be reached at the configured base URL.
    Unreachable { wire: Wire },
    /// The server sent nothing for the idle timeout `after`.
    IdleTimeout { after: std::time::Duration },
    /// Volatile placeholders without a value.
    MissingVars { names: Vec<String> },
    /// The path names no brief: no such directory, a file, or a directory without
    /// `brief.yaml` (`exists`: the directory is there).
    NoBrief { exists: bool },
    /// The path names no session.
    NoSession,
    /// The session's log is at its size limit: a new session is needed.
    SessionFull,
    /// A purge would keep a tool call without its result or the reverse: both must go.
    PurgeBoth { ids: [String; 2] },
    /// An operation id the session has not pending.
    NotPending,
    /// An item has no version by this number (`brief` is the brief as the caller named it).
    NoVersion {
        brief: std::path::PathBuf,
        item: String,
    },
    /// An item has no version yet, so there is nothing to compare its body with.
    NoVersions {
        brief: std::path::PathBuf,
        item: String,
    },
    /// A pending proposal whose item left the brief: it can only be discarded.
    OrphanProposal {
        brief: std::path::PathBuf,
        id: String,
    },
    /// A setting's value (a path) is unusable; the domain's hint says what it should be, the
    /// edge says where it is set.
    Setting(Setting),
}

/// A setting an operator gives as a flag or an environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    /// Where the CCR store is (`--store`, `BRIEF_CCR_PATH`).
    CcrStore,
    /// Where the usage ledger is (`--ledger`, `BRIEF_LEDGER`).
    Ledger,
    /// `brief align`'s state file (`--state`).
    AlignState,
}

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The operator's own option: a command-line flag, or a flag the server was started with.
    Flag,
    /// An environment variable.
    Environment,
    /// The brief's `brief.yaml`.
    Brief,
    /// An argument of a call whose writer the operator does not control (an MCP tool call).
    Caller,
}
