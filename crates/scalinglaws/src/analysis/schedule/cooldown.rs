//! Constant learning rate with cooldowns against cosine, at each compute (issue 26, point 4).
//!
//! Continual training at a constant learning rate, cooled down whenever a model is wanted, is
//! the efficient strategy of the weather-forecasting scaling study (the seed paper: "continual
//! training with constant learning rates and periodic cooldowns ... outperform standard cosine
//! learning rate schedules") and of Hägele et al. 2024 ("Scaling Laws and Compute-Optimal
//! Training Beyond Fixed Training Durations", arXiv:2405.18392), who find a cooldown of about
//! 20 % of the run matches or beats a cosine of the same length. One constant run serves every
//! budget: a cooldown of length f·T ending at step T branches off it at T − f·T.
//!
//! The loss of such a cooldown, and of a cosine of length T, is what a fitted curve law
//! (multi-power, Luo et al. 2025, arXiv:2503.12811; lr_annealing, Tissue et al. 2024,
//! arXiv:2408.11029) predicts for those schedules: [`study`] tabulates both at each T with their
//! difference, and percentile intervals over bootstrap replicates of the fit's parameters (each
//! replicate evaluated on both schedules, so the difference's interval is paired).
//! [`leave_one_out`] scores a law on the cooldown branches of a constant run by refitting
//! without each branch and predicting its final loss: how a method is chosen on training runs
//! alone, before any held-out run is read.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::fit::Curve;
use super::law::CurveLaw;
use super::spec::{cooldown_branch, parse, Decay, Schedule};
use super::{fit_curves, ScheduleFit};
use crate::error::{Error, Result, Setting};
use crate::stats::percentile_interval;
use crate::text;

/// The cooldown's share of each run when none is given (the last 20 %).
pub const DEFAULT_FRACTION: f64 = 0.2;

/// What the study compares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StudySettings {
    /// The training lengths T (steps; one compute each at a fixed model size).
    pub steps: Vec<usize>,
    /// The cooldown's share of T: it starts at T − round(fraction·T).
    pub fraction: f64,
    /// The cooldown's shape.
    pub decay: Decay,
    /// The constant learning rate and the cosine's peak.
    pub peak: f64,
    pub warmup: usize,
    /// Where the cooldown and the cosine end.
    #[serde(rename = "final")]
    pub last: f64,
    /// The intervals' coverage (0.95: the 2.5 % and 97.5 % percentiles).
    pub level: f64,
}

impl StudySettings {
    /// The settings with the fit's training run's peak and warmup, final = peak/10 (the spec
    /// default), a 20 % linear cooldown, 95 % intervals and [`default_steps`].
    pub fn for_fit(fit: &ScheduleFit) -> StudySettings {
        StudySettings {
            steps: default_steps(fit),
            fraction: DEFAULT_FRACTION,
            decay: Decay::Linear,
            peak: fit.defaults.peak,
            warmup: fit.defaults.warmup,
            last: fit.defaults.peak / 10.0,
            level: crate::uncertainty::DEFAULT_LEVEL,
        }
    }
}

/// Half, once, twice and four times the fit's training run length, to the nearest 100 steps:
/// from inside the logged range to well beyond it.
pub fn default_steps(fit: &ScheduleFit) -> Vec<usize> {
    let run = fit.defaults.steps as f64;
    let mut steps: Vec<usize> = [0.5, 1.0, 2.0, 4.0]
        .iter()
        .map(|k| ((k * run / 100.0).round() as usize * 100).max(100))
        .collect();
    steps.dedup();
    steps
}

/// One compute of the study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StudyRow {
    /// T: both schedules' length; their final loss is at step T − 1.
    pub steps: usize,
    /// The step where the cooldown branches off the constant run.
    pub cooldown_start: usize,
    /// The constant run's loss at step T − 1, with no cooldown.
    pub constant_loss: f64,
    pub cooldown_loss: f64,
    pub cosine_loss: f64,
    /// cooldown_loss − cosine_loss: negative where constant + cooldown does better.
    pub difference: f64,
    /// Percentile intervals over the replicates (absent without replicates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cooldown_interval: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosine_interval: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference_interval: Option<[f64; 2]>,
}

/// The study's table with the values it used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CooldownStudy {
    pub law: CurveLaw,
    pub settings: StudySettings,
    pub rows: Vec<StudyRow>,
    /// Replicates whose losses were finite at every T (the intervals' sample).
    pub replicates: usize,
    /// Replicates left out because the law gave a non-finite loss on some schedule.
    pub dropped: usize,
}

/// The two schedules of one compute: the cooldown branch of the constant run and the cosine.
#[derive(Debug, Clone)]
pub struct Pair {
    pub steps: usize,
    /// The step where the cooldown branches off the constant run.
    pub start: usize,
    pub cooldown: Schedule,
    pub cosine: Schedule,
}

pub fn check_settings(s: &StudySettings) -> Result<()> {
    if s.steps.is_empty() {
        return Err(Error::setting(
            Setting::Steps,
            text!["the study needs at least one ", Setting::Steps.subject()],
        ));
    }
    if let Some(t) = s.steps.iter().find(|&&t| t < 2) {
        return Err(Error::setting(
            Setting::Steps,
            text![
                Setting::Steps.number(*t),
                ": each training length needs at least 2 steps"
            ],
        ));
    }
    if !(s.fraction > 0.0 && s.fraction < 1.0) {
        return Err(Error::setting(
            Setting::Fraction,
            text![
                Setting::Fraction.number(s.fraction),
                ": the cooldown's share of the run must lie strictly between 0 and 1 (0.2: the \
                 last 20 %)"
            ],
        ));
    }
    crate::uncertainty::check_level(s.level)?;
    if !(s.peak > 0.0 && s.peak.is_finite() && s.last >= 0.0 && s.last < s.peak) {
        return Err(Error::setting(
            Setting::Final,
            text![
                Setting::Final.number(crate::error::short_number(s.last)),
                " must lie in [0, peak) with ",
                Setting::Peak.number(crate::error::short_number(s.peak)),
                " positive: the cooldown and the cosine fall from the peak to it"
            ],
        ));
    }
    Ok(())
}

/// The schedules of each T, checked against the law.
pub fn pairs(law: CurveLaw, s: &StudySettings) -> Result<Vec<Pair>> {
    check_settings(s)?;
    let longest = s.steps.iter().copied().max().unwrap_or(0);
    let spec = |kind: &str, steps: usize| {
        format!(
            "{kind}:peak={},warmup={},steps={steps}{}",
            s.peak,
            s.warmup,
            if kind == "cosine" {
                format!(",final={}", s.last)
            } else {
                String::new()
            }
        )
    };
    let mut starts = Vec::new();
    for &steps in &s.steps {
        let length = (s.fraction * steps as f64).round() as usize;
        let start = steps.saturating_sub(length);
        if length == 0 || start <= s.warmup {
            return Err(Error::setting(
                Setting::Steps,
                text![
                    Setting::Steps.number(steps),
                    format!(
                        ": a cooldown of {} % of it starts at step {start}, not after the warmup of {} steps; give longer runs or a smaller fraction",
                        s.fraction * 100.0,
                        s.warmup
                    )
                ],
            ));
        }
        starts.push((steps, start, length));
    }
    let constant = parse(&spec("constant", longest), None)?.main;
    let mut out = Vec::new();
    for (steps, start, length) in starts {
        let cooldown = cooldown_branch(&constant, start, length, s.decay, s.last);
        let cosine = parse(&spec("cosine", steps), None)?.main;
        for (what, schedule) in [("cooldown", &cooldown), ("cosine", &cosine)] {
            law.check(&schedule.lrs, &[steps - 1]).map_err(|m| {
                Error::setting(
                    Setting::Steps,
                    text![format!("the {what} of {steps} steps: {m}")],
                )
            })?;
        }
        out.push(Pair {
            steps,
            start,
            cooldown,
            cosine,
        });
    }
    Ok(out)
}

/// (cooldown, cosine) final losses of every pair under parameters `p`; None if any is not a
/// finite positive number.
fn final_losses(law: CurveLaw, p: &[f64], pairs: &[Pair]) -> Option<Vec<(f64, f64)>> {
    let at_end =
        |s: &Schedule, steps: usize| law.evaluate(p, &s.lrs, &[steps - 1], false).values[0];
    let out: Vec<(f64, f64)> = pairs
        .iter()
        .map(|pair| {
            (
                at_end(&pair.cooldown, pair.steps),
                at_end(&pair.cosine, pair.steps),
            )
        })
        .collect();
    let good = |v: f64| v.is_finite() && v > 0.0;
    out.iter().all(|&(a, b)| good(a) && good(b)).then_some(out)
}

/// The study under the fit's parameters, with percentile intervals over `replicates`.
///
/// `replicates` are parameter vectors in the law's order, one per bootstrap refit: the
/// `replicates` of `intervals::bootstrap_fit` (the curve bootstrap, resampling the logged
/// curves and refitting). Empty: no intervals. Each replicate gives both final losses at every T, and
/// the difference's interval is taken over the per-replicate differences (paired). Replicates
/// with a non-finite loss anywhere are left out and counted in `dropped`.
pub fn study(
    fit: &ScheduleFit,
    settings: &StudySettings,
    replicates: &[Vec<f64>],
) -> Result<CooldownStudy> {
    check_settings(settings)?;
    let n_params = fit.law.params().len();
    if let Some(bad) = replicates.iter().find(|r| r.len() != n_params) {
        return Err(Error::settings(format!(
            "a replicate holds {} parameters; {} has {n_params}",
            bad.len(),
            fit.law.name()
        )));
    }
    let pairs = pairs(fit.law, settings)?;
    let centre = final_losses(fit.law, &fit.values(), &pairs).ok_or_else(|| {
        Error::setting(
            Setting::Steps,
            text!["the fitted law gives no finite loss on these schedules; keep the peak and the lengths near the fitted runs'"],
        )
    })?;
    let constant = constant_losses(fit, settings)?;
    let samples: Vec<Vec<(f64, f64)>> = replicates
        .par_iter()
        .filter_map(|r| final_losses(fit.law, r, &pairs))
        .collect();
    let rows = pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let (cooldown_loss, cosine_loss) = centre[i];
            let column = |f: &dyn Fn((f64, f64)) -> f64| {
                (!samples.is_empty()).then(|| {
                    percentile_interval(samples.iter().map(|s| f(s[i])).collect(), settings.level)
                })
            };
            StudyRow {
                steps: pair.steps,
                cooldown_start: pair.start,
                constant_loss: constant[i],
                cooldown_loss,
                cosine_loss,
                difference: cooldown_loss - cosine_loss,
                cooldown_interval: column(&|(a, _)| a),
                cosine_interval: column(&|(_, b)| b),
                difference_interval: column(&|(a, b)| a - b),
            }
        })
        .collect();
    Ok(CooldownStudy {
        law: fit.law,
        settings: settings.clone(),
        rows,
        replicates: samples.len(),
        dropped: replicates.len() - samples.len(),
    })
}

/// The constant run's loss at each T − 1 (one pass over the longest run).
fn constant_losses(fit: &ScheduleFit, s: &StudySettings) -> Result<Vec<f64>> {
    let longest = s.steps.iter().copied().max().unwrap_or(1);
    let constant = parse(
        &format!(
            "constant:peak={},warmup={},steps={longest}",
            s.peak, s.warmup
        ),
        None,
    )?
    .main;
    let ends: Vec<usize> = s.steps.iter().map(|t| t - 1).collect();
    Ok(fit
        .law
        .evaluate(&fit.values(), &constant.lrs, &ends, false)
        .values)
}

/// A run's final logged loss against the fitted law's prediction there.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FinalLoss {
    pub run: String,
    pub step: usize,
    pub logged: f64,
    pub predicted: f64,
    /// predicted − logged.
    pub error: f64,
}

/// The fitted law's loss at each curve's last logged step against the logged one.
pub fn final_losses_of(fit: &ScheduleFit, curves: &[Curve]) -> Vec<FinalLoss> {
    let p = fit.values();
    curves
        .iter()
        .map(|c| {
            let n = c.steps.len() - 1;
            let predicted = fit.law.evaluate(&p, &c.lrs, &c.steps[n..], false).values[0];
            FinalLoss {
                run: c.run.clone(),
                step: c.steps[n],
                logged: c.loss[n],
                predicted,
                error: predicted - c.loss[n],
            }
        })
        .collect()
}

/// Leave one branch out: for each run of `branches`, `law` fitted on `base` and the other
/// branches, and its final loss predicted. How a method is scored on training runs alone (the
/// branches of one constant run, e.g. the two-stage `wsdcon_*` runs).
pub fn leave_one_out(
    law: CurveLaw,
    curves: &[Curve],
    base: &[String],
    branches: &[String],
) -> Result<Vec<FinalLoss>> {
    if branches.len() < 2 {
        return Err(Error::setting(
            Setting::Train,
            text!["leave-one-out needs at least two branches to train on"],
        ));
    }
    branches
        .iter()
        .map(|left| {
            let train: Vec<String> = base
                .iter()
                .chain(branches.iter().filter(|b| *b != left))
                .cloned()
                .collect();
            let fit = fit_curves(law, curves, &train, &[])?;
            let curve: Vec<Curve> = curves.iter().filter(|c| &c.run == left).cloned().collect();
            Ok(final_losses_of(&fit, &curve).remove(0))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::schedule::spec::SpecDefaults;
    use crate::fit::solver::Termination;

    /// A multi-power "fit" with the given parameters (the 400M paper values, roughly).
    fn fit_with(params: &[f64]) -> ScheduleFit {
        let law = CurveLaw::MultiPower;
        ScheduleFit {
            kind: "schedule_fit".into(),
            law,
            formula: law.formula().into(),
            citation: law.citation().into(),
            params: law
                .params()
                .iter()
                .zip(params)
                .map(|(n, v)| super::super::Estimate {
                    name: n.to_string(),
                    value: *v,
                    se: None,
                })
                .collect(),
            objective: 0.0,
            termination: Termination::Objective,
            iterations: 0,
            starts: 1,
            train: vec!["constant".into()],
            train_points: 10,
            defaults: SpecDefaults {
                peak: 3e-4,
                warmup: 2160,
                steps: 24000,
            },
            runs: Vec::new(),
            mean_test_r2: None,
            warnings: Vec::new(),
            data: Vec::new(),
            held: Vec::new(),
            curves: Vec::new(),
        }
    }

    const P400: [f64; 7] = [2.35, 0.65, 0.43, 600.0, 0.5, 0.6, 0.6];

    fn small_settings(fit: &ScheduleFit) -> StudySettings {
        StudySettings {
            steps: vec![6000, 12000],
            ..StudySettings::for_fit(fit)
        }
    }

    #[test]
    fn rows_are_the_law_on_the_two_schedules() {
        let fit = fit_with(&P400);
        let s = small_settings(&fit);
        let out = study(&fit, &s, &[]).unwrap();
        assert_eq!(out.rows.len(), 2);
        let row = &out.rows[1];
        assert_eq!(row.cooldown_start, 12000 - 2400);
        let cosine = parse("cosine:peak=3e-4,warmup=2160,steps=12000,final=3e-5", None)
            .unwrap()
            .main;
        let want = CurveLaw::MultiPower
            .evaluate(&P400, &cosine.lrs, &[11999], false)
            .values[0];
        assert!((row.cosine_loss - want).abs() < 1e-12);
        // The constant run to step 9599, then 2400 steps falling linearly to 3e-5, the last
        // one at it (the `schedule cooldown` branch).
        let mut lrs = parse("constant:peak=3e-4,warmup=2160,steps=9600", None)
            .unwrap()
            .main
            .lrs;
        lrs.extend((1..=2400).map(|i| 3e-4 + (3e-5 - 3e-4) * i as f64 / 2400.0));
        let wsd = Schedule { lrs };
        assert_eq!(wsd.lrs.len(), 12000);
        let want = CurveLaw::MultiPower
            .evaluate(&P400, &wsd.lrs, &[11999], false)
            .values[0];
        assert!(
            (row.cooldown_loss - want).abs() < 1e-9,
            "{} {want}",
            row.cooldown_loss
        );
        assert!((row.difference - (row.cooldown_loss - row.cosine_loss)).abs() < 1e-15);
        // A cooldown gains on the constant run it branches off.
        assert!(row.cooldown_loss < row.constant_loss - 0.01);
        assert!(row.cooldown_interval.is_none() && out.replicates == 0);
    }

    #[test]
    fn intervals_are_paired_percentiles_of_the_replicates() {
        let fit = fit_with(&P400);
        let s = StudySettings {
            level: 0.5,
            ..small_settings(&fit)
        };
        // Replicates: L0 shifted by −0.02, −0.01, 0, +0.01, +0.02. L0 moves both losses alike,
        // so the difference is the same in every replicate and its interval is one point
        // (paired), while each loss's 50 % interval is the type-7 quartiles: ±0.01 around it.
        let replicates: Vec<Vec<f64>> = [-0.02, -0.01, 0.0, 0.01, 0.02]
            .iter()
            .map(|d| {
                let mut p = P400.to_vec();
                p[0] += d;
                p
            })
            .collect();
        let out = study(&fit, &s, &replicates).unwrap();
        assert_eq!((out.replicates, out.dropped), (5, 0));
        for row in &out.rows {
            let [lo, hi] = row.cooldown_interval.unwrap();
            assert!((lo - (row.cooldown_loss - 0.01)).abs() < 1e-9, "{lo}");
            assert!((hi - (row.cooldown_loss + 0.01)).abs() < 1e-9, "{hi}");
            let [lo, hi] = row.cosine_interval.unwrap();
            assert!((lo - (row.cosine_loss - 0.01)).abs() < 1e-9);
            assert!((hi - (row.cosine_loss + 0.01)).abs() < 1e-9);
            let [lo, hi] = row.difference_interval.unwrap();
            assert!((lo - row.difference).abs() < 1e-9 && (hi - row.difference).abs() < 1e-9);
        }
        // B scaled: the annealing gain, so the difference now spreads; the 50 % interval of
        // 5 values is from the 2nd to the 4th order statistic.
        let scaled: Vec<Vec<f64>> = [0.8, 0.9, 1.0, 1.1, 1.2]
            .iter()
            .map(|k| {
                let mut p = P400.to_vec();
                p[3] *= k;
                p
            })
            .collect();
        let out = study(&fit, &s, &scaled).unwrap();
        let mut diffs: Vec<f64> = scaled
            .iter()
            .map(|p| {
                let f = study(&fit_with(p), &s, &[]).unwrap();
                f.rows[1].difference
            })
            .collect();
        diffs.sort_by(f64::total_cmp);
        let [lo, hi] = out.rows[1].difference_interval.unwrap();
        assert!((lo - diffs[1]).abs() < 1e-12 && (hi - diffs[3]).abs() < 1e-12);
        assert!(hi - lo > 1e-4, "{lo} {hi}");
    }

    #[test]
    fn non_finite_replicates_are_dropped_and_bad_settings_refused() {
        let fit = fit_with(&P400);
        let s = small_settings(&fit);
        let mut broken = P400.to_vec();
        broken[0] = f64::NAN;
        let out = study(&fit, &s, &[P400.to_vec(), broken]).unwrap();
        assert_eq!((out.replicates, out.dropped), (1, 1));
        let e = study(&fit, &s, &[vec![1.0; 3]]).unwrap_err().to_string();
        assert!(e.contains("3 parameters"), "{e}");
        for (bad, needle) in [
            (
                StudySettings {
                    fraction: 1.0,
                    ..s.clone()
                },
                "fraction",
            ),
            (
                StudySettings {
                    level: 1.5,
                    ..s.clone()
                },
                "level",
            ),
            (
                StudySettings {
                    steps: vec![],
                    ..s.clone()
                },
                "steps",
            ),
            (
                StudySettings {
                    steps: vec![2500],
                    ..s.clone()
                },
                "warmup",
            ),
            (
                StudySettings {
                    last: 1e-3,
                    ..s.clone()
                },
                "final",
            ),
        ] {
            let e = study(&fit, &bad, &[]).unwrap_err().to_string();
            assert!(e.contains(needle), "{needle}: {e}");
        }
    }

    #[test]
    fn default_steps_span_half_to_four_times_the_run() {
        let fit = fit_with(&P400);
        assert_eq!(default_steps(&fit), vec![12000, 24000, 48000, 96000]);
    }

    /// Leave-one-out on synthetic branches of a constant run, generated by the law itself:
    /// every left-out branch's final loss is recovered.
    #[test]
    fn leave_one_out_recovers_synthetic_branches() {
        let law = CurveLaw::LrAnnealing;
        let truth = [2.4, 0.6, 0.45, 0.8, 0.998];
        let constant = parse("constant:peak=3e-4,warmup=200,steps=3000", None)
            .unwrap()
            .main;
        let make = |run: &str, lrs: Vec<f64>| {
            let steps: Vec<usize> = (250..lrs.len()).step_by(50).collect();
            let loss = law.evaluate(&truth, &lrs, &steps, false).values;
            Curve {
                run: run.into(),
                lrs,
                steps,
                loss,
            }
        };
        let mut curves = vec![make("constant", constant.lrs.clone())];
        for factor in [0.1, 0.3, 0.6] {
            let mut lrs = constant.lrs.clone();
            lrs[1000..].iter_mut().for_each(|x| *x *= factor);
            curves.push(make(&format!("drop_{factor}"), lrs));
        }
        let branches: Vec<String> = curves[1..].iter().map(|c| c.run.clone()).collect();
        let out = leave_one_out(law, &curves, &["constant".into()], &branches).unwrap();
        assert_eq!(out.len(), 3);
        for f in &out {
            assert!(f.error.abs() < 1e-4, "{f:?}");
        }
    }
}
