//! Whole-column sweeps of a bound tape: each operation runs over every row before the next
//! (instead of every operation per row), so the interpreter's dispatch is paid once per
//! operation and the loops are tight enough for the compiler to vectorise. Every row's value
//! and its exact gradient (one row of the Jacobian, for Gauss–Newton) come out of one forward
//! and one reverse sweep: rows are independent, so seeding every row's output adjoint with 1
//! gives each row's own adjoints, which meet the prelude's Jacobian at its boundary.
//! A sweep may cover a block of rows only (`*_rows`), so a large data set is swept in blocks
//! of bounded memory.

use super::{BoundTape, Op, Scratch, Slot};

impl BoundTape {
    /// Sizes the column buffers of `scratch` for `n` rows of this tape (they only grow, so
    /// blocks of different sizes reuse one buffer).
    pub(super) fn column_buffers(&self, scratch: &mut Scratch, n: usize) {
        let size = self.ops.len() * n;
        if scratch.columns.len() < size {
            scratch.columns = vec![0.0; size];
            scratch.column_adjoints = vec![0.0; size];
        }
    }

    /// Evaluates every row at `params`; returns the output column (one value per row).
    pub fn forward_columns<'s>(&self, params: &[f64], scratch: &'s mut Scratch) -> &'s [f64] {
        self.forward_columns_rows(params, 0..self.n_rows, scratch)
    }

    /// [`BoundTape::forward_columns`] for the block `rows` only: value i is row rows.start + i.
    pub fn forward_columns_rows<'s>(
        &self,
        params: &[f64],
        rows: std::ops::Range<usize>,
        scratch: &'s mut Scratch,
    ) -> &'s [f64] {
        self.prepare(params, scratch);
        let n = rows.len();
        self.column_buffers(scratch, n);
        for slot in 0..self.ops.len() {
            let (before, rest) = scratch.columns.split_at_mut(slot * n);
            let out = &mut rest[..n];
            if slot < self.prelude.len() {
                out.fill(scratch.values[slot]);
            } else {
                self.forward_op(slot, rows.start, before, out);
            }
        }
        let last = self.ops.len() - 1;
        &scratch.columns[last * n..(last + 1) * n]
    }

    /// Evaluates every row and its gradient. Returns the output column (one value per row) and
    /// the Jacobian by parameter: `jacobian[p * n_rows + row]` = ∂value(row)/∂params[p].
    pub fn jacobian_columns<'s>(
        &self,
        params: &[f64],
        scratch: &'s mut Scratch,
    ) -> (&'s [f64], &'s [f64]) {
        self.jacobian_columns_rows(params, 0..self.n_rows, scratch)
    }

    /// [`BoundTape::jacobian_columns`] for the block `rows` only (n = its length in the
    /// Jacobian's layout: `jacobian[p * n + i]` is row rows.start + i).
    pub fn jacobian_columns_rows<'s>(
        &self,
        params: &[f64],
        rows: std::ops::Range<usize>,
        scratch: &'s mut Scratch,
    ) -> (&'s [f64], &'s [f64]) {
        let first = rows.start;
        let n = rows.len();
        self.forward_columns_rows(params, rows, scratch);
        let last = self.ops.len() - 1;
        scratch.column_adjoints[..self.ops.len() * n].fill(0.0);
        scratch.column_adjoints[last * n..(last + 1) * n].fill(1.0);
        for slot in self.row_range().rev() {
            let (before, rest) = scratch.column_adjoints.split_at_mut(slot * n);
            self.backward_column(slot, first, &rest[..n], &scratch.columns, before);
        }
        let np = self.n_params;
        let mut jacobian = std::mem::take(&mut scratch.row_jacobian);
        jacobian.clear();
        jacobian.resize(n * np, 0.0);
        for &(slot, p) in &self.boundary {
            let (s, p) = (slot as usize, p as usize);
            let d = scratch.prelude_jacobian[s * np + p];
            if d == 0.0 {
                continue;
            }
            let adjoint = &scratch.column_adjoints[s * n..(s + 1) * n];
            for (j, a) in jacobian[p * n..(p + 1) * n].iter_mut().zip(adjoint) {
                *j += a * d;
            }
        }
        scratch.row_jacobian = jacobian;
        (
            &scratch.columns[last * n..(last + 1) * n],
            &scratch.row_jacobian,
        )
    }

    /// Column of slot `slot` from the columns before it (`v[s * n ..]` is slot s), for the
    /// block of rows starting at `first`.
    fn forward_op(&self, slot: usize, first: usize, v: &[f64], out: &mut [f64]) {
        self.forward_op_of(self.ops[slot], first, v, out)
    }

    /// [`BoundTape::forward_op`] for the operation `op` (a slot's, its operands possibly
    /// resolved through a row plan's aliases).
    pub(super) fn forward_op_of(&self, op: Op, first: usize, v: &[f64], out: &mut [f64]) {
        let n = out.len();
        let col = |s: Slot| &v[s as usize * n..(s as usize + 1) * n];
        let unary = |s: Slot, out: &mut [f64], f: fn(f64) -> f64| map1(col(s), out, f);
        let binary = |a: Slot, b: Slot, out: &mut [f64], f: fn(f64, f64) -> f64| {
            map2(col(a), col(b), out, f)
        };
        match op {
            Op::Const(c) => out.fill(c),
            Op::Param(_) => out.fill(f64::NAN), // parameters live in the prelude
            Op::Var(c) => {
                for (row, o) in out.iter_mut().enumerate() {
                    *o = self.data(c, first + row);
                }
            }
            Op::PowData(c, e) => {
                for (row, (o, x)) in out.iter_mut().zip(col(e)).enumerate() {
                    *o = (x * self.data(c, first + row)).exp();
                }
            }
            Op::Add(a, b) => {
                for ((o, x), y) in out.iter_mut().zip(col(a)).zip(col(b)) {
                    *o = x + y;
                }
            }
            Op::Mul(a, b) => {
                for ((o, x), y) in out.iter_mut().zip(col(a)).zip(col(b)) {
                    *o = x * y;
                }
            }
            Op::Sub(a, b) => binary(a, b, out, |x, y| x - y),
            Op::Div(a, b) => binary(a, b, out, |x, y| x / y),
            Op::Pow(a, b) => binary(a, b, out, f64::powf),
            Op::Min(a, b) => binary(a, b, out, f64::min),
            Op::Max(a, b) => binary(a, b, out, f64::max),
            Op::Atan2(a, b) => binary(a, b, out, f64::atan2),
            Op::M4Root(a, b) => binary(a, b, out, crate::law::implicit::m4root),
            Op::Neg(a) => unary(a, out, |x| -x),
            Op::PowConst(a, c) => {
                for (o, x) in out.iter_mut().zip(col(a)) {
                    *o = x.powf(c);
                }
            }
            Op::Unary(op, a) => {
                for (o, x) in out.iter_mut().zip(col(a)) {
                    *o = op.value(*x);
                }
            }
        }
    }

    /// Adds the adjoint column of `slot` times its local partials into its operands' adjoint
    /// columns (`adjoints[s * n ..]`, all before `slot`), for the block of rows from `first`.
    fn backward_column(
        &self,
        slot: usize,
        first: usize,
        adjoint: &[f64],
        v: &[f64],
        adjoints: &mut [f64],
    ) {
        self.backward_column_of(self.ops[slot], slot, first, adjoint, v, adjoints)
    }

    /// [`BoundTape::backward_column`] for the operation `op` of `slot` (its operands possibly
    /// resolved through a row plan's aliases).
    pub(super) fn backward_column_of(
        &self,
        op: Op,
        slot: usize,
        first: usize,
        adjoint: &[f64],
        v: &[f64],
        adjoints: &mut [f64],
    ) {
        let n = adjoint.len();
        let col = |s: Slot| &v[s as usize * n..(s as usize + 1) * n];
        let own = col(slot as Slot);
        let mut add = |s: Slot, partial: &dyn Fn(usize) -> f64| {
            accumulate(
                &mut adjoints[s as usize * n..(s as usize + 1) * n],
                adjoint,
                partial,
            )
        };
        match op {
            Op::Const(_) | Op::Var(_) | Op::Param(_) => {}
            Op::Neg(x) => scaled_add(column_mut(adjoints, x, n), adjoint, -1.0),
            Op::Add(x, y) => {
                scaled_add(column_mut(adjoints, x, n), adjoint, 1.0);
                scaled_add(column_mut(adjoints, y, n), adjoint, 1.0);
            }
            Op::Sub(x, y) => {
                scaled_add(column_mut(adjoints, x, n), adjoint, 1.0);
                scaled_add(column_mut(adjoints, y, n), adjoint, -1.0);
            }
            Op::Mul(x, y) => {
                product_add(column_mut(adjoints, x, n), adjoint, col(y));
                product_add(column_mut(adjoints, y, n), adjoint, col(x));
            }
            Op::Div(x, y) => {
                let cy = col(y);
                add(x, &|r| 1.0 / cy[r]);
                add(y, &|r| -own[r] / cy[r]);
            }
            Op::Pow(x, y) => {
                let (cx, cy) = (col(x), col(y));
                add(x, &|r| cy[r] * cx[r].powf(cy[r] - 1.0));
                add(y, &|r| own[r] * cx[r].ln());
            }
            Op::PowConst(x, c) => {
                let cx = col(x);
                add(x, &|r| {
                    if c == 0.0 {
                        0.0
                    } else {
                        c * cx[r].powf(c - 1.0)
                    }
                });
            }
            Op::PowData(c, e) => {
                let target = column_mut(adjoints, e, n);
                for (row, ((t, a), o)) in target.iter_mut().zip(adjoint).zip(own).enumerate() {
                    *t += a * o * self.data(c, first + row);
                }
            }
            Op::Unary(op, x) => {
                let cx = col(x);
                add(x, &|r| op.first_derivative(cx[r], own[r]));
            }
            Op::Min(x, y) => {
                let (cx, cy) = (col(x), col(y));
                add(x, &|r| if cx[r] <= cy[r] { 1.0 } else { 0.0 });
                add(y, &|r| if cx[r] <= cy[r] { 0.0 } else { 1.0 });
            }
            Op::Max(x, y) => {
                let (cx, cy) = (col(x), col(y));
                add(x, &|r| if cx[r] >= cy[r] { 1.0 } else { 0.0 });
                add(y, &|r| if cx[r] >= cy[r] { 0.0 } else { 1.0 });
            }
            Op::Atan2(y, x) => {
                let (cy, cx) = (col(y), col(x));
                let r2 = |r: usize| cx[r] * cx[r] + cy[r] * cy[r];
                add(y, &|r| cx[r] / r2(r));
                add(x, &|r| -cy[r] / r2(r));
            }
            Op::M4Root(g, a) => {
                let d = m4root_rows(col(g), col(a));
                add(g, &|r| d[r][1]);
                add(a, &|r| d[r][2]);
            }
        }
    }
}

/// The root's partials row by row, one solve per row for both (the root is not recovered
/// exactly from its value where 1 − u is tiny).
fn m4root_rows(g: &[f64], a: &[f64]) -> Vec<[f64; 6]> {
    g.iter()
        .zip(a)
        .map(|(g, a)| crate::law::implicit::m4root_derivatives(*g, *a))
        .collect()
}

fn map1(x: &[f64], out: &mut [f64], f: fn(f64) -> f64) {
    for (o, x) in out.iter_mut().zip(x) {
        *o = f(*x);
    }
}

fn map2(x: &[f64], y: &[f64], out: &mut [f64], f: fn(f64, f64) -> f64) {
    for ((o, x), y) in out.iter_mut().zip(x).zip(y) {
        *o = f(*x, *y);
    }
}

fn column_mut(columns: &mut [f64], slot: Slot, n: usize) -> &mut [f64] {
    &mut columns[slot as usize * n..(slot as usize + 1) * n]
}

/// target += scale · adjoint.
fn scaled_add(target: &mut [f64], adjoint: &[f64], scale: f64) {
    for (t, a) in target.iter_mut().zip(adjoint) {
        *t += scale * a;
    }
}

/// target += adjoint · factor, row by row.
fn product_add(target: &mut [f64], adjoint: &[f64], factor: &[f64]) {
    for ((t, a), f) in target.iter_mut().zip(adjoint).zip(factor) {
        *t += a * f;
    }
}

/// target += adjoint · partial(row), for the less common operations.
fn accumulate(target: &mut [f64], adjoint: &[f64], partial: &dyn Fn(usize) -> f64) {
    for (row, (t, a)) in target.iter_mut().zip(adjoint).enumerate() {
        *t += a * partial(row);
    }
}
