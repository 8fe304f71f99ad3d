//! Replays inside the training data, which calibrate every method where it is used (see
//! `calibrate.rs`), and the hold-out split of a backtest.
//!
//! - Across sizes: rolling origins over model sizes. From the origin with `anchors` sizes to
//!   the one before the largest, the models up to the origin forecast every larger model's
//!   last checkpoint.
//! - Across checkpoints: the models of the largest size that runs past the cut, then of the
//!   next, have their later checkpoints hidden and are forecast from their checkpoints up to
//!   the cut and the other models (one size at a time, so that their references are the next
//!   smaller sizes, as the real targets' are).

use std::collections::HashMap;

use super::calibrate::learn;
use super::data::DownstreamData;
use super::engine::{replays, Context, ModeCalibrations, Point};
use super::{DownstreamSettings, Method, MethodCalibration, Mode, Target};
use crate::error::{Error, Result, Setting};

/// The held-out accuracies of a backtest, by model name, task and tokens.
pub struct Observed {
    values: HashMap<(String, usize, u64), f64>,
}

impl Observed {
    pub fn get(&self, model: &str, task: usize, tokens: f64) -> Option<f64> {
        self.values
            .get(&(model.to_string(), task, tokens.to_bits()))
            .copied()
    }
}

/// The training evaluations (everything but the `holdout` models' evaluations after
/// `own_until`, or all of theirs), the targets (each held-out model's last checkpoint, or
/// every checkpoint after the cut) and what was observed there.
pub fn holdout_split(
    data: &DownstreamData,
    holdout: &[String],
    own_until: Option<f64>,
) -> Result<(DownstreamData, Vec<Target>, Observed)> {
    if holdout.is_empty() {
        return Err(super::refuse(
            Setting::Holdout,
            "no model to hold out; name at least one",
        ));
    }
    let mut held = Vec::new();
    for name in holdout {
        let Some(model) = data.model_index(name) else {
            let hint = crate::suggest::closest(name, data.models.iter().map(|m| m.name.as_str()))
                .map(|s| format!(" (did you mean '{s}'?)"))
                .unwrap_or_default();
            return Err(super::refuse(
                Setting::Holdout,
                format!("no model is named '{name}'{hint}"),
            ));
        };
        held.push(model);
    }
    let after = |tokens: f64| own_until.is_none_or(|cut| tokens > cut * (1.0 + 1e-9));
    let training = data.filtered(|e| !(held.contains(&e.model) && after(e.tokens)));
    if training.evaluations.is_empty() {
        return Err(Error::setting(
            Setting::Holdout,
            crate::text![
                Setting::Holdout.subject(),
                format!(
                    ": holding out {} leaves no evaluation to fit on; hold out fewer models, or \
                     keep their early checkpoints with ",
                    holdout.join(", ")
                ),
                Setting::OwnUntil
            ],
        ));
    }
    let mut targets = Vec::new();
    let mut values = HashMap::new();
    for &model in &held {
        let info = &data.models[model];
        let mut tokens: Vec<f64> = data
            .evaluations
            .iter()
            .filter(|e| e.model == model)
            .map(|e| e.tokens)
            .collect();
        tokens.sort_by(f64::total_cmp);
        tokens.dedup();
        let chosen: Vec<f64> = match own_until {
            None => tokens.last().copied().into_iter().collect(),
            Some(_) => tokens.iter().copied().filter(|&t| after(t)).collect(),
        };
        if own_until.is_some() && !training.evaluations.iter().any(|e| e.model == model) {
            return Err(super::refuse(Setting::OwnUntil, format!(
                "model '{}' has no checkpoint at or before the cut; lower it or hold the model out whole",
                info.name
            )));
        }
        for &t in &chosen {
            targets.push(Target {
                model: info.name.clone(),
                params: info.params,
                tokens: t,
            });
        }
        for e in data
            .evaluations
            .iter()
            .filter(|e| e.model == model && chosen.contains(&e.tokens))
        {
            values.insert((info.name.clone(), e.task, e.tokens.to_bits()), e.accuracy);
        }
    }
    if targets.is_empty() {
        return Err(super::refuse(
            Setting::OwnUntil,
            "no held-out checkpoint lies after the cut; lower it",
        ));
    }
    Ok((training, targets, Observed { values }))
}

/// The calibrations every mode among `points` needs (checkpoint replays once per cut).
pub fn calibrations(
    ctx: &Context,
    points: &[Point],
    settings: &DownstreamSettings,
    notes: &mut Vec<String>,
) -> Vec<ModeCalibrations> {
    let mut out: Vec<ModeCalibrations> = Vec::new();
    for point in points {
        let cut = point.own.map(|o| o.1);
        if out.iter().any(|(m, c, _)| *m == point.mode() && *c == cut) {
            continue;
        }
        let targets: Vec<usize> = points.iter().filter_map(|p| p.own.map(|o| o.0)).collect();
        let (replayed, found) = match cut {
            None => across_sizes(ctx, settings),
            Some(cut) => across_checkpoints(ctx, cut, &targets, settings),
        };
        if found.iter().all(Vec::is_empty) {
            notes.push(format!(
                "{}: nothing could be replayed ({replayed}), so the intervals are the methods' own, not calibrated beyond the data",
                mode_name(point.mode())
            ));
        }
        let methods = Method::ALL
            .iter()
            .zip(found)
            .map(|(&method, r)| MethodCalibration {
                mode: point.mode(),
                method,
                replayed: replayed.clone(),
                calibration: learn(&r, method == Method::Pooled, settings.level),
            })
            .collect();
        out.push((point.mode(), cut, methods));
    }
    out
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::AcrossSizes => "across sizes",
        Mode::AcrossCheckpoints => "across checkpoints",
    }
}

fn across_sizes(
    ctx: &Context,
    settings: &DownstreamSettings,
) -> (String, [Vec<super::calibrate::Replay>; 3]) {
    let mut sizes: Vec<f64> = ctx
        .data
        .models
        .iter()
        .filter(|m| has_evaluations(ctx, m.name.as_str()))
        .map(|m| m.params)
        .collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    let mut all: [Vec<super::calibrate::Replay>; 3] = Default::default();
    let mut origins = Vec::new();
    for j in settings.anchors.saturating_sub(1)..sizes.len().saturating_sub(1) {
        let origin = sizes[j];
        let sub = ctx
            .data
            .filtered(|e| ctx.data.models[e.model].params <= origin);
        let sub_ctx = Context::with_signal(sub, ctx.signal.clone(), settings);
        let points: Vec<Point> = (0..ctx.data.models.len())
            .filter(|&m| ctx.data.models[m].params > origin)
            .filter_map(|m| {
                let tokens = ctx.series[m]
                    .iter()
                    .filter_map(|s| s.tokens.last().copied())
                    .fold(None, |a: Option<f64>, t| Some(a.map_or(t, |a| a.max(t))))?;
                let info = &ctx.data.models[m];
                Some(Point {
                    target: Target {
                        model: info.name.clone(),
                        params: info.params,
                        tokens,
                    },
                    own: None,
                })
            })
            .collect();
        let found = replays(&sub_ctx, &points, settings, |p, task| {
            let m = ctx.data.model_index(&p.target.model)?;
            ctx.series[m][task].at(p.target.tokens)
        });
        for (into, r) in all.iter_mut().zip(found) {
            into.extend(r);
        }
        origins.push(crate::error::short_number(origin));
    }
    let replayed = match origins.is_empty() {
        true => format!("fewer than {} model sizes", settings.anchors + 1),
        false => format!("rolling origins at N ≤ {}", origins.join(", ")),
    };
    (replayed, all)
}

fn has_evaluations(ctx: &Context, name: &str) -> bool {
    ctx.data
        .model_index(name)
        .is_some_and(|m| ctx.series[m].iter().any(|s| !s.tokens.is_empty()))
}

fn across_checkpoints(
    ctx: &Context,
    cut: f64,
    targets: &[usize],
    settings: &DownstreamSettings,
) -> (String, [Vec<super::calibrate::Replay>; 3]) {
    let runs_past = |m: usize| {
        let tokens: Vec<f64> = ctx.series[m]
            .iter()
            .flat_map(|s| s.tokens.iter().copied())
            .collect();
        tokens.iter().any(|&t| t <= cut * (1.0 + 1e-9))
            && tokens.iter().any(|&t| t > cut * (1.0 + 1e-9))
    };
    let candidates: Vec<usize> = (0..ctx.data.models.len())
        .filter(|m| !targets.contains(m) && runs_past(*m))
        .collect();
    let mut sizes: Vec<f64> = candidates
        .iter()
        .map(|&m| ctx.data.models[m].params)
        .collect();
    sizes.sort_by(|a, b| b.total_cmp(a));
    sizes.dedup();
    let mut all: [Vec<super::calibrate::Replay>; 3] = Default::default();
    let mut names = Vec::new();
    // One size at a time, the largest two: its models' later checkpoints hidden, the smaller
    // models (as for the real targets) their references.
    for &size in sizes.iter().take(2) {
        let hidden: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&m| ctx.data.models[m].params == size)
            .collect();
        for (into, r) in all
            .iter_mut()
            .zip(hide_and_replay(ctx, cut, &hidden, settings))
        {
            into.extend(r);
        }
        names.extend(hidden.iter().map(|&m| ctx.data.models[m].name.clone()));
    }
    let replayed = match names.is_empty() {
        true => "no other model runs past the cut".to_string(),
        false => format!(
            "{} (one size at a time) with checkpoints after {} tokens hidden",
            names.join(", "),
            crate::error::short_number(cut)
        ),
    };
    (replayed, all)
}

/// The replays of the `hidden` models' checkpoints after `cut`, from their own checkpoints up
/// to it and every other model.
fn hide_and_replay(
    ctx: &Context,
    cut: f64,
    hidden: &[usize],
    settings: &DownstreamSettings,
) -> [Vec<super::calibrate::Replay>; 3] {
    let sub = ctx
        .data
        .filtered(|e| !(hidden.contains(&e.model) && e.tokens > cut * (1.0 + 1e-9)));
    let sub_ctx = Context::with_signal(sub, ctx.signal.clone(), settings);
    let mut points = Vec::new();
    for &m in hidden {
        let mut tokens: Vec<f64> = ctx.series[m]
            .iter()
            .flat_map(|s| s.tokens.iter().copied())
            .filter(|&t| t > cut * (1.0 + 1e-9))
            .collect();
        tokens.sort_by(f64::total_cmp);
        tokens.dedup();
        let own = sub_ctx.series[m]
            .iter()
            .filter_map(|s| s.last_until(cut).map(|x| x.0))
            .fold(f64::NEG_INFINITY, f64::max);
        let info = &ctx.data.models[m];
        for t in tokens {
            points.push(Point {
                target: Target {
                    model: info.name.clone(),
                    params: info.params,
                    tokens: t,
                },
                own: Some((m, own)),
            });
        }
    }
    replays(&sub_ctx, &points, settings, |p, task| {
        let m = p.own?.0;
        ctx.series[m][task].at(p.target.tokens)
    })
}
