//! `extrapolation-corpus`: rebuilds the corpus of extrapolation errors from `../shared/data`,
//! fits the cross-study prior, writes it, and runs the leave-one-study-out check.
//!
//! ```text
//! extrapolation-corpus [--data DIR] [--out DIR] [--corpus FILE] [--save-corpus FILE]
//!                      [--write-prior FILE] [--evidence-weight K] [--loso]
//! ```
//! `--data` the studies (default ../shared/data); `--out` where extrapolation_loso.md goes
//! (default target/corpus; the repository keeps it in bench/results); `--corpus` reads a corpus
//! saved before (`--save-corpus`, JSON) instead of refitting it;
//! `--write-prior` writes the prior fitted to every study; `--evidence-weight` fixes the weight of
//! own backtests (default: fitted); `--loso` runs the check and writes its tables.

use std::path::PathBuf;

use scalinglaws_corpus::corpus::{build, Unit};
use scalinglaws_corpus::loso::Folds;
use scalinglaws_corpus::{prior_file, report, studies};

struct Args {
    data: PathBuf,
    out: PathBuf,
    corpus: Option<PathBuf>,
    save_corpus: Option<PathBuf>,
    write_prior: Option<PathBuf>,
    evidence_weight: Option<f64>,
    loso: bool,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        data: PathBuf::from("../shared/data"),
        out: PathBuf::from("target/corpus"),
        corpus: None,
        save_corpus: None,
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
            "--save-corpus" => args.save_corpus = Some(value()?.into()),
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
    if let Some(path) = &args.save_corpus {
        let json = serde_json::to_string(&units).map_err(|e| e.to_string())?;
        std::fs::write(path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    }
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
        let (text, pooled, few) = report::document(&units, &folds, args.evidence_weight);
        println!("{text}");
        eprintln!("check: {pooled:?}; first three scale groups: {few:?}");
        let path = args.out.join("extrapolation_loso.md");
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

fn main() {
    if let Err(message) = run() {
        eprintln!("extrapolation-corpus: {message}");
        std::process::exit(2);
    }
}
