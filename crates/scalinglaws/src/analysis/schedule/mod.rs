//! Loss curves under learning-rate schedules (issue 10): fit a curve law (`multi_power`,
//! `lr_annealing`, `power_area`, `fsl`) to the logged curves of some runs, score it on every other
//! run, predict and compare the curves of schedules given as specs, find the schedule that
//! minimises the predicted final loss, and tabulate cooldowns of the constant-plus-cooldown
//! regime. A fit on one schedule shape warns that it does not identify a law with an annealing
//! term (issue 26; which shapes do is measured in `tests/integration/schedule_protocol.rs`).

pub mod cooldown;
pub mod cost;
pub mod fit;
pub mod fsl;
pub mod intervals;
pub mod law;
pub mod multi_power;
pub mod optimize;
pub mod profile;
pub mod spec;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Location, Result, Setting, Text};
use crate::fit::solver::Termination;
use crate::interrupt::Interrupt;
use crate::text;
pub use fit::Curve;
pub use law::CurveLaw;
pub use spec::{LazySpec, ParsedSpec, Rates, Schedule, SpecDefaults};

/// Values at the requested steps and, when asked, d value / d parameter (rows × parameters).
pub struct Evaluation {
    pub values: Vec<f64>,
    pub gradient: Option<Vec<Vec<f64>>>,
}

impl From<multi_power::Curve> for Evaluation {
    fn from(c: multi_power::Curve) -> Self {
        Evaluation {
            values: c.values,
            gradient: c.gradient.map(|g| g.iter().map(|r| r.to_vec()).collect()),
        }
    }
}

/// One run's log as read: its rows' steps, learning rates and losses, with their locations.
#[derive(Debug, Clone)]
pub struct RunLog {
    pub run: String,
    pub steps: Vec<f64>,
    pub lrs: Vec<f64>,
    pub loss: Vec<f64>,
    pub locations: Vec<Location>,
}

/// Rebuilds each run's per-step schedule from its log (see [`Schedule::from_log`]), checking
/// every row: whole non-negative steps, distinct within a run, finite non-negative learning
/// rates, positive losses.
pub fn curves_from_logs(logs: &[RunLog], warmup: usize) -> Result<Vec<Curve>> {
    let mut total = 0usize;
    let mut curves = Vec::with_capacity(logs.len());
    for log in logs {
        total = total.saturating_add(schedule_span(log));
        check_fit_steps(total, log)?;
        curves.push(curve_from_log(log, warmup)?);
    }
    Ok(curves)
}

/// The steps of a log's rebuilt schedule (its last whole, in-range logged step + 1); rows out
/// of range are refused by [`curve_from_log`].
fn schedule_span(log: &RunLog) -> usize {
    log.steps
        .iter()
        .filter(|s| {
            **s >= 0.0 && s.fract() == 0.0 && **s < crate::limits::MAX_SCHEDULE_STEPS as f64
        })
        .fold(0usize, |m, &s| m.max(s as usize + 1))
}

/// Refuses runs whose schedules, rebuilt step by step, pass
/// [`crate::limits::MAX_FIT_SCHEDULE_STEPS`] in all once `log` is added.
fn check_fit_steps(total: usize, log: &RunLog) -> Result<()> {
    use crate::limits::{thousands, MAX_FIT_SCHEDULE_STEPS};
    if total <= MAX_FIT_SCHEDULE_STEPS {
        return Ok(());
    }
    Err(Error::setting(
        Setting::Step,
        text![
            format!(
                "the runs' schedules, rebuilt for every step up to each run's last logged step, \
                 reach {} steps in all with run '{}' (to step {}), more than the limit of {} \
                 (the fit evaluates the law over every step at each iteration): fit fewer or \
                 shorter runs, or check that ",
                thousands(total),
                log.run,
                schedule_span(log).saturating_sub(1),
                thousands(MAX_FIT_SCHEDULE_STEPS)
            ),
            Setting::Step.subject(),
            " counts optimizer steps"
        ],
    ))
}

fn curve_from_log(log: &RunLog, warmup: usize) -> Result<Curve> {
    let bad = |i: usize, message: String, fix: Text| Error::Data {
        location: log.locations[i].clone(),
        message: message.into(),
        fix,
    };
    let mut rows: Vec<usize> = (0..log.steps.len()).collect();
    for &i in &rows {
        let s = log.steps[i];
        if !(s >= 0.0 && s.fract() == 0.0) {
            return Err(bad(
                i,
                format!("step {s} is not a whole number ≥ 0"),
                "steps count optimizer updates".into(),
            ));
        }
        if s >= crate::limits::MAX_SCHEDULE_STEPS as f64 {
            let problem = crate::limits::schedule_steps_problem(s as usize + 1).unwrap_or_default();
            return Err(bad(
                i,
                format!("step {s}: {problem}"),
                "steps count optimizer updates; is the step column right?".into(),
            ));
        }
        if !(log.lrs[i] >= 0.0 && log.lrs[i].is_finite()) {
            return Err(bad(
                i,
                format!("learning rate {} is not finite and ≥ 0", log.lrs[i]),
                "fix or remove the row".into(),
            ));
        }
        if !(log.loss[i] > 0.0 && log.loss[i].is_finite()) {
            return Err(bad(
                i,
                format!("loss {} is not positive", log.loss[i]),
                "the fit takes the log of the loss; remove the row".into(),
            ));
        }
    }
    rows.sort_by(|&a, &b| log.steps[a].total_cmp(&log.steps[b]));
    for pair in rows.windows(2) {
        if log.steps[pair[0]] == log.steps[pair[1]] {
            return Err(bad(
                pair[1],
                format!("run '{}' logs step {} twice", log.run, log.steps[pair[1]]),
                text![
                    "keep one row per step (or name the run column with ",
                    Setting::Run.subject(),
                    ")"
                ],
            ));
        }
    }
    let steps: Vec<usize> = rows.iter().map(|&i| log.steps[i] as usize).collect();
    let lrs: Vec<f64> = rows.iter().map(|&i| log.lrs[i]).collect();
    let schedule = Schedule::from_log(&steps, &lrs, warmup);
    if warmup > 0 && warmup > steps[0] + 1 {
        return Err(bad(
            rows[0],
            format!(
                "run '{}' logs step {} inside the warmup of {warmup} steps",
                log.run, steps[0]
            ),
            text![
                "the rebuilt warmup must end by the first logged step: lower ",
                Setting::Warmup.subject()
            ],
        ));
    }
    Ok(Curve {
        run: log.run.clone(),
        lrs: schedule.lrs,
        steps,
        loss: rows.iter().map(|&i| log.loss[i]).collect(),
    })
}

/// A parameter's estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "ScheduleEstimate")]
pub struct Estimate {
    /// The name.
    pub name: String,
    /// The value.
    pub value: f64,
    /// Asymptotic standard error (log-space Gauss–Newton); consecutive points of a curve are
    /// correlated, so treat it as a lower bound.
    pub se: Option<f64>,
}

/// How well the fitted law reproduces one run's logged curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunScore {
    /// The run's label.
    pub run: String,
    /// Whether the run was fitted to.
    pub train: bool,
    /// Logged points.
    pub points: usize,
    /// The last logged step.
    pub last_step: usize,
    /// 1 − SS_res/SS_tot of the predicted curve against the logged losses (None when the
    /// logged losses do not vary).
    pub r2: Option<f64>,
    /// (predicted − logged)/logged at the last logged step.
    pub final_error: f64,
    /// Root-mean-square error.
    pub rmse: f64,
}

/// The output of `schedule fit` (and the FIT.json the other subcommands read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScheduleFit {
    /// Always `schedule_fit`.
    pub kind: String,
    /// The law's name.
    pub law: CurveLaw,
    /// The law's formula.
    pub formula: String,
    /// Where the law comes from.
    pub citation: String,
    /// The fitted parameters, in the law's order.
    pub params: Vec<Estimate>,
    /// Σ Huber(ln y − ln ŷ; δ = 1e-3) over the training points.
    pub objective: f64,
    /// Why the best start's search stopped (the engine's [`Termination`]).
    pub termination: Termination,
    /// Its iterations.
    pub iterations: usize,
    /// Starting points tried.
    pub starts: usize,
    /// The runs fitted to.
    pub train: Vec<String>,
    /// Logged points fitted to.
    pub train_points: usize,
    /// Peak, warmup and length of the first training run: what a spec leaves out.
    pub defaults: SpecDefaults,
    /// How well the law reproduces each run, training runs included.
    pub runs: Vec<RunScore>,
    /// Mean R² over the runs not used for fitting (None if every run trained).
    pub mean_test_r2: Option<f64>,
    /// Reasons to distrust the fit.
    pub warnings: Vec<String>,
    /// The files (or the DataFrame) the logs were read from (absent in fits saved before it
    /// was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub data: Vec<String>,
    /// The parameters held at values (the `fix` setting; absent in fits saved before it was
    /// recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<String>,
    /// Every run's curve (training and held out), for the bootstrap's refits and its measured
    /// coverage (absent in older saved fits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<intervals::SavedCurve>,
}

impl ScheduleFit {
    pub fn values(&self) -> Vec<f64> {
        self.params.iter().map(|p| p.value).collect()
    }
}

/// Each parameter's held value (from `fixed`), or None where it is fitted.
pub fn held_parameters(law: CurveLaw, fixed: &[(String, f64)]) -> Result<Vec<Option<f64>>> {
    let names = law.params();
    let mut held = vec![None; names.len()];
    for (name, value) in fixed {
        let Some(i) = names.iter().position(|n| n == name) else {
            return Err(Error::setting(
                Setting::Fix,
                text![
                    Setting::Fix.subject(),
                    format!(
                        " names '{name}', which is not a parameter of {} ({})",
                        law.name(),
                        names.join(", ")
                    )
                ],
            ));
        };
        held[i] = Some(*value);
    }
    Ok(held)
}

/// Every run named for training is in the data.
fn check_train_runs(curves: &[Curve], train: &[String]) -> Result<()> {
    for name in train {
        if !curves.iter().any(|c| &c.run == name) {
            let known: Vec<&str> = curves.iter().map(|c| c.run.as_str()).collect();
            return Err(Error::setting(
                Setting::Train,
                text![
                    Setting::Train.subject(),
                    format!(
                        " names run '{name}', which is not in the data (runs: {})",
                        known.join(", ")
                    )
                ],
            ));
        }
    }
    Ok(())
}

/// A search that did not converge, and fitted parameters at a bound.
fn fit_warnings(law: CurveLaw, optimum: &fit::Optimum, held: &[Option<f64>]) -> Vec<String> {
    let mut warnings = Vec::new();
    if !optimum.termination.converged() {
        warnings.push(format!(
            "the search stopped without converging: {}",
            optimum.termination.describe()
        ));
    }
    for (i, (name, (value, bounds))) in law
        .params()
        .iter()
        .zip(optimum.params.iter().zip(law.bounds()))
        .enumerate()
    {
        if held[i].is_none() && at_bound(*value, &bounds) {
            warnings.push(format!("{name} = {value:.6} sits at its bound"));
        }
    }
    warnings
}

/// Whether `value` lies within 1e-6 (relative) of either bound.
fn at_bound(value: f64, bounds: &crate::fit::Bounds) -> bool {
    let (lo, hi) = (bounds.low(), bounds.high());
    (value - lo).abs() <= 1e-6 * (1.0 + lo.abs())
        || (hi.is_finite() && (hi - value).abs() <= 1e-6 * (1.0 + hi.abs()))
}

/// Two schedules share a shape when their [`shape_of`] differ by at most this (a fraction of
/// the peak): logs end at their last logged step, not at the schedule's end, which moves a
/// cosine by up to 0.5 % of the peak; distinct shapes (cosine, WSD, two-stage, constant)
/// differ by 20 % or more somewhere.
const SAME_SHAPE: f64 = 0.02;

/// The learning rate after the warmup as a fraction of the peak, at 65 evenly spaced fractions
/// of the post-warmup steps: what two runs of one shape (cosine to a tenth of the peak over
/// 24,000 or 72,000 steps) share.
fn shape_of(curve: &Curve) -> Vec<f64> {
    let schedule = Schedule {
        lrs: curve.lrs.clone(),
    };
    let (peak, start) = (schedule.peak(), schedule.warmup().saturating_sub(1));
    let span = (curve.lrs.len() - 1).saturating_sub(start) as f64;
    (0..=64)
        .map(|j| curve.lrs[start + (span * j as f64 / 64.0).round() as usize] / peak)
        .collect()
}

/// The warning of a fit whose training runs all share one schedule shape (one run, or runs
/// that differ only in length): one shape does not identify a law with an annealing term
/// (issue 10 found the optimum on `cosine_24000` alone in limits of the multi-power law, β at
/// a bound or β → 0 with B·β finite), so it names the parameters at a bound or in that limit.
fn shape_warning(
    law: CurveLaw,
    training: &[Curve],
    params: &[f64],
    held: &[Option<f64>],
) -> Option<String> {
    if law == CurveLaw::PowerArea || training.is_empty() {
        return None;
    }
    let first = shape_of(&training[0]);
    let same = |c: &Curve| {
        shape_of(c)
            .iter()
            .zip(&first)
            .all(|(a, b)| (a - b).abs() <= SAME_SHAPE)
    };
    if !training.iter().all(same) {
        return None;
    }
    let names = law.params();
    let mut limit: Vec<&str> = (0..names.len())
        .filter(|&i| held[i].is_none() && at_bound(params[i], &law.bounds()[i]))
        .map(|i| names[i])
        .collect();
    // β at its lower bound: the limit β → 0 along which B runs off with B·β finite.
    if law == CurveLaw::MultiPower && limit.contains(&"beta") && params[5] < 1.0 {
        limit.insert(0, "B");
    }
    let runs: Vec<&str> = training.iter().map(|c| c.run.as_str()).collect();
    let detail = if first.iter().all(|&x| x >= 1.0 - 1e-9) {
        "the learning rate never falls after the warmup, so the annealing parameters are not seen at all".to_string()
    } else if limit.is_empty() {
        "no parameter sits at a bound here, but the annealing parameters are fitted to this one shape".to_string()
    } else {
        let verb = if limit.len() == 1 { "sits" } else { "sit" };
        format!(
            "{} {verb} at a bound or in a limit of the law that this shape cannot rule out",
            limit.join(", ")
        )
    };
    Some(format!(
        "one schedule shape ({}) does not identify the {} law: {detail}; predictions for other shapes are less certain than the standard errors say: fit on two or more runs of different shapes, such as a constant run and a two-stage run (a drop to a lower constant learning rate part way), and read the held-out runs' R²",
        runs.join(", "),
        law.name()
    ))
}

/// Fits `law` on the runs named in `train` (all when empty), with the parameters in `fixed`
/// held at their values, and scores every run.
pub fn fit_curves(
    law: CurveLaw,
    curves: &[Curve],
    train: &[String],
    fixed: &[(String, f64)],
) -> Result<ScheduleFit> {
    fit_curves_until(law, curves, train, fixed, &Interrupt::default())
}

/// [`fit_curves`] that `interrupt` stops at the search's next evaluation of the law
/// ([`Error::Interrupted`]).
pub fn fit_curves_until(
    law: CurveLaw,
    curves: &[Curve],
    train: &[String],
    fixed: &[(String, f64)],
    interrupt: &Interrupt,
) -> Result<ScheduleFit> {
    let held = held_parameters(law, fixed)?;
    check_train_runs(curves, train)?;
    let is_train = |c: &Curve| train.is_empty() || train.contains(&c.run);
    for c in curves {
        law.check(&c.lrs, &c.steps)
            .map_err(|m| Error::settings(format!("run '{}': {m}", c.run)))?;
    }
    let training: Vec<Curve> = curves.iter().filter(|c| is_train(c)).cloned().collect();
    let train_points: usize = training.iter().map(|c| c.steps.len()).sum();
    let n_params = law.params().len();
    if train_points <= n_params {
        return Err(Error::settings(format!(
            "{} training points for {n_params} parameters of {}: train on more runs",
            train_points,
            law.name()
        )));
    }
    let optimum = fit::fit(law, &training, &held, interrupt);
    interrupt.check()?;
    let optimum = optimum.ok_or_else(|| Error::Fit {
        message: format!("no start of {} gave a finite objective", law.name()).into(),
    })?;
    let runs: Vec<RunScore> = curves
        .iter()
        .map(|c| score(law, &optimum.params, c, is_train(c)))
        .collect();
    let test: Vec<f64> = runs
        .iter()
        .filter(|r| !r.train)
        .filter_map(|r| r.r2)
        .collect();
    let first = &training[0];
    let schedule = Schedule {
        lrs: first.lrs.clone(),
    };
    let mut warnings = fit_warnings(law, &optimum, &held);
    warnings.extend(shape_warning(law, &training, &optimum.params, &held));
    Ok(ScheduleFit {
        kind: "schedule_fit".into(),
        law,
        formula: law.formula().into(),
        citation: law.citation().into(),
        params: law
            .params()
            .iter()
            .enumerate()
            .map(|(i, name)| Estimate {
                name: name.to_string(),
                value: optimum.params[i],
                se: optimum
                    .standard_errors
                    .as_ref()
                    .filter(|_| held[i].is_none())
                    .map(|s| s[i]),
            })
            .collect(),
        objective: optimum.objective,
        termination: optimum.termination,
        iterations: optimum.iterations,
        starts: optimum.starts,
        train: training.iter().map(|c| c.run.clone()).collect(),
        train_points,
        defaults: SpecDefaults {
            peak: schedule.peak(),
            warmup: schedule.warmup(),
            steps: first.lrs.len(),
        },
        runs,
        mean_test_r2: (!test.is_empty()).then(|| test.iter().sum::<f64>() / test.len() as f64),
        warnings,
        data: Vec::new(),
        held: fixed.iter().map(|(name, _)| name.clone()).collect(),
        curves: curves
            .iter()
            .map(intervals::SavedCurve::from_curve)
            .collect(),
    })
}

/// The fitted curve against one run's log.
pub fn score(law: CurveLaw, params: &[f64], curve: &Curve, train: bool) -> RunScore {
    let predicted = law.evaluate(params, &curve.lrs, &curve.steps, false).values;
    let n = curve.loss.len();
    let mean = curve.loss.iter().sum::<f64>() / n as f64;
    let ss_tot: f64 = curve.loss.iter().map(|y| (y - mean).powi(2)).sum();
    let ss_res: f64 = curve
        .loss
        .iter()
        .zip(&predicted)
        .map(|(y, p)| (y - p).powi(2))
        .sum();
    RunScore {
        run: curve.run.clone(),
        train,
        points: n,
        last_step: curve.steps[n - 1],
        r2: (ss_tot > 0.0).then(|| 1.0 - ss_res / ss_tot),
        final_error: (predicted[n - 1] - curve.loss[n - 1]) / curve.loss[n - 1],
        rmse: (ss_res / n as f64).sqrt(),
    }
}

/// A predicted curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "PredictedCurve")]
pub struct Prediction {
    /// The schedule spec.
    pub schedule: String,
    /// Steps in the schedule.
    pub steps_total: usize,
    /// Its largest learning rate.
    pub peak_lr: f64,
    /// The learning rate at the last step.
    pub final_lr: f64,
    /// The predicted loss at the last step.
    pub final_loss: f64,
    /// The sampled steps.
    pub steps: Vec<usize>,
    /// The learning rate at each sampled step.
    pub lr: Vec<f64>,
    /// The predicted loss at each sampled step.
    pub loss: Vec<f64>,
    /// For `cooldowns` specs: each branch's start, end step and predicted loss there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cooldowns: Vec<CooldownPoint>,
}

/// One branch of a `cooldowns` spec: where it starts and ends, and the loss it reaches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CooldownPoint {
    /// The step the cooldown starts at.
    pub start: usize,
    /// Its length in steps.
    pub length: usize,
    /// The step it ends at.
    pub end_step: usize,
    /// The predicted loss at `end_step`.
    pub loss: f64,
    /// The constant run's loss at the same step (what the cooldown gains over it).
    pub constant_loss: f64,
}

/// Steps 0, every, 2·every, … and the last step (0 → 200 points).
pub fn curve_steps(len: usize, every: usize) -> Vec<usize> {
    let every = if every == 0 {
        (len / 200).max(1)
    } else {
        every
    };
    let mut steps: Vec<usize> = (every..len).step_by(every).collect();
    if steps.last() != Some(&(len - 1)) {
        steps.push(len - 1);
    }
    steps
}

/// How far above the largest learning rate of the fit's runs a schedule may reach: the laws
/// are fitted to the rates the runs used, and far above them they only say the loss falls as
/// the rate grows (an optimiser then drives the rate to its bound, 1e300 if allowed).
pub const MAX_RATE_ABOVE_FIT: f64 = 10.0;

/// The largest learning rate of the fit's runs (its saved curves' knots; the training run's
/// peak for fits saved without curves).
pub fn largest_fitted_rate(fit: &ScheduleFit) -> f64 {
    fit.curves
        .iter()
        .flat_map(|c| c.knots.iter().map(|k| k.1))
        .fold(fit.defaults.peak, f64::max)
}

/// Refuses a learning rate more than [`MAX_RATE_ABOVE_FIT`] times the fit's largest; `what`
/// says where it was given (the peak setting, or a schedule's text), `key` which setting.
pub fn check_rate(fit: &ScheduleFit, rate: f64, key: Setting, what: Text) -> Result<()> {
    let largest = largest_fitted_rate(fit);
    if rate <= MAX_RATE_ABOVE_FIT * largest {
        return Ok(());
    }
    Err(Error::setting(
        key,
        text![
            what,
            format!(
                " reaches a learning rate of {rate:.3e}, more than {MAX_RATE_ABOVE_FIT} times \
                 the largest of the fit's runs ({largest:.3e}); the law was not fitted there and \
                 would only say the loss falls as the rate grows; give a peak up to {:.3e}",
                MAX_RATE_ABOVE_FIT * largest
            )
        ],
    ))
}

/// The fitted law's curve on a parsed spec, every `every` steps (0: about 200 points).
pub fn predict(fit: &ScheduleFit, spec: &ParsedSpec, every: usize) -> Result<Prediction> {
    let branches: Vec<(usize, &dyn Rates)> = spec
        .branches
        .iter()
        .map(|(start, b)| (*start, &b.lrs as &dyn Rates))
        .collect();
    predict_family(fit, &spec.text, &spec.main.lrs, &branches, every)
}

/// [`predict`] on a spec whose rates are computed on demand ([`spec::parse_rates`]): the same
/// prediction, holding no per-step array (memory O(points reported + branches)).
pub fn predict_rates(fit: &ScheduleFit, spec: &LazySpec, every: usize) -> Result<Prediction> {
    let rates: Vec<_> = spec.branches.iter().map(|b| spec.branch(b)).collect();
    let branches: Vec<(usize, &dyn Rates)> = spec
        .branches
        .iter()
        .zip(&rates)
        .map(|(b, r)| (b.start, r as &dyn Rates))
        .collect();
    predict_family(fit, &spec.text, &spec.main, &branches, every)
}

/// The curve of `main` and the end of each branch (its start and its rates, which follow
/// `main` before the start).
fn predict_family(
    fit: &ScheduleFit,
    text: &str,
    main: &dyn Rates,
    branches: &[(usize, &dyn Rates)],
    every: usize,
) -> Result<Prediction> {
    let params = fit.values();
    let peak = spec::peak_of(main);
    let highest = branches
        .iter()
        .map(|(start, b)| tail_peak(*b, *start))
        .fold(peak, f64::max);
    let what = text![Setting::Schedule.text(text)];
    check_rate(fit, highest, Setting::Schedule, what)?;
    let refuse = |m: String| Error::settings(format!("schedule '{text}': {m}"));
    crate::limits::check_curve_points(main.len(), every)?;
    let steps = curve_steps(main.len(), every);
    fit.law.check_rates(main, &steps).map_err(refuse)?;
    let loss = fit.law.values_of(&params, main, &steps);
    finite_losses(text, peak, &steps, &loss)?;
    let cooldowns = branch_points(fit, &params, main, branches)
        .map_err(refuse)?
        .into_iter()
        .map(|point| {
            let CooldownPoint {
                end_step,
                loss,
                constant_loss,
                ..
            } = point;
            finite_losses(text, peak, &[end_step, end_step], &[loss, constant_loss])?;
            Ok(point)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Prediction {
        schedule: text.to_string(),
        steps_total: main.len(),
        peak_lr: peak,
        final_lr: main.at(main.len() - 1),
        final_loss: *loss.last().unwrap_or(&f64::NAN),
        lr: rates_at(main, &steps),
        steps,
        loss,
        cooldowns,
    })
}

/// The largest rate of `rates` from step `start` on.
fn tail_peak(rates: &dyn Rates, start: usize) -> f64 {
    let mut peak = 0.0f64;
    spec::for_each_range(rates, start, rates.len(), |_, lrs| {
        peak = lrs.iter().cloned().fold(peak, f64::max)
    });
    peak
}

/// The rates at `steps` (increasing), in one pass.
fn rates_at(rates: &dyn Rates, steps: &[usize]) -> Vec<f64> {
    let mut out = Vec::with_capacity(steps.len());
    let last = steps.last().map_or(0, |s| s + 1);
    spec::for_each_range(rates, 0, last, |start, lrs| {
        let from = steps.partition_point(|&s| s < start);
        let to = steps.partition_point(|&s| s < start + lrs.len());
        out.extend(steps[from..to].iter().map(|&s| lrs[s - start]));
    });
    out
}

/// Each branch checked as [`CurveLaw::check`] would check it alone (after `main` passed), and
/// its end's loss with the constant run's there, the branches sharing the steps before them.
fn branch_points(
    fit: &ScheduleFit,
    params: &[f64],
    main: &dyn Rates,
    branches: &[(usize, &dyn Rates)],
) -> std::result::Result<Vec<CooldownPoint>, String> {
    check_branches(fit.law, main, branches)?;
    let ends: Vec<(usize, usize, &dyn Rates)> = branches
        .iter()
        .map(|&(start, b)| (start, b.len() - 1, b))
        .collect();
    let loss = fit.law.branch_ends(params, main, &ends);
    let on_main: Vec<(usize, usize, &dyn Rates)> =
        ends.iter().map(|&(_, end, _)| (end, end, main)).collect();
    let constant_loss = fit.law.branch_ends(params, main, &on_main);
    Ok(ends
        .iter()
        .enumerate()
        .map(|(i, &(start, end, _))| CooldownPoint {
            start,
            length: end + 1 - start,
            end_step: end,
            loss: loss[i],
            constant_loss: constant_loss[i],
        })
        .collect())
}

/// The checks of [`CurveLaw::check`] on each branch at its end, in order, given that `main`
/// passed them: the branch's own rates (positive after step 0, for the multi-power law) and
/// its area at the end (one pass of `main` for all branches).
fn check_branches(
    law: CurveLaw,
    main: &dyn Rates,
    branches: &[(usize, &dyn Rates)],
) -> std::result::Result<(), String> {
    let mut by_start: Vec<usize> = (0..branches.len()).collect();
    by_start.sort_by_key(|&i| branches[i].0);
    let mut areas = vec![0.0; branches.len()];
    let (mut area, mut read) = (0.0, 0);
    for i in by_start {
        let (start, rates) = branches[i];
        spec::for_each_range(main, read, start, |_, lrs| area += lrs.iter().sum::<f64>());
        read = start;
        let mut own = area;
        spec::for_each_range(rates, start, rates.len(), |_, lrs| {
            own += lrs.iter().sum::<f64>()
        });
        areas[i] = own;
    }
    for (&(start, rates), area) in branches.iter().zip(areas) {
        let end = rates.len() - 1;
        if law == CurveLaw::MultiPower {
            let mut bad = None;
            spec::for_each_range(rates, start.max(1), end + 1, |from, lrs| {
                if bad.is_none() {
                    bad = lrs
                        .iter()
                        .position(|&lr| !(lr > 0.0 && lr.is_finite()))
                        .map(|i| (from + i, lrs[i]));
                }
            });
            if let Some((k, lr)) = bad {
                return Err(format!(
                    "the learning rate at step {k} is {lr}; the multi-power law needs it positive \
                     after step 0 (it raises it to −γ): use a small final lr instead of 0"
                ));
            }
        }
        if area <= 0.0 {
            return Err(match law {
                CurveLaw::MultiPower => format!(
                    "the schedule's area S1 is 0 at step {end}: no loss is predicted before any \
                     training"
                ),
                _ => format!("the schedule's area S1 is 0 at step {end}"),
            });
        }
    }
    Ok(())
}

/// Refuses a prediction with a loss that is not a finite positive number (a learning rate so far
/// beyond the fitted runs' that the law overflows): a NaN is no prediction.
fn finite_losses(text: &str, peak: f64, steps: &[usize], loss: &[f64]) -> Result<()> {
    let Some(i) = loss.iter().position(|l| !l.is_finite()) else {
        return Ok(());
    };
    Err(Error::setting(
        Setting::Schedule,
        text![
            Setting::Schedule.text(text),
            format!(
                ": the fitted law gives no finite loss at step {} (peak learning rate {}); \
                 keep the learning rates near those of the fitted runs",
                steps[i],
                crate::error::short_number(peak)
            )
        ],
    ))
}

/// Several schedules' curves side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "ScheduleComparison")]
pub struct Comparison {
    /// The fit's curve law.
    pub law: CurveLaw,
    /// Each schedule's predicted curve, in the order given.
    pub schedules: Vec<Prediction>,
    /// The schedule with the lowest predicted final loss.
    pub best: String,
    /// Each schedule's final loss minus the best one's.
    pub final_gap: Vec<f64>,
}

pub fn compare(fit: &ScheduleFit, specs: &[ParsedSpec], every: usize) -> Result<Comparison> {
    check_compared(specs.len())?;
    let schedules = specs
        .iter()
        .map(|s| predict(fit, s, every))
        .collect::<Result<Vec<_>>>()?;
    Ok(comparison(fit, schedules))
}

/// [`compare`] on specs whose rates are computed on demand (see [`predict_rates`]).
pub fn compare_rates(fit: &ScheduleFit, specs: &[LazySpec], every: usize) -> Result<Comparison> {
    check_compared(specs.len())?;
    let schedules = specs
        .iter()
        .map(|s| predict_rates(fit, s, every))
        .collect::<Result<Vec<_>>>()?;
    Ok(comparison(fit, schedules))
}

/// Refuses fewer than two schedules to compare.
pub fn check_compared(specs: usize) -> Result<()> {
    if specs < 2 {
        return Err(Error::setting(
            Setting::Schedule,
            text!["compare needs at least two ", Setting::Schedule.subject()],
        ));
    }
    Ok(())
}

/// The predictions side by side, with the best final loss and each one's gap to it.
fn comparison(fit: &ScheduleFit, schedules: Vec<Prediction>) -> Comparison {
    let best = schedules
        .iter()
        .min_by(|a, b| a.final_loss.total_cmp(&b.final_loss))
        .expect("two schedules");
    let best_loss = best.final_loss;
    Comparison {
        law: fit.law,
        best: best.schedule.clone(),
        final_gap: schedules.iter().map(|s| s.final_loss - best_loss).collect(),
        schedules,
    }
}
