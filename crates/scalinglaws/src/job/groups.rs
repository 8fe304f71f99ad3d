//! [`GroupedFitJob`]: one law fitted to every group of a grouping column (one learning curve
//! per run, one law per task or data mix), the groups spread over the worker pool. Studies fit
//! hundreds to hundreds of thousands of small laws; a loop of single fits pays the recipe, the
//! law's compilation and the checks of the whole table once per group, and stops at the first
//! group that cannot be fitted. Here the table is read, checked and turned into the fit's data
//! once; each group is then the rows of its labels, fitted exactly as a single fit of those
//! rows would be (the same search, settings and seeded bootstrap), so the result does not
//! depend on the thread count or on which groups are fitted beside it. A group that cannot be
//! fitted (too few rows, a search that fails) is a value with its reason; only bad input (a
//! cell that is not a number, an unknown column) or an interruption stops the batch.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::fit::FitJob;
use crate::data::recipe::Table;
use crate::error::{Error, Neutral, Result, Setting};
use crate::fit::{self, FitData, FitSettings};
use crate::law::Law;
use crate::uncertainty::bootstrap::attach;
use crate::uncertainty::{bootstrap, BootstrapOptions, FitRecord, Resampling};

/// The fit of every group of the `groups` columns (a group per combination of their labels).
#[derive(Debug, Clone)]
pub struct GroupedFitJob {
    pub fit: FitJob,
    pub groups: Vec<String>,
}

/// Whether a group was fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupStatus {
    Fitted,
    /// Fitted, but the search did not converge (`reason` says how it stopped): the record is
    /// kept, and is not to be read as an optimum.
    Unconverged,
    Failed,
}

/// One group's fit, or why it has none. The fit's data summary counts the group's rows (after
/// the recipe's filters, which it lists).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupFit {
    /// The group's label in each grouping column.
    pub group: BTreeMap<String, String>,
    /// Rows of the group (after the recipe's filters).
    pub rows: usize,
    pub status: GroupStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::document::nested"
    )]
    pub fit: Option<FitRecord>,
    /// The setting the failure names, if any (not written: `reason` is its text).
    #[serde(skip)]
    pub(crate) failed_on: Option<Setting>,
}

/// Most groups one job fits (each keeps its record in memory until the batch is written).
/// (About 7 KB of memory per group of 20 rows with its record: a million groups is 7 GB.)
pub const MAX_GROUPS: usize = 1_000_000;

/// Memory of one group's record while the batch is held (measured: about 7 KB for 20 rows).
pub const GROUP_RECORD_BYTES: f64 = 8e3;

impl GroupedFitJob {
    /// The grouped job of `fit` over the `groups` columns. Calibration beyond the data is off
    /// unless asked for (`calibrate`; None: not asked, whatever the fit's own default) or a
    /// scale column `by` is named; [`GroupedFitJob::check`] refuses either (not run per group
    /// yet), naming what asked. Every face builds its grouped job here.
    pub fn new(mut fit: FitJob, groups: Vec<String>, calibrate: Option<bool>) -> GroupedFitJob {
        fit.uncertainty.calibrate = calibrate.unwrap_or(false) || fit.uncertainty.by.is_some();
        GroupedFitJob { fit, groups }
    }

    /// Every group's fit of `table`, in label order; `progress` hears the groups done and
    /// their number.
    pub fn run(
        &self,
        table: &Table,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<GroupFit>> {
        crate::fit::with_threads(self.fit.settings.settings.threads, || {
            self.run_on_pool(table, progress)
        })?
    }

    fn run_on_pool(
        &self,
        table: &Table,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<GroupFit>> {
        self.check()?;
        let job = &self.fit;
        let law = job.law.build(table)?;
        let mut settings = job.settings.for_law(&job.law);
        settings.seed = job.uncertainty.seed;
        let data = table.fit_data(&law, &job.recipe, settings.space)?;
        fit::check_data(&law, &data, &settings)?;
        let groups = table.group_rows(&self.groups, Setting::Group)?;
        if groups.len() > MAX_GROUPS {
            return Err(Error::setting(
                Setting::Group,
                crate::text![
                    Setting::Group.subject(),
                    format!(
                        ": {} groups, more than {MAX_GROUPS}; group by fewer columns or split the data",
                        groups.len()
                    )
                ],
            ));
        }
        self.estimate(&law, &settings, &groups)?
            .check(settings.max_work)?;
        let first = groups.values().next().cloned();
        let done = std::sync::atomic::AtomicUsize::new(0);
        let total = groups.len();
        let fits: Vec<Result<GroupFit>> = groups
            .into_par_iter()
            .map(|(key, rows)| {
                let group = self.groups.iter().cloned().zip(key).collect();
                let fitted = self.fit_group(table, &law, &settings, &data.subset(&rows), group);
                progress(
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
                    total,
                );
                fitted
            })
            .collect();
        let fits: Vec<GroupFit> = fits.into_iter().collect::<Result<_>>()?;
        // A batch in which no group is fitted computed nothing: it is an error, not a table
        // of failures and success. The first group's fit is repeated for its error (a setting
        // every group fails by, such as an unknown name in `fix`, reads as the batch's own;
        // a failure of the rows says which group).
        let all_failed = fits.iter().all(|f| f.status == GroupStatus::Failed);
        if let (true, Some(rows)) = (all_failed, &first) {
            if let Err(error) = self.fit_rows(table, &law, &settings, &data.subset(rows)) {
                return Err(match fits[0].failed_on.is_some() {
                    true => error,
                    false => error.within(format!(
                        "none of the {} groups could be fitted; the first, {}",
                        fits.len(),
                        crate::data::recipe::describe_group(&fits[0].group)
                    )),
                });
            }
        }
        Ok(fits)
    }

    /// The work of every group's fit ([`crate::work`]), each record kept until the batch
    /// is written (about [`GROUP_RECORD_BYTES`] each).
    fn estimate(
        &self,
        law: &crate::law::Law,
        settings: &crate::fit::FitSettings,
        groups: &std::collections::BTreeMap<Vec<String>, Vec<usize>>,
    ) -> Result<crate::work::Estimate> {
        let mut total = crate::work::Estimate::none();
        // Each group costed from its row count (its rows are not copied to cost it); a group
        // the law cannot fit fails in its own fit, with its reason.
        for rows in groups.values() {
            let shape = crate::fit::shape_of_rows(law, settings, rows.len());
            total = total.plus(self.fit.estimate_shape(&shape, settings)?);
        }
        let count = groups.len() as f64;
        Ok(total.holding(count * GROUP_RECORD_BYTES).described(
            count,
            "groups",
            Some(Setting::Group),
        ))
    }

    /// Refuses, before the data are read, no grouping column, what is not run per group yet
    /// and then what a single fit refuses ([`FitJob::check`]). Not run per group yet:
    /// calibration beyond the data (named by its scale column `by` when one is given),
    /// profiles, a variance model, cluster resampling, a sweep, and QC's exclusion of rows
    /// (QC does not run per group: no group's rows are flagged).
    pub fn check(&self) -> Result<()> {
        if self.groups.is_empty() {
            return Err(Error::setting(
                Setting::Group,
                crate::text![
                    Setting::Group.subject(),
                    ": name a grouping column (",
                    Setting::Group.text("run"),
                    "), or several"
                ],
            ));
        }
        let u = &self.fit.uncertainty;
        if u.calibrate && u.by.is_none() {
            return Err(Error::setting(
                Setting::Calibrate,
                crate::text![
                    "calibration beyond the data is not run per group yet; give ",
                    Setting::Calibrate.off(),
                    ", or fit each group's rows alone"
                ],
            ));
        }
        let steps = [
            (u.calibrate, Setting::By),
            (!u.profiles.is_empty(), Setting::Profile),
            (u.cluster.is_some(), Setting::Cluster),
            (
                self.fit.settings.heteroscedastic.is_some(),
                Setting::Heteroscedastic,
            ),
            (!self.fit.recipe.sweep.is_empty(), Setting::Sweep),
            // QC is not run per group: rows it would remove would be fitted in silence.
            (self.fit.qc == super::qc::QcMode::Exclude, Setting::Qc),
        ];
        if let Some((_, key)) = steps.into_iter().find(|(asked, _)| *asked) {
            return Err(Error::setting(
                key,
                crate::text![
                    key.subject(),
                    " is not run per group yet; drop it, or fit each group's rows alone"
                ],
            ));
        }
        // What a single fit refuses, once what is not run per group is out of the way.
        self.fit.check()
    }

    /// One group: its fit (and bootstrap), or the reason it has none. Interruptions and bad
    /// settings stop the batch.
    fn fit_group(
        &self,
        table: &Table,
        law: &Law,
        settings: &FitSettings,
        data: &FitData,
        group: BTreeMap<String, String>,
    ) -> Result<GroupFit> {
        let rows = data.target.len();
        match self.fit_rows(table, law, settings, data) {
            Ok(record) => {
                let converged = record.fit.converged;
                Ok(GroupFit {
                    group,
                    rows,
                    status: match converged {
                        true => GroupStatus::Fitted,
                        false => GroupStatus::Unconverged,
                    },
                    reason: (!converged).then(|| {
                        format!("the search did not converge ({})", record.fit.termination)
                    }),
                    fit: Some(record),
                    failed_on: None,
                })
            }
            Err(error) if error.is_interrupted() => Err(error),
            Err(error) => Ok(GroupFit {
                group,
                rows,
                status: GroupStatus::Failed,
                reason: Some(error.worded(&Neutral)),
                fit: None,
                failed_on: error.key(),
            }),
        }
    }

    fn fit_rows(
        &self,
        table: &Table,
        law: &Law,
        settings: &FitSettings,
        data: &FitData,
    ) -> Result<FitRecord> {
        let free = law
            .params
            .iter()
            .filter(|p| !settings.fixed.contains_key(&p.name))
            .count();
        if data.target.len() < free {
            // The rows are at fault, not the search: an input error (exit 2 when every group
            // has too few).
            return Err(Error::settings(format!(
                "{} rows for {free} free parameters; a group needs at least as many rows as the law has free parameters",
                data.target.len()
            )));
        }
        let mut record = FitRecord::from(fit::fit(law, data, settings)?);
        if let Some(replicates) = self.fit.uncertainty.bootstrap {
            let options = BootstrapOptions {
                replicates,
                level: self.fit.uncertainty.level,
                seed: self.fit.uncertainty.seed,
                resampling: Resampling::Rows,
            };
            let summary = bootstrap(law, data, settings, &record, &options, &|_| {})?;
            attach(&mut record, summary);
        }
        // The group's own rows, so that a group's record depends on nothing but its rows
        // (not on the table, or the batch of groups, it came in).
        let mut summary = table.describe_fit(&mut record.fit, law, &self.fit.recipe);
        summary.rows_read = data.target.len();
        summary.rows_filtered = 0;
        record.data = Some(summary);
        Ok(record)
    }
}
