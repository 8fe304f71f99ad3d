//! Reports of a fit, written once for every front end: the lmfit-style text report
//! ([`text::render`]) and the self-contained HTML page ([`html::page`]). The command line prints
//! and writes them; Python returns them as strings (`Fit.report()`, `Fit.report_html()`), so a
//! notebook and a terminal show the same words and numbers.

pub mod html;
pub mod text;
