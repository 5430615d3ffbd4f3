//! Unit tests of `quantities.rs`.
use super::*;

fn read(text: &str) -> Vec<(String, bool)> {
    quantities(text)
        .into_iter()
        .map(|q| {
            (
                text[q.start..q.end].to_string() + "=" + &q.canonical,
                q.fact,
            )
        })
        .collect()
}

#[test]
fn compounds_scales_and_articles() {
    assert_eq!(read("twenty-five"), [("twenty-five=25".into(), true)]);
    assert_eq!(read("Twenty five days"), [("Twenty five=25".into(), true)]);
    assert_eq!(
        read("under a hundred words"),
        [("a hundred=100".into(), true)]
    );
    assert_eq!(
        read("two hundred and fifty"),
        [("two hundred and fifty=250".into(), true)]
    );
    assert_eq!(read("five thousand"), [("five thousand=5000".into(), true)]);
    assert_eq!(read("a dozen"), [("a dozen=12".into(), true)]);
    assert_eq!(read("twice"), [("twice=2".into(), true)]);
    assert_eq!(read("five percent"), [("five percent=5%".into(), true)]);
    assert_eq!(read("seven days"), [("seven=7".into(), true)]);
}

#[test]
fn one_and_once_count_only_where_they_count() {
    assert_eq!(read("one of the tools"), [("one=1".into(), false)]);
    assert_eq!(read("no one"), [("one=1".into(), false)]);
    assert_eq!(read("at most one"), [("one=1".into(), true)]);
    assert_eq!(read("one business day"), [("one=1".into(), true)]);
    assert_eq!(read("once the order ships"), [("once=1".into(), false)]);
    assert_eq!(read("once a day"), [("once=1".into(), true)]);
    assert_eq!(read("only once."), [("once=1".into(), true)]);
    assert_eq!(
        read("only once the customer confirms"),
        [("once=1".into(), false)]
    );
    assert_eq!(read("once a customer asks"), [("once=1".into(), false)]);
    assert_eq!(read("a single reply"), [("single=1".into(), false)]);
}

#[test]
fn words_that_only_contain_a_number_are_not_numbers() {
    assert!(
        read("one-time fee, someone, tone, often, tent")
            .iter()
            .all(|q| !q.1)
    );
    assert!(read("Oneida").is_empty());
    assert_eq!(
        read("one two"),
        [("one=1".into(), false), ("two=2".into(), true)]
    );
}
