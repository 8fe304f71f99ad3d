//! The global search: a grid of starts over the nonlinear parameters; at each start the
//! linearly entering parameters are solved by bounded least squares (variable projection,
//! Golub & Pereyra 1973, used here to place starts); every start is then minimised on the
//! true objective with Gauss–Newton/IRLS curvature, the distinct optima are clustered, and
//! the best few are polished with exact-Hessian Newton steps. Starts run in parallel and are
//! reduced in start order, so the result is bit-identical for any thread count.

use rayon::prelude::*;

use super::lsq::bounded_least_squares;
use super::problem::{LocalModel, Problem, Space};
use super::solver::{minimize, Minimum, Objective, Options, Termination};
use crate::law::tape::Scratch;

/// A start: the full natural parameter vector, with `None` for parameters to be solved by
/// variable projection.
pub type Start = Vec<Option<f64>>;

/// Which curvature a solver run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curvature {
    GaussNewton,
    Exact,
}

struct Adapter<'a> {
    problem: &'a Problem,
    scratch: Scratch,
    curvature: Curvature,
}

impl Objective for Adapter<'_> {
    fn dim(&self) -> usize {
        self.problem.dim()
    }
    fn value(&mut self, u: &[f64]) -> f64 {
        self.problem.objective(u, &mut self.scratch)
    }
    fn model(&mut self, u: &[f64]) -> Option<LocalModel> {
        match self.curvature {
            Curvature::GaussNewton => self.problem.gauss_newton(u, &mut self.scratch),
            Curvature::Exact => self.problem.exact(u),
        }
    }
}

/// The outcome of one start.
#[derive(Debug, Clone)]
pub struct StartOutcome {
    pub index: usize,
    pub minimum: Minimum,
}

/// A distinct optimum: its best representative and how many starts reached it.
#[derive(Debug, Clone)]
pub struct Optimum {
    pub u: Vec<f64>,
    pub value: f64,
    pub termination: Termination,
    pub iterations: usize,
    pub starts: usize,
}

#[derive(Debug, Clone)]
pub struct SearchOutcome {
    pub starts: usize,
    pub failed: usize,
    /// Distinct optima, best first.
    pub optima: Vec<Optimum>,
}

pub const SCREEN: Options = Options {
    max_iterations: 200,
    ftol: 1e-10,
    xtol: 1e-10,
    gtol: 1e-10,
};

pub const POLISH: Options = Options {
    max_iterations: 100,
    ftol: 1e-15,
    xtol: 1e-14,
    gtol: 1e-13,
};

/// How many of the best distinct optima get the exact-Hessian polish.
const POLISHED_OPTIMA: usize = 4;

/// Runs every start and returns the distinct optima.
pub fn search(problem: &Problem, starts: &[Start], lower: &[f64], upper: &[f64], max_iterations: usize) -> SearchOutcome {
    let screen = Options {
        max_iterations,
        ..SCREEN
    };
    let outcomes: Vec<StartOutcome> = starts
        .par_iter()
        .enumerate()
        .map_init(
            || problem.tape().scratch(),
            |scratch, (index, start)| {
                let u0 = start_point(problem, start, lower, upper, scratch);
                let mut adapter = Adapter {
                    problem,
                    scratch: std::mem::take(scratch),
                    curvature: Curvature::GaussNewton,
                };
                let minimum = match u0 {
                    Some(u0) => minimize(&mut adapter, &u0, &screen),
                    None => Minimum {
                        u: vec![],
                        value: f64::INFINITY,
                        iterations: 0,
                        termination: Termination::NotFinite,
                    },
                };
                *scratch = adapter.scratch;
                StartOutcome { index, minimum }
            },
        )
        .collect();
    let failed = outcomes.iter().filter(|o| !o.minimum.value.is_finite()).count();
    let mut optima = cluster(problem, outcomes);
    polish_best(problem, &mut optima);
    optima = merge_polished(problem, optima);
    SearchOutcome {
        starts: starts.len(),
        failed,
        optima,
    }
}

/// Internal coordinates of a start, with linear parameters solved by variable projection.
fn start_point(problem: &Problem, start: &Start, lower: &[f64], upper: &[f64], scratch: &mut Scratch) -> Option<Vec<f64>> {
    let mut p: Vec<f64> = start.iter().map(|v| v.unwrap_or(0.0)).collect();
    let projected: Vec<usize> = (0..start.len()).filter(|&i| start[i].is_none()).collect();
    if !projected.is_empty() {
        let theta = project_linear(problem, &p, &projected, lower, upper, scratch)?;
        for (&i, t) in projected.iter().zip(theta) {
            p[i] = t;
        }
    }
    let u = problem.internal(&p);
    let objective = problem.objective(&u, scratch);
    objective.is_finite().then_some(u)
}

/// Solves the linear parameters at fixed nonlinear ones: least squares of the prediction on
/// the target, in relative terms when residuals are logarithmic (ln ŷ − ln y ≈ (ŷ − y)/y).
fn project_linear(
    problem: &Problem,
    p: &[f64],
    projected: &[usize],
    lower: &[f64],
    upper: &[f64],
    scratch: &mut Scratch,
) -> Option<Vec<f64>> {
    let tape = problem.tape();
    let n = problem.n_rows();
    let mut base = p.to_vec();
    projected.iter().for_each(|&i| base[i] = 0.0);
    let offset: Vec<f64> = (0..n).map(|row| tape.eval_row(&base, row, scratch)).collect();
    let row_scale: Vec<f64> = (0..n)
        .map(|row| {
            let w = problem.weights()[row].sqrt();
            match problem.space() {
                Space::Log => w / problem.target()[row].exp(),
                Space::Linear => w,
            }
        })
        .collect();
    let y: Vec<f64> = (0..n)
        .map(|row| {
            let y = match problem.space() {
                Space::Log => problem.target()[row].exp(),
                Space::Linear => problem.target()[row],
            };
            (y - offset[row]) * row_scale[row]
        })
        .collect();
    let columns: Vec<Vec<f64>> = projected
        .iter()
        .map(|&i| {
            let mut unit = base.clone();
            unit[i] = 1.0;
            (0..n).map(|row| (tape.eval_row(&unit, row, scratch) - offset[row]) * row_scale[row]).collect()
        })
        .collect();
    if columns.iter().flatten().chain(&y).any(|v| !v.is_finite()) {
        return None;
    }
    let lo: Vec<f64> = projected.iter().map(|&i| lower[i]).collect();
    let hi: Vec<f64> = projected.iter().map(|&i| upper[i]).collect();
    bounded_least_squares(&columns, &y, &lo, &hi)
}

/// Two optima are the same when their objectives agree to this relative tolerance.
const SAME_OBJECTIVE: f64 = 1e-6;
/// ... and their natural parameters agree to this relative tolerance.
const SAME_PARAMETERS: f64 = 1e-2;

fn same_optimum(problem: &Problem, a: (&[f64], f64), b: (&[f64], f64)) -> bool {
    let scale = a.1.abs().max(b.1.abs()).max(f64::MIN_POSITIVE);
    if (a.1 - b.1).abs() > SAME_OBJECTIVE * scale {
        return false;
    }
    let (pa, pb) = (problem.natural(a.0), problem.natural(b.0));
    pa.iter()
        .zip(&pb)
        .all(|(x, y)| (x - y).abs() <= SAME_PARAMETERS * 0.5 * (x.abs() + y.abs()) + 1e-12)
}

/// Sorts finite outcomes by objective (ties by start index) and groups them into optima.
fn cluster(problem: &Problem, mut outcomes: Vec<StartOutcome>) -> Vec<Optimum> {
    outcomes.retain(|o| o.minimum.value.is_finite());
    outcomes.sort_by(|a, b| a.minimum.value.total_cmp(&b.minimum.value).then(a.index.cmp(&b.index)));
    let mut optima: Vec<Optimum> = Vec::new();
    for outcome in outcomes {
        let m = outcome.minimum;
        match optima.iter_mut().find(|o| same_optimum(problem, (&o.u, o.value), (&m.u, m.value))) {
            Some(existing) => existing.starts += 1,
            None => optima.push(Optimum {
                u: m.u,
                value: m.value,
                termination: m.termination,
                iterations: m.iterations,
                starts: 1,
            }),
        }
    }
    optima
}

/// Exact-Hessian Newton polish of the best few optima (kept only where it improves).
fn polish_best(problem: &Problem, optima: &mut [Optimum]) {
    let count = optima.len().min(POLISHED_OPTIMA);
    let polished: Vec<Minimum> = optima[..count]
        .par_iter()
        .map(|optimum| {
            let mut adapter = Adapter {
                problem,
                scratch: problem.tape().scratch(),
                curvature: Curvature::Exact,
            };
            minimize(&mut adapter, &optimum.u, &POLISH)
        })
        .collect();
    for (optimum, minimum) in optima.iter_mut().zip(polished) {
        if minimum.value <= optimum.value {
            optimum.iterations += minimum.iterations;
            optimum.u = minimum.u;
            optimum.value = minimum.value;
            optimum.termination = minimum.termination;
        }
    }
}

/// After polishing, optima may coincide or reorder: merge and sort again.
fn merge_polished(problem: &Problem, mut optima: Vec<Optimum>) -> Vec<Optimum> {
    optima.sort_by(|a, b| a.value.total_cmp(&b.value));
    let mut merged: Vec<Optimum> = Vec::new();
    for optimum in optima {
        match merged.iter_mut().find(|o| same_optimum(problem, (&o.u, o.value), (&optimum.u, optimum.value))) {
            Some(existing) => existing.starts += optimum.starts,
            None => merged.push(optimum),
        }
    }
    merged
}
