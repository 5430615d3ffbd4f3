//! The guard's second layer on pairs written for it: a value that survives but moved (to
//! another unit, bound, noun or subject) and a constraint that flipped or was lost are
//! reported as `changed`; honest rewording (active/passive, fronted clauses, contractions,
//! equivalent bounds, reordered sentences) stays quiet. Several pairs rewrite sentences of
//! the bundled support brief (`briefs/support/items/`).

use briefkit::guard::{ChangeKind, check};

/// The kind of change expected, or `None` for a rewrite that must stay quiet.
type Case = crate::common::pairs::Case<Option<ChangeKind>>;
use crate::common::pairs::{assert_sixty_half_flagged, case};

use ChangeKind::*;

const fn flag(
    name: &'static str,
    original: &'static str,
    proposal: &'static str,
    kind: ChangeKind,
) -> Case {
    case(name, original, proposal, Some(kind))
}

const fn quiet(name: &'static str, original: &'static str, proposal: &'static str) -> Case {
    case(name, original, proposal, None)
}

const CASES: &[Case] = &[
    // ---- the examples of the issue ----
    flag(
        "tiers swapped",
        "Gold members get 3 free bags; silver members get 1 free bag.",
        "Gold members get 1 free bag; silver members get 3 free bags.",
        Subject,
    ),
    flag(
        "window changed while the number survives elsewhere",
        "Refunds are possible within 30 days of delivery. After 30 days, offer store credit instead.",
        "Refunds are possible within 60 days of delivery. After 30 days, offer store credit instead.",
        Value,
    ),
    flag(
        "number words swapped while both survive",
        "Refunds take five business days. After thirty days, offer store credit.",
        "Refunds take thirty business days. After five days, offer store credit.",
        Value,
    ),
    flag(
        "megabytes became gigabytes",
        "Attachments are limited to 10 MB per file.",
        "Attachments are limited to 10 GB per file.",
        Unit,
    ),
    flag(
        "over became under",
        "Free shipping applies to orders over $500.",
        "Free shipping applies to orders under $500.",
        Bound,
    ),
    flag(
        "cannot became can",
        "Confirmed bookings cannot be modified.",
        "Confirmed bookings can be modified.",
        Negation,
    ),
    flag(
        "must became may",
        "The agent must verify the caller's identity.",
        "The agent may verify the caller's identity.",
        Modality,
    ),
    flag(
        "never became always",
        "Never refund the delivery fee.",
        "Always refund the delivery fee.",
        Negation,
    ),
    flag(
        "do not share became share",
        "Do not share the customer's home address.",
        "Share the customer's home address.",
        Negation,
    ),
    flag(
        "only dropped",
        "Only gold members can book lounge access.",
        "Gold members can book lounge access.",
        Exclusivity,
    ),
    flag(
        "unless became if",
        "Offer a voucher unless the delay was caused by weather.",
        "Offer a voucher if the delay was caused by weather.",
        Condition,
    ),
    flag(
        "exception dropped",
        "Reply in English unless the user writes in French.",
        "Reply in English.",
        Condition,
    ),
    // ---- more that must flag ----
    flag(
        "minutes became hours",
        "Sessions time out after 30 minutes of inactivity.",
        "Sessions time out after 30 hours of inactivity.",
        Unit,
    ),
    flag(
        "milliseconds became seconds",
        "Keep the p95 latency below 200 ms.",
        "Keep the p95 latency below 200 s.",
        Unit,
    ),
    flag(
        "at least became at most",
        "Passwords need at least 12 characters.",
        "Passwords need at most 12 characters.",
        Bound,
    ),
    flag(
        "upper bound lost",
        "Ask at most 2 clarifying questions before acting.",
        "Ask 2 clarifying questions before acting.",
        Bound,
    ),
    flag(
        "lower bound added",
        "Each review needs 2 approvals.",
        "Each review needs at least 2 approvals.",
        Bound,
    ),
    flag(
        "before became after",
        "Fares booked before 2024-05-01 keep the old baggage rules.",
        "Fares booked after 2024-05-01 keep the old baggage rules.",
        Bound,
    ),
    flag(
        "counted noun changed",
        "Each reservation may include 3 checked bags.",
        "Each reservation may include 3 pets.",
        Noun,
    ),
    flag(
        "should became may",
        "Agents should confirm the order number first.",
        "Agents may confirm the order number first.",
        Modality,
    ),
    flag(
        "must became should",
        "You must escalate safety complaints to a human.",
        "You should escalate safety complaints to a human.",
        Modality,
    ),
    flag(
        "negation added",
        "Mention the loyalty discount to returning customers.",
        "Do not mention the loyalty discount to returning customers.",
        Negation,
    ),
    flag(
        "without dropped",
        "Issue refunds up to $150 without approval.",
        "Issue refunds up to $150 with approval.",
        Negation,
    ),
    flag(
        "exclusively dropped",
        "Use the sandbox exclusively for test payments.",
        "Use the sandbox for test payments.",
        Exclusivity,
    ),
    flag(
        "only added",
        "Escalate tickets from enterprise accounts.",
        "Escalate only tickets from enterprise accounts.",
        Exclusivity,
    ),
    flag(
        "except dropped",
        "All orders ship within 2 days except custom tents.",
        "All orders ship within 2 days.",
        Condition,
    ),
    flag(
        "condition dropped",
        "Waive the fee if the item arrived damaged.",
        "Waive the fee.",
        Condition,
    ),
    flag(
        "until dropped",
        "Hold the parcel until the customer confirms the address.",
        "Hold the parcel and confirm the address with the customer.",
        Condition,
    ),
    flag(
        "always became usually",
        "Always quote prices with two decimals.",
        "Usually quote prices with two decimals.",
        Absolute,
    ),
    flag(
        "instruction became permission",
        "Verify the email address on file.",
        "You may verify the email address on file.",
        Modality,
    ),
    flag(
        "lost negation in a rule of the bundled brief",
        "Never promise a refund before the order lookup confirms the delivery date.",
        "Promise a refund before the order lookup confirms the delivery date.",
        Negation,
    ),
    flag(
        "bundled brief: bound reversed",
        "Faulty items over $250 are inspected by the warranty team.",
        "Faulty items under $250 are inspected by the warranty team.",
        Bound,
    ),
    flag(
        "bundled brief: two windows swapped",
        "Sale items cannot be returned, but they can be exchanged for a different size within 14 days. The label is valid for 10 days.",
        "Sale items cannot be returned, but they can be exchanged for a different size within 10 days. The label is valid for 14 days.",
        Value,
    ),
    flag(
        "bundled brief: may refund became must refund",
        "You may refund up to $150.00 per order without approval.",
        "You must refund up to $150.00 per order without approval.",
        Modality,
    ),
    flag(
        "bundled brief: no movement lost its negation",
        "If the carrier shows no movement for more than 7 days, treat the parcel as lost.",
        "If the carrier shows movement for more than 7 days, treat the parcel as lost.",
        Negation,
    ),
    flag(
        "bundled brief: fewer than became more than",
        "Keep answers short: never more than 120 words.",
        "Keep answers short: never fewer than 120 words.",
        Bound,
    ),
    // ---- honest rewording: must stay quiet ----
    quiet(
        "active to passive",
        "The agent must verify the caller's identity.",
        "The caller's identity must be verified by the agent.",
    ),
    quiet(
        "fronted clause",
        "Apologise first if the delivery is late.",
        "If the delivery is late, apologise first.",
    ),
    quiet(
        "contraction",
        "Do not share the customer's home address.",
        "Don't share the customer's home address.",
    ),
    quiet(
        "cannot and can't",
        "Confirmed bookings cannot be modified.",
        "Confirmed bookings can't be modified.",
    ),
    quiet(
        "at most and no more than",
        "A booking holds at most five passengers.",
        "A booking holds no more than 5 passengers.",
    ),
    quiet(
        "at least and never fewer than",
        "Each order needs at least 2 photos.",
        "Each order needs never fewer than two photos.",
    ),
    quiet(
        "over and more than",
        "Free shipping applies to orders over $500.",
        "Orders of more than $500 ship free.",
    ),
    quiet(
        "under and below",
        "Keep the whole brief under 8K tokens.",
        "The brief must stay below 8,000 tokens.",
    ),
    quiet(
        "never more than and capped at",
        "Never offer more than a 15% goodwill discount.",
        "Goodwill discounts are capped at 15 percent.",
    ),
    quiet(
        "do not exceed and at most",
        "Do not exceed 3 retries per request.",
        "Retry a request at most 3 times.",
    ),
    quiet(
        "postfix bound",
        "Allow at most 4 guests per room.",
        "Rooms take 4 guests max.",
    ),
    quiet(
        "reordered sentences",
        "Refunds take 5 business days. Exchanges are free. Never charge for return labels.",
        "Never charge for return labels. Exchanges are free. Refunds take 5 business days.",
    ),
    quiet(
        "tiers reordered",
        "Gold members get 3 free bags and silver members get 1 free bag.",
        "Silver members get 1 free bag and gold members get 3 free bags.",
    ),
    quiet(
        "never and do not",
        "Never share internal notes with customers.",
        "Do not share internal notes with customers.",
    ),
    quiet(
        "must not and cannot",
        "Agents must not change a paid invoice.",
        "Agents cannot change a paid invoice.",
    ),
    quiet(
        "unless and if not",
        "Refund the ticket unless the flight departed.",
        "Refund the ticket if the flight has not departed.",
    ),
    quiet(
        "only moved in the sentence",
        "Only managers can approve refunds above $500.",
        "Refunds above $500 can be approved by managers only.",
    ),
    quiet(
        "unit respelled",
        "Uploads are limited to 10 MB per file.",
        "Each file may be up to 10 megabytes.",
    ),
    quiet(
        "hours abbreviated",
        "Cancel within 24 hours for a full refund.",
        "Full refund if cancelled within 24h.",
    ),
    quiet(
        "sentence split in two",
        "Verify the email on file and never reveal the full card number.",
        "Verify the email on file. Never reveal the full card number.",
    ),
    quiet(
        "two sentences merged",
        "Ask for the order number. Do not guess it.",
        "Ask for the order number and do not guess it.",
    ),
    quiet(
        "must dropped for an imperative",
        "You must always confirm the delivery address.",
        "Always confirm the delivery address.",
    ),
    quiet(
        "within lost in a compound",
        "Returns are accepted within 30 days of delivery.",
        "We offer 30-day returns from delivery.",
    ),
    quiet(
        "bundled brief: refund limits compressed",
        "You may refund up to $150.00 per order without approval. Anything above $150.00 goes to a human agent.",
        "Refunds up to $150 per order need no approval; anything above $150 goes to a human agent.",
    ),
    quiet(
        "bundled brief: store credit after 30 days",
        "Refunds are possible within 30 days of delivery. After 30 days, offer store credit instead, never cash.",
        "After 30 days, offer store credit, never cash. Refunds are possible within 30 days of delivery.",
    ),
    quiet(
        "bundled brief: shipping compressed",
        "Standard shipping takes 3 to 5 business days and costs $7.95. Orders over $75 ship free.",
        "Standard shipping: 3 to 5 business days, $7.95. Orders above $75 ship free.",
    ),
    quiet(
        "bundled brief: express only to the contiguous states",
        "Express shipping costs $19.50; it is only available to the contiguous United States.",
        "Express shipping ($19.50) is available only in the contiguous United States.",
    ),
    quiet(
        "bundled brief: tone",
        "Keep answers short: two or three sentences is usually enough, and never more than 120 words unless the customer asks for detail.",
        "Keep answers short: two or three sentences usually suffice, never more than 120 words unless the customer asks for detail.",
    ),
    quiet(
        "bundled brief: final sale",
        "Sale items marked \"final sale\" cannot be returned at all, but they can still be exchanged for a different size within 14 days.",
        "\"Final sale\" items can't be returned, but can be exchanged for another size within 14 days.",
    ),
    quiet(
        "bundled brief: warranty",
        "Faulty items over $250 are inspected by the warranty team, which replies within 3 business days; do not promise a replacement before that.",
        "The warranty team inspects faulty items over $250 and replies within 3 business days; don't promise a replacement before then.",
    ),
    quiet(
        "regression: a condition carried as a phrase (if the customer wants an exchange → for an exchange)",
        "If the customer wants an exchange, check that the new size is in stock before you promise it.",
        "For an exchange, check that the new size is in stock before promising it.",
    ),
    quiet(
        "if reworded as when",
        "If the carrier shows no movement, escalate the case.",
        "When the carrier shows no movement, escalate the case.",
    ),
    flag(
        "a condition dropped while a phrase keeps only its subject",
        "If the order is late, offer a voucher.",
        "Offer a voucher for the order.",
        Condition,
    ),
    quiet(
        "regression: a negation reworded into a prefix (not resolved → unresolved)",
        "Keep the errors that are not resolved.",
        "Keep unresolved errors.",
    ),
    flag(
        "a negation dropped, not reworded",
        "Report every error that is not resolved.",
        "Report every error that is resolved.",
        Negation,
    ),
    quiet(
        "regression: alone reworded as only",
        "Answer with the rewritten section alone.",
        "Answer with the rewritten section only.",
    ),
    quiet(
        "bundled brief: escalation",
        "Never argue with a customer about whether an escalation is needed.",
        "Don't ever argue with customers about whether escalation is needed.",
    ),
];

#[test]
fn the_table_has_sixty_pairs_half_flagged_half_quiet() {
    let flagged = CASES.iter().filter(|c| c.expect.is_some()).count();
    assert_sixty_half_flagged(CASES, flagged);
}

#[test]
fn every_pair_is_flagged_or_quiet_as_expected() {
    let mut failures = Vec::new();
    for case in CASES {
        let report = check(case.original, case.proposal);
        let kinds: Vec<ChangeKind> = report.changed.iter().map(|c| c.kind).collect();
        match case.expect {
            Some(kind) if !kinds.contains(&kind) || report.is_clean() => {
                failures.push(format!(
                    "{}: expected {kind:?}, got {:?}",
                    case.name, report.changed
                ));
            }
            None if !report.is_clean() => {
                failures.push(format!(
                    "{}: expected clean, got dropped {:?} changed {:?}",
                    case.name, report.dropped, report.changed
                ));
            }
            _ => {}
        }
        for change in &report.changed {
            if change.message.is_empty() || change.original.is_empty() || change.proposal.is_empty()
            {
                failures.push(format!("{}: a change without words: {change:?}", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_change_points_at_both_places() {
    let report = check(
        "# Limits\n\nFree shipping applies to orders over $500.\n",
        "Free shipping\napplies to orders under $500.\n",
    );
    assert_eq!(report.changed.len(), 1, "{:?}", report.changed);
    let change = &report.changed[0];
    assert_eq!(change.kind, Bound);
    assert_eq!((change.line, change.column), (3, 33));
    assert_eq!((change.proposal_line, change.proposal_column), (2, 19));
    assert_eq!(change.original, "over $500");
    assert_eq!(change.proposal, "under $500");
    assert!(change.message.contains("lower bound"), "{}", change.message);
}

#[test]
fn a_lost_constraint_names_the_word_and_both_sentences() {
    let report = check(
        "Greet the customer.\nDo not share the customer's home address.\n",
        "Greet the customer.\nShare the customer's home address.\n",
    );
    assert_eq!(report.changed.len(), 1, "{:?}", report.changed);
    let change = &report.changed[0];
    assert_eq!(change.kind, Negation);
    assert_eq!(change.original, "Do not share the customer's home address");
    assert_eq!(change.proposal, "Share the customer's home address");
    assert_eq!((change.line, change.column), (2, 4));
    assert_eq!((change.proposal_line, change.proposal_column), (2, 1));
    assert!(change.message.contains("`not`"), "{}", change.message);
}

#[test]
fn a_changed_value_is_a_drop_and_not_also_a_change() {
    let report = check(
        "Tokens expire after 24 hours.",
        "Tokens expire after 48 hours.",
    );
    assert_eq!(report.dropped.len(), 1);
    assert!(report.changed.is_empty(), "{:?}", report.changed);
}

/// Text in languages without a word table: faithful rewrites never flag, even where an
/// English word list would misread a word (`no` in Spanish, `die` in German).
const OTHER_LANGUAGES: &[(&str, &str)] = &[
    (
        "Rückerstattungen sind nur innerhalb von 30 Tagen möglich. Danach bieten Sie eine Gutschrift an, niemals Bargeld. Die Bearbeitung dauert höchstens 5 Werktage.",
        "Rückerstattungen sind innerhalb von 30 Tagen möglich; danach nur Gutschrift, kein Bargeld. Die Bearbeitung dauert maximal 5 Werktage.",
    ),
    (
        "No reembolse el envío en pedidos con envío gratuito. Los reembolsos de más de 150 dólares necesitan la aprobación de un supervisor.",
        "Los reembolsos de más de 150 dólares requieren aprobación del supervisor. El envío de pedidos con envío gratuito no se reembolsa.",
    ),
    (
        "Ne remboursez jamais les frais de port si la commande a utilisé l'offre de livraison gratuite. Les colis arrivent en 3 à 5 jours ouvrés.",
        "Les colis arrivent en 3 à 5 jours ouvrés. Frais de port jamais remboursés pour les commandes avec livraison gratuite.",
    ),
    (
        "Non promettere mai un rimborso prima che la ricerca dell'ordine confermi la data di consegna. Solo i membri gold hanno 3 bagagli gratuiti.",
        "Solo i membri gold hanno 3 bagagli gratuiti. Mai promettere un rimborso prima che l'ordine confermi la data di consegna.",
    ),
];

#[test]
fn faithful_rewrites_in_other_languages_are_clean() {
    for (original, proposal) in OTHER_LANGUAGES {
        let report = check(original, proposal);
        assert!(
            report.is_clean(),
            "{original}\n{:?}\n{:?}",
            report.dropped,
            report.changed
        );
    }
}
