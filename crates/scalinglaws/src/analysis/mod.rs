//! Analyses built on fits: compute-optimal allocation, backtests of extrapolation,
//! comparisons of laws on the same data, hyperparameter (learning-rate) laws, and loss curves under LR schedules.

pub mod allocation;
pub mod backtest;
pub mod design;
pub mod downstream;
pub mod envelope;
pub mod isoflop;
pub mod law_comparison;
pub mod lr;
pub mod schedule;
pub mod selection;
pub mod tracks;
