//! The plots a reader checks before trusting a scaling law, each built from the library's
//! results (and, for data plots, the fit's data) into a `Page`:
//! - `fit`: the data against one variable on log–log axes with the fitted law's curves (one per
//!   group of the other variables: at each distinct value with the interval band of the mean,
//!   or, binned, at the bin's median with the law shaded over the bin's whole range, so that
//!   every run can be checked against its own band), the extrapolation beyond the data shaded,
//!   and, beyond the data, the prediction interval of a new run where the fit's calibration
//!   widens it (never the fit's own, which is too narrow there); beside it, observed against
//!   fitted for every run, with the ±5 % lines;
//! - `residuals`: the residuals (in the fit's space, fitted − observed as the library defines
//!   them) against every variable;
//! - `frontier`: the compute-optimal N*(C) and D*(C) with bands from the bootstrap draws;
//! - `bootstrap`: the distribution of every fitted parameter over the bootstrap draws;
//! - `schedules`: learning-rate schedules and the loss curves a curve law predicts for them.

use scalinglaws::analysis::allocation::{optimal, AllocationSettings};
use scalinglaws::analysis::isoflop::{Isoflop, IsoflopData};
use scalinglaws::analysis::schedule::Prediction;
use scalinglaws::analysis::tracks::{Track, TrackComparison};
use scalinglaws::fit::{FitData, FitResult, Space};
use scalinglaws::uncertainty::{predict_with_intervals, PointPrediction};
use scalinglaws::{Error, Law};

use crate::figure::{Axis, Figure, Layer, Legend, Page};

/// At most this many curves in a fit plot; more groups are binned by quantile.
const MAX_GROUPS: usize = 6;
/// The curves run a decade beyond the largest value of the x variable.
const EXTRAPOLATION: f64 = 10.0;
/// Points per curve: smooth at any size a page shows (a segment under 3 pixels at 640).
const CURVE_POINTS: usize = 200;
/// Points per interval band: bands are smooth, and each point's bootstrap prediction interval
/// solves a quantile of a mixture over every replicate (the costly part of a fit plot).
const BAND_POINTS: usize = 40;
/// The relative error lines of the observed-against-fitted panel.
const RELATIVE_LINES: f64 = 0.05;

/// The data against `x` with the fitted curves, their band at `level`, the shaded
/// extrapolation and, beyond the data, the calibrated prediction interval at `level`.
pub fn fit_page(
    law: &Law,
    result: &FitResult,
    data: &FitData,
    x: usize,
    level: f64,
) -> Result<Page, Error> {
    let name = &law.variables[x];
    let xs = &data.variables[x];
    let (lo, hi) = positive_range(xs).ok_or_else(|| {
        Error::settings(format!(
            "plot: '{name}' has no positive values to put on a log axis"
        ))
    })?;
    let groups = groups(law, data, x);
    let binned = groups.iter().any(|g| g.range.is_some());
    let mut layers = vec![Layer::Span {
        from: hi,
        to: hi * EXTRAPOLATION,
        label: "extrapolation".into(),
    }];
    let mut prediction_bands = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        // A binned group's curve starts at its own smallest x (its runs' range).
        let start = if binned {
            group
                .rows
                .iter()
                .map(|&r| xs[r])
                .filter(|v| *v > 0.0)
                .fold(hi, f64::min)
        } else {
            lo
        };
        let grid = log_grid(start, hi * EXTRAPOLATION, CURVE_POINTS);
        let along = |grid: &[f64]| -> Vec<Vec<f64>> {
            grid.iter()
                .map(|&v| {
                    let mut point = group.at.clone();
                    point[x] = v;
                    point
                })
                .collect()
        };
        let curve = result.predict(&along(&grid))?;
        let band_grid = log_grid(start, hi * EXTRAPOLATION, BAND_POINTS);
        let (predicted, _) = predict_with_intervals(result, &along(&band_grid), level)?;
        let band: Vec<(f64, f64, f64)> = band_grid
            .iter()
            .zip(&predicted)
            .filter_map(|(&v, p)| p.ci.map(|[a, b]| (v, a, b)))
            .collect();
        let beyond = calibrated_band(&band_grid, &predicted);
        if !beyond.is_empty() {
            // Drawn last (faint), so that its legend entry follows the groups'.
            prediction_bands.push(Layer::PredictionBand {
                points: beyond,
                color: g,
                label: prediction_bands.is_empty().then(|| {
                    format!(
                        "{}% prediction interval, calibrated beyond the data",
                        (level * 100.0).round()
                    )
                }),
            });
        }
        match group.range {
            // The law over the bin's whole range of the binning variable, where its runs are.
            Some((by, from, to)) => {
                let end = group.rows.iter().map(|&r| xs[r]).fold(start, f64::max);
                let inside: Vec<f64> = grid.iter().copied().filter(|v| *v <= end).collect();
                let at = |value: f64| -> Vec<Vec<f64>> {
                    inside
                        .iter()
                        .map(|&v| {
                            let mut point = group.at.clone();
                            point[x] = v;
                            point[by] = value;
                            point
                        })
                        .collect()
                };
                let (a, b) = (result.predict(&at(from))?, result.predict(&at(to))?);
                let range: Vec<(f64, f64, f64)> = inside
                    .iter()
                    .zip(a.iter().zip(&b))
                    .map(|(&v, (&p, &q))| (v, p.min(q), p.max(q)))
                    .collect();
                if range.len() >= 2 {
                    layers.push(Layer::Band {
                        points: range,
                        color: g,
                    });
                }
            }
            None if !band.is_empty() => layers.push(Layer::Band {
                points: band,
                color: g,
            }),
            None => {}
        }
        layers.push(Layer::Points {
            label: None,
            points: group
                .rows
                .iter()
                .map(|&r| (xs[r], data.target[r]))
                .collect(),
            color: g,
        });
        layers.push(Layer::Line {
            label: None,
            points: grid.iter().copied().zip(curve).collect(),
            color: g,
            dashed: false,
        });
    }
    layers.append(&mut prediction_bands);
    let log_y = result.settings.space == Space::Log;
    let y_axis = |label: String| {
        if log_y {
            Axis::log(label)
        } else {
            Axis::linear(label)
        }
    };
    let shading = match groups.iter().find_map(|g| g.range) {
        Some((by, _, _)) => format!(
            "curves at each {0} bin's median; shaded: the law over the bin's {0} range",
            law.variables[by]
        ),
        None => format!("{}% band of the mean", (level * 100.0).round()),
    };
    let against = Figure {
        title: format!("{}: {} against {name}", result.law, result.target),
        x: Axis::log(name.clone()),
        y: y_axis(result.target.clone()),
        layers,
        legend: Legend::UpperRight,
    };
    Ok(Page {
        title: format!("{} fit ({shading})", result.law),
        columns: 2,
        panels: vec![
            against,
            observed_against_fitted(result, data, &groups, y_axis)?,
        ],
    })
}

/// Every run's observed target against the fitted law's value, by group, with the line of
/// equality and the ±5 % lines: how far each run is from the law, whatever its variables.
fn observed_against_fitted(
    result: &FitResult,
    data: &FitData,
    groups: &[Group],
    axis: impl Fn(String) -> Axis,
) -> Result<Figure, Error> {
    let points: Vec<Vec<f64>> = (0..data.target.len())
        .map(|r| data.variables.iter().map(|c| c[r]).collect())
        .collect();
    let fitted = result.predict(&points)?;
    let mut layers = Vec::new();
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
    layers.push(Layer::Line {
        label: Some("observed = fitted".into()),
        points: line(1.0),
        color: crate::figure::BLACK_INDEX,
        dashed: false,
    });
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
    for (g, group) in groups.iter().enumerate() {
        layers.push(Layer::Points {
            label: Some(group.label.clone()),
            points: group
                .rows
                .iter()
                .map(|&r| (fitted[r], data.target[r]))
                .collect(),
            color: g,
        });
    }
    Ok(Figure {
        title: format!("observed against fitted ({} runs)", data.target.len()),
        x: axis(format!("fitted {}", result.target)),
        y: axis(format!("observed {}", result.target)),
        layers,
        legend: Legend::UpperLeft,
    })
}

/// The calibrated prediction interval along a curve where it lies beyond the data (from the
/// last point inside, so the band starts at the data's edge); empty when the fit's calibration
/// did not widen it.
fn calibrated_band(grid: &[f64], predicted: &[PointPrediction]) -> Vec<(f64, f64, f64)> {
    let beyond = |p: &PointPrediction| p.calibrated && p.distance_decades.is_some_and(|d| d > 0.0);
    let Some(start) = predicted.iter().position(beyond) else {
        return Vec::new();
    };
    grid.iter()
        .zip(predicted)
        .skip(start.saturating_sub(1))
        .filter(|(_, p)| p.calibrated)
        .filter_map(|(&v, p)| p.pi.map(|[a, b]| (v, a, b)))
        .collect()
}

/// Rows of one curve: the other variables held at `at` (their values, or a bin's medians);
/// a bin's `range` is (the binning variable, its smallest and largest value in the bin).
struct Group {
    label: String,
    rows: Vec<usize>,
    at: Vec<f64>,
    range: Option<(usize, f64, f64)>,
}

/// Groups of rows by the values of the other variables: each distinct combination when there
/// are few, else quantile bins of the first other variable.
fn groups(law: &Law, data: &FitData, x: usize) -> Vec<Group> {
    let n = data.target.len();
    let others: Vec<usize> = (0..law.variables.len()).filter(|&v| v != x).collect();
    let median_point = |rows: &[usize]| -> Vec<f64> {
        (0..law.variables.len())
            .map(|v| median(rows.iter().map(|&r| data.variables[v][r]).collect()))
            .collect()
    };
    if others.is_empty() {
        let rows: Vec<usize> = (0..n).collect();
        return vec![Group {
            label: "data".into(),
            at: median_point(&rows),
            rows,
            range: None,
        }];
    }
    let mut distinct: Vec<(Vec<f64>, Vec<usize>)> = Vec::new();
    for r in 0..n {
        let key: Vec<f64> = others.iter().map(|&v| data.variables[v][r]).collect();
        match distinct.iter_mut().find(|(k, _)| close(k, &key)) {
            Some((_, rows)) => rows.push(r),
            None => distinct.push((key, vec![r])),
        }
    }
    let describe = |at: &[f64]| -> String {
        others
            .iter()
            .map(|&v| {
                format!(
                    "{} = {}",
                    law.variables[v],
                    crate::figure::tick_label(&Axis::log(""), at[v].log10())
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if distinct.len() <= MAX_GROUPS {
        distinct.sort_by(|a, b| a.0[0].total_cmp(&b.0[0]));
        return distinct
            .into_iter()
            .map(|(_, rows)| {
                let at = median_point(&rows);
                Group {
                    label: describe(&at),
                    at,
                    rows,
                    range: None,
                }
            })
            .collect();
    }
    // Quantile bins of the first other variable.
    let by = others[0];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| data.variables[by][a].total_cmp(&data.variables[by][b]));
    let bins = MAX_GROUPS.min(n.max(1));
    (0..bins)
        .map(|b| order[b * n / bins..(b + 1) * n / bins].to_vec())
        .filter(|rows| !rows.is_empty())
        .map(|rows| {
            let at = median_point(&rows);
            let (lo, hi) = rows
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &r| {
                    let v = data.variables[by][r];
                    (lo.min(v), hi.max(v))
                });
            let axis = Axis::log("");
            Group {
                label: format!(
                    "{} in [{}, {}]",
                    law.variables[by],
                    crate::figure::tick_label(&axis, lo.log10()),
                    crate::figure::tick_label(&axis, hi.log10())
                ),
                at,
                rows,
                range: Some((by, lo, hi)),
            }
        })
        .collect()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => 0.5 * (values[n / 2 - 1] + values[n / 2]),
    }
}

fn positive_range(values: &[f64]) -> Option<(f64, f64)> {
    let positive = values.iter().copied().filter(|v| *v > 0.0 && v.is_finite());
    let (lo, hi) = positive.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

fn log_grid(lo: f64, hi: f64, points: usize) -> Vec<f64> {
    let (a, b) = (lo.ln(), hi.ln());
    (0..points)
        .map(|i| (a + (b - a) * i as f64 / (points - 1) as f64).exp())
        .collect()
}

/// The residuals in the fit's space against every variable, one panel each.
pub fn residuals_page(law: &Law, result: &FitResult, data: &FitData) -> Result<Page, Error> {
    let points: Vec<Vec<f64>> = (0..data.target.len())
        .map(|r| data.variables.iter().map(|c| c[r]).collect())
        .collect();
    let predicted = result.predict(&points)?;
    let log = result.settings.space == Space::Log;
    let residuals: Vec<f64> = data
        .target
        .iter()
        .zip(&predicted)
        .map(|(y, p)| if log { p.ln() - y.ln() } else { p - y })
        .collect();
    // The library's residual (fit::Problem): fitted − observed, so > 0 is an over-prediction.
    let label = if log {
        "log residual (ln ŷ − ln y)"
    } else {
        "residual (ŷ − y)"
    };
    let panels = law
        .variables
        .iter()
        .enumerate()
        .map(|(v, name)| {
            let values = &data.variables[v];
            let log_x = values.iter().all(|x| *x > 0.0);
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
                        points: values
                            .iter()
                            .copied()
                            .zip(residuals.iter().copied())
                            .collect(),
                        color: 0,
                    },
                ],
                legend: Legend::UpperRight,
            }
        })
        .collect::<Vec<_>>();
    Ok(Page {
        title: format!("{} fit: residuals", result.law),
        columns: panels.len().min(2),
        panels,
    })
}

/// The compute-optimal N*(C) and D*(C) over `budgets`, with bands from the fit's bootstrap
/// draws when it has them.
pub fn frontier_page(
    law: &Law,
    result: &FitResult,
    settings: &AllocationSettings,
) -> Result<Page, Error> {
    let with_draws = AllocationSettings {
        draws: result
            .bootstrap
            .as_ref()
            .map(|b| b.draws.clone())
            .unwrap_or_default(),
        level: result.bootstrap.as_ref().map_or(0.95, |b| b.level),
        ..settings.clone()
    };
    let frontier = optimal(law, &result.param_values(), &with_draws)?;
    let mut layers = Vec::new();
    for (i, (name, key)) in [("N*", "N"), ("D*", "D")].iter().enumerate() {
        let band: Vec<(f64, f64, f64)> = frontier
            .allocations
            .iter()
            .filter_map(|a| a.ci.get(*key).map(|[lo, hi]| (a.budget, *lo, *hi)))
            .collect();
        if !band.is_empty() {
            layers.push(Layer::Band {
                points: band,
                color: i,
            });
        }
        layers.push(Layer::Line {
            label: Some(name.to_string()),
            points: frontier
                .allocations
                .iter()
                .map(|a| (a.budget, if *key == "N" { a.n } else { a.d }))
                .collect(),
            color: i,
            dashed: false,
        });
    }
    let title = match &frontier.exponents {
        Some(e) => format!(
            "compute-optimal frontier: N* ∝ C^{:.3}, D* ∝ C^{:.3}",
            e.a, e.b
        ),
        None => "compute-optimal frontier".to_string(),
    };
    let band_note = if frontier.draws > 0 {
        format!(" ({} bootstrap draws)", frontier.draws)
    } else {
        String::new()
    };
    Ok(Page::single(Figure {
        title: format!("{title}{band_note}"),
        x: Axis::log(format!("budget C (FLOPs = {})", frontier.flops)),
        y: Axis::log("parameters N*, tokens D*"),
        layers,
        legend: Legend::UpperLeft,
    }))
}

/// Histograms of every free parameter over the fit's bootstrap draws, with the estimate and
/// the interval marked.
pub fn bootstrap_page(result: &FitResult) -> Result<Page, Error> {
    let Some(bootstrap) = result.bootstrap.as_ref().filter(|b| !b.draws.is_empty()) else {
        return Err(Error::settings(
            "plot bootstrap: the fit has no bootstrap replicates (fit with --bootstrap K)",
        ));
    };
    let panels = result
        .params
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| !p.fixed)
        .map(|(i, (name, p))| {
            let values: Vec<f64> = bootstrap.draws.iter().map(|d| d[i]).collect();
            let mut layers = vec![Layer::Bars {
                bars: histogram(&values, 30),
                color: 0,
            }];
            layers.push(Layer::VLine {
                x: p.value,
                color: 1,
                label: Some("estimate".into()),
            });
            if let Some([lo, hi]) = p.ci {
                for (x, label) in [
                    (
                        lo,
                        Some(format!("{}% interval", (bootstrap.level * 100.0).round())),
                    ),
                    (hi, None),
                ] {
                    layers.push(Layer::VLine { x, color: 2, label });
                }
            }
            Figure {
                title: name.clone(),
                x: Axis::linear(name.clone()),
                y: Axis::linear("draws"),
                layers,
                legend: Legend::UpperRight,
            }
        })
        .collect::<Vec<_>>();
    Ok(Page {
        title: format!(
            "{} fit: {} bootstrap draws of each parameter",
            result.law,
            bootstrap.draws.len()
        ),
        columns: panels.len().min(3),
        panels,
    })
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

/// IsoFLOP profiles: each budget's runs (loss against N), its local curve and minimum; and the
/// minima N*(C) with their intervals and the fitted power law.
pub fn isoflop_page(data: &IsoflopData, result: &Isoflop) -> Page {
    let mut profiles = Vec::new();
    let mut minima = Vec::new();
    for (b, budget) in result.budgets.iter().enumerate() {
        let rows: Vec<usize> = (0..data.compute.len())
            .filter(|&r| (data.compute[r] / budget.budget - 1.0).abs() < 0.05)
            .collect();
        // A legend entry per budget only while it fits beside the profiles.
        let labelled = result.budgets.len() <= 6;
        profiles.push(Layer::Points {
            label: labelled.then(|| format!("C = {}", short(budget.budget))),
            points: rows.iter().map(|&r| (data.size[r], data.loss[r])).collect(),
            color: b,
        });
        if let Some(curve) = &budget.curve {
            profiles.push(Layer::Line {
                label: None,
                points: log_grid(curve.from, curve.to, 40)
                    .into_iter()
                    .map(|n| (n, curve.loss_at(n)))
                    .collect(),
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
        points: result
            .budgets
            .iter()
            .filter_map(|b| Some((b.budget, b.n?)))
            .collect(),
        color: 0,
    }];
    for b in &result.budgets {
        if let Some([lo, hi]) = b.n_ci {
            frontier.push(Layer::Line {
                label: None,
                points: vec![(b.budget, lo), (b.budget, hi)],
                color: 0,
                dashed: false,
            });
        }
    }
    let mut title = "minima".to_string();
    if let Some(law) = &result.n_star {
        let budgets: Vec<f64> = result.budgets.iter().map(|b| b.budget).collect();
        let (lo, hi) = positive_range(&budgets).unwrap_or((1.0, 10.0));
        frontier.push(Layer::Line {
            label: Some(format!("N* ∝ C^{:.3}", law.exponent)),
            points: log_grid(lo, hi, 20)
                .into_iter()
                .map(|c| (c, law.coef * c.powf(law.exponent)))
                .collect(),
            color: 1,
            dashed: true,
        });
        title = format!("minima: N* ∝ C^{:.3}", law.exponent);
    }
    Page {
        title: "IsoFLOP profiles".into(),
        columns: 2,
        panels: vec![
            Figure {
                title: format!(
                    "loss against N at {} budgets (smallest C at the top)",
                    result.budgets.len()
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

fn short(v: f64) -> String {
    crate::figure::tick_label(&Axis::log(""), v.log10())
}

/// The compute-optimal loss L*(C) of every track with its band, over the data of each track
/// (its runs at their compute FLOPs(N, D)).
pub fn tracks_page(
    law: &Law,
    comparison: &TrackComparison,
    tracks: &[Track],
    flops: &dyn Fn(f64, f64) -> f64,
    headline: Option<f64>,
) -> Result<Page, Error> {
    let (n, d) =
        match (law.variable_index("N"), law.variable_index("D")) {
            (Some(n), Some(d)) => (n, d),
            _ => return Err(Error::settings(
                "plot tracks: the law needs variables N and D (the plot is loss against compute)",
            )),
        };
    let largest_run = tracks
        .iter()
        .flat_map(|t| (0..t.data.target.len()).map(move |r| (t, r)))
        .map(|(t, r)| flops(t.data.variables[n][r], t.data.variables[d][r]))
        .fold(f64::NEG_INFINITY, f64::max);
    let largest_budget = comparison
        .tracks
        .iter()
        .flat_map(|t| t.allocations.iter().map(|a| a.budget))
        .fold(f64::NEG_INFINITY, f64::max);
    let mut layers = Vec::new();
    if largest_budget > largest_run {
        layers.push(Layer::Span {
            from: largest_run,
            to: largest_budget,
            label: "beyond the data".into(),
        });
    }
    for (t, (fitted, track)) in comparison.tracks.iter().zip(tracks).enumerate() {
        let band: Vec<(f64, f64, f64)> = fitted
            .allocations
            .iter()
            .filter_map(|a| a.ci.get("loss").map(|[lo, hi]| (a.budget, *lo, *hi)))
            .collect();
        if !band.is_empty() {
            layers.push(Layer::Band {
                points: band,
                color: t,
            });
        }
        layers.push(Layer::Line {
            label: Some(format!("{}: compute-optimal loss", fitted.track)),
            points: fitted
                .allocations
                .iter()
                .map(|a| (a.budget, a.loss))
                .collect(),
            color: t,
            dashed: false,
        });
        layers.push(Layer::Points {
            label: Some(format!("{} runs", fitted.track)),
            points: (0..track.data.target.len())
                .map(|r| {
                    let (nr, dr) = (track.data.variables[n][r], track.data.variables[d][r]);
                    (flops(nr, dr), track.data.target[r])
                })
                .collect(),
            color: t,
        });
    }
    // The multiplier at `headline` (the budget `compare` reports last), else at the largest
    // budget drawn.
    let title = match comparison.pairs.first().and_then(|p| {
        let at = match headline {
            Some(c) => p.budgets.iter().min_by(|a, b| {
                (a.budget / c)
                    .ln()
                    .abs()
                    .total_cmp(&(b.budget / c).ln().abs())
            }),
            None => p.budgets.last(),
        };
        at.map(|b| (p, b))
    }) {
        Some((pair, at)) => match at.multiplier.value {
            Some(m) => format!(
                "{} vs {}: {} needs {:.2}× the compute at {}",
                pair.track,
                pair.baseline,
                pair.baseline,
                m,
                short(at.budget)
            ),
            None => format!("{} against {}", pair.track, pair.baseline),
        },
        None => "tracks".to_string(),
    };
    Ok(Page::single(Figure {
        title,
        x: Axis::log("compute C (FLOPs)"),
        y: Axis::log("loss"),
        layers,
        legend: Legend::UpperRight,
    }))
}

/// Schedules side by side (issue 10): the learning rate of each against the step, and the
/// loss the fitted curve law predicts for it; `observed[i]`, when given, are the logged
/// (step, loss) points of schedule i, drawn as points under its curve. At most 8 schedules
/// (the palette); more are an error.
pub fn schedules_page(
    title: &str,
    predictions: &[Prediction],
    observed: &[Option<(Vec<usize>, Vec<f64>)>],
) -> Result<Page, Error> {
    if predictions.len() > 8 {
        return Err(Error::settings(format!(
            "a schedule plot shows at most 8 schedules ({} given)",
            predictions.len()
        )));
    }
    let mut rates = Vec::new();
    let mut losses = Vec::new();
    for (i, p) in predictions.iter().enumerate() {
        let label = Some(p.schedule.clone());
        rates.push(Layer::Line {
            label: label.clone(),
            points: p
                .steps
                .iter()
                .zip(&p.lr)
                .map(|(&s, &lr)| (s as f64, lr))
                .collect(),
            color: i,
            dashed: false,
        });
        if let Some(Some((steps, loss))) = observed.get(i) {
            losses.push(Layer::Points {
                label: None,
                points: steps
                    .iter()
                    .zip(loss)
                    .map(|(&s, &l)| (s as f64, l))
                    .collect(),
                color: i,
            });
        }
        // The warmup's first steps predict losses far above the rest: start at 5% of the run.
        let start = p.steps_total / 20;
        losses.push(Layer::Line {
            label,
            points: p
                .steps
                .iter()
                .zip(&p.loss)
                .filter(|(&s, _)| s >= start)
                .map(|(&s, &l)| (s as f64, l))
                .collect(),
            color: i,
            dashed: false,
        });
    }
    Ok(Page {
        title: title.to_string(),
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
    })
}
