//! Sums, groups and prices of ledger entries, checked against figures worked by hand.

use super::*;

fn call(time: &str, prefix: &str, input: u64, cached: Option<u64>, write: Option<u64>) -> Entry {
    let mut e = Entry::new("probe", "anthropic", "claude-sonnet-4-5");
    e.time = time.into();
    e.brief = Some("clinic".into());
    e.prefix_hash = Some(prefix.into());
    e.input_tokens = Some(input);
    e.cached_input_tokens = cached;
    e.cache_write_tokens = write;
    e.output_tokens = Some(1);
    e
}

const PRICES: Prices = Prices {
    input: 3.0,
    cached: 0.3,
    write: 3.75,
    write_1h: 6.0,
    output: 15.0,
};

#[test]
fn one_hour_cache_writes_are_priced_apart_from_five_minute_ones() {
    let mut entry = call("2026-11-30T09:00:00.000Z", "aa", 2000, Some(0), Some(1000));
    entry.cache_write_5m_tokens = Some(600);
    entry.cache_write_1h_tokens = Some(400);
    let (total, _) = summarise(&[entry], GroupBy::Prefix, |_| Some(PRICES));
    let expected = (1000.0 * 3.0 + 600.0 * 3.75 + 400.0 * 6.0 + 15.0) / 1e6;
    assert!((total.cost() - expected).abs() < 1e-12, "{}", total.cost());
}

#[test]
fn totals_share_and_savings() {
    let entries = vec![
        call("2026-11-30T09:00:00.000Z", "aa", 2000, Some(0), Some(1900)),
        call("2026-11-30T09:01:00.000Z", "aa", 2000, Some(1900), Some(0)),
        call("2026-12-01T08:00:00.000Z", "bb", 2000, Some(1900), Some(0)),
    ];
    let (total, groups) = summarise(&entries, GroupBy::Prefix, |_| Some(PRICES));
    assert_eq!(total.calls, 3);
    assert_eq!(total.input_tokens, 6000);
    assert_eq!(total.cached_input_tokens, 3800);
    assert_eq!(total.cached_share(), Some(3800.0 / 6000.0));
    // Without cache: 6000 input at 3.0 and 3 output at 15.0.
    assert!((total.cost_without_cache() - (6000.0 * 3.0 + 45.0) / 1e6).abs() < 1e-12);
    // Reads save 2.7 per Mtok each; the write costs 0.75 more per Mtok.
    assert!((total.savings() - (3800.0 * 2.7 - 1900.0 * 0.75) / 1e6).abs() < 1e-12);
    assert_eq!(
        groups.iter().map(|g| g.key.as_str()).collect::<Vec<_>>(),
        ["aa", "bb"]
    );
    assert_eq!(
        groups[0].totals.first_seen.as_deref(),
        Some("2026-11-30T09:00:00.000Z")
    );
    assert_eq!(
        groups[0].totals.last_seen.as_deref(),
        Some("2026-11-30T09:01:00.000Z")
    );
    assert_eq!(groups[0].briefs, ["clinic"]);
}

#[test]
fn usage_totals_saturate_instead_of_wrapping() {
    // Issue 21, defect 9: rows the reader accepts (at most 10^12 tokens each) can still
    // add up past 2^64 - 1 over enough rows; a total near the top shows it.
    let mut total = Totals {
        input_tokens: u64::MAX - 100,
        cached_input_tokens: u64::MAX - 100,
        calls: u64::MAX,
        ..Totals::default()
    };
    total.add(
        &call("2026-11-30T09:00:00.000Z", "aa", 105, Some(105), None),
        None,
    );
    assert_eq!(total.input_tokens, u64::MAX);
    assert_eq!(total.cached_input_tokens, u64::MAX);
    assert_eq!(total.calls, u64::MAX);
}

#[test]
fn calls_without_a_cached_field_are_left_out_of_the_share() {
    let mut failed = call("2026-11-30T10:00:00.000Z", "aa", 0, None, None)
        .failed(crate::call_status::CallStatus::Timeout, "no answer");
    failed.input_tokens = None;
    let entries = vec![
        call("2026-11-30T09:00:00.000Z", "aa", 1000, None, None),
        call("2026-11-30T09:01:00.000Z", "aa", 1000, Some(500), None),
        failed,
    ];
    let (total, _) = summarise(&entries, GroupBy::Day, |_| None);
    assert_eq!(total.calls_without_cache_field, 1);
    assert_eq!(total.failed, 1);
    assert_eq!(total.cached_share(), Some(0.5));
    assert_eq!(total.priced_calls, 0);
    let (none, _) = summarise(&entries[..1], GroupBy::Day, |_| None);
    assert_eq!(none.cached_share(), None);
}

#[test]
fn days_group_by_utc_date_in_time_order() {
    let entries = vec![
        call("2026-12-01T00:00:00.000Z", "aa", 10, Some(0), None),
        call("2026-11-30T23:59:59.999Z", "aa", 10, Some(0), None),
    ];
    let (_, groups) = summarise(&entries, GroupBy::Day, |_| None);
    assert_eq!(
        groups.iter().map(|g| g.key.as_str()).collect::<Vec<_>>(),
        ["2026-11-30", "2026-12-01"]
    );
}

#[test]
fn sessions_group_proxied_calls_and_count_their_drift() {
    let proxied = |time: &str, session: &str, drift: Option<&[&str]>| {
        let mut e = call(time, "aa", 100, Some(50), Some(0));
        e.command = "proxy".into();
        e.session = Some(session.into());
        e.drifted_parts = drift.map(|d| d.iter().map(|p| p.to_string()).collect());
        e
    };
    let entries = vec![
        proxied("2026-11-30T09:00:00.000Z", "agent-a", None),
        proxied("2026-11-30T09:01:00.000Z", "agent-a", Some(&[])),
        proxied("2026-11-30T09:02:00.000Z", "agent-b", None),
        proxied(
            "2026-11-30T09:03:00.000Z",
            "agent-a",
            Some(&["system", "tools"]),
        ),
        proxied("2026-11-30T09:04:00.000Z", "agent-b", Some(&["system"])),
        call("2026-11-30T09:05:00.000Z", "aa", 100, Some(0), None),
    ];
    let (total, groups) = summarise(&entries, GroupBy::Session, |_| None);
    assert_eq!(
        groups.iter().map(|g| g.key.as_str()).collect::<Vec<_>>(),
        ["agent-a", "agent-b", "(none)"]
    );
    assert_eq!((total.drift_compared, total.drifted), (3, 2));
    assert_eq!(
        total.drifted_parts,
        [("system".to_string(), 2), ("tools".to_string(), 1)]
    );
    let a = &groups[0].totals;
    assert_eq!((a.calls, a.drift_compared, a.drifted), (3, 2, 1));
    assert_eq!(groups[2].totals.drift_compared, 0);
}
