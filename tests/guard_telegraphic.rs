//! The guard on telegraphic rewrites (issue 32): what real compressors write — short
//! forms, symbols for words, a condition asked as a question, `not` for `rather than`,
//! `X only after Y` for `never X without Y`, a modal dropped from an imperative, a
//! rationale or an example left out — stays clean; a lost qualifier or a strength that
//! moved is `review` (never blocking); a dropped instruction, a flipped negation and a
//! changed value are `flagged`. Each pair is written for this table.

use briefkit::guard::{Confidence, check};

/// What a pair must come out as.
enum Expect {
    /// `clean`: nothing found (dropped context may be listed, as information).
    Quiet,
    /// `clean`, with this unit listed in `context_dropped`.
    Context(&'static str),
    /// `review`, with a change of this kind.
    ReviewChange(&'static str),
    /// `flagged`, with a change of this kind at high confidence.
    FlaggedChange(&'static str),
    /// `flagged`, with an instruction containing this text dropped at high confidence.
    FlaggedInstruction(&'static str),
    /// `flagged`, with a fact of this value dropped.
    FlaggedFact(&'static str),
    /// `review`, with an instruction containing this text reported at review level.
    ReviewInstruction(&'static str),
}

use Expect::*;

type Case = crate::common::pairs::Case<Expect>;
use crate::common::pairs::case;

const CASES: &[Case] = &[
    // ---- quiet: telegraphic text keeps the instruction ----
    case(
        "short forms for words",
        "Update the documentation in the repository whenever the configuration changes.",
        "Config changes: update repo docs.",
        Quiet,
    ),
    case(
        "a short form and an inflection",
        "Do not add dependencies without discussing them with the team first.",
        "No new deps without team discussion.",
        Quiet,
    ),
    case(
        "a condition asked as a question",
        "If the nightly build fails, read the build log before retrying it.",
        "Nightly build fails? Read build log before retrying.",
        Quiet,
    ),
    case(
        "a contrast said with not",
        "Write integration tests against a real database rather than mocking the storage layer.",
        "Write integration tests against real database, not mocked storage layer.",
        Quiet,
    ),
    case(
        "instead of said with not",
        "Use the shared retry helper instead of writing loops by hand.",
        "Use shared retry helper, not hand-written loops.",
        Quiet,
    ),
    case(
        "never without said as only after",
        "Never deploy a release without a green pipeline run.",
        "Deploy a release only after a green pipeline run.",
        Quiet,
    ),
    case(
        "a modal dropped from an imperative",
        "Every public function must validate its arguments.",
        "Every public function: validate arguments.",
        Quiet,
    ),
    case(
        "a product name without its .js",
        "Target Node.js for every build script.",
        "Build scripts target Node.",
        Quiet,
    ),
    case(
        "a sentence split in two",
        "Run the formatter on every changed file and then run the linter before each commit.",
        "Run formatter on changed files. Then linter, before each commit.",
        Quiet,
    ),
    case(
        "two sentences merged into one",
        "Keep pull requests small. Each pull request should do one thing.",
        "Small PRs, one thing each.",
        Quiet,
    ),
    case(
        "word order changed",
        "Tag every release in the changelog with its date.",
        "Changelog: date-tag each release.",
        Quiet,
    ),
    // ---- context: said, never a finding ----
    case(
        "a rationale after a dash dropped",
        "Avoid global mutable state — it makes debugging much harder and slows the whole suite.",
        "Avoid global mutable state.",
        Quiet,
    ),
    case(
        "a rationale sentence dropped",
        "Log through the structured logger. It keeps production output searchable for everyone on call.",
        "Log through structured logger.",
        Context("It keeps production output searchable"),
    ),
    case(
        "an example dropped",
        "Name feature branches after their ticket. For example, a branch for a billing ticket starts with billing.",
        "Feature branches named after ticket.",
        Context("For example"),
    ),
    // ---- review: how widely or how strongly it applies ----
    case(
        "a qualifier lost: explicitly",
        "Rename public symbols only when the maintainer explicitly asks for it.",
        "Rename public symbols only when the maintainer asks.",
        ReviewChange("qualifier"),
    ),
    case(
        "a qualifier lost: gradually",
        "Gradually move the old handlers onto the new router.",
        "Move old handlers onto new router.",
        ReviewChange("qualifier"),
    ),
    case(
        "a preference hardened into an absolute",
        "Prefer composition over inheritance for shared behaviour.",
        "Always composition, never inheritance, for shared behaviour.",
        ReviewChange("strength"),
    ),
    // ---- flagged: surely lost ----
    case(
        "an instruction deleted",
        "Keep functions short. Back up the staging database before every schema migration. Name tables in the plural.",
        "Keep functions short. Name tables in the plural.",
        FlaggedInstruction("Back up the staging database"),
    ),
    case(
        "a negation flipped",
        "Never force-push to the release branch.",
        "Force-push to the release branch.",
        FlaggedChange("negation"),
    ),
    case(
        "a value changed",
        "Retry a failed upload at most 3 times.",
        "Retry failed upload at most 5 times.",
        FlaggedFact("3"),
    ),
    // A script without spaces between words is read a character at a time (regression:
    // a whole Chinese sentence or list lead-in was one word, so any rewording of it read
    // as "no counterpart" and a lead-in ending in a full-width colon read as a rule).
    case(
        "a Chinese rule reworded tersely",
        "## 规则\n\n1. **部署前检查**：\n   - 每次发布之前，必须先运行全部的单元测试。\n   - 发布之后请在群里通知值班同事。\n",
        "## 规则\n\n1. **部署前**：\n   - 发布前必须运行全部单元测试。\n   - 发布后在群里通知值班同事。\n",
        Quiet,
    ),
    // ---- what a unit is, and the words a section and a fact line carry ----
    case(
        "a must dropped from a rule stated in the present",
        "Release notes must list every migration. Tag the release after the notes are merged.",
        "Release notes list every migration. Tag release after notes merged.",
        Quiet,
    ),
    case(
        "a description of the agent left out",
        "You are both planner and reviewer on this team. Plan each task in writing before coding it.",
        "Plan each task in writing before coding it.",
        Context("You are both planner and reviewer"),
    ),
    case(
        "a list intro left out, its items kept",
        "Here are the failures you should watch for in the nightly job:\n\n- a full disk on the runner\n- expired signing credentials\n",
        "- full disk on runner\n- expired signing credentials\n",
        Context("failures you should watch for"),
    ),
    case(
        "a purpose clause left out",
        "Run the linter before every commit to keep the shared history readable.",
        "Run linter before every commit.",
        Context("to keep the shared history readable"),
    ),
    case(
        "a need to keep something is no purpose clause",
        "Before a release you need to keep the changelog in step with the tags. Sign every tag.",
        "Sign every tag.",
        FlaggedInstruction("changelog"),
    ),
    case(
        "a reference line dropped with its path",
        "## Paths\n\n- **Logs**: `var/log/shop/`\n- **Thumbnails**: `var/cache/thumbs/`\n\nKeep both out of backups.\n",
        "## Paths\n\n- **Logs**: `var/log/shop/`\n\nKeep both out of backups.\n",
        FlaggedInstruction("Thumbnails"),
    ),
    case(
        "a reference line reworded, its name kept",
        "- `BILLING_KEY` — the secret key for the billing service\n- `MAIL_HOST` — where outgoing mail is sent\n",
        "- `BILLING_KEY`: billing service secret key\n- `MAIL_HOST`: outgoing mail host\n",
        Quiet,
    ),
    case(
        "a quantified phrase lost its modifier",
        "Read the design notes before building any new screen. Keep components small.",
        "Read design notes before building any screen. Keep components small.",
        // One finding, in the layer that names its kind (the change layer's restriction
        // check), not a second one as a borderline instruction.
        ReviewChange("scope"),
    ),
    case(
        "a rule cut to its last step keeps too little to be sure either way",
        "Always confirm the delivery address with the customer before you book the courier. Keep answers short.",
        "Book courier. Keep answers short.",
        ReviewInstruction("confirm the delivery address"),
    ),
    case(
        "a vague modifier left out of a quantified phrase",
        "Link any related tickets in the description. Keep components small.",
        "Link any tickets in description. Keep components small.",
        Quiet,
    ),
    case(
        "a contrast left out of a rule kept whole",
        "Log the request id on every error, not the full request body. Rotate logs weekly.",
        "Log the request id on every error. Rotate logs weekly.",
        Quiet,
    ),
    case(
        "a verb said with its noun",
        "When reporting a failed deploy, paste the exact log lines rather than describing the failure.",
        "Failed deploy report: paste exact log lines, not descriptions of failure.",
        Quiet,
    ),
    case(
        "an irregular past asked as a question",
        "If you find a flaky test while fixing something else, open a separate ticket for it.",
        "Found flaky test while fixing something else? Separate ticket.",
        Quiet,
    ),
    case(
        "the writer describing themself left out",
        "I can review a diff faster than a summary of it. Send diffs, not summaries.",
        "Send diffs, not summaries.",
        Context("I can review a diff"),
    ),
];

fn verdict(case: &Case) -> Option<String> {
    let report = check(case.original, case.proposal);
    let status = report.status();
    let change = |kind: &str, confidence: Confidence| {
        report
            .changed
            .iter()
            .any(|c| c.kind.name() == kind && c.confidence() == confidence)
    };
    let ok = match case.expect {
        Quiet => status == "clean",
        Context(text) => {
            status == "clean" && report.context_dropped.iter().any(|c| c.text.contains(text))
        }
        ReviewChange(kind) => status == "review" && change(kind, Confidence::Review),
        FlaggedChange(kind) => status == "flagged" && change(kind, Confidence::High),
        FlaggedInstruction(text) => {
            status == "flagged"
                && report
                    .dropped_instructions
                    .iter()
                    .any(|d| d.text.contains(text) && d.confidence == Confidence::High)
        }
        ReviewInstruction(text) => {
            status == "review"
                && report.dropped_instructions.iter().any(|d| {
                    (d.text.contains(text) || d.reason.contains(text))
                        && d.confidence == Confidence::Review
                })
        }
        FlaggedFact(value) => {
            status == "flagged" && report.dropped.iter().any(|f| f.value == value)
        }
    };
    (!ok).then(|| {
        format!(
            "{}: {status}: {}\n  changed {:?}\n  instructions {:?}\n  context {:?}",
            case.name,
            report.summary(),
            report
                .changed
                .iter()
                .map(|c| (c.kind.name(), c.message.as_str()))
                .collect::<Vec<_>>(),
            report
                .dropped_instructions
                .iter()
                .map(|d| (d.text.as_str(), d.reason.as_str(), d.confidence))
                .collect::<Vec<_>>(),
            report.context_dropped
        )
    })
}

#[test]
fn every_telegraphic_pair_comes_out_as_expected() {
    let failures: Vec<String> = CASES.iter().filter_map(verdict).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_review_finding_never_blocks_and_a_high_one_does() {
    let review = check(
        "Refactor only when explicitly asked.",
        "Refactor only when asked.",
    );
    assert_eq!(review.status(), "review");
    assert!(!review.is_flagged() && !review.is_clean());
    let flagged = check("Never force-push.", "Force-push.");
    assert_eq!(flagged.status(), "flagged");
    assert!(flagged.is_flagged());
}

/// A table row whose quoted cell runs `!!!` into a contraction made two tokens overlap,
/// and reading the gap between them for a `|` sliced backwards: `begin > end`.
#[test]
fn a_table_row_with_shouted_contractions_does_not_panic() {
    let original = "| Tone | Sample |\n| --- | --- |\n\
        | Loud | \"Yes!!! We can't stop!!! Let's GO!!!\" |\n| Calm | 'Fine, we'll see.' |\n\n\
        Always reply in English.\n";
    for proposal in ["Always reply in English.", "", original] {
        let report = check(original, proposal);
        assert!(!report.status().is_empty());
    }
}
