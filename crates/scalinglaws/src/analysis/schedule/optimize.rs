//! Decisions from a fitted curve law: the schedule with the lowest predicted final loss within
//! a stated constraint set, and the cooldown table of the constant-plus-cooldown regime.
//!
//! The search follows the multi-power paper's §5 (Luo et al. 2025) in spirit: the learning
//! rate at every step after the warmup is a free variable. Ours is accelerated projected
//! gradient descent (FISTA with backtracking and restarts) on the set {floor ≤ η_τ ≤ peak, η non-increasing after the
//! warmup}; the projection is the antitonic regression by pool-adjacent-violators (Barlow et
//! al. 1972) clipped to the box, which is exact for constant bounds. The gradient of the final
//! loss with respect to every η_τ is exact and O(T) (see `multi_power::final_loss`,
//! `fsl::final_loss`). It starts
//! from the best of the standard schedules (constant, cosine, WSD), so its result is never
//! worse than theirs.

use serde::{Deserialize, Serialize};

use super::law::CurveLaw;
use super::spec::{cooldown_branch, parse, Decay, Schedule};
use super::ScheduleFit;
use super::{fsl, multi_power};
use crate::error::{short_number as short, Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::text;

/// The constraint set and the search's budget.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OptimizeSettings {
    /// Steps of the schedule.
    pub steps: usize,
    /// The peak learning rate.
    pub peak: f64,
    /// Linear warmup steps.
    pub warmup: usize,
    /// The lowest learning rate allowed.
    pub floor: f64,
    /// The search's iteration budget.
    pub max_iterations: usize,
}

/// A standard schedule and its predicted final loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "ScheduleBaseline")]
pub struct Baseline {
    /// The schedule spec.
    pub schedule: String,
    /// Its predicted final loss.
    pub final_loss: f64,
}

/// The schedule with the lowest predicted final loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OptimizedSchedule {
    /// The fit's law.
    pub law: CurveLaw,
    /// The constraint set, in words.
    pub constraints: String,
    /// The settings searched under.
    pub settings: OptimizeSettings,
    /// The standard schedules the search starts from.
    pub baselines: Vec<Baseline>,
    /// The best of them.
    pub best_baseline: String,
    /// The optimised schedule's predicted final loss.
    pub final_loss: f64,
    /// Best baseline's final loss − the optimised one's (≥ 0).
    pub gain: f64,
    /// Iterations of projected gradient descent.
    pub iterations: usize,
    /// Last step at the peak (the stable phase ends after it).
    pub stable_until: usize,
    /// Steps from the last at ≥ 0.99·peak to the first at ≤ 1.01·floor (or the end).
    pub decay_steps: usize,
    /// The learning rate at the last step.
    pub final_lr: f64,
    /// (step, lr) at 41 evenly spaced steps.
    pub shape: Vec<(usize, f64)>,
    /// Reasons to distrust the result (the fit's parameters at their bounds, where the law
    /// can reward extreme schedules).
    pub warnings: Vec<String>,
    /// The whole schedule, one lr per step (in a document only when asked for:
    /// `workflow::schedule_optimize`).
    #[serde(skip)]
    pub lrs: Vec<f64>,
}

/// The final loss and its gradient with respect to every step's learning rate.
pub fn final_loss(law: CurveLaw, p: &[f64], lrs: &[f64]) -> (f64, Vec<f64>) {
    let t = lrs.len() - 1;
    match law {
        CurveLaw::MultiPower => multi_power::final_loss(p, lrs, t),
        CurveLaw::LrAnnealing | CurveLaw::PowerArea => running_final_loss(law, p, lrs),
        CurveLaw::Fsl => fsl::final_loss(p, lrs, t),
    }
}

/// L = L0 + A·S^(−α) − C·S2 with S2 = Σ_k d_k·w_k, w_k = (1 − λ^(t−k+1))/(1 − λ).
fn running_final_loss(law: CurveLaw, p: &[f64], lrs: &[f64]) -> (f64, Vec<f64>) {
    let t = lrs.len() - 1;
    let area: f64 = lrs.iter().sum();
    let d_area = -p[2] * p[1] * area.powf(-p[2] - 1.0);
    let mut value = p[0] + p[1] * area.powf(-p[2]);
    let mut grad = vec![d_area; t + 1];
    if law == CurveLaw::LrAnnealing {
        let (c, lambda) = (p[3], p[4]);
        let w = |k: usize| (1.0 - lambda.powi((t - k + 1) as i32)) / (1.0 - lambda);
        let s2: f64 = (1..=t).map(|k| (lrs[k - 1] - lrs[k]) * w(k)).sum();
        value -= c * s2;
        for (tau, g) in grad.iter_mut().enumerate() {
            let mut d = 0.0;
            if tau >= 1 {
                d -= w(tau);
            }
            if tau < t {
                d += w(tau + 1);
            }
            *g -= c * d;
        }
    }
    (value, grad)
}

/// The standard schedules at the same budget: constant, cosine and WSD (10/20/30 % decay,
/// exponential and linear) to the floor and to peak/10.
fn baselines(s: &OptimizeSettings) -> Vec<String> {
    let head = format!("peak={},warmup={},steps={}", s.peak, s.warmup, s.steps);
    let mut out = vec![format!("constant:{head}")];
    // Six significant digits keep the specs readable (peak/10 is not exact in binary).
    let round = |f: f64| format!("{f:.6e}").parse::<f64>().unwrap_or(f);
    let finals = [s.floor, (s.peak / 10.0).max(s.floor)].map(|f| format!("{:e}", round(f)));
    for f in &finals {
        out.push(format!("cosine:{head},final={f}"));
    }
    for fraction in [0.1, 0.2, 0.3] {
        let start = s.steps - ((s.steps - s.warmup) as f64 * fraction).round() as usize;
        for decay in ["exp", "linear"] {
            for f in &finals {
                out.push(format!(
                    "wsd:{head},decay_start={start},final={f},decay={decay}"
                ));
            }
        }
    }
    out
}

/// Refuses a constraint set no schedule satisfies, or one too long to hold.
fn check_settings(s: &OptimizeSettings) -> Result<()> {
    if !(s.peak > 0.0 && s.floor > 0.0 && s.floor < s.peak) {
        return Err(Error::settings(text![
            "need 0 < ",
            Setting::Floor.subject(),
            " < ",
            Setting::Peak.subject()
        ]));
    }
    if let Some(problem) = crate::limits::schedule_steps_problem(s.steps) {
        return Err(Error::setting(
            Setting::Steps,
            text![Setting::Steps.number(s.steps), ": ", problem],
        ));
    }
    let work = s.steps.saturating_mul(s.max_iterations.max(1));
    if work > crate::limits::MAX_OPTIMIZE_WORK {
        let limit = crate::limits::MAX_OPTIMIZE_WORK;
        let thousands = crate::limits::thousands;
        return Err(Error::setting(
            Setting::Steps,
            text![
                Setting::Steps.number(s.steps),
                format!(
                    " × {} iterations are {} step-iterations of the search (each evaluates the \
                     final loss and its gradient over every step), more than the limit of {}: \
                     lower ",
                    s.max_iterations,
                    thousands(work),
                    thousands(limit)
                ),
                Setting::Steps.named(),
                format!(
                    " to at most {} or the iterations to at most {}",
                    thousands(limit / s.max_iterations.max(1)),
                    thousands(limit / s.steps)
                )
            ],
        ));
    }
    if s.warmup + 2 > s.steps {
        return Err(Error::setting(
            Setting::Steps,
            text![
                Setting::Steps.subject(),
                " must exceed the warmup by at least 2"
            ],
        ));
    }
    Ok(())
}

/// The schedule minimising the predicted final loss within the constraint set.
/// A set `stop` ends the search between iterations ([`crate::Error::Interrupted`]).
pub fn optimize(
    fit: &ScheduleFit,
    settings: &OptimizeSettings,
    stop: &Interrupt,
) -> Result<OptimizedSchedule> {
    let s = settings;
    check_settings(s)?;
    super::check_rate(fit, s.peak, Setting::Peak, text![Setting::Peak])?;
    let p = fit.values();
    let mut scored = Vec::new();
    for text in baselines(s) {
        stop.check()?;
        let schedule = parse(&text, None)?.main;
        let (loss, _) = final_loss(fit.law, &p, &schedule.lrs);
        scored.push((
            Baseline {
                schedule: text,
                final_loss: loss,
            },
            schedule,
        ));
    }
    let (best_index, _) = scored
        .iter()
        .enumerate()
        .min_by(|a, b| a.1 .0.final_loss.total_cmp(&b.1 .0.final_loss))
        .expect("baselines");
    let best = scored[best_index].0.clone();
    let mut lrs = scored[best_index].1.lrs.clone();
    let iterations = descend(fit.law, &p, &mut lrs, s, stop);
    stop.check()?;
    let (loss, _) = final_loss(fit.law, &p, &lrs);
    let schedule = Schedule { lrs };
    let stable_until = schedule
        .lrs
        .iter()
        .rposition(|&lr| lr >= s.peak * (1.0 - 1e-9))
        .unwrap_or(0);
    let decay_start = schedule
        .lrs
        .iter()
        .rposition(|&lr| lr >= 0.99 * s.peak)
        .unwrap_or(0);
    let decay_end = (decay_start..s.steps)
        .find(|&t| schedule.lrs[t] <= 1.01 * s.floor)
        .unwrap_or(s.steps - 1);
    Ok(OptimizedSchedule {
        law: fit.law,
        constraints: format!(
            "linear warmup 0→{} over {} steps (fixed); then {} ≤ lr ≤ {}, non-increasing, for {} steps in all",
            s.peak, s.warmup, s.floor, s.peak, s.steps
        ),
        settings: *s,
        baselines: scored.into_iter().map(|(b, _)| b).collect(),
        best_baseline: best.schedule,
        gain: best.final_loss - loss,
        final_loss: loss,
        iterations,
        stable_until,
        decay_steps: decay_end.saturating_sub(decay_start),
        final_lr: *schedule.lrs.last().expect("steps"),
        shape: schedule.shape(41),
        warnings: fit
            .warnings
            .iter()
            .filter(|w| w.contains("at its bound"))
            .map(|w| format!("the fit's {w}: the optimum may exploit a degenerate limit of the law"))
            .collect(),
        lrs: schedule.lrs,
    })
}

/// Accelerated projected gradient (FISTA, Beck & Teboulle 2009) on the post-warmup learning
/// rates, with backtracking on the step and a restart whenever the loss would rise (so every
/// accepted iterate improves on the last); returns the iterations (fewer once `stop` is set).
fn descend(
    law: CurveLaw,
    p: &[f64],
    lrs: &mut [f64],
    s: &OptimizeSettings,
    stop: &Interrupt,
) -> usize {
    let w = s.warmup;
    let (mut value, grad) = final_loss(law, p, lrs);
    let max_grad = grad[w..].iter().fold(0.0f64, |m, g| m.max(g.abs()));
    if max_grad == 0.0 {
        return 0;
    }
    let mut step = 0.05 * s.peak / max_grad;
    let mut y = lrs.to_vec();
    let mut momentum = 1.0f64;
    let mut stalled = 0;
    for iteration in 1..=s.max_iterations {
        if stop.is_interrupted() {
            return iteration;
        }
        let (value_y, grad_y) = final_loss(law, p, &y);
        // Backtrack until the quadratic model at y bounds the loss at the projected step.
        let (candidate, v) = loop {
            let mut z = y.clone();
            for tau in w..z.len() {
                z[tau] -= step * grad_y[tau];
            }
            project(&mut z[w..], s.floor, s.peak);
            let (v, _) = final_loss(law, p, &z);
            let linear: f64 = (w..z.len()).map(|t| grad_y[t] * (z[t] - y[t])).sum();
            let square: f64 = (w..z.len()).map(|t| (z[t] - y[t]).powi(2)).sum();
            if v <= value_y + linear + square / (2.0 * step) || step * max_grad < 1e-16 * s.peak {
                break (z, v);
            }
            step *= 0.5;
        };
        if v >= value {
            // No progress from the extrapolated point: restart the momentum at the iterate.
            if momentum == 1.0 {
                stalled += 1;
                if stalled >= 3 {
                    return iteration;
                }
                step *= 0.5;
            }
            y.copy_from_slice(lrs);
            momentum = 1.0;
            continue;
        }
        stalled = if value - v <= 1e-12 * value.abs() {
            stalled + 1
        } else {
            0
        };
        if stalled >= 30 {
            lrs.copy_from_slice(&candidate);
            return iteration;
        }
        let next = (1.0 + (1.0 + 4.0 * momentum * momentum).sqrt()) / 2.0;
        let weight = (momentum - 1.0) / next;
        for tau in 0..y.len() {
            y[tau] = candidate[tau] + weight * (candidate[tau] - lrs[tau]);
        }
        project(&mut y[w..], s.floor, s.peak);
        lrs.copy_from_slice(&candidate);
        value = v;
        momentum = next;
        step *= 1.2;
    }
    s.max_iterations
}

/// Euclidean projection onto {lo ≤ x ≤ hi, x non-increasing}: antitonic regression by
/// pool-adjacent-violators, then clipping.
pub fn project(x: &mut [f64], lo: f64, hi: f64) {
    // Blocks of (sum, count); a non-increasing fit merges a block with its predecessor when
    // its mean exceeds the predecessor's.
    let mut blocks: Vec<(f64, usize)> = Vec::with_capacity(x.len());
    for &v in x.iter() {
        blocks.push((v, 1));
        while blocks.len() > 1 {
            let (s1, n1) = blocks[blocks.len() - 1];
            let (s0, n0) = blocks[blocks.len() - 2];
            if s1 / n1 as f64 > s0 / n0 as f64 {
                blocks.pop();
                let last = blocks.len() - 1;
                blocks[last] = (s0 + s1, n0 + n1);
            } else {
                break;
            }
        }
    }
    let mut i = 0;
    for (sum, n) in blocks {
        let mean = (sum / n as f64).clamp(lo, hi);
        for slot in &mut x[i..i + n] {
            *slot = mean;
        }
        i += n;
    }
}

/// One cooldown of a cooldown table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CooldownRow {
    /// The step the cooldown starts at.
    pub start: usize,
    /// Its length in steps.
    pub length: usize,
    /// The step it ends at.
    pub end_step: usize,
    /// The predicted loss at `end_step`.
    pub loss: f64,
    /// The constant run's loss at the same step.
    pub constant_loss: f64,
    /// constant_loss − loss.
    pub gain: f64,
}

/// Predicted loss after a cooldown of each length started at each step, from a constant run
/// at `peak` after a linear warmup, decaying by `decay` to `last`.
/// A cooldown lowers the learning rate: its end (`last`) must be at least 0 and below the
/// constant `peak` it starts from.
fn check_cooldown_end(peak: f64, last: f64) -> Result<()> {
    if last >= 0.0 && last < peak {
        return Ok(());
    }
    Err(Error::setting(
        Setting::Final,
        text![
            Setting::Final.number(short(last)),
            " is not below ",
            Setting::Peak.number(short(peak)),
            ": a cooldown lowers the learning rate from the peak; give ",
            Setting::Final.named(),
            " between 0 and the peak (by default peak/100), or raise ",
            Setting::Peak.named(),
        ],
    ))
}

pub fn cooldown_table(
    fit: &ScheduleFit,
    peak: f64,
    warmup: usize,
    starts: &[usize],
    lengths: &[usize],
    decay: Decay,
    last: f64,
) -> Result<Vec<CooldownRow>> {
    check_cooldown_end(peak, last)?;
    super::check_rate(fit, peak, Setting::Peak, text![Setting::Peak])?;
    let p = fit.values();
    let horizon =
        starts.iter().max().copied().unwrap_or(0) + lengths.iter().max().copied().unwrap_or(0);
    let constant = parse(
        &format!("constant:peak={peak},warmup={warmup},steps={}", horizon + 1),
        None,
    )?
    .main;
    let mut rows = Vec::new();
    for &start in starts {
        if start <= warmup {
            return Err(Error::settings(format!(
                "cooldown start {start} lies inside the warmup ({warmup} steps)"
            )));
        }
        for &length in lengths {
            if length == 0 {
                return Err(Error::setting(
                    Setting::Len,
                    text![
                        Setting::Len.number(0),
                        ": cooldown lengths must be positive (at least 1 step)"
                    ],
                ));
            }
            let branch = cooldown_branch(&constant, start, length, decay, last);
            let end = branch.len() - 1;
            fit.law
                .check(&branch.lrs, &[end])
                .map_err(|m| Error::settings(format!("cooldown at {start} of {length}: {m}")))?;
            let loss = fit.law.evaluate(&p, &branch.lrs, &[end], false).values[0];
            let constant_loss = fit.law.evaluate(&p, &constant.lrs, &[end], false).values[0];
            rows.push(CooldownRow {
                start,
                length,
                end_step: end,
                loss,
                constant_loss,
                gain: constant_loss - loss,
            });
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_is_antitonic_and_clipped() {
        let mut x = vec![1.0, 3.0, 2.0, 0.5, 0.7, -1.0];
        project(&mut x, 0.0, 2.5);
        assert_eq!(x, vec![2.0, 2.0, 2.0, 0.6, 0.6, 0.0]);
    }
}
