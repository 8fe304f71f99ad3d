//! From the lab's results to its pages' plain values (`pages`): which curves each simulator's
//! figure shows, every value taken from the rows its dataset holds (and the summaries the lab
//! computed from them), so `sim NAME --plot` draws exactly what `sim NAME` writes. The lab's
//! figures live in the lab's own wing: the engine's report crate knows nothing of the lab, and
//! the CLI and Python draw through here.

use crate::editing::{EditingConfig, EditingResult, EditingRow, Variant};
use crate::multi_index::{transitions, MultiIndexConfig, RecoveryRow};
use crate::nvfp4::{SnrConfig, SnrRow};
use crate::pages::{
    self, CascadePanel, CascadePlot, DataScalingPlot, EditingCurves, EditingPlot, LabCurve,
    RecallPlot, RiskPlot, ScalingCurve, SnrCurve, SnrPlot,
};
use crate::recall::{RecallConfig, RecallRow};
use crate::sgd::{DataScaling, Optimizer, Regime, ScalingConfig, SgdConfig, SgdRow, Shape};
use scalinglaws_plot::inputs::Band;
use scalinglaws_plot::Page;

/// Where a band's lower edge stops on a log axis when the mean minus two standard errors is not
/// above zero: this fraction of the mean.
const LOG_FLOOR: f64 = 0.1;

/// (x, mean ± 2 standard errors), the lower edge at least `floor(mean)`.
fn band(points: &[(f64, f64, f64)], floor: impl Fn(f64) -> f64) -> Band {
    points
        .iter()
        .map(|&(x, mean, se)| (x, (mean - 2.0 * se).max(floor(mean)), mean + 2.0 * se))
        .collect()
}

/// A curve of (x, mean, standard error) values: markers with their band when `measured`.
fn curve(name: String, values: &[(f64, f64, f64)], measured: bool) -> LabCurve {
    LabCurve {
        name,
        points: values.iter().map(|&(x, y, _)| (x, y)).collect(),
        band: if measured {
            band(values, |mean| LOG_FLOOR * mean)
        } else {
            Vec::new()
        },
        markers: measured,
    }
}

/// An optimizer's legend entry; a Monte Carlo one's band is ± two standard errors.
fn optimizer_label(optimizer: Optimizer, seeds: usize) -> String {
    match optimizer {
        Optimizer::SgdExact => "SGD, exact recursion".to_string(),
        Optimizer::SgdMc => format!("SGD, Monte Carlo ({seeds} seeds)"),
        Optimizer::SignSgdMc => format!("signSGD, Monte Carlo ({seeds} seeds)"),
    }
}

fn task(a: f64, b: f64) -> String {
    let regime = match Regime::of(a, b) {
        Regime::Hard => "hard task",
        Regime::Easy => "easy task",
    };
    format!("{regime} (a = {a}, b = {b})")
}

/// `sim sgd`: each optimizer's excess risk against the step.
pub fn sgd_page(config: &SgdConfig, rows: &[SgdRow]) -> Page {
    let mut order: Vec<Optimizer> = Vec::new();
    for row in rows {
        if !order.contains(&row.optimizer) {
            order.push(row.optimizer);
        }
    }
    let curves = order
        .into_iter()
        .map(|optimizer| {
            let values: Vec<(f64, f64, f64)> = rows
                .iter()
                .filter(|r| r.optimizer == optimizer)
                .map(|r| (r.step as f64, r.excess_risk, r.stderr))
                .collect();
            let measured = optimizer != Optimizer::SgdExact;
            curve(optimizer_label(optimizer, config.seeds), &values, measured)
        })
        .collect();
    let rate = match config.lrs.first() {
        Some(&lr) if config.lrs.iter().all(|&l| l == lr) => format!("η = {lr}"),
        _ => "η per step".to_string(),
    };
    let batch = match config.batch {
        1 => String::new(),
        b => format!(", batch {b}"),
    };
    pages::risk_page(&RiskPlot {
        title: format!(
            "SGD vs signSGD, {}, M = {}, {rate}{batch}",
            task(config.a, config.b),
            config.dimension
        ),
        curves,
    })
}

/// `sim sgd-scaling`: each optimizer's tuned points and fitted power law.
pub fn data_scaling_page(config: &ScalingConfig, result: &DataScaling) -> Page {
    let optimizers = result
        .fits
        .iter()
        .map(|fit| {
            let values: Vec<(f64, f64, f64)> = result
                .points
                .iter()
                .filter(|p| p.optimizer == fit.optimizer)
                .map(|p| (p.horizon as f64, p.excess_risk, p.stderr))
                .collect();
            let line = |t: f64| (t, (fit.intercept + fit.slope * t.ln()).exp());
            let ends = [values.first(), values.last()];
            let name = match fit.optimizer {
                Optimizer::SgdExact => "SGD, exact".to_string(),
                _ => format!("signSGD, Monte Carlo ({} seeds)", config.seeds),
            };
            ScalingCurve {
                curve: curve(name, &values, true),
                fit: ends.iter().flatten().map(|v| line(v.0)).collect(),
                exponent: fit.slope,
            }
        })
        .collect();
    let shape = match config.shape {
        Shape::Constant => "constant η".to_string(),
        Shape::Decay { fraction } => format!("η decayed over {fraction} of T"),
    };
    pages::data_scaling_page(&DataScalingPlot {
        title: format!(
            "Data scaling, {}, M = {}, {shape}",
            task(config.a, config.b),
            config.dimension
        ),
        optimizers,
    })
}

/// `sim nvfp4`: the SNR of each case against the dimension.
pub fn snr_page(config: &SnrConfig, rows: &[SnrRow]) -> Page {
    let mut cases: Vec<SnrCurve> = Vec::new();
    for row in rows {
        if cases
            .iter()
            .any(|c| c.curve.name == case_label(row, config))
        {
            continue;
        }
        let values: Vec<(f64, f64, f64)> = rows
            .iter()
            .filter(|r| r.case == row.case)
            .map(|r| (r.dimension as f64, r.snr, r.snr_stderr))
            .collect();
        cases.push(SnrCurve {
            curve: curve(case_label(row, config), &values, true),
            normalised: row.case.normalised(),
            correlated: row.case.correlated(),
        });
    }
    let scales = if config.tensor_scale {
        "with its tensor scale"
    } else {
        "without the tensor scale"
    };
    pages::snr_page(&SnrPlot {
        title: format!("NVFP4 {scales}, {} pairs per d", config.pairs),
        cases,
    })
}

fn case_label(row: &SnrRow, config: &SnrConfig) -> String {
    let vectors = if row.case.normalised() {
        "normalised"
    } else {
        "standard"
    };
    match row.case.correlated() {
        true => format!("{vectors}, correlated (ρ = {})", config.correlation),
        false => format!("{vectors}, independent"),
    }
}

/// `sim editing`: the norms, the retention and the drift per edit, with and without the anchor.
pub fn editing_page(config: &EditingConfig, result: &EditingResult) -> Page {
    let variants = Variant::ALL
        .iter()
        .map(|&variant| {
            let rows = result.rows.iter().filter(|r| r.variant == variant);
            let series = |value: fn(&EditingRow) -> f64| -> Vec<(f64, f64)> {
                rows.clone().map(|r| (r.edit as f64, value(r))).collect()
            };
            let summary = result.summary(variant);
            EditingCurves {
                name: match variant {
                    Variant::Standard => "standard".into(),
                    Variant::Nas => "Norm-Anchor Scaling".into(),
                },
                weight_norm: series(|r| r.weight_norm),
                value_norm: series(|r| r.value_norm),
                retention: series(|r| r.retention),
                drift: series(|r| r.drift),
                horizon: summary.and_then(|s| s.horizon).map(|h| h as f64),
                capability_horizon: summary.and_then(|s| s.capability_horizon).map(|h| h as f64),
            }
        })
        .collect();
    let edits = config.edits as f64;
    let start = result.initial_weight_norm;
    let rate = result.theory_growth_rate;
    let growth = |v: Variant| result.summary(v).map_or(f64::NAN, |s| s.growth_rate);
    pages::editing_page(&EditingPlot {
        title: format!(
            "Rank-one edits ({}×{}, α = {}, {} seeds): ln‖W‖ grows {} per edit (theory {}); \
             with the anchor {}",
            config.rows,
            config.cols,
            config.feedback,
            config.seeds,
            rate_text(growth(Variant::Standard)),
            rate_text(rate),
            rate_text(growth(Variant::Nas))
        ),
        variants,
        theory: vec![(0.0, start), (edits, start * (rate * edits).exp())],
        threshold: config.threshold,
        drift_limit: config.drift_limit,
    })
}

/// A growth rate per edit: 0.01733, or -2e-6 when it is that small.
fn rate_text(rate: f64) -> String {
    if rate.abs() >= 1e-4 {
        format!("{rate:.5}")
    } else {
        format!("{rate:.0e}")
    }
}

/// `sim recall`: the Monte Carlo capacity and the lower bounds against the state size.
pub fn recall_page(config: &RecallConfig, rows: &[RecallRow]) -> Page {
    let line = |name: &str, value: fn(&RecallRow) -> f64, markers: bool| LabCurve {
        name: name.to_string(),
        points: rows
            .iter()
            .map(|r| (r.state_size as f64, value(r)))
            .collect(),
        band: Vec::new(),
        markers,
    };
    let quantile = format!(
        "capacity: recalled in ≥ {}% of {} trials",
        100.0 * (1.0 - config.delta),
        config.trials
    );
    pages::recall_page(&RecallPlot {
        title: format!(
            "Associative recall through a random linear hash, embedding {}, context {}",
            config.embedding, config.context
        ),
        capacity: vec![
            line(&quantile, |r| r.capacity_mc as f64, true),
            line("median over trials", |r| r.capacity_median, true),
        ],
        bounds: vec![
            line(
                &format!("JL-style lower bound (δ = {})", config.delta),
                |r| r.capacity_bound,
                false,
            ),
            line("Dasgupta–Gupta JL bound", |r| r.capacity_dg, false),
        ],
    })
}

/// `sim multi-index`: each dimension's cascade of overlaps, with its transitions in the title.
pub fn cascade_page(config: &MultiIndexConfig, rows: &[RecoveryRow]) -> Page {
    let found = transitions(rows);
    let panels = config
        .dimensions
        .iter()
        .map(|&d| {
            let mine: Vec<&RecoveryRow> = rows.iter().filter(|r| r.dimension == d).collect();
            let kappas: Vec<String> = found
                .iter()
                .filter(|t| t.dimension == d)
                .map(|t| format!("{:.2}", t.kappa))
                .collect();
            let title = match kappas.is_empty() {
                true => format!("d = {d}"),
                false => format!("d = {d}: overlap 1/2 at κ = {}", kappas.join(", ")),
            };
            cascade_panel(config, &mine, title)
        })
        .collect();
    pages::cascade_page(&CascadePlot {
        title: format!(
            "Spectral estimator, y = Σ a_j He2(⟨w_j, x⟩), a_j = d^(−{}(j−1)), {} seeds",
            config.strength_exponent, config.seeds
        ),
        panels,
    })
}

fn cascade_panel(config: &MultiIndexConfig, rows: &[&RecoveryRow], title: String) -> CascadePanel {
    let (mut measured, mut predicted) = (Vec::new(), Vec::new());
    for j in 1..=config.directions {
        let direction: Vec<&&RecoveryRow> = rows.iter().filter(|r| r.direction == j).collect();
        let values: Vec<(f64, f64, f64)> = direction
            .iter()
            .map(|r| (r.kappa, r.overlap, r.overlap_stderr))
            .collect();
        let mut overlap = curve(format!("direction {j}"), &values, true);
        overlap.band = band(&values, |_| 0.0);
        measured.push(overlap);
        predicted.push(LabCurve {
            name: "spiked-Wigner (BBP) prediction".into(),
            points: direction
                .iter()
                .map(|r| (r.kappa, r.predicted_overlap))
                .collect(),
            band: Vec::new(),
            markers: false,
        });
    }
    CascadePanel {
        title,
        measured,
        predicted,
        level: 0.5,
    }
}
