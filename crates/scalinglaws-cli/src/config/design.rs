//! `design`'s configuration: the arguments as the library's `DesignJob` (the fit of the runs so
//! far, the candidate runs, the cost formula and the design's settings), and where its
//! report, JSON, CSV and picture go.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::Flops;
use scalinglaws::analysis::design::DesignSettings;
use scalinglaws::data::{Column, Dataset};
use scalinglaws::error::short_number;
use scalinglaws::job::design::{
    parse_goal, parse_prior, parse_ranges, simulations, CandidateSpace, DesignJob, PriorSpec,
    PER_DECADE, PRIOR_SD, TOKENS_PER_PARAM,
};
use scalinglaws::job::{FitJob, UncertaintySettings};

use super::plot::picture;
use super::{destination, law_choice, level, recipe, settings_config};
use crate::args::DesignArgs;
use crate::cmd_design;
use crate::figure;
use crate::input_error;
use crate::output::Destination;

pub fn design_config(args: DesignArgs) -> Result<cmd_design::Config> {
    let (json, csv, plot) = outputs(&args)?;
    let seed = args.settings.seed.unwrap_or(0);
    let level = level(args.level)?;
    let cost = Flops::parse(&args.cost).context("--cost")?;
    let settings = design_settings(&args, cost.clone(), level, seed)?;
    let candidates = candidate_space(&args)?;
    let noise = positive("--noise", args.noise, "0.01")?;
    let prior = prior(&args)?;
    let sweep = args.sweep.columns();
    let (path, delimiter, data) = match &prior {
        Some(_) if !sweep.is_empty() => return Err(input_error(
            "--sweep picks the frontier of the runs so far; with --prior there are none: drop one",
        )),
        Some(_) => (None, None, Default::default()),
        None => {
            let mut data = recipe(args.data)?;
            data.recipe.sweep = sweep;
            (Some(data.path), data.delimiter, data.recipe)
        }
    };
    let fit = FitJob {
        recipe: data,
        law: law_choice(args.law)?,
        // The design fits with the loss only (no likelihood family).
        settings: settings_config(args.settings, None)?,
        // The job calibrates the fit beyond the data itself (`DesignJob::run`).
        uncertainty: UncertaintySettings {
            bootstrap: None,
            level,
            seed,
            ..UncertaintySettings::default()
        },
        qc: Default::default(),
    };
    Ok(cmd_design::Config {
        path,
        delimiter,
        job: DesignJob {
            fit,
            prior,
            candidates,
            cost,
            noise,
            settings,
        },
        json,
        csv,
        plot,
    })
}

/// `--prior` (with `--prior-sd`): a design before any run, which reads no data; without it
/// the runs so far (DATA and --target) are required.
fn prior(args: &DesignArgs) -> Result<Option<PriorSpec>> {
    let data = &args.data;
    let Some(text) = &args.prior else {
        if data.data.is_none() || data.target.is_none() {
            return Err(input_error(
                "give the runs so far (DATA and --target COLUMN), or --prior NAME=VALUE,... for a design before any run",
            ));
        }
        return Ok(None);
    };
    let reads_data = data.data.is_some()
        || data.target.is_some()
        || !data.maps.is_empty()
        || !data.derives.is_empty()
        || !data.filters.is_empty()
        || data.weights.is_some()
        || data.delimiter.is_some();
    if reads_data {
        return Err(input_error(
            "--prior is for a design before any run, which reads no data: drop DATA and its options (--target, --map, --derive, --where, --weights, --delimiter), or drop --prior to design from the runs' fit",
        ));
    }
    if !args.settings.bounds.is_empty() || !args.settings.grids.is_empty() {
        return Err(input_error(
            "--bound and --grid shape a fit's search, and a design before any run fits nothing: drop them (--prior's ranges say where the parameters lie)",
        ));
    }
    let sd = args.prior_sd.unwrap_or(PRIOR_SD);
    if !(sd.is_finite() && sd > 0.0) {
        return Err(input_error(format!(
            "--prior-sd {}: give a positive number, e.g. --prior-sd {PRIOR_SD}",
            short_number(sd)
        )));
    }
    Ok(Some(PriorSpec {
        entries: parse_prior(text)?,
        sd,
    }))
}

type Outputs = (
    Option<Destination>,
    Option<Destination>,
    Option<figure::Output>,
);

/// `--json`, `--csv` and `--plot`, at most one of them on standard output.
fn outputs(args: &DesignArgs) -> Result<Outputs> {
    let json = destination(args.json.as_deref());
    let csv = args.csv.as_deref().map(|c| Destination::parse(c.trim()));
    let plot = args.plot.as_deref().map(picture);
    let on_stdout: Vec<&str> = [
        (json.as_ref(), "--json -"),
        (csv.as_ref(), "--csv -"),
        (plot.as_ref().map(|p| &p.destination), "--plot -"),
    ]
    .into_iter()
    .filter(|(d, _)| *d == Some(&Destination::Stdout))
    .map(|(_, option)| option)
    .collect();
    if on_stdout.len() > 1 {
        return Err(input_error(format!(
            "{} all write to standard output; send all but one of them to a file",
            on_stdout.join(" and ")
        )));
    }
    Ok((json, csv, plot))
}

/// The design's settings: the goals, the limits of the batch, the work of the choice and its
/// check, each checked as far as can be done without the data.
fn design_settings(
    args: &DesignArgs,
    flops: Flops,
    level: f64,
    seed: u64,
) -> Result<DesignSettings> {
    if args.runs == 0 {
        return Err(input_error(
            "--runs 0: a batch has at least 1 run, e.g. --runs 8",
        ));
    }
    if args.draws == 0 {
        return Err(input_error(
            "--draws 0: give at least 1 parameter draw (1: the current estimate only), e.g. --draws 32",
        ));
    }
    if args.sequential == 0 {
        return Err(input_error(
            "--sequential 0: give at least 1 round (1: this batch only)",
        ));
    }
    let targets = args
        .goals
        .iter()
        .map(|goal| parse_goal(goal).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    Ok(DesignSettings {
        targets,
        runs: args.runs,
        spend: positive("--spend", args.spend, "1e21")?,
        flops,
        draws: args.draws,
        simulations: simulations(args.simulations, args.prior.is_some())?,
        rounds: args.sequential,
        level,
        seed,
    })
}

/// `--candidates` (a grid, shaped by `--per-decade`, `--tokens-per-param` and `--max-cost`)
/// or `--candidates-file` (a list); clap makes sure exactly one is given.
fn candidate_space(args: &DesignArgs) -> Result<CandidateSpace> {
    if let Some(path) = &args.candidates_file {
        return Ok(CandidateSpace::List(candidate_list(path)?));
    }
    let ranges = parse_ranges(args.candidates.as_deref().unwrap_or_default())?;
    // The library checks the count (design's one rule).
    let per_decade = args.per_decade.unwrap_or(PER_DECADE);
    Ok(CandidateSpace::Grid {
        ranges,
        per_decade,
        tokens_per_param: tokens_per_param(args.tokens_per_param.as_deref())?,
        max_cost: positive("--max-cost", args.max_cost, "1e20")?,
    })
}

/// `--tokens-per-param LOW..HIGH` (None: `any`).
fn tokens_per_param(text: Option<&str>) -> Result<Option<[f64; 2]>> {
    let Some(text) = text.map(str::trim) else {
        return Ok(Some(TOKENS_PER_PARAM));
    };
    if text.eq_ignore_ascii_case("any") {
        return Ok(None);
    }
    let bad = || {
        input_error(format!(
            "--tokens-per-param '{text}': write LOW..HIGH with 0 < LOW <= HIGH, e.g. 2..500, or any"
        ))
    };
    let (low, high) = text.split_once("..").ok_or_else(bad)?;
    let number = |s: &str| {
        s.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0)
    };
    match (number(low), number(high)) {
        (Some(low), Some(high)) if low <= high => Ok(Some([low, high])),
        _ => Err(bad()),
    }
}

/// The runs of `--candidates-file`: each row a candidate, each numeric column a variable
/// (the law takes the ones it names; text columns, such as a run's name, are left out).
fn candidate_list(path: &Path) -> Result<Vec<BTreeMap<String, f64>>> {
    if path == Path::new("-") {
        return Err(input_error(
            "--candidates-file -: give the candidates as a file (CSV, TSV or JSON Lines)",
        ));
    }
    let dataset = Dataset::read(path, None).context("--candidates-file")?;
    let mut columns = Vec::new();
    for name in dataset.column_names() {
        let Ok(Column::Numeric(values)) = dataset.column(name) else {
            continue;
        };
        // N and D are a run's size and tokens; another variable (a track coded 0/1) may be
        // any finite number.
        let positive = name == "N" || name == "D";
        if let Some(row) = values
            .iter()
            .position(|v| !(v.is_finite() && (!positive || *v > 0.0)))
        {
            let need = if positive { "positive" } else { "finite" };
            return Err(input_error(format!(
                "--candidates-file '{}', row {}, column '{name}': {} is not {need}; a candidate run's N and D are positive numbers, its other variables finite",
                path.display(),
                row + 1,
                values[row]
            )));
        }
        columns.push((name.clone(), values.clone()));
    }
    if dataset.n_rows() == 0 || columns.is_empty() {
        return Err(input_error(format!(
            "--candidates-file '{}': no candidate runs; give a numeric column per law variable and a row per run",
            path.display()
        )));
    }
    Ok((0..dataset.n_rows())
        .map(|row| {
            columns
                .iter()
                .map(|(name, values)| (name.clone(), values[row]))
                .collect()
        })
        .collect())
}

/// An optional value that must be positive and finite when given.
fn positive(option: &str, value: Option<f64>, example: &str) -> Result<Option<f64>> {
    match value {
        Some(v) if !(v.is_finite() && v > 0.0) => Err(input_error(format!(
            "{option} {}: give a positive number, e.g. {option} {example}",
            short_number(v)
        ))),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help of `--per-decade` and `--tokens-per-param` states these defaults.
    #[test]
    fn the_documented_grid_defaults_are_the_library_s() {
        assert_eq!(PER_DECADE, 8);
        assert_eq!(TOKENS_PER_PARAM, [2.0, 500.0]);
    }

    #[test]
    fn tokens_per_param_reads_a_range_or_any() {
        assert_eq!(tokens_per_param(None).unwrap(), Some(TOKENS_PER_PARAM));
        assert_eq!(tokens_per_param(Some("any")).unwrap(), None);
        assert_eq!(
            tokens_per_param(Some(" 10..100 ")).unwrap(),
            Some([10.0, 100.0])
        );
        for bad in ["10", "100..10", "0..5", "a..b"] {
            let message = tokens_per_param(Some(bad)).unwrap_err().to_string();
            assert!(message.contains("--tokens-per-param"), "{message}");
        }
    }
}
