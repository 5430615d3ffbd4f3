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
