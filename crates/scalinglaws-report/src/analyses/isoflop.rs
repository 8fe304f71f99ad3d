//! The report of `isoflop`: per group of runs, the IsoFLOP profiles (approach 2), their
//! backtest on the largest budgets, or the envelope of checkpoints (approach 1), with the
//! power laws through the minima and predictions at new budgets.

use scalinglaws::error::{Setting, Wording};
use std::fmt::Write as _;

use scalinglaws::analysis::envelope::Envelope;
use scalinglaws::analysis::isoflop::{
    BudgetPrediction, ForecastCalibration, Isoflop, IsoflopBacktest, JointForecast, PowerLaw,
    Quantity,
};

use scalinglaws::data::recipe::describe_group as describe;
use scalinglaws::workflow::isoflop::{Analysis, GroupAnalysis, IsoflopResult};

use crate::text::{columns, level_percent, number};

/// The columns the report names: compute, size and the run column of an envelope (the
/// document's own).
#[derive(Debug, Clone, Copy)]
struct Columns<'a> {
    compute: &'a str,
    size: &'a str,
    run: Option<&'a str>,
}

impl crate::Report for IsoflopResult {
    type Json = IsoflopResult;
    fn json_value(&self) -> &IsoflopResult {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        let columns = Columns {
            compute: &self.compute,
            size: &self.size,
            run: self.run.as_deref(),
        };
        let groups: String = self
            .groups
            .iter()
            .map(|g| render(g, &columns, wording))
            .collect();
        groups + &super::sweep::section(self.sweep.as_ref(), false, wording)
    }
}

fn render(group: &GroupAnalysis, config: &Columns, wording: &dyn Wording) -> String {
    let label = if group.group.is_empty() {
        String::new()
    } else {
        format!(" {}:", describe(&group.group))
    };
    match &group.analysis {
        Analysis::Profiles(result) => render_profiles(result, &label, config, wording),
        Analysis::Backtest(result) => render_backtest(result, &label, config, wording),
        Analysis::Envelope(result) => render_envelope(result, &label, config),
    }
}

fn render_envelope(result: &Envelope, label: &str, config: &Columns) -> String {
    let mut out = String::new();
    let runs = if result.runs > 0 {
        format!(" of {} runs", result.runs)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "[[Envelope (approach 1)]]{label} {} checkpoints{runs}; {}: {} points",
        result.checkpoints,
        result.method.describe(),
        result.points.len()
    );
    let mut rows: Vec<Vec<String>> = vec![["budget C", "N*", "D*", "loss", "run"]
        .map(String::from)
        .to_vec()];
    // A grid envelope has one point per budget: show at most a dozen, evenly spaced.
    let stride = result.points.len().div_ceil(12).max(1);
    for p in result.points.iter().step_by(stride) {
        rows.push(vec![
            number(p.budget, 3),
            number(p.n, 4),
            number(p.d, 4),
            number(p.loss, 5),
            p.run.clone().unwrap_or_default(),
        ]);
    }
    out.push_str(&columns(&rows, &[4], "    "));
    if stride > 1 {
        let _ = writeln!(out, "    (one point in {stride} shown; all are in --json)");
    }
    out.push_str(&power_laws(&result.n_star, &result.d_star));
    if result.bootstrap > 0 {
        let _ = writeln!(
            out,
            "    intervals: {}% over {} of {} bootstrap replicates of whole runs ('{}')",
            level_percent(result.level),
            result.bootstrap_used,
            result.bootstrap,
            config.run.unwrap_or("")
        );
    }
    out
}

fn power_laws(n_star: &Option<PowerLaw>, d_star: &Option<PowerLaw>) -> String {
    let mut out = String::new();
    for (label, law) in [("N* ∝ C^a: a", n_star), ("D* ∝ C^b: b", d_star)] {
        if let Some(law) = law {
            let ci = law.ci.map_or(String::new(), |[lo, hi]| {
                format!(" [{}, {}]", number(lo, 4), number(hi, 4))
            });
            let _ = writeln!(
                out,
                "    {label} = {}{ci} (coefficient {}, R² {})",
                number(law.exponent, 4),
                number(law.coef, 4),
                number(law.r2, 4)
            );
        }
    }
    out
}

fn render_profiles(
    result: &Isoflop,
    label: &str,
    config: &Columns,
    wording: &dyn Wording,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "[[IsoFLOP]]{label} {} budgets of '{}'; minimum of a {} per budget, in ln {}",
        result.budgets.len(),
        config.compute,
        result.shape.describe(),
        config.size
    );
    if let Some(choice) = &result.shape_choice {
        let _ = writeln!(out, "    shape auto: {}", choice.reason);
    }
    let with_ci = result.bootstrap > 0;
    let mut rows: Vec<Vec<String>> = vec![["budget C", "runs", "N*", "D*", "loss*", "note"]
        .map(String::from)
        .to_vec()];
    for b in &result.budgets {
        let n = match (b.n, b.n_ci) {
            (Some(n), Some([lo, hi])) if with_ci => {
                format!("{} [{}, {}]", number(n, 4), number(lo, 3), number(hi, 3))
            }
            (Some(n), _) => number(n, 4),
            (None, _) => "-".into(),
        };
        rows.push(vec![
            number(b.budget, 3),
            b.points.to_string(),
            n,
            b.d.map_or("-".into(), |d| number(d, 4)),
            b.loss.map_or("-".into(), |l| number(l, 5)),
            b.note.clone().unwrap_or_default(),
        ]);
    }
    out.push_str(&columns(&rows, &[5], "    "));
    out.push_str(&power_laws(&result.n_star, &result.d_star));
    if with_ci {
        let _ = writeln!(
            out,
            "    intervals: {}% over {} bootstrap replicates (exponents: budgets resampled; N*: each local curve refitted with noise at the pooled scatter)",
            level_percent(result.level),
            result.bootstrap
        );
    }
    out.push_str(&render_predictions(result, wording));
    out
}

fn interval(q: &Quantity, digits: usize) -> String {
    match q.interval {
        Some([lo, hi]) => format!(
            "{} [{}, {}]",
            number(q.value, digits),
            number(lo, 3),
            number(hi, 3)
        ),
        None => number(q.value, digits),
    }
}

fn prediction_rows(predictions: &[BudgetPrediction]) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = vec![["budget C", "N*", "D*", "loss*", "decades out"]
        .map(String::from)
        .to_vec()];
    for p in predictions {
        rows.push(vec![
            number(p.budget, 3),
            interval(&p.n, 4),
            interval(&p.d, 4),
            interval(&p.loss, 5),
            format!("{:.2}", p.decades_out),
        ]);
    }
    rows
}

fn render_predictions(result: &Isoflop, wording: &dyn Wording) -> String {
    let mut out = String::new();
    if let Some(note) = &result.predictions_note {
        let _ = writeln!(out, "    predictions: {note}");
    }
    if let Some(choice) = &result.method_choice {
        let _ = writeln!(
            out,
            "    method {}: {}",
            choice.method.name(),
            choice.reason
        );
    }
    if result.predictions.is_empty() {
        return out;
    }
    let _ = writeln!(out, "[[Predictions at new budgets]]");
    out.push_str(&columns(&prediction_rows(&result.predictions), &[], "    "));
    let Some(joint) = &result.joint else {
        out.push_str(&interval_note(result, wording));
        out.push_str("    loss*: the power law through the budgets' minimum losses, no interval (it has no irreducible term; fit and predict give calibrated losses)\n");
        return out;
    };
    out.push_str(&joint_note(joint, result.level));
    if let Some(note) = &result.profile_predictions_note {
        let _ = writeln!(out, "    per-budget minima: {note}");
    }
    if !result.profile_predictions.is_empty() {
        let _ = writeln!(out, "[[Per-budget minima's predictions (diagnostic)]]");
        out.push_str(&columns(
            &prediction_rows(&result.profile_predictions),
            &[],
            "    ",
        ));
        out.push_str(&interval_note(result, wording));
    }
    out
}

/// The joint law behind the predictions and how their intervals were made.
fn joint_note(joint: &JointForecast, level: f64) -> String {
    let fit = &joint.fit;
    let params: Vec<String> = fit
        .params
        .iter()
        .map(|(name, value)| format!("{name} = {}", number(*value, 4)))
        .collect();
    let mut out = format!(
        "    joint law: {} fitted to {} runs ({}), {}; compute {}\n",
        fit.law,
        fit.runs,
        fit.window.describe(),
        params.join(", "),
        fit.flops
    );
    let bootstrap = match fit.bootstrap {
        0 => "no bootstrap".to_string(),
        k => format!(
            "{k} bootstrap replicates of the runs ({} failed)",
            fit.failed
        ),
    };
    let level = level_percent(level);
    let _ = if joint.calibrated {
        writeln!(
            out,
            "    intervals: {level}% from {bootstrap}, widened beyond the data: sd² = sd_boot² + (τ·d^0.5)², τ(ln D*) = {} from {} rolling origins ({} held-out budgets)",
            number(joint.tau_d, 4),
            joint.origins.len(),
            joint.units
        )
    } else {
        writeln!(
            out,
            "    intervals: {level}% percentiles over {bootstrap}; not calibrated beyond the data: {}",
            joint.reason.as_deref().unwrap_or("")
        )
    };
    out.push_str("    loss*: the joint law's loss at (N*, D*)\n");
    out
}

/// Where the predictions' intervals come from (the hint for none worded for the front end).
fn interval_note(result: &Isoflop, wording: &dyn Wording) -> String {
    let level = level_percent(result.level);
    if result.bootstrap == 0 {
        let bootstrap = wording.word(&Setting::Bootstrap.number("K"));
        return format!("    no intervals: give {bootstrap}\n");
    }
    let bootstrap = format!(
        "{} bootstrap replicates of the runs within budgets (each redrawn around its budget's curve at the pooled scatter)",
        result.bootstrap
    );
    match &result.calibration {
        Some(c) if c.calibrated => format!(
            "    intervals: {level}% from {bootstrap}, widened beyond the data: {}\n",
            describe_calibration(c)
        ),
        Some(c) => format!(
            "    intervals: {level}% percentiles over {bootstrap}; not calibrated beyond the data: {}\n",
            c.reason.as_deref().unwrap_or("")
        ),
        None => format!(
            "    intervals: {level}% percentiles over {bootstrap}; not calibrated beyond the data (--no-calibration)\n"
        ),
    }
}

fn describe_calibration(c: &ForecastCalibration) -> String {
    format!(
        "sd² = sd_boot² + (τ·d^0.5)² at d decades beyond the largest budget, τ(ln D*) = {} from {} rolling origins ({} held-out budgets, up to {:.2} decades out); D* inside {} of them by the bootstrap alone, {} after widening",
        number(c.tau_d, 4),
        c.origins.len(),
        c.units,
        c.max_distance_decades,
        percent(c.coverage_bootstrap),
        percent(c.coverage_calibrated)
    )
}

fn percent(share: Option<f64>) -> String {
    share.map_or("-".into(), |s| format!("{:.1}%", 100.0 * s))
}

fn render_backtest(
    result: &IsoflopBacktest,
    label: &str,
    config: &Columns,
    wording: &dyn Wording,
) -> String {
    let mut out = String::new();
    let training = &result.training;
    let _ = writeln!(
        out,
        "[[IsoFLOP backtest]]{label} fitted on the {} smallest budgets of '{}', {} largest held out; minimum of a {} per budget",
        training.budgets.len(),
        config.compute,
        result.held_out.len(),
        training.shape.describe()
    );
    if let Some(choice) = &training.shape_choice {
        let _ = writeln!(out, "    shape auto (training budgets): {}", choice.reason);
    }
    out.push_str(&power_laws(&training.n_star, &training.d_star));
    let mut rows: Vec<Vec<String>> = vec![[
        "budget C",
        "predicted N*",
        "observed N*",
        "predicted D*",
        "observed D*",
        "ln error D*",
        "inside",
    ]
    .map(String::from)
    .to_vec()];
    for h in &result.held_out {
        let observed = |v: Option<f64>| v.map_or("-".into(), |v| number(v, 4));
        rows.push(vec![
            number(h.predicted.budget, 3),
            interval(&h.predicted.n, 4),
            observed(h.observed_n),
            interval(&h.predicted.d, 4),
            observed(h.observed_d),
            h.ln_error_d.map_or("-".into(), |e| format!("{e:+.4}")),
            h.covered_d
                .map_or("-".into(), |c| if c { "yes" } else { "no" }.into()),
        ]);
    }
    out.push_str(&columns(&rows, &[], "    "));
    let _ = writeln!(
        out,
        "    mean |ln error|: N* {}, D* {}; coverage of the {}% intervals: N* {}, D* {}",
        result
            .mean_abs_ln_error_n
            .map_or("-".into(), |e| format!("{e:.4}")),
        result
            .mean_abs_ln_error_d
            .map_or("-".into(), |e| format!("{e:.4}")),
        level_percent(training.level),
        percent(result.coverage_n),
        percent(result.coverage_d)
    );
    let _ = writeln!(
        out,
        "    observed: each held-out budget's own minimum under the same shape"
    );
    if let Some(choice) = &training.method_choice {
        let _ = writeln!(
            out,
            "    method {}: {}",
            choice.method.name(),
            choice.reason
        );
    }
    match &training.joint {
        Some(joint) => out.push_str(&joint_note(joint, training.level)),
        None => out.push_str(&interval_note(training, wording)),
    }
    out
}
