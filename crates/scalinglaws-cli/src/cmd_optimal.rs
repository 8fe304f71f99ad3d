//! `scalinglaws optimal`: the compute-optimal model size and token count of a saved fit (or of
//! a catalog law with published parameters) at one or more training budgets, or the cheapest
//! allocation that reaches a target loss; under caps on memory, active parameters and data, and
//! with expected inference tokens. Intervals come from the fit's bootstrap replicates when it
//! has them; over several budgets the exponents of the frontier are reported. From a fit, each
//! allocation's loss also gets the prediction interval of a new run there, calibrated beyond
//! the data by the fit's calibration (as in `predict`), the fit's own beside it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::{
    optimal, Allocation, AllocationSettings, Flops, Formula, Frontier,
};
use scalinglaws::fit::FitResult;
use scalinglaws::law::{catalog, Law};
use scalinglaws::uncertainty::{IntervalNote, IntervalSource};

use crate::cmd_compare_laws::LawSpec;
use crate::cmd_predict::load_fit;
use crate::config::{split_name, LawChoice};
use crate::input;
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws::job::allocation_from_fit;
use scalinglaws_report::text::{columns, level_percent, number};

/// Where the law and its parameters come from.
#[derive(Debug)]
pub enum Source {
    /// A fit written by `scalinglaws fit --json`.
    Fit(PathBuf),
    /// A catalog law with every parameter given: `chinchilla[E=1.82,A=482,...]`.
    Published(String),
}

#[derive(Debug)]
pub struct Config {
    pub source: Source,
    pub budgets: Vec<String>,
    pub target_losses: Vec<String>,
    pub flops: String,
    pub held: Vec<String>,
    pub total_params: Option<String>,
    pub max_params: Option<String>,
    pub max_active: Option<String>,
    pub max_tokens: Option<String>,
    pub inference_tokens: Option<String>,
    pub level: Option<f64>,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (law, params, fitted) = law_and_params(&config.source)?;
    let list = |option: &str, texts: &[String]| -> Result<Vec<f64>> {
        let mut values = Vec::new();
        for text in texts {
            values.extend(
                input::constant_list(text, text).with_context(|| format!("{option} '{text}'"))?,
            );
        }
        Ok(values)
    };
    let budgets = list("--budget", &config.budgets)?;
    let target_losses = list("--target-loss", &config.target_losses)?;
    if budgets.is_empty() == target_losses.is_empty() {
        return Err(input_error(
            "give the budgets to allocate (--budget C) or the losses to reach at least compute (--target-loss L), one of the two",
        ));
    }
    let one = |option: &str, text: &Option<String>| -> Result<Option<f64>> {
        text.as_deref()
            .map(|t| input::constant(t, t).with_context(|| format!("{option} '{t}'")))
            .transpose()
    };
    let held = held_values(&config.held)?;
    let mut allowed: Vec<&str> = vec!["N"];
    allowed.extend(held.keys().map(String::as_str));
    let total_params = match config.total_params.as_deref() {
        Some(text) => Some(
            Formula::parse(text, &allowed, "the total-parameters formula")
                .context("--total-params")?,
        ),
        None => None,
    };
    let settings = allocation_from_fit(
        AllocationSettings {
            budgets,
            target_losses,
            flops: Flops::parse(&config.flops).context("--flops")?,
            held,
            total_params,
            inference_tokens: one("--inference-tokens", &config.inference_tokens)?.unwrap_or(0.0),
            max_params: one("--max-params", &config.max_params)?,
            max_active: one("--max-active", &config.max_active)?,
            max_tokens: one("--max-tokens", &config.max_tokens)?,
            ..AllocationSettings::at_budgets(Vec::new())
        },
        fitted.as_ref(),
        config.level,
    );
    let mut frontier = optimal(&law, &params, &settings)?;
    if let Some(result) = &fitted {
        frontier.add_prediction_intervals(result, settings.level)?;
    }
    let text = render(&frontier, &law_label(&config.source, &law), &config.source);
    output::emit(
        config.json.as_ref(),
        || Ok(serde_json::to_string_pretty(&frontier)?),
        &text,
    )
}

/// The law, its parameters and the fit they come from (none for published parameters).
fn law_and_params(source: &Source) -> Result<(Law, Vec<f64>, Option<FitResult>)> {
    match source {
        Source::Fit(path) => {
            let (result, law) = load_fit(path)?;
            Ok((law, result.param_values(), Some(result)))
        }
        Source::Published(text) => {
            let spec = LawSpec::parse(text)?;
            let LawChoice::Catalog(name) = &spec.choice else {
                unreachable!("LawSpec::parse gives catalog laws");
            };
            let law = catalog::lookup(name).with_context(|| format!("--law '{text}'"))?;
            let params = law
                .values_by_name(&spec.fixed, &format!("--law '{text}'"))
                .map_err(|e| input_error(e.to_string()))?;
            Ok((law, params, None))
        }
    }
}

fn law_label(source: &Source, law: &Law) -> String {
    match source {
        Source::Fit(_) => law.label().to_string(),
        Source::Published(_) => format!("{} (given parameters)", law.label()),
    }
}

/// `--set VAR=V` or `--set VAR=V1,V2,...` (several values: optimised over).
pub fn held_values(texts: &[String]) -> Result<BTreeMap<String, Vec<f64>>> {
    let mut held = BTreeMap::new();
    for text in texts {
        let (name, values) = split_name("--set", text, "VAR=VALUE[,VALUE...], e.g. U=25e9")?;
        let values =
            input::constant_list(text, values).with_context(|| format!("--set '{text}'"))?;
        if held.insert(name.to_string(), values).is_some() {
            return Err(input_error(format!("--set: '{name}' is given twice")));
        }
    }
    Ok(held)
}

fn render(frontier: &Frontier, law: &str, source: &Source) -> String {
    let mut out = String::new();
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
    let target = frontier.goal == "target_loss";
    let _ = writeln!(
        out,
        "[[{}]] {law}, FLOPs = {} ({}){}",
        if target {
            "Least-compute allocation for a target loss"
        } else {
            "Compute-optimal allocation"
        },
        frontier.flops,
        frontier.method,
        context.iter().map(|c| format!(", {c}")).collect::<String>()
    );
    let table = AllocationTable::new(frontier);
    out.push_str(&columns(&table.rows(frontier), &[], "    "));
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
    match frontier.level {
        Some(level) => {
            let _ = writeln!(
                out,
                "    intervals: {}% percentiles over {} bootstrap replicates of the fit (the loss's: a confidence interval of the law's mean at the optimum)",
                level_percent(level),
                frontier.draws
            );
        }
        None => {
            let (what, why) = match source {
                Source::Fit(_) => (
                    "no bootstrap intervals of N*, D* and the mean loss",
                    "the fit has no bootstrap replicates (fit with --bootstrap K)",
                ),
                Source::Published(_) => ("no intervals", "the parameters are given, not fitted"),
            };
            let _ = writeln!(out, "    {what}: {why}");
        }
    }
    if let Some(note) = &frontier.prediction_intervals {
        out.push_str(&prediction_note(note, "(N*, D*)"));
    }
    out
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

    fn rows(&self, frontier: &Frontier) -> Vec<Vec<String>> {
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
            header.extend(["decades out".into(), "fit's pi".into()]);
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
        rows.extend(frontier.allocations.iter().map(|a| self.row(a)));
        rows
    }

    fn row(&self, a: &Allocation) -> Vec<String> {
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
            row.push(
                match a.binding.as_deref() {
                    Some("max_params") => "total at --max-params",
                    Some("max_active") => "N at --max-active",
                    Some("max_tokens") => "D at --max-tokens",
                    _ => "",
                }
                .into(),
            );
        }
        row
    }
}

/// "[lo, hi]", or "-".
pub fn interval(pair: Option<[f64; 2]>) -> String {
    pair.map_or("-".into(), |[lo, hi]| {
        format!("[{}, {}]", number(lo, 4), number(hi, 4))
    })
}
