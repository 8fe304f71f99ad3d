//! Intervals at new points. The confidence interval (`ci`) covers the law's mean there; the
//! prediction interval (`pi`) covers a new run, adding the residual scatter σ̂ of the fit
//! (`stats.residual_scale`, with a sweep's frontier choice sd in quadrature) as normal noise in
//! the fitted space. Both come from the bootstrap
//! draws when the fit has them (ci: percentiles of the replicates' predictions; pi: quantiles
//! of the mixture of N(replicate prediction, σ̂²)), else from the delta method (the gradient of
//! the prediction with the fit's covariance: var = gᵀΣg, and σ̂² added for pi). Intervals are
//! computed in the fitted space (log y for log residuals) and mapped back, so they are
//! asymmetric in y exactly when the fit treats errors as multiplicative. A heteroscedastic fit
//! (`FitResult::variance`) adds σ(x) = σ0·(x/x0)^s at each predicted point instead of one σ̂.
//! Under a count or proportion family the prediction interval is the family's own distribution
//! at the fit's trials or exposure, mixed over the same draws or delta-method nodes
//! ([`super::predictive`]), and the confidence interval stays inside the family's domain.

pub(crate) use super::prediction::{back, forward};
pub use super::prediction::{IntervalSource, PointPrediction};
use super::predictive::{normal_nodes, Predictive};
use super::FitRecord;
use crate::error::{Error, Result};
use crate::fit::{FitResult, Space};
use crate::law::Law;
use crate::stats::{normal_mixture_quantile, normal_quantile, quantile_sorted};

/// The fit's predictions at `points` (one value per law variable each) with intervals at
/// `level`; prediction intervals are widened beyond the data by the fit's calibration when it
/// has one (see [`super::calibration`]), and `pi_fit` keeps the fit's own. Once the record's
/// interrupt (`settings.interrupt`) is set, the points left get no interval (nothing is
/// computed for them) and the result is [`crate::Error::Interrupted`].
pub fn predict_with_intervals(
    result: &FitRecord,
    points: &[Vec<f64>],
    level: f64,
) -> Result<(Vec<PointPrediction>, IntervalSource)> {
    predict_with_intervals_of(&result.law()?, result, points, level)
}

/// [`predict_with_intervals`] with the fit's law given (one built in memory, such as a joint
/// law over tracks, that the result's name cannot rebuild).
pub fn predict_with_intervals_of(
    law: &Law,
    result: &FitRecord,
    points: &[Vec<f64>],
    level: f64,
) -> Result<(Vec<PointPrediction>, IntervalSource)> {
    let (mut predictions, source) = predict_fit_intervals_of(law, result, points, level)?;
    let stop = &result.settings.interrupt;
    if let Some(calibration) = &result.calibration {
        let at_bound = result.has_param_at_bound();
        let space = result.settings.space;
        for (prediction, point) in predictions.iter_mut().zip(points) {
            if stop.is_interrupted() {
                break;
            }
            match calibration.rule.as_ref().and_then(|r| r.at(law, point)) {
                Some(scale) => {
                    calibration.widen_at_level(prediction, scale, space, level, at_bound)
                }
                None => prediction.pi_fit = prediction.pi,
            }
        }
    }
    stop.check()?;
    Ok((predictions, source))
}

/// [`predict_with_intervals`] without the calibration: the fit's own intervals.
pub fn predict_fit_intervals(
    result: &FitRecord,
    points: &[Vec<f64>],
    level: f64,
) -> Result<(Vec<PointPrediction>, IntervalSource)> {
    predict_fit_intervals_of(&result.law()?, result, points, level)
}

/// [`predict_fit_intervals`] with the fit's law given (stopped by the record's interrupt as
/// [`predict_with_intervals`] is).
pub fn predict_fit_intervals_of(
    law: &Law,
    result: &FitRecord,
    points: &[Vec<f64>],
    level: f64,
) -> Result<(Vec<PointPrediction>, IntervalSource)> {
    super::check_level(level)?;
    let values = result.predict_with(law, points)?;
    let space = result.settings.space;
    // A fit file without the residual scale (written before it was recorded) gets no pi.
    let sigma_at = |point: &[f64]| residual_sd_at(result, law, point);
    let discrete = discrete_family(result);
    let draws = result
        .bootstrap
        .as_ref()
        .map(|b| b.draws.as_slice())
        .filter(|d| !d.is_empty());
    if let Some(draws) = draws {
        let predictions = from_draws(law, result, &discrete, points, &values, draws, level);
        result.settings.interrupt.check()?;
        check_draws_agree(law, result, discrete.is_some(), points, &predictions)?;
        return Ok((predictions, IntervalSource::Bootstrap));
    }
    let Some(covariance) = &result.covariance else {
        let bare = values
            .into_iter()
            .map(|value| PointPrediction::new(value, None, None))
            .collect();
        return Ok((bare, IntervalSource::None));
    };
    let slots: Vec<usize> = covariance
        .names
        .iter()
        .map(|name| {
            law.param_index(name).ok_or_else(|| {
                Error::settings(format!(
                    "the covariance names '{name}', not a parameter of the law"
                ))
            })
        })
        .collect::<Result<_>>()?;
    let params = result.param_values();
    let mut predictions = Vec::with_capacity(points.len());
    let mut gradient = vec![0.0; params.len()];
    let stop = &result.settings.interrupt;
    law.for_each_point(points, |i, bound, row, scratch| {
        if stop.is_interrupted() {
            predictions.push(PointPrediction::new(values[i], None, None));
            return;
        }
        gradient.iter_mut().for_each(|g| *g = 0.0);
        bound.gradient_row_sparse(&params, row, scratch, |p, g| gradient[p] += g);
        let value = values[i];
        let mut variance = 0.0;
        for (a, &pa) in slots.iter().enumerate() {
            for (b, &pb) in slots.iter().enumerate() {
                variance += gradient[pa] * covariance.values[a][b] * gradient[pb];
            }
        }
        if let Some(family) = &discrete {
            predictions.push(family.of_delta(value, variance.max(0.0).sqrt(), level));
            return;
        }
        let to_space = match space {
            Space::Log => 1.0 / value,
            Space::Linear => 1.0,
        };
        let se = (variance * to_space * to_space).max(0.0).sqrt();
        predictions.push(delta_interval(
            value,
            se,
            sigma_at(&points[i]),
            space,
            level,
        ));
    });
    stop.check()?;
    Ok((predictions, IntervalSource::Delta))
}

/// The intervals at `points` from the bootstrap replicates' parameters `draws`.
fn from_draws(
    law: &Law,
    result: &FitRecord,
    discrete: &Option<Discrete>,
    points: &[Vec<f64>],
    values: &[f64],
    draws: &[Vec<f64>],
    level: f64,
) -> Vec<PointPrediction> {
    // A family's draws stay in the prediction's units (its intervals are not in log space).
    let space = match discrete {
        Some(_) => Space::Linear,
        None => result.settings.space,
    };
    let mut predictions = Vec::with_capacity(points.len());
    let mut means = Vec::with_capacity(draws.len());
    let stop = &result.settings.interrupt;
    law.for_each_point(points, |i, bound, row, scratch| {
        if stop.is_interrupted() {
            predictions.push(PointPrediction::new(values[i], None, None));
            return;
        }
        means.clear();
        means.extend(
            draws
                .iter()
                .map(|params| forward(space, bound.eval_row(params, row, scratch))),
        );
        let prediction = match discrete {
            Some(family) => family.of_draws(&mut means, values[i], level),
            None => {
                let sigma = residual_sd_at(result, law, &points[i]);
                bootstrap_interval(&mut means, values[i], space, sigma, level)
            }
        };
        predictions.push(prediction);
    });
    predictions
}

/// How far (in widths of the draws' interval, and in residual standard deviations) a value
/// may lie outside the interval its own draws give before the two are called inconsistent.
const DRAWS_SLACK_WIDTHS: f64 = 3.0;
const DRAWS_SLACK_SIGMAS: f64 = 10.0;

/// A fit's parameters predict near what its own bootstrap draws predict: a value more than
/// [`DRAWS_SLACK_WIDTHS`] widths and [`DRAWS_SLACK_SIGMAS`] residual sds outside the draws'
/// interval was not written by the fit that wrote the draws (issue 50: β edited to 1e-300,
/// within its own bounds and near its interval, predicted 12848 beside an interval of
/// [2.62, 2.63]). A fit whose bootstrap settled elsewhere by a parameter says so and is not
/// checked; one whose replicates agree parameter by parameter but not here is refused too, with
/// both causes named: its intervals would not describe its predictions.
fn check_draws_agree(
    law: &Law,
    result: &FitRecord,
    discrete: bool,
    points: &[Vec<f64>],
    predictions: &[PointPrediction],
) -> Result<()> {
    if result
        .params
        .iter()
        .any(|(_, p)| crate::fit::far_from_interval(p).is_some())
    {
        return Ok(());
    }
    let space = if discrete {
        Space::Linear
    } else {
        result.settings.space
    };
    for (point, prediction) in points.iter().zip(predictions) {
        let Some([lo, hi]) = prediction.ci else {
            continue;
        };
        let [lo, hi, value] = [lo, hi, prediction.value].map(|v| forward(space, v));
        let gap = (lo - value).max(value - hi);
        let sigma = residual_sd_at(result, law, point).unwrap_or(0.0);
        if gap > DRAWS_SLACK_WIDTHS * (hi - lo) && gap > DRAWS_SLACK_SIGMAS * sigma {
            let at: Vec<String> = law
                .variables
                .iter()
                .zip(point)
                .map(|(name, v)| format!("{name} = {}", crate::error::short_number(*v)))
                .collect();
            return Err(Error::settings(format!(
                "at {} the fit's parameters predict {} where its own bootstrap draws predict \
                 [{}, {}]: the draws do not describe these parameters (the file was edited, or \
                 the replicates settled in another optimum); restore the file, or fit again",
                at.join(", "),
                four_digits(prediction.value),
                four_digits(prediction.ci.expect("checked")[0]),
                four_digits(prediction.ci.expect("checked")[1]),
            )));
        }
    }
    Ok(())
}

/// `value` to four significant digits, as a message shows a prediction.
fn four_digits(value: f64) -> String {
    crate::error::short_number(format!("{value:.3e}").parse().unwrap_or(value))
}

/// The residual sd a new run adds at `point`, in the fitted space: σ(x) of the fit's variance
/// model when it has one, else its one residual scale σ̂; a sweep's frontier adds its choice's
/// sd in quadrature (`crate::data::sweep`: how far the estimator's choice moves a cell).
pub fn residual_sd_at(result: &FitRecord, law: &Law, point: &[f64]) -> Option<f64> {
    let sigma = match &result.variance {
        Some(model) => model.sd_at(law, point),
        None => result.stats.residual_scale,
    }?;
    let choice = result
        .sweep
        .as_ref()
        .and_then(|s| s.choice_sd)
        .unwrap_or(0.0);
    Some(sigma.hypot(choice))
}

/// A count or proportion family of the fit, with the distribution a new observation has
/// at the fit's common trials or exposure (None inside when the rows' sizes differ: then there
/// is no prediction interval, as a new observation's size is not known); None for any other
/// objective.
pub(crate) fn discrete_family(result: &FitResult) -> Option<Discrete> {
    let family = result.held_settings().family?;
    if family.kind.location_scale() {
        return None;
    }
    let fitted = result.family.as_ref();
    // A fitted dispersion is drawn at its Cox–Reid adjusted value, with its uncertainty.
    let adjusted = fitted.and_then(|f| f.adjusted_dispersion);
    let dispersion = adjusted.map(|a| a.0).or(family.dispersion);
    let predictive = fitted.and_then(|f| f.size).and_then(|size| {
        Predictive::new(family.kind, dispersion, size)
            .map(|p| p.with_dispersion_se(adjusted.map(|a| a.1)))
    });
    Some(Discrete {
        proportions: family.kind.proportions(),
        predictive,
    })
}

/// A count or proportion family's intervals: see [`discrete_family`].
pub(crate) struct Discrete {
    proportions: bool,
    predictive: Option<Predictive>,
}

impl Discrete {
    /// `[low, high]` kept inside the family's domain: [0, 1], or 0 and above.
    fn clamped(&self, low: f64, high: f64) -> Option<[f64; 2]> {
        let clamp = |m: f64| {
            if self.proportions {
                m.clamp(0.0, 1.0)
            } else {
                m.max(0.0)
            }
        };
        finite_pair(clamp(low), clamp(high))
    }

    /// The intervals at a point from the bootstrap replicates' predictions `means` (sorted
    /// here): the confidence interval their percentiles, the prediction interval the family's
    /// quantiles mixed over them.
    fn of_draws(&self, means: &mut [f64], value: f64, level: f64) -> PointPrediction {
        if means.iter().any(|m| !m.is_finite()) {
            return PointPrediction::new(value, None, None);
        }
        means.sort_by(f64::total_cmp);
        let tail = (1.0 - level) / 2.0;
        let ci = self.clamped(
            quantile_sorted(means, tail),
            quantile_sorted(means, 1.0 - tail),
        );
        let pi = self.predictive.and_then(|f| f.interval(means, level));
        PointPrediction::new(value, ci, pi)
    }

    /// The intervals at a point from the delta method's standard error `se` of the mean: the
    /// confidence interval value ± z·se, the prediction interval the family's quantiles mixed
    /// over equal-probability nodes of N(value, se²).
    fn of_delta(&self, value: f64, se: f64, level: f64) -> PointPrediction {
        let half = normal_quantile(0.5 + level / 2.0) * se;
        let ci = self.clamped(value - half, value + half);
        let pi = self
            .predictive
            .and_then(|f| f.interval(&normal_nodes(value, se), level));
        PointPrediction::new(value, ci, pi)
    }
}

fn finite_pair(lo: f64, hi: f64) -> Option<[f64; 2]> {
    (lo.is_finite() && hi.is_finite()).then_some([lo, hi])
}

/// The interval from the replicates' means at a point (`means`, in the fitted space; sorted
/// here).
fn bootstrap_interval(
    means: &mut [f64],
    value: f64,
    space: Space,
    sigma: Option<f64>,
    level: f64,
) -> PointPrediction {
    // A replicate whose law is undefined here (e.g. a negative prediction in log space) leaves
    // no honest percentile: no interval rather than one over the other replicates.
    if means.iter().any(|m| !m.is_finite()) {
        return PointPrediction::new(value, None, None);
    }
    means.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    let ci = finite_pair(
        back(space, quantile_sorted(means, tail)),
        back(space, quantile_sorted(means, 1.0 - tail)),
    );
    let pi = sigma.and_then(|sigma| {
        finite_pair(
            back(space, normal_mixture_quantile(means, sigma, tail)),
            back(space, normal_mixture_quantile(means, sigma, 1.0 - tail)),
        )
    });
    PointPrediction::new(value, ci, pi)
}

fn delta_interval(
    value: f64,
    se: f64,
    sigma: Option<f64>,
    space: Space,
    level: f64,
) -> PointPrediction {
    let z = normal_quantile(0.5 + level / 2.0);
    let centre = forward(space, value);
    let interval = |half: f64| finite_pair(back(space, centre - half), back(space, centre + half));
    PointPrediction::new(
        value,
        interval(z * se),
        sigma.and_then(|sigma| interval(z * (se * se + sigma * sigma).sqrt())),
    )
}

/// ∂prediction/∂params at one point (every parameter, in the law's order), by one reverse
/// sweep of the law's tape.
pub fn gradient_at(law: &Law, params: &[f64], point: &[f64]) -> Vec<f64> {
    let columns: Vec<Vec<f64>> = point.iter().map(|v| vec![*v]).collect();
    let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    let tape = law.bind(&slices);
    let mut scratch = tape.scratch();
    let mut gradient = vec![0.0; params.len()];
    tape.gradient_row_sparse(params, 0, &mut scratch, |i, g| gradient[i] += g);
    gradient
}
