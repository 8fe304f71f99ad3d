//! The report of `downstream`: each task's diagnosis, every method's forecast with its
//! interval at each target (and the observed accuracy in a backtest), the mean over tasks,
//! a backtest's scores, and how each method's intervals were calibrated beyond the data.

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use scalinglaws::analysis::downstream::{
    DownstreamResult, Forecast, Method, MethodCalibration, Mode, Shape,
};

use scalinglaws::workflow::downstream::DownstreamAnalysis;

use crate::text::{columns, level_percent, number};

impl crate::Report for DownstreamAnalysis {
    type Json = DownstreamAnalysis;
    fn json_value(&self) -> &DownstreamAnalysis {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        let r = &self.result;
        let mut out = String::from("[[Downstream accuracy]]\n");
        let informative = r
            .tasks
            .iter()
            .filter(|t| t.shape != Shape::AtChance)
            .count();
        let _ = writeln!(
            out,
            "    data      {}: {} tasks, {informative} informative",
            self.data.source,
            r.tasks.len()
        );
        let _ = writeln!(out, "    intervals {} % (each method's, calibrated by replays inside the data; see Calibration)", level_percent(r.level));
        out.push_str(&tasks(r));
        if !r.scores.is_empty() {
            out.push_str(&scores(r));
        }
        out.push_str(&averages(r));
        out.push_str(&forecasts(r));
        out.push_str(&calibration(&r.calibration));
        if !r.notes.is_empty() {
            out.push_str("\n[[Notes]]\n");
            for note in &r.notes {
                let _ = writeln!(out, "    - {note}");
            }
        }
        out
    }
}

fn tasks(r: &DownstreamResult) -> String {
    let mut out = String::from("\n[[Tasks]]\n");
    let mut rows = vec![["task", "shape", "chance", "questions", "best"]
        .map(String::from)
        .to_vec()];
    for t in &r.tasks {
        rows.push(vec![
            t.task.clone(),
            match t.shape {
                Shape::AtChance => "at chance: no forecast".to_string(),
                other => other.name().to_string(),
            },
            number(t.chance, 3),
            t.questions.map_or("-".into(), |q| format!("{q:.0}")),
            format!("{:.3}", t.best),
        ]);
    }
    out.push_str(&columns(&rows, &[0, 1], "    "));
    out
}

fn scores(r: &DownstreamResult) -> String {
    let mut out = String::from("\n[[Backtest]]\n");
    let mut rows = vec![[
        "method",
        "forecasts",
        "MAE (points)",
        "coverage",
        "mean width (points)",
    ]
    .map(String::from)
    .to_vec()];
    for s in &r.scores {
        rows.push(vec![
            s.method.name().to_string(),
            s.forecasts.to_string(),
            format!("{:.2}", s.mae),
            format!("{:.3}", s.coverage),
            format!("{:.1}", s.width),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    out
}

fn cell(f: Option<&Forecast>) -> String {
    f.map_or("-".into(), |f| {
        format!(
            "{:.3} [{:.3}, {:.3}]",
            f.value, f.interval[0], f.interval[1]
        )
    })
}

fn averages(r: &DownstreamResult) -> String {
    let mut out = String::from("\n[[Mean over the informative tasks]]\n");
    let mut rows = vec![[
        "model",
        "tokens",
        "tasks",
        "logistic",
        "two-stage",
        "pooled",
        "observed",
    ]
    .map(String::from)
    .to_vec()];
    for a in &r.averages {
        rows.push(vec![
            a.model.clone(),
            number(a.tokens, 3),
            a.tasks.to_string(),
            cell(a.logistic.as_ref()),
            cell(a.two_stage.as_ref()),
            cell(a.pooled.as_ref()),
            a.observed.map_or("-".into(), |o| format!("{o:.3}")),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    out
}

fn forecasts(r: &DownstreamResult) -> String {
    let mut out = String::from("\n[[Forecasts]]\n");
    let mut rows = vec![[
        "task",
        "model",
        "tokens",
        "logistic",
        "two-stage",
        "pooled",
        "observed",
    ]
    .map(String::from)
    .to_vec()];
    for f in &r.forecasts {
        rows.push(vec![
            f.task.clone(),
            f.model.clone(),
            number(f.tokens, 3),
            cell(f.of(Method::Logistic)),
            cell(f.of(Method::TwoStage)),
            cell(f.of(Method::Pooled)),
            f.observed.map_or("-".into(), |o| format!("{o:.3}")),
        ]);
    }
    out.push_str(&columns(&rows, &[0, 1], "    "));
    out
}

fn calibration(all: &[MethodCalibration]) -> String {
    let mut out = String::from("\n[[Calibration]]\n");
    let mut rows = vec![["mode", "method", "replays", "γ", "σ", "replay MAE"]
        .map(String::from)
        .to_vec()];
    for c in all {
        rows.push(vec![
            match c.mode {
                Mode::AcrossSizes => "across sizes".to_string(),
                Mode::AcrossCheckpoints => "across checkpoints".to_string(),
            },
            c.method.name().to_string(),
            c.calibration.replays.to_string(),
            format!("{:.3}", c.calibration.gamma),
            format!("{:.4}", c.calibration.sigma),
            c.calibration
                .replay_mae
                .map_or("-".into(), |m| format!("{m:.2}")),
        ]);
    }
    out.push_str(&columns(&rows, &[0, 1], "    "));
    let mut seen = Vec::new();
    for c in all {
        if !seen.contains(&&c.replayed) {
            let _ = writeln!(out, "    replayed: {}", c.replayed);
            seen.push(&c.replayed);
        }
    }
    out.push_str("    an interval is value ± z·sqrt(variance + σ²·horizon), σ the smallest that covers the\n    conformal share of the replays; γ is the share of the pooled trend that carried on\n");
    out
}
