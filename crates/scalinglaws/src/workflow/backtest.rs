//! Does the law extrapolate on this data? Fit on the smaller scales, score the predictions of
//! the held-out larger ones (`analysis::backtest`): build the law, its settings and data, check
//! that the rows can determine it, read the scale column, and number the held-out rows as the
//! file does. With a sweep in the recipe, the rows are each cell's frontier (`Table::swept`),
//! and each training fit's intervals carry the choice sd of its own cells. The holdout's
//! numbers, defaults and rules are `analysis::backtest::Holdout`'s; the command line's
//! `backtest` and Python's `backtest` only build this spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::backtest::{
    backtest_swept, Backtest, BacktestOptions, Holdout, HoldoutScheme, SweptRows,
};
use crate::data::recipe::{Recipe, Table};
use crate::data::sweep::Frontier;
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::fit::result::DataSummary;
use crate::job::fit::{
    check_enough_rows, default_level, yes, FitJob, LawChoice, ModelRequest, RecipeRequest,
    SettingsJob,
};
use crate::job::UncertaintySettings;
use crate::text;
use crate::uncertainty::CalibrationOptions;

/// The workflow.
pub struct BacktestWorkflow;

/// A backtest as a face sends it: the recipe, the law and how it is fitted, the scale column,
/// exactly one way of holding out, and the scored intervals (level, the training fits'
/// bootstrap, whether they are calibrated).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct BacktestRequest {
    /// `target`, `map`, `derive`, `where`, `weights`, `trials`, `exposure` and `sweep`.
    #[serde(flatten)]
    pub recipe: RecipeRequest,
    /// The law and how it is fitted.
    #[serde(flatten)]
    pub model: ModelRequest,
    /// The column that orders scale (e.g. compute): fit on small values, predict large ones.
    pub by: String,
    /// Hold out the rows at the K largest distinct values of `by`.
    #[serde(default)]
    pub holdout_top: Option<usize>,
    /// Hold out the largest fraction F of rows by `by` (ties held out together).
    #[serde(default)]
    pub holdout_frac: Option<f64>,
    /// Rollout over this many groups of scales: fit up to each group, predict the next.
    #[serde(default)]
    pub rollout: Option<usize>,
    /// Rolling origins, at most this many: fit on the scale groups up to each origin (from
    /// half the groups to all but the last) and predict every run beyond it.
    #[serde(default)]
    pub rolling: Option<usize>,
    /// Score each split's intervals as `predict` would give them, calibrated beyond the data
    /// (the cross-study prior updated by backtests nested inside each split's own training
    /// rows); false scores the training fits' own.
    #[serde(default = "yes")]
    pub calibrate: bool,
    /// Level of the prediction intervals whose coverage is scored.
    #[serde(default = "default_level")]
    pub level: f64,
    /// Bootstrap replicates per training fit for its intervals (0: the delta method).
    #[serde(default)]
    pub bootstrap: usize,
}

/// A backtest to run: the columns, the law, how to fit it, the scale column, what to hold out
/// and the uncertainty of the training fits.
#[derive(Debug, Clone)]
pub struct BacktestJob {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsJob,
    /// The column that orders scale.
    pub by: String,
    pub holdout: Holdout,
    /// The level of the scored intervals, the replicates of each training fit's bootstrap,
    /// whether its intervals are calibrated, and the seed of its draws (the rest unused).
    pub uncertainty: UncertaintySettings,
}

impl TryFrom<BacktestRequest> for BacktestJob {
    type Error = Error;

    fn try_from(request: BacktestRequest) -> Result<BacktestJob> {
        let holdout = holdout(&request)?;
        let seed = request.model.law.seed;
        let (law, settings) = request.model.model()?;
        Ok(BacktestJob {
            recipe: Recipe::try_from(request.recipe)?,
            law,
            settings,
            by: request.by.trim().to_string(),
            holdout,
            uncertainty: UncertaintySettings {
                bootstrap: crate::uncertainty::replicates(request.bootstrap),
                level: request.level,
                calibrate: request.calibrate,
                seed,
                ..UncertaintySettings::default()
            },
        })
    }
}

/// The one way of holding out a request gives.
fn holdout(request: &BacktestRequest) -> Result<Holdout> {
    Holdout::one_of(
        request.holdout_top,
        request.holdout_frac,
        request.rollout,
        request.rolling,
    )
}

impl BacktestJob {
    /// Every rule that needs no data: the holdout's number and the level in range, and the
    /// scale column not a swept one.
    pub fn check(&self) -> Result<()> {
        self.holdout.check()?;
        crate::uncertainty::check_level(self.uncertainty.level)?;
        let by = self.by.trim();
        if by.is_empty() {
            return Err(Error::setting(
                Setting::By,
                text!["name the column that orders scale: ", Setting::By.named()],
            ));
        }
        // With a sweep, each cell's frontier row stands for the cell (`Table::swept`).
        if self.recipe.sweep.iter().any(|c| c.trim() == by) {
            return Err(Error::setting(
                Setting::By,
                text![
                    Setting::By.text(self.by.as_str()),
                    " is a swept column: a cell's runs differ in it; order scale by a column \
                     constant within each cell (N, D or C)"
                ],
            ));
        }
        Ok(())
    }

    /// The backtest on `table` (prepared with this job's recipe), its held-out rows numbered
    /// as the file numbers them.
    pub fn run(&self, table: &Table) -> Result<Backtest> {
        Ok(self.run_labelled(table)?.1)
    }

    /// [`Self::run`], with the label of the law it built (as reports name it).
    fn run_labelled(&self, table: &Table) -> Result<(String, Backtest)> {
        self.check()?;
        // Every step on the pool of `threads` workers, not only the fits' searches.
        crate::fit::with_threads(self.settings.settings.threads, || self.run_on_pool(table))?
    }

    fn run_on_pool(&self, table: &Table) -> Result<(String, Backtest)> {
        let law = self.law.build(table)?;
        let settings = self.settings.for_law(&self.law);
        let (table, frontier) = table.swept(&law, &self.recipe, &settings)?;
        let table = table.as_ref();
        let data = table.fit_data(&law, &self.recipe, settings.space)?;
        check_enough_rows(&law, &settings, table)?;
        let scale = table.values(&self.by, Setting::By)?;
        self.estimate(&law, &data, &settings)?
            .check(settings.max_work)?;
        let sweep = frontier
            .map(|frontier| swept_rows(table, frontier))
            .transpose()?;
        let options = self.options();
        let mut result = backtest_swept(&law, &data, &scale, &settings, &options, sweep.as_ref())
            .map_err(|e| e.within(text![format!("backtest by '{}'", self.by)]))?;
        for point in result.splits.iter_mut().flat_map(|s| s.points.iter_mut()) {
            point.row = table.file_row(point.row).unwrap_or(point.row + 1);
        }
        Ok((law.label().to_string(), result))
    }

    /// The work of the backtest before it starts ([`crate::work`]): each split's training fit
    /// with its uncertainty, costed as a fit of every row (an upper estimate), times the
    /// splits (at most one per row).
    pub fn estimate(
        &self,
        law: &crate::Law,
        data: &crate::fit::FitData,
        settings: &crate::fit::FitSettings,
    ) -> Result<crate::work::Estimate> {
        let fit = FitJob {
            recipe: self.recipe.clone(),
            law: self.law.clone(),
            settings: self.settings.clone(),
            uncertainty: self.uncertainty.clone(),
            qc: crate::job::qc::QcMode::Off,
        };
        let (splits, setting) = match self.holdout {
            Holdout::Top(_) => (1, Setting::HoldoutTop),
            Holdout::Fraction(_) => (1, Setting::HoldoutFrac),
            Holdout::Rollout(groups) => (groups.saturating_sub(1), Setting::Rollout),
            Holdout::Rolling(origins) => (origins, Setting::Rolling),
        };
        let splits = splits.clamp(1, data.target.len().max(1)) as f64;
        Ok(fit
            .estimate(law, data, settings)?
            .repeated(splits, "backtest splits", Some(setting)))
    }

    /// The analysis' options: the holdout, the uncertainty.
    pub fn options(&self) -> BacktestOptions {
        let uncertainty = &self.uncertainty;
        BacktestOptions {
            holdout: self.holdout,
            level: uncertainty.level,
            bootstrap: uncertainty.bootstrap,
            calibrate: uncertainty.calibrate.then(|| CalibrationOptions {
                level: uncertainty.level,
                ..CalibrationOptions::default()
            }),
            seed: uncertainty.seed,
        }
    }
}

/// A backtest (what `backtest` returns): where the runs came from, the law, the scale column
/// and the scheme of holding out, with every split's fit and scores.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "Backtest")]
pub struct BacktestResult {
    /// The law as reports name it.
    pub law: String,
    /// Where the runs came from, and what the filters removed.
    pub data: DataSummary,
    /// The column that orders scale.
    pub by: String,
    /// How the rows were held out (`holdout` says it in words, with its number).
    pub scheme: HoldoutScheme,
    #[serde(flatten)]
    pub backtest: Backtest,
}

impl Document for BacktestResult {
    const KIND: &'static str = "backtest";
}

impl Workflow for BacktestWorkflow {
    const NAME: &'static str = "backtest";
    const SUMMARY: &'static str =
        "Fits on the smaller scales and scores the predictions of the held-out larger ones";
    type Request = BacktestRequest;
    type Spec = BacktestJob;
    type Output = BacktestResult;
    type Input = Table;

    fn spec(request: BacktestRequest) -> Result<BacktestJob> {
        BacktestJob::try_from(request)
    }

    fn check(spec: &BacktestJob) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &BacktestJob) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &BacktestJob, table: &Table, ctx: &Ctx) -> Result<BacktestResult> {
        let mut job = spec.clone();
        ctx.apply(&mut job.settings.settings);
        let (law, backtest) = job.run_labelled(table)?;
        Ok(BacktestResult {
            law,
            data: table.summary(&job.recipe),
            by: job.by.clone(),
            scheme: job.holdout.scheme(),
            backtest,
        })
    }
}

/// Which cell of `frontier` each row of the frontier table `table` stands for (its best run,
/// by the file row both record).
fn swept_rows(table: &Table, frontier: Frontier) -> Result<SweptRows> {
    let cell_of_best: std::collections::HashMap<usize, usize> = frontier
        .cells
        .iter()
        .enumerate()
        .map(|(i, cell)| (cell.best_row, i))
        .collect();
    let cell_of_row = (0..table.dataset.n_rows())
        .map(|r| {
            let row = table.file_row(r).unwrap_or(r + 1);
            cell_of_best.get(&row).copied().ok_or_else(|| {
                Error::fit(text![format!(
                    "row {row} of the sweep's frontier stands for none of its cells"
                )])
            })
        })
        .collect::<Result<Vec<usize>>>()?;
    Ok(SweptRows {
        frontier,
        cell_of_row,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Mention, Wording};

    #[test]
    fn a_python_request_deserialises_into_a_job() {
        let request: BacktestRequest = serde_json::from_str(
            r#"{"target": "loss", "law": "chinchilla", "loss": "huber", "f_scale": 0.001,
                "space": null, "seed": 5, "threads": null, "by": "C", "holdout_top": null,
                "holdout_frac": 0.2, "rollout": null, "rolling": null, "calibrate": true,
                "level": 0.9, "bootstrap": 0}"#,
        )
        .unwrap();
        let job = BacktestJob::try_from(request).unwrap();
        assert_eq!(job.holdout, Holdout::Fraction(0.2));
        assert_eq!(job.by, "C");
        let options = job.options();
        assert_eq!(options.seed, 5);
        assert_eq!(options.bootstrap, None);
        assert!(options.calibrate.is_some());
        assert!((options.level - 0.9).abs() < 1e-12);
    }

    #[test]
    fn a_request_holding_out_two_ways_is_refused() {
        let request: BacktestRequest = serde_json::from_str(
            r#"{"target": "loss", "law": "chinchilla", "by": "C", "holdout_top": 2,
                "holdout_frac": 0.2}"#,
        )
        .unwrap();
        let error = BacktestJob::try_from(request).unwrap_err();
        assert!(error.to_string().contains("exactly one"), "{error}");
    }

    /// A wording that brackets every mention.
    struct Brackets;

    impl Wording for Brackets {
        fn word(&self, mention: &Mention) -> String {
            match mention {
                Mention::Value(setting, value) => format!("<{} {}>", setting.name(), value.raw()),
                other => format!("<{other:?}>"),
            }
        }
    }

    static BRACKETS: Brackets = Brackets;

    /// A split that cannot be fitted stores its error with its mentions of settings, for each
    /// front end to word; the saved result words them neutrally.
    #[test]
    fn a_failed_split_keeps_its_mentions_for_the_front_end() {
        use crate::data::{Column, Dataset};
        let n: Vec<f64> = (1..=8).map(|i| 10f64.powi(i)).collect();
        let loss: Vec<f64> = n.iter().map(|n| 2.0 + 50.0 * n.powf(-0.3)).collect();
        let dataset = Dataset::from_columns(
            "memory",
            vec![
                ("N".to_string(), Column::Numeric(n)),
                ("loss".to_string(), Column::Numeric(loss)),
            ],
        )
        .unwrap();
        let recipe = Recipe {
            target: "loss".into(),
            ..Recipe::default()
        };
        let table = Table::prepare(dataset, &recipe).unwrap();
        let job = BacktestJob {
            recipe,
            law: LawChoice::Formula("E + A*N^-a".into()),
            settings: SettingsJob {
                settings: Default::default(),
                space: None,
                heteroscedastic: None,
            },
            by: "N".into(),
            // The first step trains on one scale: fewer rows than the three parameters.
            holdout: Holdout::Rollout(8),
            uncertainty: UncertaintySettings::default(),
        };
        let result = job.run(&table).unwrap();
        let error = result.splits[0].error.as_ref().expect("the split fails");
        let worded = error.worded(&BRACKETS);
        assert!(worded.contains('<'), "{worded}");
        let saved = serde_json::to_value(&result.splits[0]).unwrap();
        assert_eq!(saved["error"].as_str(), Some(error.to_string().as_str()));
    }
}
