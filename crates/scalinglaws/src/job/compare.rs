//! The recipe-comparison job: the runs split into tracks by a column, each fitted with one law
//! (separately or with named parameters shared), compared at budgets. The command line and
//! Python build this job; the law and its fit settings come with the call (they are the fit
//! job's: see `job::fit`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::allocation::{AllocationSettings, Flops};
use crate::analysis::tracks::{
    baseline_index, compare_tracks, split_by_labels, split_values, Track, TrackCalibration,
    TrackComparison, TrackSettings,
};
use crate::data::recipe::{Recipe, Table};
use crate::error::{Error, Result, Setting};
use crate::fit::FitSettings;
use crate::work::{Estimate, FitShape};
use crate::Law;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompareJob {
    /// The column naming each run's track.
    pub track: String,
    /// Parameters common to all tracks (empty: every track fitted separately).
    #[serde(default)]
    pub shared: Vec<String>,
    /// The track the others are compared with [default: the first].
    #[serde(default)]
    pub baseline: Option<String>,
    /// Budgets in FLOPs at which tracks are compared.
    #[serde(default)]
    pub budgets: Vec<f64>,
    /// Instead of `budgets` alone: 25 budgets from the smallest run's compute to 100× the
    /// largest, with `budgets` added (for plots).
    #[serde(default)]
    pub grid: bool,
    /// The FLOPs formula (`6*N*D`, ...).
    pub flops: String,
    /// Variables held at values for the allocations.
    #[serde(default)]
    pub held: BTreeMap<String, Vec<f64>>,
    #[serde(default)]
    pub bootstrap: usize,
    pub level: f64,
    /// Runs whose law variables agree within this relative tolerance share a cell.
    pub cell_tolerance: f64,
    /// Calibrate each track's prediction intervals beyond the data (rolling-origin backtests
    /// by `by`, or the default scale).
    pub calibrate: bool,
    #[serde(default)]
    pub by: Option<String>,
    /// Seed of the bootstrap within tracks.
    #[serde(default)]
    pub seed: u64,
}

/// The comparison with the tracks it compared (for plots).
#[derive(Debug, Clone)]
pub struct ComparedTracks {
    pub comparison: TrackComparison,
    pub tracks: Vec<Track>,
}

impl CompareJob {
    /// Splits `table`'s runs into tracks and compares them under `law` fitted with `fit`.
    pub fn run(
        &self,
        table: &Table,
        recipe: &Recipe,
        law: &Law,
        fit: FitSettings,
    ) -> Result<ComparedTracks> {
        // Every step on the pool of `threads` workers, not only the fits' searches.
        let threads = fit.threads;
        crate::fit::with_threads(threads, || self.run_on_pool(table, recipe, law, fit))?
    }

    fn run_on_pool(
        &self,
        table: &Table,
        recipe: &Recipe,
        law: &Law,
        mut fit: FitSettings,
    ) -> Result<ComparedTracks> {
        // The record, in each track's fit, of the seed its bootstrap used (nothing reads it).
        fit.seed = self.seed;
        let data = table.fit_data(law, recipe, fit.space)?;
        let labels = table.track_labels(&self.track, Setting::Track)?;
        if let Some(baseline) = &self.baseline {
            table.check_track(&self.track, &labels, baseline, Setting::Baseline)?;
        }
        let tracks = split_by_labels(&data, &labels);
        let calibration = match self.calibrate {
            true => {
                let (by, scale) = table.scale(law, &data, self.by.as_deref(), Setting::By)?;
                Some(TrackCalibration {
                    by,
                    scales: split_values(&scale, &labels),
                })
            }
            false => None,
        };
        let baseline = baseline_index(&tracks, self.baseline.as_deref(), &self.track)
            .map_err(|e| e.within(Setting::Baseline))?;
        let flops = Flops::parse(&self.flops).map_err(|e| e.within(Setting::Flops))?;
        let budgets = match self.grid {
            true => {
                let mut budgets = budget_grid(law, &tracks, &flops)?;
                budgets.extend(&self.budgets);
                budgets.sort_by(f64::total_cmp);
                budgets.dedup();
                budgets
            }
            false => self.budgets.clone(),
        };
        let settings = TrackSettings {
            seed: self.seed,
            fit,
            shared: self.shared.clone(),
            baseline,
            allocation: AllocationSettings {
                flops,
                held: self.held.clone(),
                ..AllocationSettings::at_budgets(budgets)
            },
            bootstrap: self.bootstrap,
            level: self.level,
            cell_tolerance: self.cell_tolerance,
            calibration,
        };
        estimate(law, &tracks, &settings)?.check(settings.fit.max_work)?;
        let comparison = compare_tracks(law, &tracks, &settings)?;
        Ok(ComparedTracks { comparison, tracks })
    }
}

/// The work of a comparison ([`crate::work`]): each track's fit, the joint fit (each row
/// involves the shared parameters and its own track's, the solves all of them), the rolling
/// origins and the bootstrap, which refits the joint law (or every track) per replicate.
fn estimate(law: &Law, tracks: &[Track], settings: &TrackSettings) -> Result<Estimate> {
    let mut total = Estimate::none();
    let mut refit = 0.0;
    let mut shapes = Vec::with_capacity(tracks.len());
    for track in tracks {
        let shape = crate::fit::shape(law, &track.data, &settings.fit)?;
        total = total.plus(shape.estimate());
        refit += shape.refit_seconds();
        shapes.push(shape);
    }
    let count = tracks.len();
    if let (false, Some(base)) = (settings.shared.is_empty(), shapes.first()) {
        let rows: usize = tracks.iter().map(|t| t.data.target.len()).sum();
        let shared = settings.shared.len().min(base.free);
        let joint = FitShape {
            rows,
            search_rows: crate::fit::search_rows(rows),
            solve: shared + count * (base.free - shared),
            starts: count as f64 + 1.0 + base.starts,
            ..base.clone()
        };
        total = total.plus(joint.estimate().described(
            count as f64,
            "tracks",
            Some(Setting::Track),
        ));
        // A replicate reruns every start of the joint search that reached no optimum of the
        // original (fit/basins.rs): with one start per track, about all of them.
        refit = joint.seconds();
    }
    if settings.calibration.is_some() {
        let origins = crate::uncertainty::calibration::DEFAULT_ORIGINS as f64;
        let again = total.clone().work_only();
        total = total.plus(again.repeated(origins, "rolling origins", None));
    }
    if settings.bootstrap > 0 {
        if settings.bootstrap > crate::limits::MAX_REPLICATES {
            crate::limits::check_replicates(settings.bootstrap, settings.level)?;
        }
        let replicates = settings.bootstrap as f64;
        let draws =
            replicates * count as f64 * (8.0 * shapes.first().map_or(0, |s| s.free) as f64 + 64.0);
        total = total.plus(
            Estimate::of(refit, 0.0)
                .described(count as f64, "tracks", Some(Setting::Track))
                .repeated(replicates, "bootstrap replicates", Some(Setting::Bootstrap))
                .holding(draws),
        );
    }
    Ok(total)
}

/// 25 budgets from the smallest run's compute to 100× the largest.
fn budget_grid(law: &Law, tracks: &[Track], flops: &Flops) -> Result<Vec<f64>> {
    let (Some(n), Some(d)) = (law.variable_index("N"), law.variable_index("D")) else {
        return Err(Error::settings(
            "the plot is loss against compute: the law needs variables N and D",
        ));
    };
    let computes: Vec<f64> = tracks
        .iter()
        .flat_map(|t| (0..t.data.target.len()).map(move |r| (t, r)))
        .map(|(t, r)| flops.at(t.data.variables[n][r], t.data.variables[d][r]))
        .filter(|c| *c > 0.0 && c.is_finite())
        .collect();
    let lo = computes.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = computes.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 100.0;
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(Error::settings("no run has a positive compute"));
    }
    Ok((0..25)
        .map(|i| (lo.ln() + (hi.ln() - lo.ln()) * i as f64 / 24.0).exp())
        .collect())
}
