//! The global search: a grid of starts over the nonlinear parameters; at each start the
//! linearly entering parameters are solved by bounded least squares (variable projection,
//! Golub & Pereyra 1973, used here to place starts). All starts then advance together in rounds
//! of Gauss–Newton/IRLS steps on the true objective, merging into better neighbours as they
//! meet; the survivors within 3× of the best objective are polished with Newton steps (the
//! exact Hessian; on large data its first-order part, falling back to the exact one), then
//! clustered into distinct optima. Starts run in parallel and every reduction is in
//! a fixed order (objective, then start index), so the result is bit-identical for any thread
//! count.

use rayon::prelude::*;

use crate::interrupt::Interrupt;

use super::lsq::bounded_least_squares;
use super::problem::{LocalModel, Problem, Transform};
use super::solver::{
    minimize_from, minimize_gated, Gate, Objective, Options, Termination, INITIAL_DAMPING,
};
use crate::law::tape::Scratch;

/// A start: the full natural parameter vector, with `None` for parameters to be solved by
/// variable projection.
pub type Start = Vec<Option<f64>>;

/// Which curvature a solver run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Curvature {
    GaussNewton,
    Exact,
    /// The first-order part of the exact Hessian, one sweep at each point (see
    /// [`Adapter::first_order_model`]): for large data.
    FirstOrder,
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
            Curvature::FirstOrder => self.first_order_model(u),
        }
    }
}

impl Adapter<'_> {
    /// A Newton model for data too large for the exact Hessian at every step: the Hessian's
    /// first-order part, Σ w·(ρ''·∇r∇rᵀ + ρ'·(∇²r)_J) ([`Problem::newton_first_order`], one
    /// sweep like a Gauss–Newton step's), without the remainder Σ w·ρ'·∇²f/f (Σ w·ρ'·∇²f on
    /// linear residuals) that needs the prediction's second derivatives. The remainder weighs
    /// ∇²f by the residuals: it is small where they do not follow ∇²f (a law that fits, with
    /// noise of either sign), large away from the optimum, and stays large at it when the law
    /// misses the data systematically; there [`polish_with`] falls back to the exact Hessian
    /// after [`FIRST_ORDER_STEPS`]. On the 1e6-row Chinchilla fit and its five calibration fits
    /// (bench/million_rows.sh) the smallest eigenvalue of the diagonally scaled first-order
    /// part matched the exact one within 1 % at every polish step after the first, while the
    /// exact Hessian at the polish's first point (the sample's optimum) was off by 30 % to
    /// 200 % there, indefinite in two of the six: keeping its remainder, as this did before,
    /// took 129 sweeps over the six fits, against 68 without (both from a damping of 1e-3).
    /// The objective and the gradient are exact at every step, so the optimum is every row's.
    fn first_order_model(&mut self, u: &[f64]) -> Option<LocalModel> {
        let problem = self.problem;
        let natural = problem.newton_first_order(&problem.natural(u), &mut self.scratch)?;
        let model = problem.to_internal(natural, u);
        model
            .curvature
            .iter()
            .all(|v| v.is_finite())
            .then_some(model)
    }
}

/// A distinct optimum: its best representative and how many starts reached it.
#[derive(Debug, Clone)]
pub struct Optimum {
    pub u: Vec<f64>,
    pub value: f64,
    pub termination: Termination,
    pub iterations: usize,
    pub starts: usize,
    /// The indices of the starts that reached it (`starts` of them), ascending: which basin
    /// each start fell into, for searches of resampled data ([`super::BasinMap`]).
    pub members: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct SearchOutcome {
    pub starts: usize,
    /// Starts with no finite objective at their start point.
    pub failed: usize,
    /// Starts along which a parameter ran off to infinity.
    pub diverged: usize,
    /// Starts still moving when their iterations ran out, away from every converged optimum.
    pub unconverged: usize,
    /// Starts whose Gauss–Newton phase ended more than 3× above the best objective: not
    /// polished, so not counted among the optima.
    pub stalled: usize,
    /// Distinct optima, best first.
    pub optima: Vec<Optimum>,
    /// Local-minimiser iterations summed over all starts.
    pub iterations: usize,
    /// Starts not searched: a neighbour on the line of starts was lower (see [`screen_out`]).
    pub screened: Vec<usize>,
}

/// Gauss–Newton/IRLS steps each live start takes per round (robust far from an optimum).
const ROUND: Options = Options {
    max_iterations: 10,
    ftol: 1e-4,
    xtol: 1e-8,
    gtol: 1e-8,
};

/// Newton steps that finish a competitive track (quadratic near an optimum with the exact
/// Hessian).
pub const POLISH: Options = Options {
    max_iterations: 50,
    ftol: 1e-15,
    xtol: 1e-14,
    gtol: 1e-13,
};

/// The largest [`super::solver::scaled_gradient`] at which a polished least-squares optimum
/// counts as converged: the cosine between the residuals and every Jacobian column must be this
/// small (MINPACK's gtol test). The cosine is a least-squares measure: robust losses (whose
/// cost grows linearly in outlying residuals) keep the step and objective tests alone.
pub const CONVERGED_GRADIENT: f64 = 1e-8;

/// Residuals this small relative to the targets are at the rounding level of the data (NIST's
/// Lanczos1 fits to 1e-13): there the gradient's direction is noise and the gate is open.
const ROUND_OFF: f64 = 1e-12;

/// Default iteration budget of the Gauss–Newton phase of one start.
pub const DEFAULT_MAX_ITERATIONS: usize = 200;

/// One start on its way to an optimum. `members` are the indices of the starts merged into it
/// (for a sample's optimum finished on every row, the starts that reached it on the sample).
#[derive(Debug, Clone)]
struct Track {
    index: usize,
    u: Vec<f64>,
    /// Natural parameters at `u` (kept in step with it, for comparisons).
    p: Vec<f64>,
    value: f64,
    iterations: usize,
    termination: Option<Termination>,
    members: Vec<usize>,
    damping: f64,
    /// The Gauss–Newton model at `u` from the end of the last round (saves one evaluation).
    model: Option<LocalModel>,
}

/// Runs every start and returns the distinct optima.
///
/// All starts advance together in rounds of Gauss–Newton steps. After each round, a start that
/// has come within merging distance of a better one (objective within 1e-3 relative, every
/// parameter within 2 %) is merged into it: from there both would follow the same path to the
/// same optimum, so only the better one goes on. Survivors within 3× of the best objective are
/// finished with exact-Hessian Newton steps and clustered into distinct optima. Rounds run in
/// parallel and merges are made in a fixed order, so the outcome does not depend on the number
/// of threads. A set `interrupt` ends the search after the current round with an outcome that
/// means nothing (the fit then returns `Error::Interrupted`). With `screen_line` (the starts
/// are one nonlinear parameter's grid in ascending order and nothing else), only the starts at
/// local minima of the line's start objectives are searched ([`screen_out`]).
pub fn search(
    problem: &Problem,
    starts: &[Start],
    lower: &[f64],
    upper: &[f64],
    max_iterations: usize,
    interrupt: &Interrupt,
    screen_line: bool,
) -> SearchOutcome {
    let mut tracks: Vec<Track> = starts
        .par_iter()
        .enumerate()
        .map_init(
            || problem.tape().scratch(),
            |scratch, (index, start)| initial_track(problem, index, start, lower, upper, scratch),
        )
        .collect();
    let failed = tracks.iter().filter(|t| !t.value.is_finite()).count();
    tracks.retain(|t| t.value.is_finite());
    let screened = if screen_line {
        screen_out(&mut tracks)
    } else {
        vec![]
    };
    let (mut tracks, mut iterations) = run_rounds(problem, tracks, max_iterations, interrupt);
    if interrupt.is_interrupted() {
        tracks.clear(); // nothing to polish: the outcome is discarded
    }
    let diverged_tracks = tracks
        .iter()
        .filter(|t| t.termination == Some(Termination::Diverged))
        .map(|t| t.members.len())
        .sum::<usize>();
    tracks.retain(|t| t.termination != Some(Termination::Diverged));
    let (polished, polish_iterations, stalled) =
        polish_promising(problem, tracks, Curvature::Exact);
    iterations += polish_iterations;
    let (optima, unconverged) = cluster(problem, polished);
    let outcome = SearchOutcome {
        starts: starts.len(),
        failed,
        diverged: diverged_tracks,
        unconverged,
        stalled,
        optima,
        iterations,
        screened,
    };
    // The line's profile misleads where the best start it kept did not converge (issue 50: a
    // start that runs onto a bound of a linear parameter stops on the plateau there, 2-14x
    // above the optimum another start reaches): then every start is searched.
    let best_converged = outcome
        .optima
        .first()
        .is_some_and(|o| o.termination.converged());
    if outcome.screened.is_empty() || best_converged || interrupt.is_interrupted() {
        return outcome;
    }
    let mut full = search(
        problem,
        starts,
        lower,
        upper,
        max_iterations,
        interrupt,
        false,
    );
    full.iterations += outcome.iterations;
    full
}

/// Multi-level single linkage on a line of starts (Rinnooy Kan & Timmer 1987, "Stochastic
/// global optimization methods, Part II: Multi level methods", Math. Programming 39, 57–78:
/// a local search starts from a sample point only when no point within the critical distance
/// is lower). The starts are one nonlinear parameter's grid in ascending order, each with the
/// linear parameters solved by variable projection, so the start objectives trace the
/// parameter's profile; a start with a lower neighbour on the line lies on a slope of that
/// profile, in the basin of a neighbour's minimum or falling towards one, and is not searched.
/// Starts whose profile value is at most both neighbours' (a local minimum of the profile on
/// the grid, ends included) are. Removes the screened tracks and returns their start indices.
/// Used for least squares only ([`super::is_line_of_starts`] says why).
fn screen_out(tracks: &mut Vec<Track>) -> Vec<usize> {
    // Start objectives by start index (infinite where a start failed): linear in the starts,
    // since a user's grid may hold up to `MAX_STARTS` of them.
    let len = tracks.iter().map(|t| t.index + 1).max().unwrap_or(0);
    let mut values = vec![f64::INFINITY; len + 1];
    for t in tracks.iter() {
        values[t.index] = t.value;
    }
    let has_lower_neighbour = |t: &Track| {
        let below = t.index.checked_sub(1).map_or(f64::INFINITY, |i| values[i]);
        below < t.value || values[t.index + 1] < t.value
    };
    let (screened, kept): (Vec<Track>, Vec<Track>) =
        tracks.drain(..).partition(has_lower_neighbour);
    *tracks = kept;
    screened.iter().map(|t| t.index).collect()
}

/// The Gauss–Newton phase: every live track advances in rounds of [`ROUND`] steps, merging
/// into better neighbours after each round, until all have stopped or `max_iterations` is
/// spent. Returns the tracks left and the iterations taken.
fn run_rounds(
    problem: &Problem,
    mut tracks: Vec<Track>,
    max_iterations: usize,
    interrupt: &Interrupt,
) -> (Vec<Track>, usize) {
    let rounds = max_iterations.div_ceil(ROUND.max_iterations).max(1);
    let mut iterations = 0;
    for round in 0..rounds {
        // Interrupted: the caller discards what comes back (and reads the token itself).
        if interrupt.is_interrupted() || tracks.iter().all(|t| t.termination.is_some()) {
            break;
        }
        let before: Vec<f64> = tracks.iter().map(|t| t.value).collect();
        iterations += tracks
            .par_iter_mut()
            .filter(|t| t.termination.is_none())
            .map_init(
                || problem.tape().scratch(),
                |scratch, t| advance(problem, t, scratch),
            )
            .sum::<usize>();
        if round >= CULL_AFTER && problem.loss().kind == crate::fit::LossKind::Linear {
            cull_slow(problem, &mut tracks, &before, rounds - round - 1);
        }
        tracks = merge_nearby(problem, tracks);
    }
    (tracks, iterations)
}

/// Most optima of a sample's search finished on every row (the best ones; the starts of the
/// rest count as stalled).
const SAMPLE_OPTIMA: usize = 4;

/// [`search`] for large data: the start grid runs on `sample` (a subset of the rows of
/// `problem`, e.g. every k-th), and the best of its optima are then finished on every row of
/// `problem` (the Newton polish, clustering), so the optimum is
/// that of all the rows. The counts of starts are the sample search's.
// `search`'s seven arguments and the sample: grouping them would only move the list.
#[allow(clippy::too_many_arguments)]
pub fn search_on_sample(
    problem: &Problem,
    sample: &Problem,
    starts: &[Start],
    lower: &[f64],
    upper: &[f64],
    max_iterations: usize,
    interrupt: &Interrupt,
    screen_line: bool,
) -> SearchOutcome {
    let rough = search(
        sample,
        starts,
        lower,
        upper,
        max_iterations,
        interrupt,
        screen_line,
    );
    if interrupt.is_interrupted() {
        return rough;
    }
    let mut scratch = problem.tape().scratch();
    let mut tracks: Vec<Track> = Vec::new();
    let mut left_out = 0;
    for (index, optimum) in rough.optima.iter().enumerate() {
        let value = problem.objective(&optimum.u, &mut scratch);
        if index >= SAMPLE_OPTIMA || !value.is_finite() {
            left_out += optimum.members.len();
            continue;
        }
        tracks.push(Track {
            index,
            p: problem.natural(&optimum.u),
            u: optimum.u.clone(),
            value,
            iterations: optimum.iterations,
            termination: None,
            members: optimum.members.clone(),
            damping: INITIAL_DAMPING,
            model: None,
        });
    }
    // Straight to the Newton polish: the sample's optima are already close to those of every
    // row, where Gauss–Newton/IRLS rounds would only crawl.
    if interrupt.is_interrupted() {
        tracks.clear();
    }
    let (polished, iterations, stalled) = polish_promising(problem, tracks, Curvature::FirstOrder);
    let (optima, unconverged) = cluster(problem, polished);
    SearchOutcome {
        starts: rough.starts,
        failed: rough.failed,
        diverged: rough.diverged,
        unconverged: rough.unconverged + unconverged,
        stalled: rough.stalled + stalled + left_out,
        optima,
        iterations: rough.iterations + iterations,
        screened: rough.screened,
    }
}

/// Rounds every start takes before slow tracks far above the best may be set aside.
const CULL_AFTER: usize = 2;
/// A live track more than this many times above the best objective ...
const CULL_FACTOR: f64 = 10.0;

/// ... whose last round's rate of decrease, kept up for every remaining round, would still leave
/// it above [`STALLED`] × 10 the best stops its Gauss–Newton phase: it would end as stalled
/// anyway after spending the whole iteration budget (most of the time of a many-start search).
/// (Descents decelerate, so the extrapolation is generous; the margin of 10 more so.) Only
/// least-squares searches cull: on the robust default the Chinchilla search measured slower
/// with it (7.3 → 8.6 ms), its few starts mostly reach the best optimum.
fn cull_slow(problem: &Problem, tracks: &mut [Track], before: &[f64], remaining: usize) {
    let best = tracks.iter().map(|t| t.value).fold(f64::INFINITY, f64::min);
    let floor = OBJECTIVE_FLOOR * problem.total_weight();
    let limit = CULL_FACTOR * best.abs() + floor;
    let reachable = 10.0 * STALLED * best.abs() + floor;
    for (t, &was) in tracks.iter_mut().zip(before) {
        if t.termination.is_some() || t.value <= limit || !(was > 0.0) {
            continue;
        }
        let ratio = (t.value / was).clamp(0.0, 1.0);
        if t.value * ratio.powi(remaining as i32) > reachable {
            t.termination = Some(Termination::MaxIterations);
        }
    }
}

fn initial_track(
    problem: &Problem,
    index: usize,
    start: &Start,
    lower: &[f64],
    upper: &[f64],
    scratch: &mut Scratch,
) -> Track {
    let (u, value) = start_point(problem, start, lower, upper, scratch)
        .unwrap_or_else(|| (vec![], f64::INFINITY));
    Track {
        index,
        p: if u.is_empty() {
            vec![]
        } else {
            problem.natural(&u)
        },
        u,
        value,
        iterations: 0,
        termination: None,
        members: vec![index],
        damping: INITIAL_DAMPING,
        model: None,
    }
}

/// One round of Gauss–Newton steps; returns the iterations taken. `scratch` is the worker
/// thread's evaluation buffers, reused across tracks.
fn advance(problem: &Problem, track: &mut Track, scratch: &mut Scratch) -> usize {
    let mut adapter = Adapter {
        problem,
        scratch: std::mem::take(scratch),
        curvature: Curvature::GaussNewton,
    };
    let m = minimize_from(
        &mut adapter,
        &track.u,
        &ROUND,
        track.damping,
        track.model.take(),
    );
    track.iterations += m.iterations;
    track.damping = m.damping;
    if m.value <= track.value {
        track.p = problem.natural(&m.u);
        track.u = m.u;
        track.value = m.value;
        track.model = m.model;
    }
    if m.termination != Termination::MaxIterations {
        track.termination = Some(m.termination);
    }
    if diverged(problem, &track.u) {
        track.termination = Some(Termination::Diverged);
    }
    *scratch = adapter.scratch;
    m.iterations
}

/// A parameter ran off towards infinity on an unbounded side (p = lo + e^u with u → +∞, or
/// p = hi − e^u likewise, or an unbounded parameter that is no longer finite). A parameter
/// converging onto a finite bound (u → −∞) is not divergence: that is an optimum at the bound.
fn diverged(problem: &Problem, u: &[f64]) -> bool {
    const RUNAWAY: f64 = 700.0;
    let runaway = |t: &Transform, x: f64| {
        matches!(t, Transform::Lower(_) | Transform::Upper(_)) && x > RUNAWAY
    };
    u.iter().any(|x| !x.is_finite())
        || problem.natural(u).iter().any(|p| !p.is_finite())
        || problem
            .transforms()
            .iter()
            .zip(u)
            .any(|(t, &x)| runaway(t, x))
}

/// Tracks whose Gauss–Newton phase ended more than this factor above the best polished
/// objective are not polished: they stalled far from any competitive optimum.
const STALLED: f64 = 3.0;

/// Polishes the best track, then (in parallel) every track within `STALLED` × its objective.
/// Returns the polished tracks, the iterations taken, and the starts left unpolished.
/// `curvature` is the Newton steps' Hessian: exact, or its first-order part on large data.
fn polish_promising(
    problem: &Problem,
    mut tracks: Vec<Track>,
    curvature: Curvature,
) -> (Vec<Track>, usize, usize) {
    tracks.sort_by(|a, b| a.value.total_cmp(&b.value).then(a.index.cmp(&b.index)));
    if tracks.is_empty() {
        return (tracks, 0, 0);
    }
    let rest = tracks.split_off(1);
    let (mut best, mut iterations) =
        polish_with(problem, curvature, tracks.remove(0), &POLISH_BEST);
    // Stall detection: a best track that ran out of iterations while still descending (a long
    // curved valley, NIST's Bennett5) is restarted from where it stopped, with fresh damping.
    for _ in 0..MAX_RESTARTS {
        if best.termination != Some(Termination::MaxIterations) {
            break;
        }
        let before = best.value;
        let (next, more) = polish_with(problem, curvature, best, &POLISH_BEST);
        iterations += more;
        best = next;
        if best.value >= before * (1.0 - 1e-12) {
            break;
        }
    }
    let limit = STALLED * best.value.abs() + OBJECTIVE_FLOOR * problem.total_weight();
    let (promising, stalled): (Vec<Track>, Vec<Track>) =
        rest.into_iter().partition(|t| t.value <= limit);
    let polished: Vec<(Track, usize)> = promising
        .into_par_iter()
        .map(|t| polish_with(problem, curvature, t, &POLISH))
        .collect();
    iterations += polished.iter().map(|(_, n)| n).sum::<usize>();
    let mut all = vec![best];
    all.extend(polished.into_iter().map(|(t, _)| t));
    (
        all,
        iterations,
        stalled.iter().map(|t| t.members.len()).sum(),
    )
}

/// The Levenberg–Marquardt damping a polish starts from: [`INITIAL_DAMPING`],
/// [`SAMPLE_POLISH_DAMPING`] for the first-order polish of a sample's optima on every row, and
/// [`LEAST_SQUARES_POLISH_DAMPING`] for the exact polish of a least-squares fit (a loss, not a
/// likelihood family).
fn polish_damping(problem: &Problem, curvature: Curvature) -> f64 {
    let least_squares =
        problem.family().is_none() && problem.loss().kind == crate::fit::LossKind::Linear;
    match curvature {
        Curvature::FirstOrder => SAMPLE_POLISH_DAMPING,
        Curvature::Exact if least_squares => LEAST_SQUARES_POLISH_DAMPING,
        Curvature::GaussNewton | Curvature::Exact => INITIAL_DAMPING,
    }
}

/// A least-squares polish starts where Gauss–Newton converged, so its first exact Newton step
/// is nearly the whole way (the neglected second-order term is small at small residuals); the
/// damping rises again after a rejected step. On the 10,000 learning curves of
/// bench/fit_groups.py (least squares), starting at 1e-7 rather than [`INITIAL_DAMPING`]
/// took 2.1 exact Hessians a polish instead of 4.1 (the first 1,000 curves, counted by
/// callgrind); on all 10,000 every fit's objective agreed within 3.4e-14 and its parameters
/// within 1e-8, but for one E at its bound of 0 (8.1e-13 before, 9.1e-13 after).
const LEAST_SQUARES_POLISH_DAMPING: f64 = 1e-7;

/// A sample's optimum is close to every row's, and the weak direction of a Chinchilla fit has
/// a curvature about 2e-4 of the diagonal's: a damping of 1e-3 held the steps along it to a
/// fifth of Newton's for the first few. Over the 1e6-row fit and its five calibration fits
/// (bench/million_rows.sh) the polish took 62 sweeps and 7 objective evaluations starting at
/// 1e-3, 50 and 6 at 1e-4, 56 and 12 at 1e-5, 51 and 9 at 1e-6 (lower starts overshoot into
/// regions where the first-order Hessian is not positive definite, and climb back).
const SAMPLE_POLISH_DAMPING: f64 = 1e-4;

/// Warm restarts of the best track's polish while it is still descending.
const MAX_RESTARTS: usize = 8;

/// The best track alone may take more Newton steps.
const POLISH_BEST: Options = Options {
    max_iterations: 400,
    ..POLISH
};

/// Newton steps to full precision with `curvature`'s Hessian; returns the track and the
/// iterations taken. A first-order polish still descending after [`FIRST_ORDER_STEPS`], or
/// stuck (no step decreased the objective), continues with the exact Hessian.
fn polish_with(
    problem: &Problem,
    curvature: Curvature,
    track: Track,
    options: &Options,
) -> (Track, usize) {
    if curvature != Curvature::FirstOrder {
        return polish_once(problem, curvature, track, options);
    }
    let budget = Options {
        max_iterations: options.max_iterations.min(FIRST_ORDER_STEPS),
        ..*options
    };
    let (track, taken) = polish_once(problem, curvature, track, &budget);
    let crawled = matches!(
        track.termination,
        Some(Termination::MaxIterations | Termination::NoProgress)
    );
    if !crawled {
        return (track, taken);
    }
    let (track, more) = polish_once(problem, Curvature::Exact, track, options);
    (track, taken + more)
}

/// First-order steps a polish takes before it falls back to the exact Hessian: the fits of
/// bench/million_rows.sh converge in 4 to 12; one whose law misses the data systematically
/// (a remainder the first-order part leaves out) may crawl, at a sweep per step.
const FIRST_ORDER_STEPS: usize = 30;

fn polish_once(
    problem: &Problem,
    curvature: Curvature,
    mut track: Track,
    options: &Options,
) -> (Track, usize) {
    let mut adapter = Adapter {
        problem,
        scratch: problem.tape().scratch(),
        curvature,
    };
    let m = minimize_gated(
        &mut adapter,
        &track.u,
        options,
        polish_damping(problem, curvature),
        None,
        if problem.loss().kind == crate::fit::LossKind::Linear {
            Gate {
                gradient: CONVERGED_GRADIENT,
                value: round_off_objective(problem),
            }
        } else {
            Gate::NONE
        },
    );
    track.iterations += m.iterations;
    // A converged polish that ends within rounding noise above where it began (steps judged
    // by the gradient) is still the better answer.
    let noise = 1e-9 * track.value.abs();
    if m.value <= track.value || (m.termination.converged() && m.value <= track.value + noise) {
        track.p = problem.natural(&m.u);
        let termination =
            if m.termination.converged() && on_plateau(problem, &m.u, &mut adapter.scratch) {
                Termination::Plateau
            } else {
                m.termination
            };
        track.u = m.u;
        track.value = m.value;
        track.termination = Some(termination);
    } else {
        track.termination = Some(track.termination.unwrap_or(m.termination));
    }
    (track, m.iterations)
}

/// A parameter whose whole effect on the fit (its Jacobian column times its size) is below this
/// fraction of the targets' norm does not shape the fit: a point stationary only because of it
/// is a plateau, not an optimum.
const NO_EFFECT: f64 = 1e-10;

fn on_plateau(problem: &Problem, u: &[f64], scratch: &mut Scratch) -> bool {
    let Some(model) = problem.gauss_newton(u, scratch) else {
        return false;
    };
    let target_norm = problem
        .weights()
        .iter()
        .zip(problem.target())
        .map(|(w, t)| w * t * t)
        .sum::<f64>()
        .sqrt();
    problem
        .transforms()
        .iter()
        .zip(u)
        .enumerate()
        .any(|(j, (t, &uj))| {
            // For p = lo + e^u (and the like) a unit change of u is already a relative change.
            let size = match t {
                Transform::Identity => uj.abs(),
                _ => 1.0,
            };
            model.curvature[(j, j)].abs().sqrt() * size <= NO_EFFECT * target_norm
                && !held_by_bound(problem, u, j, scratch)
        })
}

/// How far inside its bound a parameter is moved to test it, relative to the bound's size (1
/// for a bound at 0).
const BOUND_PROBE: f64 = 1e-6;

/// A parameter that has run onto a finite bound (its natural value there to rounding, where
/// the transform's dp/du vanishes) and that the objective does not want back inside sits at a
/// constrained optimum in that coordinate (the Karush–Kuhn–Tucker condition, Nocedal & Wright,
/// *Numerical Optimization*, §12.3): a floor E = 0 that the data push against is an answer,
/// not a plateau (issue 50: such fits were reported unconverged).
fn held_by_bound(problem: &Problem, u: &[f64], j: usize, scratch: &mut Scratch) -> bool {
    // `j` counts the free parameters; `p` holds every parameter.
    let p = problem.natural(u);
    let i = problem.free()[j];
    let (bound, inward) = match problem.transforms()[j] {
        Transform::Identity => return false,
        Transform::Lower(lo) => (lo, 1.0),
        Transform::Upper(hi) => (hi, -1.0),
        Transform::Interval(lo, hi) if (p[i] - lo).abs() <= (hi - p[i]).abs() => (lo, 1.0),
        Transform::Interval(_, hi) => (hi, -1.0),
    };
    let size = bound.abs().max(1.0);
    if (p[i] - bound).abs() > 1e-8 * size {
        return false;
    }
    let mut inside = p.clone();
    inside[i] = bound + inward * BOUND_PROBE * size;
    let here = problem.objective_natural(&p, scratch);
    here.is_finite() && problem.objective_natural(&inside, scratch) >= here
}

/// The objective of residuals at [`ROUND_OFF`] of the targets: ½Σw(ε·t)².
fn round_off_objective(problem: &Problem) -> f64 {
    let sum: f64 = problem
        .weights()
        .iter()
        .zip(problem.target())
        .map(|(w, t)| w * t * t)
        .sum();
    0.5 * ROUND_OFF * ROUND_OFF * sum
}

/// Tracks closer than this (relative, per parameter and in objective) follow the same path.
const MERGE_PARAMETERS: f64 = 2e-2;
const MERGE_OBJECTIVE: f64 = 1e-3;

/// Objectives closer than this absolute amount per unit of row weight count as equal: exact
/// data fits to ~1e-30, where relative differences are noise.
pub const OBJECTIVE_FLOOR: f64 = 1e-14;

fn within(problem: &Problem, a: &Track, b: &Track, parameters: f64, objective: f64) -> bool {
    let scale = a.value.abs().max(b.value.abs());
    let floor = OBJECTIVE_FLOOR * problem.total_weight();
    (a.value - b.value).abs() <= objective * scale + floor
        && close_parameters(&a.p, &b.p, parameters)
}

fn close_parameters(a: &[f64], b: &[f64], relative: f64) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= relative * 0.5 * (x.abs() + y.abs()) + 1e-12)
}

/// Two Gauss–Newton-converged tracks whose objectives agree to 1e-3 and whose parameters agree
/// to 50 % are polished once: IRLS stops them at slightly different points of one flat valley.
const SAME_LEVEL: f64 = 1e-3;
const SAME_VALLEY: f64 = 0.5;

fn mergeable(problem: &Problem, better: &Track, track: &Track) -> bool {
    if better.termination == Some(Termination::Diverged)
        || track.termination == Some(Termination::Diverged)
    {
        return false;
    }
    let both_done = better.termination.is_some() && track.termination.is_some();
    (both_done && within(problem, better, track, SAME_VALLEY, SAME_LEVEL))
        || within(problem, better, track, MERGE_PARAMETERS, MERGE_OBJECTIVE)
}

/// Merges each track into a better one nearby (in objective order, ties by start index).
/// Kept tracks are in ascending objective order, so only those within the widest objective
/// tolerance below a track are candidates (found by binary search).
fn merge_nearby(problem: &Problem, mut tracks: Vec<Track>) -> Vec<Track> {
    tracks.sort_by(|a, b| a.value.total_cmp(&b.value).then(a.index.cmp(&b.index)));
    let floor = OBJECTIVE_FLOOR * problem.total_weight();
    let widest = SAME_LEVEL.max(MERGE_OBJECTIVE);
    let mut kept: Vec<Track> = Vec::with_capacity(tracks.len());
    for track in tracks {
        let lowest = track.value - widest * track.value.abs() - floor;
        let first = kept.partition_point(|k| k.value < lowest);
        match kept[first..]
            .iter_mut()
            .find(|k| mergeable(problem, k, &track))
        {
            Some(better) => {
                better.members.extend(track.members);
            }
            None => kept.push(track),
        }
    }
    kept
}

/// Internal coordinates of a start, with linear parameters solved by variable projection, and
/// the objective there. When the least-squares solution makes the objective undefined (a
/// negative prediction under log residuals), the projection is retried with the linear
/// parameters held non-negative.
fn start_point(
    problem: &Problem,
    start: &Start,
    lower: &[f64],
    upper: &[f64],
    scratch: &mut Scratch,
) -> Option<(Vec<f64>, f64)> {
    let projected: Vec<usize> = (0..start.len()).filter(|&i| start[i].is_none()).collect();
    let base: Vec<f64> = start.iter().map(|v| v.unwrap_or(0.0)).collect();
    let non_negative: Vec<f64> = lower.iter().map(|l| l.max(0.0)).collect();
    let attempts: &[&[f64]] = if projected.is_empty() {
        &[lower]
    } else {
        &[lower, &non_negative]
    };
    attempts.iter().find_map(|lower| {
        let mut p = base.clone();
        if !projected.is_empty() {
            let theta = project_linear(problem, &p, &projected, lower, upper, scratch)?;
            for (&i, t) in projected.iter().zip(theta) {
                p[i] = t;
            }
        }
        let u = problem.internal(&p);
        let value = problem.objective(&u, scratch);
        value.is_finite().then_some((u, value))
    })
}

/// Solves the linear parameters at fixed nonlinear ones: least squares of the prediction on
/// the target, in relative terms when residuals are logarithmic (ln ŷ − ln y ≈ (ŷ − y)/y).
/// The prediction is affine in the linear parameters, so one sweep with them at 0 gives both
/// the rest of the prediction and, as its Jacobian, each linear parameter's column.
fn project_linear(
    problem: &Problem,
    p: &[f64],
    projected: &[usize],
    lower: &[f64],
    upper: &[f64],
    scratch: &mut Scratch,
) -> Option<Vec<f64>> {
    let rows = problem.projection_rows();
    let n = problem.n_rows();
    let mut base = p.to_vec();
    projected.iter().for_each(|&i| base[i] = 0.0);
    let (offset, jacobian) = problem.tape().jacobian_columns(&base, scratch);
    // A linear parameter whose effect rounds away against the rest of the prediction on every
    // row (beside a parameter held at 1e300, say) cannot be solved for: the start fails.
    let invisible = |i: usize| {
        (jacobian[i * n..(i + 1) * n].iter().zip(offset)).all(|(d, o)| (o + d) - o == 0.0)
    };
    if projected.iter().any(|&i| invisible(i)) {
        return None;
    }
    let y: Vec<f64> = (rows.target.iter().zip(offset).zip(&rows.scale))
        .map(|((y, offset), scale)| (y - offset) * scale)
        .collect();
    let columns: Vec<Vec<f64>> = projected
        .iter()
        .map(|&i| {
            (jacobian[i * n..(i + 1) * n].iter().zip(&rows.scale))
                .map(|(d, scale)| d * scale)
                .collect()
        })
        .collect();
    if columns.iter().flatten().chain(&y).any(|v| !v.is_finite()) {
        return None;
    }
    let lo: Vec<f64> = projected.iter().map(|&i| lower[i]).collect();
    let hi: Vec<f64> = projected.iter().map(|&i| upper[i]).collect();
    bounded_least_squares(&columns, &y, &lo, &hi)
}

/// Polished tracks are the same optimum when objectives agree to 1e-6 and parameters to 1 %.
pub(crate) const SAME_OBJECTIVE: f64 = 1e-6;
const SAME_PARAMETERS: f64 = 1e-2;

/// Groups polished tracks into distinct optima, best first, and counts the starts that did not
/// converge anywhere. Only converged tracks found optima; an unconverged track near one is
/// credited to it. With no converged track at all, the best track stands alone (and the fit
/// reports that it did not converge).
fn cluster(problem: &Problem, mut tracks: Vec<Track>) -> (Vec<Optimum>, usize) {
    tracks.sort_by(|a, b| a.value.total_cmp(&b.value).then(a.index.cmp(&b.index)));
    let converged = |t: &Track| t.termination.is_some_and(Termination::converged);
    let (done, unconverged): (Vec<Track>, Vec<Track>) = tracks.into_iter().partition(converged);
    let mut optima: Vec<(Track, Optimum)> = Vec::new();
    for track in done {
        match optima
            .iter_mut()
            .find(|(rep, _)| within(problem, rep, &track, SAME_PARAMETERS, SAME_OBJECTIVE))
        {
            Some((_, optimum)) => optimum.members.extend(&track.members),
            None => optima.push((track.clone(), optimum_of(&track))),
        }
    }
    // An unconverged track below every converged optimum is still the best point found: report
    // it first (the fit then says it did not converge) rather than hide it.
    let floor = OBJECTIVE_FLOOR * problem.total_weight();
    if let Some(lowest) = unconverged.first() {
        let beats = optima.first().is_none_or(|(rep, _)| {
            lowest.value < rep.value - SAME_OBJECTIVE * rep.value.abs() - floor
        });
        if beats {
            optima.insert(
                0,
                (
                    lowest.clone(),
                    Optimum {
                        members: Vec::new(),
                        ..optimum_of(lowest)
                    },
                ),
            );
        }
    }
    let mut stray = 0;
    for track in unconverged {
        match optima
            .iter_mut()
            .find(|(rep, _)| within(problem, rep, &track, SAME_PARAMETERS, SAME_OBJECTIVE))
        {
            Some((_, optimum)) => optimum.members.extend(&track.members),
            None => stray += track.members.len(),
        }
    }
    let finished = |(_, mut optimum): (Track, Optimum)| {
        optimum.members.sort_unstable();
        optimum.starts = optimum.members.len();
        optimum
    };
    (optima.into_iter().map(finished).collect(), stray)
}

fn optimum_of(track: &Track) -> Optimum {
    Optimum {
        u: track.u.clone(),
        value: track.value,
        termination: track.termination.unwrap_or(Termination::MaxIterations),
        iterations: track.iterations,
        starts: track.members.len(),
        members: track.members.clone(),
    }
}

#[cfg(test)]
mod tests {
    //! Screening a line of starts keeps the full search's optimum: on noisy learning curves of
    //! `power_offset` under least squares, the screened search (a third or fewer of the starts)
    //! ends at the same best objective as the search from every start.

    use super::*;
    use crate::fit::{prepare, FitData, FitSettings, LossKind};
    use crate::law::catalog;
    use crate::rng::Rng;

    fn curve(seed: u64) -> FitData {
        let mut rng = Rng::stream(seed, 0);
        let e = 1.5 + 1.5 * rng.uniform();
        let a = 2.0 + 18.0 * rng.uniform();
        let alpha = 0.2 + 0.6 * rng.uniform();
        let x: Vec<f64> = (0..20)
            .map(|i| 10f64.powf(2.0 + 3.0 * i as f64 / 19.0))
            .collect();
        let target = x
            .iter()
            .map(|&x| (e + a * x.powf(-alpha)) * (0.01 * rng.normal()).exp())
            .collect();
        FitData {
            target,
            variables: vec![x],
            weights: None,
            trials: None,
            exposure: None,
        }
    }

    fn best(outcome: &SearchOutcome) -> f64 {
        outcome.optima[0].value
    }

    #[test]
    fn a_screened_line_of_starts_finds_the_full_searchs_optimum() {
        let law = catalog::lookup("power_offset").unwrap();
        let settings = FitSettings {
            loss: LossKind::Linear,
            ..FitSettings::default()
        };
        let never = Interrupt::default();
        let mut screened_starts = 0;
        for seed in 0..200 {
            let prepared = prepare(&law, &curve(seed), &settings).unwrap();
            assert!(prepared.screen_line, "power_offset's alpha grid is a line");
            let run = |screen| {
                search(
                    &prepared.problem,
                    &prepared.starts,
                    &prepared.lower,
                    &prepared.upper,
                    DEFAULT_MAX_ITERATIONS,
                    &never,
                    screen,
                )
            };
            let (full, screened) = (run(false), run(true));
            screened_starts += screened.screened.len();
            let gap = (best(&screened) - best(&full)) / best(&full);
            assert!(
                gap <= 1e-9,
                "curve {seed}: the screened search ends {gap:e} above"
            );
            assert!(full.screened.is_empty());
        }
        assert!(
            screened_starts >= 200 * 5,
            "{screened_starts} starts screened of 1600"
        );
    }
}
