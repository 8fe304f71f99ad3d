//! Analyses built on fits: compute-optimal allocation, backtests of extrapolation, and
//! comparisons of laws on the same data.

pub mod allocation;
pub mod backtest;
pub mod envelope;
pub mod isoflop;
pub mod law_comparison;
pub mod tracks;
