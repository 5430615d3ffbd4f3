//! The change layer on weakenings and on telegraphic rewording: a qualifier lost, a hedge
//! dropped or added, a preference hardened, a scope, a time clause or an alternative
//! lost are reported (`review`, never `flagged`); a flipped negation still flags; and
//! what a compressor writes without changing the rule (a modal dropped from an
//! imperative, `rather than` → `not`, `never X without Y` → `X only after Y`, units
//! shortened, a condition turned into a question or a topic, a number that names a
//! version) stays quiet.

use briefkit::guard::{ChangeKind, check};

use ChangeKind::*;

/// `(name, original, proposal, expected kind)`: each pair must report a change of that
/// kind, and only at `review` unless the kind flags.
const REPORTED: &[(&str, &str, &str, ChangeKind)] = &[
    (
        "explicitly lost",
        "Only refactor code when the user explicitly asks for it.",
        "Only refactor code when the user asks for it.",
        Qualifier,
    ),
    (
        "gradually lost",
        "Gradually move the old handlers to the new router.",
        "Move the old handlers to the new router.",
        Qualifier,
    ),
    (
        "strictly lost",
        "Every payload must be strictly checked against the schema.",
        "Check every payload against the schema.",
        Qualifier,
    ),
    (
        "especially lost",
        "Run the slow suite by hand, especially after a big merge.",
        "Run the slow suite by hand after a big merge.",
        Qualifier,
    ),
    (
        "ideally dropped",
        "Ideally, each commit should touch one module.",
        "Each commit touches one module.",
        Strength,
    ),
    (
        "a recommendation stated as a rule",
        "It is recommended that clients retry with jitter.",
        "Clients retry with jitter.",
        Strength,
    ),
    (
        "a habit stated as a fact",
        "The importer sometimes skips empty rows.",
        "The importer skips empty rows.",
        Strength,
    ),
    (
        "a preference hardened into an absolute",
        "Prefer small pull requests.",
        "Always open small pull requests.",
        Strength,
    ),
    (
        "a rule softened into a habit",
        "Do not log request bodies.",
        "Usually do not log request bodies.",
        Strength,
    ),
    (
        "a preference said with not",
        "Prefer composition over inheritance in new modules.",
        "Use composition, not inheritance, in new modules.",
        Strength,
    ),
    (
        "a scope phrase lost",
        "Prefer enums over string constants for status fields.",
        "Prefer enums over string constants.",
        Scope,
    ),
    (
        "a scope lost from an imperative",
        "Write unit tests with fixtures for all new services.",
        "Write unit tests with fixtures.",
        Scope,
    ),
    (
        "a time clause lost",
        "Run the database migration script from the repository root after every schema change.",
        "Run the database migration script from the repository root.",
        Condition,
    ),
    (
        "a without clause an instruction set",
        "Agents must close stale tickets without waiting for a customer reply.",
        "Agents must close stale tickets.",
        Condition,
    ),
    (
        "an alternative run together",
        "Read the package name from the manifest or the lock file.",
        "Read the package name from the manifest lock file.",
        Scope,
    ),
    (
        "a restricting adjective lost while its noun stays",
        "Run the migration script on every new table before release.",
        "Run migration script on every table before release.",
        Scope,
    ),
    (
        "a for phrase lost from a terse counterpart",
        "Enable compression for large payloads.",
        "Enable compression.",
        Scope,
    ),
    (
        "a qualifier lost from a list item merged into one line",
        "Personas:\n\n1. **Scholar**\n   - Calm and mostly formal tone\n   - Short replies with \
         citations\n   - Rare jokes about history\n2. **Pirate**\n   - Loud and boisterous \
         speech\n   - Nautical metaphors everywhere\n",
        "Personas:\n\n1. **Scholar** - Calm, formal tone, short replies, citations, history \
         jokes\n2. **Pirate** - Loud boisterous speech, nautical metaphors\n",
        Qualifier,
    ),
    (
        "an instruction turned into a statement",
        "Implement the retry as a loop with explicit backoff.",
        "Implemented the retry as a loop with explicit backoff.",
        Strength,
    ),
    (
        "a lower bound on a rate lost still flags",
        "Each worker must send at least 40 heartbeats per hour.",
        "Each worker sends 40 heartbeats/hour.",
        Bound,
    ),
    (
        "a preference hardened across an i.e. gloss",
        "Always prefer building through `make` (i.e. `make all`) instead of calling the compiler.",
        "Always build through `make` (`make all`) instead of calling the compiler.",
        Strength,
    ),
    (
        "a negation flipped still flags",
        "Never merge a branch with failing checks.",
        "Merge a branch with failing checks.",
        Negation,
    ),
];

/// `(name, original, proposal)`: no change may be reported.
const QUIET: &[(&str, &str, &str)] = &[
    (
        "a modal dropped from an imperative",
        "You must run the linter before pushing.",
        "Run the linter before pushing.",
    ),
    (
        "rather than said with not",
        "Show the code rather than describing it in words.",
        "Show the code, not a description in words.",
    ),
    (
        "never without said as only after",
        "Never delete a record without a fresh backup.",
        "Delete a record only after a fresh backup.",
    ),
    (
        "a rate limit under a list intro",
        "Signed-in clients are limited to 100 requests per minute.",
        "Limits:\n\n* Signed-in clients: 100 req/min",
    ),
    (
        "a maximum in a label",
        "Back off for a maximum of 60 seconds between retries.",
        "Max backoff between retries: 60s",
    ),
    (
        "a size unit shortened",
        "Use the helper library, which is only 700 bytes gzipped.",
        "Use the helper library (700b gzipped).",
    ),
    (
        "Node.js said as Node",
        "Prefer built-in Node.js APIs over new packages.",
        "Prefer built-in Node APIs over packages.",
    ),
    (
        "a condition turned into a question",
        "If no dedicated command exists, check the hooks.",
        "No dedicated command? Check the hooks.",
    ),
    (
        "a condition turned into a topic",
        "If there is a tradeoff to weigh, list the options with pros and cons.",
        "Tradeoffs: list options with pros and cons.",
    ),
    (
        "until said with first",
        "Hold the release until the audit passes.",
        "Hold the release; audit passes first.",
    ),
    (
        "not your favourite said as over",
        "Follow the house style even if it is not your favourite.",
        "Follow house style over your favourite.",
    ),
    (
        "a description loses the clause its negation governed",
        "The cache speeds up reads without needing a separate server.",
        "The cache speeds up reads.",
    ),
    (
        "without written as w/o",
        "The export finishes without errors.",
        "Export finishes w/o errors.",
    ),
    (
        "not only reordered",
        "Search every open tab, not only the first one.",
        "Search every open tab, not the first one only.",
    ),
    (
        "a preference kept as a ranking",
        "Prefer interfaces over type aliases.",
        "Interfaces > type aliases.",
    ),
    (
        "a purpose is no scope",
        "Avoid vendor-specific syntax for portability.",
        "Avoid vendor-specific syntax.",
    ),
    (
        "alternatives kept as a list",
        "Read the package name from the manifest or the lock file.",
        "Read the package name from manifest/lock file.",
    ),
    (
        "a plus between names is no bound",
        "The app is a React 18 application written in TypeScript.",
        "The app: React 18 + TypeScript.",
    ),
    (
        "a greater-than between two counts is no bound",
        "I would rather review three small changes than one large one.",
        "3 small changes > 1 large.",
    ),
    (
        "a noun in the next table cell is not what a number counts",
        "| Stage | Name | Owner |\n| --- | --- | --- |\n| Stage 2 | Review | Alice |\n| Stage 3 \
         | Deploy | Bob |\n",
        "| Stage | Owner |\n| --- | --- |\n| Stage 2 | Alice |\n| Stage 3 | Bob |\n",
    ),
    (
        "a numbered list marker is no count before a bound",
        "Steps:\n\n1. Keep memory use low (target < 50%)\n2. Restart the worker daily\n",
        "Steps:\n\n- Keep memory use low (target < 50%)\n- Restart the worker daily\n",
    ),
    (
        "a no in a table cell governs only that cell",
        "| Task | Options | Effect |\n| --- | --- | --- |\n| Lint | No options | Runs eslint on \
         the sources |\n",
        "| Task | Options | Effect |\n| --- | --- | --- |\n| Lint | - | Runs eslint on the \
         sources |\n",
    ),
    (
        "an only in a table cell dropped whole",
        "| Job | Runner | Notes |\n| --- | --- | --- |\n| Deploy | CI runner | Uses \
         cache<br>(Nightly only) |\n",
        "| Job | Runner | Notes |\n| --- | --- | --- |\n| Deploy | CI runner | Uses cache |\n",
    ),
    (
        "an only in a label's value dropped whole",
        "| Job | Notes |\n| --- | --- |\n| Index | **Once per day:** nightly window only |\n",
        "| Job | Notes |\n| --- | --- |\n| Index | Once per day |\n",
    ),
    (
        "a noun that looks like a qualifier",
        "This file is your guide and instruction manual for the billing service.",
        "Guide for the billing service.",
    ),
    (
        "an intensified negation kept",
        "Strictly no global state in request handlers.",
        "No global state in request handlers.",
    ),
    (
        "a warning adjective with nothing to qualify",
        "Be careful with the release script, it can push tags to the remote.",
        "Release script can push tags to the remote.",
    ),
    (
        "prioritize said as prefer",
        "Prioritize the built-in editor tools.",
        "Prefer built-in editor tools.",
    ),
    (
        "a for phrase naming an activity",
        "Use pnpm for package management.",
        "Use pnpm.",
    ),
    (
        "if not given said as a default",
        "Every other setting falls back to a safe default if not provided.",
        "Other settings: safe defaults.",
    ),
    (
        "explicitly beside a verb of saying",
        "When the build targets a device, specify the architecture explicitly in the command.",
        "When build targets a device, specify the architecture in the command.",
    ),
    (
        "a rate cap said as the bare rate",
        "The search endpoint is limited to 30 queries per second.",
        "Search endpoint: 30 queries/s.",
    ),
    (
        "a for phrase covering every case",
        "Use the bundled runner for all test invocations.",
        "Bundled runner only.",
    ),
    (
        "a hedge kept as a hedge",
        "Keep the summary short where possible.",
        "Keep summary short when possible.",
    ),
];

#[test]
fn every_weakening_is_reported_with_its_kind_at_review() {
    let mut failures = Vec::new();
    for &(name, original, proposal, kind) in REPORTED {
        let report = check(original, proposal);
        let found: Vec<_> = report.changed.iter().filter(|c| c.kind == kind).collect();
        if found.is_empty() {
            failures.push(format!(
                "{name}: expected {kind:?}, got {:?}",
                report.changed
            ));
            continue;
        }
        let flags = matches!(kind, Negation | Bound | Value);
        if report.is_flagged() != flags && report.dropped.is_empty() {
            failures.push(format!("{name}: status {} for {kind:?}", report.status()));
        }
        for c in found {
            if c.message.is_empty() || c.original.is_empty() || c.proposal.is_empty() {
                failures.push(format!("{name}: a change without its evidence: {c:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn telegraphic_rewording_reports_no_change() {
    let mut failures = Vec::new();
    for &(name, original, proposal) in QUIET {
        let report = check(original, proposal);
        if !report.changed.is_empty() {
            failures.push(format!("{name}: {:?}", report.changed));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_weakening_alone_makes_the_report_review_not_flagged() {
    let report = check(
        "Gradually move the old handlers to the new router.",
        "Move the old handlers to the new router.",
    );
    assert_eq!(report.status(), "review", "{:?}", report.changed);
    assert!(!report.is_flagged());
}
