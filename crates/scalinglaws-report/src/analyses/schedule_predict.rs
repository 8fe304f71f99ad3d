//! The report of `schedule predict`: a schedule's predicted loss curve and, when intervals
//! were asked for, its prediction band with the lines saying how it was made (the
//! moving-block bootstrap of the fit's training curves, Künsch 1989, or the profile-likelihood
//! band, Venzon & Moolgavkar 1988) and its measured coverage of the fit's held-out runs.

use scalinglaws::error::{Setting, Wording};
use std::fmt::Write as _;

use scalinglaws::analysis::schedule::intervals::{Coverage, CurveBand};
use scalinglaws::analysis::schedule::profile::ProfileSummary;
use scalinglaws::analysis::schedule::Prediction;
use scalinglaws::workflow::schedule_predict::{BootstrapBand, SchedulePrediction};

use crate::text::{columns, number};

/// The prediction is its own report: the curve, and the band with how it was made.
impl crate::Report for SchedulePrediction {
    type Json = SchedulePrediction;
    fn json_value(&self) -> &SchedulePrediction {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        let Some(band) = &self.band else {
            let mut out = String::from("[[Schedule prediction]]\n");
            out.push_str(&render_prediction(&self.curve));
            return out;
        };
        let held_out = self.held_out.as_deref().unwrap_or_default();
        let mut lines = String::new();
        if let Some(boot) = &self.bootstrap {
            lines.push_str(&bootstrap_lines(boot, band.level));
        }
        if let Some(profile) = &self.profile {
            lines.push_str(&profile_lines(profile));
        }
        lines.push_str(&coverage_line(held_out, band.level, wording));
        render_band(&self.curve, band, &lines)
    }
}

fn render_prediction(p: &Prediction) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "    schedule  {}", p.schedule);
    let _ = writeln!(
        out,
        "    final     loss {} at step {} (lr {} → {})",
        number(p.final_loss, 6),
        p.steps_total - 1,
        number(p.peak_lr, 3),
        number(p.final_lr, 3)
    );
    let mut rows = vec![vec!["step".to_string(), "lr".into(), "loss".into()]];
    let stride = (p.steps.len() / 12).max(1);
    for i in (0..p.steps.len())
        .step_by(stride)
        .chain([p.steps.len() - 1])
    {
        rows.push(vec![
            p.steps[i].to_string(),
            number(p.lr[i], 4),
            number(p.loss[i], 6),
        ]);
    }
    rows.dedup();
    out.push_str(&columns(&rows, &[], "    "));
    if !p.cooldowns.is_empty() {
        out.push_str("    cooldowns (branch from the constant run)\n");
        let mut rows = vec![vec![
            "start".to_string(),
            "length".into(),
            "end".into(),
            "loss".into(),
            "constant".into(),
        ]];
        for c in &p.cooldowns {
            rows.push(vec![
                c.start.to_string(),
                c.length.to_string(),
                c.end_step.to_string(),
                number(c.loss, 6),
                number(c.constant_loss, 6),
            ]);
        }
        out.push_str(&columns(&rows, &[], "    "));
    }
    out
}

/// How the bootstrap's intervals were made.
fn bootstrap_lines(r: &BootstrapBand, level: f64) -> String {
    let mut out = String::new();
    let level = level * 100.0;
    let _ = writeln!(
        out,
        "    intervals {level}% prediction intervals of a logged point: moving-block bootstrap \
         (Künsch 1989) of the training curves' log residuals, blocks of {} logged steps, {} \
         refits (seed {}; {} failed, {} not converged), plus the training residuals (sd {})",
        r.block,
        r.replicates,
        r.seed,
        r.failed,
        r.not_converged,
        number(r.residual_sd, 3)
    );
    match &r.calibration {
        Some(c) => {
            let _ = writeln!(
                out,
                "    widened   ×{:.2} (in log space around the curve): what the bootstrap of a fit \
                 on the first half of each training curve needed to hold {level}% of the later \
                 half's {} points (measured on the training curves alone)",
                c.factor, c.points
            );
        }
        None => {
            let _ = writeln!(out, "    widened   no: the bootstrap's own intervals");
        }
    }
    out
}

/// How the profile band was made: the threshold, its calibration and the directions the
/// training curves leave open.
fn profile_lines(s: &ProfileSummary) -> String {
    let mut out = String::new();
    let level = s.level * 100.0;
    let _ = writeln!(
        out,
        "    intervals {level}% prediction band of a logged point: profile likelihood (Venzon & \
         Moolgavkar 1988), the envelope of the {} refits whose training objective rises at most \
         {} above the fit's (½·χ²₁·s²·τ = {}, times {}; s² {}, lag-1 autocorrelation {:.3}, τ \
         {:.2}; {} refits tried, {} failed), plus the training residuals' quantiles",
        s.fits,
        number(s.threshold, 3),
        number(s.base_threshold, 3),
        s.factor,
        number(s.dispersion, 3),
        s.lag1,
        s.inflation,
        s.trials,
        s.failed
    );
    if let Some(c) = &s.calibration {
        let _ =
            writeln!(
            out,
            "    widened   ×{} threshold: the smallest that held {:.1}% of the later half's {} \
             points for a fit on the first half of each training curve{} (measured on the \
             training curves alone)",
            c.factor,
            100.0 * c.coverage,
            c.points,
            if c.reached { "" } else { ", short of the level" }
        );
    }
    let open: Vec<String> = s
        .reach
        .iter()
        .flat_map(|r| {
            let low = r
                .low_open
                .then(|| format!("{} down to {}", r.name, number(r.low, 3)));
            let high = r
                .high_open
                .then(|| format!("{} up to {}", r.name, number(r.high, 3)));
            low.into_iter().chain(high)
        })
        .collect();
    if !open.is_empty() {
        let _ = writeln!(
            out,
            "    open      the training curves do not reject {} (traced to a bound, or e^12 times the \
             fit, inside the region)",
            open.join(", ")
        );
    }
    out
}

/// The intervals' measured coverage of the fit's held-out runs.
fn coverage_line(held_out: &[Coverage], level: f64, wording: &dyn Wording) -> String {
    let Some(c) = Coverage::pooled(held_out) else {
        return format!(
            "    coverage  not measured: the fit has no held-out runs (fit with {} to measure \
             it); a fit on one schedule shape covers other shapes less than the level\n",
            wording.word(&Setting::Train.named())
        );
    };
    let parts: Vec<String> = held_out
        .iter()
        .map(|h| format!("{} {:.1}%", h.run, 100.0 * h.fraction()))
        .collect();
    let verdict = if c + 1e-12 >= level {
        "at or above the level"
    } else {
        "below the level: the intervals are too narrow for these schedules"
    };
    format!(
        "    coverage  {:.1}% of the held-out runs' logged points ({}), {verdict} (measured, not \
         calibrated on them)\n",
        100.0 * c,
        parts.join(", ")
    )
}

/// The prediction with its band: the final loss and interval, the lines on the method, and a
/// table of about 12 steps.
fn render_band(p: &Prediction, band: &CurveBand, method: &str) -> String {
    let mut out = String::from("[[Schedule prediction]]\n");
    let _ = writeln!(out, "    schedule  {}", p.schedule);
    let last = p.steps.len() - 1;
    let _ = writeln!(
        out,
        "    final     loss {} [{}, {}] at step {} (lr {} → {})",
        number(p.final_loss, 6),
        number(band.low[last], 6),
        number(band.high[last], 6),
        p.steps_total - 1,
        number(p.peak_lr, 3),
        number(p.final_lr, 3)
    );
    out.push_str(method);
    let mut rows = vec![vec![
        "step".to_string(),
        "lr".into(),
        "loss".into(),
        "pi low".into(),
        "pi high".into(),
    ]];
    let stride = (p.steps.len() / 12).max(1);
    let mut shown: Vec<usize> = (0..p.steps.len()).step_by(stride).collect();
    shown.push(last);
    shown.dedup();
    for i in shown {
        rows.push(vec![
            p.steps[i].to_string(),
            number(p.lr[i], 4),
            number(p.loss[i], 6),
            number(band.low[i], 6),
            number(band.high[i], 6),
        ]);
    }
    out.push_str(&columns(&rows, &[], "    "));
    out
}
