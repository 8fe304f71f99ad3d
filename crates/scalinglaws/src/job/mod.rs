//! Workflows as values: a job says everything one analysis needs (which data columns, which
//! law, how to fit, what uncertainty to attach) and `run()` does it. The command line and the
//! Python package both build jobs (the CLI from its parsed arguments, Python by deserialising
//! the request it sends), so each workflow is written once, here, and the front ends only
//! choose how to print the result.
//!
//! - [`fit`]: [`FitJob`], THE fit workflow (law, row check, fit, variance model, calibration,
//!   profiles, bootstrap, provenance), and the default residual space of each law;
//! - [`optimal`]: the allocation settings a saved fit implies (its bootstrap draws and level).

pub mod fit;
pub mod optimal;

pub use fit::{FitJob, FitOutcome, FitRequest, LawChoice, SettingsJob, UncertaintySettings};
pub use optimal::allocation_from_fit;
