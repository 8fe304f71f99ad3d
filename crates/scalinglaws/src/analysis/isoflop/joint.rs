//! IsoFLOP predictions at new budgets by the joint law (Hoffmann et al. 2022, Approach 3):
//! Chinchilla's L = E + A/N^α + B/D^β is fitted to every run of every budget at once (the
//! library's fit, Huber δ = 1e-3 on log L, summed), and the law's compute-optimal N*, D* and
//! loss at each new budget come from `analysis::allocation`. Why it exists: the per-budget
//! minima (approach 2) see one budget at a time, so a valley sampled off-centre or a skewed
//! profile moves each minimum, and a straight line through a handful of noisy minima carries
//! that error out to the new budget; the joint law pools every run and bends as the data do.
//! Issue 51 measured it (bench/results/isoflop_joint.txt: Porian et al. 2024's fifteen
//! configurations and Chinchilla's runs, the two largest budgets held out).
//!
//! FLOPs per token at a new budget: C = k·N^b·D, with ln k and b the least-squares line of
//! ln(C/D) against ln N through the runs when their tokens are given (6·N·D exactly when the
//! runs count compute that way; Porian et al.'s attention-FLOPs counts grow faster than N),
//! else C = 6·N·D.
//!
//! Which runs: a [`Window`], the runs of the largest few budgets, each budget's runs within a
//! few sizes of its lowest loss, or all. One law rarely holds from the smallest budget to the
//! largest, nor from a profile's far tails to its valley (Porian et al.'s profiles are skewed
//! and their smallest budgets sit in another regime), and the optimum at the next budgets
//! depends on the valleys of the last ones; `choice.rs` picks the window by a backtest over
//! the budgets.
//!
//! Intervals: a bootstrap of the window's runs (rows resampled, the law refitted each time)
//! gives each allocation's percentile interval; beyond the data the law's form error, which
//! that bootstrap cannot see, is measured by `choice.rs`'s rolling origins and added there.

use serde::{Deserialize, Serialize};

use super::forecast::{BudgetPrediction, Quantity};
use super::{IsoflopData, IsoflopSettings};
use crate::analysis::allocation::{optimal, AllocationSettings, Flops};
use crate::error::{Error, Result};
use crate::fit::{fit, FitData, FitSettings};
use crate::law::catalog;
use crate::stats::least_squares_line;
use crate::uncertainty::{bootstrap, BootstrapOptions, Resampling};

/// The runs the joint law is fitted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "IsoflopWindow")]
pub struct Window {
    /// The largest this many budgets (None: every budget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budgets: Option<usize>,
    /// Per budget, the runs within this many sizes of its lowest loss (None: every run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half: Option<usize>,
}

impl Window {
    /// In words, for reports: "the runs of the 4 largest budgets within 3 sizes of each lowest
    /// loss".
    pub fn describe(self) -> String {
        let budgets = match self.budgets {
            Some(k) => format!("the runs of the {k} largest budgets"),
            None => "the runs of every budget".to_string(),
        };
        match self.half {
            Some(h) => format!("{budgets} within {h} sizes of each budget's lowest loss"),
            None => budgets,
        }
    }

    /// The rows of `data` in the window; `groups` are its budgets in increasing compute.
    pub(crate) fn rows(self, data: &IsoflopData, groups: &[Vec<usize>]) -> Vec<usize> {
        let from = groups
            .len()
            .saturating_sub(self.budgets.unwrap_or(groups.len()));
        let mut keep = Vec::new();
        for rows in &groups[from..] {
            let points = super::profile(data, rows);
            let lowest = (0..points.len())
                .min_by(|&a, &b| points[a].1.total_cmp(&points[b].1))
                .unwrap_or(0);
            let (lo, hi) = match self.half {
                Some(h) => (lowest.saturating_sub(h), (lowest + h + 1).min(points.len())),
                None => (0, points.len()),
            };
            keep.extend(points[lo..hi].iter().map(|p| p.2));
        }
        keep.sort_unstable();
        keep
    }
}

/// The joint law fitted to every run: what the predictions at new budgets come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JointFit {
    /// The catalog law (`chinchilla`).
    pub law: String,
    pub window: Window,
    /// Runs in the window.
    pub runs: usize,
    /// Its fitted parameters, in the law's order: (name, value).
    pub params: Vec<(String, f64)>,
    /// The fit's objective (Huber δ = 1e-3 on log loss, summed).
    pub objective: f64,
    pub converged: bool,
    /// The FLOPs formula of the allocation at new budgets.
    pub flops: String,
    /// Bootstrap replicates asked for and those that failed to converge.
    pub bootstrap: usize,
    pub failed: usize,
}

/// The runs as the joint law's data: N, D (tokens, or C/(6N)) and the loss.
fn fit_data(data: &IsoflopData) -> FitData {
    let tokens = data.tokens.clone().unwrap_or_else(|| {
        data.compute
            .iter()
            .zip(&data.size)
            .map(|(c, n)| c / (6.0 * n))
            .collect()
    });
    FitData {
        variables: vec![data.size.clone(), tokens],
        target: data.loss.clone(),
        weights: None,
        trials: None,
        exposure: None,
    }
}

/// C = k·N^b·D from the runs' own counts (module doc); 6·N·D without tokens.
fn flops_of(data: &IsoflopData) -> Result<Flops> {
    let Some(tokens) = &data.tokens else {
        return Ok(Flops::standard());
    };
    let points: Vec<(f64, f64)> = data
        .size
        .iter()
        .zip(tokens)
        .zip(&data.compute)
        .map(|((n, d), c)| (n.ln(), (c / d).ln()))
        .collect();
    let (b, ln_k) = least_squares_line(&points).unwrap_or((1.0, 6f64.ln()));
    let text = if (b - 1.0).abs() < 1e-6 {
        format!("{:e}*N*D", ln_k.exp())
    } else {
        format!("{:e}*N^{b}*D", ln_k.exp())
    };
    Flops::parse(&text)
}

/// The joint fit of `window`'s runs of `data` and its allocations at `targets`, with
/// percentile intervals from `settings.bootstrap` replicates (none at 0). `decades_out` is
/// counted from the largest budget of `data`.
pub fn joint_forecast(
    data: &IsoflopData,
    window: Window,
    targets: &[f64],
    settings: &IsoflopSettings,
) -> Result<(JointFit, Vec<BudgetPrediction>)> {
    let law = catalog::lookup("chinchilla")?;
    let groups = super::group_by_budget(&data.compute, settings.tolerance);
    let all = data;
    let data = &super::forecast::subset(data, &window.rows(data, &groups));
    if data.loss.len() < 2 * law.params.len() {
        return Err(Error::settings(format!(
            "{} of the window, fewer than twice the law's {} parameters",
            data.loss.len(),
            law.params.len()
        )));
    }
    let fit_data = fit_data(data);
    let fit_settings = FitSettings {
        interrupt: settings.interrupt.clone(),
        ..FitSettings::default()
    };
    let result = fit(&law, &fit_data, &fit_settings)?;
    let params = result.param_values();
    let mut draws = Vec::new();
    let mut failed = 0;
    if settings.bootstrap > 0 {
        let summary = bootstrap(
            &law,
            &fit_data,
            &fit_settings,
            &result,
            &BootstrapOptions {
                replicates: settings.bootstrap,
                level: settings.level,
                seed: settings.seed,
                resampling: Resampling::Rows,
            },
            &|_| {},
        )?;
        failed = summary.failed;
        draws = summary.draws;
    }
    let flops = flops_of(data)?;
    let allocation = AllocationSettings {
        flops: flops.clone(),
        draws,
        level: settings.level,
        interrupt: settings.interrupt.clone(),
        ..AllocationSettings::at_budgets(targets.to_vec())
    };
    let frontier = optimal(&law, &params, &allocation)?;
    let largest = all.compute.iter().copied().fold(0.0, f64::max);
    let quantity = |value: f64, ci: Option<&[f64; 2]>| Quantity {
        value,
        interval: ci.copied(),
        bootstrap_interval: ci.copied(),
    };
    let predictions = frontier
        .allocations
        .iter()
        .map(|a| BudgetPrediction {
            budget: a.budget,
            decades_out: (a.budget / largest).log10().max(0.0),
            n: quantity(a.n, a.ci.get("N")),
            d: quantity(a.d, a.ci.get("D")),
            loss: quantity(a.loss, a.ci.get("loss")),
        })
        .collect();
    let joint = JointFit {
        law: "chinchilla".into(),
        window,
        runs: data.loss.len(),
        params: law
            .param_names()
            .iter()
            .map(|n| n.to_string())
            .zip(params)
            .collect(),
        objective: result.objective,
        converged: result.converged,
        flops: flops.text.clone(),
        bootstrap: settings.bootstrap,
        failed,
    };
    Ok((joint, predictions))
}
