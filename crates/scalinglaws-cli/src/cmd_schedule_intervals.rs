//! `schedule predict --bootstrap` / `--interval profile`: a predicted curve with prediction
//! intervals from the moving-block bootstrap of the fit's training curves (Künsch 1989; the
//! library's `analysis::schedule::intervals`) or from its profile-likelihood band
//! (`analysis::schedule::profile`), the lines saying how they were made, and their measured
//! coverage of the fit's held-out runs.

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use anyhow::Result;
use scalinglaws::analysis::schedule::intervals::{
    predict_with_intervals, Coverage, CurveBand, IntervalPrediction,
};
use scalinglaws::analysis::schedule::profile::{
    predict_with_profile, ProfilePrediction, ProfileSummary,
};
use scalinglaws::analysis::schedule::{spec, Prediction, ScheduleFit};
use scalinglaws::job::schedule::SchedulePredictJob;
use scalinglaws_report::analyses::schedule;
use scalinglaws_report::plots::schedules_page_with_bands;
use scalinglaws_report::text::{columns, number};

use crate::config::schedule::IntervalMethod;
use crate::figure::{self, Output};
use crate::output::{self, Destination};

/// The prediction with intervals, as text and JSON.
struct IntervalReport<'a>(&'a IntervalPrediction);

impl scalinglaws_report::Report for IntervalReport<'_> {
    type Json = IntervalPrediction;
    fn json_value(&self) -> &IntervalPrediction {
        self.0
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        render(self.0)
    }
}

/// The profile band, as text and JSON.
struct ProfileReport<'a>(&'a ProfilePrediction);

impl scalinglaws_report::Report for ProfileReport<'_> {
    type Json = ProfilePrediction;
    fn json_value(&self) -> &ProfilePrediction {
        self.0
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        let r = self.0;
        let lines = format!(
            "{}{}",
            profile_lines(&r.profile),
            coverage_line(&r.held_out, r.band.level)
        );
        render_band(&r.prediction, &r.band, &lines)
    }
}

/// `schedule predict`: the curve, with prediction intervals under `--bootstrap` or
/// `--interval profile`, and its plot under `--plot` (the band drawn when there are
/// intervals).
pub fn run_predict(
    fit: &ScheduleFit,
    job: &SchedulePredictJob,
    max_work: f64,
    method: Option<&IntervalMethod>,
    plot: Option<&Output>,
    json: Option<Destination>,
) -> Result<()> {
    let Some(method) = method else {
        let prediction = job.run_within(fit, max_work)?;
        if let Some(target) = plot {
            draw(fit, &prediction, None, target)?;
        }
        return output::emit(json.as_ref(), &schedule::PredictionReport(&prediction));
    };
    match method {
        IntervalMethod::Bootstrap(s) => job.check_intervals(fit, max_work, s.replicates, None)?,
        IntervalMethod::Profile(s) => job.check_intervals(fit, max_work, 0, Some(s))?,
    }
    let parsed = spec::parse(&job.schedule, Some(fit.defaults))?;
    match method {
        IntervalMethod::Bootstrap(settings) => {
            let result = predict_with_intervals(fit, &parsed, job.every, settings)?;
            if let Some(target) = plot {
                draw(fit, &result.prediction, Some(&result.band), target)?;
            }
            output::emit(json.as_ref(), &IntervalReport(&result))
        }
        IntervalMethod::Profile(settings) => {
            let result = predict_with_profile(fit, &parsed, job.every, settings)?;
            if let Some(target) = plot {
                draw(fit, &result.prediction, Some(&result.band), target)?;
            }
            output::emit(json.as_ref(), &ProfileReport(&result))
        }
    }
}

fn draw(
    fit: &ScheduleFit,
    prediction: &Prediction,
    band: Option<&CurveBand>,
    target: &Output,
) -> Result<()> {
    let title = match band {
        Some(b) => format!(
            "{} under the fitted {} ({}% prediction interval)",
            prediction.schedule,
            fit.law.name(),
            b.level * 100.0
        ),
        None => format!(
            "{} under the fitted {}",
            prediction.schedule,
            fit.law.name()
        ),
    };
    let page =
        schedules_page_with_bands(&title, std::slice::from_ref(prediction), &[None], &[band])?;
    figure::write(&page, target)
}

/// How the intervals were made and how well they held the fit's held-out runs.
fn method_lines(r: &IntervalPrediction) -> String {
    let mut out = String::new();
    let level = r.band.level * 100.0;
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
    out.push_str(&coverage_line(&r.held_out, r.band.level));
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
fn coverage_line(held_out: &[Coverage], level: f64) -> String {
    let Some(c) = Coverage::pooled(held_out) else {
        return "    coverage  not measured: the fit has no held-out runs (fit with --train to \
                measure it); a fit on one schedule shape covers other shapes less than the level\n"
            .into();
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

fn render(r: &IntervalPrediction) -> String {
    render_band(&r.prediction, &r.band, &method_lines(r))
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
