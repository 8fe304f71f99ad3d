//! [`ReportJob`]: the analyses behind the page of a fit (`scalinglaws report`, Python's
//! `Fit.report_html`), computed once here so that the report crate only draws. The page shows
//! the fit, the compute-optimal allocation at the largest compute in the data and 10× and 100×
//! beyond it with the frontier over five decades around it, and a backtest: rolling origins,
//! calibrated, or with too few scale groups the smaller 80 % against the rest.
//!
//! What cannot be computed stays a value ([`FitPage`] holds the error), since the page shows
//! it ("No allocation: …") and the rest of the page stands.

use crate::analysis::allocation::allocation_from_fit;
use crate::analysis::allocation::{optimal, AllocationSettings, Frontier};
use crate::analysis::backtest::{backtest, Backtest, BacktestOptions, Holdout};
use crate::data::recipe::Table;
use crate::error::{Error, Result};
use crate::fit::{FitCaveat, FitData};
use crate::job::{FitJob, FitOutcome};
use crate::law::Law;
use crate::uncertainty::{CalibrationOptions, FitRecord};

/// A page to make: the fit, and the level of the plots' interval bands.
#[derive(Debug, Clone)]
pub struct ReportJob {
    pub fit: FitJob,
    /// The level of the plots' bands (the fit's own level on the command line).
    pub level: f64,
}

/// Everything the page shows, computed: the fit with its law and data, the allocation (when
/// the law allocates N and D) and the backtest.
#[derive(Debug)]
pub struct FitPage {
    pub outcome: FitOutcome,
    /// The level of the plots' bands.
    pub level: f64,
    /// None when the law has no N and D to allocate (or the data no finite compute).
    pub allocation: Option<PageAllocation>,
    pub backtest: std::result::Result<PageBacktest, Error>,
    /// What the page's allocations beyond the data inherit from the fit's diagnostics (a
    /// parameter at a bound, ...).
    pub fit_caveats: Vec<FitCaveat>,
}

/// The compute-optimal allocation the page shows, at budgets around the data's largest run.
#[derive(Debug)]
pub struct PageAllocation {
    /// The largest training compute 6·N·D in the data.
    pub largest_compute: f64,
    /// The allocations at 1×, 10× and 100× the largest compute, with intervals from the fit's
    /// bootstrap draws (at 95 %); or why there is none.
    pub table: std::result::Result<Frontier, Error>,
    /// The frontier over [`PLOT_BUDGETS`] budgets from 10⁻³ to 10² times the largest compute
    /// (bands at the bootstrap's level), for the frontier plot.
    pub plot: std::result::Result<Frontier, Error>,
    /// The largest of the plot's budgets.
    pub plot_to: f64,
}

/// The page's backtest and how it was made.
#[derive(Debug)]
pub struct PageBacktest {
    pub backtest: Backtest,
    /// Rolling origins with calibrated intervals (else the 80/20 split, uncalibrated).
    pub rolling: bool,
    /// What orders the runs by scale.
    pub by: BacktestScale,
}

/// The scale a page's backtest orders the runs by.
#[derive(Debug, Clone, PartialEq)]
pub enum BacktestScale {
    /// Compute 6·N·D (a law of N and D).
    Compute,
    /// The law's first variable, named.
    Variable(String),
}

/// Budgets along the frontier plot.
pub const PLOT_BUDGETS: usize = 31;

impl ReportJob {
    /// Fits (`progress` hears the bootstrap replicates done), then computes the page.
    pub fn run(&self, table: &Table, progress: &(dyn Fn(usize) + Sync)) -> Result<FitPage> {
        // The page's refits (the backtest's) on the fit's pool of `threads` workers too.
        crate::fit::with_threads(self.fit.settings.settings.threads, || {
            let outcome = self.fit.run_adding(table, progress, &page_estimate)?;
            FitPage::of(outcome, self.level)
        })?
    }
}

impl FitPage {
    /// The page's analyses of a fit already made (Python's saved fit and its data); an
    /// interrupted analysis is an error, any other failure is kept on the page.
    pub fn of(outcome: FitOutcome, level: f64) -> Result<FitPage> {
        let FitOutcome {
            result, law, data, ..
        } = &outcome;
        let allocates = law.variables.len() == 2
            && law.variable_index("N").is_some()
            && law.variable_index("D").is_some();
        let allocation = if allocates {
            largest_compute(law, data).map(|top| page_allocation(law, result, top))
        } else {
            None
        };
        let backtest = page_backtest(law, result, data, allocates);
        let interrupted = allocation
            .iter()
            .flat_map(|a| [a.table.as_ref().err(), a.plot.as_ref().err()])
            .chain([backtest.as_ref().err()])
            .flatten()
            .any(Error::is_interrupted);
        if interrupted {
            return Err(Error::Interrupted);
        }
        Ok(FitPage {
            fit_caveats: outcome.result.caveats(),
            outcome,
            level,
            allocation,
            backtest,
        })
    }
}

/// The page's own work beyond the fit ([`crate::work`]): its rolling backtest refits the law
/// at [`PAGE_ORIGINS`] origins, each calibrated by its own rolling origins.
fn page_estimate(shape: &crate::work::FitShape) -> crate::work::Estimate {
    let origins = PAGE_ORIGINS as f64;
    let calibration = crate::uncertainty::calibration::DEFAULT_ORIGINS as f64;
    shape.estimate().work_only().repeated(
        origins * (1.0 + calibration),
        "fits of the page's backtest",
        None,
    )
}

/// Rolling origins of the page's backtest.
const PAGE_ORIGINS: usize = 5;

/// The largest training compute 6·N·D in the data.
fn largest_compute(law: &Law, data: &FitData) -> Option<f64> {
    let (n, d) = (law.variable_index("N")?, law.variable_index("D")?);
    data.variables[n]
        .iter()
        .zip(&data.variables[d])
        .map(|(n, d)| 6.0 * n * d)
        .filter(|c| c.is_finite())
        .reduce(f64::max)
}

fn page_allocation(law: &Law, result: &FitRecord, top: f64) -> PageAllocation {
    let budgets: Vec<f64> = [1.0, 10.0, 100.0].iter().map(|m| top * m).collect();
    // The table's intervals are at the default level whatever the bootstrap's (the page says
    // which: it prints the frontier's level).
    let settings = AllocationSettings {
        draws: result
            .bootstrap
            .as_ref()
            .map(|b| b.draws.clone())
            .unwrap_or_default(),
        // The record's interrupt (a front end's Ctrl-C) stops the solves too.
        interrupt: result.settings.interrupt.clone(),
        ..AllocationSettings::at_budgets(budgets)
    };
    let plot_budgets: Vec<f64> = (0..PLOT_BUDGETS)
        .map(|i| top / 1e3 * 10f64.powf(5.0 * i as f64 / (PLOT_BUDGETS - 1) as f64))
        .collect();
    let plot_settings = allocation_from_fit(
        AllocationSettings {
            interrupt: result.settings.interrupt.clone(),
            ..AllocationSettings::at_budgets(plot_budgets.clone())
        },
        Some(result),
        None,
    );
    let plot_to = plot_budgets[PLOT_BUDGETS - 1];
    let params = result.param_values();
    PageAllocation {
        plot_to,
        largest_compute: top,
        table: optimal(law, &params, &settings),
        plot: optimal(law, &params, &plot_settings),
    }
}

/// Rolling origins by compute 6·N·D (or by the first variable), calibrated; with too few
/// scale groups, the smaller 80 % against the rest.
fn page_backtest(
    law: &Law,
    result: &FitRecord,
    data: &FitData,
    by_compute: bool,
) -> std::result::Result<PageBacktest, Error> {
    let (scale, by) = if by_compute {
        let (n, d) = (
            law.variable_index("N").unwrap_or(0),
            law.variable_index("D").unwrap_or(0),
        );
        let compute = data.variables[n]
            .iter()
            .zip(&data.variables[d])
            .map(|(n, d)| 6.0 * n * d)
            .collect();
        (compute, BacktestScale::Compute)
    } else {
        (
            data.variables[0].clone(),
            BacktestScale::Variable(law.variables[0].clone()),
        )
    };
    let rolling = BacktestOptions {
        holdout: Holdout::Rolling(PAGE_ORIGINS),
        level: crate::uncertainty::DEFAULT_LEVEL,
        bootstrap: None,
        calibrate: Some(CalibrationOptions::default()),
        seed: 0,
    };
    let fraction = BacktestOptions {
        holdout: Holdout::Fraction(0.2),
        level: crate::uncertainty::DEFAULT_LEVEL,
        bootstrap: None,
        calibrate: None,
        seed: 0,
    };
    let settings = &result.settings;
    let outcome = backtest(law, data, &scale, settings, &rolling)
        .map(|b| (b, true))
        .or_else(|_| backtest(law, data, &scale, settings, &fraction).map(|b| (b, false)));
    outcome.map(|(backtest, rolling)| PageBacktest {
        backtest,
        rolling,
        by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::FitSettings;

    fn chinchilla_outcome() -> FitOutcome {
        let law = crate::law::catalog::lookup("chinchilla").unwrap();
        let truth: [f64; 5] = [1.7, 400.0, 0.34, 410.0, 0.28];
        let (mut ns, mut ds, mut ys) = (Vec::new(), Vec::new(), Vec::new());
        for (i, n) in [1e7_f64, 3e7, 1e8, 3e8, 1e9].iter().enumerate() {
            for (j, d) in [2e8_f64, 1e9, 5e9, 2e10].iter().enumerate() {
                let y = truth[0] + truth[1] * n.powf(-truth[2]) + truth[3] * d.powf(-truth[4]);
                ns.push(*n);
                ds.push(*d);
                ys.push(y * (1.0 + 0.002 * (((i * 4 + j) % 5) as f64 - 2.0)));
            }
        }
        let data = FitData {
            variables: vec![ns, ds],
            target: ys,
            weights: None,
            trials: None,
            exposure: None,
        };
        let fit = crate::fit::fit(&law, &data, &FitSettings::default()).unwrap();
        let result = FitRecord::from(fit);
        FitOutcome {
            result,
            law,
            data,
            rows: None,
        }
    }

    #[test]
    fn a_law_of_n_and_d_gets_an_allocation_and_a_rolling_backtest() {
        let page = FitPage::of(chinchilla_outcome(), 0.95).unwrap();
        let allocation = page.allocation.as_ref().expect("chinchilla allocates");
        let top = 6.0 * 1e9 * 2e10;
        assert!((allocation.largest_compute / top - 1.0).abs() < 1e-12);
        let table = allocation.table.as_ref().unwrap();
        assert_eq!(table.allocations.len(), 3);
        assert!((table.allocations[2].budget / (100.0 * top) - 1.0).abs() < 1e-12);
        let plot = allocation.plot.as_ref().unwrap();
        assert_eq!(plot.allocations.len(), PLOT_BUDGETS);
        assert!((plot.allocations[0].budget / (top / 1e3) - 1.0).abs() < 1e-9);
        assert!((plot.allocations[PLOT_BUDGETS - 1].budget / (top * 1e2) - 1.0).abs() < 1e-9);
        let backtest = page.backtest.as_ref().unwrap();
        assert_eq!(backtest.by, BacktestScale::Compute);
    }
}
