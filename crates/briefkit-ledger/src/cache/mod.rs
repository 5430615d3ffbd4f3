//! The cache instruments: what providers promise about caching (`facts`), what re-sending a
//! brief costs (`cost`), measuring it
//! (`probe`, in briefkit-runtime: it calls models), detecting what breaks it (`align`, `volatile`), recording every call (`ledger`),
//! summing it (`usage`) and showing it all on one page (`dashboard`).

pub mod align;
pub mod cost;
pub mod dashboard;
pub mod facts;
pub mod ledger;
pub mod list_prices;
pub mod stats_report;
pub mod usage;
