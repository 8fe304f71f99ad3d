//! The report of `backtest`: the held-out runs of every split with their errors and
//! intervals, and the scores (ARE, RMSE of log residuals, interval coverage).

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use scalinglaws::analysis::backtest::Metrics;
use scalinglaws::workflow::backtest::BacktestResult;

use crate::text::{columns, level_percent, number};

impl crate::Report for BacktestResult {
    type Json = BacktestResult;
    fn json_value(&self) -> &BacktestResult {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        render(self, wording)
    }
}

fn render(report: &BacktestResult, wording: &dyn Wording) -> String {
    let result = &report.backtest;
    let mut out = String::new();
    let _ = writeln!(out, "[[Backtest]]");
    let _ = writeln!(out, "    law        {}", report.law);
    let _ = writeln!(out, "    data       {}", report.data.source);
    let _ = writeln!(out, "    held out   {} by '{}'", result.holdout, report.by);
    let _ = writeln!(
        out,
        "    intervals  {}% {}",
        level_percent(result.level),
        result.intervals.describe()
    );
    for (index, split) in result.splits.iter().enumerate() {
        let _ = writeln!(
            out,
            "[[Split {}]] trained on {} rows up to {} = {}, {} held out",
            index + 1,
            split.train_rows,
            report.by,
            number(split.trained_up_to, 4),
            split.test_rows
        );
        if let Some(error) = &split.error {
            let error = error.worded(wording);
            let _ = writeln!(out, "    the training fit failed: {error}");
            continue;
        }
        if split.converged == Some(false) {
            let _ = writeln!(out, "    warning: the training fit did not converge");
        }
        if let Some(c) = &split.calibration {
            let _ = match (&c.reason, c.calibrated) {
                (_, true) => writeln!(
                    out,
                    "    calibration  the prior updated by backtests nested in the {} training rows: {} held-out runs in {} units, form error sd {} one decade out",
                    split.train_rows,
                    c.held_out,
                    c.units,
                    number(c.tau_per_decade, 4)
                ),
                (reason, false) => writeln!(
                    out,
                    "    calibration  none: {}",
                    reason.as_deref().unwrap_or("unknown reason")
                ),
            };
        }
        if !report.scheme.steps() {
            points(&mut out, split, &report.by);
        }
        if let Some(m) = &split.metrics {
            scores(&mut out, m, result.level);
        }
    }
    if result.splits.len() > 1 {
        if let Some(m) = &result.metrics {
            let _ = writeln!(out, "[[All held-out runs]]");
            scores(&mut out, m, result.level);
        }
    }
    // Each training fit adds the choice sd of its own cells; the section shows all cells'.
    out.push_str(&super::sweep::section(result.sweep.as_ref(), true, wording));
    out
}

fn points(out: &mut String, split: &scalinglaws::analysis::backtest::Split, by: &str) {
    let mut rows: Vec<[String; 7]> = vec![[
        "row".into(),
        by.into(),
        "actual".into(),
        "predicted".into(),
        "error".into(),
        "prediction interval".into(),
        "inside".into(),
    ]];
    for p in &split.points {
        let inside = p.pi.map_or("-", |[lo, hi]| {
            if lo <= p.actual && p.actual <= hi {
                "yes"
            } else {
                "NO"
            }
        });
        rows.push([
            p.row.to_string(),
            number(p.scale, 4),
            number(p.actual, 5),
            number(p.predicted, 5),
            format!("{:+.2}%", p.relative_error * 100.0),
            p.pi.map_or("-".into(), |[lo, hi]| {
                format!("[{}, {}]", number(lo, 5), number(hi, 5))
            }),
            inside.into(),
        ]);
    }
    out.push_str(&columns(&rows, &[5], "    "));
}

fn scores(out: &mut String, m: &Metrics, level: f64) {
    let percent = |x: f64| format!("{}%", number(x * 100.0, 3));
    let _ = writeln!(
        out,
        "    ARE        mean {}, median {}, max {} over {} runs",
        percent(m.are_mean),
        percent(m.are_median),
        percent(m.are_max),
        m.points
    );
    let _ = writeln!(
        out,
        "    RMSE(log)  {}",
        m.rmse_log.map_or("-".into(), |r| number(r, 4))
    );
    let _ = writeln!(
        out,
        "    bias       {:+.3}% (mean signed error)",
        m.bias * 100.0
    );
    let of = if m.with_intervals < m.points {
        format!(" (of the {} with an interval)", m.with_intervals)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "    coverage   {} of runs{of} inside their {}% prediction interval; {} inside the mean's",
        m.pi_coverage.map_or("-".into(), percent),
        level_percent(level),
        m.ci_coverage.map_or("-".into(), percent),
    );
    if m.calibrated > 0 {
        let _ = writeln!(
            out,
            "    calibrated {} of {} runs: {} inside the calibrated interval (mean width {}), {} inside the fit's own (mean width {})",
            m.calibrated,
            m.points,
            m.calibrated_coverage.map_or("-".into(), percent),
            m.calibrated_width.map_or("-".into(), percent),
            m.calibrated_fit_coverage.map_or("-".into(), percent),
            m.calibrated_fit_width.map_or("-".into(), percent),
        );
    }
}
