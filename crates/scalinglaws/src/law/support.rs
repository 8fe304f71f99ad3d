//! Which parameters each row of a bound tape depends on, and how its evaluation shrinks on
//! rows where some factors are zero. A law whose rows each read only some of its parameters
//! (a joint fit over tracks, where `A = A__1·track__1 + A__2·track__2 + …` and every row's
//! indicators but one are zero) has a sparse Hessian: row r's second derivatives live on its
//! own few parameters, and its value needs none of the zero terms. Knowing them lets the exact
//! Hessian be taken row by row on jets of that width over the operations the row needs, and
//! scattered into the full matrix: rows·p² work per operation, not rows·P², with the same
//! numbers (what is left out is exact zeros).

use std::ops::Range;

use super::{BoundTape, Op, Real, Scratch, Slot};

/// How one slot is evaluated on a run of rows with the same zero terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    /// Evaluated as its operation says.
    Eval,
    /// Zero on these rows whatever the parameters.
    Zero,
    /// Equal to an earlier slot (a sum with a zero term).
    Alias(Slot),
}

/// A row's parameters (sorted) and every slot's [`Step`].
#[derive(Debug, Clone, PartialEq)]
pub struct RowPlan {
    pub support: Vec<u32>,
    pub steps: Vec<Step>,
}

impl BoundTape {
    /// For every row, the parameters its value depends on and its evaluation plan. A product
    /// with a factor that is zero on the row whatever the parameters (a zero constant or data
    /// value, or a sum, difference, negation or product of such) is zero, and so are its
    /// derivatives of every order (for finite factors; a non-finite one makes the row's value
    /// invalid anyway); a sum with such a term is the other term.
    /// Hands every row's plan to `visit`, row by row, while it returns true.
    pub fn row_plans(&self, mut visit: impl FnMut(usize, &RowPlan) -> bool) {
        let mut depends: Vec<Vec<u32>> = vec![Vec::new(); self.ops.len()];
        let mut plan = RowPlan {
            support: Vec::new(),
            steps: vec![Step::Eval; self.ops.len()],
        };
        for row in 0..self.n_rows {
            for slot in 0..self.ops.len() {
                let step = self.step_of(slot, row, &plan.steps);
                plan.steps[slot] = step;
                depends[slot] = match step {
                    Step::Zero => Vec::new(),
                    Step::Alias(s) => depends[s as usize].clone(),
                    Step::Eval => self.depends_of(slot, &depends),
                };
            }
            plan.support = depends.last().cloned().unwrap_or_default();
            if !visit(row, &plan) {
                return;
            }
        }
    }

    fn step_of(&self, slot: usize, row: usize, steps: &[Step]) -> Step {
        let zero = |s: Slot| steps[s as usize] == Step::Zero;
        let step = |yes: bool| if yes { Step::Zero } else { Step::Eval };
        match self.ops[slot] {
            Op::Const(c) => step(c == 0.0),
            Op::Var(c) => step(self.data(c, row) == 0.0),
            Op::Mul(a, b) => step(zero(a) || zero(b)),
            Op::Neg(a) => step(zero(a)),
            Op::Add(a, b) | Op::Sub(a, b) if zero(a) && zero(b) => Step::Zero,
            Op::Add(a, b) | Op::Sub(a, b) if zero(b) => Step::Alias(a),
            Op::Add(a, b) if zero(a) => Step::Alias(b),
            _ => Step::Eval,
        }
    }

    /// The parameters an evaluated slot depends on, from its operands'.
    fn depends_of(&self, slot: usize, depends: &[Vec<u32>]) -> Vec<u32> {
        if let Op::Param(p) = self.ops[slot] {
            return vec![p];
        }
        let mut union: Vec<u32> = self.ops[slot]
            .operands()
            .into_iter()
            .flatten()
            .flat_map(|s| depends[s as usize].iter().copied())
            .collect();
        union.sort_unstable();
        union.dedup();
        union
    }
}

/// What a run of rows sharing a plan evaluates in a whole-column sweep: the operations its
/// output needs, their operands resolved through aliases.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOps {
    /// Prelude slots needed (their values broadcast over the run's rows).
    prelude: Vec<Slot>,
    /// Their operations, operands read through aliases.
    prelude_ops: Vec<(Slot, Op)>,
    /// Zero slots read (a column of zeros).
    zeros: Vec<Slot>,
    /// Evaluated row slots, in order, with their operations.
    evals: Vec<(Slot, Op)>,
    /// The slot holding the output.
    output: Slot,
    /// The tape's boundary entries whose prelude slot is read.
    boundary: Vec<(Slot, u32)>,
}

impl RunOps {
    /// How many operations each row evaluates.
    pub fn per_row(&self) -> usize {
        self.evals.len()
    }
}

impl BoundTape {
    /// The sweep of rows whose plan is `steps`: every slot the output needs, operands read
    /// through aliases.
    pub fn run_ops(&self, steps: &[Step]) -> RunOps {
        let mut at: Vec<Slot> = (0..self.ops.len() as Slot).collect();
        for (slot, step) in steps.iter().enumerate() {
            if let Step::Alias(s) = step {
                at[slot] = at[*s as usize];
            }
        }
        let output = at[self.ops.len() - 1];
        let mut needed = vec![false; self.ops.len()];
        needed[output as usize] = true;
        for slot in (0..self.ops.len()).rev() {
            if needed[slot] && steps[slot] == Step::Eval {
                for s in self.ops[slot].operands().into_iter().flatten() {
                    needed[at[s as usize] as usize] = true;
                }
            }
        }
        let needed_where = |keep: &dyn Fn(usize) -> bool| -> Vec<Slot> {
            (0..self.ops.len())
                .filter(|&s| needed[s] && keep(s))
                .map(|s| s as Slot)
                .collect()
        };
        let n_prelude = self.prelude.len();
        let zeros = needed_where(&|s| steps[s] == Step::Zero);
        let prelude = needed_where(&|s| s < n_prelude && steps[s] == Step::Eval);
        let resolved = |slots: &[Slot]| -> Vec<(Slot, Op)> {
            slots
                .iter()
                .map(|&s| (s, self.ops[s as usize].map_operands(|o| at[o as usize])))
                .collect()
        };
        let prelude_ops = resolved(&prelude);
        let evals = resolved(&needed_where(&|s| s >= n_prelude && steps[s] == Step::Eval));
        let boundary = self
            .boundary
            .iter()
            .filter(|(s, _)| prelude.contains(s))
            .copied()
            .collect();
        RunOps {
            prelude,
            prelude_ops,
            zeros,
            evals,
            output,
            boundary,
        }
    }

    /// [`BoundTape::for_each_row_real`] on the rows `rows` of a run whose sweep is `plan`: only
    /// the operations the run needs, in the buffer `values` (reused across runs).
    pub fn for_each_row_planned<T: Real>(
        &self,
        params: &[T],
        rows: Range<usize>,
        plan: &RunOps,
        values: &mut Vec<T>,
        mut visit: impl FnMut(usize, &T),
    ) {
        let n = params.first().map_or(0, |p| p.dimension());
        if values.len() != self.ops.len() {
            *values = vec![T::constant(0.0, n); self.ops.len()];
        }
        for &s in &plan.zeros {
            values[s as usize] = T::constant(0.0, n);
        }
        self.fill_planned(&plan.prelude_ops, params, 0, values, n);
        for row in rows {
            self.fill_planned(&plan.evals, params, row, values, n);
            visit(row, &values[plan.output as usize]);
        }
    }

    /// Evaluates the operations `ops` at `row` into `values`, in order.
    fn fill_planned<T: Real>(
        &self,
        ops: &[(Slot, Op)],
        params: &[T],
        row: usize,
        values: &mut [T],
        n: usize,
    ) {
        for &(slot, op) in ops {
            let value = self.op_of(op, params, row, &|s| &values[s as usize], n);
            values[slot as usize] = value;
        }
    }

    /// [`BoundTape::forward_columns_rows`] run by run (`runs`: rows within `rows`, each with
    /// its sweep): the same values, from the operations each run needs.
    pub fn forward_columns_planned<'s>(
        &self,
        params: &[f64],
        rows: Range<usize>,
        runs: &[(Range<usize>, &RunOps)],
        scratch: &'s mut Scratch,
    ) -> &'s [f64] {
        self.prepare(params, scratch);
        self.column_buffers(scratch, rows.len());
        let mut output = std::mem::take(&mut scratch.planned_output);
        output.clear();
        output.resize(rows.len(), f64::NAN);
        for (run, plan) in runs {
            let m = run.len();
            self.forward_run(plan, run.start, m, scratch);
            let o = plan.output as usize;
            output[run.start - rows.start..][..m].copy_from_slice(&scratch.columns[o * m..][..m]);
        }
        scratch.planned_output = output;
        &scratch.planned_output
    }

    /// [`BoundTape::jacobian_columns_rows`] run by run (see
    /// [`BoundTape::forward_columns_planned`]): a row's gradient is zero off its run's
    /// parameters.
    pub fn jacobian_columns_planned<'s>(
        &self,
        params: &[f64],
        rows: Range<usize>,
        runs: &[(Range<usize>, &RunOps)],
        scratch: &'s mut Scratch,
    ) -> (&'s [f64], &'s [f64]) {
        self.prepare(params, scratch);
        let n = rows.len();
        self.column_buffers(scratch, n);
        let mut output = std::mem::take(&mut scratch.planned_output);
        output.clear();
        output.resize(n, f64::NAN);
        let mut jacobian = std::mem::take(&mut scratch.row_jacobian);
        jacobian.clear();
        jacobian.resize(n * self.n_params, 0.0);
        for (run, plan) in runs {
            let (m, offset) = (run.len(), run.start - rows.start);
            self.forward_run(plan, run.start, m, scratch);
            let o = plan.output as usize;
            output[offset..][..m].copy_from_slice(&scratch.columns[o * m..][..m]);
            self.backward_run(plan, run.start, m, scratch);
            let np = self.n_params;
            for &(slot, p) in &plan.boundary {
                let (s, p) = (slot as usize, p as usize);
                let d = scratch.prelude_jacobian[s * np + p];
                if d == 0.0 {
                    continue;
                }
                let adjoint = &scratch.column_adjoints[s * m..][..m];
                for (j, a) in jacobian[p * n + offset..][..m].iter_mut().zip(adjoint) {
                    *j += a * d;
                }
            }
        }
        scratch.planned_output = output;
        scratch.row_jacobian = jacobian;
        (&scratch.planned_output, &scratch.row_jacobian)
    }

    /// The columns (m rows from `first`, slot s at `s·m`) of the slots a run reads and
    /// evaluates.
    fn forward_run(&self, plan: &RunOps, first: usize, m: usize, scratch: &mut Scratch) {
        let columns = &mut scratch.columns[..self.ops.len() * m];
        for &s in &plan.prelude {
            columns[s as usize * m..][..m].fill(scratch.values[s as usize]);
        }
        for &s in &plan.zeros {
            columns[s as usize * m..][..m].fill(0.0);
        }
        for &(slot, op) in &plan.evals {
            let (before, rest) = columns.split_at_mut(slot as usize * m);
            self.forward_op_of(op, first, before, &mut rest[..m]);
        }
    }

    /// The adjoint columns of a run's slots, the output's seeded with 1.
    fn backward_run(&self, plan: &RunOps, first: usize, m: usize, scratch: &mut Scratch) {
        let Scratch {
            columns,
            column_adjoints,
            ..
        } = scratch;
        let adjoints = &mut column_adjoints[..self.ops.len() * m];
        let slots = plan.prelude.iter().chain(&plan.zeros);
        for &s in slots.chain(plan.evals.iter().map(|(s, _)| s)) {
            adjoints[s as usize * m..][..m].fill(0.0);
        }
        adjoints[plan.output as usize * m..][..m].fill(1.0);
        for &(slot, op) in plan.evals.iter().rev() {
            let (before, rest) = adjoints.split_at_mut(slot as usize * m);
            self.backward_column_of(op, slot as usize, first, &rest[..m], columns, before);
        }
    }
}
