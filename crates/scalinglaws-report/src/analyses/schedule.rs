//! The reports of `schedule`: a fitted curve law with its runs, schedules compared, the
//! optimised schedule and the table of cooldowns (a schedule's predicted curve is
//! `schedule_predict.rs`'s).

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use scalinglaws::analysis::schedule::optimize::{CooldownRow, OptimizedSchedule};
use scalinglaws::analysis::schedule::{Comparison, ScheduleFit};
use scalinglaws::workflow::schedule_cooldown::Cooldowns;
use scalinglaws::workflow::schedule_optimize::Optimized;

use crate::text::{columns, number};

/// A fitted curve law with the files its runs came from.
impl crate::Report for ScheduleFit {
    type Json = ScheduleFit;
    fn json_value(&self) -> &ScheduleFit {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        render_fit(self, &self.data)
    }
}

/// Schedules compared under one fitted law.
impl crate::Report for Comparison {
    type Json = Comparison;
    fn json_value(&self) -> &Comparison {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        render_comparison(self)
    }
}

/// The optimised schedule.
impl crate::Report for Optimized {
    type Json = Optimized;
    fn json_value(&self) -> &Optimized {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        render_optimized(&self.result)
    }
}

/// Cooldowns from a constant run: where they start, how long, and the loss they reach.
impl crate::Report for Cooldowns {
    type Json = Cooldowns;
    fn json_value(&self) -> &Cooldowns {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        render_cooldowns(&self.rows, self.peak, self.last, self.decay.name())
    }
}

fn render_fit(fit: &ScheduleFit, files: &[String]) -> String {
    let mut out = String::from("[[Schedule fit]]\n");
    let _ = writeln!(out, "    law       {} ({})", fit.law.name(), fit.citation);
    let _ = writeln!(out, "              {}", fit.formula);
    let _ = writeln!(
        out,
        "    data      {} ({} runs)",
        files.join(", "),
        fit.runs.len()
    );
    let _ = writeln!(
        out,
        "    trained   {} ({} points); objective {} (Huber δ = 1e-3 on log loss, summed); {} after {} iterations from the best of {} starts",
        fit.train.join(", "),
        fit.train_points,
        number(fit.objective, 6),
        fit.termination,
        fit.iterations,
        fit.starts
    );
    let _ = writeln!(
        out,
        "    schedule  specs default to peak {}, warmup {}, {} steps",
        fit.defaults.peak, fit.defaults.warmup, fit.defaults.steps
    );
    out.push_str("\n  Parameters\n");
    let mut rows = vec![vec!["name".to_string(), "value".into(), "se".into()]];
    for p in &fit.params {
        rows.push(vec![
            p.name.clone(),
            number(p.value, 6),
            p.se.map_or("fixed".into(), |s| number(s, 3)),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    out.push_str("\n  Runs (R² of the predicted curve; error of the last logged loss)\n");
    let mut rows = vec![vec![
        "run".to_string(),
        "role".into(),
        "points".into(),
        "last step".into(),
        "R²".into(),
        "final error".into(),
    ]];
    for r in &fit.runs {
        rows.push(vec![
            r.run.clone(),
            if r.train {
                "train".into()
            } else {
                "test".into()
            },
            r.points.to_string(),
            r.last_step.to_string(),
            r.r2.map_or("-".into(), |r2| format!("{r2:.5}")),
            format!("{:+.3}%", 100.0 * r.final_error),
        ]);
    }
    out.push_str(&columns(&rows, &[0, 1], "    "));
    if let Some(mean) = fit.mean_test_r2 {
        let _ = writeln!(out, "    mean R² over the test runs: {mean:.5}");
    }
    if !fit.warnings.is_empty() {
        out.push_str("\n  Warnings\n");
        for w in &fit.warnings {
            let _ = writeln!(out, "    - {w}");
        }
    }
    out
}

fn render_comparison(c: &Comparison) -> String {
    let mut out = String::from("[[Schedule comparison]]\n");
    let _ = writeln!(out, "    law       {}", c.law.name());
    let mut rows = vec![vec![
        "schedule".to_string(),
        "steps".into(),
        "final loss".into(),
        "gap to best".into(),
    ]];
    for (p, gap) in c.schedules.iter().zip(&c.final_gap) {
        rows.push(vec![
            p.schedule.clone(),
            p.steps_total.to_string(),
            number(p.final_loss, 6),
            format!("{gap:+.5}"),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    let _ = writeln!(out, "    best      {}", c.best);
    out.push_str("\n  Curves (loss at the same steps)\n");
    let longest = c.schedules.iter().map(|p| p.steps.len()).max().unwrap_or(0);
    let reference = c
        .schedules
        .iter()
        .find(|p| p.steps.len() == longest)
        .expect("schedules");
    let mut header = vec!["step".to_string()];
    header.extend((1..=c.schedules.len()).map(|i| format!("#{i}")));
    let mut rows = vec![header];
    let stride = (longest / 10).max(1);
    for i in (0..longest).step_by(stride).chain([longest - 1]) {
        let step = reference.steps[i];
        let mut row = vec![step.to_string()];
        for p in &c.schedules {
            row.push(
                p.steps
                    .iter()
                    .position(|&s| s == step)
                    .map_or("-".into(), |j| number(p.loss[j], 6)),
            );
        }
        rows.push(row);
    }
    rows.dedup();
    out.push_str(&columns(&rows, &[], "    "));
    out
}

fn render_optimized(b: &OptimizedSchedule) -> String {
    let mut out = String::from("[[Optimised schedule]]\n");
    let _ = writeln!(out, "    law          {}", b.law.name());
    let _ = writeln!(out, "    constraints  {}", b.constraints);
    let _ = writeln!(
        out,
        "    final loss   {} (best standard schedule {}: {}; gain {})",
        number(b.final_loss, 6),
        b.best_baseline,
        number(b.final_loss + b.gain, 6),
        number(b.gain, 3)
    );
    let _ = writeln!(
        out,
        "    shape        at the peak until step {}, then falls over {} steps to {} ({} iterations)",
        b.stable_until,
        b.decay_steps,
        number(b.final_lr, 3),
        b.iterations
    );
    let mut rows = vec![vec!["step".to_string(), "lr".into()]];
    for (s, lr) in b.shape.iter().step_by(4) {
        rows.push(vec![s.to_string(), number(*lr, 4)]);
    }
    out.push_str(&columns(&rows, &[], "    "));
    out.push_str("\n  Standard schedules at the same budget\n");
    let mut rows = vec![vec!["schedule".to_string(), "final loss".into()]];
    for base in &b.baselines {
        rows.push(vec![base.schedule.clone(), number(base.final_loss, 6)]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    if !b.warnings.is_empty() {
        out.push_str("\n  Warnings\n");
        for w in &b.warnings {
            let _ = writeln!(out, "    - {w}");
        }
    }
    out
}

fn render_cooldowns(rows: &[CooldownRow], peak: f64, last: f64, decay: &str) -> String {
    let mut out = String::from("[[Cooldowns]]\n");
    let _ = writeln!(
        out,
        "    from a constant run at {peak}, {decay} cooldowns to {last}"
    );
    let mut table = vec![vec![
        "start".to_string(),
        "length".into(),
        "end step".into(),
        "loss".into(),
        "constant run".into(),
        "gain".into(),
    ]];
    for r in rows {
        table.push(vec![
            r.start.to_string(),
            r.length.to_string(),
            r.end_step.to_string(),
            number(r.loss, 6),
            number(r.constant_loss, 6),
            number(r.gain, 4),
        ]);
    }
    out.push_str(&columns(&table, &[], "    "));
    out
}
