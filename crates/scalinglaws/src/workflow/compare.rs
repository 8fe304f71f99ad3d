//! Which recipe wins, and by what multiplier? The recipe comparison as a workflow: the runs
//! split into tracks by a column, each fitted with one law (separately, or jointly with named
//! parameters shared), compared at budgets with intervals from a bootstrap that resamples
//! within tracks (`analysis::tracks`), each track's compute-optimal loss with the prediction
//! interval of a new run there, calibrated beyond the data by the track's rolling-origin
//! backtests. The request's defaults and every rule between its settings are here, once: the
//! command line's `compare` (and `plot tracks`) and Python's `compare` only build the spec.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::allocation::{AllocationSettings, Flops};
use crate::analysis::tracks::{
    baseline_index, check_settings, compare_tracks, split_by_labels, split_values, Track,
    TrackCalibration, TrackComparison, TrackSettings, DEFAULT_CELL_TOLERANCE,
};
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::fit::FitSettings;
use crate::job::fit::{
    check_enough_rows, default_level, held_by_name, named_numbers, one_or_many_numbers, yes,
    LawChoice, LawRequest, OneOrManyNumbers, RecipeRequest, SettingsJob, TableRequest,
};
use crate::text;
use crate::work::{Estimate, FitShape};
use crate::Law;

/// The FLOPs formula when none is given.
pub const DEFAULT_FLOPS: &str = "6*N*D";

/// The workflow.
pub struct CompareWorkflow;

/// A recipe comparison as a face sends it: the recipe, the law and how it is fitted (under a
/// loss: no family), the track column, the shared parameters and the baseline, the budgets
/// and the held variables of the allocations, and the intervals.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CompareRequest {
    /// `target`, `map`, `derive` and `where`.
    #[serde(flatten)]
    pub table: TableRequest,
    /// A column of per-row weights.
    #[serde(default)]
    pub weights: Option<String>,
    /// The law and how every track is fitted.
    #[serde(flatten)]
    pub law: LawRequest,
    /// The column naming each run's track (recipe).
    pub track: String,
    /// Parameters common to every track, as a list (none: every track fitted separately).
    #[serde(default)]
    pub shared: Vec<String>,
    /// The track the others are compared with (None: the first in the data).
    #[serde(default)]
    pub baseline: Option<String>,
    /// Budgets in FLOPs at which the tracks are compared: one or several.
    #[serde(default, deserialize_with = "one_or_many_numbers")]
    #[schemars(with = "OneOrManyNumbers")]
    pub budget: Vec<f64>,
    /// The FLOPs formula of N and D.
    #[serde(default = "default_flops")]
    pub flops: String,
    /// The law's other variables held for the allocations: {name: value or values} (several:
    /// optimised over).
    #[serde(default, deserialize_with = "named_numbers")]
    #[schemars(with = "BTreeMap<String, OneOrManyNumbers>")]
    pub set: Vec<(String, Vec<f64>)>,
    /// Bootstrap replicates, resampling within tracks (0: no intervals on the gaps and
    /// multipliers).
    #[serde(default)]
    pub bootstrap: usize,
    /// Level of the intervals.
    #[serde(default = "default_level")]
    pub level: f64,
    /// Runs whose law variables agree within this relative tolerance share a cell (for the
    /// paired wins).
    #[serde(default = "default_cell_tolerance")]
    pub cell_tolerance: f64,
    /// Calibrate each track's prediction intervals beyond the data by rolling-origin
    /// backtests of its fit (false: each fit's own).
    #[serde(default = "yes")]
    pub calibrate: bool,
    /// The column that orders scale for the calibration (None: `C`, else 6·N·D).
    #[serde(default)]
    pub by: Option<String>,
}

fn default_flops() -> String {
    DEFAULT_FLOPS.to_string()
}

fn default_cell_tolerance() -> f64 {
    DEFAULT_CELL_TOLERANCE
}

/// The comparison to run: which rows (the recipe), the law and how it is fitted, and the
/// comparison's own settings.
#[derive(Debug, Clone)]
pub struct CompareSpec {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsJob,
    pub job: CompareJob,
}

/// The comparison's own settings (serde: the fuzzer's inputs hold them).
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
    #[serde(default = "default_flops")]
    pub flops: String,
    /// Variables held at values for the allocations.
    #[serde(default)]
    pub held: BTreeMap<String, Vec<f64>>,
    /// Bootstrap replicates (0: none).
    #[serde(default)]
    pub bootstrap: usize,
    /// Level of the intervals.
    #[serde(default = "default_level")]
    pub level: f64,
    /// Runs whose law variables agree within this relative tolerance share a cell.
    #[serde(default = "default_cell_tolerance")]
    pub cell_tolerance: f64,
    /// Calibrate each track's prediction intervals beyond the data (rolling-origin backtests
    /// by `by`, or the default scale).
    #[serde(default = "yes")]
    pub calibrate: bool,
    #[serde(default)]
    pub by: Option<String>,
    /// Seed of the bootstrap within tracks.
    #[serde(default)]
    pub seed: u64,
}

impl TryFrom<CompareRequest> for CompareSpec {
    type Error = Error;

    fn try_from(request: CompareRequest) -> Result<CompareSpec> {
        let recipe = RecipeRequest {
            table: request.table,
            weights: request.weights,
            trials: None,
            exposure: None,
            sweep: Vec::new(),
        };
        let seed = request.law.seed;
        let (law, settings) = request.law.model()?;
        let held = held_by_name(request.set)?;
        Ok(CompareSpec {
            recipe: Recipe::try_from(recipe)?,
            law,
            settings,
            job: CompareJob {
                track: request.track.trim().to_string(),
                shared: request
                    .shared
                    .iter()
                    .map(|s| s.trim().to_string())
                    .collect(),
                baseline: request.baseline.map(|b| b.trim().to_string()),
                budgets: request.budget,
                grid: false,
                flops: request.flops,
                held,
                bootstrap: request.bootstrap,
                level: request.level,
                cell_tolerance: request.cell_tolerance,
                calibrate: request.calibrate,
                by: request.by.map(|b| b.trim().to_string()),
                seed,
            },
        })
    }
}

/// The comparison with the tracks it compared and the law it fitted (for plots).
#[derive(Debug, Clone)]
pub struct ComparedTracks {
    pub comparison: TrackComparison,
    pub tracks: Vec<Track>,
    pub law: Law,
}

impl CompareSpec {
    /// The rules that need no data: the comparison's (see [`CompareJob::check`]); a family, a
    /// sweep, trials or exposure (which only a Rust caller could set) are refused.
    pub fn check(&self) -> Result<()> {
        if self.settings.settings.family.is_some() {
            return Err(Error::setting(
                Setting::Family,
                text![
                    "compare fits every track under a loss: drop ",
                    Setting::Family
                ],
            ));
        }
        let why = text!["it fits every track's runs under a loss"];
        super::refuse_unused_recipe(
            &Recipe {
                weights: None,
                ..self.recipe.clone()
            },
            "compare",
            why,
        )?;
        self.job.check()
    }

    /// The comparison on `table` (prepared with this spec's recipe), once [`Self::check`]
    /// holds, with the tracks and the law.
    pub fn run(&self, table: &Table) -> Result<ComparedTracks> {
        self.check()?;
        let law = self.law.build(table)?;
        let fit = self.settings.for_law(&self.law);
        check_enough_rows(&law, &fit, table)?;
        // Every step on the pool of `threads` workers, not only the fits' searches.
        crate::fit::with_threads(fit.threads, || {
            self.job.run_on_pool(table, &self.recipe, law, fit)
        })?
    }
}

impl CompareJob {
    /// The rules that need no data: a track column, no empty shared name, the level and the
    /// cell tolerance in range, the FLOPs formula, and a scale column only for a calibration.
    pub fn check(&self) -> Result<()> {
        if self.track.is_empty() {
            return Err(Error::setting(
                Setting::Track,
                text!["name the column of each run's track by ", Setting::Track],
            ));
        }
        if self.shared.iter().any(|name| name.is_empty()) {
            return Err(Error::setting(
                Setting::Shared,
                text![
                    Setting::Shared.subject(),
                    ": a name is empty; give the names of the parameters every track shares"
                ],
            ));
        }
        check_settings(self.level, self.cell_tolerance)?;
        self.parsed_flops()?;
        if let (false, Some(by)) = (self.calibrate, &self.by) {
            return Err(Error::setting(
                Setting::By,
                text![
                    Setting::By.text(by.as_str()),
                    " orders scale for the calibration, and ",
                    Setting::Calibrate.off(),
                    " turns it off: drop one"
                ],
            ));
        }
        Ok(())
    }

    /// The FLOPs formula, parsed.
    pub fn parsed_flops(&self) -> Result<Flops> {
        Flops::parse(&self.flops).map_err(|e| e.within(Setting::Flops))
    }

    fn run_on_pool(
        &self,
        table: &Table,
        recipe: &Recipe,
        law: Law,
        mut fit: FitSettings,
    ) -> Result<ComparedTracks> {
        // The record, in each track's fit, of the seed its bootstrap used (nothing reads it).
        fit.seed = self.seed;
        let data = table.fit_data(&law, recipe, fit.space)?;
        let labels = table.track_labels(&self.track, Setting::Track)?;
        if let Some(baseline) = &self.baseline {
            table.check_track(&self.track, &labels, baseline, Setting::Baseline)?;
        }
        let tracks = split_by_labels(&data, &labels);
        let calibration = match self.calibrate {
            true => {
                let (by, scale) = table.scale(&law, &data, self.by.as_deref(), Setting::By)?;
                Some(TrackCalibration {
                    by,
                    scales: split_values(&scale, &labels),
                })
            }
            false => None,
        };
        let baseline = baseline_index(&tracks, self.baseline.as_deref(), &self.track)
            .map_err(|e| e.within(Setting::Baseline))?;
        let flops = self.parsed_flops()?;
        let budgets = match self.grid {
            true => {
                let mut budgets = budget_grid(&law, &tracks, &flops)?;
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
        estimate(&law, &tracks, &settings)?.check(settings.fit.max_work)?;
        let comparison = compare_tracks(&law, &tracks, &settings)?;
        Ok(ComparedTracks {
            comparison,
            tracks,
            law,
        })
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

/// Where the law's N and D are, for the grid of budgets and the recipes picture (loss
/// against compute FLOPs(N, D)).
pub fn n_and_d(law: &Law) -> Result<(usize, usize)> {
    match (law.variable_index("N"), law.variable_index("D")) {
        (Some(n), Some(d)) => Ok((n, d)),
        _ => Err(Error::settings(
            "the plot is loss against compute: the law needs variables N and D",
        )),
    }
}

/// 25 budgets from the smallest run's compute to 100× the largest.
fn budget_grid(law: &Law, tracks: &[Track], flops: &Flops) -> Result<Vec<f64>> {
    let (n, d) = n_and_d(law)?;
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

/// A recipe comparison (what `compare` returns): the track column, with every track's fit and
/// each track against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "TrackComparison")]
pub struct CompareResult {
    /// The column naming each run's track (None in a document written before it was kept).
    #[serde(default)]
    pub track: Option<String>,
    #[serde(flatten)]
    pub comparison: TrackComparison,
}

impl Document for CompareResult {
    const KIND: &'static str = "compare";
}

impl Workflow for CompareWorkflow {
    const NAME: &'static str = "compare";
    const SUMMARY: &'static str =
        "Fits every track (recipe) of the runs with one law, separately or with parameters shared, and says which wins at which budget and by what compute multiplier";
    type Request = CompareRequest;
    type Spec = CompareSpec;
    type Output = CompareResult;
    type Input = Table;

    fn spec(request: CompareRequest) -> Result<CompareSpec> {
        CompareSpec::try_from(request)
    }

    fn check(spec: &CompareSpec) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &CompareSpec) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &CompareSpec, table: &Table, ctx: &Ctx) -> Result<CompareResult> {
        let mut spec = spec.clone();
        ctx.apply(&mut spec.settings.settings);
        Ok(CompareResult {
            track: Some(spec.job.track.clone()),
            comparison: spec.run(table)?.comparison,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> Result<CompareSpec> {
        let request: CompareRequest = serde_json::from_str(json).unwrap();
        CompareSpec::try_from(request)
    }

    #[test]
    fn a_request_deserialises_into_a_spec() {
        let spec = spec(
            r#"{"target": "loss", "law": "chinchilla", "track": " recipe ", "shared": ["E"],
                "budget": 1e21, "set": {"U": [1, 2]}, "bootstrap": 200, "seed": 7}"#,
        )
        .unwrap();
        assert_eq!(spec.job.track, "recipe");
        assert_eq!(spec.job.shared, ["E"]);
        assert_eq!(spec.job.budgets, [1e21]);
        assert_eq!(spec.job.held["U"], [1.0, 2.0]);
        assert_eq!(spec.job.flops, DEFAULT_FLOPS);
        assert_eq!((spec.job.bootstrap, spec.job.seed), (200, 7));
        assert!(spec.job.calibrate);
        spec.check().unwrap();
    }

    #[test]
    fn the_rules_without_data_are_checked_before_any_read() {
        let base = r#""target": "loss", "law": "chinchilla", "track": "recipe""#;
        let check = |extra: &str| spec(&format!("{{{base}, {extra}}}")).unwrap().check();
        assert_eq!(
            check(r#""level": 1.5"#).unwrap_err().key(),
            Some(Setting::Level)
        );
        let tolerance = check(r#""cell_tolerance": 2"#).unwrap_err();
        assert_eq!(tolerance.key(), Some(Setting::CellTolerance));
        assert_eq!(
            check(r##""flops": "6*N*""##).unwrap_err().key(),
            Some(Setting::Flops)
        );
        let by = check(r#""calibrate": false, "by": "C""#).unwrap_err();
        assert_eq!(by.key(), Some(Setting::By));
        assert!(by.to_string().contains("drop one"), "{by}");
        let empty = check(r#""shared": ["E", ""]"#).unwrap_err();
        assert_eq!(empty.key(), Some(Setting::Shared));
        let twice = spec(&format!(r#"{{{base}, "set": [["U", 1], ["U", 2]]}}"#)).unwrap_err();
        assert_eq!(twice.key(), Some(Setting::Set));
    }
}
