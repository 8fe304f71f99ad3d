//! [`FitJob`]: the fit workflow, written once for every front end. Given a prepared table it
//! builds the law, checks that the rows can determine it, fits, fits the variance model when
//! asked, calibrates prediction intervals beyond the data, computes profile-likelihood
//! intervals and the bootstrap, and records where every number came from.
//!
//! A job is plain data: the CLI fills one from its parsed arguments, Python deserialises one
//! from the flat request it sends ([`FitRequest`]: the recipe of [`RecipeRequest`], the law and
//! how it is fitted of [`ModelRequest`], the intervals of [`UncertaintyRequest`], and
//! `profiles`, `by`, `heteroscedastic`, `qc`). Other workflows that fit a law flatten the same
//! parts, each only those it uses.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use crate::data::recipe::{Derive, Filter, Recipe, Table};
use crate::data::sweep::Frontier;
use crate::error::{Error, Location, Result, Setting, Text};
use crate::fit::{self, Bounds, Family, FamilyKind, FitData, FitSettings, LossKind, Space};
use crate::law::catalog::{self, DefaultSpace};
use crate::law::Law;
use crate::text;
use crate::uncertainty::bootstrap::attach;
use crate::uncertainty::profile::profiled_param;
use crate::uncertainty::{
    bootstrap, calibrate, profile, BootstrapOptions, CalibrationOptions, FitRecord, Resampling,
};
use crate::work::{Estimate, FitShape};

use super::qc::{self as qc_stage, FitQc, QcMode};

/// Which law to fit: a catalog name (`chinchilla`, `bnsl:2`) or a formula.
#[derive(Debug, Clone, PartialEq)]
pub enum LawChoice {
    Catalog(String),
    Formula(String),
}

impl LawChoice {
    /// The law a request names: exactly one of a catalog name and a formula. The one check of
    /// this rule; every face's request comes through here.
    pub fn from_request(law: Option<String>, formula: Option<String>) -> Result<LawChoice> {
        match (law, formula) {
            (Some(name), None) => Ok(LawChoice::Catalog(name.trim().to_string())),
            (None, Some(text)) => Ok(LawChoice::Formula(text)),
            _ => Err(Error::setting(
                Setting::Law,
                text![
                    "give exactly one of ",
                    Setting::Law.text("NAME"),
                    " and ",
                    Setting::Formula.text("TEXT")
                ],
            )),
        }
    }

    /// The law; a formula's variables are the table's columns (and map/derive names), and
    /// its errors name the formula setting.
    pub fn build(&self, table: &Table) -> Result<Law> {
        match self {
            LawChoice::Catalog(name) => catalog::lookup(name),
            LawChoice::Formula(text) => {
                let is_variable = |name: &str| table.resolve(name).is_some();
                Law::from_formula(text, &is_variable).map_err(|e| e.within(Setting::Formula))
            }
        }
    }

    /// The space residuals are taken in when none is asked for: the catalog law's own
    /// (linear for laws of quantities that can cross zero), log for everything else.
    pub fn default_space(&self) -> Space {
        match self {
            LawChoice::Catalog(name) => match catalog::entry(name).map(|e| e.default_space) {
                Some(DefaultSpace::Linear) => Space::Linear,
                _ => Space::Log,
            },
            LawChoice::Formula(_) => Space::Log,
        }
    }
}

/// How the law is fitted, before the law is known: `space` None means the law's default.
#[derive(Debug, Clone)]
pub struct SettingsJob {
    /// Every setting but the space (and the variance model, which needs the data).
    pub settings: FitSettings,
    pub space: Option<Space>,
    /// The column the residual scale varies with, σ(x) = σ0·(x/x0)^s (linear loss only).
    pub heteroscedastic: Option<String>,
}

impl SettingsJob {
    /// The settings for `law`: the asked-for space, else the law's default.
    /// The count and proportion families take the target as it is: linear space unless one
    /// is asked for (which the fit then refuses).
    pub fn for_law(&self, law: &LawChoice) -> FitSettings {
        let as_it_is = self
            .settings
            .family
            .is_some_and(|f| !f.kind.location_scale());
        let default = if as_it_is {
            Space::Linear
        } else {
            law.default_space()
        };
        FitSettings {
            space: self.space.unwrap_or(default),
            ..self.settings.clone()
        }
    }
}

/// The uncertainty asked of a fit, and the one seed of its random steps.
#[derive(Debug, Clone, PartialEq)]
pub struct UncertaintySettings {
    /// Bootstrap replicates (None: no bootstrap).
    pub bootstrap: Option<usize>,
    /// Resample whole runs named by this column instead of rows.
    pub cluster: Option<String>,
    /// Level of the bootstrap, profile and calibrated intervals.
    pub level: f64,
    /// Parameters with profile-likelihood intervals.
    pub profiles: Vec<String>,
    /// Calibrate prediction intervals beyond the data, ordering scale by `by`.
    pub calibrate: bool,
    pub by: Option<String>,
    /// Seed of every random step (the fit itself is deterministic).
    pub seed: u64,
}

impl Default for UncertaintySettings {
    fn default() -> Self {
        UncertaintySettings {
            bootstrap: None,
            cluster: None,
            level: crate::uncertainty::DEFAULT_LEVEL,
            profiles: Vec::new(),
            calibrate: true,
            by: None,
            seed: 0,
        }
    }
}

/// A fit to run: which columns feed the law, the law, the settings and the uncertainty.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "FitRequest")]
pub struct FitJob {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsJob,
    pub uncertainty: UncertaintySettings,
    /// Quality control of the runs before the fit (`crate::data::qc`): warn, exclude or off.
    pub qc: QcMode,
}

/// A fit job's schema is its request's: the shape it is deserialised from.
impl schemars::JsonSchema for FitJob {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        FitRequest::schema_name()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        FitRequest::json_schema(generator)
    }
}

/// What [`FitJob::run`] gives: the record (the fit with its data summary, bootstrap, profiles
/// and calibration), and the law and data it was fitted with (for plots and reports).
#[derive(Debug, Clone)]
pub struct FitOutcome {
    pub result: FitRecord,
    pub law: Law,
    pub data: FitData,
    /// The rows fitted, when they are not the input table's own (a sweep's frontier rows, or
    /// the rows QC's `exclude` kept): what a workflow that reads more columns of the fitted
    /// rows (sensitivity's scale) reads.
    pub rows: Option<Table>,
}

impl FitJob {
    /// Every rule between its settings that needs no data, checked before the data are read:
    /// the level of its intervals, a cluster only with a bootstrap, and a variance model only
    /// under a Gaussian likelihood.
    pub fn check(&self) -> Result<()> {
        crate::uncertainty::check_level(self.uncertainty.level)?;
        self.check_cluster()?;
        match &self.settings.heteroscedastic {
            Some(column) => check_variance_loss(&self.settings.for_law(&self.law), column),
            None => Ok(()),
        }
    }

    /// The whole fit on `table` (prepared with this job's recipe); `progress` hears the
    /// number of bootstrap replicates done.
    pub fn run(&self, table: &Table, progress: &(dyn Fn(usize) + Sync)) -> Result<FitOutcome> {
        self.run_adding(table, progress, &|_| Estimate::none())
    }

    /// [`FitJob::run`] for a workflow that does more with the fit (a report's page): `more`
    /// costs that work from the fit's shape, checked with the fit's before anything runs.
    pub fn run_adding(
        &self,
        table: &Table,
        progress: &(dyn Fn(usize) + Sync),
        more: &(dyn Fn(&FitShape) -> Estimate + Sync),
    ) -> Result<FitOutcome> {
        // Every step on the pool of `threads` workers, not only the fits' searches.
        crate::fit::with_threads(self.settings.settings.threads, || {
            self.run_on_pool(table, progress, more)
        })?
    }

    fn run_on_pool(
        &self,
        table: &Table,
        progress: &(dyn Fn(usize) + Sync),
        more: &(dyn Fn(&FitShape) -> Estimate + Sync),
    ) -> Result<FitOutcome> {
        let recipe = &self.recipe;
        let law = self.law.build(table)?;
        let mut settings = self.settings.for_law(&self.law);
        // The record of the seed the uncertainty steps use (nothing reads it back).
        settings.seed = self.uncertainty.seed;
        let (rows, mut qc, sweep) = self.rows_to_fit(table, &law, &settings)?;
        let table = rows.as_ref().unwrap_or(table);
        let data = table.fit_data(&law, recipe, settings.space)?;
        if let Some(column) = &self.settings.heteroscedastic {
            check_variance_loss(&settings, column)?;
            settings.heteroscedastic = Some(table.heteroscedastic(&law, &data, column)?);
        }
        check_enough_rows(&law, &settings, table)?;
        // Check what the intervals need before the work starts.
        for name in &self.uncertainty.profiles {
            profiled_param(&law, &settings, name)?;
        }
        let resampling = self.resampling(table)?;
        let shape = fit::shape(&law, &data, &settings)?;
        self.estimate_shape(&shape, &settings)?
            .plus(more(&shape))
            .check(settings.max_work)?;
        let mut result = FitRecord::from(fit::fit(&law, &data, &settings)?);
        if self.qc == QcMode::Warn {
            qc = self.qc_after(table, &law, &settings, &result.param_values())?;
        }
        result.qc = qc;
        result.sweep = sweep;
        if self.uncertainty.calibrate {
            self.calibrate(&mut result, &law, &data, &settings, table)?;
        }
        self.add_profiles(&mut result, &law, &data, &settings)?;
        if let Some(replicates) = self.uncertainty.bootstrap {
            let options = BootstrapOptions {
                replicates,
                level: self.uncertainty.level,
                seed: self.uncertainty.seed,
                resampling,
            };
            let summary = bootstrap(&law, &data, &settings, &result, &options, progress)?;
            attach(&mut result, summary);
        }
        result.data = Some(table.describe_fit(&mut result.fit, &law, recipe));
        Ok(FitOutcome {
            result,
            law,
            data,
            rows,
        })
    }

    /// The rows the fit reads: under a sweep each cell's frontier row, then without the rows
    /// QC's `exclude` flags among them (QC judges the frontier rows, so a sweep's planned arms
    /// are not outliers); None when they are `table`'s own.
    fn rows_to_fit(
        &self,
        table: &Table,
        law: &Law,
        settings: &FitSettings,
    ) -> Result<(Option<Table>, Option<FitQc>, Option<Frontier>)> {
        let (swept, sweep) = table.swept(law, &self.recipe, settings)?;
        let (kept, qc) = self.qc_before(swept.as_ref(), law, settings)?;
        let rows = match (kept, swept) {
            (Some(kept), _) => Some(kept),
            (None, Cow::Owned(frontier)) => Some(frontier),
            (None, Cow::Borrowed(_)) => None,
        };
        Ok((rows, qc, sweep))
    }

    /// The QC stage before the fit: with `exclude`, the table without the flagged rows and
    /// the record of them. `warn` and `off` change nothing here: a row the fit cannot use gets
    /// the table's own message (file, row, line and column), and `warn`'s flags are recorded
    /// after the fit, against its law. A law variable the table lacks is left to the same
    /// message, for every mode.
    fn qc_before(
        &self,
        table: &Table,
        law: &Law,
        settings: &FitSettings,
    ) -> Result<(Option<Table>, Option<FitQc>)> {
        let unresolved = law.variables.iter().any(|v| table.resolve(v).is_none());
        if self.qc != QcMode::Exclude || unresolved {
            return Ok((None, None));
        }
        let columns = self.qc_columns(table, law, settings);
        let thresholds = crate::data::qc::QcSettings::default();
        match self.qc {
            QcMode::Off | QcMode::Warn => Ok((None, None)),
            QcMode::Exclude => {
                let with = qc_stage::QcLaw {
                    law,
                    settings,
                    recipe: &self.recipe,
                };
                // A family's residuals have no one scale: no law rule (see `qc_after`).
                let with = settings.family.is_none().then_some(&with);
                let report = qc_stage::check_table(table, &columns, &thresholds, with, None)?;
                if report.flags.is_empty() {
                    return Ok((None, None));
                }
                let keep = qc_stage::kept(&report, table);
                let removed = qc_stage::flagged_file_rows(&report.flags);
                Ok((
                    Some(table.keep_rows(&keep)),
                    Some(FitQc {
                        mode: QcMode::Exclude,
                        report,
                        removed,
                    }),
                ))
            }
        }
    }

    /// The flags of `warn` against the fitted law (None: nothing flagged).
    fn qc_after(
        &self,
        table: &Table,
        law: &Law,
        settings: &FitSettings,
        params: &[f64],
    ) -> Result<Option<FitQc>> {
        let columns = self.qc_columns(table, law, settings);
        if settings.family.is_some() {
            // A family's residuals have no one scale (their spread follows the mean): the law
            // rule's median/MAD does not apply, and the data rules ran before the fit.
            let thresholds = crate::data::qc::QcSettings::default();
            let report = qc_stage::check_table(table, &columns, &thresholds, None, None)?;
            return Ok((!report.flags.is_empty()).then_some(FitQc {
                mode: QcMode::Warn,
                report,
                removed: Vec::new(),
            }));
        }
        let with = qc_stage::QcLaw {
            law,
            settings,
            recipe: &self.recipe,
        };
        let thresholds = crate::data::qc::QcSettings::default();
        let report =
            qc_stage::check_table(table, &columns, &thresholds, Some(&with), Some(params))?;
        Ok((!report.flags.is_empty()).then_some(FitQc {
            mode: QcMode::Warn,
            report,
            removed: Vec::new(),
        }))
    }

    /// The columns QC reads. Under a sweep the swept columns tell runs apart (two arms of
    /// one cell with one loss are no duplicates), and no neighbour rule runs (a cell's rows
    /// are its frontier, one each).
    fn qc_columns(&self, table: &Table, law: &Law, settings: &FitSettings) -> qc_stage::QcColumns {
        let mut columns = qc_stage::fit_columns(table, law, &self.recipe.target, settings.space);
        if !self.recipe.sweep.is_empty() {
            columns.keys.extend(self.recipe.sweep.iter().cloned());
            columns.scale.clear();
        }
        columns
    }

    /// The work of the whole job before it starts ([`crate::work`]): the fit, its rolling
    /// origins, its profiles and its bootstrap.
    pub fn estimate(&self, law: &Law, data: &FitData, settings: &FitSettings) -> Result<Estimate> {
        self.estimate_shape(&fit::shape(law, data, settings)?, settings)
    }

    /// [`FitJob::estimate`] of a fit of this shape (a group's, costed from its row count
    /// without copying its rows).
    pub fn estimate_shape(&self, shape: &FitShape, settings: &FitSettings) -> Result<Estimate> {
        let mut estimate = shape.estimate();
        // The cap answers before the budget (a count too small is said by the bootstrap).
        if let Some(replicates) = self.uncertainty.bootstrap {
            if replicates > crate::limits::MAX_REPLICATES {
                crate::limits::check_replicates(replicates, self.uncertainty.level)?;
            }
        }
        if self.uncertainty.calibrate {
            // Each origin trains on the smaller scale groups: 60 % of the rows at most on
            // average over the origins.
            let rows = (0.6 * shape.rows as f64).ceil() as usize;
            let origin = FitShape {
                rows,
                search_rows: fit::search_rows(rows),
                ..shape.clone()
            };
            let origins = crate::uncertainty::calibration::DEFAULT_ORIGINS as f64;
            estimate = estimate.plus(origin.estimate().work_only().repeated(
                origins,
                "rolling origins",
                None,
            ));
        }
        for _ in &self.uncertainty.profiles {
            let refits = crate::uncertainty::profile::MOST_REFITS as f64;
            let profile = Estimate::of(shape.refit_seconds(), 0.0)
                .described(shape.rows as f64, "rows", None)
                .repeated(refits, "refits of a profile", Some(Setting::Profile));
            estimate = estimate.plus(profile);
        }
        if let Some(replicates) = self.uncertainty.bootstrap {
            estimate = estimate.plus(bootstrap_estimate(shape, replicates, settings.threads));
        }
        Ok(estimate)
    }

    fn resampling(&self, table: &Table) -> Result<Resampling> {
        self.check_cluster()?;
        Ok(match &self.uncertainty.cluster {
            None => Resampling::Rows,
            Some(column) => Resampling::Clusters {
                column: column.clone(),
                ids: table.run_ids(column, Setting::Cluster)?,
            },
        })
    }

    /// A cluster column resamples whole runs for the bootstrap: refused without one.
    fn check_cluster(&self) -> Result<()> {
        if self.uncertainty.cluster.is_some() && self.uncertainty.bootstrap.is_none() {
            return Err(Error::setting(
                Setting::Cluster,
                text![
                    Setting::Cluster.named(),
                    " resamples whole runs for the bootstrap: give ",
                    Setting::Bootstrap.number("K"),
                    " (K > 0) with it, or leave it out"
                ],
            ));
        }
        Ok(())
    }

    fn calibrate(
        &self,
        result: &mut FitRecord,
        law: &Law,
        data: &FitData,
        settings: &FitSettings,
        table: &Table,
    ) -> Result<()> {
        let (by, scale) = table.scale(law, data, self.uncertainty.by.as_deref(), Setting::By)?;
        let options = CalibrationOptions {
            level: self.uncertainty.level,
            ..CalibrationOptions::default()
        };
        let calibration = calibrate(law, data, &by, &scale, settings, &options)?;
        result.calibration = Some(calibration.require_rule());
        Ok(())
    }

    /// Profile-likelihood intervals; one that cannot be computed leaves a warning (the fit
    /// stands) unless the request itself was wrong.
    fn add_profiles(
        &self,
        result: &mut FitRecord,
        law: &Law,
        data: &FitData,
        settings: &FitSettings,
    ) -> Result<()> {
        for name in &self.uncertainty.profiles {
            match profile(law, data, settings, result, name, self.uncertainty.level) {
                Ok(profile) => result.profiles.push(profile),
                Err(error) if !error.is_input_error() && !error.is_interrupted() => {
                    result.warnings.push(error.text())
                }
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }
}

/// The work of `replicates` bootstrap refits of a fit of `shape`: each a warm refit, every
/// worker holding its replicate's weights, the draws kept.
pub fn bootstrap_estimate(shape: &FitShape, replicates: usize, threads: Option<usize>) -> Estimate {
    let workers = crate::limits::threads(threads.unwrap_or(crate::limits::max_threads())) as f64;
    let draw_bytes = 8.0 * shape.free as f64 + 64.0;
    Estimate::of(shape.refit_seconds(), 16.0 * shape.rows as f64 * workers)
        .described(shape.rows as f64, "rows", None)
        .repeated(
            replicates as f64,
            "bootstrap replicates",
            Some(Setting::Bootstrap),
        )
        .holding(replicates as f64 * draw_bytes)
}

/// The variance model σ(x) = σ0·(x/x0)^s is a Gaussian likelihood: it needs the linear loss.
fn check_variance_loss(settings: &FitSettings, column: &str) -> Result<()> {
    match settings.family {
        Some(f) if f.kind == crate::fit::FamilyKind::Gaussian => return Ok(()),
        Some(f) => {
            return Err(Error::setting(
                Setting::Heteroscedastic,
                text![
                    Setting::Heteroscedastic.text(column),
                    format!(
                        ": the variance model sigma(x) = sigma0*(x/x0)^s is a Gaussian likelihood; the {} family has a variance of its own, so drop it or use ",
                        f.kind.name()
                    ),
                    Setting::Family.text("gaussian"),
                ],
            ))
        }
        None if settings.loss == LossKind::Linear => return Ok(()),
        None => {}
    }
    Err(Error::setting(
        Setting::Heteroscedastic,
        text![
            Setting::Heteroscedastic.text(column),
            ": the variance model sigma(x) = sigma0*(x/x0)^s is a Gaussian likelihood, so it needs ",
            Setting::Loss.text("linear"),
            " or ",
            Setting::Family.text("gaussian"),
            " (got ",
            Setting::Loss.text(settings.loss.name()),
            ")"
        ],
    ))
}

/// Fewer rows than free parameters cannot determine the fit: say so with the file's name.
pub fn check_enough_rows(law: &Law, settings: &FitSettings, table: &Table) -> Result<()> {
    let free: Vec<&str> = law
        .param_names()
        .into_iter()
        .filter(|name| !settings.fixed.contains_key(*name))
        .collect();
    let rows = table.dataset.n_rows();
    if free.is_empty() || rows >= free.len() {
        return Ok(());
    }
    let after = if table.rows_filtered > 0 {
        text![
            format!(
                " ({} read, {} removed by ",
                table.rows_read, table.rows_filtered
            ),
            Setting::Where,
            ")"
        ]
    } else {
        Text::default()
    };
    Err(Error::Data {
        location: Location {
            file: table.dataset.source().to_string(),
            row: None,
            line: None,
            column: None,
        },
        message: text![
            format!("{rows} row{} to fit", if rows == 1 { "" } else { "s" }),
            after,
            format!(
                ", fewer than the {} free parameters ({})",
                free.len(),
                free.join(", ")
            )
        ],
        fix: text![
            "add rows, or hold parameters at known values with ",
            Setting::Fix.entry_number("NAME", "VALUE")
        ],
    })
}

// ---------------------------------------------------------------------------------------------
// The serde shape: the flat request Python sends
// ---------------------------------------------------------------------------------------------

/// How a law is named and fitted under a robust loss, as JSON: the law, the loss, the space,
/// held and bounded parameters, start values, the seed and the threads. [`ModelRequest`] adds
/// a likelihood family; `compare`, which fits every track under a loss, flattens this alone.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct LawRequest {
    /// A built-in law (`chinchilla`, `bnsl:2`; see `laws`): exactly one of law and formula.
    #[serde(default)]
    pub law: Option<String>,
    /// A law as a formula of columns and parameters (`E + A*N^-alpha`).
    #[serde(default)]
    pub formula: Option<String>,
    /// `loss`, `f_scale`, `space` and `threads`, as every request that fits reads them.
    #[serde(flatten)]
    pub fitting: LossRequest,
    /// Parameters held at given values: {name: value}.
    #[serde(default)]
    pub fix: BTreeMap<String, f64>,
    /// Bounds of parameters: {name: (low, high)}, None for no bound on that side.
    #[serde(default)]
    pub bounds: BTreeMap<String, (Option<f64>, Option<f64>)>,
    /// Start values of parameters for the global search: {name: [values]}.
    #[serde(default)]
    pub grid: BTreeMap<String, Vec<f64>>,
    /// Seed of every random step (the fit itself is deterministic).
    #[serde(default)]
    pub seed: u64,
}

impl LawRequest {
    /// The law and how it is fitted, under its loss (no family, no variance model).
    pub fn model(self) -> Result<(LawChoice, SettingsJob)> {
        let law = LawChoice::from_request(self.law, self.formula)?;
        let mut settings = self.fitting.settings()?;
        settings.settings = FitSettings {
            fixed: self.fix,
            bounds: self
                .bounds
                .into_iter()
                .map(|(name, (lower, upper))| (name, Bounds { lower, upper }))
                .collect(),
            grids: self.grid,
            seed: self.seed,
            ..settings.settings
        };
        Ok((law, settings))
    }
}

/// How a law is named and fitted, as JSON: [`LawRequest`] and a likelihood family. Every
/// request that fits one law with a family flattens it (`fit`, `sensitivity`, `backtest`), so
/// each takes these settings under one name, with one default, parsed once
/// ([`ModelRequest::model`]).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct ModelRequest {
    /// `law` or `formula`, `loss`, `f_scale`, `space`, `fix`, `bounds`, `grid`, `seed` and
    /// `threads`.
    #[serde(flatten)]
    pub law: LawRequest,
    /// A likelihood family for counts or proportions (`poisson`, `binomial`, ...).
    #[serde(default)]
    pub family: Option<String>,
    /// The Student-t family's degrees of freedom (None: fitted).
    #[serde(default)]
    pub nu: Option<f64>,
    /// A family's dispersion (None: fitted).
    #[serde(default)]
    pub dispersion: Option<f64>,
}

impl ModelRequest {
    /// The law and how it is fitted (no variance model: a request that takes one sets it).
    pub fn model(self) -> Result<(LawChoice, SettingsJob)> {
        let family = family_setting(self.family.as_deref(), self.nu, self.dispersion)?;
        let fitting = &self.law.fitting;
        if family.is_some() && (fitting.loss != huber() || fitting.f_scale != default_f_scale()) {
            return Err(Error::setting(
                Setting::Family,
                text![
                    Setting::Family.named(),
                    " replaces the loss with a likelihood: drop ",
                    Setting::Loss,
                    " and f_scale"
                ],
            ));
        }
        let (law, mut settings) = self.law.model()?;
        settings.settings.family = family;
        Ok((law, settings))
    }
}

/// A fit request as JSON: the recipe, the law and how it is fitted, and the uncertainty, all
/// at the top level (the shape `scalinglaws.fit` sends). [`FitJob`] deserialises through it.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct FitRequest {
    /// `target`, `map`, `derive`, `where`, `weights`, `trials` and `exposure`, at the top level.
    #[serde(flatten)]
    pub recipe: RecipeRequest,
    /// `law` or `formula`, `loss`, `f_scale`, `space`, `fix`, `bounds`, `grid`, `seed`,
    /// `threads` and a `family`, at the top level.
    #[serde(flatten)]
    pub model: ModelRequest,
    /// The fit's intervals (`bootstrap`, `cluster`, `level`, `calibrate`), at the top level.
    #[serde(flatten)]
    pub uncertainty: UncertaintyRequest,
    /// Parameters given profile-likelihood intervals (one name or several; the document's
    /// `profiles`).
    #[serde(default, rename = "profile", deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub profiles: Vec<String>,
    /// The column that orders scale for the calibration (None: a column `C`, else 6*N*D,
    /// else the law's first variable).
    #[serde(default)]
    pub by: Option<String>,
    /// The column the residual scale varies with (a variable of the law, or compute `C` =
    /// k*N*D; the linear loss or the gaussian family): sigma(x) = sigma0*(x/x0)^s is fitted
    /// with the law, so prediction intervals use sigma at each point (the document's
    /// `variance`).
    #[serde(default)]
    pub heteroscedastic: Option<String>,
    /// Quality control of the runs before the fit: `warn` (flag diverged, duplicated and
    /// out-of-line rows and fit every row), `exclude` (remove the flagged rows, listing them)
    /// or `off` (None: the default, `warn`).
    #[serde(default)]
    pub qc: Option<QcMode>,
}

/// The intervals asked of a fit, as JSON: the bootstrap and how it resamples, the level, and
/// whether prediction intervals are calibrated beyond the data.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct UncertaintyRequest {
    /// Bootstrap replicates of the fit (0: none).
    #[serde(default)]
    pub bootstrap: usize,
    /// Resample whole runs named by this column instead of rows.
    #[serde(default)]
    pub cluster: Option<String>,
    /// Level of the intervals.
    #[serde(default = "default_level")]
    pub level: f64,
    /// Widen prediction intervals beyond the data by the law's form error (the cross-study
    /// prior updated by the fit's backtests).
    #[serde(default = "yes")]
    pub calibrate: bool,
}

impl UncertaintyRequest {
    /// The settings, drawing with `seed` (the model's), calibrating by scale column `by`.
    pub fn settings(self, seed: u64, by: Option<String>) -> UncertaintySettings {
        UncertaintySettings {
            bootstrap: crate::uncertainty::replicates(self.bootstrap),
            cluster: self.cluster,
            level: self.level,
            profiles: Vec::new(),
            calibrate: self.calibrate,
            by,
            seed,
        }
    }
}

/// The serde defaults every job request shares: the Huber loss at the default scale, 95 %
/// intervals, calibration on.
pub(crate) fn huber() -> String {
    LossKind::Huber.name().to_string()
}

pub(crate) fn default_f_scale() -> f64 {
    FitSettings::default().f_scale
}

pub(crate) fn default_level() -> f64 {
    crate::uncertainty::DEFAULT_LEVEL
}

pub(crate) fn yes() -> bool {
    true
}

/// How laws are fitted, as JSON: the robust loss, its scale, the space and the threads. A
/// request that fits one law flattens it inside [`ModelRequest`]; the law comparisons
/// (`compare_laws`, `select`) flatten it alone, each candidate bringing its own held values.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct LossRequest {
    /// The robust loss per residual: `huber`, `linear`, `soft_l1`, `cauchy` or `arctan`.
    #[serde(default = "huber")]
    pub loss: String,
    /// The scale at which the robust loss turns from quadratic to linear.
    #[serde(default = "default_f_scale")]
    pub f_scale: f64,
    /// Where residuals are taken: `log` or `linear` (None: the law's own; laws compared side
    /// by side must agree, for likelihoods compare only in one space).
    #[serde(default)]
    pub space: Option<String>,
    /// Worker threads (None: every core, up to the cap).
    #[serde(default)]
    pub threads: Option<usize>,
}

impl LossRequest {
    /// The settings every law is fitted with (the texts parsed).
    pub fn settings(&self) -> Result<SettingsJob> {
        Ok(SettingsJob {
            settings: FitSettings {
                loss: loss(&self.loss)?,
                f_scale: self.f_scale,
                threads: self.threads,
                ..FitSettings::default()
            },
            space: self.space.as_deref().map(space).transpose()?,
            heteroscedastic: None,
        })
    }
}

impl TryFrom<FitRequest> for FitJob {
    type Error = Error;

    fn try_from(request: FitRequest) -> Result<FitJob> {
        let seed = request.model.law.seed;
        let (law, mut settings) = request.model.model()?;
        settings.heteroscedastic = request.heteroscedastic;
        Ok(FitJob {
            recipe: Recipe::try_from(request.recipe)?,
            law,
            settings,
            uncertainty: UncertaintySettings {
                profiles: request.profiles,
                ..request.uncertainty.settings(seed, request.by)
            },
            qc: request.qc.unwrap_or_default(),
        })
    }
}

/// A loss by name, or an error listing the names.
pub fn loss(name: &str) -> Result<LossKind> {
    LossKind::from_name(name).ok_or_else(|| {
        Error::settings(format!(
            "loss '{name}': use one of {}",
            LossKind::ALL.map(LossKind::name).join(", ")
        ))
    })
}

/// The family setting from its name and its nuisance values; `nu` and `dispersion` without a
/// family are refused.
pub fn family_setting(
    name: Option<&str>,
    nu: Option<f64>,
    dispersion: Option<f64>,
) -> Result<Option<Family>> {
    let Some(name) = name else {
        for (setting, given) in [
            (Setting::Nu, nu.is_some()),
            (Setting::Dispersion, dispersion.is_some()),
        ] {
            if given {
                return Err(Error::setting(
                    setting,
                    text![
                        setting.named(),
                        " belongs to a likelihood family: give ",
                        Setting::Family,
                        " too"
                    ],
                ));
            }
        }
        return Ok(None);
    };
    let kind = FamilyKind::from_name(name.trim()).ok_or_else(|| {
        let names = FamilyKind::ALL.map(FamilyKind::name);
        let hint = crate::suggest::closest(name, names)
            .map(|s| format!(" (did you mean '{s}'?)"))
            .unwrap_or_default();
        Error::setting(
            Setting::Family,
            text![
                Setting::Family.text(name),
                format!(": no such family{hint}; use one of {}", names.join(", "))
            ],
        )
    })?;
    Ok(Some(Family {
        kind,
        nu,
        dispersion,
    }))
}

/// A residual space by name, or an error naming the two.
pub fn space(name: &str) -> Result<Space> {
    match name {
        "log" => Ok(Space::Log),
        "linear" => Ok(Space::Linear),
        other => Err(Error::settings(format!(
            "space '{other}': use \"log\" or \"linear\""
        ))),
    }
}

/// `target`, `map`, `derive` and `where` of a flat request: the columns an analysis over a
/// table reads, as [`Recipe`] (with no weights, trials, exposure or sweep).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct TableRequest {
    /// The target column: the loss the laws predict (for `downstream`, the accuracy).
    pub target: String,
    /// `map`, `derive` and `where`.
    #[serde(flatten)]
    pub columns: ColumnsRequest,
}

/// `map`, `derive` and `where` of a flat request: how the columns are named, computed and
/// filtered (beside a target that is required, in [`TableRequest`], or optional, in
/// `design`'s request).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct ColumnsRequest {
    /// Law variables read from columns of other names: {variable: column}, in order.
    #[serde(default, deserialize_with = "pairs")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub map: Vec<(String, String)>,
    /// Columns computed from others: {name: expression}, in order (each may use those before).
    #[serde(default, deserialize_with = "pairs")]
    #[schemars(with = "BTreeMap<String, String>")]
    pub derive: Vec<(String, String)>,
    /// Row filters (`loss < 3.4`), one or several; rows failing any are left out and counted.
    #[serde(default, rename = "where", deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub filters: Vec<String>,
}

/// [`TableRequest`] with `weights`, `trials`, `exposure` and `sweep`: a fit's recipe, as
/// [`Recipe`].
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct RecipeRequest {
    #[serde(flatten)]
    pub table: TableRequest,
    /// A column of per-row weights.
    #[serde(default)]
    pub weights: Option<String>,
    /// A proportion family's trials: a column, or one count for every row.
    #[serde(default)]
    pub trials: Option<crate::data::recipe::Trials>,
    /// A count family's exposure column.
    #[serde(default)]
    pub exposure: Option<String>,
    /// Swept columns (learning rate, batch size, ...): one or several. The law is fitted to
    /// each cell's frontier (per value of the law's variables: the minimum of a parabola
    /// through the best setting and its neighbours, else the best run), not to every run.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub sweep: Vec<String>,
}

/// `weights` and `sweep` of a request that fits its laws under a loss (no family, so no
/// trials or exposure): `select`, `compare_laws` and `design`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct WeightsSweepRequest {
    /// A column of per-row weights.
    #[serde(default)]
    pub weights: Option<String>,
    /// Swept columns, one or several: each law is fitted on each cell's frontier, as a fit
    /// is.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub sweep: Vec<String>,
}

impl WeightsSweepRequest {
    /// The recipe of `table` with these weights and swept columns (no trials, no exposure).
    pub fn recipe(self, table: TableRequest) -> RecipeRequest {
        RecipeRequest {
            table,
            weights: self.weights,
            trials: None,
            exposure: None,
            sweep: self.sweep,
        }
    }
}

/// Values of held variables by name (`set`), each variable once.
pub fn held_by_name(set: Vec<(String, Vec<f64>)>) -> Result<BTreeMap<String, Vec<f64>>> {
    let mut held = BTreeMap::new();
    for (name, values) in set {
        if held.insert(name.clone(), values).is_some() {
            return Err(Error::setting(
                Setting::Set,
                text![
                    Setting::Set.key(name.as_str()),
                    " is given twice; give each variable once"
                ],
            ));
        }
    }
    Ok(held)
}

/// One text or several: the shape of `where`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// `where` as one filter or a list of them.
pub(crate) fn one_or_many<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Vec<String>, D::Error> {
    Ok(match OneOrMany::deserialize(deserializer)? {
        OneOrMany::One(text) => vec![text],
        OneOrMany::Many(texts) => texts,
    })
}

/// One number or several: the shape of isoflop's `budget` and of each of select's `at`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum OneOrManyNumbers {
    One(f64),
    Many(Vec<f64>),
}

impl From<OneOrManyNumbers> for Vec<f64> {
    fn from(numbers: OneOrManyNumbers) -> Vec<f64> {
        match numbers {
            OneOrManyNumbers::One(value) => vec![value],
            OneOrManyNumbers::Many(values) => values,
        }
    }
}

/// A number or a list of numbers, as a list.
pub(crate) fn one_or_many_numbers<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Vec<f64>, D::Error> {
    Ok(OneOrManyNumbers::deserialize(deserializer)?.into())
}

/// Named numbers in the order given, each one number or several: an object (`{"N": [1e9,
/// 1e10]}`, read in its order) or a list of pairs.
pub(crate) fn named_numbers<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Vec<(String, Vec<f64>)>, D::Error> {
    let named: Vec<(String, OneOrManyNumbers)> = pairs(deserializer)?;
    Ok(named.into_iter().map(|(n, v)| (n, v.into())).collect())
}

/// Named values in the order given: an object (`{"N": "params"}`, read in its order) or a list
/// of pairs (`[["N", "params"]]`).
fn pairs<'de, D: serde::Deserializer<'de>, V: Deserialize<'de>>(
    deserializer: D,
) -> std::result::Result<Vec<(String, V)>, D::Error> {
    struct Pairs<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Pairs<V> {
        type Value = Vec<(String, V)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object by name, or a list of [name, value] pairs")
        }
        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut pairs = Vec::new();
            while let Some(pair) = map.next_entry()? {
                pairs.push(pair);
            }
            Ok(pairs)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut pairs = Vec::new();
            while let Some(pair) = seq.next_element()? {
                pairs.push(pair);
            }
            Ok(pairs)
        }
    }
    deserializer.deserialize_any(Pairs(std::marker::PhantomData))
}

/// The row filters of `where`, each parsed; an error names the setting.
pub(crate) fn parse_filters(texts: &[String]) -> Result<Vec<Filter>> {
    texts
        .iter()
        .map(|text| Filter::parse(text))
        .collect::<Result<_>>()
        .map_err(|e| e.within(Setting::Where.subject()))
}

impl TryFrom<TableRequest> for Recipe {
    type Error = Error;

    fn try_from(request: TableRequest) -> Result<Recipe> {
        let columns = request.columns;
        Ok(Recipe {
            maps: columns.map,
            derives: columns
                .derive
                .iter()
                .map(|(name, expr)| Derive::parse(&format!("{name}={expr}")))
                .collect::<Result<_>>()
                .map_err(|e| e.within(Setting::Derive.subject()))?,
            filters: parse_filters(&columns.filters)?,
            target: request.target,
            weights: None,
            trials: None,
            exposure: None,
            sweep: Vec::new(),
        })
    }
}

impl TryFrom<RecipeRequest> for Recipe {
    type Error = Error;

    fn try_from(request: RecipeRequest) -> Result<Recipe> {
        Ok(Recipe {
            weights: request.weights,
            trials: request.trials,
            exposure: request.exposure,
            sweep: request.sweep,
            ..Recipe::try_from(request.table)?
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_request_deserialises_into_a_job() {
        let job: FitJob = serde_json::from_str(
            r#"{"target": "loss", "map": [["N", "params"]], "derive": [["D", "C/(6*N)"]],
                "where": ["loss < 4"], "weights": null, "law": "chinchilla", "formula": null,
                "loss": "linear", "f_scale": 0.01, "space": null, "fix": {"E": 1.7},
                "bounds": {"alpha": [0, null]}, "grid": {}, "seed": 7, "threads": null,
                "bootstrap": 0, "cluster": null, "level": 0.9, "calibrate": false, "by": null,
                "heteroscedastic": null}"#,
        )
        .unwrap();
        assert_eq!(job.law, LawChoice::Catalog("chinchilla".into()));
        assert_eq!(job.recipe.derives.len(), 1);
        assert_eq!(job.recipe.filters.len(), 1);
        assert_eq!(job.settings.settings.loss, LossKind::Linear);
        assert_eq!(job.settings.settings.fixed["E"], 1.7);
        assert_eq!(job.settings.settings.bounds["alpha"].lower, Some(0.0));
        assert_eq!(job.settings.settings.bounds["alpha"].upper, None);
        assert_eq!(job.uncertainty.bootstrap, None);
        assert_eq!(job.uncertainty.seed, 7);
        assert_eq!(job.uncertainty.level, 0.9);
        assert!(!job.uncertainty.calibrate);
    }

    #[test]
    fn a_bad_loss_is_a_settings_error_naming_the_losses() {
        let request: FitRequest =
            serde_json::from_str(r#"{"target": "loss", "law": "chinchilla", "loss": "hubber"}"#)
                .unwrap();
        let error = FitJob::try_from(request).unwrap_err();
        assert!(error.is_input_error());
        assert!(error.to_string().contains("loss 'hubber'"), "{error}");
    }

    #[test]
    fn the_default_space_is_the_catalog_laws_own() {
        assert_eq!(
            LawChoice::Formula("E + A*N^-a".into()).default_space(),
            Space::Log
        );
        let linear = catalog::ENTRIES
            .iter()
            .find(|e| e.default_space == DefaultSpace::Linear)
            .expect("the catalog has a law fitted in linear space");
        assert_eq!(
            LawChoice::Catalog(linear.name.to_string()).default_space(),
            Space::Linear
        );
        assert_eq!(
            LawChoice::Catalog("chinchilla".into()).default_space(),
            Space::Log
        );
    }
}
