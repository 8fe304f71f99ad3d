//! The report of each analysis, one file per analysis, as the CLI prints it and Python returns
//! it: each file holds the result's [`Report`](crate::Report) (the result with the context its
//! report names: the law's label, the data file, the option that split the runs) and the
//! text (and, where it has tables, markdown) it is written as.

pub mod backtest;
pub mod compare;
pub mod compare_laws;
pub mod cooldown_study;
pub mod design;
pub mod downstream;
pub mod fit;
pub mod groups;
pub mod isoflop;
pub mod laws;
pub mod lr;
pub mod optimal;
pub mod predict;
pub mod qc;
pub mod schedule;
pub mod schedule_predict;
pub mod select;
pub mod sensitivity;
pub mod sweep;
