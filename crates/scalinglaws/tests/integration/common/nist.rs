//! The NIST StRD nonlinear-regression suite (27 problems with certified values; public domain,
//! see tests/data/nist_strd/PROVENANCE.md): file parsing, each model written in the law
//! language, fits from the engine's own starts and from NIST's Start 1 and Start 2, and the
//! field's score (matching significant digits, as in scipy's and lmfit's tests). Shared by the
//! test `tests/integration/nist.rs` and the timed example `examples/nist_suite.rs`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use scalinglaws::fit::{fit, FitData, FitResult, FitSettings, LossKind, Space};
use scalinglaws::Law;

/// Digits reported when a value matches its certified one exactly.
pub const MAX_DIGITS: f64 = 15.0;

/// One model of the suite: the formula in the law language and the blocks of parameters that
/// are interchangeable terms (symmetric models only), with parameters that enter squared.
pub struct Model {
    pub name: &'static str,
    pub formula: &'static str,
    /// Nelson models log y: the fitted target is ln of the file's response.
    pub log_target: bool,
    /// Blocks of parameters the model is symmetric under permuting (term relabelling).
    pub blocks: &'static [&'static [&'static str]],
    /// Parameters that enter only squared (their sign is not identified).
    pub squared: &'static [&'static str],
}

const RATIONAL3: &str = "(b1 + b2*x + b3*x^2 + b4*x^3) / (1 + b5*x + b6*x^2 + b7*x^3)";
const GAUSS: &str = "b1*exp(-b2*x) + b3*exp(-(x - b4)^2/b5^2) + b6*exp(-(x - b7)^2/b8^2)";
const GAUSS_BLOCKS: &[&[&str]] = &[&["b3", "b4", "b5"], &["b6", "b7", "b8"]];
const LANCZOS: &str = "b1*exp(-b2*x) + b3*exp(-b4*x) + b5*exp(-b6*x)";
const LANCZOS_BLOCKS: &[&[&str]] = &[&["b1", "b2"], &["b3", "b4"], &["b5", "b6"]];

const fn model(name: &'static str, formula: &'static str) -> Model {
    Model {
        name,
        formula,
        log_target: false,
        blocks: &[],
        squared: &[],
    }
}

/// The 27 models, NIST's order (by difficulty, then name).
pub const MODELS: [Model; 27] = [
    model("Misra1a", "b1*(1 - exp(-b2*x))"),
    model("Chwirut2", "exp(-b1*x)/(b2 + b3*x)"),
    model("Chwirut1", "exp(-b1*x)/(b2 + b3*x)"),
    Model {
        blocks: LANCZOS_BLOCKS,
        ..model("Lanczos3", LANCZOS)
    },
    Model {
        blocks: GAUSS_BLOCKS,
        squared: &["b5", "b8"],
        ..model("Gauss1", GAUSS)
    },
    Model {
        blocks: GAUSS_BLOCKS,
        squared: &["b5", "b8"],
        ..model("Gauss2", GAUSS)
    },
    model("DanWood", "b1*x^b2"),
    model("Misra1b", "b1*(1 - (1 + b2*x/2)^(-2))"),
    model("Kirby2", "(b1 + b2*x + b3*x^2)/(1 + b4*x + b5*x^2)"),
    model("Hahn1", RATIONAL3),
    Model {
        log_target: true,
        ..model("Nelson", "b1 - b2*x1*exp(-b3*x2)")
    },
    Model {
        blocks: &[&["b2", "b4"], &["b3", "b5"]],
        ..model("MGH17", "b1 + b2*exp(-x*b4) + b3*exp(-x*b5)")
    },
    Model {
        blocks: LANCZOS_BLOCKS,
        ..model("Lanczos1", LANCZOS)
    },
    Model {
        blocks: LANCZOS_BLOCKS,
        ..model("Lanczos2", LANCZOS)
    },
    Model {
        blocks: GAUSS_BLOCKS,
        squared: &["b5", "b8"],
        ..model("Gauss3", GAUSS)
    },
    model("Misra1c", "b1*(1 - (1 + 2*b2*x)^(-0.5))"),
    model("Misra1d", "b1*b2*x*((1 + b2*x)^(-1))"),
    model("Roszman1", "b1 - b2*x - atan(b3/(x - b4))/pi"),
    Model {
        blocks: &[&["b4", "b5", "b6"], &["b7", "b8", "b9"]],
        ..model(
            "ENSO",
            "b1 + b2*cos(2*pi*x/12) + b3*sin(2*pi*x/12) + b5*cos(2*pi*x/b4) + b6*sin(2*pi*x/b4) \
             + b8*cos(2*pi*x/b7) + b9*sin(2*pi*x/b7)",
        )
    },
    model("MGH09", "b1*(x^2 + x*b2)/(x^2 + x*b3 + b4)"),
    model("Thurber", RATIONAL3),
    model("BoxBOD", "b1*(1 - exp(-b2*x))"),
    model("Rat42", "b1/(1 + exp(b2 - b3*x))"),
    model("MGH10", "b1*exp(b2/(x + b3))"),
    model("Eckerle4", "(b1/b2)*exp(-0.5*((x - b3)/b2)^2)"),
    model("Rat43", "b1/((1 + exp(b2 - b3*x))^(1/b4))"),
    model("Bennett5", "b1*(b2 + x)^(-1/b3)"),
];

/// A problem as NIST certifies it.
pub struct Problem {
    pub model: &'static Model,
    pub difficulty: String,
    /// Parameter names b1..bk in NIST's order.
    pub names: Vec<String>,
    pub start1: Vec<f64>,
    pub start2: Vec<f64>,
    pub certified: Vec<f64>,
    pub certified_sd: Vec<f64>,
    pub certified_rss: f64,
    /// Predictor names (x, or x1 and x2) and their columns.
    pub predictors: Vec<String>,
    pub columns: Vec<Vec<f64>>,
    /// The fitted target (ln y for Nelson).
    pub target: Vec<f64>,
}

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/nist_strd")
}

fn numbers(line: &str) -> Vec<f64> {
    line.split_whitespace()
        .filter_map(|t| t.parse::<f64>().ok())
        .collect()
}

/// Parses one NIST file (None with a reason when it is missing or malformed).
pub fn load(dir: &Path, model: &'static Model) -> Result<Problem, String> {
    let path = dir.join(format!("{}.dat", model.name));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let difficulty = lines
        .iter()
        .find(|l| l.contains("Level of Difficulty"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("?")
        .to_string();
    let (mut names, mut start1, mut start2, mut certified, mut sd) =
        (vec![], vec![], vec![], vec![], vec![]);
    for line in &lines {
        let t = line.trim_start();
        if let Some((name, rest)) = t.split_once('=') {
            let name = name.trim();
            if name.starts_with('b') && name[1..].chars().all(|c| c.is_ascii_digit()) {
                let v = numbers(rest);
                if v.len() == 4 {
                    names.push(name.to_string());
                    start1.push(v[0]);
                    start2.push(v[1]);
                    certified.push(v[2]);
                    sd.push(v[3]);
                }
            }
        }
    }
    let rss = lines
        .iter()
        .find(|l| l.trim_start().starts_with("Residual Sum of Squares:"))
        .and_then(|l| numbers(l).first().copied())
        .ok_or_else(|| format!("{}: no residual sum of squares", model.name))?;
    let header = lines
        .iter()
        .position(|l| {
            let mut t = l.split_whitespace();
            t.next() == Some("Data:") && t.next() == Some("y")
        })
        .ok_or_else(|| format!("{}: no data header", model.name))?;
    let predictors: Vec<String> = lines[header]
        .split_whitespace()
        .skip(2)
        .map(str::to_string)
        .collect();
    let mut columns = vec![Vec::new(); predictors.len()];
    let mut target = Vec::new();
    for line in &lines[header + 1..] {
        let v = numbers(line);
        if v.len() != predictors.len() + 1 {
            continue;
        }
        target.push(if model.log_target { v[0].ln() } else { v[0] });
        for (c, x) in columns.iter_mut().zip(&v[1..]) {
            c.push(*x);
        }
    }
    if names.is_empty() || target.is_empty() {
        return Err(format!("{}: no parameters or no data", model.name));
    }
    Ok(Problem {
        model,
        difficulty,
        names,
        start1,
        start2,
        certified,
        certified_sd: sd,
        certified_rss: rss,
        predictors,
        columns,
        target,
    })
}

/// Every problem, or the reason the data are unavailable.
pub fn load_all() -> Result<Vec<Problem>, String> {
    let dir = data_dir();
    MODELS.iter().map(|m| load(&dir, m)).collect()
}

/// Where the search starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// No start values: the engine's own search.
    Own,
    Start1,
    Start2,
}

impl Problem {
    pub fn law(&self) -> Law {
        let vars = &self.predictors;
        Law::from_formula(self.model.formula, &|id| vars.iter().any(|v| v == id))
            .unwrap_or_else(|e| panic!("{}: {e}", self.model.name))
    }

    pub fn data(&self, law: &Law) -> FitData {
        FitData {
            variables: law
                .variables
                .iter()
                .map(|v| {
                    let i = self.predictors.iter().position(|p| p == v).unwrap_or(0);
                    self.columns[i].clone()
                })
                .collect(),
            target: self.target.clone(),
            weights: None,
            trials: None,
            exposure: None,
        }
    }

    pub fn settings(&self, from: Origin) -> FitSettings {
        let mut settings = FitSettings {
            loss: LossKind::Linear,
            space: Space::Linear,
            ..FitSettings::default()
        };
        let starts = match from {
            Origin::Own => return settings,
            Origin::Start1 => &self.start1,
            Origin::Start2 => &self.start2,
        };
        for (name, v) in self.names.iter().zip(starts) {
            settings.grids.insert(name.clone(), vec![*v]);
        }
        settings
    }

    pub fn fit(&self, from: Origin) -> Result<FitResult, String> {
        let law = self.law();
        fit(&law, &self.data(&law), &self.settings(from)).map_err(|e| e.to_string())
    }
}

/// Matching significant digits of `value` against `certified`.
pub fn digits(value: f64, certified: f64) -> f64 {
    if !value.is_finite() {
        return 0.0;
    }
    let error = (value - certified).abs();
    if error == 0.0 {
        return MAX_DIGITS;
    }
    let d = -(error / certified.abs().max(f64::MIN_POSITIVE)).log10();
    if d > 0.0 {
        d.min(MAX_DIGITS)
    } else {
        0.0
    }
}

/// The score of one fit.
#[derive(Debug, Clone)]
pub struct Score {
    /// Fewest matching digits over the parameters (after term relabelling where symmetric).
    pub params: f64,
    pub rss: f64,
    /// Fewest matching digits over the standard errors (0 when there are none).
    pub sd: f64,
    pub converged: bool,
    pub termination: String,
    pub fitted: Vec<f64>,
}

/// Every relabelling of a symmetric model's terms: permutations of its blocks.
fn relabellings(problem: &Problem) -> Vec<Vec<usize>> {
    let k = problem.names.len();
    let identity: Vec<usize> = (0..k).collect();
    let blocks: Vec<Vec<usize>> = problem
        .model
        .blocks
        .iter()
        .map(|b| {
            b.iter()
                .map(|n| problem.names.iter().position(|m| m == n).unwrap_or(0))
                .collect()
        })
        .collect();
    let mut perms: Vec<Vec<usize>> = vec![vec![]];
    for _ in 0..blocks.len() {
        perms = perms
            .into_iter()
            .flat_map(|p| {
                (0..blocks.len())
                    .filter(|b| !p.contains(b))
                    .map(|b| {
                        let mut q = p.clone();
                        q.push(b);
                        q
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    perms
        .into_iter()
        .map(|order| {
            let mut map = identity.clone();
            for (target, source) in order.iter().enumerate() {
                for (i, j) in blocks[target].iter().zip(&blocks[*source]) {
                    map[*i] = *j;
                }
            }
            map
        })
        .collect()
}

pub fn score(problem: &Problem, result: &FitResult) -> Score {
    let k = problem.names.len();
    let lookup = |name: &str| {
        let p = result.param(name);
        let squared = problem.model.squared.contains(&name);
        let fix = |v: f64| if squared { v.abs() } else { v };
        (
            p.map_or(f64::NAN, |p| fix(p.value)),
            p.and_then(|p| p.stderr).unwrap_or(f64::NAN),
        )
    };
    let values: Vec<(f64, f64)> = problem.names.iter().map(|n| lookup(n)).collect();
    let mut best = (f64::NEG_INFINITY, 0.0, vec![]);
    for map in relabellings(problem) {
        let fitted: Vec<(f64, f64)> = (0..k).map(|i| values[map[i]]).collect();
        let params = (0..k)
            .map(|i| digits(fitted[i].0, problem.certified[i]))
            .fold(MAX_DIGITS, f64::min);
        let sd = (0..k)
            .map(|i| digits(fitted[i].1, problem.certified_sd[i]))
            .fold(MAX_DIGITS, f64::min);
        if params > best.0 {
            best = (params, sd, fitted.iter().map(|f| f.0).collect());
        }
    }
    // The residual sum of squares, recomputed from the residuals the fit reports.
    let rss = result.objective * 2.0;
    Score {
        params: best.0,
        rss: digits(rss, problem.certified_rss),
        sd: best.1,
        converged: result.converged,
        termination: result.termination.clone(),
        fitted: best.2,
    }
}
