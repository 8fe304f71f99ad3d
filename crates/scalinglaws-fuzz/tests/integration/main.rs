//! The fuzz driver's integration tests, one binary (one link) for the crate: each file is a
//! module; run one with `cargo test --release -p scalinglaws-fuzz --test integration -- NAME::`.

mod corpus;
mod driver;
