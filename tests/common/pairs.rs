//! A row of the guard's table tests: a named pair of texts (an original and a proposal) and
//! what the guard must say of it, in each table's own `Expect`.

pub struct Case<E> {
    pub name: &'static str,
    pub original: &'static str,
    pub proposal: &'static str,
    pub expect: E,
}

pub const fn case<E>(
    name: &'static str,
    original: &'static str,
    proposal: &'static str,
    expect: E,
) -> Case<E> {
    Case {
        name,
        original,
        proposal,
        expect,
    }
}

/// A table has sixty pairs or more, of which `flagged` are flagged and the rest quiet, at
/// least thirty of each.
pub fn assert_sixty_half_flagged<E>(cases: &[Case<E>], flagged: usize) {
    let quiet = cases.len() - flagged;
    assert!(cases.len() >= 60, "{} pairs", cases.len());
    assert!(
        flagged >= 30 && quiet >= 30,
        "{flagged} flagged, {quiet} quiet"
    );
}
