//! The plotting's integration tests, one binary (one link) for the crate: each file is a
//! module; run one with `cargo test --release -p scalinglaws-plot --test integration -- NAME::`.

mod kinds;
