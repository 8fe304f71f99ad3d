//! The exact Hessian of a problem whose rows each depend on a few of its free parameters (a
//! joint fit over tracks: every row reads the shared parameters and its own track's copies),
//! taken row by row on hyper-duals as wide as a row's parameters and scattered into the full
//! matrix. The dense hyper-dual evaluation costs rows·P² per operation for P free parameters,
//! which grows like tracks⁴ in a joint fit; this costs rows·p², p the widest row. The sums run
//! in the dense evaluation's order (rows in order, blocks of [`BLOCK_ROWS`] in block order) and
//! what they leave out is exact zeros, so the numbers are the dense evaluation's. The
//! whole-column sweeps of the search (predictions, Jacobians) likewise run run by run over the
//! operations a run's rows need (see [`crate::law::tape::RunOps`]): rows·p work, not
//! rows·tracks, the values the same (a sum's adjoints may add in another order).

use std::ops::Range;

use nalgebra::{DMatrix, DVector};

use super::{LocalModel, Problem, RowGroups, BLOCK_ROWS};
use crate::law::real::{FixedHyperDual, HyperDual, Jet, SecondOrder};
use crate::law::tape::Scratch;

/// Value, gradient and the Hessian's lower triangle (row-major, dim × dim) of a sum of rows.
struct Dense {
    value: f64,
    gradient: Vec<f64>,
    lower: Vec<f64>,
}

impl Dense {
    fn zero(k: usize) -> Dense {
        Dense {
            value: 0.0,
            gradient: vec![0.0; k],
            lower: vec![0.0; k * k],
        }
    }

    /// Adds a row's jet, whose slot i is the free slot `support[i]`.
    fn scatter<T: Jet>(&mut self, row: &T, support: &[usize]) {
        let k = self.gradient.len();
        let (value, gradient, lower) = row.parts();
        let w = gradient.len();
        self.value += value;
        for (i, &a) in support.iter().enumerate() {
            self.gradient[a] += gradient[i];
            for (j, &b) in support[..=i].iter().enumerate() {
                self.lower[a * k + b] += lower[i * w + j];
            }
        }
    }

    fn add(&mut self, other: &Dense) {
        self.value += other.value;
        for (a, b) in self.gradient.iter_mut().zip(&other.gradient) {
            *a += b;
        }
        for (a, b) in self.lower.iter_mut().zip(&other.lower) {
            *a += b;
        }
    }
}

impl Problem {
    /// The rows' runs by the free parameters they depend on (made once); None when every row
    /// depends on every free parameter.
    pub fn row_groups(&self) -> Option<&RowGroups> {
        self.row_groups
            .get_or_init(|| {
                let slot_of = |p: u32| self.free.iter().position(|&f| f == p as usize);
                RowGroups::new(&self.tape, slot_of, self.dim())
            })
            .as_ref()
    }

    /// The predictions of the rows `rows` (run by run when the problem is row-sparse).
    pub(super) fn predictions<'s>(
        &self,
        p: &[f64],
        rows: Range<usize>,
        scratch: &'s mut Scratch,
    ) -> &'s [f64] {
        match self.row_groups() {
            Some(groups) => {
                let runs = groups.sweeps(&rows);
                self.tape.forward_columns_planned(p, rows, &runs, scratch)
            }
            None => self.tape.forward_columns_rows(p, rows, scratch),
        }
    }

    /// The predictions of the rows `rows` and their Jacobian (see
    /// [`crate::law::tape::BoundTape::jacobian_columns_rows`]), run by run when the problem is
    /// row-sparse.
    pub(super) fn predictions_and_jacobian<'s>(
        &self,
        p: &[f64],
        rows: Range<usize>,
        scratch: &'s mut Scratch,
    ) -> (&'s [f64], &'s [f64]) {
        match self.row_groups() {
            Some(groups) => {
                let runs = groups.sweeps(&rows);
                self.tape.jacobian_columns_planned(p, rows, &runs, scratch)
            }
            None => self.tape.jacobian_columns_rows(p, rows, scratch),
        }
    }

    /// [`Problem::exact_natural`] row by row on jets as wide as the widest row (on the stack up
    /// to 10).
    pub(super) fn exact_sparse(&self, p: &[f64], groups: &RowGroups) -> Option<LocalModel> {
        match groups.width {
            0 | 1 => self.sparse_with::<FixedHyperDual<1>>(p, groups),
            2 => self.sparse_with::<FixedHyperDual<2>>(p, groups),
            3 => self.sparse_with::<FixedHyperDual<3>>(p, groups),
            4 => self.sparse_with::<FixedHyperDual<4>>(p, groups),
            5 => self.sparse_with::<FixedHyperDual<5>>(p, groups),
            6 => self.sparse_with::<FixedHyperDual<6>>(p, groups),
            7 => self.sparse_with::<FixedHyperDual<7>>(p, groups),
            8 => self.sparse_with::<FixedHyperDual<8>>(p, groups),
            9 => self.sparse_with::<FixedHyperDual<9>>(p, groups),
            10 => self.sparse_with::<FixedHyperDual<10>>(p, groups),
            _ => self.sparse_with::<HyperDual>(p, groups),
        }
    }

    fn sparse_with<T: SecondOrder + Jet + Send>(
        &self,
        p: &[f64],
        groups: &RowGroups,
    ) -> Option<LocalModel> {
        let k = self.dim();
        let n = self.n_rows();
        let total = if n <= BLOCK_ROWS {
            self.sparse_block::<T>(p, groups, 0..n)?
        } else {
            let parts =
                self.over_blocks(|problem, rows, _| problem.sparse_block::<T>(p, groups, rows));
            let mut total = Dense::zero(k);
            for part in parts {
                total.add(&part?);
            }
            total
        };
        let hessian = DMatrix::from_fn(k, k, |a, b| total.lower[a.max(b) * k + a.min(b)]);
        total.value.is_finite().then(|| LocalModel {
            value: total.value,
            gradient: DVector::from_vec(total.gradient),
            curvature: hessian,
        })
    }

    /// The sums over the rows `rows`, run by run (None when a prediction there is invalid).
    fn sparse_block<T: SecondOrder + Jet>(
        &self,
        p: &[f64],
        groups: &RowGroups,
        rows: Range<usize>,
    ) -> Option<Dense> {
        let mut total = Dense::zero(self.dim());
        let w = groups.width.max(1);
        let mut params: Vec<T> = p.iter().map(|&v| T::constant(v, w)).collect();
        let mut values: Vec<T> = Vec::new();
        for (rows, run) in groups.within(&rows) {
            let support = &run.support;
            for (local, &slot) in support.iter().enumerate() {
                let i = self.free[slot];
                params[i] = T::variable_of(p[i], local, w);
            }
            let mut valid = true;
            let visit = |row, prediction: &T| match self.row_cost(prediction, row) {
                Some(cost) if valid => total.scatter(&cost, support),
                _ => valid = false,
            };
            self.tape
                .for_each_row_planned(&params, rows, &run.ops, &mut values, visit);
            if !valid {
                return None;
            }
            for &slot in support {
                let i = self.free[slot];
                params[i] = T::constant(p[i], w);
            }
        }
        Some(total)
    }
}
