//! Statements: a fact the agent must know that gives no order (`Staging deploys from the
//! release branch`). One that went whole is reported beside the dropped instructions, as
//! a `statement`; one kept in other words, a courtesy, a list intro or a table header is
//! never reported, whatever else the proposal lost.

use briefkit::guard::{UnitKind, check};

use crate::common::pairs::{Case, case};

/// `Some(text)`: a statement starting with `text` must be reported, and no other
/// statement; `None`: no statement may be reported.
type Expect = Option<&'static str>;

const CASES: &[Case<Expect>] = &[
    case(
        "a service line cut from a list",
        "Services:\n- Mailer: sends the weekly digest through the queue\n- Billing: invoices go out on the first working day\n",
        "Services:\n- Mailer: sends weekly digest via queue\n",
        Some("invoices go out"),
    ),
    case(
        "a deployment fact cut from a paragraph",
        "Run the linter before pushing.\n\nProduction runs on three replicas behind the gateway.\n",
        "Run linter before push.\n",
        Some("Production runs on three replicas"),
    ),
    case(
        "a table row cut",
        "| Command | Purpose |\n| --- | --- |\n| docs task | renders the handbook pages |\n| seed task | loads demo customers into the database |\n",
        "| Command | Purpose |\n| --- | --- |\n| docs task | renders handbook pages |\n",
        Some("seed task"),
    ),
    case(
        "a statement kept in fewer words",
        "Production runs on three replicas behind the gateway.\n",
        "Prod: 3 replicas behind gateway.\n",
        None,
    ),
    case(
        "a statement kept with its words reordered",
        "- Billing: invoices go out on the first working day\n",
        "- Invoices go out first working day (billing)\n",
        None,
    ),
    case(
        "a courtesy dropped",
        "Answer in English.\n\nThank you for keeping our customers happy.\n",
        "Answer in English.\n",
        None,
    ),
    case(
        "a list intro dropped with its list kept",
        "The repository has these parts:\n- the parser turns source files into trees\n- the printer turns trees back into text\n",
        "- parser: source files to trees\n- printer: trees back to text\n",
        None,
    ),
    case(
        "a table header rewritten",
        "| Service name | Owning team |\n| --- | --- |\n| mailer | growth |\n",
        "| Svc | Team |\n| --- | --- |\n| mailer | growth |\n",
        None,
    ),
    case(
        "a sentence about the one before it dropped",
        "Cache the rendered pages.\n\nWithout a warm cache this adds several seconds per request.\n",
        "Cache rendered pages.\n",
        None,
    ),
    case(
        "the rest of an instruction cut at a colon",
        "When the user asks for a release, use: the tagging script in the tools folder.\n",
        "Release requested: tagging script.\n",
        None,
    ),
];

#[test]
fn statements_that_went_whole_are_reported_and_kept_ones_are_not() {
    let mut failures = Vec::new();
    for c in CASES {
        let report = check(c.original, c.proposal);
        let statements: Vec<&str> = report
            .dropped_instructions
            .iter()
            .filter(|d| d.unit == UnitKind::Statement)
            .map(|d| d.text.as_str())
            .collect();
        let right = match c.expect {
            Some(start) => statements.len() == 1 && statements[0].contains(start),
            None => statements.is_empty(),
        };
        if !right {
            failures.push(format!("{}: {:?}", c.name, statements));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_dropped_statement_is_named_as_one_in_the_summary_the_flags_and_the_json() {
    let report = check(CASES[1].original, CASES[1].proposal);
    assert_eq!(report.status(), "flagged", "{}", report.summary());
    assert!(
        report.summary().contains("1 statement dropped"),
        "{}",
        report.summary()
    );
    assert!(
        report
            .flag_lines()
            .iter()
            .any(|l| l.starts_with("dropped statement (line 3): Production runs")),
        "{:?}",
        report.flag_lines()
    );
    let json = serde_json::to_value(&report.dropped_instructions).unwrap();
    assert_eq!(json[0]["unit"], "statement", "{json}");
}

#[test]
fn an_instruction_report_carries_no_unit_field() {
    let report = check(
        "Never share the admin password.\nAnswer in English.\n",
        "Answer in English.\n",
    );
    let json = serde_json::to_value(&report.dropped_instructions).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(1), "{json}");
    assert!(json[0].get("unit").is_none(), "{json}");
}
