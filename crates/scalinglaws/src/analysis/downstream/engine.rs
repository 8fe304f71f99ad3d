//! The forecasting machinery shared by forecasts, backtests and their replays: a training
//! context (series, diagnoses, the informative tasks), the baselines' fits on it, and each
//! method's raw forecast of each task at a target.

use rayon::prelude::*;

use super::calibrate::{Calibration, Replay};
use super::data::{compute, DownstreamData, Series};
use super::diagnose::{diagnose, Shape};
use super::laws::{chain, fit_loss_law, fit_sigmoid, Direction, Fitted};
use super::pooled::{checkpoint_forecast, noise, shrink_slopes, size_forecast, size_line, Raw};
use super::replay::{self, Observed};
use super::{
    Average, DownstreamResult, DownstreamSettings, Forecast, Method, MethodCalibration, Mode,
    Score, Target, TaskDiagnosis, TaskForecast,
};
use crate::error::{Result, Setting};
use crate::fit::FitSettings;

/// The training evaluations and what every method derives from them.
pub struct Context {
    pub data: DownstreamData,
    pub series: Vec<Vec<Series>>,
    /// The informative tasks (not at chance), in task order.
    pub signal: Vec<usize>,
    /// Per informative task: whether it informs the pooled model's prior, γ and σ.
    pub informs: Vec<bool>,
    max_log_compute: f64,
}

impl Context {
    /// A context whose informative tasks are diagnosed on its own data.
    pub fn new(data: DownstreamData, settings: &DownstreamSettings) -> (Context, Vec<Shape>) {
        let series = data.series();
        let shapes: Vec<Shape> = (0..data.tasks.len())
            .map(|t| diagnose(&data, &series, t))
            .collect();
        let signal: Vec<usize> = (0..data.tasks.len())
            .filter(|&t| shapes[t] != Shape::AtChance)
            .collect();
        (Context::with_signal(data, signal, settings), shapes)
    }

    /// A context (a replay's) that forecasts the given tasks.
    pub fn with_signal(
        data: DownstreamData,
        signal: Vec<usize>,
        settings: &DownstreamSettings,
    ) -> Context {
        let series = data.series();
        let informs = signal
            .iter()
            .map(|&t| {
                settings
                    .unseen
                    .as_ref()
                    .is_none_or(|p| !data.tasks[t].name.starts_with(p.as_str()))
            })
            .collect();
        let max_log_compute = data
            .evaluations
            .iter()
            .map(|e| compute(data.models[e.model].params, e.tokens).log10())
            .fold(f64::NEG_INFINITY, f64::max);
        Context {
            data,
            series,
            signal,
            informs,
            max_log_compute,
        }
    }
}

/// The baselines fitted on a context, one entry per informative task.
pub struct Fits {
    logistic: Vec<Option<Fitted>>,
    stage2: Vec<Option<Fitted>>,
    loss_law: Option<Fitted>,
    pub notes: Vec<String>,
}

impl Fits {
    /// The fits on `run`'s threads; once its interrupt is set, every fit left fails at once.
    pub fn new(ctx: &Context, run: &FitSettings) -> Fits {
        let mut notes = Vec::new();
        let loss_law = match loss_rows(&ctx.data) {
            None => {
                notes.push(
                    "two-stage: the evaluations carry no loss, so the chain was not fitted"
                        .to_string(),
                );
                None
            }
            Some((n, d, l)) => fit_loss_law(&n, &d, &l, run)
                .map_err(|e| {
                    notes.push(format!("two-stage: the loss law could not be fitted: {e}"))
                })
                .ok(),
        };
        if loss_law.as_ref().is_some_and(|f| !f.identified()) {
            notes.push(
                "two-stage: the loss law (stage 1) leaves a parameter unidentified (no finite variance), so every two-stage interval is all of [0, 1]"
                    .to_string(),
            );
        }
        let fitted: Vec<(Option<Fitted>, Option<Fitted>, Vec<String>)> = ctx
            .signal
            .par_iter()
            .map(|&task| fit_task(ctx, task, loss_law.is_some(), run))
            .collect();
        let mut logistic = Vec::new();
        let mut stage2 = Vec::new();
        for (l, s, task_notes) in fitted {
            logistic.push(l);
            stage2.push(s);
            notes.extend(task_notes);
        }
        Fits {
            logistic,
            stage2,
            loss_law,
            notes,
        }
    }
}

fn fit_task(
    ctx: &Context,
    task: usize,
    with_loss: bool,
    run: &FitSettings,
) -> (Option<Fitted>, Option<Fitted>, Vec<String>) {
    let info = &ctx.data.tasks[task];
    let rows: Vec<_> = ctx
        .data
        .evaluations
        .iter()
        .filter(|e| e.task == task)
        .collect();
    let c: Vec<f64> = rows
        .iter()
        .map(|e| compute(ctx.data.models[e.model].params, e.tokens))
        .collect();
    let y: Vec<f64> = rows.iter().map(|e| e.accuracy).collect();
    let mut notes = Vec::new();
    let logistic = fit_sigmoid(
        &c,
        &y,
        info.chance,
        info.questions,
        Direction::LogCompute,
        run,
    )
    .map_err(|e| {
        notes.push(format!(
            "logistic: '{}' could not be fitted: {e}",
            info.name
        ))
    })
    .ok();
    let losses: Vec<_> = rows
        .iter()
        .filter_map(|e| Some((e.loss?, e.accuracy)))
        .collect();
    let stage2 = (with_loss && losses.len() >= 4)
        .then(|| {
            let (l, a): (Vec<f64>, Vec<f64>) = losses.iter().copied().unzip();
            fit_sigmoid(&l, &a, info.chance, info.questions, Direction::Loss, run)
                .map_err(|e| {
                    notes.push(format!(
                        "two-stage: '{}' could not be fitted: {e}",
                        info.name
                    ))
                })
                .ok()
        })
        .flatten();
    (logistic, stage2, notes)
}

/// One (N, D, loss) per checkpoint that has a loss; None without any.
fn loss_rows(data: &DownstreamData) -> Option<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let mut seen = std::collections::HashSet::new();
    let (mut n, mut d, mut l) = (Vec::new(), Vec::new(), Vec::new());
    for e in &data.evaluations {
        if let Some(loss) = e.loss {
            if seen.insert((e.model, e.tokens.to_bits())) {
                n.push(data.models[e.model].params);
                d.push(e.tokens);
                l.push(loss);
            }
        }
    }
    (n.len() >= 6).then_some((n, d, l))
}

/// A target resolved against a context: its own model and last own checkpoint, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub target: Target,
    pub own: Option<(usize, f64)>,
}

impl Point {
    pub fn mode(&self) -> Mode {
        match self.own {
            Some(_) => Mode::AcrossCheckpoints,
            None => Mode::AcrossSizes,
        }
    }
}

/// Each method's raw forecast of every informative task at `point` (None where it cannot).
pub fn raw_forecasts(
    ctx: &Context,
    fits: &Fits,
    point: &Point,
    settings: &DownstreamSettings,
) -> Vec<[Option<Raw>; 3]> {
    let Target { params, tokens, .. } = point.target;
    let x = compute(params, tokens).log10();
    let horizon = match point.own {
        Some((_, from)) => (tokens / from).log10().max(0.0),
        None => (x - ctx.max_log_compute).max(0.0),
    };
    let pooled = pooled_raw(ctx, point, settings);
    let loss = fits
        .loss_law
        .as_ref()
        .and_then(|f| f.predict(&[params, tokens]).ok());
    ctx.signal
        .iter()
        .enumerate()
        .map(|(i, &task)| {
            let questions = ctx.data.tasks[task].questions;
            let baseline = |value: f64, variance: f64| Raw {
                anchor: value,
                trend: 0.0,
                variance: variance + noise(value.clamp(0.0, 1.0), questions),
                horizon,
            };
            let logistic = fits.logistic[i]
                .as_ref()
                .and_then(|f| f.predict(&[compute(params, tokens)]).ok())
                .map(|(v, var)| baseline(v, var));
            let two_stage = match (&fits.stage2[i], loss) {
                (Some(f), Some((l, var_l))) => {
                    chain(f, l, var_l).ok().map(|(v, var)| baseline(v, var))
                }
                _ => None,
            };
            let pooled = pooled[i].map(|r| Raw { horizon, ..r });
            [logistic, two_stage, pooled]
                .map(|r| r.filter(|r| r.anchor.is_finite() && !r.variance.is_nan()))
        })
        .collect()
}

fn pooled_raw(ctx: &Context, point: &Point, settings: &DownstreamSettings) -> Vec<Option<Raw>> {
    let Target { params, tokens, .. } = point.target;
    if let Some((model, from)) = point.own {
        return ctx
            .signal
            .iter()
            .map(|&t| {
                checkpoint_forecast(
                    &ctx.data,
                    &ctx.series,
                    model,
                    t,
                    tokens,
                    from,
                    settings.anchors,
                )
            })
            .collect();
    }
    let found: Vec<Option<(super::trend::Line, f64)>> = ctx
        .signal
        .iter()
        .map(|&t| size_line(&ctx.data, &ctx.series, t, tokens, settings.anchors))
        .collect();
    let mut lines: Vec<_> = found.iter().map(|f| f.map(|(l, _)| l)).collect();
    shrink_slopes(&mut lines, &ctx.informs);
    let x = compute(params, tokens).log10();
    lines
        .iter()
        .zip(&found)
        .zip(&ctx.signal)
        .map(|((line, f), &t)| {
            let (line, anchor) = (line.as_ref()?, f.as_ref()?.1);
            let questions = ctx.data.tasks[t].questions;
            Some(size_forecast(
                line,
                anchor,
                x,
                noise(line.at(x).clamp(0.0, 1.0), questions),
            ))
        })
        .collect()
}

/// The forecasts (and a backtest's scores) of `targets` from the `training` evaluations.
pub fn run(
    training: &DownstreamData,
    targets: &[Target],
    observed: Option<&Observed>,
    settings: &DownstreamSettings,
) -> Result<DownstreamResult> {
    let (ctx, shapes) = Context::new(training.clone(), settings);
    let points = resolve(&ctx.data, targets)?;
    let fits = Fits::new(&ctx, &settings.fit_run());
    let mut notes = fits.notes.clone();
    let calibrations = replay::calibrations(&ctx, &points, settings, &mut notes);
    let mut forecasts = Vec::new();
    for point in &points {
        let mode = point.mode();
        let Some(cal) = calibrations
            .iter()
            .find(|(m, from, _)| *m == mode && *from == point.own.map(|o| o.1))
        else {
            continue;
        };
        for (raws, &task) in raw_forecasts(&ctx, &fits, point, settings)
            .iter()
            .zip(&ctx.signal)
        {
            let apply =
                |i: usize| raws[i].map(|r| to_forecast(&cal.2[i].calibration, &r, settings.level));
            forecasts.push(TaskForecast {
                task: ctx.data.tasks[task].name.clone(),
                shape: shapes[task],
                model: point.target.model.clone(),
                params: point.target.params,
                tokens: point.target.tokens,
                mode,
                logistic: apply(0),
                two_stage: apply(1),
                pooled: apply(2),
                observed: observed
                    .and_then(|o| o.get(&point.target.model, task, point.target.tokens)),
            });
        }
    }
    let loss_law_unbounded = fits.loss_law.as_ref().is_some_and(|f| !f.identified());
    unbounded_note(&forecasts, loss_law_unbounded, &mut notes);
    at_chance_note(&ctx.data, &shapes, &mut notes);
    Ok(DownstreamResult {
        level: settings.level,
        tasks: diagnoses(&ctx, &shapes),
        averages: averages(&points, &forecasts),
        scores: observed.map(|_| scores(&forecasts)).unwrap_or_default(),
        forecasts,
        calibration: calibrations.into_iter().flat_map(|(_, _, c)| c).collect(),
        notes,
    })
}

fn to_forecast(calibration: &Calibration, raw: &Raw, level: f64) -> Forecast {
    let (value, interval) = calibration.apply(raw, level);
    Forecast { value, interval }
}

/// Each target against the context: a model in it is forecast from its own checkpoints up to
/// the target's tokens, and must keep its parameter count.
fn resolve(data: &DownstreamData, targets: &[Target]) -> Result<Vec<Point>> {
    targets
        .iter()
        .map(|t| {
            if !(t.params > 0.0 && t.params.is_finite() && t.tokens > 0.0 && t.tokens.is_finite()) {
                return Err(super::refuse(Setting::At, format!(
                    "target '{}' needs positive N and D, got N={} D={}", t.model, t.params, t.tokens
                )));
            }
            let Some(model) = data.model_index(&t.model) else {
                check_not_a_misspelling(data, t)?;
                check_size_measured(data, t)?;
                return Ok(Point { target: t.clone(), own: None });
            };
            let known = data.models[model].params;
            if (known - t.params).abs() > 1e-9 * known {
                return Err(super::refuse(Setting::At, format!(
                    "target '{}' has N={} but the data give it N={known}; name a new model or give its own N",
                    t.model, t.params
                )));
            }
            let own = data
                .evaluations
                .iter()
                .filter(|e| e.model == model && e.tokens <= t.tokens * (1.0 + 1e-9))
                .map(|e| e.tokens)
                .fold(None, |best: Option<f64>, d| Some(best.map_or(d, |b| b.max(d))));
            Ok(Point { target: t.clone(), own: own.map(|d| (model, d)) })
        })
        .collect()
}

/// A target with the N of one of the data's models and a name close to its name is that model
/// misspelled, not a new one: it would be forecast from the other models instead of its own
/// checkpoints. (A close name alone is not enough: "pythia-3b" beside "pythia-2b" is new.)
fn check_not_a_misspelling(data: &DownstreamData, target: &Target) -> Result<()> {
    let same_size = data
        .models
        .iter()
        .filter(|m| (m.params - target.params).abs() <= 1e-9 * m.params)
        .map(|m| m.name.as_str());
    let Some(near) = crate::suggest::closest(&target.model, same_size) else {
        return Ok(());
    };
    Err(super::refuse(
        Setting::At,
        format!(
            "target '{}' is not a model of the data, but '{near}' has its N and a name close to \
             it: name it exactly to forecast it from its own checkpoints, or give the new model \
             a name unlike the data's",
            crate::error::clipped(&target.model, false)
        ),
    ))
}

/// A new model's forecast moves along model size: data of one size say nothing of how
/// accuracy changes with N, so a target at another N is refused (it was a ±3 % interval
/// from one model's checkpoints at 5× its size, issue 50).
fn check_size_measured(data: &DownstreamData, target: &Target) -> Result<()> {
    let Some(first) = data.models.first().map(|m| m.params) else {
        return Ok(());
    };
    let one_size = data
        .models
        .iter()
        .all(|m| (m.params - first).abs() <= 1e-9 * first);
    if !one_size || (target.params - first).abs() <= 1e-9 * first {
        return Ok(());
    }
    Err(super::refuse(
        Setting::At,
        format!(
            "target '{}' has N={:e}, but every model in the data has N={first:e}, so how accuracy \
             moves with model size is not measured; add models of other sizes, or forecast at \
             N={first:e}",
            target.model, target.params
        ),
    ))
}

fn diagnoses(ctx: &Context, shapes: &[Shape]) -> Vec<TaskDiagnosis> {
    ctx.data
        .tasks
        .iter()
        .enumerate()
        .map(|(t, info)| TaskDiagnosis {
            task: info.name.clone(),
            shape: shapes[t],
            chance: info.chance,
            questions: info.questions,
            best: ctx
                .series
                .iter()
                .flat_map(|s| s[t].accuracy.iter().copied())
                .fold(0.0, f64::max),
            points: last_points(ctx, t),
        })
        .collect()
}

/// Forecasts whose fit left a parameter unidentified (no finite variance) get the whole of
/// [0, 1] as their interval; say which (the two-stage tasks only when its loss law, already
/// noted, is not the cause).
fn unbounded_note(forecasts: &[TaskForecast], loss_law_unbounded: bool, notes: &mut Vec<String>) {
    for method in Method::ALL {
        if method == Method::TwoStage && loss_law_unbounded {
            continue;
        }
        let mut tasks: Vec<&str> = Vec::new();
        for f in forecasts {
            let unbounded = f.of(method).is_some_and(|x| x.interval == [0.0, 1.0]);
            if unbounded && !tasks.contains(&f.task.as_str()) {
                tasks.push(f.task.as_str());
            }
        }
        if !tasks.is_empty() {
            notes.push(format!(
                "{}: the fit of {} leaves a parameter unidentified (no finite variance), so its interval is all of [0, 1]",
                method.name(),
                tasks.join(", ")
            ));
        }
    }
}

/// Each model's last checkpoint on `task`: [compute, accuracy], sorted by compute.
fn last_points(ctx: &Context, task: usize) -> Vec<[f64; 2]> {
    let mut points: Vec<[f64; 2]> = ctx
        .series
        .iter()
        .zip(&ctx.data.models)
        .filter_map(|(s, m)| {
            Some([
                compute(m.params, *s[task].tokens.last()?),
                *s[task].accuracy.last()?,
            ])
        })
        .collect();
    points.sort_by(|a, b| a[0].total_cmp(&b[0]));
    points
}

fn at_chance_note(data: &DownstreamData, shapes: &[Shape], notes: &mut Vec<String>) {
    let at_chance: Vec<&str> = shapes
        .iter()
        .zip(&data.tasks)
        .filter(|(s, _)| **s == Shape::AtChance)
        .map(|(_, t)| t.name.as_str())
        .collect();
    if !at_chance.is_empty() {
        notes.push(format!(
            "{} of {} tasks are at chance for every observed model: no forecast is informative for them, so none is given",
            at_chance.len(),
            data.tasks.len()
        ));
    }
}

fn averages(points: &[Point], forecasts: &[TaskForecast]) -> Vec<Average> {
    points
        .iter()
        .map(|p| {
            let rows: Vec<&TaskForecast> = forecasts
                .iter()
                .filter(|f| f.model == p.target.model && f.tokens == p.target.tokens)
                .collect();
            let mean_of = |method: Method| {
                let all: Option<Vec<&Forecast>> = rows.iter().map(|r| r.of(method)).collect();
                let all = all.filter(|a| !a.is_empty())?;
                let k = all.len() as f64;
                Some(Forecast {
                    value: all.iter().map(|f| f.value).sum::<f64>() / k,
                    interval: [
                        all.iter().map(|f| f.interval[0]).sum::<f64>() / k,
                        all.iter().map(|f| f.interval[1]).sum::<f64>() / k,
                    ],
                })
            };
            let observed: Option<Vec<f64>> = rows.iter().map(|r| r.observed).collect();
            Average {
                model: p.target.model.clone(),
                tokens: p.target.tokens,
                tasks: rows.len(),
                logistic: mean_of(Method::Logistic),
                two_stage: mean_of(Method::TwoStage),
                pooled: mean_of(Method::Pooled),
                observed: observed
                    .filter(|o| !o.is_empty())
                    .map(|o| o.iter().sum::<f64>() / o.len() as f64),
            }
        })
        .collect()
}

fn scores(forecasts: &[TaskForecast]) -> Vec<Score> {
    Method::ALL
        .iter()
        .filter_map(|&method| {
            let pairs: Vec<(&Forecast, f64)> = forecasts
                .iter()
                .filter_map(|f| Some((f.of(method)?, f.observed?)))
                .collect();
            if pairs.is_empty() {
                return None;
            }
            let k = pairs.len() as f64;
            Some(Score {
                method,
                forecasts: pairs.len(),
                mae: 100.0 * pairs.iter().map(|(f, o)| (f.value - o).abs()).sum::<f64>() / k,
                coverage: pairs
                    .iter()
                    .filter(|(f, o)| f.interval[0] <= *o && *o <= f.interval[1])
                    .count() as f64
                    / k,
                width: 100.0
                    * pairs
                        .iter()
                        .map(|(f, _)| f.interval[1] - f.interval[0])
                        .sum::<f64>()
                    / k,
            })
        })
        .collect()
}

/// The replays of one context: each informative task's raw forecasts at each point, paired
/// with the accuracy `truth` gives (tasks that do not inform the pooled model are left out).
pub fn replays(
    ctx: &Context,
    points: &[Point],
    settings: &DownstreamSettings,
    truth: impl Fn(&Point, usize) -> Option<f64>,
) -> [Vec<Replay>; 3] {
    let fits = Fits::new(ctx, &settings.fit_run());
    let mut out: [Vec<Replay>; 3] = Default::default();
    for point in points {
        let raws = raw_forecasts(ctx, &fits, point, settings);
        for ((raw, &task), &informs) in raws.iter().zip(&ctx.signal).zip(&ctx.informs) {
            let Some(observed) = truth(point, task).filter(|_| informs) else {
                continue;
            };
            for (i, r) in raw.iter().enumerate() {
                if let Some(r) = r {
                    out[i].push(Replay {
                        truth: observed,
                        raw: *r,
                    });
                }
            }
        }
    }
    out
}

/// One mode's calibrations, the own-checkpoint cut they were replayed at, and their records.
pub type ModeCalibrations = (Mode, Option<f64>, Vec<MethodCalibration>);
