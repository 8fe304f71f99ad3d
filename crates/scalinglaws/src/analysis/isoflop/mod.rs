//! IsoFLOP analysis (Hoffmann et al. 2022, approach 2): runs trained at the same compute budget
//! C but different sizes N trace a valley of loss against log N; its minimum is the
//! compute-optimal N* at C, and a power law through the minima gives N* ∝ C^a (and D* ∝ C^b).
//!
//! Per budget, the minimum comes from a local polynomial in x = ln N fitted to y = ln loss on
//! the points around the lowest observed loss: by default a cubic through the five nearest
//! points (the valley of an IsoFLOP profile is skewed, and a parabola through five points biases
//! the minimum towards the flatter side: on Porian et al. 2024's fifteen configurations it
//! misses the published exponent by up to 0.031, the cubic by at most 0.017), or a parabola
//! through five or three points. A budget whose lowest loss is at the smallest or largest size
//! has no interior minimum and is left out of the power law, with a note. Intervals: the
//! exponents from a bootstrap over budgets (pairs resampled), each N* from a parametric
//! bootstrap of its local fit at the scatter pooled over all budgets; both seeded per replicate.
//! A minimum that falls outside its window in a replicate counts as a failed replicate, and no
//! interval is given when more than half fail.

mod choice;
mod forecast;
mod joint;

use serde::{Deserialize, Serialize};

pub use choice::{
    joint_fit_rows, windows, Candidate, CandidateScore, JointForecast, Method, MethodChoice,
    MAX_JOINT_REPLICATES, MIN_TRAINING_BUDGETS,
};
pub use forecast::{
    isoflop_backtest, BudgetPrediction, ForecastCalibration, HeldOutBudget, IsoflopBacktest,
    Quantity,
};
pub use joint::{joint_forecast, JointFit, Window};

use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::rng::Rng;
use crate::stats::{least_squares_line, percentile_interval};

/// The local curve through the points around a budget's minimum.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum Shape {
    /// Chosen from the data: [`Shape::ParabolaAll`] unless a lack-of-fit test rejects it
    /// against the local cubic, then [`Shape::Cubic`] (see [`choose_shape`]); the default.
    #[serde(rename = "auto")]
    #[default]
    Auto,
    /// A cubic in ln N through the five points nearest the lowest loss.
    #[serde(rename = "cubic")]
    Cubic,
    /// A parabola through the five points nearest the lowest loss.
    #[serde(rename = "parabola")]
    Parabola,
    /// A parabola through the lowest point and its two neighbours.
    #[serde(rename = "parabola3")]
    Parabola3,
    /// A parabola through every point of the budget (Hoffmann et al. 2022's approach 2).
    #[serde(rename = "parabola:all")]
    ParabolaAll,
    /// A cubic through every point of the budget.
    #[serde(rename = "cubic:all")]
    CubicAll,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::Auto,
        Shape::Cubic,
        Shape::Parabola,
        Shape::Parabola3,
        Shape::ParabolaAll,
        Shape::CubicAll,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Auto => "auto",
            Shape::Cubic => "cubic",
            Shape::Parabola => "parabola",
            Shape::Parabola3 => "parabola3",
            Shape::ParabolaAll => "parabola:all",
            Shape::CubicAll => "cubic:all",
        }
    }

    pub fn from_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// A shape by name, or an error naming the setting and the choices.
    pub fn parse(name: &str) -> Result<Shape> {
        Shape::from_name(name).ok_or_else(|| {
            let choices = Shape::ALL.map(Shape::name).join(", ");
            Error::setting(
                crate::error::Setting::Shape,
                crate::text![
                    crate::error::Setting::Shape.text(name),
                    format!(": use one of {choices}")
                ],
            )
        })
    }

    /// In words, for reports: "cubic through the 5 points nearest the lowest loss".
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Auto => "curve chosen by a lack-of-fit test",
            Shape::Cubic => "cubic through the 5 points nearest the lowest loss",
            Shape::Parabola => "parabola through the 5 points nearest the lowest loss",
            Shape::Parabola3 => "parabola through the lowest point and its 2 neighbours",
            Shape::ParabolaAll => "parabola through every point",
            Shape::CubicAll => "cubic through every point",
        }
    }

    /// Points on each side of the lowest one; None for every point of the budget.
    fn half_window(self) -> Option<usize> {
        match self {
            Shape::Cubic | Shape::Parabola | Shape::Auto => Some(2),
            Shape::Parabola3 => Some(1),
            Shape::ParabolaAll | Shape::CubicAll => None,
        }
    }

    fn degree(self) -> usize {
        match self {
            Shape::Cubic | Shape::CubicAll | Shape::Auto => 3,
            _ => 2,
        }
    }
}

/// How close (relative) two runs' budgets must be to share a budget unless told otherwise.
pub const DEFAULT_TOLERANCE: f64 = 1e-3;

#[derive(Debug, Clone, PartialEq)]
pub struct IsoflopSettings {
    pub shape: Shape,
    /// Runs whose budgets differ by less than this (relative) share a budget.
    pub tolerance: f64,
    pub bootstrap: usize,
    pub seed: u64,
    pub level: f64,
    /// New budgets at which to predict N*, D* and the loss.
    pub predict_at: Vec<f64>,
    /// What predicts there: the per-budget minima, the joint law, or (`auto`) whichever a
    /// backtest over the budgets prefers.
    pub method: Method,
    /// Widen the intervals of predictions beyond the data by rolling-origin backtests.
    pub calibrate: bool,
    /// Stops the bootstrap and the rolling origins between replicates ([`Error::Interrupted`]).
    pub interrupt: Interrupt,
}

impl IsoflopSettings {
    /// The rules that need no data: the tolerance a relative one in [0, 1), the level in
    /// range (checked before the runs are read by every face that draws or analyses them).
    pub fn check(&self) -> Result<()> {
        check_tolerance(self.tolerance)?;
        crate::uncertainty::check_level(self.level)
    }
}

/// Budgets closer than `tolerance` (relative) are one: a tolerance in [0, 1).
pub fn check_tolerance(tolerance: f64) -> Result<()> {
    if (0.0..1.0).contains(&tolerance) {
        return Ok(());
    }
    Err(Error::setting(
        Setting::Tolerance,
        crate::text![
            Setting::Tolerance.number(tolerance),
            ": give a relative tolerance in [0, 1), e.g. 1e-3"
        ],
    ))
}

impl Default for IsoflopSettings {
    fn default() -> Self {
        IsoflopSettings {
            shape: Shape::Auto,
            tolerance: DEFAULT_TOLERANCE,
            bootstrap: 0,
            seed: 0,
            level: crate::uncertainty::DEFAULT_LEVEL,
            predict_at: Vec::new(),
            method: Method::default(),
            calibrate: true,
            interrupt: Interrupt::default(),
        }
    }
}

/// One budget's profile and its minimum.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "IsoflopBudget")]
pub struct Budget {
    pub budget: f64,
    pub points: usize,
    #[serde(rename = "N")]
    pub n: Option<f64>,
    #[serde(rename = "D")]
    pub d: Option<f64>,
    pub loss: Option<f64>,
    /// Percentile interval of N* (residual bootstrap of the local fit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_ci: Option<[f64; 2]>,
    /// Why the budget has no minimum (left out of the power law).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The local curve through the minimum (for plots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve: Option<LocalCurve>,
}

/// A budget's local polynomial ln loss = Σ cₖ (ln N)ᵏ over the sizes it was fitted to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LocalCurve {
    pub coefficients: Vec<f64>,
    /// The smallest and largest N of its window.
    pub from: f64,
    pub to: f64,
}

impl LocalCurve {
    /// The curve's loss at model size `n`.
    pub fn loss_at(&self, n: f64) -> f64 {
        polyval(&self.coefficients, n.ln()).exp()
    }
}

/// A power law y = coef · C^exponent through the minima.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PowerLaw {
    pub exponent: f64,
    pub coef: f64,
    pub r2: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<[f64; 2]>,
}

/// An IsoFLOP analysis (Chinchilla's approach 2): a profile and its minimum per budget, and
/// the power laws N* ∝ C^a, D* ∝ C^b through the minima.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Isoflop {
    pub shape: Shape,
    pub budgets: Vec<Budget>,
    /// N* ∝ C^a.
    pub n_star: Option<PowerLaw>,
    /// D* ∝ C^b.
    pub d_star: Option<PowerLaw>,
    pub bootstrap: usize,
    pub level: f64,
    /// How `auto` chose the shape (absent when the shape was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape_choice: Option<ShapeChoice>,
    /// Predictions at the requested new budgets (by `method_choice.chosen`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predictions: Vec<BudgetPrediction>,
    /// Why no predictions were made, when some were asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predictions_note: Option<String>,
    /// How the profiles' prediction intervals beyond the data were calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<ForecastCalibration>,
    /// What predicts at the new budgets and why (absent for `profiles`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method_choice: Option<MethodChoice>,
    /// The joint law behind `predictions`, when it was chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint: Option<JointForecast>,
    /// The per-budget minima's predictions, kept as a diagnostic when the joint law predicts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profile_predictions: Vec<BudgetPrediction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_predictions_note: Option<String>,
}

/// The choice made by [`Shape::Auto`]: a lack-of-fit F test of the parabola through every point
/// against the local cubic's scatter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ShapeChoice {
    pub chosen: Shape,
    /// Mean square of the wide parabola's residuals over the local cubic's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistic: Option<f64>,
    /// Degrees of freedom of the two mean squares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dof: Option<[usize; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    pub reason: String,
}

/// Significance level of [`choose_shape`]'s lack-of-fit test.
pub const LACK_OF_FIT_LEVEL: f64 = 0.01;

/// The runs of an IsoFLOP study: budget, size, loss and (optionally) tokens per run.
#[derive(Debug, Clone, PartialEq)]
pub struct IsoflopData {
    pub compute: Vec<f64>,
    pub size: Vec<f64>,
    pub loss: Vec<f64>,
    pub tokens: Option<Vec<f64>>,
}

pub fn isoflop(data: &IsoflopData, settings: &IsoflopSettings) -> Result<Isoflop> {
    validate(data, settings)?;
    let groups = group_by_budget(&data.compute, settings.tolerance);
    let shape_choice = (settings.shape == Shape::Auto).then(|| choose_shape(data, &groups));
    let resolved = IsoflopSettings {
        shape: shape_choice.as_ref().map_or(settings.shape, |c| c.chosen),
        ..settings.clone()
    };
    let mut result = minima_and_power_laws(data, &groups, &resolved);
    result.shape_choice = shape_choice;
    if !settings.predict_at.is_empty() {
        forecast::predict_budgets(data, groups.clone(), &mut result, &resolved)?;
        if settings.method != Method::Profiles {
            choice::predict_by_choice(data, &groups, &mut result, &resolved)?;
        }
    }
    // An interrupted bootstrap stopped early: its intervals are not the analysis's.
    settings.interrupt.check()?;
    Ok(result)
}

/// Every budget's minimum and the power laws through them, for a resolved shape.
fn minima_and_power_laws(
    data: &IsoflopData,
    groups: &[Vec<usize>],
    settings: &IsoflopSettings,
) -> Isoflop {
    let mut budgets = Vec::with_capacity(groups.len());
    for rows in groups {
        budgets.push(budget_minimum(data, rows, settings));
    }
    if settings.bootstrap > 0 {
        minimum_intervals(data, groups, &mut budgets, settings);
    }
    let with_minimum: Vec<&Budget> = budgets.iter().filter(|b| b.n.is_some()).collect();
    let n_star = power_law(&with_minimum, |b| b.n);
    let d_star = power_law(&with_minimum, |b| b.d);
    let mut result = Isoflop {
        shape: settings.shape,
        budgets,
        n_star,
        d_star,
        bootstrap: settings.bootstrap,
        level: settings.level,
        shape_choice: None,
        predictions: Vec::new(),
        predictions_note: None,
        calibration: None,
        method_choice: None,
        joint: None,
        profile_predictions: Vec::new(),
        profile_predictions_note: None,
    };
    if settings.bootstrap > 0 {
        exponent_intervals(&mut result, settings);
    }
    result
}

/// [`Shape::Auto`]: the parabola through every point of each budget (Hoffmann et al. 2022's
/// approach 2, the least variable minimum when the valley is parabolic over the sampled range)
/// unless it fails a lack-of-fit F test (Draper & Smith, *Applied Regression Analysis*, §2.7)
/// at level [`LACK_OF_FIT_LEVEL`]: its residual mean square, pooled over budgets, against the
/// local cubic's through the five points nearest each minimum, which stands in for the pure
/// error. When the wide parabola misfits, the local cubic (least biased on skewed valleys).
pub fn choose_shape(data: &IsoflopData, groups: &[Vec<usize>]) -> ShapeChoice {
    let pooled = |shape: Shape| {
        groups
            .iter()
            .filter_map(|rows| {
                let points = profile(data, rows);
                let x: Vec<f64> = points.iter().map(|p| p.0).collect();
                let y: Vec<f64> = points.iter().map(|p| p.1).collect();
                local_fit(&x, &y, shape)
            })
            .fold((0.0, 0usize), |(r, d), f| (r + f.rss, d + f.dof))
    };
    let (wide, local) = (pooled(Shape::ParabolaAll), pooled(Shape::Cubic));
    let choice = |chosen, reason: String| ShapeChoice {
        chosen,
        statistic: None,
        dof: None,
        p_value: None,
        reason,
    };
    if local.1 < 2 || wide.1 < 1 {
        return choice(
            Shape::ParabolaAll,
            format!(
                "too few points per budget to test the parabola's fit (local cubic: {} degrees of freedom, parabola: {}); the parabola through every point",
                local.1, wide.1
            ),
        );
    }
    let statistic = (wide.0 / wide.1 as f64) / (local.0 / local.1 as f64);
    let p_value = if statistic.is_finite() {
        crate::stats::f_sf(statistic, wide.1 as f64, local.1 as f64)
    } else if wide.0 > 0.0 {
        0.0
    } else {
        1.0
    };
    let misfits = p_value < LACK_OF_FIT_LEVEL;
    let (chosen, verdict) = if misfits {
        (
            Shape::Cubic,
            "rejected: the local cubic through the 5 points nearest each minimum",
        )
    } else {
        (
            Shape::ParabolaAll,
            "not rejected: the parabola through every point",
        )
    };
    ShapeChoice {
        chosen,
        statistic: Some(statistic),
        dof: Some([wide.1, local.1]),
        p_value: Some(p_value),
        reason: format!(
            "lack of fit of the parabola through every point, F = {statistic:.3} on ({}, {}) degrees of freedom, p = {:.2e}: {verdict}",
            wide.1,
            local.1,
            p_value
        ),
    }
}

fn validate(data: &IsoflopData, settings: &IsoflopSettings) -> Result<()> {
    let n = data.compute.len();
    if data.size.len() != n
        || data.loss.len() != n
        || data.tokens.as_ref().is_some_and(|t| t.len() != n)
    {
        return Err(Error::settings(
            "the IsoFLOP columns have different lengths",
        ));
    }
    let columns = [
        ("compute", &data.compute),
        ("size", &data.size),
        ("loss", &data.loss),
    ];
    for (name, values) in columns
        .into_iter()
        .chain(data.tokens.iter().map(|t| ("tokens", t)))
    {
        if let Some(row) = values.iter().position(|v| !(*v > 0.0 && v.is_finite())) {
            return Err(Error::settings(format!(
                "row {}: the {name} value {} is not a positive number (IsoFLOP profiles are fitted on logs)",
                row + 1,
                values[row]
            )));
        }
    }
    settings.check()?;
    if settings.bootstrap > 0 {
        crate::limits::check_replicates(settings.bootstrap, settings.level)?;
    }
    Ok(())
}

/// Rows grouped into budgets: sorted by compute, a new budget wherever the next value is more
/// than `tolerance` (relative) above the group's first. [`Isoflop::budgets`] are these groups,
/// in this order (a picture draws each budget's runs by them).
pub fn group_by_budget(compute: &[f64], tolerance: f64) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..compute.len()).collect();
    order.sort_by(|&a, &b| compute[a].total_cmp(&compute[b]).then(a.cmp(&b)));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for row in order {
        match groups.last_mut() {
            Some(group) if compute[row] <= compute[group[0]] * (1.0 + tolerance) => group.push(row),
            _ => groups.push(vec![row]),
        }
    }
    groups
}

/// A budget's points as (ln N, ln loss), sorted by N.
fn profile(data: &IsoflopData, rows: &[usize]) -> Vec<(f64, f64, usize)> {
    let mut points: Vec<(f64, f64, usize)> = rows
        .iter()
        .map(|&r| (data.size[r].ln(), data.loss[r].ln(), r))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
    points
}

fn budget_minimum(data: &IsoflopData, rows: &[usize], settings: &IsoflopSettings) -> Budget {
    let budget = geometric_mean(rows.iter().map(|&r| data.compute[r]));
    let points = profile(data, rows);
    let mut result = Budget {
        budget,
        points: points.len(),
        n: None,
        d: None,
        loss: None,
        n_ci: None,
        note: None,
        curve: None,
    };
    let x: Vec<f64> = points.iter().map(|p| p.0).collect();
    let y: Vec<f64> = points.iter().map(|p| p.1).collect();
    result.curve = window(&y, settings.shape).and_then(|range| {
        let (xs, ys) = (&x[range.clone()], &y[range]);
        let degree = settings.shape.degree().min(xs.len() - 1);
        Some(LocalCurve {
            coefficients: polyfit(xs, ys, degree)?,
            from: xs[0].exp(),
            to: xs[xs.len() - 1].exp(),
        })
    });
    let Some((x_star, y_star)) = local_minimum(&x, &y, settings.shape) else {
        result.note = Some(if points.len() < 3 {
            "fewer than 3 sizes".into()
        } else if window(&y, settings.shape).is_none() {
            "the lowest loss is at the smallest or largest size: no interior minimum".into()
        } else {
            "the local curve has no minimum between its outer points".into()
        });
        return result;
    };
    result.n = Some(x_star.exp());
    result.loss = Some(y_star.exp());
    result.d = Some(tokens_at(data, &points, x_star, budget));
    result
}

fn geometric_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0usize), |(s, c), v| (s + v.ln(), c + 1));
    (sum / count.max(1) as f64).exp()
}

/// D* at ln N*: interpolated (log-log) from the budget's own token counts when given, else
/// C/(6N*).
fn tokens_at(data: &IsoflopData, points: &[(f64, f64, usize)], x_star: f64, budget: f64) -> f64 {
    let Some(tokens) = &data.tokens else {
        return budget / (6.0 * x_star.exp());
    };
    let logs: Vec<(f64, f64)> = points.iter().map(|p| (p.0, tokens[p.2].ln())).collect();
    let (slope, intercept) = line(&logs);
    (intercept + slope * x_star).exp()
}

/// The least-squares line through (x, y) points; a flat line at the mean when every x is the
/// same.
fn line(points: &[(f64, f64)]) -> (f64, f64) {
    least_squares_line(points).unwrap_or_else(|| {
        let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len().max(1) as f64;
        (0.0, mean)
    })
}

/// The window of points around the lowest y used by `shape`, or None at an edge.
fn window(y: &[f64], shape: Shape) -> Option<std::ops::Range<usize>> {
    let lowest = (0..y.len()).min_by(|&a, &b| y[a].total_cmp(&y[b]))?;
    if lowest == 0 || lowest + 1 >= y.len() {
        return None;
    }
    // Centred on the lowest point and clipped at the ends (not shifted: a shifted window would
    // weigh one side of the valley more).
    let Some(half) = shape.half_window() else {
        return Some(0..y.len());
    };
    Some(lowest.saturating_sub(half)..(lowest + half + 1).min(y.len()))
}

/// The minimum (x*, y*) of the local curve around the lowest point.
fn local_minimum(x: &[f64], y: &[f64], shape: Shape) -> Option<(f64, f64)> {
    let range = window(y, shape)?;
    let (xs, ys) = (&x[range.clone()], &y[range]);
    // A cubic needs four points; with fewer, the parabola.
    let degree = shape.degree().min(xs.len() - 1);
    let coefficients = polyfit(xs, ys, degree)?;
    let x_star = stationary_minimum(&coefficients, xs[0], xs[xs.len() - 1])?;
    Some((x_star, polyval(&coefficients, x_star)))
}

/// Least-squares polynomial coefficients c₀ + c₁x + … (x centred for conditioning is done by
/// the caller's window: ln N spans a few units).
fn polyfit(x: &[f64], y: &[f64], degree: usize) -> Option<Vec<f64>> {
    let centre = x.iter().sum::<f64>() / x.len() as f64;
    let design =
        nalgebra::DMatrix::from_fn(x.len(), degree + 1, |i, j| (x[i] - centre).powi(j as i32));
    let target = nalgebra::DVector::from_column_slice(y);
    let solution = design.svd(true, true).solve(&target, 1e-12).ok()?;
    // Back from the centred variable to x: expand Σ c_j (x − centre)^j.
    let mut coefficients = vec![0.0; degree + 1];
    for (j, c) in solution.iter().enumerate() {
        for (k, coefficient) in coefficients.iter_mut().enumerate().take(j + 1) {
            *coefficient += c * binomial(j, k) * (-centre).powi((j - k) as i32);
        }
    }
    coefficients
        .iter()
        .all(|c| c.is_finite())
        .then_some(coefficients)
}

fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

fn polyval(c: &[f64], x: f64) -> f64 {
    c.iter()
        .rev()
        .fold(0.0, |acc, coefficient| acc * x + coefficient)
}

/// The stationary point with positive curvature inside [lo, hi] (for a cubic, the root of the
/// derivative with c'' > 0; for a parabola, the vertex when it opens upward).
fn stationary_minimum(c: &[f64], lo: f64, hi: f64) -> Option<f64> {
    let inside = |x: f64| x.is_finite() && x >= lo && x <= hi;
    match c.len() {
        3 => (c[2] > 0.0)
            .then(|| -c[1] / (2.0 * c[2]))
            .filter(|x| inside(*x)),
        4 => {
            // c1 + 2c2 x + 3c3 x² = 0.
            let (a, b, q) = (3.0 * c[3], 2.0 * c[2], c[1]);
            let curvature = |x: f64| 2.0 * c[2] + 6.0 * c[3] * x;
            let roots: Vec<f64> = if a.abs() < 1e-300 {
                vec![-q / b]
            } else {
                let discriminant = b * b - 4.0 * a * q;
                if discriminant < 0.0 {
                    return None;
                }
                let s = discriminant.sqrt();
                vec![(-b + s) / (2.0 * a), (-b - s) / (2.0 * a)]
            };
            roots
                .into_iter()
                .filter(|x| inside(*x) && curvature(*x) > 0.0)
                .min_by(|p, q| polyval(c, *p).total_cmp(&polyval(c, *q)))
        }
        _ => None,
    }
}

/// A budget's local fit: the window's x, the fitted values, and the residual sum of squares
/// with its degrees of freedom.
struct LocalFit {
    range: std::ops::Range<usize>,
    xs: Vec<f64>,
    fitted: Vec<f64>,
    degree: usize,
    rss: f64,
    dof: usize,
}

fn local_fit(x: &[f64], y: &[f64], shape: Shape) -> Option<LocalFit> {
    let range = window(y, shape)?;
    let (xs, ys) = (&x[range.clone()], &y[range.clone()]);
    let degree = shape.degree().min(xs.len() - 1);
    let coefficients = polyfit(xs, ys, degree)?;
    let fitted: Vec<f64> = xs.iter().map(|v| polyval(&coefficients, *v)).collect();
    let rss = ys.iter().zip(&fitted).map(|(a, b)| (a - b).powi(2)).sum();
    Some(LocalFit {
        range,
        xs: xs.to_vec(),
        fitted,
        degree,
        rss,
        dof: xs.len() - (degree + 1),
    })
}

/// N* intervals by a parametric bootstrap: each budget's local curve refitted to its fitted
/// values plus normal noise at the scatter pooled over every budget's local fit (a window of
/// five points leaves a cubic one degree of freedom, too few to resample on its own).
fn minimum_intervals(
    data: &IsoflopData,
    groups: &[Vec<usize>],
    budgets: &mut [Budget],
    settings: &IsoflopSettings,
) {
    let fits: Vec<Option<LocalFit>> = groups
        .iter()
        .map(|rows| {
            let points = profile(data, rows);
            let x: Vec<f64> = points.iter().map(|p| p.0).collect();
            let y: Vec<f64> = points.iter().map(|p| p.1).collect();
            local_fit(&x, &y, settings.shape)
        })
        .collect();
    let (rss, dof) = fits
        .iter()
        .flatten()
        .fold((0.0, 0usize), |(r, d), f| (r + f.rss, d + f.dof));
    if dof < 2 {
        return;
    }
    let sigma = (rss / dof as f64).sqrt();
    for (index, (budget, fit)) in budgets.iter_mut().zip(&fits).enumerate() {
        let (Some(_), Some(fit)) = (budget.n, fit) else {
            continue;
        };
        let (lo, hi) = (fit.xs[0], fit.xs[fit.xs.len() - 1]);
        let mut stars = Vec::with_capacity(settings.bootstrap);
        for replicate in 0..settings.bootstrap {
            if settings.interrupt.is_interrupted() {
                return;
            }
            let mut rng = Rng::stream(
                settings.seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                replicate as u64,
            );
            let noisy: Vec<f64> = fit
                .fitted
                .iter()
                .map(|f| f + sigma * rng.normal())
                .collect();
            let star =
                polyfit(&fit.xs, &noisy, fit.degree).and_then(|c| stationary_minimum(&c, lo, hi));
            if let Some(x_star) = star {
                stars.push(x_star.exp());
            }
        }
        if stars.len() * 2 >= settings.bootstrap {
            budget.n_ci = Some(percentile_interval(stars, settings.level));
        }
    }
}

fn power_law(budgets: &[&Budget], value: impl Fn(&Budget) -> Option<f64>) -> Option<PowerLaw> {
    let points: Vec<(f64, f64)> = budgets
        .iter()
        .filter_map(|b| value(b).map(|v| (b.budget, v)))
        .collect();
    power_law_through(&points)
}

/// The least-squares power law y = coef · C^exponent through (C, y) points (fitted on logs).
pub(crate) fn power_law_through(points: &[(f64, f64)]) -> Option<PowerLaw> {
    let points: Vec<(f64, f64)> = points.iter().map(|(c, y)| (c.ln(), y.ln())).collect();
    if points.len() < 2 {
        return None;
    }
    let (slope, intercept) = line(&points);
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let total: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    let residual: f64 = points
        .iter()
        .map(|p| (p.1 - intercept - slope * p.0).powi(2))
        .sum();
    Some(PowerLaw {
        exponent: slope,
        coef: intercept.exp(),
        r2: if total > 0.0 {
            1.0 - residual / total
        } else {
            1.0
        },
        ci: None,
    })
}

/// Exponent intervals from a bootstrap over the budgets with a minimum (pairs resampled).
fn exponent_intervals(result: &mut Isoflop, settings: &IsoflopSettings) {
    let pairs: Vec<(f64, f64, f64)> = result
        .budgets
        .iter()
        .filter_map(|b| Some((b.budget.ln(), b.n?.ln(), b.d?.ln())))
        .collect();
    if pairs.len() < 3 {
        return;
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for replicate in 0..settings.bootstrap {
        if settings.interrupt.is_interrupted() {
            return;
        }
        let mut rng = Rng::stream(settings.seed, replicate as u64);
        let sample: Vec<(f64, f64, f64)> = (0..pairs.len())
            .map(|_| pairs[rng.below(pairs.len())])
            .collect();
        if sample.iter().all(|p| p.0 == sample[0].0) {
            continue;
        }
        a.push(line(&sample.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>()).0);
        b.push(line(&sample.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>()).0);
    }
    if let Some(law) = result.n_star.as_mut() {
        law.ci = Some(percentile_interval(a, settings.level));
    }
    if let Some(law) = result.d_star.as_mut() {
        law.ci = Some(percentile_interval(b, settings.level));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Profiles drawn from Chinchilla's law along 6·N·D = C: the minima follow the closed form
    /// N* ∝ C^(β/(α+β)).
    #[test]
    fn minima_of_exact_profiles_follow_the_closed_form() {
        let (e, a, alpha, b, beta) = (1.69, 406.4, 0.34, 410.7, 0.28);
        let mut data = IsoflopData {
            compute: vec![],
            size: vec![],
            loss: vec![],
            tokens: None,
        };
        for c in [1e18, 1e19, 1e20, 1e21] {
            for i in 0..15 {
                let n = 1e6 * 10f64.powf(i as f64 * 0.35);
                let d = c / (6.0 * n);
                data.compute.push(c);
                data.size.push(n);
                data.loss.push(e + a * n.powf(-alpha) + b * d.powf(-beta));
            }
        }
        for shape in Shape::ALL {
            let result = isoflop(
                &data,
                &IsoflopSettings {
                    shape,
                    ..IsoflopSettings::default()
                },
            )
            .unwrap();
            let exponent = result.n_star.unwrap().exponent;
            let miss = (exponent - beta / (alpha + beta)).abs();
            match shape {
                // Five decades of sizes on a fixed grid, the optimum off-centre: a curve through
                // every point carries approach 2's known bias (0.012 for the parabola), which
                // `auto`'s lack-of-fit test detects on these noiseless profiles.
                Shape::ParabolaAll | Shape::CubicAll => assert!(miss < 0.02, "{shape:?}: {miss}"),
                _ => assert!(miss < 0.01, "{shape:?}: a misses by {miss}"),
            }
            if shape == Shape::Auto {
                assert_eq!(result.shape, Shape::Cubic);
            }
        }
    }

    #[test]
    fn an_interrupt_stops_the_bootstrap() {
        let mut data = IsoflopData {
            compute: vec![],
            size: vec![],
            loss: vec![],
            tokens: None,
        };
        for c in [1e18, 1e19, 1e20, 1e21] {
            for i in 0..15 {
                let n = 1e6 * 10f64.powf(i as f64 * 0.35);
                data.compute.push(c);
                data.size.push(n);
                data.loss
                    .push(1.7 + 400.0 * n.powf(-0.34) + 410.0 * (c / (6.0 * n)).powf(-0.28));
            }
        }
        let settings = IsoflopSettings {
            bootstrap: 1000,
            predict_at: vec![1e23],
            ..IsoflopSettings::default()
        };
        assert!(isoflop(&data, &settings).is_ok());
        settings.interrupt.interrupt();
        assert!(matches!(isoflop(&data, &settings), Err(Error::Interrupted)));
    }

    #[test]
    fn an_edge_minimum_is_noted_and_left_out() {
        let data = IsoflopData {
            compute: vec![1e20; 4],
            size: vec![1e8, 2e8, 4e8, 8e8],
            loss: vec![3.0, 2.9, 2.8, 2.7],
            tokens: None,
        };
        let result = isoflop(&data, &IsoflopSettings::default()).unwrap();
        assert!(result.budgets[0].n.is_none());
        assert!(result.budgets[0]
            .note
            .as_deref()
            .unwrap()
            .contains("no interior minimum"));
        assert!(result.n_star.is_none());
    }

    #[test]
    fn budgets_are_grouped_with_a_tolerance() {
        let groups = group_by_budget(&[1e20, 1.0000001e20, 2e20, 1e20], 1e-3);
        assert_eq!(groups, vec![vec![0, 3, 1], vec![2]]);
    }
}
