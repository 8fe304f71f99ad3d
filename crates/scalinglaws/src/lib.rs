//! `scalinglaws`: fit scaling laws to the records of scaling experiments, globally, exactly and
//! deterministically, and turn the fits into predictions and decisions.
//!
//! The pieces, in the order data flows through them:
//! - [`data`]: datasets read from CSV/TSV/JSONL, validated cell by cell;
//! - [`law`]: the law language (text formulas compiled to a tape with exact derivatives) and
//!   the built-in catalog;
//! - [`fit`]: the objective (robust losses, log or linear residuals), the global search
//!   (start grid + variable projection + second-order polish) and the diagnostics;
//! - [`rng`]: the seeded random numbers every stochastic step uses.

#![allow(clippy::result_large_err)] // Error carries a Location by value: errors are rare and cold.

pub mod data;
pub mod error;
pub mod fit;
pub mod law;
pub mod rng;
pub mod suggest;

pub use error::{Error, Result};
pub use law::Law;
