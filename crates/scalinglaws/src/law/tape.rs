//! A law compiled once into a tape: a flat list of operations in evaluation order, with common
//! subexpressions shared and constants folded. Binding the tape to a dataset moves every
//! parameter-free subexpression (`C/(6*N)`, `log(N)`, `D/U - 1`) into precomputed columns and
//! precomputes `ln x` of data that is raised to a parameter power, so the per-row work of a fit
//! is only the part that depends on the parameters. The bound tape evaluates a row on `f64`,
//! gives the exact gradient of a row by one reverse sweep, and evaluates on any [`Real`]
//! (hyper-duals give exact Hessians).

use std::collections::HashMap;

#[path = "columnar.rs"]
mod columnar;
#[path = "support.rs"]
mod support;
pub use support::{RowPlan, RunOps, Step};

use super::expr::{BinOp, Expr, Func, Program};
use super::real::{Real, Unary};

pub type Slot = u32;

/// One tape operation; operands are earlier slots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Const(f64),
    /// A variable (before binding: the law's variable index; after: a bound column).
    Var(u32),
    Param(u32),
    Neg(Slot),
    Add(Slot, Slot),
    Sub(Slot, Slot),
    Mul(Slot, Slot),
    Div(Slot, Slot),
    /// Both operands may depend on parameters; the base must be positive.
    Pow(Slot, Slot),
    PowConst(Slot, f64),
    /// column^exponent with a positive data column (its log is precomputed).
    PowData(u32, Slot),
    Unary(Unary, Slot),
    Min(Slot, Slot),
    Max(Slot, Slot),
    /// atan2(y, x): the angle of the point (x, y).
    Atan2(Slot, Slot),
    /// m4root(g, a): the root u of u = g·(1 − u)^a.
    M4Root(Slot, Slot),
}

impl Op {
    fn key(&self) -> (u8, u64, u64) {
        use Op::*;
        let s = |x: Slot| x as u64;
        match *self {
            Const(v) => (0, v.to_bits(), 0),
            Var(i) => (1, i as u64, 0),
            Param(i) => (2, i as u64, 0),
            Neg(a) => (3, s(a), 0),
            Add(a, b) => (4, s(a), s(b)),
            Sub(a, b) => (5, s(a), s(b)),
            Mul(a, b) => (6, s(a), s(b)),
            Div(a, b) => (7, s(a), s(b)),
            Pow(a, b) => (8, s(a), s(b)),
            PowConst(a, c) => (9, s(a), c.to_bits()),
            PowData(c, e) => (10, c as u64, s(e)),
            Unary(u, a) => (11 + u as u8, s(a), 0),
            Min(a, b) => (40, s(a), s(b)),
            Max(a, b) => (41, s(a), s(b)),
            Atan2(a, b) => (42, s(a), s(b)),
            M4Root(a, b) => (43, s(a), s(b)),
        }
    }

    /// The operand slots of this operation.
    fn operands(&self) -> [Option<Slot>; 2] {
        use Op::*;
        match *self {
            Const(_) | Var(_) | Param(_) => [None, None],
            Neg(a) | PowConst(a, _) | Unary(_, a) | PowData(_, a) => [Some(a), None],
            Add(a, b)
            | Sub(a, b)
            | Mul(a, b)
            | Div(a, b)
            | Pow(a, b)
            | Min(a, b)
            | Max(a, b)
            | Atan2(a, b)
            | M4Root(a, b) => [Some(a), Some(b)],
        }
    }

    fn map_operands(&self, f: impl Fn(Slot) -> Slot) -> Op {
        use Op::*;
        match *self {
            Neg(a) => Neg(f(a)),
            Add(a, b) => Add(f(a), f(b)),
            Sub(a, b) => Sub(f(a), f(b)),
            Mul(a, b) => Mul(f(a), f(b)),
            Div(a, b) => Div(f(a), f(b)),
            Pow(a, b) => Pow(f(a), f(b)),
            PowConst(a, c) => PowConst(f(a), c),
            PowData(c, e) => PowData(c, f(e)),
            Unary(u, a) => Unary(u, f(a)),
            Min(a, b) => Min(f(a), f(b)),
            Max(a, b) => Max(f(a), f(b)),
            Atan2(a, b) => Atan2(f(a), f(b)),
            M4Root(a, b) => M4Root(f(a), f(b)),
            leaf => leaf,
        }
    }
}

/// What an identifier in a formula refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbol {
    Variable(u32),
    Parameter(u32),
}

/// A compiled law, not yet bound to data.
#[derive(Debug, Clone)]
pub struct Tape {
    ops: Vec<Op>,
    n_params: usize,
}

/// Builds a tape with hash-consing and constant folding.
struct Builder {
    ops: Vec<Op>,
    index: HashMap<(u8, u64, u64), Slot>,
}

impl Builder {
    fn new() -> Self {
        Builder {
            ops: Vec::new(),
            index: HashMap::new(),
        }
    }

    fn constant_of(&self, slot: Slot) -> Option<f64> {
        match self.ops[slot as usize] {
            Op::Const(v) => Some(v),
            _ => None,
        }
    }

    fn push(&mut self, op: Op) -> Slot {
        let op = self.fold(op);
        let key = op.key();
        if let Some(&slot) = self.index.get(&key) {
            return slot;
        }
        let slot = self.ops.len() as Slot;
        self.ops.push(op);
        self.index.insert(key, slot);
        slot
    }

    /// Constant folding and the few rewrites that make evaluation cheaper.
    fn fold(&self, op: Op) -> Op {
        let [a, b] = op.operands();
        let ca = a.and_then(|s| self.constant_of(s));
        let cb = b.and_then(|s| self.constant_of(s));
        let all_constant = ca.is_some() && (b.is_none() || cb.is_some());
        if all_constant && !matches!(op, Op::PowData(..)) {
            return Op::Const(eval_op_f64(
                &op,
                &|s| self.constant_of(s).unwrap_or(f64::NAN),
                &|_| f64::NAN,
            ));
        }
        match op {
            Op::Pow(base, _) if cb.is_some() => Op::PowConst(base, cb.unwrap_or(1.0)),
            other => other,
        }
    }

    fn expr(
        &mut self,
        expr: &Expr,
        locals: &HashMap<String, Slot>,
        symbol: &dyn Fn(&str) -> Symbol,
    ) -> Slot {
        let resolve = locals;
        match expr {
            Expr::Num(v) => self.push(Op::Const(*v)),
            Expr::Ident { name, .. } => match (locals.get(name), symbol(name)) {
                (Some(&slot), _) => slot,
                (None, Symbol::Variable(i)) => self.push(Op::Var(i)),
                (None, Symbol::Parameter(i)) => self.push(Op::Param(i)),
            },
            Expr::Neg(a) => {
                let a = self.expr(a, resolve, symbol);
                self.push(Op::Neg(a))
            }
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a, resolve, symbol), self.expr(b, resolve, symbol));
                self.push(match op {
                    BinOp::Add => Op::Add(a, b),
                    BinOp::Sub => Op::Sub(a, b),
                    BinOp::Mul => Op::Mul(a, b),
                    BinOp::Div => Op::Div(a, b),
                    BinOp::Pow => Op::Pow(a, b),
                })
            }
            Expr::Call(func, args) => {
                let a = self.expr(&args[0], resolve, symbol);
                let op = match func {
                    Func::Exp => Op::Unary(Unary::Exp, a),
                    Func::Log => Op::Unary(Unary::Ln, a),
                    Func::Log10 => Op::Unary(Unary::Log10, a),
                    Func::Sqrt => Op::Unary(Unary::Sqrt, a),
                    Func::Sigmoid => Op::Unary(Unary::Sigmoid, a),
                    Func::Sin => Op::Unary(Unary::Sin, a),
                    Func::Cos => Op::Unary(Unary::Cos, a),
                    Func::Tan => Op::Unary(Unary::Tan, a),
                    Func::Atan => Op::Unary(Unary::Atan, a),
                    Func::Tanh => Op::Unary(Unary::Tanh, a),
                    Func::Abs => Op::Unary(Unary::Abs, a),
                    Func::Log1p => Op::Unary(Unary::Log1p, a),
                    Func::Expm1 => Op::Unary(Unary::Expm1, a),
                    Func::Softplus => Op::Unary(Unary::Softplus, a),
                    Func::Min => Op::Min(a, self.expr(&args[1], resolve, symbol)),
                    Func::Max => Op::Max(a, self.expr(&args[1], resolve, symbol)),
                    Func::Atan2 => Op::Atan2(a, self.expr(&args[1], resolve, symbol)),
                    Func::M4Root => Op::M4Root(a, self.expr(&args[1], resolve, symbol)),
                    // The parser turns pow(a, b) into a^b; kept for completeness.
                    Func::Pow => Op::Pow(a, self.expr(&args[1], resolve, symbol)),
                };
                self.push(op)
            }
        }
    }
}

/// Value of one operation given the values of its operands (`slot`) and, for `Var`/`PowData`,
/// the data (`data(i)`: column value; for `PowData` the caller passes ln x through `data`).
#[inline]
fn eval_op_f64(op: &Op, slot: &impl Fn(Slot) -> f64, data: &impl Fn(u32) -> f64) -> f64 {
    match *op {
        Op::Const(v) => v,
        Op::Var(i) => data(i),
        Op::Param(_) => f64::NAN,
        Op::Neg(a) => -slot(a),
        Op::Add(a, b) => slot(a) + slot(b),
        Op::Sub(a, b) => slot(a) - slot(b),
        Op::Mul(a, b) => slot(a) * slot(b),
        Op::Div(a, b) => slot(a) / slot(b),
        Op::Pow(a, b) => slot(a).powf(slot(b)),
        Op::PowConst(a, c) => slot(a).powf(c),
        Op::PowData(c, e) => (slot(e) * data(c)).exp(),
        Op::Unary(u, a) => u.value(slot(a)),
        Op::Min(a, b) => slot(a).min(slot(b)),
        Op::Max(a, b) => slot(a).max(slot(b)),
        Op::Atan2(a, b) => slot(a).atan2(slot(b)),
        Op::M4Root(a, b) => crate::law::implicit::m4root(slot(a), slot(b)),
    }
}

impl Tape {
    /// Compiles a parsed program; `symbol` says what each free identifier is (definitions are
    /// resolved here). Unknown identifiers must have been rejected by the caller.
    pub fn compile(program: &Program, symbol: &dyn Fn(&str) -> Symbol, n_params: usize) -> Tape {
        let mut builder = Builder::new();
        let mut locals: HashMap<String, Slot> = HashMap::new();
        for (name, expr) in &program.definitions {
            let slot = builder.expr(expr, &locals, symbol);
            locals.insert(name.clone(), slot);
        }
        let output = builder.expr(&program.body, &locals, symbol);
        let ops = keep_reachable(&builder.ops, output);
        Tape { ops, n_params }
    }

    /// The law at one point on any number type, straight from the compiled operations: every
    /// operation runs on `T`, the parameter-free ones too (binding would compute those on f64
    /// first). For [`crate::law::real::Wide`], whose point is that no intermediate is rounded
    /// to f64's range.
    pub fn eval_point_real<T: Real>(&self, params: &[T], variables: &[f64]) -> T {
        let n = params.first().map_or(0, |p| p.dimension());
        let mut values: Vec<T> = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            let s = |slot: Slot| &values[slot as usize];
            let value = match *op {
                Op::Const(c) => T::constant(c, n),
                Op::Var(i) => {
                    T::constant(variables.get(i as usize).copied().unwrap_or(f64::NAN), n)
                }
                Op::Param(p) => params[p as usize].clone(),
                Op::Neg(x) => s(x).neg(),
                Op::Add(x, y) => s(x).add(s(y)),
                Op::Sub(x, y) => s(x).sub(s(y)),
                Op::Mul(x, y) => s(x).mul(s(y)),
                Op::Div(x, y) => s(x).div(s(y)),
                Op::Pow(x, y) => s(x).pow(s(y)),
                Op::PowConst(x, c) => s(x).powc(c),
                // Only binding creates PowData; an unbound tape has none.
                Op::PowData(..) => T::constant(f64::NAN, n),
                Op::Unary(u, x) => s(x).unary(u),
                Op::Atan2(y, x) => s(y).atan2(s(x)),
                Op::M4Root(g, a) => s(g).m4root(s(a)),
                Op::Min(x, y) => if s(x).value() <= s(y).value() {
                    s(x)
                } else {
                    s(y)
                }
                .clone(),
                Op::Max(x, y) => if s(x).value() >= s(y).value() {
                    s(x)
                } else {
                    s(y)
                }
                .clone(),
            };
            values.push(value);
        }
        values.pop().unwrap_or_else(|| T::constant(f64::NAN, n))
    }

    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    pub fn n_params(&self) -> usize {
        self.n_params
    }

    /// Binds the tape to data: `columns[i]` holds the values of the law's variable `i`.
    pub fn bind(&self, columns: &[&[f64]]) -> BoundTape {
        let n_rows = columns.first().map_or(0, |c| c.len());
        let depends_on_params = self.param_dependence();
        let data_values = self.evaluate_data_slots(columns, n_rows, &depends_on_params);
        let mut binder = Binder {
            source: &self.ops,
            depends_on_params: &depends_on_params,
            data_values: &data_values,
            ops: Vec::new(),
            mapped: vec![None; self.ops.len()],
            columns: Vec::new(),
            ln_column_of: HashMap::new(),
        };
        let output = binder.emit(self.ops.len() as Slot - 1);
        debug_assert_eq!(output as usize, binder.ops.len() - 1);
        BoundTape::new(binder.ops, &binder.columns, self.n_params, n_rows)
    }

    fn param_dependence(&self) -> Vec<bool> {
        let mut depends = vec![false; self.ops.len()];
        for (i, op) in self.ops.iter().enumerate() {
            depends[i] = matches!(op, Op::Param(_))
                || op.operands().iter().flatten().any(|&s| depends[s as usize]);
        }
        depends
    }

    /// Per-row values of every parameter-free slot (None for parameter-dependent slots).
    fn evaluate_data_slots(
        &self,
        columns: &[&[f64]],
        n_rows: usize,
        depends: &[bool],
    ) -> Vec<Option<Vec<f64>>> {
        let mut values: Vec<Option<Vec<f64>>> = vec![None; self.ops.len()];
        for (i, op) in self.ops.iter().enumerate() {
            if depends[i] {
                continue;
            }
            let row_values = (0..n_rows)
                .map(|row| {
                    let slot = |s: Slot| values[s as usize].as_ref().map_or(f64::NAN, |v| v[row]);
                    let data = |c: u32| columns[c as usize][row];
                    eval_op_f64(op, &slot, &data)
                })
                .collect();
            values[i] = Some(row_values);
        }
        values
    }
}

/// Drops operations the output does not use, renumbering slots.
fn keep_reachable(ops: &[Op], output: Slot) -> Vec<Op> {
    let mut used = vec![false; ops.len()];
    used[output as usize] = true;
    for i in (0..=output as usize).rev() {
        if used[i] {
            for s in ops[i].operands().into_iter().flatten() {
                used[s as usize] = true;
            }
        }
    }
    let mut renumber = vec![0 as Slot; ops.len()];
    let mut kept = Vec::new();
    for i in 0..=output as usize {
        if used[i] {
            renumber[i] = kept.len() as Slot;
            kept.push(ops[i].map_operands(|s| renumber[s as usize]));
        }
    }
    kept
}

struct Binder<'a> {
    source: &'a [Op],
    depends_on_params: &'a [bool],
    data_values: &'a [Option<Vec<f64>>],
    ops: Vec<Op>,
    mapped: Vec<Option<Slot>>,
    columns: Vec<Vec<f64>>,
    /// Column of ln(base) for each source slot raised to a parameter power.
    ln_column_of: HashMap<Slot, u32>,
}

impl Binder<'_> {
    /// Emits source slot `s` into the bound tape, returning its new slot.
    fn emit(&mut self, s: Slot) -> Slot {
        if let Some(done) = self.mapped[s as usize] {
            return done;
        }
        let op = self.source[s as usize];
        let new_op = if !self.depends_on_params[s as usize] {
            self.data_op(s)
        } else if let Op::Pow(base, exponent) = op {
            self.pow_op(base, exponent)
        } else {
            let [a, b] = op.operands();
            let new_a = a.map(|x| self.emit(x));
            let new_b = b.map(|x| self.emit(x));
            op.map_operands(|x| {
                if Some(x) == a {
                    new_a.unwrap_or(x)
                } else {
                    new_b.unwrap_or(x)
                }
            })
        };
        let slot = self.ops.len() as Slot;
        self.ops.push(new_op);
        self.mapped[s as usize] = Some(slot);
        slot
    }

    fn data_op(&mut self, s: Slot) -> Op {
        if let Op::Const(v) = self.source[s as usize] {
            return Op::Const(v);
        }
        let values = self.data_values[s as usize].clone().unwrap_or_default();
        self.columns.push(values);
        Op::Var(self.columns.len() as u32 - 1)
    }

    /// base^exponent; a positive parameter-free base becomes a precomputed ln column.
    fn pow_op(&mut self, base: Slot, exponent: Slot) -> Op {
        let exponent = self.emit(exponent);
        let positive_data = match (
            &self.data_values[base as usize],
            self.depends_on_params[base as usize],
        ) {
            (Some(values), false) if values.iter().all(|x| *x > 0.0) => Some(values),
            _ => None,
        };
        let Some(values) = positive_data else {
            return Op::Pow(self.emit(base), exponent);
        };
        let column = match self.ln_column_of.get(&base) {
            Some(&column) => column,
            None => {
                self.columns.push(values.iter().map(|x| x.ln()).collect());
                let column = self.columns.len() as u32 - 1;
                self.ln_column_of.insert(base, column);
                column
            }
        };
        Op::PowData(column, exponent)
    }
}

/// A tape bound to the rows of a dataset. Operations that depend on parameters only (the
/// prelude: `-alpha`, `1/(alpha+beta)`, ...) are evaluated once per parameter vector with
/// their Jacobian; only the remaining row operations run per row.
#[derive(Debug, Clone)]
pub struct BoundTape {
    ops: Vec<Op>,
    /// Row-major data: row r's columns at table[r * width ..][..width]. `Var(c)` reads column
    /// c; `PowData(c, e)` reads column c as ln(base).
    table: Vec<f64>,
    width: usize,
    n_params: usize,
    n_rows: usize,
    /// Slots evaluated once per parameter vector, in order.
    prelude: Vec<Slot>,
    /// (slot, parameter) for every prelude slot that row operations read (or the output, when
    /// it is in the prelude) and every parameter it depends on: where row sweeps hand adjoints
    /// to the prelude.
    boundary: Vec<(Slot, u32)>,
}

/// Reusable buffers for evaluation (one per thread). `prepare` fills the prelude values and
/// their Jacobian for one parameter vector; row evaluations then reuse them.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    values: Vec<f64>,
    adjoints: Vec<f64>,
    /// d(prelude slot)/d(parameter), n_ops × n_params (rows of non-prelude slots unused).
    prelude_jacobian: Vec<f64>,
    prepared_for: Vec<f64>,
    /// Whole-column sweeps (see `columnar`): slot s's values for every row at [s·n, (s+1)·n).
    columns: Vec<f64>,
    column_adjoints: Vec<f64>,
    /// Every row's gradient, by parameter (n_params × n_rows).
    row_jacobian: Vec<f64>,
    /// The output column of a planned sweep (see `support`), one value per row.
    planned_output: Vec<f64>,
}

impl BoundTape {
    fn split_prelude(ops: &[Op]) -> (Vec<Slot>, Vec<Slot>) {
        let mut per_row = vec![false; ops.len()];
        for (i, op) in ops.iter().enumerate() {
            per_row[i] = matches!(op, Op::Var(_) | Op::PowData(..))
                || op.operands().iter().flatten().any(|&s| per_row[s as usize]);
        }
        let slots = 0..ops.len() as Slot;
        let prelude = slots.clone().filter(|&s| !per_row[s as usize]).collect();
        let row_ops = slots.filter(|&s| per_row[s as usize]).collect();
        (prelude, row_ops)
    }

    /// Orders the prelude before the row operations (a valid evaluation order: the prelude
    /// never reads a row operation), so row sweeps run over one contiguous range.
    fn new(ops: Vec<Op>, columns: &[Vec<f64>], n_params: usize, n_rows: usize) -> Self {
        let width = columns.len();
        let table = (0..n_rows)
            .flat_map(|row| columns.iter().map(move |c| c[row]))
            .collect();
        let (prelude, row_ops) = Self::split_prelude(&ops);
        let order: Vec<Slot> = prelude.iter().chain(&row_ops).copied().collect();
        let mut new_slot = vec![0 as Slot; ops.len()];
        for (position, &old) in order.iter().enumerate() {
            new_slot[old as usize] = position as Slot;
        }
        let ops: Vec<Op> = order
            .iter()
            .map(|&old| ops[old as usize].map_operands(|s| new_slot[s as usize]))
            .collect();
        let n_prelude = prelude.len() as Slot;
        let boundary = Self::boundary(&ops, n_prelude);
        BoundTape {
            ops,
            table,
            width,
            n_params,
            n_rows,
            boundary,
            prelude: (0..n_prelude).collect(),
        }
    }

    /// The prelude slots row operations read, with the parameters each depends on.
    fn boundary(ops: &[Op], n_prelude: Slot) -> Vec<(Slot, u32)> {
        let mut depends: Vec<Vec<u32>> = Vec::with_capacity(n_prelude as usize);
        for op in &ops[..n_prelude as usize] {
            let mut params: Vec<u32> = match op {
                Op::Param(p) => vec![*p],
                _ => op
                    .operands()
                    .iter()
                    .flatten()
                    .flat_map(|&s| depends[s as usize].clone())
                    .collect(),
            };
            params.sort_unstable();
            params.dedup();
            depends.push(params);
        }
        let mut read: Vec<bool> = vec![false; n_prelude as usize];
        for op in &ops[n_prelude as usize..] {
            for s in op
                .operands()
                .into_iter()
                .flatten()
                .filter(|&s| s < n_prelude)
            {
                read[s as usize] = true;
            }
        }
        if let Some(last) = read.last_mut().filter(|_| n_prelude as usize == ops.len()) {
            *last = true;
        }
        (0..n_prelude)
            .filter(|&s| read[s as usize])
            .flat_map(|s| depends[s as usize].iter().map(move |&p| (s, p)))
            .collect()
    }

    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    pub fn n_params(&self) -> usize {
        self.n_params
    }

    pub fn n_ops(&self) -> usize {
        self.ops.len()
    }

    pub fn scratch(&self) -> Scratch {
        Scratch {
            values: vec![0.0; self.ops.len()],
            adjoints: vec![0.0; self.ops.len()],
            prelude_jacobian: vec![0.0; self.ops.len() * self.n_params],
            prepared_for: Vec::new(),
            columns: Vec::new(),
            column_adjoints: Vec::new(),
            row_jacobian: Vec::new(),
            planned_output: Vec::new(),
        }
    }

    /// Makes `scratch` (possibly another tape's) ready for this tape, keeping its column
    /// buffers: sized per-slot buffers, and no prelude taken as already evaluated.
    pub fn reset_scratch(&self, scratch: &mut Scratch) {
        scratch.values.resize(self.ops.len(), 0.0);
        scratch.adjoints.resize(self.ops.len(), 0.0);
        scratch
            .prelude_jacobian
            .resize(self.ops.len() * self.n_params, 0.0);
        scratch.prepared_for.clear();
    }

    /// Value of a bound column at a row (for `PowData`, the column holds ln of the base).
    #[inline(always)]
    fn data(&self, column: u32, row: usize) -> f64 {
        self.table[row * self.width + column as usize]
    }

    #[inline(always)]
    fn value_of(&self, slot: Slot, params: &[f64], row: usize, v: &[f64]) -> f64 {
        let u = |s: Slot| s as usize;
        match self.ops[slot as usize] {
            Op::Const(c) => c,
            Op::Param(p) => params[p as usize],
            Op::Var(c) => self.data(c, row),
            Op::PowData(c, e) => (v[u(e)] * self.data(c, row)).exp(),
            Op::Neg(a) => -v[u(a)],
            Op::Add(a, b) => v[u(a)] + v[u(b)],
            Op::Sub(a, b) => v[u(a)] - v[u(b)],
            Op::Mul(a, b) => v[u(a)] * v[u(b)],
            Op::Div(a, b) => v[u(a)] / v[u(b)],
            Op::Pow(a, b) => v[u(a)].powf(v[u(b)]),
            Op::PowConst(a, c) => v[u(a)].powf(c),
            Op::Unary(op, a) => op.value(v[u(a)]),
            Op::Min(a, b) => v[u(a)].min(v[u(b)]),
            Op::Max(a, b) => v[u(a)].max(v[u(b)]),
            Op::Atan2(a, b) => v[u(a)].atan2(v[u(b)]),
            Op::M4Root(a, b) => crate::law::implicit::m4root(v[u(a)], v[u(b)]),
        }
    }

    /// Local partial derivatives of slot `i` with respect to its operands.
    #[inline]
    fn partials(&self, i: usize, row: usize, v: &[f64]) -> [(Slot, f64); 2] {
        let u = |s: Slot| s as usize;
        const NONE: (Slot, f64) = (0, 0.0);
        match self.ops[i] {
            Op::Const(_) | Op::Var(_) | Op::Param(_) => [NONE, NONE],
            Op::Neg(x) => [(x, -1.0), NONE],
            Op::Add(x, y) => [(x, 1.0), (y, 1.0)],
            Op::Sub(x, y) => [(x, 1.0), (y, -1.0)],
            Op::Mul(x, y) => [(x, v[u(y)]), (y, v[u(x)])],
            Op::Div(x, y) => [(x, 1.0 / v[u(y)]), (y, -v[i] / v[u(y)])],
            Op::Pow(x, y) => {
                let (base, exponent) = (v[u(x)], v[u(y)]);
                [
                    (x, exponent * base.powf(exponent - 1.0)),
                    (y, v[i] * base.ln()),
                ]
            }
            Op::PowConst(x, c) => [
                (
                    x,
                    if c == 0.0 {
                        0.0
                    } else {
                        c * v[u(x)].powf(c - 1.0)
                    },
                ),
                NONE,
            ],
            Op::PowData(c, e) => [(e, v[i] * self.data(c, row)), NONE],
            Op::Unary(op, x) => [(x, op.first_derivative(v[u(x)], v[i])), NONE],
            Op::Min(x, y) => [(if v[u(x)] <= v[u(y)] { x } else { y }, 1.0), NONE],
            Op::Max(x, y) => [(if v[u(x)] >= v[u(y)] { x } else { y }, 1.0), NONE],
            Op::Atan2(y, x) => {
                let (vy, vx) = (v[u(y)], v[u(x)]);
                let r2 = vx * vx + vy * vy;
                [(y, vx / r2), (x, -vy / r2)]
            }
            Op::M4Root(g, a) => {
                let d = crate::law::implicit::m4root_derivatives(v[u(g)], v[u(a)]);
                [(g, d[1]), (a, d[2])]
            }
        }
    }

    /// Adds adj × ∂slot/∂operand into each operand's adjoint (the hot loop of every gradient).
    #[inline(always)]
    fn backward_op(&self, i: usize, adj: f64, row: usize, v: &[f64], a: &mut [f64]) {
        let u = |s: Slot| s as usize;
        match self.ops[i] {
            Op::Const(_) | Op::Var(_) | Op::Param(_) => {}
            Op::Neg(x) => a[u(x)] -= adj,
            Op::Add(x, y) => {
                a[u(x)] += adj;
                a[u(y)] += adj;
            }
            Op::Sub(x, y) => {
                a[u(x)] += adj;
                a[u(y)] -= adj;
            }
            Op::Mul(x, y) => {
                a[u(x)] += adj * v[u(y)];
                a[u(y)] += adj * v[u(x)];
            }
            Op::PowData(c, e) => a[u(e)] += adj * v[i] * self.data(c, row),
            _ => {
                for (operand, d) in self.partials(i, row, v) {
                    a[operand as usize] += adj * d;
                }
            }
        }
    }

    /// Evaluates the prelude and its Jacobian for `params` (skipped when already done).
    pub fn prepare(&self, params: &[f64], scratch: &mut Scratch) {
        if scratch.prepared_for.as_slice() == params {
            return;
        }
        let np = self.n_params;
        for &slot in &self.prelude {
            let i = slot as usize;
            scratch.values[i] = self.value_of(slot, params, 0, &scratch.values);
            // Row i of the prelude Jacobian from the rows of its operands (all before i).
            let (before, rest) = scratch.prelude_jacobian.split_at_mut(i * np);
            let row = &mut rest[..np];
            row.fill(0.0);
            if let Op::Param(p) = self.ops[i] {
                row[p as usize] = 1.0;
            } else {
                for (operand, d) in self.partials(i, 0, &scratch.values) {
                    if d != 0.0 {
                        let from = operand as usize * np;
                        for (r, j) in row.iter_mut().zip(&before[from..from + np]) {
                            *r += d * j;
                        }
                    }
                }
            }
        }
        scratch.prepared_for.clear();
        scratch.prepared_for.extend_from_slice(params);
    }

    #[inline(always)]
    fn row_range(&self) -> std::ops::Range<usize> {
        self.prelude.len()..self.ops.len()
    }

    #[inline(always)]
    fn forward_row(&self, params: &[f64], row: usize, values: &mut [f64]) {
        for slot in self.row_range() {
            values[slot] = self.value_of(slot as Slot, params, row, values);
        }
    }

    /// The law's value at one row.
    pub fn eval_row(&self, params: &[f64], row: usize, scratch: &mut Scratch) -> f64 {
        self.prepare(params, scratch);
        self.forward_row(params, row, &mut scratch.values);
        *scratch.values.last().unwrap_or(&f64::NAN)
    }

    /// Reverse sweep over the row operations, seeding the output's adjoint with `seed`;
    /// adjoints of prelude slots accumulate (they are cleared by `clear_prelude_adjoints`).
    #[inline(always)]
    fn reverse_row(&self, row: usize, seed: f64, scratch: &mut Scratch) {
        let Scratch {
            values, adjoints, ..
        } = scratch;
        let rows = self.row_range();
        adjoints[rows.clone()].fill(0.0);
        let last = self.ops.len() - 1;
        adjoints[last] += seed;
        for i in rows.rev() {
            let adj = adjoints[i];
            self.backward_op(i, adj, row, values, adjoints);
        }
    }

    fn clear_prelude_adjoints(&self, scratch: &mut Scratch) {
        for &(slot, _) in &self.boundary {
            scratch.adjoints[slot as usize] = 0.0;
        }
    }

    /// Adds Σ adjoint × d(slot)/d(params) over prelude slots into `gradient`. Row sweeps stop at
    /// prelude slots and the Jacobian rows are total derivatives, so nothing is counted twice.
    fn collect_prelude(&self, scratch: &Scratch, mut add: impl FnMut(usize, f64)) {
        let np = self.n_params;
        for &(slot, p) in &self.boundary {
            let (i, p) = (slot as usize, p as usize);
            add(
                p,
                scratch.adjoints[i] * scratch.prelude_jacobian[i * np + p],
            );
        }
    }

    /// Evaluates every row at `params`, handing (row, value) to `visit`; stops early (returning
    /// false) when `visit` does.
    pub fn for_each_row(
        &self,
        params: &[f64],
        scratch: &mut Scratch,
        mut visit: impl FnMut(usize, f64) -> bool,
    ) -> bool {
        self.prepare(params, scratch);
        for row in 0..self.n_rows {
            self.forward_row(params, row, &mut scratch.values);
            if !visit(row, *scratch.values.last().unwrap_or(&f64::NAN)) {
                return false;
            }
        }
        true
    }

    /// The law's value at one row and its exact gradient with respect to every parameter
    /// (written into `gradient`, length n_params).
    pub fn gradient_row(
        &self,
        params: &[f64],
        row: usize,
        scratch: &mut Scratch,
        gradient: &mut [f64],
    ) -> f64 {
        self.prepare(params, scratch);
        self.forward_row(params, row, &mut scratch.values);
        self.clear_prelude_adjoints(scratch);
        self.reverse_row(row, 1.0, scratch);
        gradient.iter_mut().for_each(|g| *g = 0.0);
        self.collect_prelude(scratch, |p, g| gradient[p] += g);
        *scratch.values.last().unwrap_or(&f64::NAN)
    }

    /// Like [`BoundTape::gradient_row`], but hands each (parameter, contribution) pair to `add`
    /// instead of filling a dense vector (contributions to one parameter sum).
    pub fn gradient_row_sparse(
        &self,
        params: &[f64],
        row: usize,
        scratch: &mut Scratch,
        add: impl FnMut(usize, f64),
    ) -> f64 {
        self.prepare(params, scratch);
        self.forward_row(params, row, &mut scratch.values);
        self.clear_prelude_adjoints(scratch);
        self.reverse_row(row, 1.0, scratch);
        self.collect_prelude(scratch, add);
        *scratch.values.last().unwrap_or(&f64::NAN)
    }

    /// Σ_rows seed(row, value) · ∂value/∂params in one accumulated reverse sweep: the gradient
    /// of an objective that is a sum over rows. `seed` returns None to abort (invalid row).
    pub fn accumulate_gradient(
        &self,
        params: &[f64],
        scratch: &mut Scratch,
        gradient: &mut [f64],
        mut seed: impl FnMut(usize, f64) -> Option<f64>,
    ) -> bool {
        self.prepare(params, scratch);
        self.clear_prelude_adjoints(scratch);
        for row in 0..self.n_rows {
            self.forward_row(params, row, &mut scratch.values);
            let value = *scratch.values.last().unwrap_or(&f64::NAN);
            let Some(s) = seed(row, value) else {
                return false;
            };
            self.reverse_row(row, s, scratch);
        }
        gradient.iter_mut().for_each(|g| *g = 0.0);
        self.collect_prelude(scratch, |p, g| gradient[p] += g);
        true
    }

    /// The law at one row on any number type (hyper-duals give exact Hessians).
    pub fn eval_row_real<T: Real>(&self, params: &[T], row: usize) -> T {
        let mut out = None;
        self.for_each_row_real(params, row..row + 1, |_, value| out = Some(value.clone()));
        out.unwrap_or_else(|| T::constant(f64::NAN, params.first().map_or(0, |p| p.dimension())))
    }

    /// The law on any number type at each row of `rows`: the prelude once, then the row
    /// operations per row, in one reused buffer.
    pub fn for_each_row_real<T: Real>(
        &self,
        params: &[T],
        rows: std::ops::Range<usize>,
        mut visit: impl FnMut(usize, &T),
    ) {
        let n = params.first().map_or(0, |p| p.dimension());
        let mut values: Vec<T> = Vec::with_capacity(self.ops.len());
        for slot in 0..self.prelude.len() {
            let value = self.op_real(slot, params, 0, &values, n);
            values.push(value);
        }
        for row in rows {
            values.truncate(self.prelude.len());
            for slot in self.row_range() {
                let value = self.op_real(slot, params, row, &values, n);
                values.push(value);
            }
            if let Some(output) = values.last() {
                visit(row, output);
            }
        }
    }

    #[inline]
    fn op_real<T: Real>(&self, slot: usize, params: &[T], row: usize, values: &[T], n: usize) -> T {
        self.op_of(self.ops[slot], params, row, &|s| &values[s as usize], n)
    }

    /// The operation `op` at `row` on any number type, its operands' values from `s`.
    #[inline]
    fn op_of<'v, T: Real>(
        &self,
        op: Op,
        params: &'v [T],
        row: usize,
        s: &impl Fn(Slot) -> &'v T,
        n: usize,
    ) -> T {
        match op {
            Op::Const(c) => T::constant(c, n),
            Op::Var(c) => T::constant(self.data(c, row), n),
            Op::Param(p) => params[p as usize].clone(),
            Op::Neg(x) => s(x).neg(),
            Op::Add(x, y) => s(x).add(s(y)),
            Op::Sub(x, y) => s(x).sub(s(y)),
            Op::Mul(x, y) => s(x).mul(s(y)),
            Op::Div(x, y) => s(x).div(s(y)),
            Op::Pow(x, y) => s(x).pow(s(y)),
            Op::PowConst(x, c) => s(x).powc(c),
            Op::PowData(c, e) => T::pow_data(self.data(c, row), s(e)),
            Op::Unary(u, x) => s(x).unary(u),
            Op::Atan2(y, x) => s(y).atan2(s(x)),
            Op::M4Root(g, a) => s(g).m4root(s(a)),
            Op::Min(x, y) => if s(x).value() <= s(y).value() {
                s(x)
            } else {
                s(y)
            }
            .clone(),
            Op::Max(x, y) => if s(x).value() >= s(y).value() {
                s(x)
            } else {
                s(y)
            }
            .clone(),
        }
    }
}
