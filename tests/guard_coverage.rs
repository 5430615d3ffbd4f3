//! The guard's third layer on pairs written for it (issue 22): an instruction of the
//! original without a counterpart in the proposal is reported in `dropped_instructions`
//! with its text and line, a list that lost items names them, number words and
//! identifiers are facts, and honest compression (merged sentences, filler, hedges,
//! repetition, a preface, a thank-you, a reordered or reshaped list, synonyms) stays
//! clean. Several pairs are the bundled briefs' own items (`briefs/*/items/`).

use briefkit::guard::{Report, check};

/// What a pair must come out as.
enum Expect {
    /// Flagged, with a dropped instruction whose text contains the first string, on
    /// this line of the original, and (when given) these list items gone.
    Instruction(&'static str, usize, &'static [&'static str]),
    /// Flagged, with this fact dropped (kind, value as written).
    Fact(&'static str, &'static str),
    /// Flagged with a change of this kind (`value`, `negation`, …).
    Changed(&'static str),
    Quiet,
}

use Expect::*;

type Case = crate::common::pairs::Case<Expect>;
use crate::common::pairs::{assert_sixty_half_flagged, case};

const HOUSE_RULES: &str = "House rules for every reply:\n\n- Answer in the customer's language.\n- Keep replies under 150 words.\n- Never share another customer's data.\n- Offer a human agent when the customer is upset.\n";

const PROCEDURE: &str = "To change a booking:\n\n1. Look up the booking with its reference.\n2. Verify the caller's identity with their date of birth.\n3. Make the change and confirm it by e-mail.\n";

const POLICY: &str = "# Damaged goods\n\nAsk the customer for a photo of the damage before you do anything else. \
Check the order date with lookup_order. Orders older than 60 days go to the warranty desk, \
not to you. For newer orders, offer a replacement first and a refund only if the customer \
declines the replacement. Never ask the customer to send the item back unless the warranty \
desk requests it. Log every case in the damage register with the photo attached.\n";

/// A field list where some items are marked as required: the mark is the instruction.
const ORDER_FIELDS: &str = "Each order record carries these fields:\n\n- `order_id` (required): the shop reference;\n- `email` (required): where receipts are sent;\n- `gift_note`: text the buyer added at checkout.\n\nDrop a field that is empty.\n";

/// A rule whose only words in common with the rule before it are common ones
/// (`documents`, `answer`): what it adds is its own word (`conflict`).
const LAW_READER: &str = "You are a reading assistant for a law firm. Answer each question from the attached documents alone. Where documents conflict, answer from each. Stay under 200 words. Cite the page of every quote. Use plain English. Name the clause you rely on. Flag anything that looks like a deadline. Write dates with the month spelled out. Mark every guess as a guess.\n";

const LAW_READER_WITHOUT_CONFLICTS: &str = "You are a reading assistant for a law firm. Answer each question from the attached documents alone. Stay under 200 words. Cite the page of every quote. Use plain English. Name the clause you rely on. Flag anything that looks like a deadline. Write dates with the month spelled out. Mark every guess as a guess.\n";

const CASES: &[Case] = &[
    // ---- the examples of the issue ----
    case(
        "a whole policy replaced by one word",
        POLICY,
        "ok",
        Instruction("Ask the customer for a photo of the damage", 3, &[]),
    ),
    case(
        "the middle sentence gone",
        "Be friendly. Never promise a delivery date to the customer. Use the customer's first name.",
        "Be friendly. Use the customer's first name.",
        Instruction("Never promise a delivery date to the customer", 1, &[]),
    ),
    case(
        "a numbered procedure without its identity check",
        PROCEDURE,
        "To change a booking:\n\n1. Look up the booking with its reference.\n2. Make the change and confirm it by e-mail.\n",
        Instruction(
            "Verify the caller's identity with their date of birth",
            4,
            &[],
        ),
    ),
    case(
        "a list of house rules cut after the second bullet",
        HOUSE_RULES,
        "House rules for every reply:\n\n- Answer in the customer's language.\n- Keep replies under 150 words.\n",
        Instruction("Never share another customer's data", 5, &[]),
    ),
    case(
        "the last house rule is reported too",
        HOUSE_RULES,
        "House rules for every reply:\n\n- Answer in the customer's language.\n- Keep replies under 150 words.\n",
        Instruction("Offer a human agent when the customer is upset", 6, &[]),
    ),
    case(
        "a tool rule removed",
        "Greet the customer by name.\nCall lookup_order before you answer any question about an order.\n",
        "Greet the customer by name.\n",
        Instruction("Call lookup_order before you answer", 2, &[]),
    ),
    case(
        "the tool name is a fact",
        "Greet the customer by name.\nCall lookup_order before you answer any question about an order.\n",
        "Greet the customer by name.\n",
        Fact("identifier", "lookup_order"),
    ),
    case(
        "a limit written in words removed",
        "Be polite.\nA booking holds at most five passengers.\n",
        "Be polite.\n",
        Instruction("A booking holds at most five passengers", 2, &[]),
    ),
    case(
        "the number word is a fact",
        "Be polite.\nA booking holds at most five passengers.\n",
        "Be polite.\n",
        Fact("number", "five"),
    ),
    case(
        "the 5 survives elsewhere, its sentence does not",
        "Each reservation can have at most 5 passengers. Refunds take 5 business days.",
        "Refunds take 5 business days.",
        Instruction("Each reservation can have at most 5 passengers", 1, &[]),
    ),
    case(
        "the 5 that survives elsewhere lost its binding",
        "Each reservation can have at most 5 passengers. Refunds take 5 business days.",
        "Refunds take 5 business days.",
        Changed("value"),
    ),
    case(
        "a partly kept list names the items that went",
        "Do not give medical, legal, financial or tax advice.",
        "Do not give medical advice.",
        Instruction(
            "Do not give medical, legal, financial or tax advice",
            1,
            &["legal", "financial", "tax advice"],
        ),
    ),
    // ---- more instructions that went ----
    case(
        "a clause of a sentence dropped",
        "Greet the customer, confirm the order number, and thank them for waiting.",
        "Greet the customer and thank them for waiting.",
        Instruction("confirm the order number", 1, &[]),
    ),
    case(
        "an item under a negative lead-in dropped",
        "Never discuss:\n\n- politics\n- religion\n- competitor prices\n",
        "Never discuss:\n\n- politics\n- religion\n",
        Instruction("competitor prices", 5, &[]),
    ),
    case(
        "a table row dropped",
        "| Situation | What to do |\n| --- | --- |\n| Damaged item | Offer a replacement parcel |\n| Late parcel | Apologise and offer a voucher |\n",
        "| Situation | What to do |\n| --- | --- |\n| Damaged item | Offer a replacement parcel |\n",
        Instruction("Late parcel", 4, &[]),
    ),
    case(
        "the agent's scope dropped from its identity",
        "You are Nova, the booking assistant of Skyline Air. You only handle bookings, never payments.",
        "You are Nova, the booking assistant of Skyline Air.",
        Instruction("You only handle bookings, never payments", 1, &[]),
    ),
    case(
        "an always rule dropped",
        "Answer in British English.\nAlways quote fares with taxes included.\nSign off with your name.\n",
        "Answer in British English.\nSign off with your name.\n",
        Instruction("Always quote fares with taxes included", 2, &[]),
    ),
    case(
        "an exception rule dropped",
        "Offer the loyalty discount to returning customers.\nUnless the customer asks, do not mention seat upgrades.\n",
        "Offer the loyalty discount to returning customers.\n",
        Instruction(
            "Unless the customer asks, do not mention seat upgrades",
            2,
            &[],
        ),
    ),
    case(
        "an order between steps dropped",
        "Look up the account first.\nWait for the tool result before replying to the user.\n",
        "Look up the account first.\n",
        Instruction("Wait for the tool result before replying", 2, &[]),
    ),
    case(
        "a whole section dropped with its heading",
        "## Tone\n\nBe warm and brief.\n\n## Escalation\n\nEscalate to a supervisor when a customer threatens legal action.\n",
        "## Tone\n\nBe warm and brief.\n",
        Instruction(
            "Escalate to a supervisor when a customer threatens legal action",
            7,
            &[],
        ),
    ),
    case(
        "a coding rule with a command dropped",
        "Keep commits small.\nRun `cargo test` before every commit.\n",
        "Keep commits small.\n",
        Instruction("before every commit", 2, &[]),
    ),
    case(
        "an environment variable dropped",
        "Read the key from OPENAI_API_KEY and never print it.\nUse the staging server for tests.\n",
        "Never print the key.\nUse the staging server for tests.\n",
        Fact("identifier", "OPENAI_API_KEY"),
    ),
    case(
        "paths dropped with their rule",
        "Never edit files under vendor/ or generated/.\nFormat code with rustfmt.\n",
        "Format code with rustfmt.\n",
        Fact("identifier", "vendor/"),
    ),
    case(
        "a flag dropped",
        "Always run the migration with --dry-run first, then without it.\n",
        "Always run the migration first.\n",
        Fact("identifier", "--dry-run"),
    ),
    case(
        "a number word bound to its noun lost the binding",
        "Ask at most two clarifying questions. Offer two options when the customer is unsure.",
        "Offer two options when the customer is unsure.",
        Changed("value"),
    ),
    case(
        "twice is a fact",
        "Retry a failed call twice, then escalate.",
        "Retry a failed call, then escalate.",
        Fact("number", "twice"),
    ),
    case(
        "seven days is a fact",
        "Reply to complaints within seven days.",
        "Reply to complaints promptly.",
        Fact("number", "seven"),
    ),
    case(
        "a hundred words is a fact",
        "Keep the summary under a hundred words.",
        "Keep the summary short.",
        Fact("number", "a hundred"),
    ),
    case(
        "a must rule dropped among others",
        "Use the customer's first name.\nYou must log every refund in the ledger.\nEnd with a question.\n",
        "Use the customer's first name.\nEnd with a question.\n",
        Instruction("You must log every refund in the ledger", 2, &[]),
    ),
    case(
        "an only rule dropped",
        "Speak for the shop.\nOnly managers may approve price matches.\n",
        "Speak for the shop.\n",
        Instruction("Only managers may approve price matches", 2, &[]),
    ),
    case(
        "a do-not rule dropped from a list",
        "- Use plain words.\n- Do not use emojis.\n- Sign every reply.\n",
        "- Use plain words.\n- Sign every reply.\n",
        Instruction("Do not use emojis", 2, &[]),
    ),
    case(
        "bundled support refunds: a never rule dropped",
        include_str!("guard_rewrites/support-refunds.original.md"),
        "# Refunds\n\n- You may refund up to $150.00 per order without approval. Anything above $150.00 goes to a\n  human agent.\n- Refunds are possible within 30 days of delivery. After 30 days, offer store credit\n  instead, never cash.\n- Never promise a refund before the order lookup confirms the delivery date.\n",
        Instruction(
            "Never refund shipping on orders that used the free-shipping offer",
            7,
            &[],
        ),
    ),
    case(
        "bundled support escalation: a trigger dropped",
        include_str!("guard_rewrites/support-escalation.original.md"),
        "Hand the conversation to a human agent, and say that you are doing so, when:\n\n1. the customer asks for a person, a manager or a supervisor;\n2. a refund above $150.00 is requested.\n\nNever argue with a customer about whether an escalation is needed.\n",
        Instruction(
            "the customer mentions an injury, a safety hazard or legal action",
            5,
            &[],
        ),
    ),
    case(
        "bundled compressor answer: the unchanged case dropped",
        include_str!("guard_rewrites/compressor-answer.original.md"),
        "Answer with the rewritten section alone: no preface, no explanation, no notes, and no code\nfence around the whole answer.\n",
        Instruction("If nothing can be removed without losing meaning", 2, &[]),
    ),
    case(
        "bundled compaction keep: never invent dropped",
        include_str!("guard_rewrites/compaction-keep.original.md"),
        "- Keep every fact the agent still needs, written out exactly: numbers, amounts, dates,\n  identifiers, names, URLs, file paths, commands and error messages.\n- Keep what was decided and why, what is finished, what is still open, and what is\n  blocking the work, including errors that are not resolved.\n- Name every file or component that was changed or is about to be changed.\n- Leave out greetings, repetition, dead ends that taught nothing, and raw tool output\n  whose conclusion you have already kept.\n",
        Instruction("Never invent a fact", 8, &[]),
    ),
    case(
        "bundled support tone: avoid exclamation marks dropped",
        include_str!("guard_rewrites/support-tone.original.md"),
        "Keep answers short: two or three sentences is usually enough, and never more than 120 words\nunless the customer asks for detail. Use plain language. Keep answers short and to the point,\nbecause long answers are hard to read on a phone.\n\nFormat order summaries as a short list. Quote prices with the currency symbol and two\ndecimals, like $19.50.\n",
        Instruction("avoid exclamation marks", 2, &[]),
    ),
    case(
        "bundled support returns: the gift rule dropped",
        include_str!("guard_rewrites/support-returns.original.md"),
        include_str!("guard_coverage/returns-without-gifts.md"),
        Instruction(
            "Gift orders can be returned by the recipient for store credit only",
            27,
            &[],
        ),
    ),
    case(
        "bundled support identity: saying so dropped",
        include_str!("guard_rewrites/support-identity.original.md"),
        "You are Juniper, the support assistant for Northwind Outfitters, an online shop that sells\ntents, packs, stoves and outdoor clothing. You help customers with orders, returns, shipping\nand product questions.\n",
        Instruction(
            "when you do not know something, you say so and offer to find out",
            7,
            &[],
        ),
    ),
    case(
        "bundled compaction role: the deleted history dropped",
        include_str!("guard_rewrites/compaction-role.original.md"),
        "You condense the working memory of another AI agent. You receive its whole conversation\nhistory: messages, tool calls and tool results, each marked with an id in square brackets.\nThe agent continues its work from your answer and a short instruction.\n",
        Instruction("your answer becomes the agent's only memory of it", 3, &[]),
    ),
    // ---- honest compression: must stay quiet ----
    case(
        "two sentences merged",
        "Ask for the order number. Do not guess it.",
        "Ask for the order number and do not guess it.",
        Quiet,
    ),
    case(
        "please note that dropped",
        "Please note that refunds take 5 business days to arrive.",
        "Refunds take 5 business days to arrive.",
        Quiet,
    ),
    case(
        "basically dropped",
        "Basically, you should always confirm the delivery address before you ship.",
        "Always confirm the delivery address before shipping.",
        Quiet,
    ),
    case(
        "as mentioned above dropped",
        "Never share passwords.\n\nAs mentioned above, never share passwords, not even with colleagues.\n",
        "Never share passwords, not even with colleagues.\n",
        Quiet,
    ),
    case(
        "a duplicate sentence dropped",
        "Verify the caller's identity. Look up the order. Verify the caller's identity.",
        "Verify the caller's identity. Look up the order.",
        Quiet,
    ),
    case(
        "a thank-you dropped",
        "Answer in English. Offer a human agent on request.\n\nThank you for helping our customers!\n",
        "Answer in English. Offer a human agent on request.\n",
        Quiet,
    ),
    case(
        "a section preface dropped",
        "## Refunds\n\nThis section explains how refunds work. Please read the following rules carefully.\n\n- Refund within 30 days of delivery.\n- Never refund gift cards.\n",
        "## Refunds\n\n- Refund within 30 days of delivery.\n- Never refund gift cards.\n",
        Quiet,
    ),
    case(
        "the known false flag: if at all possible",
        "Keep the summary under a hundred words if at all possible.",
        "Keep the summary under a hundred words if possible.",
        Quiet,
    ),
    case(
        "a hedge and an intensifier dropped",
        "It is really very important that you always double-check the order number.",
        "Always double-check the order number.",
        Quiet,
    ),
    case(
        "make sure to dropped",
        "Make sure to verify the caller's identity before you change a booking.",
        "Verify the caller's identity before changing a booking.",
        Quiet,
    ),
    case(
        "a list reordered",
        "- Use plain words.\n- Do not use emojis.\n- Sign every reply.\n",
        "- Sign every reply.\n- Use plain words.\n- Do not use emojis.\n",
        Quiet,
    ),
    case(
        "a vertical list written as one sentence",
        "Never discuss:\n\n- politics\n- religion\n- competitor prices\n",
        "Never discuss politics, religion or competitor prices.\n",
        Quiet,
    ),
    case(
        "a sentence written as a list",
        "Do not give medical, legal or tax advice.",
        "Do not give:\n\n- medical advice\n- legal advice\n- tax advice\n",
        Quiet,
    ),
    case(
        "a synonym",
        "Be concise and polite.",
        "Be brief and courteous.",
        Quiet,
    ),
    case(
        "a restated rule kept once",
        "Keep answers short. Long answers are hard to read on a phone, so keep every answer short.",
        "Keep answers short: long answers are hard to read on a phone.",
        Quiet,
    ),
    case(
        "remember that dropped",
        "Remember that refunds take 5 business days.",
        "Refunds take 5 business days.",
        Quiet,
    ),
    case(
        "steps written as a numbered list",
        "First, look up the order. Then answer the question.",
        "1. Look up the order.\n2. Answer the question.\n",
        Quiet,
    ),
    case(
        "under any circumstances as never",
        "Do not, under any circumstances, share passwords.",
        "Never share passwords.",
        Quiet,
    ),
    case(
        "must always as always",
        "You must always reply in English.",
        "Always reply in English.",
        Quiet,
    ),
    case(
        "a preface and a closing line dropped",
        "Here are your instructions for today.\n\nGreet each guest by name. Offer a drink on arrival.\n\nGood luck!\n",
        "Greet each guest by name. Offer a drink on arrival.\n",
        Quiet,
    ),
    case(
        "a heading renamed",
        "## How to talk to customers\n\nBe warm. Never use slang.\n",
        "## Tone\n\nBe warm. Never use slang.\n",
        Quiet,
    ),
    case(
        "a condition moved to the front",
        "Apologise first if the parcel is late.",
        "If the parcel is late, apologise first.",
        Quiet,
    ),
    case(
        "active to passive",
        "The agent must verify the caller's identity before any change.",
        "Before any change, the caller's identity must be verified by the agent.",
        Quiet,
    ),
    case(
        "basically and please in a list",
        "- Please always greet the customer.\n- Basically, never promise a delivery date.\n",
        "- Always greet the customer.\n- Never promise a delivery date.\n",
        Quiet,
    ),
    case(
        "a long paragraph compressed",
        POLICY,
        "# Damaged goods\n\nFirst ask for a photo of the damage. Check the order date with lookup_order; \
orders older than 60 days go to the warranty desk, not you. For newer orders offer a replacement \
first, and a refund only if the customer declines it. Never ask for the item back unless the warranty \
desk requests it. Log every case in the damage register, photo attached.\n",
        Quiet,
    ),
    case(
        "bundled support shipping compressed",
        include_str!("guard_rewrites/support-shipping.original.md"),
        "## Shipping\n\nStandard shipping: 3 to 5 business days, $7.95; free over $75. Express: 1–2 business days,\n$19.50, contiguous United States only.\n\nWhen asked where an order is, look it up first with `lookup_order`. If the carrier shows no\nmovement for more than 7 days, treat the parcel as lost and escalate.\n\nTracking: https://northwind.example.com/track?order={order_id}; policy:\nhttps://northwind.example.com/help/shipping.\n",
        Quiet,
    ),
    case(
        "bundled support tone with its repetition dropped",
        include_str!("guard_rewrites/support-tone.original.md"),
        "Keep answers short: two or three sentences is usually enough, and never more than 120 words\nunless the customer asks for detail. Use plain language, and avoid exclamation marks: long\nanswers are hard to read on a phone.\n\nFormat order summaries as a short list. Quote prices with the currency symbol and two\ndecimals, like $19.50.\n",
        Quiet,
    ),
    case(
        "bundled compressor keep as a shorter list",
        include_str!("guard_rewrites/compressor-keep.original.md"),
        "Keep exactly as written:\n\n- every number, amount, price, currency, percentage, limit, date, time and version;\n- every URL, e-mail address and file path;\n- every code block and inline code span, byte for byte;\n- every template placeholder, such as `{{name}}`, `{name}`, `${NAME}` or `{% tag %}`;\n- every name of a tool, product, person, field or command.\n\nKeep the force of every instruction (\"must\", \"never\", \"always\", \"only\", \"do not\"), and drop no\ncondition, exception or order of steps.\n",
        Quiet,
    ),
    case(
        "a greeting dropped",
        "Hi there! You are the front desk assistant of the Harbour Hotel. Check guests in and out.",
        "You are the front desk assistant of the Harbour Hotel. Check guests in and out.",
        Quiet,
    ),
    case(
        "a repeated list item dropped",
        "- Reply in French.\n- Never quote prices.\n- Reply in French.\n",
        "- Reply in French.\n- Never quote prices.\n",
        Quiet,
    ),
    case(
        "required reworded as needs",
        "A ticket number is required for every refund.",
        "Every refund needs a ticket number.",
        Quiet,
    ),
    case(
        "a coding rule compressed",
        "Before you commit, always run `cargo fmt` and `cargo clippy`, and make sure that all of the tests pass.",
        "Before committing, always run `cargo fmt` and `cargo clippy` and make sure all tests pass.",
        Quiet,
    ),
    case(
        "before reworded as first and then",
        "Look up the order before you answer.",
        "First look up the order, then answer.",
        Quiet,
    ),
    case(
        "lines reflowed",
        "Never promise a refund before the order lookup\nconfirms the delivery date.",
        "Never promise a refund before the order lookup confirms the\ndelivery date.",
        Quiet,
    ),
    case(
        "bundled escalation with the list inlined",
        include_str!("guard_rewrites/support-escalation.original.md"),
        "Hand the conversation to a human agent, and say so, when the customer asks for a person, a\nmanager or a supervisor; when a refund above $150.00 is requested; or when the customer mentions an\ninjury, a safety hazard or legal action. Never argue with a customer about whether an escalation\nis needed.\n",
        Quiet,
    ),
    // ---- obligations and a sentence's own words (found on the sub-agent briefs) ----
    case(
        "a field lost its required mark",
        ORDER_FIELDS,
        "Each order record carries these fields:\n\n- `order_id` (required): the shop reference;\n- `email`: where receipts are sent;\n- `gift_note`: text the buyer added at checkout.\n\nDrop a field that is empty.\n",
        Instruction("required", 4, &[]),
    ),
    case(
        "a field list compressed with its required marks",
        ORDER_FIELDS,
        "Fields of an order record:\n\n- `order_id` (required): shop reference;\n- `email` (required): where receipts go;\n- `gift_note`: buyer text from checkout.\n\nDrop empty fields.\n",
        Quiet,
    ),
    case(
        "required fields gathered under a lead-in",
        ORDER_FIELDS,
        "Required fields of each order record:\n\n- `order_id`: the shop reference;\n- `email`: where receipts are sent.\n\nAlso `gift_note`: text the buyer added at checkout. Drop a field that is empty.\n",
        Quiet,
    ),
    // Telegraphic rewrites state every rule in the plain present: on real rewrites
    // none of the `must` that went was a loss (0 of 11 reports right).
    case(
        "a must dropped from a rule that keeps its words",
        "Every ticket must carry a priority. Close a ticket only after the customer confirms.\n",
        "Every ticket carries a priority. Close a ticket only after the customer confirms.\n",
        Quiet,
    ),
    case(
        "a must turned into an imperative",
        "Every ticket must carry a priority. Close a ticket only after the customer confirms.\n",
        "Give every ticket a priority. Close tickets only once the customer confirms.\n",
        Quiet,
    ),
    case(
        "a rule dropped that shared only common words with its neighbour",
        LAW_READER,
        LAW_READER_WITHOUT_CONFLICTS,
        Instruction("Where documents conflict", 1, &[]),
    ),
    case(
        "a rule merged into its neighbour",
        LAW_READER,
        "Reading assistant for a law firm. Answer each question from the attached documents alone, and from each where they conflict. Stay under 200 words. Cite the page of every quote. Use plain English. Name the clause you rely on. Flag anything that looks like a deadline. Write dates with the month spelled out. Mark every guess as a guess.\n",
        Quiet,
    ),
    case(
        "a rule kept beside its neighbour, the rest compressed",
        LAW_READER,
        "You are a law firm's reading assistant. Answer each question from the attached documents alone; where documents conflict, answer from each. Under 200 words. Cite the page of every quote. Plain English. Name the clause you rely on. Flag anything that looks like a deadline. Spell out the month in dates. Mark every guess as one.\n",
        Quiet,
    ),
];

fn describe(report: &Report) -> String {
    format!(
        "{}\n  dropped {:?}\n  changed {:?}\n  instructions {:#?}",
        report.summary(),
        report
            .dropped
            .iter()
            .map(|f| (f.kind.name(), f.value.as_str()))
            .collect::<Vec<_>>(),
        report
            .changed
            .iter()
            .map(|c| c.message.as_str())
            .collect::<Vec<_>>(),
        report.dropped_instructions
    )
}

fn verdict(case: &Case) -> Option<String> {
    let report = check(case.original, case.proposal);
    let ok = match case.expect {
        Quiet => report.is_clean(),
        Instruction(text, line, items) => {
            !report.is_clean()
                && report.dropped_instructions.iter().any(|d| {
                    d.text.contains(text)
                        && d.line == line
                        && (items.is_empty() || d.items == items)
                })
        }
        Fact(kind, value) => {
            !report.is_clean()
                && report
                    .dropped
                    .iter()
                    .any(|f| f.kind.name() == kind && f.value == value)
        }
        Changed(kind) => !report.is_clean() && report.changed.iter().any(|c| c.kind.name() == kind),
    };
    (!ok).then(|| format!("{}: {}", case.name, describe(&report)))
}

#[test]
fn the_table_has_sixty_pairs_half_flagged_half_quiet() {
    let quiet = CASES.iter().filter(|c| matches!(c.expect, Quiet)).count();
    assert_sixty_half_flagged(CASES, CASES.len() - quiet);
}

#[test]
fn every_pair_is_flagged_or_quiet_as_expected() {
    let failures: Vec<String> = CASES.iter().filter_map(verdict).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
