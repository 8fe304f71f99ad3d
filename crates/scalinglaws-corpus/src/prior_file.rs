//! The shipped prior's file: the fitted model with its provenance, written with a stable key
//! order and rounded values so that a rebuild compares equal to the file in the repository.

use std::collections::BTreeSet;

use scalinglaws::uncertainty::prior::{Prior, Provenance};

use crate::corpus::Unit;
use crate::loso::Fitted;

/// The version of the corpus and model; bump it when either changes.
pub const VERSION: &str = "2026-12-05.1";

/// The prior `fitted` to `units`, with its provenance.
pub fn prior(units: &[Unit], fitted: &Fitted) -> Prior {
    let studies: BTreeSet<&str> = units.iter().map(|u| u.study.as_str()).collect();
    let sets: BTreeSet<(&str, &str)> = units
        .iter()
        .map(|u| (u.study.as_str(), u.set.as_str()))
        .collect();
    Prior {
        version: VERSION.into(),
        model: fitted.model,
        evidence_weight: fitted.evidence_weight,
        levels: fitted.levels.clone(),
        provenance: Provenance {
            studies: studies.into_iter().map(String::from).collect(),
            sets: sets.len(),
            units: units.len(),
            held_out: units.iter().map(|u| u.held_out.len()).sum(),
            command: "cargo run --release -p scalinglaws-corpus -- --write-prior crates/scalinglaws/src/uncertainty/extrapolation_prior.json".into(),
        },
    }
}

/// Pretty JSON of `prior`.
pub fn to_json(prior: &Prior) -> String {
    serde_json::to_string_pretty(prior).unwrap_or_default() + "\n"
}
