//! From a dataset and its recipe (names mapped onto columns, derived columns, filters, the
//! target and the weights) to the numbers a fit needs. It exists so that every complaint about
//! the data names the file, the row (as numbered in the file, even after filtering), the column
//! or the character position in the expression, and so that no row disappears without being
//! counted. The command line and the Python package share it; its hints mention the settings
//! by key ([`Setting::Map`], ...), which each front end words in its own terms (the `map`
//! setting with the entry `N=COLUMN`, as an option or a keyword).
//!
//! Order of work ([`Table::prepare`]): check the map aliases; compute the derived columns in
//! order on every row; apply the filters (rows they remove are counted); then check the values
//! the fit will use ([`Table::fit_data`]: derived values finite, the target positive in log
//! space, variables positive where the law raises them to a fitted power or takes their log,
//! weights >= 0).
//!
//! The files: `syntax.rs` reads option text (names, assignments, constants, positions);
//! `derive.rs` and `filter.rs` parse derived columns and filters; `prepare.rs` applies them to
//! a dataset; `frontier.rs` turns a sweep's runs into each cell's frontier row; `table.rs` is the prepared [`Table`] and what it answers; `names.rs` resolves
//! names and words a missing one; `positive.rs` says why a law needs a variable positive.
//!
//! [`Setting::Map`]: crate::error::Setting::Map

mod derive;
mod filter;
mod frontier;
mod names;
mod positive;
mod prepare;
mod syntax;
mod table;

pub use derive::Derive;
pub use filter::Filter;
pub use positive::why_positive;
pub use syntax::{
    char_offset, constant, constant_list, is_identifier, shift, split_assignment, split_top_level,
};
pub use table::{describe_group, Table};

/// How to turn a dataset into a fit's data.
#[derive(Debug, Clone, Default)]
pub struct Recipe {
    /// `VAR=COLUMN` aliases, in order.
    pub maps: Vec<(String, String)>,
    pub derives: Vec<Derive>,
    pub filters: Vec<Filter>,
    pub target: String,
    pub weights: Option<String>,
    /// The trials behind each proportion (the `binomial` and `beta_binomial` families).
    pub trials: Option<Trials>,
    /// A column of exposures (the `poisson` and `negative_binomial` families).
    pub exposure: Option<String>,
    /// Swept columns (learning rate, batch size, ...): a fit reads each cell's frontier
    /// ([`Table::swept`], `crate::data::sweep`), not every run.
    pub sweep: Vec<String>,
}

/// The trials n of a proportion family: a column, or one count for every row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Trials {
    Count(f64),
    Column(String),
}
