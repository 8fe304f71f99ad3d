//! From the library's results to the plot crate's plain inputs: which curves a plot shows
//! (groups of runs, grids), with every value computed by the library (`uncertainty::curves`
//! along a grid; a frontier, an IsoFLOP study, tracks and schedules as their analyses give
//! them). The CLI, Python and the HTML page draw through here, so a picture shows the numbers
//! the reports print.

use std::collections::BTreeMap;

use serde::Deserialize;

use scalinglaws::analysis::allocation::{AllocationSettings, Flops, Frontier};
use scalinglaws::analysis::downstream::{DownstreamResult, Method, Shape, TaskForecast};
use scalinglaws::analysis::isoflop::{
    group_by_budget, isoflop, Isoflop, IsoflopData, IsoflopSettings,
};
use scalinglaws::analysis::schedule::intervals::CurveBand;
use scalinglaws::analysis::schedule::Prediction;
use scalinglaws::analysis::tracks::{Track, TrackComparison};
use scalinglaws::data::recipe::Table;
use scalinglaws::error::short_number;
use scalinglaws::error::Setting;
use scalinglaws::fit::{FitData, FitResult, Space};
use scalinglaws::uncertainty::curves::{band_along, curve_along};
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::workflow::compare::{n_and_d, CompareResult, CompareSpec, DEFAULT_FLOPS};
use scalinglaws::workflow::design::DesignDocument;
use scalinglaws::{text, Error, Law};
use scalinglaws_plot::inputs::{
    BootstrapPlot, DesignPlot, DownstreamPanel, DownstreamPlot, FitGroup, FitPlot, FrontierPlot,
    IsoflopBudget, IsoflopPlot, MethodForecasts, ParamDraws, ResidualPanel, ResidualsPlot,
    ScheduleCurves, SchedulesPlot, TrackCurves, TracksPlot,
};
use scalinglaws_plot::kinds::{self, log_grid, positive_range, short};
use scalinglaws_plot::Page;

/// At most this many curves in a fit plot; more groups are binned by quantile.
const MAX_GROUPS: usize = 6;
/// The curves run a decade beyond the largest value of the x variable.
const EXTRAPOLATION: f64 = 10.0;
/// Points per curve: smooth at any size a page shows (a segment under 3 pixels at 640).
const CURVE_POINTS: usize = 200;
/// Points per interval band: bands are smooth, and each point's bootstrap prediction interval
/// solves a quantile of a mixture over every replicate (the costly part of a fit plot).
const BAND_POINTS: usize = 40;

/// The fit plot of `result` against variable `x`, bands at `level`.
pub fn fit_page(
    law: &Law,
    result: &FitRecord,
    data: &FitData,
    x: usize,
    level: f64,
) -> Result<Page, Error> {
    Ok(kinds::fit_page(&fit_plot(law, result, data, x, level)?))
}

/// What the fit plot draws: each group's runs, curve, band and calibrated interval.
pub fn fit_plot(
    law: &Law,
    result: &FitRecord,
    data: &FitData,
    x: usize,
    level: f64,
) -> Result<FitPlot, Error> {
    let name = &law.variables[x];
    let xs = &data.variables[x];
    let (lo, hi) = positive_range(xs).ok_or_else(|| {
        Error::settings(format!(
            "plot: '{name}' has no positive values to put on a log axis"
        ))
    })?;
    let groups = groups(law, data, x);
    let binned = groups.iter().any(|g| g.range.is_some());
    let fitted = result.predict(&rows_of(data))?;
    let mut drawn = Vec::with_capacity(groups.len());
    for group in &groups {
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
        let curve = curve_along(result, &group.at, x, &grid)?;
        let band_grid = log_grid(start, hi * EXTRAPOLATION, BAND_POINTS);
        let bands = band_along(result, &group.at, x, &band_grid, level)?;
        let band = match group.range {
            Some((by, from, to)) => {
                let end = group.rows.iter().map(|&r| xs[r]).fold(start, f64::max);
                let inside: Vec<f64> = grid.iter().copied().filter(|v| *v <= end).collect();
                bin_band(result, group, x, &inside, (by, from, to))?
            }
            None => bands.mean,
        };
        drawn.push(FitGroup {
            label: group.label.clone(),
            runs: group
                .rows
                .iter()
                .map(|&r| (xs[r], data.target[r]))
                .collect(),
            curve,
            band,
            calibrated: bands.calibrated,
            fitted: group
                .rows
                .iter()
                .map(|&r| (fitted[r], data.target[r]))
                .collect(),
        });
    }
    Ok(FitPlot {
        law: result.law.clone(),
        target: result.target.clone(),
        x: name.clone(),
        log_y: result.settings.space == Space::Log,
        level,
        extrapolation: (hi, hi * EXTRAPOLATION),
        binned_by: groups
            .iter()
            .find_map(|g| g.range)
            .map(|(by, _, _)| law.variables[by].clone()),
        groups: drawn,
    })
}

/// The law over a bin's whole range of the binning variable `by` (from its smallest to its
/// largest value there), along `grid`; empty when under two points.
fn bin_band(
    result: &FitRecord,
    group: &Group,
    x: usize,
    grid: &[f64],
    (by, from, to): (usize, f64, f64),
) -> Result<Vec<(f64, f64, f64)>, Error> {
    let at = |value: f64| {
        let mut at = group.at.clone();
        at[by] = value;
        curve_along(result, &at, x, grid)
    };
    let (a, b) = (at(from)?, at(to)?);
    let range: Vec<(f64, f64, f64)> = a
        .iter()
        .zip(&b)
        .map(|(&(v, p), &(_, q))| (v, p.min(q), p.max(q)))
        .collect();
    Ok(if range.len() >= 2 { range } else { Vec::new() })
}

/// Every row of the data as a point (the law's variables in order).
fn rows_of(data: &FitData) -> Vec<Vec<f64>> {
    (0..data.target.len())
        .map(|r| data.variables.iter().map(|c| c[r]).collect())
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
            .map(|&v| format!("{} = {}", law.variables[v], short(at[v])))
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
            Group {
                label: format!("{} in [{}, {}]", law.variables[by], short(lo), short(hi)),
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

/// The residuals in the fit's space (fitted − observed, as the library defines them) against
/// every variable.
pub fn residuals_page(law: &Law, result: &FitResult, data: &FitData) -> Result<Page, Error> {
    let predicted = result.predict(&rows_of(data))?;
    let log = result.settings.space == Space::Log;
    let residuals: Vec<f64> = data
        .target
        .iter()
        .zip(&predicted)
        .map(|(y, p)| if log { p.ln() - y.ln() } else { p - y })
        .collect();
    Ok(kinds::residuals_page(&ResidualsPlot {
        law: result.law.clone(),
        log,
        panels: law
            .variables
            .iter()
            .zip(&data.variables)
            .map(|(name, values)| ResidualPanel {
                variable: name.clone(),
                values: values.clone(),
                residuals: residuals.clone(),
            })
            .collect(),
    }))
}

/// The smallest and the largest budget the frontier picture draws when none are given, in
/// FLOPs.
pub const FRONTIER_BUDGETS: (f64, f64) = (1e18, 1e26);

/// What the frontier picture of a saved fit is drawn over (`plot frontier`, Python's
/// `Fit.plot()`): its budgets, the FLOPs formula and the other variables held, each default
/// and rule written here once for both faces.
#[derive(Debug, Clone, Deserialize)]
pub struct FrontierPicture {
    /// The smallest budget drawn, in FLOPs.
    #[serde(default = "smallest_budget")]
    pub from: f64,
    /// The largest budget drawn, in FLOPs.
    #[serde(default = "largest_budget")]
    pub to: f64,
    /// Training FLOPs as a formula of N and D.
    #[serde(default = "default_flops")]
    pub flops: String,
    /// Other variables of the law held at values (`U` → its values).
    #[serde(default)]
    pub held: BTreeMap<String, Vec<f64>>,
}

fn smallest_budget() -> f64 {
    FRONTIER_BUDGETS.0
}

fn largest_budget() -> f64 {
    FRONTIER_BUDGETS.1
}

fn default_flops() -> String {
    DEFAULT_FLOPS.to_string()
}

impl Default for FrontierPicture {
    fn default() -> Self {
        FrontierPicture {
            from: smallest_budget(),
            to: largest_budget(),
            flops: default_flops(),
            held: BTreeMap::new(),
        }
    }
}

impl FrontierPicture {
    /// The 41 budgets drawn, log-spaced from `from` to `to` (0 < from < to, finite); each
    /// face names its own settings of the two in front of a refusal.
    pub fn budgets(&self) -> Result<Vec<f64>, Error> {
        let (from, to) = (self.from, self.to);
        if !(from > 0.0 && to > from && to.is_finite()) {
            return Err(Error::settings(format!(
                "give budgets with 0 < from < to, not from {} to {}",
                short_number(from),
                short_number(to)
            )));
        }
        Ok(log_grid(from, to, 41))
    }

    /// The allocation at [`FrontierPicture::budgets`], under the formula (a refusal names
    /// the `flops` setting), with the values held.
    pub fn settings(&self) -> Result<AllocationSettings, Error> {
        Ok(AllocationSettings {
            flops: Flops::parse(&self.flops).map_err(|e| e.within(Setting::Flops))?,
            held: self.held.clone(),
            ..AllocationSettings::at_budgets(self.budgets()?)
        })
    }
}

/// The compute-optimal frontier (N*(C), D*(C)), with bands when it has bootstrap intervals.
pub fn frontier_page(frontier: &Frontier) -> Page {
    kinds::frontier_page(&frontier_plot(frontier))
}

/// What a frontier plot draws: N*(C), D*(C) and their bands.
pub fn frontier_plot(frontier: &Frontier) -> FrontierPlot {
    let line = |value: fn(&scalinglaws::analysis::allocation::Allocation) -> f64| {
        frontier
            .allocations
            .iter()
            .map(|a| (a.budget, value(a)))
            .collect()
    };
    let band = |key: &str| {
        frontier
            .allocations
            .iter()
            .filter_map(|a| a.ci.get(key).map(|[lo, hi]| (a.budget, *lo, *hi)))
            .collect()
    };
    FrontierPlot {
        n: line(|a| a.n),
        n_band: band("N"),
        d: line(|a| a.d),
        d_band: band("D"),
        exponents: frontier.exponents.as_ref().map(|e| (e.a, e.b)),
        draws: frontier.draws,
        flops: frontier.flops.to_string(),
    }
}

/// Histograms of every free parameter over the fit's bootstrap draws.
pub fn bootstrap_page(result: &FitRecord) -> Result<Page, Error> {
    let Some(bootstrap) = result.bootstrap.as_ref().filter(|b| !b.draws.is_empty()) else {
        return Err(Error::setting(
            Setting::Bootstrap,
            text![
                "the bootstrap picture: the fit has no bootstrap replicates (fit with ",
                Setting::Bootstrap.number("K"),
                ")"
            ],
        ));
    };
    let params = result
        .params
        .iter()
        .enumerate()
        .filter(|(_, (_, p))| !p.fixed)
        .map(|(i, (name, p))| ParamDraws {
            name: name.clone(),
            values: bootstrap.draws.iter().map(|d| d[i]).collect(),
            estimate: p.value,
            interval: p.ci,
        })
        .collect();
    Ok(kinds::bootstrap_page(&BootstrapPlot {
        law: result.law.clone(),
        draws: bootstrap.draws.len(),
        level: bootstrap.level,
        params,
    }))
}

/// The columns an IsoFLOP picture reads: each run's compute budget, model size and loss.
#[derive(Debug, Clone, Copy)]
pub struct IsoflopColumns<'a> {
    pub compute: &'a str,
    pub size: &'a str,
    pub target: &'a str,
}

/// The IsoFLOP picture (`plot isoflop`, Python's `plot_isoflop`): the per-budget profiles and
/// N*(C) of the runs of `table` whose `select` columns read the given labels (every run when
/// none is given).
pub fn isoflop_figure(
    table: &Table,
    columns: IsoflopColumns,
    select: &[(String, String)],
    settings: &IsoflopSettings,
) -> Result<Page, Error> {
    let data = isoflop_runs(table, columns, select)?;
    let result = isoflop(&data, settings)?;
    Ok(kinds::isoflop_page(&isoflop_plot(&data, &result, settings)))
}

/// The runs an IsoFLOP picture draws: those whose `select` columns read the given labels, with
/// their compute, size and loss, each positive (the profiles are drawn on log axes).
fn isoflop_runs(
    table: &Table,
    columns: IsoflopColumns,
    select: &[(String, String)],
) -> Result<IsoflopData, Error> {
    let mut keep = vec![true; table.dataset.n_rows()];
    for (column, value) in select {
        let labels = table.labels(column, Setting::Select)?;
        for (kept, label) in keep.iter_mut().zip(&labels) {
            *kept &= label == value;
        }
    }
    if !keep.iter().any(|k| *k) {
        return Err(Error::setting(
            Setting::Select,
            text![
                Setting::Select.subject(),
                ": no run matches every selection"
            ],
        ));
    }
    let why = "IsoFLOP profiles are drawn on log axes";
    let values = |name: &str, role: Setting| -> Result<Vec<f64>, Error> {
        let values = table.positive_values(name, role, why)?;
        Ok(values
            .into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(v, _)| v)
            .collect())
    };
    Ok(IsoflopData {
        compute: values(columns.compute, Setting::Compute)?,
        size: values(columns.size, Setting::Size)?,
        loss: values(columns.target, Setting::Target)?,
        tokens: None,
    })
}

/// The values of the IsoFLOP profiles' page: each budget's runs, its local curve and minimum,
/// and the power law through the minima. A budget's runs are those the analysis (`result`, of
/// `data` under `settings`) grouped into it, so the picture draws no run its profile did not
/// use.
fn isoflop_plot(data: &IsoflopData, result: &Isoflop, settings: &IsoflopSettings) -> IsoflopPlot {
    // The analysis's budgets are its groups, in order.
    let groups = group_by_budget(&data.compute, settings.tolerance);
    debug_assert!(
        groups.len() == result.budgets.len()
            && groups
                .iter()
                .zip(&result.budgets)
                .all(|(g, b)| g.len() == b.points),
        "the budgets are not the analysis's groups"
    );
    let budgets = result
        .budgets
        .iter()
        .zip(&groups)
        .map(|(budget, rows)| IsoflopBudget {
            budget: budget.budget,
            runs: rows.iter().map(|&r| (data.size[r], data.loss[r])).collect(),
            curve: budget.curve.as_ref().map_or(Vec::new(), |curve| {
                log_grid(curve.from, curve.to, 40)
                    .into_iter()
                    .map(|n| (n, curve.loss_at(n)))
                    .collect()
            }),
            n: budget.n,
            loss: budget.loss,
            n_interval: budget.n_ci,
        })
        .collect();
    let n_star = result.n_star.as_ref().map(|law| {
        let budgets: Vec<f64> = result.budgets.iter().map(|b| b.budget).collect();
        let (lo, hi) = positive_range(&budgets).unwrap_or((1.0, 10.0));
        let line = log_grid(lo, hi, 20)
            .into_iter()
            .map(|c| (c, law.coef * c.powf(law.exponent)))
            .collect();
        (law.exponent, line)
    });
    IsoflopPlot { budgets, n_star }
}

/// The spec of the recipes picture (`plot tracks`, Python's `plot_tracks`): `compare`'s, with
/// the comparison on the grid over the whole range of the data and beyond.
pub fn tracks_spec(spec: &CompareSpec) -> CompareSpec {
    let mut spec = spec.clone();
    spec.job.grid = true;
    spec
}

/// The recipes picture of the runs `table` holds, with the comparison it draws (as `compare`
/// writes one): each track's runs and compute-optimal loss with its band, the title giving the
/// multiplier at the largest of the spec's budgets, as `compare` reports it. `spec` is
/// [`tracks_spec`]'s, checked.
pub fn tracks_figure(spec: &CompareSpec, table: &Table) -> Result<(Page, CompareResult), Error> {
    // The picture's own rule, before the comparison's fits and bootstrap run.
    n_and_d(&spec.law.build(table)?)?;
    let compared = spec.run(table)?;
    let result = CompareResult {
        track: Some(spec.job.track.clone()),
        comparison: compared.comparison,
    };
    let headline = spec.job.budgets.iter().copied().reduce(f64::max);
    let flops = spec.job.parsed_flops()?;
    let page = tracks_page(
        &compared.law,
        &result.comparison,
        &compared.tracks,
        &|n, d| flops.at(n, d),
        headline,
    )?;
    Ok((page, result))
}

/// The compute-optimal loss L*(C) of every track with its band, over each track's runs at
/// their compute FLOPs(N, D); the title gives the multiplier at `headline` (the budget
/// `compare` reports last), else at the largest budget drawn.
pub fn tracks_page(
    law: &Law,
    comparison: &TrackComparison,
    tracks: &[Track],
    flops: &dyn Fn(f64, f64) -> f64,
    headline: Option<f64>,
) -> Result<Page, Error> {
    let (n, d) = n_and_d(law)?;
    let runs = |track: &Track| -> Vec<(f64, f64)> {
        (0..track.data.target.len())
            .map(|r| {
                let (nr, dr) = (track.data.variables[n][r], track.data.variables[d][r]);
                (flops(nr, dr), track.data.target[r])
            })
            .collect()
    };
    let largest_run = tracks
        .iter()
        .flat_map(|t| runs(t).into_iter().map(|(c, _)| c))
        .fold(f64::NEG_INFINITY, f64::max);
    let largest_budget = comparison
        .tracks
        .iter()
        .flat_map(|t| t.allocations.iter().map(|a| a.budget))
        .fold(f64::NEG_INFINITY, f64::max);
    let curves = comparison
        .tracks
        .iter()
        .zip(tracks)
        .map(|(fitted, track)| TrackCurves {
            name: fitted.track.clone(),
            loss: fitted
                .allocations
                .iter()
                .map(|a| (a.budget, a.loss))
                .collect(),
            band: fitted
                .allocations
                .iter()
                .filter_map(|a| a.ci.get("loss").map(|[lo, hi]| (a.budget, *lo, *hi)))
                .collect(),
            runs: runs(track),
        })
        .collect();
    Ok(kinds::tracks_page(&TracksPlot {
        title: tracks_title(comparison, headline),
        beyond: (largest_budget > largest_run).then_some((largest_run, largest_budget)),
        tracks: curves,
    }))
}

/// "b vs a: a needs 1.23× the compute at 1e22", at the budget nearest `headline`.
fn tracks_title(comparison: &TrackComparison, headline: Option<f64>) -> String {
    let pair_at = comparison.pairs.first().and_then(|p| {
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
    });
    match pair_at {
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
    }
}

/// Schedules side by side: `observed[i]`, when given, are the logged (step, loss) points of
/// schedule i. At most [`kinds::MAX_SCHEDULES`] schedules; more are an error.
pub fn schedules_page(
    title: &str,
    predictions: &[Prediction],
    observed: &[Option<(Vec<usize>, Vec<f64>)>],
) -> Result<Page, Error> {
    schedules_page_with_bands(title, predictions, observed, &[])
}

/// [`schedules_page`] with each schedule's prediction interval drawn as a band where
/// `bands[i]` holds one.
pub fn schedules_page_with_bands(
    title: &str,
    predictions: &[Prediction],
    observed: &[Option<(Vec<usize>, Vec<f64>)>],
    bands: &[Option<&CurveBand>],
) -> Result<Page, Error> {
    if predictions.len() > kinds::MAX_SCHEDULES {
        return Err(Error::settings(format!(
            "a schedule plot shows at most {} schedules ({} given)",
            kinds::MAX_SCHEDULES,
            predictions.len()
        )));
    }
    let schedules = predictions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // The warmup's first steps predict losses far above the rest: start at 5% of the run.
            let start = p.steps_total / 20;
            ScheduleCurves {
                name: p.schedule.clone(),
                lr: p
                    .steps
                    .iter()
                    .zip(&p.lr)
                    .map(|(&s, &lr)| (s as f64, lr))
                    .collect(),
                loss: p
                    .steps
                    .iter()
                    .zip(&p.loss)
                    .filter(|(&s, _)| s >= start)
                    .map(|(&s, &l)| (s as f64, l))
                    .collect(),
                observed: match observed.get(i) {
                    Some(Some((steps, loss))) => steps
                        .iter()
                        .zip(loss)
                        .map(|(&s, &l)| (s as f64, l))
                        .collect(),
                    _ => Vec::new(),
                },
                band: match bands.get(i) {
                    Some(Some(band)) => (0..band.steps.len())
                        .filter(|&k| band.steps[k] >= start)
                        .map(|k| (band.steps[k] as f64, band.low[k], band.high[k]))
                        .collect(),
                    _ => Vec::new(),
                },
            }
        })
        .collect();
    Ok(kinds::schedules_page(&SchedulesPlot {
        title: title.to_string(),
        schedules,
    }))
}

/// The downstream page: one panel per informative task, the models' last checkpoints, each
/// method's forecasts with their intervals at the targets' compute, and held-out accuracies.
pub fn downstream_page(result: &DownstreamResult) -> Page {
    kinds::downstream_page(&downstream_plot(result))
}

pub fn downstream_plot(result: &DownstreamResult) -> DownstreamPlot {
    let panels = result
        .tasks
        .iter()
        .filter(|t| t.shape != Shape::AtChance)
        .map(|task| {
            let rows: Vec<_> = result
                .forecasts
                .iter()
                .filter(|f| f.task == task.task)
                .collect();
            let x = |f: &TaskForecast| 6.0 * f.params * f.tokens;
            let methods = Method::ALL
                .iter()
                .map(|&method| MethodForecasts {
                    name: method.name().to_string(),
                    forecasts: rows
                        .iter()
                        .filter_map(|f| {
                            f.of(method)
                                .map(|p| (x(f), p.value, p.interval[0], p.interval[1]))
                        })
                        .collect(),
                })
                .collect();
            DownstreamPanel {
                title: format!("{} ({})", task.task, task.shape.name()),
                chance: Some(task.chance),
                observed: task.points.iter().map(|p| (p[0], p[1])).collect(),
                methods,
                held_out: rows
                    .iter()
                    .filter_map(|f| Some((x(f), f.observed?)))
                    .collect(),
            }
        })
        .collect();
    DownstreamPlot {
        title: format!(
            "downstream accuracy, {} % intervals",
            crate::text::level_percent(result.level)
        ),
        panels,
    }
}

/// The design in the (N, D) plane: every candidate, the runs so far and the runs to launch
/// (the points of the run that made `document`). The law must have variables N and D.
pub fn design_page(document: &DesignDocument) -> Result<Page, Error> {
    let index = |name: &str| document.variables.iter().position(|v| v == name);
    let (Some(n), Some(d)) = (index("N"), index("D")) else {
        return Err(Error::settings(format!(
            "the design plot draws tokens D against model size N, and the law's variables are {}",
            document.variables.join(", ")
        )));
    };
    let plane = |points: &[Vec<f64>]| points.iter().map(|p| (p[n], p[d])).collect();
    let outcome = &document.points;
    let result = &document.result;
    let chosen: Vec<(f64, f64)> = result
        .runs
        .iter()
        .filter_map(|run| Some((*run.point.get("N")?, *run.point.get("D")?)))
        .collect();
    // A run chosen again (a replicate) is drawn once; the title says so.
    let mut distinct = chosen.clone();
    distinct.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    distinct.dedup();
    let repeats = if distinct.len() < chosen.len() {
        format!(" ({} distinct)", distinct.len())
    } else {
        String::new()
    };
    let spend = result
        .spend
        .map_or(String::new(), |s| format!(" within {}", short(s)));
    Ok(kinds::design_page(&DesignPlot {
        title: format!(
            "{} runs to launch{repeats} of {} candidates{spend}",
            result.runs.len(),
            result.candidates
        ),
        candidates: plane(&outcome.candidates),
        existing: plane(&outcome.existing),
        chosen,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two budgets 3 % apart under the default tolerance (0.1 %) are two profiles: each is
    /// drawn with its own runs only (the picture once drew every run within 5 % of a budget,
    /// so each showed the other's runs too).
    #[test]
    fn an_isoflop_budget_draws_the_runs_its_profile_used() {
        let sizes = [1e8, 2e8, 4e8, 8e8, 1.6e9];
        let mut data = IsoflopData {
            compute: Vec::new(),
            size: Vec::new(),
            loss: Vec::new(),
            tokens: None,
        };
        for (budget, offset) in [(1e19, 0.0), (1.03e19, 0.01)] {
            for n in sizes {
                let x: f64 = (n / 4e8_f64).ln();
                data.compute.push(budget);
                data.size.push(n);
                data.loss.push(2.5 + offset + 0.05 * x * x);
            }
        }
        let settings = IsoflopSettings::default();
        let result = isoflop(&data, &settings).expect("two profiles");
        assert_eq!(result.budgets.len(), 2);
        let plot = isoflop_plot(&data, &result, &settings);
        let runs: Vec<usize> = plot.budgets.iter().map(|b| b.runs.len()).collect();
        assert_eq!(runs, vec![5, 5]);
    }
}
