//! What an error is about, as data: the edge that shows an error (the command line, the
//! MCP server) words its advice from this, in its own terms.

use std::path::PathBuf;

use crate::wire::Wire;

/// What an error is about, as data, for the edge that shows it (the CLI, the MCP server)
/// to say what to do in its own words: the CLI names its flags, MCP its tool arguments and
/// the server's operator. Domain code sets the topic and leaves edge-specific advice out;
/// a hint it gives itself is in words true at every edge (a variable, a file, a wait).
///
/// Not `#[non_exhaustive]`: the edges live in other crates and match every topic, so a new
/// topic must be worded at each of them (the compiler says where).
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// An item's versions or a pending proposal: what the brief's operator can do next.
    Store(StoreTopic),
    /// An input to a token count that cannot be counted.
    Count(CountTopic),
    /// A setting's value (a path) is unusable; the domain's hint says what it should be, the
    /// edge says where it is set.
    Setting(Setting),
    /// An item that may not be sent to a model for compression, in the brief `brief`.
    NotCompressible { brief: std::path::PathBuf },
    /// A compressor brief (in `dir`) that does not pass its checks.
    BadCompressor { dir: std::path::PathBuf },
    /// A file that is not a wake digest.
    BadDigest,
    /// A rule item's file asked to be rewritten: rules are compacted at compose time only.
    RuleFile,
    /// The CCR store's disk is full.
    StoreFull,
    /// A tool call names one of the framework's tools, and the session was made without them.
    NoFrameworkTools,
    /// An entry over the session entry limit: nothing was appended.
    EntryTooLarge,
    /// A sub-agent result that is not a valid result envelope.
    InvalidEnvelope,
    /// A new session's settings (its volatile values, mostly) are over their size limit.
    SessionSettingsTooLarge,
    /// Something other than its result was appended while `call` waits for its result.
    OpenCall { call: String },
    /// A turn cannot start: `call` of `session` has no result yet (`subagent`: one of the
    /// framework's sub-agents, which the framework can run).
    TurnUnanswered {
        session: std::path::PathBuf,
        call: String,
        subagent: bool,
    },
    /// A request body cannot be rendered: `call` of `session` has no result yet.
    RenderUnanswered {
        session: std::path::PathBuf,
        call: String,
    },
    /// An id that names no entry of the session.
    NoEntry,
    /// `--resume`d an operation that is not a turn the gate blocked.
    NotATurn,
    /// A turn failed after its model's answer arrived; running it again finishes it.
    TurnAnswerKept { session: std::path::PathBuf },
}

/// What an error about an item's versions or a pending proposal is about. `brief` is the
/// brief's directory as the caller named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreTopic {
    /// The item's history answers it (a version that does not exist, a proposal already
    /// accepted).
    History { brief: PathBuf, item: String },
    /// The item has no version yet: its body can be recorded as one.
    NoVersions { brief: PathBuf, item: String },
    /// A tool has no body to version: its file is edited and locked.
    ToolFile,
    /// A proposal id that names no pending proposal (or is malformed).
    UnknownProposal { brief: PathBuf },
    /// A proposal file that does not parse: it was not written by the toolkit as it is.
    UnreadableProposal,
    /// A pending proposal that can only be discarded (refused by its item).
    Discard { brief: PathBuf, id: String },
    /// A pending proposal whose item left the brief.
    Orphan { brief: PathBuf, id: String },
    /// A pending proposal whose item changed since it was made.
    Stale {
        brief: PathBuf,
        id: String,
        item: String,
    },
    /// A pending proposal the guard flags: reviewed, accepted anyway, or discarded.
    Flagged { brief: PathBuf, id: String },
}

/// Why an input to a token count cannot be counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountTopic {
    /// Not a regular file (nor stdin).
    NotRegular,
    /// Not UTF-8 text.
    NotUtf8,
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
