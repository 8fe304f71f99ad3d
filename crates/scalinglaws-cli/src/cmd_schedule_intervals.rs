//! `schedule predict --bootstrap`: a predicted curve with prediction intervals from the
//! moving-block bootstrap of the fit's training curves (Künsch 1989; the library's
//! `analysis::schedule::intervals`), the line saying how they were made, and their measured
//! coverage of the fit's held-out runs.

use std::fmt::Write as _;

use anyhow::Result;
use scalinglaws::analysis::schedule::intervals::{
    predict_with_intervals, BootstrapSettings, CurveBand, IntervalPrediction,
};
use scalinglaws::analysis::schedule::{spec, Prediction, ScheduleFit};
use scalinglaws::job::schedule::SchedulePredictJob;
use scalinglaws_report::analyses::schedule;
use scalinglaws_report::plots::schedules_page_with_bands;
use scalinglaws_report::text::{columns, number};

use crate::figure::{self, Output};
use crate::output::{self, Destination};

/// The prediction with intervals, as text and JSON.
struct IntervalReport<'a>(&'a IntervalPrediction);

impl scalinglaws_report::Report for IntervalReport<'_> {
    type Json = IntervalPrediction;
    fn json_value(&self) -> &IntervalPrediction {
        self.0
    }
    fn text(&self) -> String {
        render(self.0)
    }
}

/// `schedule predict`: the curve, with prediction intervals under `--bootstrap`, and its plot
/// under `--plot` (the band drawn when there are intervals).
pub fn run_predict(
    fit: &ScheduleFit,
    job: &SchedulePredictJob,
    settings: Option<&BootstrapSettings>,
    plot: Option<&Output>,
    json: Option<Destination>,
) -> Result<()> {
    let Some(settings) = settings else {
        let prediction = job.run(fit)?;
        if let Some(target) = plot {
            draw(fit, &prediction, None, target)?;
        }
        return output::emit(json.as_ref(), &schedule::PredictionReport(&prediction));
    };
    let parsed = spec::parse(&job.schedule, Some(fit.defaults))?;
    let result = predict_with_intervals(fit, &parsed, job.every, settings)?;
    if let Some(target) = plot {
        draw(fit, &result.prediction, Some(&result.band), target)?;
    }
    output::emit(json.as_ref(), &IntervalReport(&result))
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
    match r.held_out_coverage() {
        Some(c) => {
            let parts: Vec<String> = r
                .held_out
                .iter()
                .map(|h| format!("{} {:.1}%", h.run, 100.0 * h.fraction()))
                .collect();
            let verdict = if c + 1e-12 >= r.band.level {
                "at or above the level"
            } else {
                "below the level: the intervals are too narrow for these schedules"
            };
            let _ = writeln!(
                out,
                "    coverage  {:.1}% of the held-out runs' logged points ({}), {verdict} \
                 (measured, not calibrated on them)",
                100.0 * c,
                parts.join(", ")
            );
        }
        None => {
            let _ = writeln!(
                out,
                "    coverage  not measured: the fit has no held-out runs (fit with --train to \
                 measure it); a fit on one schedule shape covers other shapes less than the level"
            );
        }
    }
    out
}

fn render(r: &IntervalPrediction) -> String {
    let p = &r.prediction;
    let mut out = String::from("[[Schedule prediction]]\n");
    let _ = writeln!(out, "    schedule  {}", p.schedule);
    let last = p.steps.len() - 1;
    let _ = writeln!(
        out,
        "    final     loss {} [{}, {}] at step {} (lr {} → {})",
        number(p.final_loss, 6),
        number(r.band.low[last], 6),
        number(r.band.high[last], 6),
        p.steps_total - 1,
        number(p.peak_lr, 3),
        number(p.final_lr, 3)
    );
    out.push_str(&method_lines(r));
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
            number(r.band.low[i], 6),
            number(r.band.high[i], 6),
        ]);
    }
    out.push_str(&columns(&rows, &[], "    "));
    out
}
