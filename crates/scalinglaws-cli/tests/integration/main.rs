//! The command line's integration tests, one binary (one link) for the crate: each file is a
//! module; run one with `cargo test --release -p scalinglaws-cli --test integration -- NAME::`.

mod backtest_cli;
mod bootstrap_cli;
mod calibrated_cli;
mod caveats_cli;
mod cli;
mod common;
mod compare_cli;
mod compare_laws_cli;
mod design_cli;
mod downstream_cli;
mod exporters_cli;
mod families_cli;
mod files_cli;
mod groups_cli;
mod hardening_cli;
mod heteroscedastic_cli;
mod isoflop_cli;
mod lab_figures;
mod limits_cli;
mod lr_cli;
mod optimal_cli;
mod overflow_cli;
#[cfg(feature = "parquet")]
mod parquet_cli;
mod plots_cli;
mod prior_cli;
mod qc_cli;
mod readme_blocks;
mod report;
mod schedule_cli;
mod schedule_work_cli;
mod select_cli;
mod semantics_cli;
mod sensitivity_cli;
mod sim_cli;
mod sweep_cli;
