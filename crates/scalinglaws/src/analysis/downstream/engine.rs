//! The forecasting machinery shared by forecasts, backtests and their replays: a training
//! context (series, diagnoses, the informative tasks), the baselines' fits on it, and each
//! method's raw forecast of each task at a target.

use rayon::prelude::*;

use super::calibrate::Replay;
use super::data::{compute, DownstreamData, Series};
use super::diagnose::{diagnose, Shape};
use super::laws::{chain, fit_loss_law, fit_sigmoid, Direction, Fitted};
use super::pooled::{checkpoint_forecast, noise, shrink_slopes, size_forecast, size_line, Raw};
use super::{DownstreamSettings, MethodCalibration, Mode, Target};
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
    pub(super) loss_law: Option<Fitted>,
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
