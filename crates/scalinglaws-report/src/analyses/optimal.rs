//! The report of `optimal`: the compute-optimal (or least-compute) allocation at each budget
//! or target loss, with its intervals, the frontier's exponents, the notes that say where
//! each interval comes from and a warning line per caveat of the fit.

use scalinglaws::error::{Setting, Wording};
use std::fmt::Write as _;

use scalinglaws::analysis::allocation::{Allocation, Frontier};
use scalinglaws::uncertainty::calibration::regime_name;
use scalinglaws::uncertainty::{IntervalNote, IntervalSource};
use scalinglaws::workflow::optimal::{OptimalDocument, Parameters};

use crate::text::{columns, level_percent, number};

impl crate::Report for OptimalDocument {
    type Json = OptimalDocument;
    fn json_value(&self) -> &OptimalDocument {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        render(self, wording)
    }
    fn markdown(&self, wording: &dyn Wording) -> String {
        markdown(self, wording)
    }
}

/// The allocation table as a pipe table, the heading and notes around it.
fn markdown(report: &OptimalDocument, wording: &dyn Wording) -> String {
    let text = render(report, wording);
    let mut lines = text.lines();
    let heading = lines.next().unwrap_or("");
    let table = AllocationTable::new(&report.frontier);
    let rows = table.rows(&report.frontier, wording);
    let notes: Vec<&str> = lines.skip(rows.len()).collect();
    let mut out = crate::markdown::from_text(heading);
    out.push_str(&crate::markdown::table(&rows, &[]));
    out.push('\n');
    out.push_str(&crate::markdown::fenced(&notes.join("\n")));
    out.trim_end().to_string() + "\n"
}

fn render(report: &OptimalDocument, wording: &dyn Wording) -> String {
    let frontier = &report.frontier;
    let mut out = header(frontier, &report.law);
    let table = AllocationTable::new(frontier);
    out.push_str(&columns(&table.rows(frontier, wording), &[], "    "));
    if let Some(e) = &frontier.exponents {
        let _ = writeln!(
            out,
            "    exponents: N* ∝ C^{}, D* ∝ C^{}",
            table.cell(e.a, e.ci.get("a"), 4),
            table.cell(e.b, e.ci.get("b"), 4)
        );
    }
    for a in &frontier.allocations {
        if let Some(r) = &a.reference {
            let _ = writeln!(
                out,
                "    at loss {}: ignoring inference, N = {}, D = {} would cost {} over the run's life; this allocation saves {:.1}%",
                number(a.loss, 5),
                number(r.n, 4),
                number(r.d, 4),
                number(r.budget, 4),
                100.0 * r.savings
            );
        }
    }
    if let Some(formula) = &frontier.total_params {
        let _ = writeln!(out, "    total parameters = {formula}");
    }
    out.push_str(&intervals_line(report, wording));
    if let Some(note) = &frontier.prediction_intervals {
        out.push_str(&prediction_note(note, "(N*, D*)"));
    }
    out.push_str(&crate::caveats::lines(&frontier.fit_caveats, "    "));
    out
}

/// The section's first line: what is allocated, under which FLOPs formula and held values.
fn header(frontier: &Frontier, law: &str) -> String {
    let mut context: Vec<String> = frontier
        .held
        .iter()
        .map(|(k, v)| format!("{k} = {}", number(*v, 4)))
        .collect();
    context.extend(frontier.choices.iter().map(|(k, v)| {
        let values: Vec<String> = v.iter().map(|x| number(*x, 4)).collect();
        format!("{k} chosen from {}", values.join(", "))
    }));
    if let Some(t) = frontier.inference_tokens {
        context.push(format!("{} inference tokens (2·N·T FLOPs)", number(t, 3)));
    }
    let title = if frontier.goal == "target_loss" {
        "Least-compute allocation for a target loss"
    } else {
        "Compute-optimal allocation"
    };
    format!(
        "[[{title}]] {law}, FLOPs = {} ({}){}\n",
        frontier.flops,
        frontier.method,
        context.iter().map(|c| format!(", {c}")).collect::<String>()
    )
}

/// Where the intervals come from, or why there are none.
fn intervals_line(report: &OptimalDocument, wording: &dyn Wording) -> String {
    let frontier = &report.frontier;
    if let Some(level) = frontier.level {
        return format!(
            "    intervals: {}% percentiles over {} bootstrap replicates of the fit (the loss's: a confidence interval of the law's mean at the optimum)\n",
            level_percent(level),
            frontier.draws
        );
    }
    let (what, why) = match report.parameters {
        Parameters::Fitted => (
            "no bootstrap intervals of N*, D* and the mean loss",
            format!(
                "the fit has no bootstrap replicates (fit with {})",
                wording.word(&Setting::Bootstrap.number("K"))
            ),
        ),
        Parameters::Given => (
            "no intervals",
            "the parameters are given, not fitted".to_string(),
        ),
    };
    format!("    {what}: {why}\n")
}

/// Says what the "loss pi" column is, and whether (how) it is calibrated beyond the data.
pub fn prediction_note(note: &IntervalNote, at: &str) -> String {
    let source = match note.source {
        IntervalSource::None => {
            return "    loss pi: none (the fit has neither bootstrap replicates nor a covariance)\n"
                .into()
        }
        other => other.describe(),
    };
    let mut out = format!(
        "    loss pi: {}% prediction interval of a new run's loss at {at} ({source}); {}\n",
        level_percent(note.level),
        note.description
    );
    if note.calibrated {
        out.push_str("      fit's pi: the fit's own prediction interval there, not calibrated beyond the data\n");
    }
    out
}

/// The columns of the allocation table: the fixed ones, then those the frontier needs.
struct AllocationTable {
    with_ci: bool,
    with_pi: bool,
    calibrated: bool,
    total: bool,
    inference: bool,
    chosen: Vec<String>,
    cap: bool,
}

impl AllocationTable {
    fn new(frontier: &Frontier) -> AllocationTable {
        AllocationTable {
            with_ci: frontier.draws > 0,
            with_pi: frontier.allocations.iter().any(|a| a.pi.is_some()),
            calibrated: frontier.allocations.iter().any(|a| a.calibrated),
            total: frontier.total_params.is_some(),
            inference: frontier.inference_tokens.is_some(),
            chosen: frontier.choices.keys().cloned().collect(),
            cap: frontier.allocations.iter().any(|a| a.binding.is_some()),
        }
    }

    fn cell(&self, value: f64, ci: Option<&[f64; 2]>, digits: usize) -> String {
        match ci {
            Some([lo, hi]) if self.with_ci => format!(
                "{} [{}, {}]",
                number(value, digits),
                number(*lo, 3),
                number(*hi, 3)
            ),
            _ => number(value, digits),
        }
    }

    fn rows(&self, frontier: &Frontier, wording: &dyn Wording) -> Vec<Vec<String>> {
        let budget = if frontier.goal == "target_loss" {
            "compute C"
        } else {
            "budget C"
        };
        let mut header: Vec<String> = [budget, "N*", "D*", "D*/N*", "loss"]
            .map(String::from)
            .to_vec();
        if self.with_pi {
            header.push("loss pi".into());
        }
        if self.calibrated {
            header.extend(["decades out".into(), "regime".into(), "fit's pi".into()]);
        }
        header.extend(self.chosen.iter().map(|k| format!("{k}*")));
        if self.total {
            header.push("total params".into());
        }
        if self.inference {
            header.extend(["training FLOPs".into(), "inference FLOPs".into()]);
        }
        if self.cap {
            header.push("cap".into());
        }
        let mut rows = vec![header];
        rows.extend(frontier.allocations.iter().map(|a| self.row(a, wording)));
        rows
    }

    fn row(&self, a: &Allocation, wording: &dyn Wording) -> Vec<String> {
        let mut row = vec![
            self.cell(a.budget, a.ci.get("budget"), 4),
            self.cell(a.n, a.ci.get("N"), 4),
            self.cell(a.d, a.ci.get("D"), 4),
            self.cell(a.tokens_per_param, a.ci.get("tokens_per_param"), 4),
            self.cell(a.loss, a.ci.get("loss"), 5),
        ];
        if self.with_pi {
            row.push(interval(a.pi));
        }
        if self.calibrated {
            row.push(a.distance_decades.map_or("-".into(), |d| number(d, 3)));
            row.push(a.regime.map_or("-", regime_name).to_string());
            row.push(interval(a.pi_fit));
        }
        row.extend(
            self.chosen
                .iter()
                .map(|k| a.chosen.get(k).map_or("-".into(), |v| number(*v, 4))),
        );
        if self.total {
            row.push(a.total_params.map_or("-".into(), |t| number(t, 4)));
        }
        if self.inference {
            row.push(a.training_flops.map_or("-".into(), |f| number(f, 4)));
            row.push(a.inference_flops.map_or("-".into(), |f| number(f, 4)));
        }
        if self.cap {
            row.push(cap(a.binding.as_deref(), wording));
        }
        row
    }
}

/// The cap an allocation sits at, naming its setting in the front end's words: `total at
/// --max-params` (`max_params=` in Python); empty when none binds.
fn cap(binding: Option<&str>, wording: &dyn Wording) -> String {
    let (what, setting) = match binding {
        Some("max_params") => ("total", Setting::MaxParams),
        Some("max_active") => ("N", Setting::MaxActive),
        Some("max_tokens") => ("D", Setting::MaxTokens),
        _ => return String::new(),
    };
    format!("{what} at {}", wording.word(&setting.named()))
}

/// "[lo, hi]", or "-".
pub fn interval(pair: Option<[f64; 2]>) -> String {
    pair.map_or("-".into(), |[lo, hi]| {
        format!("[{}, {}]", number(lo, 4), number(hi, 4))
    })
}
