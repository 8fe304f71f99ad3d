//! The library's integration tests, one binary (one link) for the crate: each file is a
//! module; run one with `cargo test --release -p scalinglaws --test integration -- NAME::`.

mod architecture;
mod calibration;
mod common;
mod cooldown_study;
mod design;
mod downstream;
mod envelope;
mod extrapolation;
mod families;
mod golden;
mod groups;
mod heteroscedastic;
mod isoflop;
mod isoflop_forecast;
mod lr;
mod nist;
mod no_flags;
mod overflow;
mod param_coverage;
#[cfg(feature = "parquet")]
mod parquet_input;
mod properties;
mod published_laws;
mod python_workflows;
mod qc;
mod recovery;
mod saved_fit;
mod scale;
mod schedule;
mod schedule_fsl;
mod schedule_intervals;
mod schedule_profiles;
mod schedule_protocol;
mod schedule_streaming;
mod search;
mod selection;
mod sensitivity;
mod sweep;
mod tracks;
mod uncertainty;
mod versions;
