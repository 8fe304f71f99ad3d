//! The work target: the input is a combination of options, and the property fuzzed is the work
//! model's ([`scalinglaws::work`]): a job the budget lets run finishes within its estimate.
//! The input is JSON: `{"job": "fit"|"groups"|"compare"|"isoflop", "rows": R, "tracks": K,
//! "groups": [COLUMN...], "fit": {a fit request, as Python sends it}, "compare": {a compare
//! job}, "isoflop": {an isoflop job}}`; an input that is not such JSON is read as bytes, each
//! choosing one option's value from a list (see [`choices`]). A synthetic table of R rows (at most [`MAX_ROWS`]: the
//! data is not an option) is built, the job is run under a budget of [`BUDGET`] core-seconds,
//! and a run that the budget allowed (its estimate was at most the budget) must take at most
//! [`MARGIN`] times the budget plus [`SLACK`] seconds of CPU (Linux: measured from
//! `/proc/self/stat`), or the target panics, which the driver records as a failure; memory past the driver's limit is
//! its failure too. A job refused by the budget is a fine answer; so is any other error. (How
//! tight the estimates are is `scalinglaws-cli`'s `tests/measured/work_cli.rs`'s to check.)

use std::collections::BTreeMap;

use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::data::{Column, Dataset};
use scalinglaws::job::fit::{FitJob, FitRequest};
use scalinglaws::job::groups::GroupedFitJob;
use scalinglaws::workflow::compare::{CompareJob, CompareSpec};
use scalinglaws::workflow::isoflop::IsoflopJob;
use scalinglaws::Error;
use serde::Deserialize;
use serde_json::{json, Value};

use super::text;
use crate::Signature;

/// The budget every job runs under, in estimated core-seconds (small, so each input is quick).
pub const BUDGET: f64 = 1.0;
/// How far over the budget an allowed run's CPU time may go: the estimate bounds a run's work,
/// but on two or more threads rayon's workers spin between tasks as short as these (a batch
/// of twelve 5-row grouped fits measured 0.5 CPU seconds on one thread, 1.64 on two).
/// A run past it is a work model that missed a factor, not noise.
pub const MARGIN: f64 = 2.0;
/// CPU seconds a run may take beyond that (a pool's start-up, clock ticks).
pub const SLACK: f64 = 0.15;
/// Most rows of the synthetic table.
pub const MAX_ROWS: usize = 4000;

/// Words worth splicing into this target's JSON inputs.
pub const DICTIONARY: &[&str] = &[
    "\"bootstrap\": ",
    "\"profile\": [\"alpha\"]",
    "\"grid\": {\"alpha\": [0.1, 0.3, 0.5]}",
    "\"formula\": \"E + A*N^-a + B*D^-b + C*N^-c\"",
    "\"shared\": [\"E\", \"alpha\", \"beta\"]",
    "\"envelope\": \"grid:100000\"",
    "\"rows\": ",
    "\"tracks\": ",
    "\"calibrate\": false",
    "\"by\": \"group\"",
    "\"cluster\": \"run\"",
    "\"threads\": ",
    "1000",
    "100000",
];

#[derive(Debug, Deserialize)]
struct Input {
    job: String,
    #[serde(default = "default_rows")]
    rows: usize,
    #[serde(default = "one")]
    tracks: usize,
    #[serde(default)]
    groups: Vec<String>,
    fit: Option<FitRequest>,
    compare: Option<CompareJob>,
    isoflop: Option<IsoflopJob>,
}

fn default_rows() -> usize {
    40
}

fn one() -> usize {
    1
}

pub fn run(input: &[u8]) -> Signature {
    let text = text(input).unwrap_or("");
    // JSON when it reads as JSON; any other bytes are read as a list of choices.
    let input: Input = match serde_json::from_str(text) {
        Ok(input) => input,
        Err(_) => match serde_json::from_value(choices(input)) {
            Ok(input) => input,
            Err(_) => return Signature::tag("choices not an input"),
        },
    };
    let dataset = match synthetic_dataset(input.rows.min(MAX_ROWS), input.tracks) {
        Ok(dataset) => dataset,
        Err(error) => return Signature::of_error("table", &error),
    };
    let job = input.job.clone();
    let outcome = measured(|| run_job(&input, &dataset));
    let signature = Signature::tag(&job);
    match outcome {
        None => signature.then(Signature::tag("no such job or missing options")),
        Some(Ok(())) => signature.then(Signature::tag("ran")),
        Some(Err(error)) => signature.then(Signature::of_error("run", &error)),
    }
}

/// Bytes read as choices of the options that multiply work (each byte picks one option's value
/// from a list that spans its range; missing bytes are zeros): every input is a valid
/// combination, so mutations explore combinations rather than JSON syntax.
fn choices(bytes: &[u8]) -> Value {
    let byte = |i: usize| bytes.get(i).copied().unwrap_or(0) as usize;
    let pick = |i: usize, values: &[Value]| values[byte(i) % values.len()].clone();
    let job = pick(0, &["fit", "groups", "compare", "isoflop"].map(Value::from));
    // Mostly a few hundred rows, at times thousands.
    let rows = (4 + byte(1) * if byte(2) % 8 == 0 { 16 } else { 1 }).min(MAX_ROWS);
    let formulas = [
        json!({"law": "chinchilla"}),
        json!({"formula": "E + A*N^-alpha"}),
        json!({"formula": "E + A*N^-alpha + B*D^-beta + G*(N*D)^-gamma"}),
        json!({"formula": "E + A*N^-alpha + B*D^-beta + G*N^-gamma + H*D^-eta"}),
        json!({"formula": "E + A*N^-alpha + B*D^-beta + G*N^-gamma + H*D^-eta + K*(N/D)^-kappa"}),
    ];
    let mut fit = pick(6, &formulas);
    let bootstrap = pick(4, &[0, 0, 20, 50, 100, 400, 2000, 100_000].map(Value::from));
    let per_group = job == "groups";
    let profiles = match per_group {
        true => json!([]),
        false => pick(
            5,
            &[
                json!([]),
                json!(["alpha"]),
                json!(["E", "A"]),
                json!(["alpha", "E"]),
            ],
        ),
    };
    let grid = pick(
        8,
        &[
            json!({}),
            json!({"alpha": [0.2, 0.4]}),
            json!({"alpha": grid(20)}),
            json!({"alpha": grid(1000)}),
        ],
    );
    let loss = pick(
        7,
        &["huber", "linear", "soft_l1", "cauchy", "arctan"].map(Value::from),
    );
    let extra = json!({
        "target": "loss", "bootstrap": bootstrap, "profile": profiles, "grid": grid, "loss": loss,
        "calibrate": !per_group && byte(9) % 2 == 0, "threads": pick(10, &[Value::Null, json!(1), json!(2)]),
        "cluster": if per_group { Value::Null } else { pick(11, &[Value::Null, json!("run"), json!("group")]) },
        "by": if per_group { Value::Null } else { pick(12, &[Value::Null, json!("C"), json!("group")]) },
    });
    merge(&mut fit, extra);
    let shared = pick(
        13,
        &[
            json!([]),
            json!(["E"]),
            json!(["E", "alpha", "beta"]),
            json!(["alpha", "beta"]),
        ],
    );
    let envelope = pick(
        14,
        &[
            Value::Null,
            json!("hull"),
            json!("grid:10"),
            json!("grid:1000"),
            json!("grid:100000"),
            json!("grid:1000000"),
        ],
    );
    json!({
        "job": job, "rows": rows, "tracks": 1 + byte(3) % 16,
        "groups": pick(15, &[json!(["group"]), json!(["run"]), json!(["track"]), json!([])]),
        "fit": fit,
        "compare": {"track": "track", "shared": shared, "flops": "6*N*D", "budgets": [1e21],
            "grid": byte(16) % 2 == 1, "bootstrap": bootstrap, "level": 0.95,
            "cell_tolerance": 0.01, "calibrate": byte(9) % 2 == 0},
        "isoflop": {"compute": "C", "size": "N", "tokens": "D", "run": "run", "envelope": envelope,
            "shape": pick(17, &["auto", "parabola", "cubic"].map(Value::from)),
            "tolerance": 0.05, "bootstrap": pick(18, &[0, 20, 200, 1000].map(Value::from)),
            "level": 0.95, "calibrate": byte(9) % 2 == 0, "budgets": [1e22],
            "backtest": pick(19, &[Value::Null, json!(1), json!(2)])},
    })
}

/// `count` values from 0.05 to 0.95.
fn grid(count: usize) -> Vec<f64> {
    (0..count)
        .map(|i| 0.05 + 0.9 * i as f64 / (count - 1) as f64)
        .collect()
}

/// Adds `extra`'s keys to the object `into`.
fn merge(into: &mut Value, extra: Value) {
    if let (Value::Object(into), Value::Object(extra)) = (into, extra) {
        into.extend(extra);
    }
}

/// Runs the job the input names on the table prepared with its recipe; `None` when it names
/// none, or lacks its options.
fn run_job(input: &Input, dataset: &Dataset) -> Option<Result<(), Error>> {
    let fit = || {
        input
            .fit
            .clone()
            .map(FitJob::try_from)
            .map(|job| job.map(with_budget))
    };
    Some(match input.job.as_str() {
        "fit" => fit()?.and_then(|job| {
            let table = Table::prepare(dataset.clone(), &job.recipe)?;
            job.run(&table, &|_| {}).map(drop)
        }),
        "groups" => fit()?.and_then(|fit| {
            let table = Table::prepare(dataset.clone(), &fit.recipe)?;
            let job = GroupedFitJob {
                fit,
                groups: input.groups.clone(),
            };
            job.run(&table, &|_, _| {}).map(drop)
        }),
        "compare" => {
            let job = input.compare.clone()?;
            fit()?.and_then(|fit| {
                let table = Table::prepare(dataset.clone(), &fit.recipe)?;
                let spec = CompareSpec {
                    recipe: fit.recipe,
                    law: fit.law,
                    settings: fit.settings,
                    job,
                };
                spec.run(&table).map(drop)
            })
        }
        "isoflop" => {
            let mut job = input.isoflop.clone()?;
            job.max_work = BUDGET;
            Table::prepare(dataset.clone(), &loss_recipe())
                .and_then(|table| job.run(&table, "loss").map(drop))
        }
        _ => return None,
    })
}

fn with_budget(mut job: FitJob) -> FitJob {
    job.settings.settings.max_work = BUDGET;
    job
}

fn loss_recipe() -> Recipe {
    Recipe {
        target: "loss".into(),
        ..Recipe::default()
    }
}

/// Runs `job` and checks that a run the budget allowed took at most [`MARGIN`] times the
/// budget of CPU time.
fn measured(job: impl FnOnce() -> Option<Result<(), Error>>) -> Option<Result<(), Error>> {
    let before = cpu_seconds();
    let outcome = job()?;
    let spent = cpu_seconds()
        .zip(before)
        .map(|(after, before)| after - before);
    if let (Ok(()), Some(spent)) = (&outcome, spent) {
        assert!(
            spent <= MARGIN * BUDGET + SLACK,
            "the work model under-estimated a run: {spent:.3} CPU seconds spent under a \
             budget of {BUDGET} core-seconds ({MARGIN}× it +{SLACK} allowed)"
        );
    }
    Some(outcome)
}

/// The process's CPU time (user + system, every thread) on Linux; `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) close with ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are the 14th and 15th fields, 12th and 13th after the name and state.
    let ticks = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // The kernel reports /proc times in USER_HZ, 100 on every Linux ABI.
    Some(ticks / 100.0)
}

/// `rows` checkpoints of a Chinchilla-like law (columns `N`, `D`, `C`, `loss`; `track` with
/// `tracks` labels, `group` with 4, `run` naming each model): the first 36 rows are 9 models at
/// each of 4 compute budgets, each further 36 the same models' later checkpoints at twice the
/// tokens; deterministic noise of about 1 %.
fn synthetic_dataset(rows: usize, tracks: usize) -> Result<Dataset, Error> {
    let tracks = tracks.clamp(1, rows.max(1));
    let mut columns: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let (mut track, mut group, mut run) = (Vec::new(), Vec::new(), Vec::new());
    for row in 0..rows {
        let (model, budget_index, checkpoint) = ((row / 4) % 9, row % 4, row / 36);
        let budget = [1e17, 1e18, 1e19, 1e20][budget_index];
        let n = 1e7 * 10f64.powf(model as f64 * 0.25 + budget_index as f64 * 0.5);
        let d = budget / (6.0 * n) * 2f64.powi(checkpoint.min(60) as i32);
        let k = row % tracks;
        let noise = 1.0 + 0.01 * (hash(row as u64) - 0.5);
        let loss =
            (1.7 + 400.0 * (1.0 + 0.1 * k as f64) / n.powf(0.34) + 410.0 / d.powf(0.28)) * noise;
        for (name, value) in [("N", n), ("D", d), ("C", 6.0 * n * d), ("loss", loss)] {
            columns.entry(name).or_default().push(value);
        }
        track.push(format!("t{k}"));
        group.push(format!("g{}", row % 4));
        run.push(format!("m{model}b{budget_index}"));
    }
    let mut all: Vec<(String, Column)> = columns
        .into_iter()
        .map(|(name, values)| (name.to_string(), Column::Numeric(values)))
        .collect();
    all.push(("track".into(), Column::Text(track)));
    all.push(("group".into(), Column::Text(group)));
    all.push(("run".into(), Column::Text(run)));
    Dataset::from_columns("synthetic", all)
}

/// A deterministic number in [0, 1) from `x` (splitmix64).
fn hash(x: u64) -> f64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as f64 / u64::MAX as f64
}
