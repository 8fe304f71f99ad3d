//! The plots a reader checks before trusting a scaling law, each drawn from plain values an
//! analysis computed ([`crate::inputs`]) into a `Page`:
//! - `fit`: the data against one variable on log–log axes with the fitted law's curves (one per
//!   group of the other variables, with the band of the mean or, binned, the law shaded over
//!   the bin's whole range), the extrapolation beyond the data shaded, and, beyond the data,
//!   the calibrated prediction interval of a new run; beside it, observed against fitted for
//!   every run, with the ±5 % lines;
//! - `residuals`: the residuals against every variable;
//! - `frontier`: the compute-optimal N*(C) and D*(C) with their bands;
//! - `bootstrap`: the distribution of every fitted parameter over the bootstrap draws;
//! - `isoflop`, `tracks`, `schedules`: IsoFLOP profiles, tracks' compute-optimal losses, and
//!   learning-rate schedules with the loss curves a curve law predicts for them;
//! - `downstream`: one small panel per task, accuracy against compute with each method's
//!   forecasts and intervals;
//! - `design`: the candidate runs, the runs so far and the runs to launch, tokens D against
//!   model size N.

use crate::figure::{Axis, Figure, Layer, Legend, Page};
use crate::inputs::{
    BootstrapPlot, DesignPlot, DownstreamPanel, DownstreamPlot, FitPlot, FrontierPlot, IsoflopPlot,
    ResidualsPlot, SchedulesPlot, TracksPlot,
};

/// The relative error lines of the observed-against-fitted panel.
const RELATIVE_LINES: f64 = 0.05;

/// The data against x with the fitted curves, their bands, the shaded extrapolation and,
/// beyond the data, the calibrated prediction interval.
pub fn fit_page(plot: &FitPlot) -> Page {
    let (from, to) = plot.extrapolation;
    let mut layers = vec![Layer::Span {
        from,
        to,
        label: "extrapolation".into(),
    }];
    let mut prediction_bands = Vec::new();
    for (g, group) in plot.groups.iter().enumerate() {
        if !group.calibrated.is_empty() {
            // Drawn last (faint), so that its legend entry follows the groups'.
            prediction_bands.push(Layer::PredictionBand {
                points: group.calibrated.clone(),
                color: g,
                label: prediction_bands.is_empty().then(|| {
                    format!(
                        "{}% prediction interval, calibrated beyond the data",
                        (plot.level * 100.0).round()
                    )
                }),
            });
        }
        if !group.band.is_empty() {
            layers.push(Layer::Band {
                points: group.band.clone(),
                color: g,
            });
        }
        layers.push(Layer::Points {
            label: None,
            points: group.runs.clone(),
            color: g,
        });
        layers.push(Layer::Line {
            label: None,
            points: group.curve.clone(),
            color: g,
            dashed: false,
        });
    }
    layers.append(&mut prediction_bands);
    let shading = match &plot.binned_by {
        Some(by) => {
            format!("curves at each {by} bin's median; shaded: the law over the bin's {by} range")
        }
        None => format!("{}% band of the mean", (plot.level * 100.0).round()),
    };
    let against = Figure {
        title: format!("{}: {} against {}", plot.law, plot.target, plot.x),
        x: Axis::log(plot.x.clone()),
        y: y_axis(plot.log_y, plot.target.clone()),
        layers,
        legend: Legend::UpperRight,
    };
    Page {
        title: format!("{} fit ({shading})", plot.law),
        columns: 2,
        panels: vec![against, observed_against_fitted(plot)],
    }
}

fn y_axis(log: bool, label: String) -> Axis {
    if log {
        Axis::log(label)
    } else {
        Axis::linear(label)
    }
}

/// Every run's observed target against the fitted law's value, by group, with the line of
/// equality and the ±5 % lines: how far each run is from the law, whatever its variables.
fn observed_against_fitted(plot: &FitPlot) -> Figure {
    let fitted: Vec<f64> = plot
        .groups
        .iter()
        .flat_map(|g| g.fitted.iter().map(|(f, _)| *f))
        .collect();
    let (lo, hi) = positive_range(&fitted)
        .or_else(|| {
            let (a, b) = fitted
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                    (a.min(*v), b.max(*v))
                });
            (a.is_finite() && b.is_finite()).then_some((a, b))
        })
        .unwrap_or((0.0, 1.0));
    let line = |factor: f64| -> Vec<(f64, f64)> {
        log_grid(lo.max(f64::MIN_POSITIVE), hi.max(lo * 1.0001), 20)
            .into_iter()
            .map(|v| (v, v * factor))
            .collect()
    };
    let mut layers = vec![Layer::Line {
        label: Some("observed = fitted".into()),
        points: line(1.0),
        color: crate::figure::BLACK_INDEX,
        dashed: false,
    }];
    for (k, factor) in [1.0 + RELATIVE_LINES, 1.0 - RELATIVE_LINES]
        .into_iter()
        .enumerate()
    {
        layers.push(Layer::Line {
            label: (k == 0).then(|| format!("±{}%", RELATIVE_LINES * 100.0)),
            points: line(factor),
            color: 6,
            dashed: true,
        });
    }
    for (g, group) in plot.groups.iter().enumerate() {
        layers.push(Layer::Points {
            label: Some(group.label.clone()),
            points: group.fitted.clone(),
            color: g,
        });
    }
    Figure {
        title: format!("observed against fitted ({} runs)", fitted.len()),
        x: y_axis(plot.log_y, format!("fitted {}", plot.target)),
        y: y_axis(plot.log_y, format!("observed {}", plot.target)),
        layers,
        legend: Legend::UpperLeft,
    }
}

/// The residuals against every variable, one panel each.
pub fn residuals_page(plot: &ResidualsPlot) -> Page {
    // The library's residual (fit::Problem): fitted − observed, so > 0 is an over-prediction.
    let label = if plot.log {
        "log residual (ln ŷ − ln y)"
    } else {
        "residual (ŷ − y)"
    };
    let panels = plot
        .panels
        .iter()
        .map(|panel| {
            let name = &panel.variable;
            let log_x = panel.values.iter().all(|x| *x > 0.0);
            Figure {
                title: format!("residuals against {name}"),
                x: if log_x {
                    Axis::log(name.clone())
                } else {
                    Axis::linear(name.clone())
                },
                y: Axis::linear(label),
                layers: vec![
                    Layer::HLine { y: 0.0 },
                    Layer::Points {
                        label: None,
                        points: panel
                            .values
                            .iter()
                            .copied()
                            .zip(panel.residuals.iter().copied())
                            .collect(),
                        color: 0,
                    },
                ],
                legend: Legend::UpperRight,
            }
        })
        .collect::<Vec<_>>();
    Page {
        title: format!("{} fit: residuals", plot.law),
        columns: panels.len().min(2),
        panels,
    }
}

/// The compute-optimal N*(C) and D*(C) with their bands.
pub fn frontier_page(plot: &FrontierPlot) -> Page {
    let mut layers = Vec::new();
    for (i, (name, line, band)) in [("N*", &plot.n, &plot.n_band), ("D*", &plot.d, &plot.d_band)]
        .into_iter()
        .enumerate()
    {
        if !band.is_empty() {
            layers.push(Layer::Band {
                points: band.clone(),
                color: i,
            });
        }
        layers.push(Layer::Line {
            label: Some(name.to_string()),
            points: line.clone(),
            color: i,
            dashed: false,
        });
    }
    let title = match plot.exponents {
        Some((a, b)) => format!("compute-optimal frontier: N* ∝ C^{a:.3}, D* ∝ C^{b:.3}"),
        None => "compute-optimal frontier".to_string(),
    };
    let band_note = if plot.draws > 0 {
        format!(" ({} bootstrap draws)", plot.draws)
    } else {
        String::new()
    };
    Page::single(Figure {
        title: format!("{title}{band_note}"),
        x: Axis::log(format!("budget C (FLOPs = {})", plot.flops)),
        y: Axis::log("parameters N*, tokens D*"),
        layers,
        legend: Legend::UpperLeft,
    })
}

/// Histograms of every free parameter over the bootstrap draws, with the estimate and the
/// interval marked.
pub fn bootstrap_page(plot: &BootstrapPlot) -> Page {
    let panels = plot
        .params
        .iter()
        .map(|p| {
            let mut layers = vec![Layer::Bars {
                bars: histogram(&p.values, 30),
                color: 0,
            }];
            layers.push(Layer::VLine {
                x: p.estimate,
                color: 1,
                label: Some("estimate".into()),
            });
            if let Some([lo, hi]) = p.interval {
                for (x, label) in [
                    (
                        lo,
                        Some(format!("{}% interval", (plot.level * 100.0).round())),
                    ),
                    (hi, None),
                ] {
                    layers.push(Layer::VLine { x, color: 2, label });
                }
            }
            Figure {
                title: p.name.clone(),
                x: Axis::linear(p.name.clone()),
                y: Axis::linear("draws"),
                layers,
                legend: Legend::UpperRight,
            }
        })
        .collect::<Vec<_>>();
    Page {
        title: format!(
            "{} fit: {} bootstrap draws of each parameter",
            plot.law, plot.draws
        ),
        columns: panels.len().min(3),
        panels,
    }
}

fn histogram(values: &[f64], bins: usize) -> Vec<(f64, f64, f64)> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let width = if hi > lo {
        (hi - lo) / bins as f64
    } else {
        1.0
    };
    let mut counts = vec![0.0; bins];
    for v in finite {
        let b = (((v - lo) / width) as usize).min(bins - 1);
        counts[b] += 1.0;
    }
    counts
        .into_iter()
        .enumerate()
        .map(|(b, c)| (lo + b as f64 * width, lo + (b + 1) as f64 * width, c))
        .collect()
}

/// The smallest and largest positive finite value.
pub fn positive_range(values: &[f64]) -> Option<(f64, f64)> {
    let positive = values.iter().copied().filter(|v| *v > 0.0 && v.is_finite());
    let (lo, hi) = positive.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// `points` values from `lo` to `hi`, evenly spaced in log.
pub fn log_grid(lo: f64, hi: f64, points: usize) -> Vec<f64> {
    let (a, b) = (lo.ln(), hi.ln());
    (0..points)
        .map(|i| (a + (b - a) * i as f64 / (points - 1) as f64).exp())
        .collect()
}

/// IsoFLOP profiles: each budget's runs (loss against N), its local curve and minimum; and the
/// minima N*(C) with their intervals and the fitted power law.
pub fn isoflop_page(plot: &IsoflopPlot) -> Page {
    let mut profiles = Vec::new();
    let mut minima = Vec::new();
    // A legend entry per budget only while it fits beside the profiles.
    let labelled = plot.budgets.len() <= 6;
    for (b, budget) in plot.budgets.iter().enumerate() {
        profiles.push(Layer::Points {
            label: labelled.then(|| format!("C = {}", short(budget.budget))),
            points: budget.runs.clone(),
            color: b,
        });
        if !budget.curve.is_empty() {
            profiles.push(Layer::Line {
                label: None,
                points: budget.curve.clone(),
                color: b,
                dashed: false,
            });
        }
        if let (Some(n), Some(loss)) = (budget.n, budget.loss) {
            minima.push((n, loss));
        }
    }
    profiles.push(Layer::Points {
        label: Some("minimum".into()),
        points: minima,
        color: crate::figure::BLACK_INDEX,
    });
    let mut frontier = vec![Layer::Points {
        label: Some("N* per budget".into()),
        points: plot
            .budgets
            .iter()
            .filter_map(|b| Some((b.budget, b.n?)))
            .collect(),
        color: 0,
    }];
    for b in &plot.budgets {
        if let Some([lo, hi]) = b.n_interval {
            frontier.push(Layer::Line {
                label: None,
                points: vec![(b.budget, lo), (b.budget, hi)],
                color: 0,
                dashed: false,
            });
        }
    }
    let mut title = "minima".to_string();
    if let Some((exponent, line)) = &plot.n_star {
        frontier.push(Layer::Line {
            label: Some(format!("N* ∝ C^{exponent:.3}")),
            points: line.clone(),
            color: 1,
            dashed: true,
        });
        title = format!("minima: N* ∝ C^{exponent:.3}");
    }
    Page {
        title: "IsoFLOP profiles".into(),
        columns: 2,
        panels: vec![
            Figure {
                title: format!(
                    "loss against N at {} budgets (smallest C at the top)",
                    plot.budgets.len()
                ),
                x: Axis::log("N"),
                y: Axis::log("loss"),
                layers: profiles,
                legend: Legend::UpperRight,
            },
            Figure {
                title,
                x: Axis::log("budget C"),
                y: Axis::log("N*"),
                layers: frontier,
                legend: Legend::UpperLeft,
            },
        ],
    }
}

/// A number as a log axis labels it: 1e21, 3e20.
pub fn short(v: f64) -> String {
    crate::figure::tick_label(&Axis::log(""), v.log10())
}

/// The compute-optimal loss L*(C) of every track with its band, over the runs of each track
/// at their compute.
pub fn tracks_page(plot: &TracksPlot) -> Page {
    let mut layers = Vec::new();
    if let Some((from, to)) = plot.beyond {
        layers.push(Layer::Span {
            from,
            to,
            label: "beyond the data".into(),
        });
    }
    for (t, track) in plot.tracks.iter().enumerate() {
        if !track.band.is_empty() {
            layers.push(Layer::Band {
                points: track.band.clone(),
                color: t,
            });
        }
        layers.push(Layer::Line {
            label: Some(format!("{}: compute-optimal loss", track.name)),
            points: track.loss.clone(),
            color: t,
            dashed: false,
        });
        layers.push(Layer::Points {
            label: Some(format!("{} runs", track.name)),
            points: track.runs.clone(),
            color: t,
        });
    }
    Page::single(Figure {
        title: plot.title.clone(),
        x: Axis::log("compute C (FLOPs)"),
        y: Axis::log("loss"),
        layers,
        legend: Legend::UpperRight,
    })
}

/// The most schedules a schedule plot shows (the palette).
pub const MAX_SCHEDULES: usize = 8;

/// Schedules side by side (issue 10): the learning rate of each against the step, and the
/// loss the fitted curve law predicts for it, with the logged points under its curve.
pub fn schedules_page(plot: &SchedulesPlot) -> Page {
    let mut rates = Vec::new();
    let mut losses = Vec::new();
    for (i, s) in plot.schedules.iter().enumerate() {
        let label = Some(s.name.clone());
        rates.push(Layer::Line {
            label: label.clone(),
            points: s.lr.clone(),
            color: i,
            dashed: false,
        });
        if !s.band.is_empty() {
            losses.push(Layer::PredictionBand {
                points: s.band.clone(),
                color: i,
                label: None,
            });
        }
        if !s.observed.is_empty() {
            losses.push(Layer::Points {
                label: None,
                points: s.observed.clone(),
                color: i,
            });
        }
        losses.push(Layer::Line {
            label,
            points: s.loss.clone(),
            color: i,
            dashed: false,
        });
    }
    Page {
        title: plot.title.clone(),
        columns: 2,
        panels: vec![
            Figure {
                title: "learning rate".into(),
                x: Axis::linear("step"),
                y: Axis::linear("learning rate"),
                layers: rates,
                legend: Legend::UpperRight,
            },
            Figure {
                title: "loss (curves: the fitted law)".into(),
                x: Axis::linear("step"),
                y: Axis::linear("loss"),
                layers: losses,
                legend: Legend::UpperRight,
            },
        ],
    }
}

/// Panels per row of a downstream page.
pub const DOWNSTREAM_COLUMNS: usize = 4;

/// How far apart (a factor in compute) the methods' forecasts of one target are drawn, so
/// that their intervals read side by side to the right of the held-out accuracy.
const METHOD_SPREAD: f64 = 1.25;

/// Downstream accuracy, one small panel per task (issue 23): accuracy against compute, the
/// models' last checkpoints as points, the task's chance level, each method's forecasts as a
/// point with its interval as a vertical bar (the methods side by side), and the held-out
/// accuracies of a backtest. Only the first panel carries the legend.
pub fn downstream_page(plot: &DownstreamPlot) -> Page {
    let panels = plot
        .panels
        .iter()
        .enumerate()
        .map(|(i, panel)| downstream_panel(panel, i == 0))
        .collect();
    Page {
        title: plot.title.clone(),
        columns: DOWNSTREAM_COLUMNS,
        panels,
    }
}

fn downstream_panel(panel: &DownstreamPanel, legend: bool) -> Figure {
    let label = |text: &str| legend.then(|| text.to_string());
    let mut layers = Vec::new();
    if let Some(chance) = panel.chance {
        layers.push(Layer::HLine { y: chance });
    }
    layers.push(Layer::Points {
        label: label("models (last checkpoint)"),
        points: panel.observed.clone(),
        color: 0,
    });
    for (m, method) in panel.methods.iter().enumerate() {
        let color = m + 1;
        let shift = METHOD_SPREAD.powi(m as i32 + 1);
        for &(x, _, lo, hi) in &method.forecasts {
            layers.push(Layer::Line {
                label: None,
                points: vec![(x * shift, lo), (x * shift, hi)],
                color,
                dashed: false,
            });
        }
        layers.push(Layer::Points {
            label: label(&method.name),
            points: method
                .forecasts
                .iter()
                .map(|&(x, v, _, _)| (x * shift, v))
                .collect(),
            color,
        });
    }
    if !panel.held_out.is_empty() {
        layers.push(Layer::Points {
            label: label("held out"),
            points: panel.held_out.clone(),
            color: panel.methods.len() + 1,
        });
    }
    Figure {
        title: panel.title.clone(),
        x: Axis::log("compute C (FLOPs)"),
        y: Axis::linear("accuracy"),
        layers,
        legend: Legend::UpperLeft,
    }
}

/// One figure in the (N, D) plane, both axes logarithmic: the candidates faint behind, the
/// runs so far, and the runs to launch on top.
pub fn design_page(plot: &DesignPlot) -> Page {
    let layers = vec![
        Layer::FaintPoints {
            label: Some("candidates".into()),
            points: plot.candidates.clone(),
            color: 0,
        },
        Layer::Points {
            label: Some("runs so far".into()),
            points: plot.existing.clone(),
            color: 1,
        },
        Layer::Points {
            label: Some("runs to launch".into()),
            points: plot.chosen.clone(),
            color: 2,
        },
    ];
    Page::single(Figure {
        title: plot.title.clone(),
        x: Axis::log("model size N"),
        y: Axis::log("tokens D"),
        layers,
        legend: Legend::UpperLeft,
    })
}
