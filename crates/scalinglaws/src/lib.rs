//! `scalinglaws`: fit scaling laws to the records of scaling experiments, globally, exactly and
//! deterministically, and turn the fits into predictions and decisions.
//!
//! The pieces, in the order data flows through them:
//! - [`data`]: datasets read from CSV/TSV/JSONL, validated cell by cell;
//! - [`law`]: the law language (text formulas compiled to a tape with exact derivatives) and
//!   the built-in catalog;
//! - [`fit`]: the objective (robust losses, log or linear residuals), the global search
//!   (start grid + variable projection + second-order polish) and the diagnostics;
//! - [`rng`]: the seeded random numbers every stochastic step uses;
//! - [`job`]: the workflows as values (a fit job and its `run()`), which the command line and
//!   the Python package both build, so each workflow is written once.
//! - [`stats`]: distributions, special functions and quantiles (a leaf every room may use).
//!
//! ```
//! use scalinglaws::fit::{fit, FitData, FitSettings};
//! use scalinglaws::law::catalog;
//!
//! // Runs of a power law with an irreducible loss: L = 1.7 + 400 N^-0.34.
//! let n: Vec<f64> = (0..12).map(|i| 1e7 * 2f64.powi(i)).collect();
//! let loss: Vec<f64> = n.iter().map(|n| 1.7 + 400.0 * n.powf(-0.34)).collect();
//! let data = FitData { variables: vec![n], target: loss, weights: None, trials: None, exposure: None  };
//!
//! let law = catalog::lookup("power_offset")?;
//! let result = fit(&law, &data, &FitSettings::default())?;
//! assert!(result.converged);
//! assert!((result.value("alpha").unwrap() - 0.34).abs() < 1e-6);
//! let at_1e11 = result.predict(&[vec![1e11]])?[0];
//! assert!((at_1e11 - (1.7 + 400.0 * 1e11f64.powf(-0.34))).abs() < 1e-6);
//! # Ok::<(), scalinglaws::Error>(())
//! ```

#![allow(clippy::result_large_err)] // Error carries a Location by value: errors are rare and cold.

pub mod analysis;
pub mod data;
pub mod document;
pub mod error;
pub mod fit;
pub mod interrupt;
pub mod job;
pub mod law;
pub mod limits;
pub mod rng;
pub mod stats;
pub mod suggest;
pub mod uncertainty;
pub mod work;
pub mod workflow;

pub use error::{Error, Result};
pub use interrupt::Interrupt;
pub use law::Law;
