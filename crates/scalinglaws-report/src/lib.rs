//! The report room: every way a scalinglaws result is written for a reader, once for every
//! front end. The command line and Python only choose an exporter; the words, numbers and
//! tables are written here:
//! - [`export`]: the [`Report`] trait (a thing that can be reported) and one exporter per
//!   format ([`Format`]: text, markdown, JSON, HTML), hyperfine-style;
//! - [`text`]: the lmfit-style text report of a fit and the table layout every text report
//!   uses; [`markdown`]: the same reports for a pull request or a wiki; [`json`]: the one
//!   place JSON is written; [`html`]: self-contained pages, the rich one of a fit drawn from
//!   the values its job computed (`scalinglaws::job::FitPage`);
//! - [`analyses`]: the report of each analysis (fit, predict, optimal, isoflop, lr, compare,
//!   backtest, compare-laws, select, schedule, downstream, design, laws);
//! - [`caveats`]: the warning lines a fit's caveats repeat wherever its predictions are used;
//! - [`plots`]: the library's computed curves, frontiers and bands turned into the plot
//!   crate's plain inputs (the lab's figures are the lab's own: `scalinglaws_lab::figures`).
//!
//! It is a crate of its own, not a module of the library, so that the library stays free of
//! plotting (plotters, fonts) and of presentation: `scalinglaws` computes, this crate words.

#![allow(clippy::result_large_err)] // the library's Error, as in the library: rare and cold.

pub mod analyses;
pub mod caveats;
pub mod export;
pub mod html;
pub mod json;
pub mod markdown;
pub mod plots;
pub mod text;

pub use export::{
    export, Exporter, Format, HtmlExporter, JsonExporter, MarkdownExporter, Report, TextExporter,
};
