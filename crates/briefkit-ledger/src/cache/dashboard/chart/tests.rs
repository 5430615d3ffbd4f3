//! Charts as plain shapes: bars, scales and labels for the usual and the odd series.

use super::*;

fn point(input: u64, cached: u64, drifted: bool) -> Point {
    Point {
        label: "call".into(),
        calls: 1,
        input_tokens: input,
        cached_input_tokens: cached,
        input_reporting: input,
        cache_write_tokens: 0,
        drifted: u64::from(drifted),
        drifted_parts: if drifted {
            vec!["system".into()]
        } else {
            vec![]
        },
    }
}

#[test]
fn nice_tops_round_up_to_one_two_or_five() {
    assert_eq!(nice(0), 1);
    assert_eq!(nice(3), 5);
    assert_eq!(nice(1200), 2000);
    assert_eq!(nice(u64::MAX), u64::MAX);
}

#[test]
fn every_point_has_a_tooltip_and_a_drift_is_marked() {
    let points = [point(1000, 0, false), point(1000, 800, true)];
    let bars = input(&points);
    let tips: Vec<&str> = bars
        .shapes
        .iter()
        .filter_map(|s| s.title.as_deref())
        .collect();
    assert_eq!(tips.len(), 2);
    assert!(tips[1].contains("drift: system"), "{tips:?}");
    let caps = bars.shapes.iter().find(|s| s.class == "drift").unwrap();
    assert_eq!(caps.attrs["d"].matches('M').count(), 1);
    let cached = bars.shapes.iter().find(|s| s.class == "cached").unwrap();
    assert_eq!(
        cached.attrs["d"].matches('M').count(),
        1,
        "the first read none"
    );
    let line = share(&points);
    let poly = line.shapes.iter().find(|s| s.tag == "polyline").unwrap();
    assert_eq!(poly.attrs["points"].split(' ').count(), 2);
    assert!(line.shapes.iter().any(|s| s.class == "drift"));
}

#[test]
fn no_points_draw_nothing() {
    assert!(input(&[]).shapes.is_empty());
    assert!(share(&[]).shapes.is_empty());
}
