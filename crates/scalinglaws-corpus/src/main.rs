//! `extrapolation-corpus`: rebuilds the corpus of extrapolation errors from `../shared/data`,
//! fits the cross-study prior, writes it, and runs the leave-one-study-out check.
//!
//! ```text
//! extrapolation-corpus [--data DIR] [--out DIR] [--corpus FILE] [--write-prior FILE]
//!                      [--evidence-weight K] [--loso]
//! ```
//! `--data` the studies (default ../shared/data); `--out` where corpus.json and the tables go
//! (default target/corpus); `--corpus` reads a corpus written before instead of refitting it;
//! `--write-prior` writes the prior fitted to every study; `--evidence-weight` fixes the weight of
//! own backtests (default: fitted); `--loso` runs the check and writes its tables.

use std::path::PathBuf;

use scalinglaws_corpus::corpus::{build, Cut, Unit};
use scalinglaws_corpus::loso::{leave_one_study_out, Folds, CHECK_CUTS};
use scalinglaws_corpus::{prior_file, report, studies};

struct Args {
    data: PathBuf,
    out: PathBuf,
    corpus: Option<PathBuf>,
    write_prior: Option<PathBuf>,
    evidence_weight: Option<f64>,
    loso: bool,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        data: PathBuf::from("../shared/data"),
        out: PathBuf::from("target/corpus"),
        corpus: None,
        write_prior: None,
        evidence_weight: None,
        loso: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--data" => args.data = value()?.into(),
            "--out" => args.out = value()?.into(),
            "--corpus" => args.corpus = Some(value()?.into()),
            "--write-prior" => args.write_prior = Some(value()?.into()),
            "--evidence-weight" => {
                let text = value()?;
                args.evidence_weight = Some(
                    text.parse()
                        .map_err(|_| format!("--evidence-weight {text}: not a number"))?,
                )
            }
            "--loso" => args.loso = true,
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(args)
}

fn corpus(args: &Args) -> Result<Vec<Unit>, String> {
    if let Some(path) = &args.corpus {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        return serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()));
    }
    let (sets, missing) = studies::load_all(&args.data);
    for (name, reason) in &missing {
        eprintln!("left out {name}: {reason}");
    }
    let units = build(&sets);
    let json = serde_json::to_string(&units).map_err(|e| e.to_string())?;
    std::fs::write(args.out.join("corpus.json"), json).map_err(|e| e.to_string())?;
    eprintln!(
        "{} sets, {} units, {} held-out runs",
        sets.len(),
        units.len(),
        units.iter().map(|u| u.held_out.len()).sum::<usize>()
    );
    Ok(units)
}

fn run() -> Result<(), String> {
    let args = parse()?;
    std::fs::create_dir_all(&args.out).map_err(|e| e.to_string())?;
    let units = corpus(&args)?;
    let folds = Folds::fit(&units, args.loso).ok_or("the prior could not be fitted")?;
    if let Some(path) = &args.write_prior {
        let fitted = folds
            .prior(&units, &[], args.evidence_weight)
            .ok_or("the prior could not be fitted")?;
        let prior = prior_file::prior(&units, &fitted);
        std::fs::write(path, prior_file::to_json(&prior)).map_err(|e| e.to_string())?;
        eprintln!("wrote {}: {fitted:?}", path.display());
    }
    if args.loso {
        for (name, cuts) in [
            ("loso", CHECK_CUTS.to_vec()),
            ("loso_first3", vec![Cut::First3]),
        ] {
            let runs = leave_one_study_out(&units, &cuts, &folds, args.evidence_weight);
            let (table, over_studies, over_units, lowest) = report::by_study(&runs);
            let text = format!("{table}\n{}", report::by_distance(&runs));
            println!("## {name}\n\n{text}");
            eprintln!("{name}: pooled over studies {over_studies:.3}, over units {over_units:.3}, lowest study {lowest:.3}");
            std::fs::write(args.out.join(format!("{name}.md")), text).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn main() {
    if let Err(message) = run() {
        eprintln!("extrapolation-corpus: {message}");
        std::process::exit(2);
    }
}
