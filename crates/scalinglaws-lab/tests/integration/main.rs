//! The lab's integration tests, one binary (one link) for the crate: each file is a
//! module; run one with `cargo test --release -p scalinglaws-lab --test integration -- NAME::`.

mod editing;
mod multi_index;
mod no_flags;
mod nvfp4;
mod pages;
mod progress;
mod recall;
mod sgd;
