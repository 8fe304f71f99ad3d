//! [`BacktestJob`]: does the law extrapolate on this data? The backtest workflow, written once
//! for every front end: build the law, its settings and data, check that the rows can
//! determine it, read the scale column, fit on the smaller scales and score the held-out
//! larger ones (`analysis::backtest`), and number the held-out rows as the file does. With a
//! sweep in the recipe, the rows are each cell's frontier (`Table::swept`), and each training
//! fit's intervals carry the choice sd of its own cells.
//!
//! Python deserialises the job from the flat request it sends ([`BacktestRequest`]: the fit
//! request's fields, `by`, and one of `holdout_top`, `holdout_frac`, `rollout`, `rolling`).

use serde::Deserialize;

use super::fit::{
    check_enough_rows, default_level, yes, FitJob, FitRequest, LawChoice, SettingsJob,
};
use super::UncertaintySettings;
use crate::analysis::backtest::{backtest_swept, Backtest, BacktestOptions, Holdout, SweptRows};
use crate::data::recipe::{Recipe, Table};
use crate::data::sweep::Frontier;
use crate::error::{Error, Result, Setting};
use crate::text;
use crate::uncertainty::CalibrationOptions;

/// A backtest to run: the columns, the law, how to fit it, the scale column, what to hold out
/// and the uncertainty of the training fits.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "BacktestRequest")]
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

impl BacktestJob {
    /// The backtest on `table` (prepared with this job's recipe), its held-out rows numbered
    /// as the file numbers them.
    pub fn run(&self, table: &Table) -> Result<Backtest> {
        // Every step on the pool of `threads` workers, not only the fits' searches.
        crate::fit::with_threads(self.settings.settings.threads, || self.run_on_pool(table))?
    }

    fn run_on_pool(&self, table: &Table) -> Result<Backtest> {
        let law = self.law.build(table)?;
        let settings = self.settings.for_law(&self.law);
        // With a sweep, each cell's frontier row stands for the cell (`Table::swept`).
        if self.recipe.sweep.iter().any(|c| c.trim() == self.by.trim()) {
            return Err(Error::setting(
                Setting::By,
                text![
                    Setting::By.text(self.by.as_str()),
                    " is a swept column: a cell's runs differ in it; order scale by a column \
                     constant within each cell (N, D or C)"
                ],
            ));
        }
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
        Ok(result)
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

/// A backtest request as JSON: a fit request (recipe, law, settings, `seed`) with the scale
/// column, the holdout, the level, the training fits' bootstrap and whether they calibrate.
#[derive(Debug, Clone, Deserialize)]
pub struct BacktestRequest {
    #[serde(flatten)]
    pub fit: FitRequest,
    pub by: String,
    #[serde(default)]
    pub holdout_top: Option<usize>,
    #[serde(default)]
    pub holdout_frac: Option<f64>,
    #[serde(default)]
    pub rollout: Option<usize>,
    #[serde(default)]
    pub rolling: Option<usize>,
    /// Score each split's intervals as `predict` would print them, calibrated beyond the data
    /// (default: yes; no scores the fits' own).
    #[serde(default = "yes")]
    pub calibrate: bool,
    #[serde(default = "default_level")]
    pub level: f64,
    /// Replicates of each training fit's bootstrap (None: none).
    #[serde(default)]
    pub bootstrap: Option<usize>,
}

impl TryFrom<BacktestRequest> for BacktestJob {
    type Error = Error;

    fn try_from(request: BacktestRequest) -> Result<BacktestJob> {
        let holdout = match (
            request.holdout_top,
            request.holdout_frac,
            request.rollout,
            request.rolling,
        ) {
            (Some(k), None, None, None) => Holdout::Top(k),
            (None, Some(f), None, None) => Holdout::Fraction(f),
            (None, None, Some(g), None) => Holdout::Rollout(g),
            (None, None, None, Some(k)) if k >= 1 => Holdout::Rolling(k),
            _ => {
                return Err(Error::settings(text![
                    "give exactly one of ",
                    Setting::HoldoutTop.number("K"),
                    ", ",
                    Setting::HoldoutFrac.number("F"),
                    ", ",
                    Setting::Rollout.number("G"),
                    " and ",
                    Setting::Rolling.number("K"),
                    " (K >= 1)"
                ]))
            }
        };
        let seed = request.fit.seed;
        let fit = FitJob::try_from(request.fit)?;
        Ok(BacktestJob {
            recipe: fit.recipe,
            law: fit.law,
            settings: fit.settings,
            by: request.by,
            holdout,
            uncertainty: UncertaintySettings {
                bootstrap: request.bootstrap.and_then(crate::uncertainty::replicates),
                level: request.level,
                calibrate: request.calibrate,
                seed,
                ..UncertaintySettings::default()
            },
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
        let job: BacktestJob = serde_json::from_str(
            r#"{"target": "loss", "law": "chinchilla", "loss": "huber", "f_scale": 0.001,
                "space": null, "seed": 5, "threads": null, "by": "C", "holdout_top": null,
                "holdout_frac": 0.2, "rollout": null, "rolling": null, "calibrate": true,
                "level": 0.9, "bootstrap": null}"#,
        )
        .unwrap();
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
