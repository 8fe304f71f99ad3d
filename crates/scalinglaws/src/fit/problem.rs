//! The fitting objective Σ wᵢ·cost(rᵢ) of a law bound to data, with residuals in log space
//! (ln ŷ − ln y) or linear space (ŷ − y). Bounds are handled by transformation: the solvers
//! work on unbounded internal coordinates u, with p = lo + e^u, p = hi − e^u or
//! p = lo + (hi − lo)·sigmoid(u). Fixed parameters are held out of u.

use std::ops::Range;

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use super::family::{FamilyTerms, RowFamily};
use super::loss::Loss;
use crate::law::real::{sigmoid, FixedHyperDual, HyperDual, SecondOrder, Unary};

use crate::law::tape::{BoundTape, Scratch};

#[path = "row_sparse.rs"]
mod row_sparse;
pub use super::row_groups::RowGroups;
pub use super::space::Space;

/// Rows per block of the whole-column sweeps: a sweep's buffers hold (tape operations) × this
/// many values, and larger data are swept block by block, in parallel, the blocks' sums added
/// in block order (the same result at any thread count). Data up to this size are one block.
pub const BLOCK_ROWS: usize = 1 << 16;

/// Map between a bounded parameter p and its unbounded internal coordinate u.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transform {
    Identity,
    Lower(f64),
    Upper(f64),
    Interval(f64, f64),
}

impl Transform {
    pub fn new(lower: f64, upper: f64) -> Self {
        match (lower.is_finite(), upper.is_finite()) {
            (false, false) => Transform::Identity,
            (true, false) => Transform::Lower(lower),
            (false, true) => Transform::Upper(upper),
            (true, true) => Transform::Interval(lower, upper),
        }
    }

    pub fn natural(self, u: f64) -> f64 {
        match self {
            Transform::Identity => u,
            Transform::Lower(lo) => lo + u.exp(),
            Transform::Upper(hi) => hi - u.exp(),
            Transform::Interval(lo, hi) => lo + (hi - lo) * sigmoid(u),
        }
    }

    /// dp/du and d²p/du².
    pub fn derivatives(self, u: f64) -> (f64, f64) {
        match self {
            Transform::Identity => (1.0, 0.0),
            Transform::Lower(_) => (u.exp(), u.exp()),
            Transform::Upper(_) => (-u.exp(), -u.exp()),
            Transform::Interval(lo, hi) => {
                let s = sigmoid(u);
                let d1 = (hi - lo) * s * (1.0 - s);
                (d1, d1 * (1.0 - 2.0 * s))
            }
        }
    }

    /// The internal coordinate of p; values on or beyond a bound are first moved strictly inside.
    pub fn internal(self, p: f64) -> f64 {
        let inside = |gap: f64, scale: f64| match gap > 0.0 {
            true => gap,
            false => 1e-6 * scale.abs().max(1.0),
        };
        match self {
            Transform::Identity => p,
            Transform::Lower(lo) => inside(p - lo, lo).ln(),
            Transform::Upper(hi) => inside(hi - p, hi).ln(),
            Transform::Interval(lo, hi) => {
                let t = ((p - lo) / (hi - lo)).clamp(1e-6, 1.0 - 1e-6);
                (t / (1.0 - t)).ln()
            }
        }
    }
}

/// A law bound to data with a loss, a space, weights, and the free/fixed split of parameters.
#[derive(Debug, Clone)]
pub struct Problem {
    tape: BoundTape,
    /// Targets in the fitted space (ln y for log space).
    target: Vec<f64>,
    weights: Vec<f64>,
    space: Space,
    loss: Loss,
    /// Full parameter vector; free entries are overwritten from u.
    template: Vec<f64>,
    free: Vec<usize>,
    transforms: Vec<Transform>,
    /// A likelihood family in place of the loss (see [`super::family`]); None: the loss.
    family: Option<RowFamily>,
    /// What variable projection needs of the rows, made at the first start that asks.
    projection: std::sync::OnceLock<ProjectionRows>,
    /// The last exact model (natural coordinates) and where it was taken: the polish ends
    /// where it last took one, and the diagnostics ask for it there again.
    last_exact: ExactMemo,
    /// The rows by the free parameters they depend on, made at the first exact Hessian (None
    /// inside: every row depends on every free parameter).
    row_groups: std::sync::OnceLock<Option<RowGroups>>,
}

/// [`Problem::exact_natural`]'s last answer, kept for the same point asked again (bit for bit:
/// the model is a pure function of the point, so the answer is the same whichever thread
/// stored it). A clone starts empty.
#[derive(Debug, Default)]
struct ExactMemo(std::sync::Mutex<Option<(Vec<f64>, LocalModel)>>);

impl Clone for ExactMemo {
    fn clone(&self) -> Self {
        ExactMemo::default()
    }
}

impl ExactMemo {
    fn get(&self, p: &[f64]) -> Option<LocalModel> {
        let memo = self.0.lock().ok()?;
        let (at, model) = memo.as_ref()?;
        let same = at.len() == p.len() && at.iter().zip(p).all(|(a, b)| a.to_bits() == b.to_bits());
        same.then(|| model.clone())
    }

    fn set(&self, p: &[f64], model: &LocalModel) {
        if let Ok(mut memo) = self.0.lock() {
            *memo = Some((p.to_vec(), model.clone()));
        }
    }
}

/// What the variable projection of a start's linear parameters needs of each row, the same
/// at every start ([`Problem::projection_rows`]).
#[derive(Debug, Clone)]
pub struct ProjectionRows {
    /// √w, divided by y when residuals are logarithmic (ln ŷ − ln y ≈ (ŷ − y)/y).
    pub scale: Vec<f64>,
    /// y in the prediction's units.
    pub target: Vec<f64>,
}

/// Objective, gradient and a curvature matrix in internal coordinates.
#[derive(Debug, Clone)]
pub struct LocalModel {
    pub value: f64,
    pub gradient: DVector<f64>,
    pub curvature: DMatrix<f64>,
}

impl Problem {
    /// `y` must be finite (and positive in log space); the caller validates with row names.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        tape: BoundTape,
        y: &[f64],
        weights: Option<&[f64]>,
        space: Space,
        loss: Loss,
        template: Vec<f64>,
        free: Vec<usize>,
        transforms: Vec<Transform>,
    ) -> Self {
        let target = match space {
            Space::Log => y.iter().map(|v| v.ln()).collect(),
            Space::Linear => y.to_vec(),
        };
        let weights = weights.map_or_else(|| vec![1.0; y.len()], <[f64]>::to_vec);
        Problem {
            tape,
            target,
            weights,
            space,
            loss,
            template,
            free,
            transforms,
            family: None,
            projection: std::sync::OnceLock::new(),
            last_exact: ExactMemo::default(),
            row_groups: std::sync::OnceLock::new(),
        }
    }

    /// Each row's scale and target for the variable projection of linear parameters (made once).
    pub fn projection_rows(&self) -> &ProjectionRows {
        self.projection.get_or_init(|| {
            let target: Vec<f64> = match self.space {
                Space::Log => self.target.iter().map(|t| t.exp()).collect(),
                Space::Linear => self.target.clone(),
            };
            let scale = self
                .weights
                .iter()
                .zip(&target)
                .map(|(w, y)| match self.space {
                    Space::Log => w.sqrt() / y,
                    Space::Linear => w.sqrt(),
                })
                .collect();
            ProjectionRows { scale, target }
        })
    }

    /// This problem with the per-row cost of a likelihood family in place of the loss.
    pub fn with_family(mut self, family: RowFamily) -> Self {
        self.family = Some(family);
        self.last_exact = ExactMemo::default();
        self
    }

    /// The likelihood family of the objective (None: the loss of [`Problem::loss`]).
    pub fn family(&self) -> Option<&RowFamily> {
        self.family.as_ref()
    }

    /// The family's cost of `row` at `prediction` (None outside the family's domain).
    #[inline]
    fn family_terms(&self, family: &RowFamily, prediction: f64, row: usize) -> Option<FamilyTerms> {
        family.terms(prediction, self.target[row], row, self.space)
    }

    pub fn dim(&self) -> usize {
        self.free.len()
    }

    pub fn n_rows(&self) -> usize {
        self.target.len()
    }

    pub fn tape(&self) -> &BoundTape {
        &self.tape
    }

    pub fn free(&self) -> &[usize] {
        &self.free
    }

    /// The median |target| in the target's own units (1 when it has none): the scale of the
    /// law's linear parameters, so that "near a bound" means the same in any unit.
    pub fn target_scale(&self) -> f64 {
        let mut sizes: Vec<f64> = self
            .target
            .iter()
            .map(|&t| match self.space {
                Space::Log => t.exp(),
                Space::Linear => t.abs(),
            })
            .filter(|v| v.is_finite())
            .collect();
        if sizes.is_empty() {
            return 1.0;
        }
        let middle = sizes.len() / 2;
        let (_, median, _) = sizes.select_nth_unstable_by(middle, f64::total_cmp);
        match *median > 0.0 {
            true => *median,
            false => 1.0,
        }
    }

    pub fn transforms(&self) -> &[Transform] {
        &self.transforms
    }

    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    pub fn total_weight(&self) -> f64 {
        self.weights.iter().sum()
    }

    pub fn target(&self) -> &[f64] {
        &self.target
    }

    pub fn space(&self) -> Space {
        self.space
    }

    pub fn loss(&self) -> Loss {
        self.loss
    }

    /// The full natural parameter vector for internal coordinates u.
    pub fn natural(&self, u: &[f64]) -> Vec<f64> {
        let mut p = self.template.clone();
        for (k, &i) in self.free.iter().enumerate() {
            p[i] = self.transforms[k].natural(u[k]);
        }
        p
    }

    /// Internal coordinates of a full natural parameter vector.
    pub fn internal(&self, p: &[f64]) -> Vec<f64> {
        self.free
            .iter()
            .zip(&self.transforms)
            .map(|(&i, t)| t.internal(p[i]))
            .collect()
    }

    /// Residual in the fitted space from a prediction (NaN when the prediction is invalid there);
    /// for a count family the mean count is exposure × prediction, so the residual is the
    /// count's.
    #[inline]
    fn residual(&self, prediction: f64, row: usize) -> f64 {
        match &self.family {
            Some(family) if family.kind.counts() => {
                residual_of(self.space, family.size[row] * prediction, self.target[row])
            }
            _ => residual_of(self.space, prediction, self.target[row]),
        }
    }

    /// Residuals in the fitted space at natural parameters p.
    /// Column sweeps block by block (in parallel above [`BLOCK_ROWS`] rows), so the values are
    /// those the objective sums.
    pub fn residuals(&self, p: &[f64]) -> Vec<f64> {
        let block = |problem: &Problem, rows: Range<usize>, scratch: &mut Scratch| {
            let first = rows.start;
            let predictions = problem.predictions(p, rows, scratch);
            predictions
                .iter()
                .enumerate()
                .map(|(i, &prediction)| problem.residual(prediction, first + i))
                .collect::<Vec<f64>>()
        };
        let n = self.n_rows();
        if n <= BLOCK_ROWS {
            return block(self, 0..n, &mut self.tape.scratch());
        }
        self.over_blocks(block).concat()
    }

    /// The objective at natural parameters (infinite when any prediction is invalid), from
    /// whole-column sweeps of the tape, block by block (one block up to [`BLOCK_ROWS`] rows).
    pub fn objective_natural(&self, p: &[f64], scratch: &mut Scratch) -> f64 {
        let n = self.n_rows();
        let total = if n <= BLOCK_ROWS {
            self.objective_block(p, 0..n, scratch)
        } else {
            self.over_blocks(|problem, rows, scratch| problem.objective_block(p, rows, scratch))
                .into_iter()
                .sum()
        };
        if total.is_finite() {
            total
        } else {
            f64::INFINITY
        }
    }

    /// Σ w·cost over the rows `rows` (infinite when a prediction there is invalid).
    fn objective_block(&self, p: &[f64], rows: Range<usize>, scratch: &mut Scratch) -> f64 {
        let first = rows.start;
        let predictions = self.predictions(p, rows, scratch);
        let mut total = 0.0;
        if let Some(family) = &self.family {
            for (i, &prediction) in predictions.iter().enumerate() {
                let row = first + i;
                match self.family_terms(family, prediction, row) {
                    Some(terms) => total += self.weights[row] * terms.cost,
                    None => return f64::INFINITY,
                }
            }
            return total;
        }
        for (i, &prediction) in predictions.iter().enumerate() {
            let row = first + i;
            let r = self.residual(prediction, row);
            if !r.is_finite() {
                return f64::INFINITY;
            }
            total += self.weights[row] * self.loss.terms(r).cost;
        }
        total
    }

    /// `job` on every block of [`BLOCK_ROWS`] rows, in parallel, each with a per-thread
    /// scratch; the results in block order (so sums over them do not depend on the threads).
    fn over_blocks<T: Send>(
        &self,
        job: impl Fn(&Problem, Range<usize>, &mut Scratch) -> T + Sync,
    ) -> Vec<T> {
        let n = self.n_rows();
        let blocks: Vec<Range<usize>> = (0..n.div_ceil(BLOCK_ROWS))
            .map(|b| b * BLOCK_ROWS..((b + 1) * BLOCK_ROWS).min(n))
            .collect();
        blocks
            .into_par_iter()
            .map(|rows| {
                BLOCK_SCRATCH.with(|cell| {
                    // Taken, not borrowed: nothing here waits on other rayon work.
                    let mut scratch = cell.take();
                    self.tape.reset_scratch(&mut scratch);
                    let result = job(self, rows, &mut scratch);
                    cell.replace(scratch);
                    result
                })
            })
            .collect()
    }

    pub fn objective(&self, u: &[f64], scratch: &mut Scratch) -> f64 {
        self.with_natural(u, |p| self.objective_natural(p, scratch))
    }

    /// Calls `job` with the natural parameters of `u`, in a per-thread buffer (the solvers'
    /// inner loops evaluate thousands of points; this keeps them free of allocations).
    fn with_natural<T>(&self, u: &[f64], job: impl FnOnce(&[f64]) -> T) -> T {
        NATURAL.with(|buffer| {
            let mut p = buffer.take();
            p.clear();
            p.extend_from_slice(&self.template);
            for (k, &i) in self.free.iter().enumerate() {
                p[i] = self.transforms[k].natural(u[k]);
            }
            let result = job(&p);
            buffer.replace(p);
            result
        })
    }

    /// Objective, exact gradient and Gauss–Newton (IRLS) curvature in internal coordinates,
    /// from whole-column sweeps of the tape (every row's Jacobian at once, block by block).
    /// None when the objective is not finite.
    pub fn gauss_newton(&self, u: &[f64], scratch: &mut Scratch) -> Option<LocalModel> {
        let dp_du: Vec<f64> = self
            .transforms
            .iter()
            .zip(u)
            .map(|(t, &ui)| t.derivatives(ui).0)
            .collect();
        self.with_natural(u, |p| self.sweep(p, &dp_du, Weighting::Irls, scratch))
    }

    /// Objective, exact gradient and the first-derivative part of the exact Hessian, all in
    /// natural coordinates of the free parameters: Σ w·(ρ''·∇r∇rᵀ + ρ'·(∇²r)_J), where
    /// (∇²r)_J is the part of the residual's Hessian that the prediction's gradient gives
    /// (−∇f∇fᵀ/f² on log residuals, none on linear ones). What it leaves out, Σ w·ρ'·∇²f/f on
    /// log residuals (Σ w·ρ'·∇²f on linear ones), is a sum of terms of either sign that cancel
    /// near the optimum of a law that fits (the classical Gauss–Newton argument), not of one
    /// that misses the data systematically; so this is the exact Hessian up to that remainder,
    /// from one first-order sweep. None when the objective is not finite.
    pub fn newton_first_order(&self, p: &[f64], scratch: &mut Scratch) -> Option<LocalModel> {
        let ones = vec![1.0; self.dim()];
        self.sweep(p, &ones, Weighting::Newton, scratch)
    }

    /// Σ w·∇r∇rᵀ over the rows at natural parameters `p` (the normal matrix of a Gauss–Newton
    /// covariance), from block sweeps: no per-row Jacobian is kept. None when not finite.
    pub fn normal_matrix(&self, p: &[f64]) -> Option<DMatrix<f64>> {
        self.natural_sums(p, Weighting::Normal)
    }

    /// Σ (w·ρ'(r))²·∇r∇rᵀ over the rows at natural parameters `p`: the meat of the sandwich
    /// covariance (Huber 1967; White 1980), from block sweeps. None when not finite.
    pub fn sandwich_meat(&self, p: &[f64]) -> Option<DMatrix<f64>> {
        self.natural_sums(p, Weighting::Meat)
    }

    /// Σ w·(E[ρ''(r + hU)] − ρ''(r))·∇r∇rᵀ over the rows, U standard normal and h =
    /// `bandwidth`: added to the exact Hessian it gives the kernel-smoothed bread of
    /// [`super::smoothed`] (Powell 1991). None when not finite, or under a likelihood family
    /// (whose costs are smooth: nothing to smooth).
    pub fn smoothing_correction(&self, p: &[f64], bandwidth: f64) -> Option<DMatrix<f64>> {
        self.natural_sums(p, Weighting::Smoothing(bandwidth))
    }

    /// Σ (w·ρ'(r))²/(1 − hᵢ)²·∇r∇rᵀ over the rows, with the leverage hᵢ = w·∇rᵢᵀ·N⁻¹·∇rᵢ
    /// from `normal_inverse` = N⁻¹ = ([`Problem::normal_matrix`])⁻¹: the HC3 meat (MacKinnon
    /// & White 1985), from block sweeps. None when not finite, or under a likelihood family.
    pub fn leverage_meat(&self, p: &[f64], normal_inverse: &DMatrix<f64>) -> Option<DMatrix<f64>> {
        self.natural_sums(p, Weighting::LeverageMeat(normal_inverse))
    }

    fn natural_sums(&self, p: &[f64], weighting: Weighting) -> Option<DMatrix<f64>> {
        let ones = vec![1.0; self.dim()];
        let mut scratch = self.tape.scratch();
        self.sweep(p, &ones, weighting, &mut scratch)
            .map(|model| model.curvature)
    }

    /// The sums of [`RowTerms`] over every row (block by block above [`BLOCK_ROWS`]), the
    /// curvature made symmetric; None when the objective is not finite.
    fn sweep(
        &self,
        p: &[f64],
        dp_du: &[f64],
        weighting: Weighting<'_>,
        scratch: &mut Scratch,
    ) -> Option<LocalModel> {
        let k = self.dim();
        let n = self.n_rows();
        let (value, gradient, mut curvature) = if n <= BLOCK_ROWS {
            self.gauss_newton_block(p, 0..n, dp_du, weighting, scratch)?
        } else {
            let parts = self.over_blocks(|problem, rows, scratch| {
                problem.gauss_newton_block(p, rows, dp_du, weighting, scratch)
            });
            let mut total = (0.0, DVector::zeros(k), DMatrix::zeros(k, k));
            for part in parts {
                let (value, gradient, curvature) = part?;
                total.0 += value;
                total.1 += gradient;
                total.2 += curvature;
            }
            total
        };
        fill_upper(&mut curvature);
        value.is_finite().then_some(LocalModel {
            value,
            gradient,
            curvature,
        })
    }

    /// The Gauss–Newton sums over the rows `rows` (curvature's lower triangle only).
    fn gauss_newton_block(
        &self,
        p: &[f64],
        rows: Range<usize>,
        dp_du: &[f64],
        weighting: Weighting<'_>,
        scratch: &mut Scratch,
    ) -> Accumulated {
        let block = rows.clone();
        let (predictions, jacobian) = self.predictions_and_jacobian(p, rows, scratch);
        RowTerms {
            problem: self,
            first: block.start,
            target: &self.target[block.clone()],
            weights: &self.weights[block],
            predictions,
            jacobian,
            dp_du,
            weighting,
        }
        .accumulate(self.dim())
    }

    /// Objective and its exact gradient with respect to the free natural parameters (one
    /// reverse sweep per row). Infinite objective when any prediction is invalid.
    pub fn value_and_gradient(
        &self,
        p: &[f64],
        scratch: &mut Scratch,
        gradient: &mut [f64],
    ) -> f64 {
        let mut gradient_p = vec![0.0; p.len()];
        let mut value = 0.0;
        let ok = self
            .tape
            .accumulate_gradient(p, scratch, &mut gradient_p, |row, prediction| {
                if let Some(family) = &self.family {
                    let terms = self.family_terms(family, prediction, row)?;
                    let w = self.weights[row];
                    value += w * terms.cost;
                    return Some(w * terms.d1);
                }
                let r = self.residual(prediction, row);
                if !r.is_finite() {
                    return None;
                }
                let terms = self.loss.terms(r);
                let w = self.weights[row];
                value += w * terms.cost;
                Some(
                    w * terms.d1
                        * if self.space == Space::Log {
                            1.0 / prediction
                        } else {
                            1.0
                        },
                )
            });
        for (g, &i) in gradient.iter_mut().zip(&self.free) {
            *g = gradient_p[i];
        }
        if ok && value.is_finite() {
            value
        } else {
            f64::INFINITY
        }
    }

    /// Objective with its exact gradient and Hessian in natural coordinates of the free
    /// parameters (hyper-dual evaluation, on the stack for up to 10 free parameters). None when
    /// the objective is not finite.
    pub fn exact_natural(&self, p: &[f64]) -> Option<LocalModel> {
        if let Some(model) = self.last_exact.get(p) {
            return Some(model);
        }
        let model = self.exact_fresh(p)?;
        self.last_exact.set(p, &model);
        Some(model)
    }

    fn exact_fresh(&self, p: &[f64]) -> Option<LocalModel> {
        match self.row_groups() {
            Some(groups) => self.exact_sparse(p, groups),
            None => self.exact_dense(p),
        }
    }

    /// [`Problem::exact_natural`] on hyper-duals over every free parameter at every row (the
    /// row-sparse evaluation is the same numbers, and is tested against this).
    pub(crate) fn exact_dense(&self, p: &[f64]) -> Option<LocalModel> {
        match self.dim() {
            1 => self.exact_with::<FixedHyperDual<1>>(p),
            2 => self.exact_with::<FixedHyperDual<2>>(p),
            3 => self.exact_with::<FixedHyperDual<3>>(p),
            4 => self.exact_with::<FixedHyperDual<4>>(p),
            5 => self.exact_with::<FixedHyperDual<5>>(p),
            6 => self.exact_with::<FixedHyperDual<6>>(p),
            7 => self.exact_with::<FixedHyperDual<7>>(p),
            8 => self.exact_with::<FixedHyperDual<8>>(p),
            9 => self.exact_with::<FixedHyperDual<9>>(p),
            10 => self.exact_with::<FixedHyperDual<10>>(p),
            _ => self.exact_with::<HyperDual>(p),
        }
    }

    fn exact_with<T: SecondOrder + Send + Sync>(&self, p: &[f64]) -> Option<LocalModel> {
        let k = self.dim();
        let params: Vec<T> = p
            .iter()
            .enumerate()
            .map(|(i, &v)| match self.free.iter().position(|&f| f == i) {
                Some(slot) => T::variable_of(v, slot, k),
                None => T::constant(v, k),
            })
            .collect();
        let n = self.n_rows();
        let total = if n <= BLOCK_ROWS {
            self.exact_block(&params, 0..n)?
        } else {
            let parts = self.over_blocks(|problem, rows, _| problem.exact_block(&params, rows));
            let mut parts = parts.into_iter();
            let mut total = parts.next()??;
            for part in parts {
                total = total.add(&part?);
            }
            total
        };
        let (value, gradient, hessian) = total.into_parts();
        value.is_finite().then(|| LocalModel {
            value,
            gradient: DVector::from_vec(gradient),
            curvature: DMatrix::from_row_slice(k, k, &hessian),
        })
    }

    /// Σ w·cost over the rows `rows` on the hyper-dual type `T` (None when a prediction there
    /// is invalid).
    fn exact_block<T: SecondOrder>(&self, params: &[T], rows: Range<usize>) -> Option<T> {
        let k = self.dim();
        let mut total = T::constant(0.0, k);
        let mut valid = true;
        self.tape
            .for_each_row_real(params, rows, |row, prediction| {
                match self.row_cost(prediction, row) {
                    Some(cost) => total = total.add(&cost),
                    None => valid = false,
                }
            });
        valid.then_some(total)
    }

    /// Row `row`'s term w·cost of the objective on the hyper-dual type `T`, from its
    /// prediction (None when the prediction is invalid there).
    fn row_cost<T: SecondOrder>(&self, prediction: &T, row: usize) -> Option<T> {
        let w = self.weights[row];
        if let Some(family) = &self.family {
            let t = self.family_terms(family, prediction.value(), row)?;
            return Some(prediction.chain_rule(w * t.cost, w * t.d1, w * t.d2));
        }
        let r = match self.space {
            Space::Log if prediction.value() > 0.0 => prediction.unary(Unary::Ln),
            Space::Log => return None,
            Space::Linear => prediction.clone(),
        };
        let r = r.chain_rule(r.value() - self.target[row], 1.0, 0.0);
        let terms = self.loss.terms(r.value());
        Some(r.chain_rule(w * terms.cost, w * terms.d1, w * terms.d2))
    }

    /// Exact Newton model in internal coordinates: H_u = D H_p D + diag(g_p ∘ p''(u)).
    pub fn exact(&self, u: &[f64]) -> Option<LocalModel> {
        let natural = self.exact_natural(&self.natural(u))?;
        Some(self.to_internal(natural, u))
    }

    /// A model in natural coordinates of the free parameters carried to the internal
    /// coordinates `u`: g_u = D g_p, H_u = D H_p D + diag(g_p ∘ p''(u)), D = diag(p'(u)).
    pub fn to_internal(&self, natural: LocalModel, u: &[f64]) -> LocalModel {
        let k = self.dim();
        let derivs: Vec<(f64, f64)> = self
            .transforms
            .iter()
            .zip(u)
            .map(|(t, &ui)| t.derivatives(ui))
            .collect();
        let mut gradient = DVector::zeros(k);
        let mut curvature = DMatrix::zeros(k, k);
        for a in 0..k {
            gradient[a] = natural.gradient[a] * derivs[a].0;
            for b in 0..k {
                curvature[(a, b)] = derivs[a].0 * natural.curvature[(a, b)] * derivs[b].0;
            }
            curvature[(a, a)] += natural.gradient[a] * derivs[a].1;
        }
        LocalModel {
            value: natural.value,
            gradient,
            curvature,
        }
    }

    /// Per-row gradients of the residual with respect to the free natural parameters and the
    /// per-row d cost/d r (for sandwich covariances and leverage).
    pub fn residual_jacobian(&self, p: &[f64]) -> (DMatrix<f64>, Vec<f64>) {
        let k = self.dim();
        let n = self.n_rows();
        let mut scratch = self.tape.scratch();
        let mut gradient_p = vec![0.0; p.len()];
        let mut jacobian = DMatrix::zeros(n, k);
        let mut d1 = vec![0.0; n];
        for row in 0..n {
            let prediction = self
                .tape
                .gradient_row(p, row, &mut scratch, &mut gradient_p);
            let r = self.residual(prediction, row);
            let scale = if self.space == Space::Log {
                1.0 / prediction
            } else {
                1.0
            };
            for (a, &i) in self.free.iter().enumerate() {
                jacobian[(row, a)] = gradient_p[i] * scale;
            }
            d1[row] = self.loss.terms(r).d1;
        }
        (jacobian, d1)
    }
}

/// Residual in `space` of a prediction against a target already in that space.
#[inline]
fn residual_of(space: Space, prediction: f64, target: f64) -> f64 {
    match space {
        Space::Log if prediction > 0.0 => prediction.ln() - target,
        Space::Log => f64::NAN,
        Space::Linear => prediction - target,
    }
}

/// The Gauss–Newton model from every row's prediction and Jacobian, column by column: one pass
/// over the rows for the residuals and loss terms, then the gradient and curvature as dot
/// products of Jacobian columns (contiguous, so they vectorise). The transform's dp/du is a
/// per-parameter factor applied after the sums.
struct RowTerms<'a> {
    problem: &'a Problem,
    /// The block's first row (a family's per-row trials or exposure are indexed by row).
    first: usize,
    /// The block's targets and weights (row i of the block at index i).
    target: &'a [f64],
    weights: &'a [f64],
    predictions: &'a [f64],
    /// By parameter: ∂prediction(row)/∂params[p] at `p * n_rows + row`.
    jacobian: &'a [f64],
    dp_du: &'a [f64],
    weighting: Weighting<'a>,
}

/// The per-row curvature weight of a [`RowTerms`] sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Weighting<'m> {
    /// ρ'(z) (IRLS): positive semi-definite everywhere, for the search far from an optimum.
    Irls,
    /// ρ''(r) and the first-order part of ∇²r (see [`Problem::newton_first_order`]): the
    /// exact Hessian up to a small remainder, for Newton steps near an optimum.
    Newton,
    /// 1: Σ w·∇r∇rᵀ, the normal matrix of the Gauss–Newton covariance.
    Normal,
    /// w·ρ'²: Σ (w·ρ')²·∇r∇rᵀ, the meat of the sandwich covariance.
    Meat,
    /// E[ρ''(r + hU)] − ρ''(r) at bandwidth h: what smooths the bread's ρ''
    /// ([`Problem::smoothing_correction`]).
    Smoothing(f64),
    /// w·ρ'²/(1 − hᵢ)² with the leverage from N⁻¹ ([`Problem::leverage_meat`]).
    LeverageMeat(&'m DMatrix<f64>),
}

/// The smallest 1 − hᵢ an HC3 weight divides by: a row the fit passes through exactly (hᵢ = 1)
/// says nothing of the spread, and its weight stays finite (at most 10⁶ times ρ'²).
const MIN_LEVER_GAP: f64 = 1e-3;

type Accumulated = Option<(f64, DVector<f64>, DMatrix<f64>)>;

thread_local! {
    /// Per-thread buffer of natural parameters (see [`Problem::with_natural`]).
    static NATURAL: std::cell::Cell<Vec<f64>> = const { std::cell::Cell::new(Vec::new()) };
    /// Per-thread evaluation buffers of the blocks of [`Problem::over_blocks`].
    static BLOCK_SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
    /// Per-thread row buffers of [`RowTerms::accumulate`] (g, h, h·jₐ), reused across passes.
    static ROW_BUFFERS: std::cell::RefCell<(Vec<f64>, Vec<f64>, Vec<f64>)> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

impl RowTerms<'_> {
    /// The objective and, per row, the weights of the gradient and curvature sums in natural
    /// coordinates (w·ρ'·∂r/∂ŷ and w·IRLS·(∂r/∂ŷ)², written into `g` and `h`); None when a
    /// residual is not finite.
    fn row_weights(&self, g: &mut Vec<f64>, h: &mut Vec<f64>) -> Option<f64> {
        let problem = self.problem;
        g.clear();
        h.clear();
        if let Some(family) = &problem.family {
            return self.family_row_weights(family, g, h);
        }
        if problem.space == Space::Log
            && problem.loss.kind == crate::fit::LossKind::Huber
            && self.weighting == Weighting::Irls
        {
            return self.log_huber_row_weights(g, h);
        }
        let mut value = 0.0;
        for (row, &prediction) in self.predictions.iter().enumerate() {
            let r = residual_of(problem.space, prediction, self.target[row]);
            if !r.is_finite() {
                return None;
            }
            let dr = if problem.space == Space::Log {
                1.0 / prediction
            } else {
                1.0
            };
            let terms = problem.loss.terms(r);
            let w = self.weights[row];
            value += w * terms.cost;
            g.push(w * terms.d1 * dr);
            h.push(w * self.curvature_weight(&terms, w, (row, r, dr)) * dr * dr);
        }
        Some(value)
    }

    /// [`RowTerms::row_weights`] under a likelihood family: the gradient weight w·dc/df and
    /// the curvature weight w·(Fisher information) for IRLS (Fisher scoring) and the normal
    /// matrix (the expected information), w·d²c/df² for Newton, (w·dc/df)² for the meat.
    fn family_row_weights(
        &self,
        family: &RowFamily,
        g: &mut Vec<f64>,
        h: &mut Vec<f64>,
    ) -> Option<f64> {
        let mut value = 0.0;
        for (i, &prediction) in self.predictions.iter().enumerate() {
            let terms = family.terms(
                prediction,
                self.target[i],
                self.first + i,
                self.problem.space,
            )?;
            let w = self.weights[i];
            value += w * terms.cost;
            g.push(w * terms.d1);
            h.push(match self.weighting {
                Weighting::Irls | Weighting::Normal => w * terms.fisher,
                Weighting::Newton => w * terms.d2,
                Weighting::Meat => w * w * terms.d1 * terms.d1,
                Weighting::Smoothing(_) | Weighting::LeverageMeat(_) => return None,
            });
        }
        Some(value)
    }

    /// jᵀ·M·j for the prediction's gradient j of block row `row` (free parameters).
    fn quadratic_form(&self, row: usize, m: &DMatrix<f64>) -> f64 {
        let k = m.nrows();
        let j = |slot: usize| self.column(slot)[row];
        (0..k)
            .map(|a| j(a) * (0..k).map(|b| m[(a, b)] * j(b)).sum::<f64>())
            .sum()
    }

    /// The factor of w·(∂r/∂ŷ)² in the curvature sum: ρ'(z) for IRLS; for Newton ρ''(r), less
    /// ρ'(r) on log residuals (whose ∂²r/∂ŷ² is −(∂r/∂ŷ)²); 1 for the normal matrix; w·ρ'² for
    /// the sandwich's meat, divided by (1 − hᵢ)² for HC3; the kernel-smoothed ρ'' less ρ'' for
    /// the smoothing of the bread. The triple: the block row, its residual r and ∂r/∂ŷ.
    #[inline]
    fn curvature_weight(
        &self,
        terms: &crate::fit::loss::CostTerms,
        w: f64,
        (row, r, dr): (usize, f64, f64),
    ) -> f64 {
        match (self.weighting, self.problem.space) {
            (Weighting::Smoothing(bandwidth), _) => {
                super::kernel::smoothed_curvature(self.problem.loss, r, bandwidth) - terms.d2
            }
            (Weighting::LeverageMeat(inverse), _) => {
                let lever = w * dr * dr * self.quadratic_form(row, inverse);
                w * terms.d1 * terms.d1 / (1.0 - lever).max(MIN_LEVER_GAP).powi(2)
            }
            (Weighting::Irls, _) => terms.irls,
            (Weighting::Newton, Space::Log) => terms.d2 - terms.d1,
            (Weighting::Newton, Space::Linear) => terms.d2,
            (Weighting::Normal, _) => 1.0,
            (Weighting::Meat, _) => w * terms.d1 * terms.d1,
        }
    }

    /// [`RowTerms::row_weights`] for the field's default (Huber on log residuals), in two
    /// passes: the logs, then branch-free loss terms the compiler can vectorise. The same
    /// numbers as the general path (`Loss::terms`), row for row.
    fn log_huber_row_weights(&self, g: &mut Vec<f64>, h: &mut Vec<f64>) -> Option<f64> {
        let problem = self.problem;
        if self
            .predictions
            .iter()
            .any(|p| !(*p > 0.0 && p.is_finite()))
        {
            return None;
        }
        g.extend(self.predictions.iter().map(|p| p.ln()));
        let f = problem.loss.f_scale;
        let mut value = 0.0;
        h.resize(g.len(), 0.0);
        for (((gr, hr), &prediction), (&y, &w)) in g
            .iter_mut()
            .zip(h.iter_mut())
            .zip(self.predictions)
            .zip(self.target.iter().zip(self.weights))
        {
            let r = *gr - y;
            let a = r.abs();
            let inside = a <= f;
            let cost = if inside {
                0.5 * r * r
            } else {
                f * (a - 0.5 * f)
            };
            let d1 = if inside { r } else { f.copysign(r) };
            let irls = if inside { 1.0 } else { f / a };
            let dr = 1.0 / prediction;
            value += w * cost;
            *gr = w * d1 * dr;
            *hr = w * irls * dr * dr;
        }
        (value.is_finite() && g.iter().all(|x| x.is_finite())).then_some(value)
    }

    fn column(&self, slot: usize) -> &[f64] {
        let n = self.predictions.len();
        let i = self.problem.free[slot];
        &self.jacobian[i * n..(i + 1) * n]
    }

    fn accumulate(&self, k: usize) -> Accumulated {
        ROW_BUFFERS.with(|buffers| {
            let (g, h, weighted) = &mut *buffers.borrow_mut();
            let value = self.row_weights(g, h)?;
            let columns: Vec<&[f64]> = (0..k).map(|slot| self.column(slot)).collect();
            let spans: Vec<Range<usize>> = columns.iter().map(|c| nonzero_span(c)).collect();
            let gradient = DVector::from_fn(k, |a, _| self.dp_du[a] * dot(g, columns[a]));
            let mut curvature = DMatrix::zeros(k, k);
            weighted.resize(g.len(), 0.0);
            for a in 0..k {
                for ((out, hr), ja) in weighted.iter_mut().zip(h.iter()).zip(columns[a]) {
                    *out = hr * ja;
                }
                for b in 0..=a {
                    let span = spans[a].start.max(spans[b].start)..spans[a].end.min(spans[b].end);
                    if span.is_empty() {
                        continue;
                    }
                    let d = dot(&weighted[span.clone()], &columns[b][span]);
                    curvature[(a, b)] = self.dp_du[a] * self.dp_du[b] * d;
                }
            }
            Some((value, gradient, curvature))
        })
    }
}

/// The rows outside which a Jacobian column is zero (a joint fit's copy of a parameter is read
/// by its own track's rows only), widened to whole lanes of [`dot`]: a dot product over the
/// span puts every product in the lane the whole column's would, and the products it leaves
/// out are zeros, so it is the whole column's, bit for bit. Empty for a zero column.
fn nonzero_span(column: &[f64]) -> Range<usize> {
    let Some(first) = column.iter().position(|&x| x != 0.0) else {
        return 0..0;
    };
    let last = column.iter().rposition(|&x| x != 0.0).unwrap_or(first);
    let whole = column.len() - column.len() % 4;
    let end = if last >= whole {
        column.len()
    } else {
        (last / 4 + 1) * 4
    };
    first / 4 * 4..end
}

/// Σ x·y, in four independent lanes (so it vectorises and does not wait on one sum).
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut lanes = [0.0; 4];
    let (xc, yc) = (x.chunks_exact(4), y.chunks_exact(4));
    let (xr, yr) = (xc.remainder(), yc.remainder());
    for (a, b) in xc.zip(yc) {
        for lane in 0..4 {
            lanes[lane] += a[lane] * b[lane];
        }
    }
    let tail: f64 = xr.iter().zip(yr).map(|(a, b)| a * b).sum();
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

fn fill_upper(m: &mut DMatrix<f64>) {
    for a in 0..m.nrows() {
        for b in 0..a {
            m[(b, a)] = m[(a, b)];
        }
    }
}
