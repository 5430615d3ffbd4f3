//! The instruction layer on rewrites in a notation (issue 32): a rule set retold inside a
//! fenced block (```` ```notation ````) with symbols for words (`¬`, `∀`, `→`) and a
//! legend of short forms (`fn=function`), abbreviations the original never spells out
//! (`mgmt`, `ctx`, `desc`), and what a unit is (a sample dialogue, a quoted example, a
//! section of benefits is context; a bare trait under a style heading is an order).
//! Quiet where the rules survive, reported where one went. Each pair is written for this
//! table.

use briefkit::guard::{Confidence, check};

enum Expect {
    /// No instruction reported.
    Quiet,
    /// An instruction containing this text reported at high confidence.
    Dropped(&'static str),
    /// An instruction containing this text reported for review, its reason naming this.
    Review(&'static str, &'static str),
    /// No instruction reported; this unit listed in `context_dropped`.
    Context(&'static str),
}

use Expect::*;

type Case = crate::common::pairs::Case<Expect>;
use crate::common::pairs::case;

const RULES: &str = "# Workshop rules\n\n\
Never commit secrets or passwords to the repository.\n\n\
Every public function needs a short description of its parameters.\n\n\
Prefer readable code over clever code.\n\n\
Keep secret management in the vault service.\n\n\
Log each failed request with its context.\n\n\
Validate every input before it reaches the database.\n";

const CASES: &[Case] = &[
    // ---- a notation block read as text ----
    case(
        "rules retold in a fenced notation block",
        RULES,
        "# Workshop rules\n\n```notation\nR{\n  ¬commit[secrets,passwords]→repo;\n  ∀public fn→desc params;\n  readable≻clever;\n  secret mgmt→vault service;\n  failed req→log+ctx;\n  ∀input→validate before database\n}\n```\n",
        Quiet,
    ),
    case(
        "a rule missing from the notation block",
        RULES,
        "# Workshop rules\n\n```notation\nR{\n  ¬commit[secrets,passwords]→repo;\n  ∀public fn→desc params;\n  readable≻clever;\n  secret mgmt→vault service;\n  failed req→log+ctx\n}\n```\n",
        Dropped("Validate every input"),
    ),
    case(
        "a legend defines the short forms",
        "Name every function after what it does.\n\nName every class after what it holds.\n\nName every variable after what it stores.\n",
        "```rules\nK{fn=function; cls=class; var=variable}\n∀fn→name after what it does; ∀cls→name after what it holds; ∀var→name after what it stores\n```\n",
        Quiet,
    ),
    case(
        "a code block of the proposal stays code",
        "Run the formatter before each commit.\n\nNever push to the main branch directly.\n",
        "Run the formatter before each commit.\n\n```bash\n# never push to main branch directly\ngit push origin feature\n```\n",
        Dropped("Never push to the main branch"),
    ),
    // ---- short forms the original never spells out ----
    case(
        "abbreviations by prefix and by letters in order",
        "Write a description for every endpoint.\n\nKeep the management scripts in the tools folder.\n\nAttach the context to every error message.\n",
        "Desc for every endpoint. Mgmt scripts in tools folder. Attach ctx to every err msg.\n",
        Quiet,
    ),
    // ---- what a unit is ----
    case(
        "a sample dialogue and quoted phrases are context",
        "Greet the visitor by name.\n\nExample exchange:\n\nUser: Where is the library?\nAgent: The library is on the second floor, next to the café.\n\nPhrases to use:\n\n- \"Welcome back, friend!\"\n- \"Happy to help with anything!\"\n",
        "Greet visitor by name.\n",
        Context("The library is on the second floor"),
    ),
    case(
        "a section of benefits is context",
        "Answer in a warm, friendly tone.\n\n## Benefits\n\n1. Create a calmer experience for visitors\n2. Reduce friction in long conversations\n",
        "Warm, friendly tone.\n",
        Context("Reduce friction"),
    ),
    case(
        "a bare trait under a style heading is an order",
        "## Tutor styles\n\n1. **Owl**\n   - Patient, wise explanations\n   - Gentle humour about mistakes\n\n2. **Fox**\n   - Quick, playful hints\n   - Riddles about history\n",
        "## Tutor styles\n\n1. **Owl** - Patient, wise explanations, gentle humour about mistakes\n2. **Fox** - Quick, playful hints\n",
        Dropped("Riddles about history"),
    ),
    // ---- kept, but narrower or weaker ----
    case(
        "a scope lost",
        "Add caching for slow report queries.\n\nNever log passwords.\n\nWrite tests for every new module.\n\nKeep functions short.\n",
        "Add caching.\n\nNever log passwords.\n\nWrite tests for every new module.\n\nKeep functions short.\n",
        Review("Add caching", "scope"),
    ),
    case(
        "a qualifier lost from a merged list",
        "## Voice\n\n- Mostly calm answers\n- Playful greetings\n- Short sentences\n",
        "## Voice\n\nCalm answers, playful greetings, short sentences.\n",
        Review("Mostly calm answers", "qualifier"),
    ),
];

fn verdict(case: &Case) -> Option<String> {
    let report = check(case.original, case.proposal);
    let found = |text: &str, confidence: Confidence, why: &str| {
        report
            .dropped_instructions
            .iter()
            .any(|d| d.text.contains(text) && d.confidence == confidence && d.reason.contains(why))
    };
    let ok = match case.expect {
        Quiet => report.dropped_instructions.is_empty(),
        Dropped(text) => found(text, Confidence::High, ""),
        Review(text, why) => found(text, Confidence::Review, why) && !report.is_flagged(),
        Context(text) => {
            report.dropped_instructions.is_empty()
                && report.context_dropped.iter().any(|c| c.text.contains(text))
        }
    };
    (!ok).then(|| {
        format!(
            "{}: {}\n  instructions {:?}\n  context {:?}",
            case.name,
            report.status(),
            report
                .dropped_instructions
                .iter()
                .map(|d| (d.text.as_str(), d.reason.as_str(), d.confidence))
                .collect::<Vec<_>>(),
            report
                .context_dropped
                .iter()
                .map(|c| c.text.as_str())
                .collect::<Vec<_>>()
        )
    })
}

#[test]
fn every_notation_pair_comes_out_as_expected() {
    let failures: Vec<String> = CASES.iter().filter_map(verdict).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Symbols, fences and short forms never make a text unreadable: any proposal, however
/// odd, gets a report (the notation reading is linear and never slices inside a char).
#[test]
fn odd_notation_never_panics() {
    for proposal in [
        "```\n¬∀→≻≥≤∋⊕×|+&\n```",
        "```crux\nK{a=; =b; ab=abc; é=épée}\n```",
        "w/o w/ w/o\n```x\nw/",
        "```notation\n;;;;\n```\n`",
        "İstanbul ßtraße mgmt ctx ¬",
    ] {
        let report = check(RULES, proposal);
        assert!(!report.status().is_empty());
    }
}
