//! `cache::usage::report` is the one operation behind `brief usage`: a library user calling
//! it gets, key for key and in the same order, the document `brief usage --json` prints.

use briefkit::cache::ledger::Destination;
use briefkit::cache::ledger::summary::GroupBy;
use briefkit::cache::usage::{self, PriceOverrides, UsageRequest};

use crate::common::{brief, fixtures, json, stderr};

#[test]
fn a_library_user_gets_the_document_usage_json_prints() {
    let ledger = fixtures().join("ledger/usage.jsonl");
    let out = brief()
        .args(["usage", "--by", "model", "--since", "2026-12-01"])
        .args(["--price-input", "2.5", "--price-output", "10", "--json"])
        .arg("--ledger")
        .arg(&ledger)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = json(&out);

    let report = usage::report(UsageRequest {
        ledger: Destination::File(ledger.clone()),
        since_ms: briefkit::clock::parse("2026-12-01"),
        since: Some("2026-12-01".into()),
        by: GroupBy::Model,
        prices: PriceOverrides {
            input: Some(2.5),
            cached: None,
            output: Some(10.0),
        },
        page: false,
    })
    .unwrap();
    let mut document = serde_json::Map::new();
    document.insert("status".into(), report.status().into());
    document.insert("summary".into(), report.summary().into());
    let serde_json::Value::Object(fields) = serde_json::to_value(&report).unwrap() else {
        panic!("the report serialises to an object");
    };
    document.extend(fields);

    // Compared as text, so the order of the keys counts too.
    assert_eq!(
        serde_json::to_string(&document).unwrap(),
        serde_json::to_string(&printed).unwrap()
    );
    assert!(report.total.calls > 0 && report.total.priced_calls > 0);
    assert!(report.page.is_none());
}
