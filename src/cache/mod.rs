//! The cache instruments: what providers promise about caching (`facts`), what re-sending a
//! brief costs (`cost`), measuring it
//! (`probe`), detecting what breaks it (`align`, `volatile`) and recording every call (`ledger`).

pub mod align;
pub mod cost;
pub mod facts;
pub mod ledger;
pub mod list_prices;
pub mod probe;
pub mod stats_report;
