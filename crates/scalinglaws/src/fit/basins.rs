//! Searches of resampled data that reuse what the search of the original data learned.
//!
//! A bootstrap replicate reweights the rows a fit was made on, so its objective is a small
//! perturbation of the original's. The original search already ran every start and recorded
//! which basin each fell into ([`super::search::Optimum::members`]): on the Chinchilla example,
//! 24 of the 25 starts reach the one optimum, each after about 28 Gauss–Newton/IRLS steps along
//! the same valley, so a replicate's full search spends most of its time rediscovering that one
//! basin 24 times. A replicate's search therefore starts once from each optimum of the original
//! (the warm start lands on the replicate's optimum of that basin in a few steps) and reruns
//! from the start grid only the starts that reached no optimum of the original: those that
//! stalled far above the best, did not converge, diverged or had no finite objective. This is
//! the multistart practice of not restarting a local search inside a basin already explored
//! (multi-level single linkage: Rinnooy Kan & Timmer 1987, "Stochastic global optimization
//! methods, Part II: Multi level methods", Math. Programming 39, 57–78), with the basins known
//! from the original search instead of estimated from samples.
//!
//! Where the map cannot speak for a replicate, the replicate runs the full search, and a local
//! search from the original optimum apart from it, keeping the better:
//! - when the original search found more than one distinct optimum. In a landscape of several
//!   basins, resampling moves their floors past each other and a start can fall into a basin
//!   none of the original starts ended in: on Muennighoff et al.'s data-constrained law (17
//!   distinct optima of 64 starts), warm starts at all 17 optima plus the 42 starts that reached
//!   none still missed the full search's optimum by 0.75 % in the second replicate tested;
//! - when its starts differ from the original's (starts placed from the quantiles or ranges of
//!   the rows drawn, as for break points and user formulas): there the map buys nothing and the
//!   replicate pays the separate local search;
//! - when the original search itself fails (say every start of the grid diverges and the fit's
//!   optimum came from warm starts, as in a joint fit of tracks).
//!
//! A fit under a likelihood family or a variance model alternates several searches: its
//! replicates run [`super::fit_best`] from the original optimum (in its alternation, the same
//! plain search and separate local search).
//!
//! That replicates reach the full search's optimum is tested on resampled copies of real data
//! for several laws and losses (`tests/integration/uncertainty.rs`,
//! `replicate_search_finds_the_full_searchs_optimum`; 2,667 replicates with
//! `SCALINGLAWS_REPLICATES=1000`, none missed).

use crate::error::{Error, Result};
use crate::law::Law;

use super::search::Start;
use super::{
    best_of, fit_best_plain, prepare, run_search, with_warm_starts, BestOptimum, FitData,
    FitSettings,
};

/// What the search of the original data says a replicate's search needs: its optima, and the
/// starts that reached none of them.
#[derive(Debug, Clone)]
pub struct BasinMap {
    /// The original optimum (the fit being resampled), then the search's one optimum where it
    /// differs (natural parameters, fixed ones at their values).
    optima: Vec<Vec<f64>>,
    reuse: Reuse,
}

/// What a replicate's search does.
#[derive(Debug, Clone)]
enum Reuse {
    /// Warm starts at the optima, and the starts that reached none of them (indices into the
    /// original search's starts, which a replicate's must equal).
    Basins {
        starts: Vec<Start>,
        rerun: Vec<usize>,
    },
    /// [`super::fit_best`] from the original optimum: the full search and, apart from it, a
    /// local search from there (inside a family's or a variance model's alternation).
    Whole,
}

impl BasinMap {
    /// Runs the search of `data` once more, recording the basins. `base` is the optimum of
    /// the fit being resampled (the first warm start of every replicate).
    pub fn of(law: &Law, data: &FitData, settings: &FitSettings, base: &[f64]) -> Result<Self> {
        let mut map = BasinMap {
            optima: vec![base.to_vec()],
            reuse: Reuse::Whole,
        };
        if settings.family.is_some() || settings.heteroscedastic.is_some() {
            return Ok(map);
        }
        let searched = prepare(law, data, settings).and_then(|prepared| {
            run_search(&prepared, settings).map(|outcome| (prepared, outcome))
        });
        let (prepared, outcome) = match searched {
            Ok(searched) => searched,
            Err(Error::Interrupted) => return Err(Error::Interrupted),
            Err(_) => return Ok(map), // replicates search as a plain fit_best does
        };
        let [optimum] = outcome.optima.as_slice() else {
            return Ok(map);
        };
        // A screened start was represented by a lower neighbour; a replicate does not rerun it.
        let mut reached = vec![false; prepared.starts.len()];
        for &member in optimum.members.iter().chain(&outcome.screened) {
            reached[member] = true;
        }
        let found = prepared.problem.natural(&optimum.u);
        if found != map.optima[0] {
            map.optima.push(found); // a joint fit's base can come from its own warm starts
        }
        map.reuse = Reuse::Basins {
            rerun: (0..reached.len()).filter(|&i| !reached[i]).collect(),
            starts: prepared.starts,
        };
        Ok(map)
    }

    /// The starts a replicate reruns from the grid (the rest are represented by the optimum).
    pub fn rerun(&self) -> usize {
        match &self.reuse {
            Reuse::Basins { rerun, .. } => rerun.len(),
            _ => 0,
        }
    }

    /// The starts of the original search (0 when the map does not apply).
    pub fn starts(&self) -> usize {
        match &self.reuse {
            Reuse::Basins { starts, .. } => starts.len(),
            _ => 0,
        }
    }

    /// Whether replicates reuse the basins (else they run [`super::fit_best`] from the
    /// original optimum).
    pub fn applies(&self) -> bool {
        matches!(self.reuse, Reuse::Basins { .. })
    }

    /// The best optimum of `data` (a resampled copy of the original): see the module
    /// documentation for the search it runs.
    pub fn fit_best(
        &self,
        law: &Law,
        data: &FitData,
        settings: &FitSettings,
    ) -> Result<BestOptimum> {
        let base = &self.optima[..1];
        let Reuse::Basins { starts, rerun } = &self.reuse else {
            return super::fit_best(law, data, settings, base);
        };
        let mut prepared = prepare(law, data, settings)?;
        if !same_starts(&prepared.starts, starts) {
            return fit_best_plain(law, data, settings, base);
        }
        prepared.starts = rerun.iter().map(|&i| prepared.starts[i].clone()).collect();
        prepared.screen_line = false; // a subset of the line is no line
        with_warm_starts(&mut prepared, &self.optima);
        best_of(&prepared, settings)
    }
}

/// The same grid: the same values (to the bit) in the same places, projected ones alike.
fn same_starts(a: &[Start], b: &[Start]) -> bool {
    let same = |x: &Option<f64>, y: &Option<f64>| match (x, y) {
        (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
        (None, None) => true,
        _ => false,
    };
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(s, t)| s.len() == t.len() && s.iter().zip(t).all(|(x, y)| same(x, y)))
}
