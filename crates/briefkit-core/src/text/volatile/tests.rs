use proptest::prelude::*;

use super::*;

fn kinds(text: &str) -> Vec<VolatileKind> {
    scan(text).into_iter().map(|f| f.kind).collect()
}

fn only(text: &str) -> Finding {
    let findings = scan(text);
    assert_eq!(
        findings.len(),
        1,
        "expected one finding in {text:?}: {findings:?}"
    );
    findings.into_iter().next().expect("one finding")
}

#[test]
fn word_boundaries_are_ascii_so_a_value_after_a_cjk_letter_is_found() {
    // The boundaries are ASCII so that the scan runs on the regex DFAs for non-ASCII text.
    assert_eq!(kinds("时间戳1700000000"), vec![VolatileKind::UnixTime]);
    assert_eq!(
        kinds("请求 request_id=ab12cd34 完成"),
        vec![VolatileKind::IdField]
    );
    assert_eq!(
        kinds("naïve 2024-05-17T09:30:00Z—fin"),
        vec![VolatileKind::Timestamp]
    );
}

#[test]
fn iso_timestamp_is_found_whole_with_position() {
    let text = "Intro line\nGenerated at 2025-11-03T08:15:42Z for you.";
    let finding = only(text);
    assert_eq!(finding.kind, VolatileKind::Timestamp);
    assert_eq!(&text[finding.start..finding.end], "2025-11-03T08:15:42Z");
    assert_eq!((finding.line, finding.column), (2, 14));
    assert_eq!(finding.sample, "2025-11-03T08:15:42Z");
}

#[test]
fn timestamp_variants_with_space_fraction_and_offset() {
    assert_eq!(kinds("at 2025-11-03 08:15"), [VolatileKind::Timestamp]);
    assert_eq!(
        kinds("at 2025-11-03T08:15:42.123+02:00"),
        [VolatileKind::Timestamp]
    );
    let finding = only("at 2025-11-03T08:15:42.123-05:00.");
    assert_eq!(finding.sample, "2025-11-03T08:15:42.123-05:00");
}

#[test]
fn iso_date_alone_is_a_date() {
    assert_eq!(kinds("Policy as of 2025-11-03."), [VolatileKind::Date]);
}

#[test]
fn impossible_dates_are_not_dates() {
    assert!(scan("code 2025-13-03 and 2025-02-45").is_empty());
}

#[test]
fn clock_times_with_and_without_seconds() {
    assert_eq!(kinds("It is 15:04 now"), [VolatileKind::ClockTime]);
    assert_eq!(only("Logged 15:04:05.").sample, "15:04:05");
    assert_eq!(kinds("at 9:30 sharp"), [VolatileKind::ClockTime]);
    assert_eq!(only("call at 9:30 pm").sample, "9:30 pm");
}

#[test]
fn ratios_and_impossible_times_are_not_clock_times() {
    assert!(scan("mix 3:1 with water; screens are 16:9 or 4:3").is_empty());
    assert!(scan("at 25:10 or 12:75").is_empty());
}

#[test]
fn opening_hours_ranges_are_not_clock_times() {
    assert!(scan("We answer 9:00-17:00 and 10:00 to 14:30 on Saturdays.").is_empty());
}

#[test]
fn addresses_and_mac_like_runs_are_not_clock_times() {
    assert!(scan("connect to 10.0.0.1:8080 or 12:34:56:78").is_empty());
}

#[test]
fn uuid_is_found_with_a_cut_sample() {
    let finding = only("tenant 6f1c2a9e-4b7d-4c1e-9a3f-0d2b8e7c5a14 here");
    assert_eq!(finding.kind, VolatileKind::Uuid);
    assert_eq!(finding.sample, "6f1c2a9e…");
}

#[test]
fn jwt_is_found_and_never_printed_whole() {
    let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC03In0.k3Jd9vQx2LmP0aZ8wYtR4sUe6fGh1jKl";
    let finding = only(&format!("Authorization: Bearer {token}"));
    assert_eq!(finding.kind, VolatileKind::Jwt);
    assert_eq!(finding.sample, "eyJhbGci…");
    assert!(!finding.sample.contains(token));
}

#[test]
fn hex_ids_of_32_40_and_64_digits() {
    let md5 = "9e107d9d372bb6826bd81d3542a419d6";
    let sha1 = "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12";
    let sha256 = "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592";
    for hex in [md5, sha1, sha256] {
        let finding = only(&format!("digest {hex} end"));
        assert_eq!(finding.kind, VolatileKind::HexId);
        assert_eq!(finding.sample, format!("{}…", &hex[..8]));
    }
}

#[test]
fn a_sha_in_a_code_sample_is_still_flagged() {
    let text = "```sh\ngit checkout 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12\n```";
    assert_eq!(kinds(text), [VolatileKind::HexId]);
}

#[test]
fn hex_runs_of_other_lengths_or_without_digits_are_not_ids() {
    assert!(scan("short 9e107d9d372bb682 and 9e107d9d372bb6826bd81d3542a419d6ab").is_empty());
    assert!(scan("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").is_empty());
    assert!(scan("12345678901234567890123456789012").is_empty());
}

#[test]
fn unix_seconds_and_milliseconds_in_range() {
    assert_eq!(only("ts=1762157742 ok").kind, VolatileKind::UnixTime);
    assert_eq!(only("ts 1762157742123 ok").sample, "1762157742123");
    assert_eq!(only("ts 1762157742.25 ok").sample, "1762157742.25");
}

#[test]
fn numbers_out_of_the_unix_range_are_not_times() {
    assert!(scan("order 0999999999 and 5000000000").is_empty());
}

#[test]
fn phone_numbers_and_prices_are_not_findings() {
    let text = "Call +1 415 555 0134, (415) 555-0134, 415-555-0134 or +14155550134. \
                Plans cost $1,299.00, €49.90 or $1700000000 in bulk.";
    assert!(scan(text).is_empty(), "{:?}", scan(text));
}

#[test]
fn version_numbers_and_plain_years_are_not_findings() {
    let text = "Requires v2.3.1, Node 18.17 or 20.11.1, since 2024 (release 2024.05).";
    assert!(scan(text).is_empty(), "{:?}", scan(text));
}

#[test]
fn id_fields_in_several_spellings() {
    for text in [
        "request_id=req7Hq2Lx9",
        "session_id: s-20931",
        "trace_id = 4bf92f3577b34da6",
        r#"{"requestId": "abc123def"}"#,
        "X-Request-ID: 77ab12cd",
    ] {
        let finding = only(text);
        assert_eq!(finding.kind, VolatileKind::IdField, "{text}");
    }
}

#[test]
fn id_field_sample_names_the_key_and_cuts_the_value() {
    let finding = only(r#"{"requestId": "req_9f8a7b6c5d4e"}"#);
    assert_eq!(finding.sample, "requestId: req_9f8a…");
}

#[test]
fn id_field_covers_a_uuid_value() {
    let finding = only("session_id: 6f1c2a9e-4b7d-4c1e-9a3f-0d2b8e7c5a14");
    assert_eq!(finding.kind, VolatileKind::IdField);
    assert_eq!(finding.sample, "session_id: 6f1c2a9e…");
}

#[test]
fn prose_about_id_fields_is_not_a_finding() {
    let text = "Always quote the request_id: it helps. Put the trace_id = your trace in logs.";
    assert!(scan(text).is_empty(), "{:?}", scan(text));
}

#[test]
fn a_short_secret_is_cut_to_half() {
    assert_eq!(truncate_secret("a1b2c3"), "a1b…");
    assert_eq!(truncate_secret("x"), "…");
}

#[test]
fn current_time_phrases() {
    assert_eq!(
        kinds("The current date and time is Tuesday"),
        [VolatileKind::CurrentTimePhrase]
    );
    assert_eq!(
        kinds("Current time: soon"),
        [VolatileKind::CurrentTimePhrase]
    );
    assert_eq!(kinds("Today is Monday."), [VolatileKind::CurrentTimePhrase]);
    assert_eq!(
        kinds("The time now is 14:05."),
        [VolatileKind::CurrentTimePhrase, VolatileKind::ClockTime]
    );
}

#[test]
fn ordinary_prose_with_today_and_now_is_not_a_phrase() {
    let text = "Today is a good day to ask. The priority now is accuracy.";
    assert!(scan(text).is_empty(), "{:?}", scan(text));
}

#[test]
fn findings_are_sorted_and_columns_count_characters() {
    let text = "é 2025-11-03\nüü 15:04 and 6f1c2a9e-4b7d-4c1e-9a3f-0d2b8e7c5a14";
    let findings = scan(text);
    let summary: Vec<_> = findings
        .iter()
        .map(|f| (f.kind, f.line, f.column))
        .collect();
    assert_eq!(
        summary,
        [
            (VolatileKind::Date, 1, 3),
            (VolatileKind::ClockTime, 2, 4),
            (VolatileKind::Uuid, 2, 14),
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn scan_never_panics_and_findings_are_well_formed(
        text in r"(?s)[\w\s:\-.+$€\x22{}=éü—0-9a-fA-FeyJT]{0,200}"
    ) {
        let findings = scan(&text);
        let mut last_end = 0;
        for finding in &findings {
            prop_assert!(finding.start < finding.end);
            prop_assert!(finding.end <= text.len());
            prop_assert!(finding.start >= last_end);
            prop_assert!(text.is_char_boundary(finding.start));
            prop_assert!(text.is_char_boundary(finding.end));
            prop_assert!(finding.line >= 1 && finding.column >= 1);
            last_end = finding.end;
        }
    }

    #[test]
    fn scan_handles_any_unicode(text in any::<String>()) {
        for finding in scan(&text) {
            prop_assert!(text.is_char_boundary(finding.start));
            prop_assert!(text.is_char_boundary(finding.end));
        }
    }
}
