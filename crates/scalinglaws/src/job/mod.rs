//! Jobs: each analysis as one serde-deserialisable value with a `run()`, so that the command
//! line and Python build the same job and run the same code.

pub mod compare;
pub mod isoflop;
pub mod lr;
pub mod schedule;
