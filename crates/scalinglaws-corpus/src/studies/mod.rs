//! The public studies of `../shared/data`, each turned into the data sets a law is fitted to.
//! One file per study; each reads its study's own files (their units and traps are in the
//! study's PROVENANCE.md, which the loader's doc repeats where it matters) and returns
//! [`StudySet`]s: the law the study itself fits (or the field's default for such data), and its
//! variables in the law's order. A loader never filters silently: every row it drops is counted
//! in the set's `note` with the reason.
//!
//! A study is the unit the leave-one-study-out check leaves out; a study may hold several sets
//! (Porian et al.'s 15 training configurations, the dense and routed runs of Clark et al.).

use std::path::{Path, PathBuf};

use scalinglaws::data::Dataset;
use scalinglaws::fit::FitData;

mod cerebras;
mod chinchilla;
mod clip_mammut;
mod colpret;
mod datablations;
mod gemstones;
mod misfitting;
mod multipower;
mod olmo;
mod openclip;
mod porian;
mod routing;
mod vocab;

/// One data set of one study and the law it is fitted with.
#[derive(Debug, Clone)]
pub struct StudySet {
    /// The independent study, left out as a whole (e.g. "porian2024").
    pub study: String,
    /// This set within the study (e.g. "rw/base/long/kaplan/kaplan/train").
    pub set: String,
    /// A catalog law name (`scalinglaws laws`): "chinchilla", "data_constrained", "power_offset", ...
    pub law: String,
    /// The law's variables, in the law's order, and the target (a loss, > 0).
    pub data: FitData,
    /// What was read and what was dropped, with counts and reasons.
    pub note: String,
}

/// A study's loader: its sets, or why it cannot be read here (a missing file).
pub type Loader = fn(&Path) -> Result<Vec<StudySet>, String>;

/// Every study, by its folder in `../shared/data`.
pub const STUDIES: &[(&str, Loader)] = &[
    ("chinchilla_epoch", chinchilla::load),
    ("porian2024", porian::load),
    ("datablations", datablations::load),
    ("gemstones", gemstones::load),
    ("lr_sweep_misfitting", misfitting::load),
    ("olmo_ladder", olmo::load),
    ("colpret_hitchhiker2024", colpret::load),
    ("cerebras_gpt2023", cerebras::load),
    ("routing_clark2022", routing::load),
    ("vocab_scaling_tao2024", vocab::load),
    ("openclip_cherti2023", openclip::load),
    ("clip_mammut_nezhurina2025", clip_mammut::load),
    ("multipower_law", multipower::load),
];

/// Every study's sets found under `data` (the `../shared/data` folder), and the reasons of the
/// studies that could not be read.
pub fn load_all(data: &Path) -> (Vec<StudySet>, Vec<(String, String)>) {
    let mut sets = Vec::new();
    let mut missing = Vec::new();
    for (name, load) in STUDIES {
        match load(&data.join(name)) {
            Ok(found) => sets.extend(found),
            Err(reason) => missing.push((name.to_string(), reason)),
        }
    }
    (sets, missing)
}

/// `folder/file`, or an error naming it when it is absent.
pub(crate) fn file(folder: &Path, name: &str) -> Result<PathBuf, String> {
    let path = folder.join(name);
    if path.exists() {
        Ok(path)
    } else {
        Err(format!("{} is absent", path.display()))
    }
}

/// Reads a delimited file with the library's reader.
pub(crate) fn read(path: &Path) -> Result<Dataset, String> {
    Dataset::read(path, None).map_err(|e| format!("{}: {e}", path.display()))
}

/// Fit data from columns in the law's order and a target.
pub(crate) fn fit_data(variables: Vec<Vec<f64>>, target: Vec<f64>) -> FitData {
    FitData {
        variables,
        target,
        weights: None,
        trials: None,
        exposure: None,
    }
}
