//! The lab: exact simulators of the settings in which our seed papers derive scaling laws, small
//! enough to run on a laptop. Each simulator is seeded and deterministic at any thread count, and
//! returns plain rows (a dataset the engine's `fit`, `compare` and reports read), so a claim such
//! as "signSGD has better data scaling in hard-task regimes" can be checked by running the
//! setting and fitting its curves with the same engine, intervals and plots as real runs.
//!
//! The lab is a wing of its own: it depends on the engine (`scalinglaws` for its seeded random
//! streams and fits, `scalinglaws-plot`'s picture model for its pages, `pages`, filled by `figures`), and no engine
//! crate depends on it (checked by the architecture test `the_engine_knows_nothing_of_the_lab`).

pub mod editing;
pub mod error;
pub mod figures;
pub mod multi_index;
pub mod nvfp4;
pub mod pages;
pub mod progress;
pub mod recall;
pub mod sgd;

pub use error::{LabError, Result};
pub use progress::Progress;
