//! Constant learning rate with cooldowns (issue 26, point 4): from one constant run and its
//! two-stage branches (`constant_24000` and `wsdcon_3/9/18` of the multi-power law's data, Luo
//! et al. 2025, arXiv:2503.12811, testdata/multipower_law, MIT), predict the final loss of the
//! held-out cooldowns `wsd_20000_24000` (exponential decay to 3e-5 over steps 20000–24000) and
//! `wsdld_20000_24000` (linear decay), read as `schedule fit --warmup 2160` reads them.
//!
//! The protocol: the law is chosen on the training runs alone, by leave-one-branch-out (fit on
//! `constant_24000` and two of the `wsdcon_*` runs, predict the third's final loss; the law
//! with the smallest mean absolute error over the 3 branches and 3 sizes wins), among the
//! library's laws with an annealing term (`multi_power`, `lr_annealing`). Then the held-out
//! final losses are reported once, for both laws, the chosen one marked.
//!
//! `cooldown_study_table` (an experiment:
//! `cargo run --release -p scalinglaws --example schedule_tables -- cooldown_study`) writes `bench/results/cooldown_study.md`, whose numbers the README quotes;
//! the fast test recomputes the 400M held-out rows of the chosen law and checks the file.

use crate::common;

use std::fmt::Write as _;

use scalinglaws::analysis::schedule::cooldown::{
    final_losses_of, leave_one_out, study, FinalLoss, StudySettings,
};
use scalinglaws::analysis::schedule::{fit_curves, Curve, CurveLaw};

const SIZES: [&str; 3] = ["25", "100", "400"];
const BASE: &str = "constant_24000";
const BRANCHES: [&str; 3] = ["wsdcon_3", "wsdcon_9", "wsdcon_18"];
const HELD_OUT: [&str; 2] = ["wsd_20000_24000", "wsdld_20000_24000"];
const CANDIDATES: [CurveLaw; 2] = [CurveLaw::MultiPower, CurveLaw::LrAnnealing];
/// The acceptance: |predicted − logged| final loss of each held-out cooldown.
const GOAL: f64 = 0.005;
const RESULTS: &str = "bench/results/cooldown_study.md";

fn train_set() -> Vec<String> {
    std::iter::once(BASE)
        .chain(BRANCHES)
        .map(String::from)
        .collect()
}

/// The held-out cooldowns' final losses under `law` fitted on the constant run and its
/// branches.
fn held_out(law: CurveLaw, curves: &[Curve]) -> Vec<FinalLoss> {
    let fit = fit_curves(law, curves, &train_set(), &[]).unwrap();
    let held: Vec<Curve> = curves
        .iter()
        .filter(|c| HELD_OUT.contains(&c.run.as_str()))
        .cloned()
        .collect();
    final_losses_of(&fit, &held)
}

/// `| size | law | run | logged | predicted | error |`.
fn final_row(size: &str, law: CurveLaw, f: &FinalLoss) -> String {
    format!(
        "| {size} | {} | {} | {:.4} | {:.4} | {:+.4} |",
        law.name(),
        f.run,
        f.logged,
        f.predicted,
        f.error
    )
}

/// The recorded (logged, predicted, error) of the row `| size | law | run |`.
fn recorded(hay: &str, size: &str, law: CurveLaw, run: &str) -> Option<[f64; 3]> {
    let prefix = format!("| {size} | {} | {run} |", law.name());
    let line = hay.lines().find(|l| l.starts_with(&prefix))?;
    let v: Vec<f64> = line[prefix.len()..]
        .split('|')
        .filter(|c| !c.trim().is_empty())
        .map(|c| c.trim().parse().unwrap())
        .collect();
    Some([v[0], v[1], v[2]])
}

/// The law the file names as chosen by leave-one-out.
fn recorded_choice(hay: &str) -> CurveLaw {
    let line = hay
        .lines()
        .find(|l| l.starts_with("Chosen law: "))
        .expect("a 'Chosen law:' line");
    let name = line["Chosen law: ".len()..]
        .trim()
        .trim_matches('`')
        .split('`')
        .next()
        .unwrap();
    CurveLaw::from_name(name).unwrap()
}

#[test]
fn held_out_cooldowns_at_400m_match_the_recorded_table() {
    let results = std::fs::read_to_string(common::root().join(RESULTS))
        .unwrap_or_else(|e| panic!("{RESULTS}: {e}"));
    let law = recorded_choice(&results);
    let curves = common::multi_power_curves("400");
    for f in held_out(law, &curves) {
        let line = final_row("400", law, &f);
        println!("{line}");
        let got = recorded(&results, "400", law, &f.run).unwrap_or_else(|| {
            panic!(
                "{RESULTS} has no row for {}: rerun its experiment (examples/schedule_tables.rs)",
                f.run
            )
        });
        for (g, w) in got.iter().zip([f.logged, f.predicted, f.error]) {
            assert!(
                (g - w).abs() <= 2e-4,
                "{}: {RESULTS} records {g}, the fit gives {w}: rerun its experiment (examples/schedule_tables.rs)",
                f.run
            );
        }
        let met = results.contains(&format!("400M {}: met", f.run));
        assert_eq!(
            met,
            f.error.abs() <= GOAL,
            "the verdict of {} disagrees with its error {}",
            f.run,
            f.error
        );
    }
}

/// Writes bench/results/cooldown_study.md (about 30 fits, a minute in release).
// An experiment, not a test: run by this crate's `examples/schedule_tables.rs`.
#[allow(dead_code)]
pub fn cooldown_study_table() {
    let curves: Vec<Vec<Curve>> = SIZES
        .iter()
        .map(|s| common::multi_power_curves(s))
        .collect();
    let mut out = String::from(
        "# Constant LR with cooldowns: the held-out cooldowns' final losses\n\n\
         Written by `cargo run --release -p scalinglaws --example schedule_tables -- cooldown_study`.\n\
         Fitted on `constant_24000` + `wsdcon_3` + `wsdcon_9` + `wsdcon_18` (two-stage runs: the peak\n\
         3e-4 to step 8000, then a constant 3e-5, 9e-5 or 1.8e-4), read with `--warmup 2160`.\n\n",
    );
    let choice = choose_law(&curves, &mut out);
    let _ = writeln!(out, "Chosen law: `{}`\n", choice.name());
    out.push_str("## Held-out cooldowns (predicted − logged final loss; goal: within 0.005)\n\n");
    out.push_str(
        "| size | law | run | logged | predicted | error |\n|---|---|---|---:|---:|---:|\n",
    );
    let mut verdicts = Vec::new();
    for (size, c) in SIZES.iter().zip(&curves) {
        for law in CANDIDATES {
            for f in held_out(law, c) {
                out.push_str(&final_row(size, law, &f));
                out.push('\n');
                if law == choice {
                    let met = if f.error.abs() <= GOAL {
                        "met"
                    } else {
                        "missed"
                    };
                    verdicts.push(format!("- {size}M {}: {met} ({:+.4})", f.run, f.error));
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "\nVerdicts of the chosen law:\n\n{}\n",
        verdicts.join("\n")
    );
    diagnosis(&curves, &mut out);
    power_variant(&curves, &mut out);
    study_tables(&curves, choice, &mut out);
    print!("{out}");
    std::fs::write(common::root().join(RESULTS), out).unwrap();
}

/// Leave-one-branch-out per candidate and size; returns the law with the smallest mean
/// absolute error over every branch and size.
fn choose_law(curves: &[Vec<Curve>], out: &mut String) -> CurveLaw {
    out.push_str(
        "## Choosing the law on the training runs: leave one `wsdcon_*` branch out\n\n\
         | law | size | wsdcon_3 | wsdcon_9 | wsdcon_18 | mean abs |\n|---|---|---:|---:|---:|---:|\n",
    );
    let base = vec![BASE.to_string()];
    let branches: Vec<String> = BRANCHES.iter().map(|s| s.to_string()).collect();
    let mut best = (f64::INFINITY, CANDIDATES[0]);
    for law in CANDIDATES {
        let mut all = Vec::new();
        for (size, c) in SIZES.iter().zip(curves) {
            let errors: Vec<f64> = leave_one_out(law, c, &base, &branches)
                .unwrap()
                .iter()
                .map(|f| f.error)
                .collect();
            let mean = errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64;
            let _ = writeln!(
                out,
                "| {} | {size} | {:+.4} | {:+.4} | {:+.4} | {mean:.4} |",
                law.name(),
                errors[0],
                errors[1],
                errors[2]
            );
            all.extend(errors);
        }
        let mean = all.iter().map(|e| e.abs()).sum::<f64>() / all.len() as f64;
        let _ = writeln!(out, "| {} | all | | | | {mean:.4} |", law.name());
        if mean < best.0 {
            best = (mean, law);
        }
    }
    out.push('\n');
    best.1
}

/// Why the multi-power fit misses: the same law with the held-out `wsd_20000_24000` added to
/// its training runs (a diagnostic, not a method), and with the constant run and it alone.
fn diagnosis(curves: &[Vec<Curve>], out: &mut String) {
    out.push_str(
        "## Diagnosis (not a method: these fits read a held-out run)\n\n\
         Final-loss error (predicted − logged) of `wsd_20000_24000` and `wsdcon_3` under\n\
         `multi_power` fitted on each training set:\n\n\
         | size | training runs | wsd_20000_24000 | wsdcon_3 | C | gamma |\n|---|---|---:|---:|---:|---:|\n",
    );
    let sets: [&[&str]; 3] = [
        &[BASE, "wsdcon_3", "wsdcon_9", "wsdcon_18"],
        &[BASE, "wsdcon_3", "wsdcon_9", "wsdcon_18", "wsd_20000_24000"],
        &[BASE, "wsd_20000_24000"],
    ];
    for (size, c) in SIZES.iter().zip(curves) {
        for set in sets {
            let train: Vec<String> = set.iter().map(|s| s.to_string()).collect();
            let fit = fit_curves(CurveLaw::MultiPower, c, &train, &[]).unwrap();
            let finals = final_losses_of(&fit, c);
            let error = |run: &str| finals.iter().find(|f| f.run == run).unwrap().error;
            let p = fit.values();
            let _ = writeln!(
                out,
                "| {size} | {} | {:+.4} | {:+.4} | {:.4} | {:.4} |",
                set.join(" + "),
                error("wsd_20000_24000"),
                error("wsdcon_3"),
                p[4],
                p[6]
            );
        }
    }
    out.push('\n');
}

/// Constant + 20 % linear cooldown against cosine (final = peak/10) at the default computes,
/// under the chosen law fitted on the training runs (no intervals: the bootstrap is not wired
/// in this test).
fn study_tables(curves: &[Vec<Curve>], law: CurveLaw, out: &mut String) {
    out.push_str(
        "## Constant + 20 % linear cooldown vs cosine (final = peak/10), chosen law\n\n\
         | size | steps | cooldown from | constant | constant + cooldown | cosine | difference |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut check = String::from(
        "\nThe study's difference against the logged runs at 24,000 steps: `wsdld_20000_24000`\n\
         (constant, then a linear cooldown to 3e-5 over the last 4000 steps, 17 %) minus\n\
         `cosine_24000`, each at its last logged step, logged and predicted by the same fit:\n\n\
         | size | logged difference | predicted difference |\n|---|---:|---:|\n",
    );
    for (size, c) in SIZES.iter().zip(curves) {
        let fit = fit_curves(law, c, &train_set(), &[]).unwrap();
        let finals = final_losses_of(&fit, c);
        let pick = |run: &str| finals.iter().find(|f| f.run == run).unwrap().clone();
        let (cooled, cosine) = (pick("wsdld_20000_24000"), pick("cosine_24000"));
        let _ = writeln!(
            check,
            "| {size} | {:+.4} | {:+.4} |",
            cooled.logged - cosine.logged,
            cooled.predicted - cosine.predicted
        );
        let settings = StudySettings::for_fit(&fit);
        for r in study(&fit, &settings, &[]).unwrap().rows {
            let _ = writeln!(
                out,
                "| {size} | {} | {} | {:.4} | {:.4} | {:.4} | {:+.4} |",
                r.steps,
                r.cooldown_start,
                r.constant_loss,
                r.cooldown_loss,
                r.cosine_loss,
                r.difference
            );
        }
    }
    out.push_str(&check);
}

/// An exploratory variant, not a method of the library: each law on the schedule
/// η^p·peak^(1−p) (progress measured in Σ η^p instead of the area Σ η, and decrements on that
/// scale), p < 1 crediting low-learning-rate stretches with more progress than their area. The
/// training-run criteria (objective, leave-one-branch-out) are listed with the held-out errors
/// so the choice can be read off without the held-out columns.
fn power_variant(curves: &[Vec<Curve>], out: &mut String) {
    out.push_str(
        "## Exploratory: the laws on the schedule lr^p·peak^(1−p) (not adopted)\n\n\
         Training-run criteria (Huber objective on the 4 training runs, mean |error| of\n\
         leave-one-branch-out) and the held-out final-loss errors:\n\n\
         | law | size | p | objective | leave-one-out | wsd_20000_24000 | wsdld_20000_24000 |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
    );
    let base = vec![BASE.to_string()];
    let branches: Vec<String> = BRANCHES.iter().map(|s| s.to_string()).collect();
    for law in CANDIDATES {
        for (size, raw) in SIZES.iter().zip(curves) {
            for p in [1.0, 0.8, 0.6] {
                let peak: f64 = 3e-4;
                let c: Vec<Curve> = raw
                    .iter()
                    .map(|c| Curve {
                        lrs: c
                            .lrs
                            .iter()
                            .map(|&x| x.powf(p) * peak.powf(1.0 - p))
                            .collect(),
                        ..c.clone()
                    })
                    .collect();
                let fit = fit_curves(law, &c, &train_set(), &[]).unwrap();
                let loo = leave_one_out(law, &c, &base, &branches).unwrap();
                let loo = loo.iter().map(|f| f.error.abs()).sum::<f64>() / loo.len() as f64;
                let held = held_out(law, &c);
                let _ = writeln!(
                    out,
                    "| {} | {size} | {p} | {:.4e} | {loo:.4} | {:+.4} | {:+.4} |",
                    law.name(),
                    fit.objective,
                    held[0].error,
                    held[1].error
                );
            }
        }
    }
    out.push('\n');
}
