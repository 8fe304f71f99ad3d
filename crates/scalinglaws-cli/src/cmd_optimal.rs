//! `scalinglaws optimal`: the compute-optimal model size and token count of a saved fit at one
//! or more training budgets, with intervals from the fit's bootstrap replicates when it has
//! them, and over several budgets the exponents of the frontier.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::{optimal, AllocationSettings, Flops, Frontier};

use crate::cmd_predict::load_fit;
use crate::input;
use crate::output::{self, Destination};
use crate::report::{columns, level_percent, number};
use crate::{input_error, split_name};

#[derive(Debug)]
pub struct Config {
    pub fit: PathBuf,
    pub budgets: Vec<String>,
    pub flops: String,
    pub held: Vec<String>,
    pub max_params: Option<String>,
    pub max_tokens: Option<String>,
    pub level: Option<f64>,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (result, law) = load_fit(&config.fit)?;
    let mut budgets = Vec::new();
    for text in &config.budgets {
        budgets.extend(
            input::constant_list(text, text).with_context(|| format!("--budget '{text}'"))?,
        );
    }
    let flops = Flops::parse(&config.flops).context("--flops")?;
    let mut held = BTreeMap::new();
    for text in &config.held {
        let (name, value) = split_name("--set", text, "VAR=VALUE, e.g. U=25e9")?;
        let value = input::constant(text, value).with_context(|| format!("--set '{text}'"))?;
        if held.insert(name.to_string(), value).is_some() {
            return Err(input_error(format!("--set: '{name}' is given twice")));
        }
    }
    let cap = |option: &str, text: &Option<String>| -> Result<Option<f64>> {
        text.as_deref()
            .map(|t| input::constant(t, t).with_context(|| format!("{option} '{t}'")))
            .transpose()
    };
    let max_params = cap("--max-params", &config.max_params)?;
    let max_tokens = cap("--max-tokens", &config.max_tokens)?;
    let bootstrap = result.bootstrap.as_ref();
    let settings = AllocationSettings {
        budgets,
        flops,
        held,
        draws: bootstrap.map(|b| b.draws.clone()).unwrap_or_default(),
        level: config
            .level
            .or_else(|| bootstrap.map(|b| b.level))
            .unwrap_or(0.95),
        max_params,
        max_tokens,
    };
    let frontier = optimal(&law, &result.param_values(), &settings)?;
    let text = render(&frontier, &result.law);
    output::emit(
        config.json.as_ref(),
        || Ok(serde_json::to_string_pretty(&frontier)?),
        &text,
    )
}

fn render(frontier: &Frontier, law: &str) -> String {
    let mut out = String::new();
    let held: Vec<String> = frontier
        .held
        .iter()
        .map(|(k, v)| format!("{k} = {}", number(*v, 4)))
        .collect();
    let _ = writeln!(
        out,
        "[[Compute-optimal allocation]] {law}, FLOPs = {} ({}){}",
        frontier.flops,
        frontier.method,
        if held.is_empty() {
            String::new()
        } else {
            format!(", {}", held.join(", "))
        }
    );
    let with_ci = frontier.draws > 0;
    let cell = |value: f64, ci: Option<&[f64; 2]>, digits: usize| match ci {
        Some([lo, hi]) if with_ci => format!(
            "{} [{}, {}]",
            number(value, digits),
            number(*lo, 3),
            number(*hi, 3)
        ),
        _ => number(value, digits),
    };
    let mut rows: Vec<Vec<String>> = vec![["budget C", "N*", "D*", "D*/N*", "loss", "cap"]
        .map(String::from)
        .to_vec()];
    for a in &frontier.allocations {
        rows.push(vec![
            number(a.budget, 3),
            cell(a.n, a.ci.get("N"), 4),
            cell(a.d, a.ci.get("D"), 4),
            cell(a.tokens_per_param, a.ci.get("tokens_per_param"), 4),
            cell(a.loss, a.ci.get("loss"), 5),
            match a.binding.as_deref() {
                Some("max_params") => "N at --max-params".into(),
                Some("max_tokens") => "D at --max-tokens".into(),
                _ => String::new(),
            },
        ]);
    }
    // The cap column only when a cap binds somewhere.
    if frontier.allocations.iter().all(|a| a.binding.is_none()) {
        rows.iter_mut().for_each(|row| {
            row.pop();
        });
    }
    out.push_str(&columns(&rows, &[], "    "));
    if let Some(e) = &frontier.exponents {
        let _ = writeln!(
            out,
            "    exponents: N* ∝ C^{}, D* ∝ C^{}",
            cell(e.a, e.ci.get("a"), 4),
            cell(e.b, e.ci.get("b"), 4)
        );
    }
    match frontier.level {
        Some(level) => {
            let _ = writeln!(
                out,
                "    intervals: {}% percentiles over {} bootstrap replicates of the fit",
                level_percent(level),
                frontier.draws
            );
        }
        None => {
            let _ = writeln!(
                out,
                "    no intervals: the fit has no bootstrap replicates (fit with --bootstrap K)"
            );
        }
    }
    out
}
