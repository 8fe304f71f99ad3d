//! Fitting a curve law to the loss curves of training runs: the objective is the field's
//! protocol (Huber with δ = 1e-3 on log residuals, summed over every logged point of the
//! training runs; Hoffmann et al. 2022; the multi-power reference uses the same), found by a
//! deterministic global search: a grid over the nonlinear parameters, the linear ones (L0, A
//! and the annealing scale) solved by bounded least squares at each grid point (variable
//! projection starts), then Levenberg–Marquardt on all parameters from the best starts, with
//! bounds by transformation (the engine's solver).
//!
//! [`fit_penalized`] adds quadratic penalties in log space to that objective (issue 26): a
//! Gaussian prior on a parameter (for example from fits of other model sizes, a penalty whose
//! strength is stated, as in the penalised likelihood of Hoerl & Kennard 1970 or a MAP
//! estimate), or a stiff penalty holding the law's loss at one step of a schedule, whose refits
//! over a grid of held values trace the profile of the objective over that prediction (the
//! profile likelihood; Venzon & Moolgavkar 1988).

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use super::law::CurveLaw;
use super::Evaluation;
use super::{fsl, multi_power};
use crate::fit::lsq::bounded_least_squares;
use crate::fit::problem::LocalModel;
use crate::fit::solver::{self, Objective, Options, Termination};
use crate::fit::{Loss, LossKind, Transform};
use crate::interrupt::Interrupt;

/// One run's logged curve on its per-step schedule.
#[derive(Debug, Clone)]
pub struct Curve {
    pub run: String,
    pub lrs: Vec<f64>,
    pub steps: Vec<usize>,
    pub loss: Vec<f64>,
}

/// What the search found.
#[derive(Debug, Clone)]
pub struct Optimum {
    pub params: Vec<f64>,
    pub objective: f64,
    pub termination: Termination,
    pub iterations: usize,
    pub starts: usize,
    /// Asymptotic standard errors σ·sqrt(diag (JᵀJ)⁻¹) in log space (None if singular).
    pub standard_errors: Option<Vec<f64>>,
    /// The Levenberg–Marquardt damping reached, to resume from.
    damping: f64,
}

/// Huber's δ on log residuals.
pub const HUBER_DELTA: f64 = 1e-3;
/// Starts polished by Levenberg–Marquardt.
const POLISHED: usize = 1;

/// The curves a stage fits: the runs themselves, or (multi-power search) their schedules
/// coarsened into blocks.
#[derive(Clone, Copy)]
struct Stage<'a> {
    law: CurveLaw,
    curves: &'a [Curve],
    /// Steps per block of each curve's schedule (None: every entry is one step).
    widths: Option<&'a [Vec<f64>]>,
    /// Quadratic penalties added to the objective (none for a plain fit).
    penalties: &'a [Penalty],
    /// Each value penalty's schedule in the stage's blocks (empty on full schedules).
    anchors: &'a [Option<(Curve, Vec<f64>)>],
    /// Once set, the law is no longer evaluated (every value is NaN, so each search ends at
    /// once) and the caller discards what the stage found.
    stop: &'a Interrupt,
}

/// What a [`Penalty`] holds near its centre: the log of a parameter (a prior from elsewhere,
/// for example fits of other model sizes), or the log of the law's value at one step of a
/// schedule (a constrained refit: the profile of the objective over a prediction).
#[derive(Debug, Clone)]
pub enum Anchor {
    /// ln of the parameter with this index (in the law's parameter order).
    Parameter(usize),
    /// ln of the law's loss at `step` of the per-step schedule `lrs` (`step` < `lrs.len()`).
    Value { lrs: Vec<f64>, step: usize },
}

/// ½·((g − centre)/scale)² added to the fit's objective, g the anchored log quantity: a
/// Gaussian prior (or a stiff constraint, with a small scale) in log space.
#[derive(Debug, Clone)]
pub struct Penalty {
    pub anchor: Anchor,
    /// The centre, in log space.
    pub centre: f64,
    /// The standard deviation, in log space.
    pub scale: f64,
}

impl Stage<'_> {
    /// S1 at each logged step of curve `index`.
    fn area_at_steps(&self, index: usize) -> Vec<f64> {
        let curve = &self.curves[index];
        let mut sum = 0.0;
        let area: Vec<f64> = (0..curve.lrs.len())
            .map(|k| {
                sum += self.widths.map_or(1.0, |w| w[index][k]) * curve.lrs[k];
                sum
            })
            .collect();
        curve.steps.iter().map(|&s| area[s]).collect()
    }

    fn evaluate(&self, index: usize, p: &[f64], with_gradient: bool) -> Evaluation {
        if self.stop.is_interrupted() {
            let n = self.curves[index].steps.len();
            return Evaluation {
                values: vec![f64::NAN; n],
                gradient: with_gradient.then(|| vec![vec![f64::NAN; p.len()]; n]),
            };
        }
        let widths = self.widths.map(|w| w[index].as_slice());
        evaluate_in(self.law, &self.curves[index], widths, p, with_gradient)
    }

    /// (g, dg/dp) of penalty `index` at natural parameters `p`, its schedule coarsened like the
    /// stage's curves; None where g is not finite.
    fn penalty(&self, index: usize, p: &[f64], with_gradient: bool) -> Option<(f64, Vec<f64>)> {
        let penalty = &self.penalties[index];
        let (lrs, step) = match &penalty.anchor {
            Anchor::Parameter(i) => {
                let mut g = vec![0.0; p.len()];
                g[*i] = 1.0 / p[*i];
                return (p[*i] > 0.0).then(|| (p[*i].ln(), g));
            }
            Anchor::Value { lrs, step } => (lrs, *step),
        };
        let e = match (self.widths, self.anchors.get(index)) {
            (Some(_), Some(Some((curve, widths)))) => {
                evaluate_in(self.law, curve, Some(widths), p, with_gradient)
            }
            _ => self.law.evaluate(p, &lrs[..=step], &[step], with_gradient),
        };
        let v = e.values[0];
        let g = e.gradient.map_or_else(
            || vec![0.0; p.len()],
            |g| g[0].iter().map(|d| d / v).collect(),
        );
        (v > 0.0 && v.is_finite()).then(|| (v.ln(), g))
    }
}

/// The law on one curve of blocks (`widths`; None: one step each).
fn evaluate_in(
    law: CurveLaw,
    curve: &Curve,
    widths: Option<&[f64]>,
    p: &[f64],
    with_gradient: bool,
) -> Evaluation {
    match widths {
        Some(w) if law == CurveLaw::Fsl => {
            fsl::curve(p, &curve.lrs, Some(w), &curve.steps, with_gradient)
        }
        Some(w) => {
            multi_power::curve_in_blocks(p, &curve.lrs, Some(w), &curve.steps, with_gradient).into()
        }
        None => law.evaluate(p, &curve.lrs, &curve.steps, with_gradient),
    }
}

/// Each value penalty's schedule coarsened into blocks of `block` steps (as its curve and
/// widths); None for parameter penalties.
fn coarsen_anchors(penalties: &[Penalty], block: usize) -> Vec<Option<(Curve, Vec<f64>)>> {
    penalties
        .iter()
        .map(|penalty| match &penalty.anchor {
            Anchor::Parameter(_) => None,
            Anchor::Value { lrs, step } => {
                let anchor = Curve {
                    run: String::new(),
                    lrs: lrs[..=*step].to_vec(),
                    steps: vec![*step],
                    loss: vec![1.0],
                };
                let (mut coarse, mut widths) = coarsen(&[anchor], block);
                Some((coarse.remove(0), widths.remove(0)))
            }
        })
        .collect()
}

/// Steps per block at each coarse level of the multi-power search (16: evaluations about 12×
/// cheaper than on the full schedule).
const BLOCKS: [usize; 1] = [16];
/// Schedules longer than this (in all) are coarsened for the search.
const COARSEN_ABOVE: usize = 4096;
/// Levenberg–Marquardt on a stage's objective.
const SEARCH: Options = Options {
    max_iterations: 200,
    ftol: 1e-12,
    xtol: 1e-12,
    gtol: 1e-12,
};
/// The final polish on the full schedules, from the coarse optimum: parameters to 1e-9
/// (relative; their standard errors are 1e-3 or more). A fit on two schedules whose optimum
/// lies in a limit of the law (β and C at their lower bounds, γ rising) crawls there: on the
/// 400M cosine + constant curves of Luo et al. it needs 84 iterations to converge (40 stopped
/// it short and reported the fit as not converged, with γ and B still moving by 1 %), so the
/// cap is 150; fits that converge sooner are unchanged.
const POLISH: Options = Options {
    max_iterations: 150,
    ftol: 1e-12,
    xtol: 1e-7,
    gtol: 1e-12,
};

/// The final polish of a fit ([`fit`]): [`POLISH`] with room to converge. fsl fits on two
/// schedules whose optimum lies along the valley of b (C·b^(−γ) nearly fixed) crawl there: on
/// the 25M and 400M cosine + constant curves of Luo et al. the 150 iterations of [`POLISH`]
/// stopped them short (issue 26); fits that converge sooner are unchanged. The bootstrap's
/// refits keep [`POLISH`] (they start at the fit).
const FINAL_POLISH: Options = Options {
    max_iterations: 1000,
    ..POLISH
};

/// A profile trace's refits (`profile`): warm-started from the previous value's refit, a step
/// of the trace away, so 60 iterations; one stopped short has a higher objective than the
/// constrained optimum, so the trace errs towards leaving the region early.
const PROFILE: Options = Options {
    max_iterations: 60,
    ..POLISH
};

/// Each curve's schedule in blocks of at most `block` steps, every logged step ending a block
/// (so the area S1 at logged steps is exact); a block's learning rate is its mean.
fn coarsen(curves: &[Curve], block: usize) -> (Vec<Curve>, Vec<Vec<f64>>) {
    let mut coarse = Vec::new();
    let mut all_widths = Vec::new();
    for curve in curves {
        let mut ends: Vec<usize> = curve.steps.clone();
        ends.sort_unstable();
        ends.dedup();
        let (mut lrs, mut widths, mut index_of) = (Vec::new(), Vec::new(), Vec::new());
        let mut start = 0;
        for &end in &ends {
            while start <= end {
                let stop = (start + block - 1).min(end);
                let n = stop - start + 1;
                lrs.push(curve.lrs[start..=stop].iter().sum::<f64>() / n as f64);
                widths.push(n as f64);
                start = stop + 1;
            }
            index_of.push((end, lrs.len() - 1));
        }
        let steps = curve
            .steps
            .iter()
            .map(|t| {
                index_of[index_of
                    .binary_search_by_key(t, |e| e.0)
                    .expect("a logged step")]
                .1
            })
            .collect();
        coarse.push(Curve {
            run: curve.run.clone(),
            lrs,
            steps,
            loss: curve.loss.clone(),
        });
        all_widths.push(widths);
    }
    (coarse, all_widths)
}

struct CurveObjective<'a> {
    stage: Stage<'a>,
    /// Every parameter; the free ones are overwritten from u.
    template: Vec<f64>,
    free: Vec<usize>,
    /// Transforms of the free parameters.
    transforms: Vec<Transform>,
    loss: Loss,
    /// Multi-power only: the search moves B' = B·β instead of B (see [`SLOPE`]).
    slope_form: bool,
    /// fsl only: the search moves C' = C·b^(−γ) instead of C (see [`FAR`]).
    far_form: bool,
}

/// Index of C, b and γ in the fsl law. When b·u ≫ 1 at every logged step the noise term is
/// C·b^(−γ)·Σ η_k² u_k^(−γ): only C' = C·b^(−γ) is seen and b runs off with C. Searching C'
/// keeps that valley flat in b, so the search stops there instead of crawling along it.
const FAR: (usize, usize, usize) = (3, 4, 5);

/// Index of B and β in the multi-power law. As β → 0 with B·β fixed, B·G(x) tends to
/// B·β·ln(1 + C·x): a limit a single schedule often prefers, along which B and β run off
/// together. Searching B' = B·β (the initial slope of the annealing gain) keeps that valley
/// finite, so the search reaches β's bound in a few steps instead of crawling along it.
const SLOPE: (usize, usize) = (3, 5);

impl<'a> CurveObjective<'a> {
    fn new(stage: Stage<'a>, fixed: &[Option<f64>]) -> Self {
        let bounds = stage.law.bounds();
        let free: Vec<usize> = (0..bounds.len()).filter(|&i| fixed[i].is_none()).collect();
        let slope_form = stage.law == CurveLaw::MultiPower
            && fixed[SLOPE.0].is_none()
            && fixed[SLOPE.1].is_none();
        let far_form = stage.law == CurveLaw::Fsl && fixed[FAR.0].is_none();
        CurveObjective {
            slope_form,
            far_form,
            stage,
            template: fixed.iter().map(|f| f.unwrap_or(f64::NAN)).collect(),
            transforms: free
                .iter()
                .map(|&i| Transform::new(bounds[i].low(), bounds[i].high()))
                .collect(),
            free,
            loss: Loss {
                kind: LossKind::Huber,
                f_scale: HUBER_DELTA,
            },
        }
    }

    fn natural(&self, u: &[f64]) -> Vec<f64> {
        let mut p = self.template.clone();
        for ((&i, u), t) in self.free.iter().zip(u).zip(&self.transforms) {
            p[i] = t.natural(*u);
        }
        if self.slope_form {
            p[SLOPE.0] /= p[SLOPE.1];
        }
        if self.far_form {
            p[FAR.0] *= p[FAR.1].powf(p[FAR.2]);
        }
        p
    }

    fn internal(&self, p: &[f64]) -> Vec<f64> {
        let mut q = p.to_vec();
        if self.slope_form {
            q[SLOPE.0] *= q[SLOPE.1];
        }
        if self.far_form {
            q[FAR.0] *= q[FAR.1].powf(-q[FAR.2]);
        }
        self.free
            .iter()
            .zip(&self.transforms)
            .map(|(&i, t)| t.internal(q[i]))
            .collect()
    }

    /// d/d(search coordinates) from d/d(natural parameters).
    fn search_gradient(&self, p: &[f64], g: &[f64]) -> Vec<f64> {
        let mut out = g.to_vec();
        if self.slope_form {
            let (b, beta) = (p[SLOPE.0], p[SLOPE.1]);
            out[SLOPE.0] = g[SLOPE.0] / beta;
            out[SLOPE.1] = g[SLOPE.1] - g[SLOPE.0] * b / beta;
        }
        if self.far_form {
            // C = C'·b^γ: d/dC' = g_C·b^γ, d/db = g_b + g_C·γC/b, d/dγ = g_γ + g_C·C·ln b.
            let (c, b, gamma) = (p[FAR.0], p[FAR.1], p[FAR.2]);
            out[FAR.0] = g[FAR.0] * b.powf(gamma);
            out[FAR.1] = g[FAR.1] + g[FAR.0] * gamma * c / b;
            out[FAR.2] = g[FAR.2] + g[FAR.0] * c * b.ln();
        }
        out
    }

    /// Levenberg–Marquardt from `start` (every parameter, natural values).
    fn minimize(&mut self, start: &[f64], options: &Options, damping: f64) -> solver::Minimum {
        let u0 = self.internal(start);
        solver::minimize_from(self, &u0, options, damping, None)
    }

    /// (Σ cost, gradient, Gauss–Newton curvature) in internal coordinates.
    fn evaluate(&self, u: &[f64], with_model: bool) -> Option<LocalModel> {
        let p = self.natural(u);
        let k = self.free.len();
        let mut value = 0.0;
        let mut gradient = DVector::zeros(k);
        let mut curvature = DMatrix::zeros(k, k);
        let scale: Vec<f64> = u
            .iter()
            .zip(&self.transforms)
            .map(|(u, t)| t.derivatives(*u).0)
            .collect();
        for (index, curve) in self.stage.curves.iter().enumerate() {
            let e = self.stage.evaluate(index, &p, with_model);
            for (i, (&pred, &y)) in e.values.iter().zip(&curve.loss).enumerate() {
                if pred.is_nan() || pred <= 0.0 {
                    return None;
                }
                let r = y.ln() - pred.ln();
                let terms = self.loss.terms(r);
                value += terms.cost;
                if let Some(g) = &e.gradient {
                    // dr/du = −(1/pred)·dpred/dq·dq/du
                    let gq = self.search_gradient(&p, &g[i]);
                    let row: Vec<f64> = self
                        .free
                        .iter()
                        .zip(&scale)
                        .map(|(&j, s)| -gq[j] * s / pred)
                        .collect();
                    for a in 0..k {
                        gradient[a] += terms.d1 * row[a];
                        for b in 0..=a {
                            curvature[(a, b)] += terms.irls * row[a] * row[b];
                        }
                    }
                }
            }
        }
        value += self.add_penalties(&p, &scale, &mut gradient, &mut curvature, with_model)?;
        if !value.is_finite() {
            return None;
        }
        for a in 0..k {
            for b in 0..a {
                curvature[(b, a)] = curvature[(a, b)];
            }
        }
        Some(LocalModel {
            value,
            gradient,
            curvature,
        })
    }
}

impl CurveObjective<'_> {
    /// The stage's penalties at `p`: their cost, with their gradient and Gauss–Newton curvature
    /// (lower triangle) added in internal coordinates (`scale`: dp/du of each free parameter).
    fn add_penalties(
        &self,
        p: &[f64],
        scale: &[f64],
        gradient: &mut DVector<f64>,
        curvature: &mut DMatrix<f64>,
        with_model: bool,
    ) -> Option<f64> {
        let mut cost = 0.0;
        for (index, penalty) in self.stage.penalties.iter().enumerate() {
            let (g, dg) = self.stage.penalty(index, p, with_model)?;
            let r = (g - penalty.centre) / penalty.scale;
            cost += 0.5 * r * r;
            if !with_model {
                continue;
            }
            let gq = self.search_gradient(p, &dg);
            let row: Vec<f64> = self
                .free
                .iter()
                .zip(scale)
                .map(|(&j, s)| gq[j] * s / penalty.scale)
                .collect();
            for a in 0..row.len() {
                gradient[a] += r * row[a];
                for b in 0..=a {
                    curvature[(a, b)] += row[a] * row[b];
                }
            }
        }
        Some(cost)
    }
}

impl Objective for CurveObjective<'_> {
    fn dim(&self) -> usize {
        self.transforms.len()
    }

    fn value(&mut self, u: &[f64]) -> f64 {
        self.evaluate(u, false).map_or(f64::INFINITY, |m| m.value)
    }

    fn model(&mut self, u: &[f64]) -> Option<LocalModel> {
        self.evaluate(u, true)
    }
}

/// Index of the annealing scale (B or C), the linear parameter whose column needs the law.
fn scale_index(law: CurveLaw) -> Option<usize> {
    match law {
        CurveLaw::PowerArea => None,
        _ => Some(3),
    }
}

/// α values scanned at every shape point (cheap: only the A column changes).
const ALPHAS: [f64; 7] = [0.15, 0.25, 0.35, 0.45, 0.55, 0.7, 0.9];

/// The grid over the shape parameters (C, β, γ or λ), which need a pass of the law each.
fn shape_grid(law: CurveLaw) -> Vec<Vec<(usize, f64)>> {
    let mut out = Vec::new();
    match law {
        CurveLaw::MultiPower => {
            for c in [0.5, 2.0, 8.0] {
                for beta in [0.3, 0.6, 1.0] {
                    for gamma in [0.3, 0.6, 0.9] {
                        out.push(vec![(4, c), (5, beta), (6, gamma)]);
                    }
                }
            }
        }
        CurveLaw::LrAnnealing => {
            for lambda in [0.99, 0.995, 0.999, 0.9995] {
                out.push(vec![(4, lambda)]);
            }
        }
        CurveLaw::PowerArea => out.push(Vec::new()),
        CurveLaw::Fsl => {
            for b in [10.0, 100.0, 1000.0] {
                for gamma in [1.2, 1.6, 2.5] {
                    out.push(vec![(4, b), (5, gamma)]);
                }
            }
        }
    }
    out
}

/// Fits `law` to `curves` (each with at least one logged point); `fixed[i]` holds parameter i.
/// Long multi-power schedules are searched on coarsened schedules (blocks of [`BLOCKS`] steps,
/// level by level; one level of 16 measured best: a coarser first level lands far from the
/// full optimum), then polished on the full schedules with parameters that reached a bound held
/// there, so the expensive full evaluations are few.
/// A set `stop` ends the search at its next evaluation of the law (the result is then
/// meaningless: the caller checks the token).
pub fn fit(
    law: CurveLaw,
    curves: &[Curve],
    fixed: &[Option<f64>],
    stop: &Interrupt,
) -> Option<Optimum> {
    fit_penalized(law, curves, fixed, &[], stop)
}

/// [`fit`] with `penalties` added to the objective (the optimum's objective includes them).
pub fn fit_penalized(
    law: CurveLaw,
    curves: &[Curve],
    fixed: &[Option<f64>],
    penalties: &[Penalty],
    stop: &Interrupt,
) -> Option<Optimum> {
    let total: usize = curves.iter().map(|c| c.lrs.len()).sum();
    let full = Stage {
        law,
        curves,
        widths: None,
        penalties,
        anchors: &[],
        stop,
    };
    let coarsened = matches!(law, CurveLaw::MultiPower | CurveLaw::Fsl);
    if !coarsened || total <= COARSEN_ABOVE {
        return search(full, fixed);
    }
    let mut best: Option<Optimum> = None;
    for block in BLOCKS {
        let (coarse, widths) = coarsen(curves, block);
        let anchors = coarsen_anchors(penalties, block);
        let stage = Stage {
            law,
            curves: &coarse,
            widths: Some(&widths),
            penalties,
            anchors: &anchors,
            stop,
        };
        best = Some(match best {
            None => search(stage, fixed)?,
            Some(previous) => resume(stage, fixed, previous, &SEARCH)?,
        });
    }
    let rough = best?;
    let pinned = pin_at_bounds(law, &rough.params, fixed);
    let mut polished = resume(full, &pinned, rough, &FINAL_POLISH)?;
    polished.standard_errors = standard_errors(law, curves, &polished.params, &free_of(&pinned));
    Some(polished)
}

/// The bootstrap's refits of resampled copies of the training curves (`intervals`): each copy
/// differs from the training curves only in its losses, and is refitted by Levenberg–Marquardt
/// from the fit. Long multi-power schedules are refitted on the search's coarsened schedules
/// (blocks of [`BLOCKS`] steps, about 12× cheaper than the full ones); a replicate's parameters
/// are then the fit's, moved by its refit's change from the refit of the training curves
/// themselves on the same stage (in the search's coordinates), so the coarsening's own offset
/// cancels and only the resampling moves them.
pub(super) struct Refitter {
    law: CurveLaw,
    fixed: Vec<Option<f64>>,
    curves: Vec<Curve>,
    widths: Option<Vec<Vec<f64>>>,
    /// The stage's optimum on the training curves (natural values) and its search coordinates.
    base: Vec<f64>,
    base_u: Vec<f64>,
    /// The fit in search coordinates.
    fit_u: Vec<f64>,
    /// Ends a refit at its next evaluation of the law (its result is then discarded by the
    /// caller, which checks the token); unset unless [`Refitter::stopped_by`] gives one.
    stop: Interrupt,
}

impl Refitter {
    /// The refitter with its refits stopped by `stop` (a bootstrap's interrupt).
    pub(super) fn stopped_by(mut self, stop: &Interrupt) -> Refitter {
        self.stop = stop.clone();
        self
    }

    pub(super) fn new(
        law: CurveLaw,
        curves: &[Curve],
        fixed: &[Option<f64>],
        fitted: &[f64],
    ) -> Option<Refitter> {
        let total: usize = curves.iter().map(|c| c.lrs.len()).sum();
        let (curves, widths) = if law == CurveLaw::MultiPower && total > COARSEN_ABOVE {
            let (coarse, widths) = coarsen(curves, BLOCKS[0]);
            (coarse, Some(widths))
        } else {
            (curves.to_vec(), None)
        };
        let mut refitter = Refitter {
            law,
            fixed: fixed.to_vec(),
            curves,
            widths,
            base: fitted.to_vec(),
            base_u: Vec::new(),
            fit_u: Vec::new(),
            stop: Interrupt::default(),
        };
        let losses: Vec<Vec<f64>> = refitter.curves.iter().map(|c| c.loss.clone()).collect();
        let (base_u, _) = refitter.minimize(&losses)?;
        let (fit_u, base): (Vec<f64>, Vec<f64>) = {
            let objective = refitter.objective(&refitter.curves);
            (objective.internal(fitted), objective.natural(&base_u))
        };
        // A fitted parameter at its bound has no finite search coordinate (the transform clamps
        // it); there the stage's optimum, at the same bound, stands for the fit.
        let bounds = law.bounds();
        refitter.fit_u = fit_u
            .iter()
            .zip(&base_u)
            .zip(free_of(fixed))
            .map(|((&f, &b), i)| {
                if at_bound(fitted[i], &bounds[i]) {
                    b
                } else {
                    f
                }
            })
            .collect();
        refitter.base = base;
        refitter.base_u = base_u;
        Some(refitter)
    }

    fn objective<'a>(&'a self, curves: &'a [Curve]) -> CurveObjective<'a> {
        let stage = Stage {
            law: self.law,
            curves,
            widths: self.widths.as_deref(),
            penalties: &[],
            anchors: &[],
            stop: &self.stop,
        };
        CurveObjective::new(stage, &self.fixed)
    }

    /// The refit, from the stage's optimum, of the curves with these losses (one vector per
    /// curve, logged steps in order): its search coordinates and termination.
    fn minimize(&self, losses: &[Vec<f64>]) -> Option<(Vec<f64>, Termination)> {
        let curves: Vec<Curve> = self
            .curves
            .iter()
            .zip(losses)
            .map(|(c, loss)| Curve {
                loss: loss.clone(),
                ..c.clone()
            })
            .collect();
        let mut objective = self.objective(&curves);
        let m = objective.minimize(&self.base, &POLISH, solver::INITIAL_DAMPING);
        (m.value.is_finite() && m.u.iter().all(|u| u.is_finite())).then_some((m.u, m.termination))
    }

    /// The stage's optimum on the training curves (natural values) and its objective there.
    pub(super) fn stage_optimum(&self) -> (Vec<f64>, f64) {
        let value = self.objective(&self.curves).value(&self.base_u);
        (self.base.clone(), value)
    }

    /// Levenberg–Marquardt on the stage's training curves from `start` (natural values), with
    /// the parameters of `held` held at their values besides the fit's own: the natural
    /// parameters, the objective on the stage and whether it converged (None when no finite
    /// objective).
    pub(super) fn constrained(
        &self,
        held: &[Option<f64>],
        start: &[f64],
    ) -> Option<(Vec<f64>, f64, bool)> {
        let fixed: Vec<Option<f64>> = self.fixed.iter().zip(held).map(|(f, h)| f.or(*h)).collect();
        let stage = Stage {
            law: self.law,
            curves: &self.curves,
            widths: self.widths.as_deref(),
            penalties: &[],
            anchors: &[],
            stop: &self.stop,
        };
        let mut objective = CurveObjective::new(stage, &fixed);
        let m = objective.minimize(start, &PROFILE, solver::INITIAL_DAMPING);
        let params = objective.natural(&m.u);
        (m.value.is_finite() && params.iter().all(|v| v.is_finite())).then_some((
            params,
            m.value,
            m.termination.converged(),
        ))
    }

    /// A replicate's parameters (natural values) from its curves' losses; None when the refit
    /// gives no finite objective.
    pub(super) fn refit(&self, losses: &[Vec<f64>]) -> Option<(Vec<f64>, Termination)> {
        let (u, termination) = self.minimize(losses)?;
        let moved: Vec<f64> = self
            .fit_u
            .iter()
            .zip(u.iter().zip(&self.base_u))
            .map(|(f, (u, b))| f + (u - b))
            .collect();
        let params = self.objective(&self.curves).natural(&moved);
        params
            .iter()
            .all(|v| v.is_finite())
            .then_some((params, termination))
    }
}

fn free_of(fixed: &[Option<f64>]) -> Vec<usize> {
    (0..fixed.len()).filter(|&i| fixed[i].is_none()).collect()
}

/// Levenberg–Marquardt on `stage` from an earlier level's optimum, with its damping.
fn resume(
    stage: Stage,
    fixed: &[Option<f64>],
    from: Optimum,
    options: &Options,
) -> Option<Optimum> {
    let mut objective = CurveObjective::new(stage, fixed);
    let m = objective.minimize(&from.params, options, from.damping);
    m.value.is_finite().then(|| Optimum {
        params: objective.natural(&m.u),
        objective: m.value,
        termination: m.termination,
        iterations: from.iterations + m.iterations,
        starts: from.starts,
        standard_errors: None,
        damping: m.damping,
    })
}

/// `fixed`, plus every parameter within 1e-6 (relative) of a bound, held at that bound.
fn pin_at_bounds(law: CurveLaw, p: &[f64], fixed: &[Option<f64>]) -> Vec<Option<f64>> {
    let near = |v: f64, b: f64| b.is_finite() && (v - b).abs() <= 1e-6 * (1.0 + b.abs());
    law.bounds()
        .iter()
        .zip(p.iter().zip(fixed))
        .map(|(b, (&v, f))| match f {
            Some(_) => *f,
            None if near(v, b.low()) => Some(b.low()),
            None if near(v, b.high()) => Some(b.high()),
            None => None,
        })
        .collect()
}

/// The grid of starts, then Levenberg–Marquardt from the best.
fn search(stage: Stage, fixed: &[Option<f64>]) -> Option<Optimum> {
    let floor = stage
        .curves
        .iter()
        .flat_map(|c| c.loss.iter().copied())
        .fold(f64::INFINITY, f64::min);
    let mut points: Vec<Vec<(usize, f64)>> = shape_grid(stage.law)
        .into_iter()
        .map(|point| {
            point
                .into_iter()
                .filter(|(i, _)| fixed[*i].is_none())
                .collect()
        })
        .collect();
    points.dedup();
    let mut starts: Vec<(f64, Vec<f64>)> = points
        .par_iter()
        .map(|point| start_at(stage, point, fixed, floor))
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    starts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut objective = CurveObjective::new(stage, fixed);
    let mut best: Option<Optimum> = None;
    let n_starts = starts.len();
    for (_, start) in starts.into_iter().take(POLISHED) {
        let m = objective.minimize(&start, &SEARCH, solver::INITIAL_DAMPING);
        if !m.value.is_finite() || best.as_ref().is_some_and(|b| b.objective <= m.value) {
            continue;
        }
        best = Some(Optimum {
            params: objective.natural(&m.u),
            objective: m.value,
            termination: m.termination,
            iterations: m.iterations,
            starts: n_starts,
            standard_errors: None,
            damping: m.damping,
        });
    }
    let mut best = best?;
    if stage.widths.is_none() {
        best.standard_errors =
            standard_errors(stage.law, stage.curves, &best.params, &objective.free);
    }
    Some(best)
}

/// The best start at one shape point: for each α of the scan, the linear parameters (L0, A
/// and the annealing scale) by non-negative least squares on the loss, scored by the
/// objective; parameters in `fixed` stay at their values.
fn start_at(
    stage: Stage,
    point: &[(usize, f64)],
    fixed: &[Option<f64>],
    floor: f64,
) -> Option<(f64, Vec<f64>)> {
    let (law, curves) = (stage.law, stage.curves);
    let mut p = law.default_start(floor);
    for &(i, v) in point {
        p[i] = v;
    }
    for (slot, f) in p.iter_mut().zip(fixed) {
        if let Some(v) = f {
            *slot = *v;
        }
    }
    // The annealing column (the law with L0 = A = 0 and scale 1) does not depend on α.
    let scale_column: Option<Vec<f64>> = scale_index(law).map(|k| {
        let mut q = p.clone();
        q[0] = 0.0;
        q[1] = 0.0;
        q[k] = 1.0;
        (0..curves.len())
            .flat_map(|i| stage.evaluate(i, &q, false).values)
            .collect()
    });
    let areas: Vec<f64> = (0..curves.len())
        .flat_map(|i| stage.area_at_steps(i))
        .collect();
    let target: Vec<f64> = curves.iter().flat_map(|c| c.loss.iter().copied()).collect();
    let alphas: Vec<f64> = match fixed[2] {
        Some(alpha) => vec![alpha],
        None => ALPHAS.to_vec(),
    };
    let mut best: Option<(f64, Vec<f64>)> = None;
    for alpha in alphas {
        let mut q = p.clone();
        q[2] = alpha;
        let power: Vec<f64> = areas.iter().map(|s| s.powf(-alpha)).collect();
        let mut columns = vec![(0, vec![1.0; target.len()]), (1, power)];
        if let (Some(k), Some(col)) = (scale_index(law), &scale_column) {
            columns.push((k, col.clone()));
        }
        solve_linear(&mut q, &columns, &target, fixed)?;
        let predicted = predict_from_columns(&q, &columns);
        let value = huber_objective(&predicted, &target)?;
        if best.as_ref().is_none_or(|(v, _)| value < *v) {
            best = Some((value, q));
        }
    }
    best
}

/// The free linear parameters of `columns` by non-negative least squares (the fixed ones'
/// share moved to the target).
fn solve_linear(
    p: &mut [f64],
    columns: &[(usize, Vec<f64>)],
    target: &[f64],
    fixed: &[Option<f64>],
) -> Option<()> {
    let mut rest = target.to_vec();
    let mut free = Vec::new();
    for (i, col) in columns {
        match fixed[*i] {
            Some(v) => rest.iter_mut().zip(col).for_each(|(r, c)| *r -= v * c),
            None => free.push((*i, col.clone())),
        }
    }
    if free.is_empty() {
        return Some(());
    }
    // Every column enters with a plus sign (the annealing column is the law at scale 1, which
    // already carries the minus), so all are non-negative.
    let cols: Vec<Vec<f64>> = free.iter().map(|(_, c)| c.clone()).collect();
    let lower = vec![0.0; cols.len()];
    let upper = vec![f64::INFINITY; cols.len()];
    let solved = bounded_least_squares(&cols, &rest, &lower, &upper)?;
    for ((i, _), v) in free.iter().zip(solved) {
        p[*i] = v.max(1e-9);
    }
    Some(())
}

fn predict_from_columns(p: &[f64], columns: &[(usize, Vec<f64>)]) -> Vec<f64> {
    let n = columns[0].1.len();
    (0..n)
        .map(|r| columns.iter().map(|(i, c)| p[*i] * c[r]).sum())
        .collect()
}

fn huber_objective(predicted: &[f64], target: &[f64]) -> Option<f64> {
    let loss = Loss {
        kind: LossKind::Huber,
        f_scale: HUBER_DELTA,
    };
    let mut total = 0.0;
    for (pred, y) in predicted.iter().zip(target) {
        if pred.is_nan() || *pred <= 0.0 {
            return None;
        }
        total += loss.cost(y.ln() - pred.ln());
    }
    total.is_finite().then_some(total)
}

/// σ·sqrt(diag (JᵀJ)⁻¹) of the log residuals, σ² = Σr²/(n − k).
/// Fixed parameters get 0.
pub(super) fn standard_errors(
    law: CurveLaw,
    curves: &[Curve],
    p: &[f64],
    free: &[usize],
) -> Option<Vec<f64>> {
    let k = free.len();
    let mut jtj = DMatrix::<f64>::zeros(k, k);
    let (mut rss, mut n) = (0.0, 0usize);
    for curve in curves {
        let e = law.evaluate(p, &curve.lrs, &curve.steps, true);
        let g = e.gradient?;
        for (i, (&pred, &y)) in e.values.iter().zip(&curve.loss).enumerate() {
            let r = y.ln() - pred.ln();
            rss += r * r;
            n += 1;
            let row: Vec<f64> = free.iter().map(|&j| g[i][j] / pred).collect();
            for a in 0..k {
                for b in 0..k {
                    jtj[(a, b)] += row[a] * row[b];
                }
            }
        }
    }
    if n <= k {
        return None;
    }
    let sigma2 = rss / (n - k) as f64;
    let inverse = jtj.try_inverse()?;
    let mut out = vec![0.0; p.len()];
    for (a, &i) in free.iter().enumerate() {
        let v: f64 = inverse[(a, a)] * sigma2;
        out[i] = (v >= 0.0 && v.is_finite()).then(|| v.sqrt())?;
    }
    Some(out)
}

/// Whether `value` lies within 1e-6 (relative) of either bound.
fn at_bound(value: f64, bounds: &crate::fit::Bounds) -> bool {
    let near = |b: f64| b.is_finite() && (value - b).abs() <= 1e-6 * (1.0 + b.abs());
    near(bounds.low()) || near(bounds.high())
}
