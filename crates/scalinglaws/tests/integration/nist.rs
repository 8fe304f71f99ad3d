//! The engine on NIST's certified suite (StRD nonlinear regression, 27 problems, three levels of
//! difficulty; public domain, tests/data/nist_strd/PROVENANCE.md): every problem written as a
//! `--formula` would be, fitted with the linear loss in linear space, and scored by matching
//! significant digits against the certified values (the convention of scipy's and lmfit's own
//! tests). From the engine's own starts every parameter and the residual sum of squares must
//! match to 6 digits and the Gauss–Newton standard errors to 4; from NIST's Start 1 and Start 2
//! likewise, except the starts listed in `HOPELESS_STARTS`, which must then say they did not
//! converge. A fit that says it converged must sit at a small scaled gradient.

use crate::common;

use common::nist::{self, Origin, Problem, Score};
use scalinglaws::fit::problem_for;
use scalinglaws::fit::solver::scaled_gradient;

/// Starts from which no optimum is reachable by a local method, and why (MINPACK fails them too).
const HOPELESS_STARTS: &[(&str, Origin, &str)] = &[
    (
        "BoxBOD",
        Origin::Start1,
        "b2 = 1 sits on the plateau where exp(-b2*x) is 0 for every x >= 1: the model is a constant",
    ),
    (
        "MGH10",
        Origin::Start1,
        "the path follows the valley b1 -> 0, b2 -> inf (b1*exp(b2/(x+b3)) stays finite)",
    ),
    (
        "Eckerle4",
        Origin::Start1,
        "b3 = 500 on x in [400, 500] with width 10: the peak is off the data, every parameter runs off",
    ),
];

/// Problems whose certified residual sum of squares is at round-off level (1.4e-25 for Lanczos1:
/// residuals of 1e-13 on values of 1): neither it nor the standard errors built on it can be
/// matched in double precision; the fit must reach that level instead.
const ROUND_OFF_RSS: &[&str] = &["Lanczos1"];

const PARAMETER_DIGITS: f64 = 6.0;
const SD_DIGITS: f64 = 4.0;
/// The largest scaled gradient (cosine between residuals and Jacobian columns) a converged fit
/// may show.
const CONVERGED_GRADIENT: f64 = 1e-6;

fn scaled_gradient_at(problem: &Problem, from: Origin, params: &[f64]) -> f64 {
    let law = problem.law();
    let p = problem_for(&law, &problem.data(&law), &problem.settings(from)).unwrap();
    let u = p.internal(params);
    p.gauss_newton(&u, &mut p.tape().scratch())
        .map_or(f64::INFINITY, |m| scaled_gradient(&m))
}

fn check(problem: &Problem, from: Origin, failures: &mut Vec<String>) -> Option<Score> {
    let name = problem.model.name;
    let result = match problem.fit(from) {
        Ok(r) => r,
        Err(e) => {
            failures.push(format!("{name} {from:?}: {e}"));
            return None;
        }
    };
    let score = nist::score(problem, &result);
    let hopeless = HOPELESS_STARTS
        .iter()
        .any(|(n, f, _)| *n == name && *f == from);
    if result.converged {
        let rss = 2.0 * result.objective;
        let at_round_off = rss <= 1e-20;
        let g = scaled_gradient_at(problem, from, &result.param_values());
        if !(g <= CONVERGED_GRADIENT || at_round_off) {
            failures.push(format!(
                "{name} {from:?}: reports converged at scaled gradient {g:e}"
            ));
        }
    }
    if hopeless {
        if result.converged && score.params < PARAMETER_DIGITS {
            failures.push(format!(
                "{name} {from:?}: a hopeless start reports converged ({} digits)",
                score.params
            ));
        }
        return Some(score);
    }
    if !result.converged {
        failures.push(format!(
            "{name} {from:?}: not converged ({})",
            result.termination
        ));
    }
    if score.params < PARAMETER_DIGITS {
        failures.push(format!(
            "{name} {from:?}: {:.1} digits on the parameters {:?}",
            score.params, score.fitted
        ));
    }
    if ROUND_OFF_RSS.contains(&name) {
        if 2.0 * result.objective > 1e-22 {
            failures.push(format!(
                "{name} {from:?}: RSS {:e} is not at round-off level",
                2.0 * result.objective
            ));
        }
    } else {
        if score.rss < PARAMETER_DIGITS {
            failures.push(format!(
                "{name} {from:?}: {:.1} digits on the RSS",
                score.rss
            ));
        }
        if score.sd < SD_DIGITS {
            failures.push(format!(
                "{name} {from:?}: {:.1} digits on the standard errors",
                score.sd
            ));
        }
    }
    Some(score)
}

#[test]
fn certified_values_from_own_starts_start_1_and_start_2() {
    let problems = match nist::load_all() {
        Ok(p) => p,
        Err(reason) => {
            eprintln!("skipping the NIST suite: {reason}");
            return;
        }
    };
    assert_eq!(problems.len(), 27);
    let mut failures = Vec::new();
    for problem in &problems {
        let mut line = format!("{:<9} {:<8}", problem.model.name, problem.difficulty);
        for from in [Origin::Own, Origin::Start1, Origin::Start2] {
            if let Some(s) = check(problem, from, &mut failures) {
                let mark = if s.converged { " " } else { "*" };
                line += &format!(" {:>5.1}{mark}", s.params);
                if from == Origin::Own {
                    line += &format!(" (rss {:>4.1}, sd {:>4.1})", s.rss, s.sd);
                }
            }
        }
        println!("{line}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn scoring_counts_matching_digits() {
    assert!((nist::digits(1.000001, 1.0) - 6.0).abs() < 1e-6);
    assert!((nist::digits(1.0, 1.0) - nist::MAX_DIGITS).abs() < 1e-12);
    assert!(nist::digits(f64::NAN, 1.0).abs() < 1e-12);
}
