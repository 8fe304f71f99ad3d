//! The NIST StRD nonlinear-regression suite, timed: every one of the 27 certified problems fitted
//! from the engine's own starts, from NIST's Start 1 and from Start 2, with the matching
//! significant digits of the parameters, the residual sum of squares and the standard errors
//! (the README's "Certified accuracy" table). Run with
//! `cargo run --release -p scalinglaws --example nist_suite [-- --markdown] [-- --own]`.

#[path = "../tests/integration/common/nist.rs"]
mod nist;

use std::time::Instant;

use nist::Origin;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let markdown = args.iter().any(|a| a == "--markdown");
    let own_only = args.iter().any(|a| a == "--own");
    let problems = match nist::load_all() {
        Ok(p) => p,
        Err(reason) => {
            eprintln!("NIST data unavailable: {reason}");
            return;
        }
    };
    let froms: &[Origin] = if own_only {
        &[Origin::Own]
    } else {
        &[Origin::Own, Origin::Start1, Origin::Start2]
    };
    let started = Instant::now();
    let mut own_time = 0.0;
    if markdown {
        println!(
            "| problem | difficulty | own starts | Start 1 | Start 2 | RSS (own) | std. errors (own) |"
        );
        println!("|---|---|---:|---:|---:|---:|---:|");
    } else {
        println!(
            "{:<10} {:<8} {:>6} {:>6} {:>6} {:>6} {:>6} {:>9}  termination (own)",
            "problem", "level", "own", "start1", "start2", "rss", "sd", "own ms"
        );
    }
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    for problem in problems
        .iter()
        .filter(|p| only.is_none_or(|o| *o == p.model.name))
    {
        let mut cells = Vec::new();
        let mut own = None;
        let mut own_ms = 0.0;
        for &from in froms {
            let t = Instant::now();
            let result = problem.fit(from);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if from == Origin::Own {
                own_ms = ms;
                own_time += ms;
            }
            match result {
                Ok(r) => {
                    let s = nist::score(problem, &r);
                    if only.is_some() {
                        eprintln!(
                            "{from:?}: {} {:?} {:?}",
                            r.termination, s.fitted, r.warnings
                        );
                    }
                    let mark = if s.converged { "" } else { "*" };
                    cells.push(format!("{:.1}{mark}", s.params));
                    if from == Origin::Own {
                        own = Some(s);
                    }
                }
                Err(e) => {
                    cells.push("err".into());
                    if from == Origin::Own {
                        eprintln!("{}: {e}", problem.model.name);
                    }
                }
            }
        }
        while cells.len() < 3 {
            cells.push("-".into());
        }
        let (rss, sd, term) = own.as_ref().map_or((0.0, 0.0, String::new()), |s| {
            (s.rss, s.sd, format!("{} {:?}", s.termination, s.fitted))
        });
        if markdown {
            println!(
                "| {} | {} | {} | {} | {} | {rss:.1} | {sd:.1} |",
                problem.model.name, problem.difficulty, cells[0], cells[1], cells[2]
            );
        } else {
            println!(
                "{:<10} {:<8} {:>6} {:>6} {:>6} {rss:>6.1} {sd:>6.1} {own_ms:>9.1}  {term}",
                problem.model.name, problem.difficulty, cells[0], cells[1], cells[2]
            );
        }
    }
    let total = started.elapsed().as_secs_f64();
    eprintln!(
        "suite: {} problems x {} start choices in {total:.2} s (own starts alone {:.2} s)",
        problems.len(),
        froms.len(),
        own_time / 1e3
    );
}
