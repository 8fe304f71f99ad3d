//! What the CLI tests share: the README's first command as arguments, and the skip log.
#![allow(dead_code)]

// The library's tests' skip log, compiled here too (its paths resolve against this crate).
#[path = "../../../scalinglaws/tests/common/skip.rs"]
pub mod skip;

/// Epoch AI's protocol on the bundled Chinchilla data (the README's first command).
pub const CHINCHILLA: &[&str] = &[
    "fit",
    "examples/chinchilla/chinchilla_epoch.csv",
    "--law",
    "chinchilla",
    "--target",
    "loss",
    "--map",
    "N=Model Size",
    "--map",
    "C=Training FLOP",
    "--derive",
    "D=C/(6*N)",
    "--where",
    "loss < 3.44",
];
