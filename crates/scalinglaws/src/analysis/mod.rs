//! Analyses built on fits: backtests of extrapolation, and comparisons of laws on the same data.

pub mod backtest;
pub mod law_comparison;
