//! One forecast from start to end: the targets resolved against the training evaluations, each
//! method's raw forecast ([`super::engine`]), calibrated by replays of the past
//! ([`super::replay`]), diagnosed, averaged and, for a backtest, scored.

use super::calibrate::Calibration;
use super::data::{compute, DownstreamData};
use super::diagnose::Shape;
use super::engine::{raw_forecasts, Context, Fits, Point};
use super::pooled::Raw;
use super::replay::{self, Observed};
use super::{
    Average, DownstreamResult, DownstreamSettings, Forecast, Method, Score, Target, TaskDiagnosis,
    TaskForecast,
};
use crate::error::{Result, Setting};

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
