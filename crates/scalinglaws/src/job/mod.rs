//! Workflows as values: a job says everything one analysis needs (which data columns, which
//! law, how to fit, what uncertainty to attach) and `run()` does it. The command line and the
//! Python package both build jobs (the CLI from its parsed arguments, Python by deserialising
//! the request it sends), so each workflow is written once, here, and the front ends only
//! choose how to print the result.
//!
//! - [`fit`]: [`FitJob`], the steps of a fit (law, row check, fit, variance model,
//!   calibration, profiles, bootstrap, provenance) that the workflow `crate::workflow::fit`
//!   and every analysis that fits run, and the default residual space of each law;
//! - [`groups`]: [`GroupedFitJob`], one law fitted to every group of a grouping column on the
//!   worker pool, a group that cannot be fitted kept as a value with its reason;
//! - [`report`]: [`ReportJob`], the fit and the analyses its page shows (allocation, frontier,
//!   backtest), computed so that the report crate only draws;
//! - [`schedule`]: the analyses of loss curves under learning-rate schedules;
//! - [`candidates`]: laws weighed against each other ([`CandidateSpec`] read and built
//!   against the data once, for the `select` and `compare_laws` workflows).

pub mod candidates;
pub mod documents;
pub mod fit;
pub mod groups;
pub mod qc;
pub mod report;
pub mod schedule;

pub use candidates::CandidateSpec;

pub use fit::{
    family_setting, FitJob, FitOutcome, FitRequest, LawChoice, SettingsJob, UncertaintySettings,
};
pub use groups::{GroupFit, GroupStatus, GroupedFitJob};
pub use report::{FitPage, ReportJob};
