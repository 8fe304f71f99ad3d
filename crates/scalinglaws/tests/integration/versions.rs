//! The minimum Rust version the README states is the one every crate of the build accepts.
//!
//! `rust-version` in the workspace's `Cargo.toml` is the promise (the README and the book's
//! set-up page quote it; a test here checks the quotes). This machine has one toolchain, so the promise cannot be
//! checked by compiling with that version; what can be checked is everything a toolchain of that
//! version would refuse up front: every package in `Cargo.lock` (dependencies, dev and build ones
//! included) that declares a `rust-version` declares one no newer than ours. Clippy's
//! `incompatible_msrv` lint (on under `-D warnings` in the test command) checks the other half:
//! no standard-library item newer than `rust-version` is used in our own code.

use std::process::Command;

/// The repository's root.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The workspace's `rust-version`: the promise.
fn promised() -> String {
    let manifest = std::fs::read_to_string(format!("{ROOT}/Cargo.toml")).unwrap();
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("the workspace's Cargo.toml sets rust-version")
        .trim_matches('"')
        .to_string()
}

/// `1.89`, `1.89.0` → (1, 89, 0).
fn version(text: &str) -> (u32, u32, u32) {
    let mut parts = text.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[test]
fn no_crate_of_the_build_needs_a_newer_rust_than_the_workspace_promises() {
    let root = ROOT;
    let promised = promised();
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(root)
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    assert!(packages.len() > 50, "{} packages", packages.len());
    let newer: Vec<String> = packages
        .iter()
        .filter_map(|p| {
            let needs = p["rust_version"].as_str()?;
            (version(needs) > version(&promised))
                .then(|| format!("{} {} needs Rust {needs}", p["name"], p["version"]))
        })
        .collect();
    assert!(
        newer.is_empty(),
        "the workspace promises Rust {promised} (Cargo.toml's rust-version, quoted by the README), \
         but: {newer:?}; pin an older version (cargo update -p NAME --precise V) or raise the promise"
    );
}

/// The README and the book's set-up page state the promise as it is.
#[test]
fn the_readme_and_the_book_quote_the_promised_rust() {
    let root = ROOT;
    let promised = promised();
    let quote = format!("Rust ({promised} or later)");
    for page in ["README.md", "docs/getting-started.md"] {
        let text = std::fs::read_to_string(format!("{root}/{page}")).unwrap();
        assert!(
            text.contains(&quote),
            "{page} should say \"{quote}\" (Cargo.toml's rust-version)"
        );
    }
}

#[test]
fn versions_compare_by_number() {
    assert!(version("1.89.0") <= version("1.89"));
    assert!(version("1.100") > version("1.89"));
    assert!(version("1.89.1") > version("1.89"));
}
