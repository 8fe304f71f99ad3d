//! Fuzz targets for every kind of text a user hands `scalinglaws`: a CSV/TSV/JSONL table, a
//! formula, `where`/`derive`/`map` recipe steps, learning-rate schedule specs and a saved fit's
//! JSON. Each target is a plain `fn(&[u8]) -> Signature` that calls the library's entry points
//! the way the command line does, so it runs under any driver: the stable-Rust driver in
//! `main.rs` (mutation, time and memory limits, crash files), the corpus replay in `tests/`,
//! or cargo-fuzz's `fuzz_target!` on nightly. A target never panics on purpose: an error is
//! a fine answer (its [`Signature`] says which kind of answer, so the driver can keep inputs
//! that reach new behaviour); a panic, a hang or a runaway allocation is the bug.

pub mod mutate;
pub mod signature;
pub mod targets;

pub use signature::Signature;
pub use targets::Target;
