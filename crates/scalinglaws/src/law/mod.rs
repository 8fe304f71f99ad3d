//! Laws: a formula in the law language plus what a fit needs to know about its parameters
//! (bounds, start grid, which enter linearly). Built-in laws live in [`catalog`]; users write
//! their own formulas, whose identifiers are variables when they name a dataset column and
//! parameters otherwise.

pub mod catalog;
pub mod expr;
pub mod flops;
pub mod implicit;
pub mod real;
pub mod stable;
pub mod tape;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, Setting};
use crate::text;
use expr::{BinOp, Expr, Program};
use real::Wide;
use tape::{BoundTape, Symbol, Tape};

/// Why a law has no finite f64 value at a point (see [`Law::non_finite`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NonFinite {
    /// The value exists but its magnitude is beyond the largest f64 (about 1.8e308): it is
    /// `sign` × 10^`log10` (`log10` is +∞ when beyond even a log-scale evaluation).
    Overflow { sign: f64, log10: f64 },
    /// The value, about `value`, is within f64's range, but a step of the formula as written
    /// overflows (as `(1 + (x/d)^(1/f))^(-c*f)` does for a small f): the formula needs a
    /// stable form.
    Intermediate { value: f64 },
    /// The law has no value there: outside its domain (the log of a negative number, a negative
    /// base to a fractional power) or at a pole (a division by zero).
    Undefined,
}

impl std::fmt::Display for NonFinite {
    /// The predicate of "the law's value at POINT ...".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            NonFinite::Overflow { sign, log10 } if log10.is_finite() => {
                let exponent = log10.floor();
                let mantissa = 10f64.powf(log10 - exponent);
                let minus = if sign < 0.0 { "-" } else { "" };
                write!(
                    f,
                    "is about {minus}{mantissa:.2}e{exponent:.0}, beyond the largest double (about 1.8e308)"
                )
            }
            NonFinite::Overflow { .. } => write!(
                f,
                "is beyond the largest double (about 1.8e308), by more than a log-scale evaluation can tell"
            ),
            NonFinite::Intermediate { value } => write!(
                f,
                "is about {value:.6e}, but a step of the formula as written overflows a double; \
                 write it in a stable form (softplus(z) for log(1 + exp(z)), log1p, exp of a sum of logs)"
            ),
            NonFinite::Undefined => write!(f, "is undefined (it evaluates to a non-finite number)"),
        }
    }
}

/// Where a parameter's starting values come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grid {
    /// Fixed values.
    Values(Vec<f64>),
    /// Quantiles of a variable's data (e.g. a break location), at the given probabilities.
    Quantiles {
        variable: String,
        probabilities: Vec<f64>,
    },
}

/// A fitted constant of a law.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamSpec {
    pub name: String,
    pub lower: f64,
    pub upper: f64,
    pub grid: Grid,
    /// Enters the law linearly (solved by least squares at each start: variable projection).
    pub linear: bool,
}

impl ParamSpec {
    fn free(name: &str) -> Self {
        ParamSpec {
            name: name.to_string(),
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            grid: Grid::Values(vec![]),
            linear: false,
        }
    }
}

/// A law: y = f(variables; parameters).
#[derive(Debug, Clone)]
pub struct Law {
    /// Catalog name, or None for a user formula.
    pub name: Option<String>,
    pub formula: String,
    pub citation: Option<String>,
    pub variables: Vec<String>,
    pub params: Vec<ParamSpec>,
    program: Program,
    tape: Tape,
}

/// Default grid for a nonlinear parameter of a user formula with no other information.
fn default_user_grid(spec: &ParamSpec) -> Vec<f64> {
    if spec.lower.is_finite() && spec.upper.is_finite() {
        (1..=4)
            .map(|i| spec.lower + (spec.upper - spec.lower) * i as f64 / 5.0)
            .collect()
    } else if spec.lower >= 0.0 {
        vec![0.1, 0.3, 1.0]
    } else {
        vec![-0.3, 0.1, 0.3, 1.0]
    }
}

impl Law {
    /// A user formula. Identifiers for which `is_variable` holds are variables; the rest
    /// (besides local definitions) are parameters, unbounded, in order of first appearance.
    /// Parameters that enter linearly are found automatically.
    pub fn from_formula(formula: &str, is_variable: &dyn Fn(&str) -> bool) -> Result<Law> {
        if let Some(problem) = crate::limits::formula_bytes_problem(formula.len()) {
            return Err(Error::setting(Setting::Formula, text![problem]));
        }
        let program = expr::parse_program(formula)?;
        let (variables, param_names) = classify_identifiers(&program, is_variable);
        if param_names.len() > crate::limits::MAX_FORMULA_PARAMS {
            return Err(Error::setting(
                Setting::Formula,
                text![format!(
                    "{} parameters, more than the limit of {} (a fit solves a P×P system \
                         at every step); are some of the names meant to be data columns?",
                    crate::limits::thousands(param_names.len()),
                    crate::limits::thousands(crate::limits::MAX_FORMULA_PARAMS)
                )],
            ));
        }
        if param_names.is_empty() {
            return Err(Error::Formula {
                formula: formula.to_string(),
                position: 0,
                message: no_parameters_message(&variables).into(),
            });
        }
        let mut params: Vec<ParamSpec> = param_names.iter().map(|n| ParamSpec::free(n)).collect();
        let linear = detect_linear(&program, &param_names);
        for (spec, is_linear) in params.iter_mut().zip(linear) {
            spec.linear = is_linear;
            if !is_linear {
                spec.grid = Grid::Values(default_user_grid(spec));
            }
        }
        Ok(Law::assemble(
            None, formula, None, program, variables, params,
        ))
    }

    /// A law with declared variables and parameter specs (the catalog uses this).
    pub fn with_specs(
        name: &str,
        formula: &str,
        citation: &str,
        variables: &[&str],
        params: Vec<ParamSpec>,
    ) -> Result<Law> {
        let program = expr::parse_program(formula)?;
        let is_variable = |id: &str| variables.contains(&id);
        let (_, mut found) = classify_identifiers(&program, &is_variable);
        let mut declared: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        found.sort();
        declared.sort();
        if found != declared {
            return Err(Error::settings(format!(
                "law '{name}': formula parameters {found:?} differ from declared {declared:?}"
            )));
        }
        let variables = variables.iter().map(|v| v.to_string()).collect();
        Ok(Law::assemble(
            Some(name),
            formula,
            Some(citation),
            program,
            variables,
            params,
        ))
    }

    fn assemble(
        name: Option<&str>,
        formula: &str,
        citation: Option<&str>,
        program: Program,
        variables: Vec<String>,
        params: Vec<ParamSpec>,
    ) -> Law {
        let symbol = |id: &str| match variables.iter().position(|v| v == id) {
            Some(i) => Symbol::Variable(i as u32),
            None => Symbol::Parameter(params.iter().position(|p| p.name == id).unwrap_or(0) as u32),
        };
        let tape = Tape::compile(&program, &symbol, params.len());
        Law {
            name: name.map(str::to_string),
            formula: formula.to_string(),
            citation: citation.map(str::to_string),
            variables,
            params,
            program,
            tape,
        }
    }

    /// The catalog name or "formula".
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or("formula")
    }

    /// The 0-based character offset of the first use of `name` in the formula (its local
    /// definitions come first in the text), for messages that point at it.
    pub fn position_of(&self, name: &str) -> Option<usize> {
        let mut first = None;
        let mut visit = |id: &str, position: usize| {
            if id == name && first.is_none() {
                first = Some(position);
            }
        };
        for (_, definition) in &self.program.definitions {
            definition.for_each_ident(&mut visit);
        }
        self.program.body.for_each_ident(&mut visit);
        first
    }

    pub fn param_names(&self) -> Vec<&str> {
        self.params.iter().map(|p| p.name.as_str()).collect()
    }

    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// Every parameter's value, in the law's order, from values given by name (published
    /// parameters); a missing or unknown name is an error naming it. `what` leads the message.
    pub fn values_by_name<'a>(
        &self,
        given: impl IntoIterator<Item = (&'a String, &'a f64)> + Clone,
        what: &str,
    ) -> Result<Vec<f64>> {
        let names = self.param_names().join(", ");
        if let Some((extra, _)) = given
            .clone()
            .into_iter()
            .find(|(k, _)| self.param_index(k).is_none())
        {
            return Err(Error::settings(format!(
                "{what}: '{extra}' is not a parameter of {}; its parameters are {names}",
                self.label()
            )));
        }
        self.params
            .iter()
            .map(|p| {
                let value = given
                    .clone()
                    .into_iter()
                    .find(|(k, _)| **k == p.name)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| {
                        Error::settings(format!(
                            "{what}: give every parameter of {} ({names}); '{}' is missing",
                            self.label(),
                            p.name
                        ))
                    })?;
                self.check_in_range(p, value, what)?;
                Ok(value)
            })
            .collect()
    }

    /// A given value of parameter `p` is finite and inside the law's range for it (outside,
    /// the law means something else: a negative amplitude makes the loss fall with less data,
    /// a negative floor a loss below zero).
    fn check_in_range(&self, p: &ParamSpec, value: f64, what: &str) -> Result<()> {
        if value.is_finite() && p.lower <= value && value <= p.upper {
            return Ok(());
        }
        let end = |v: f64| {
            if v.is_finite() {
                crate::error::short_number(v)
            } else if v > 0.0 {
                "inf".to_string()
            } else {
                "-inf".to_string()
            }
        };
        Err(Error::settings(format!(
            "{what}: {} = {} is outside the range of {}'s '{}', [{}, {}]; give a value inside it",
            p.name,
            crate::error::short_number(value),
            self.label(),
            p.name,
            end(p.lower),
            end(p.upper)
        )))
    }

    pub fn variable_index(&self, name: &str) -> Option<usize> {
        self.variables.iter().position(|v| v == name)
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    pub fn tape(&self) -> &Tape {
        &self.tape
    }

    /// Binds to data: `columns[i]` holds the values of variable `i`.
    pub fn bind(&self, columns: &[&[f64]]) -> BoundTape {
        self.tape.bind(columns)
    }

    /// Points bound to the tape at a time by [`Law::for_each_point`] (bounds the memory of a
    /// million-point call to one block's table).
    const POINT_BLOCK: usize = 1 << 16;

    /// Calls `each(i, bound, row, scratch)` for every point (`points[i]` holds the values of
    /// the variables), binding the tape once per block of points rather than once per point
    /// (binding is most of the cost of one evaluation).
    pub fn for_each_point(
        &self,
        points: &[Vec<f64>],
        mut each: impl FnMut(usize, &BoundTape, usize, &mut crate::law::tape::Scratch),
    ) {
        for (block, chunk) in points.chunks(Self::POINT_BLOCK).enumerate() {
            let columns: Vec<Vec<f64>> = (0..self.variables.len())
                .map(|v| chunk.iter().map(|point| point[v]).collect())
                .collect();
            let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
            let bound = self.bind(&slices);
            let mut scratch = bound.scratch();
            for row in 0..chunk.len() {
                each(block * Self::POINT_BLOCK + row, &bound, row, &mut scratch);
            }
        }
    }

    /// The law at each point (`points[i]` holds one value per variable): [`Law::eval`] point
    /// by point, up to rounding (a block whose bases are all positive takes powers as
    /// exp(e·ln x)).
    pub fn eval_points(&self, params: &[f64], points: &[Vec<f64>]) -> Vec<f64> {
        let mut values = Vec::with_capacity(points.len());
        self.for_each_point(points, |_, bound, row, scratch| {
            values.push(bound.eval_row(params, row, scratch));
        });
        values
    }

    /// Evaluates the law at one point (`variables[i]` is the value of variable i).
    pub fn eval(&self, params: &[f64], variables: &[f64]) -> f64 {
        let columns: Vec<&[f64]> = variables.iter().map(std::slice::from_ref).collect();
        let bound = self.bind(&columns);
        let mut scratch = bound.scratch();
        bound.eval_row(params, 0, &mut scratch)
    }

    /// The law at one point in sign-and-log form: its value even where f64 overflows (a
    /// million times beyond the data, `exp(k*t)` is about 10^(k·t/ln 10), far past 1.8e308).
    pub fn eval_wide(&self, params: &[f64], variables: &[f64]) -> Wide {
        let params: Vec<Wide> = params.iter().map(|&p| Wide::from_f64(p)).collect();
        self.tape.eval_point_real(&params, variables)
    }

    /// Why the law's f64 value at a point is not a finite number (None when it is): a value
    /// beyond f64's range, a formula whose intermediate step overflows though its value does
    /// not, or a point where the law is undefined.
    pub fn non_finite(&self, params: &[f64], variables: &[f64]) -> Option<NonFinite> {
        if self.eval(params, variables).is_finite() {
            return None;
        }
        let wide = self.eval_wide(params, variables);
        Some(if !wide.is_defined() {
            NonFinite::Undefined
        } else if wide.to_f64().is_finite() {
            NonFinite::Intermediate {
                value: wide.to_f64(),
            }
        } else {
            NonFinite::Overflow {
                sign: wide.sign(),
                log10: wide.log10_abs(),
            }
        })
    }

    /// Variables whose values must be positive: those inside the base of a power with a
    /// non-constant exponent, or inside the argument of `log`, `log10`, `sqrt` or `m4root`,
    /// directly or through local definitions. (Conservative: `(x/d)^f` asks x > 0.)
    pub fn positive_variables(&self) -> Vec<&str> {
        self.positive_uses().into_iter().map(|(v, _)| v).collect()
    }

    /// [`Law::positive_variables`] with, for each, the first use in text order that needs it
    /// positive (what a refusal of a value <= 0 names).
    pub fn positive_uses(&self) -> Vec<(&str, PositiveUse)> {
        let program = &self.program;
        let mut uses: HashMap<&str, Vec<String>> = HashMap::new();
        for (name, expr) in &program.definitions {
            let mut ids = Vec::new();
            expr.for_each_ident(&mut |id, _| ids.push(id.to_string()));
            uses.insert(name.as_str(), ids);
        }
        let mut needed: Vec<(String, PositiveUse)> = Vec::new();
        for expr in program
            .definitions
            .iter()
            .map(|(_, e)| e)
            .chain([&program.body])
        {
            collect_positive(expr, &mut |name, use_| {
                expand_locals(name, use_, &uses, &mut needed)
            });
        }
        self.variables
            .iter()
            .filter_map(|v| {
                let (_, use_) = needed.iter().find(|(n, _)| n == v)?;
                Some((v.as_str(), *use_))
            })
            .collect()
    }

    /// Checks that a set of parameters enters the law jointly linearly (affinely).
    pub fn is_affine_in(&self, names: &[&str]) -> bool {
        let set: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        affine_degree(&self.program, &set).is_some_and(|d| d <= 1)
    }
}

/// Why a law needs a variable positive: where it first appears in a place that requires it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositiveUse {
    /// In the base of a power whose exponent is not a literal number; `direct` when the base is
    /// the variable itself.
    FittedPower { direct: bool },
    /// In an argument of log, log10, sqrt or m4root (NaN below 0; m4root allows 0, refused here
    /// with the rest to keep one rule).
    Argument { func: expr::Func, direct: bool },
}

impl PositiveUse {
    /// "raises N to a fitted power", "takes log(x)", ... for the message of a value <= 0.
    pub fn words(self, variable: &str) -> String {
        match self {
            PositiveUse::FittedPower { direct: true } => {
                format!("raises {variable} to a fitted power")
            }
            PositiveUse::FittedPower { direct: false } => {
                format!("raises an expression in {variable} to a fitted power")
            }
            PositiveUse::Argument {
                func: expr::Func::M4Root,
                direct,
            } => {
                let what = if direct { "" } else { "an expression in " };
                format!("passes {what}{variable} to m4root, whose arguments must be positive")
            }
            PositiveUse::Argument { func, direct: true } => {
                format!("takes {}({variable})", func.name())
            }
            PositiveUse::Argument {
                func,
                direct: false,
            } => {
                format!("takes {} of an expression in {variable}", func.name())
            }
        }
    }
}

/// Adds `name` with its use and, for a local definition, every identifier it is built from
/// (no longer direct: the use is through the local).
fn expand_locals(
    name: &str,
    use_: PositiveUse,
    uses: &HashMap<&str, Vec<String>>,
    needed: &mut Vec<(String, PositiveUse)>,
) {
    if needed.iter().any(|(n, _)| n == name) {
        return;
    }
    needed.push((name.to_string(), use_));
    let indirect = match use_ {
        PositiveUse::FittedPower { .. } => PositiveUse::FittedPower { direct: false },
        PositiveUse::Argument { func, .. } => PositiveUse::Argument {
            func,
            direct: false,
        },
    };
    if let Some(ids) = uses.get(name) {
        for id in ids {
            expand_locals(id, indirect, uses, needed);
        }
    }
}

/// Calls `found` with every identifier inside a log/log10/sqrt argument, inside either argument
/// of m4root, or inside the base of a power whose exponent is not a literal number, with where;
/// inner uses first, so the first use of a variable is the most specific.
fn collect_positive(expr: &Expr, found: &mut impl FnMut(&str, PositiveUse)) {
    use expr::Func;
    match expr {
        Expr::Num(_) | Expr::Ident { .. } => {}
        Expr::Neg(a) => collect_positive(a, found),
        Expr::Bin(op, a, b) => {
            collect_positive(a, found);
            collect_positive(b, found);
            if *op == BinOp::Pow && !matches!(b.as_ref(), Expr::Num(_)) {
                let use_ = PositiveUse::FittedPower {
                    direct: matches!(a.as_ref(), Expr::Ident { .. }),
                };
                a.for_each_ident(&mut |name, _| found(name, use_));
            }
        }
        Expr::Call(func, args) => {
            let checked = match func {
                Func::Log | Func::Log10 | Func::Sqrt => &args[..1],
                Func::M4Root => &args[..],
                _ => &[],
            };
            args.iter().for_each(|a| collect_positive(a, found));
            for arg in checked {
                let use_ = PositiveUse::Argument {
                    func: *func,
                    direct: matches!(arg, Expr::Ident { .. }),
                };
                arg.for_each_ident(&mut |name, _| found(name, use_));
            }
        }
    }
}

/// Splits identifiers into variables and parameters, each in order of first appearance.
fn classify_identifiers(
    program: &Program,
    is_variable: &dyn Fn(&str) -> bool,
) -> (Vec<String>, Vec<String>) {
    let mut variables = Vec::new();
    let mut params = Vec::new();
    let mut locals: Vec<&str> = Vec::new();
    let mut visit = |expr: &Expr, locals: &[&str]| {
        expr.for_each_ident(&mut |name, _| {
            if locals.contains(&name) {
                return;
            }
            let list = if is_variable(name) {
                &mut variables
            } else {
                &mut params
            };
            if !list.iter().any(|n: &String| n == name) {
                list.push(name.to_string());
            }
        });
    };
    for (name, expr) in &program.definitions {
        visit(expr, &locals);
        locals.push(name);
    }
    visit(&program.body, &locals);
    (variables, params)
}

/// Greedy: a parameter is linear if adding it to the linear set keeps the law affine in the set.
/// One pass over the flattened law per parameter ([`DegreeTape`]), so P parameters of a law
/// of n nodes cost P·n steps (both bounded by [`crate::limits`]).
fn detect_linear(program: &Program, params: &[String]) -> Vec<bool> {
    let tape = DegreeTape::new(program, params);
    let mut in_set = vec![false; params.len()];
    let mut degrees = Vec::new();
    (0..params.len())
        .map(|p| {
            in_set[p] = true;
            let affine = tape.is_affine(&in_set, &mut degrees);
            in_set[p] = affine;
            affine
        })
        .collect()
}

/// Polynomial degree of the law in the parameters of `set` (None: not polynomial).
fn affine_degree(program: &Program, set: &[String]) -> Option<u32> {
    let tape = DegreeTape::new(program, set);
    tape.degree(&vec![true; set.len()], &mut Vec::new())
}

/// No polynomial degree (a parameter inside a function, a divisor or a power).
const NOT_POLYNOMIAL: u32 = u32::MAX;

/// One node of a [`DegreeTape`]; children are indices of earlier nodes.
enum DegreeNode {
    /// A number, a variable or a name outside the parameter list: degree 0.
    Constant,
    Param(usize),
    /// The root node of an earlier local definition.
    Local(usize),
    Neg(usize),
    /// The operator, its operands, and whether the right one is the literal 1.
    Bin(BinOp, usize, usize, bool),
    /// A function of the arguments `args[start..end]`.
    Call(usize, usize),
}

/// The law flattened for the linearity analysis: its nodes in post-order (definitions first,
/// then the body; every child before its parent), each identifier resolved once to a
/// parameter's index or a local definition's root, so that one degree pass is one loop over
/// an array.
struct DegreeTape {
    nodes: Vec<DegreeNode>,
    args: Vec<usize>,
}

impl DegreeTape {
    fn new(program: &Program, params: &[String]) -> DegreeTape {
        let index: HashMap<&str, usize> = params
            .iter()
            .enumerate()
            .map(|(i, p)| (p.as_str(), i))
            .collect();
        let mut tape = DegreeTape {
            nodes: Vec::new(),
            args: Vec::new(),
        };
        let mut locals: HashMap<&str, usize> = HashMap::new();
        for (name, expr) in &program.definitions {
            let root = tape.push(expr, &index, &locals);
            locals.insert(name.as_str(), root);
        }
        tape.push(&program.body, &index, &locals);
        tape
    }

    fn push(
        &mut self,
        expr: &Expr,
        params: &HashMap<&str, usize>,
        locals: &HashMap<&str, usize>,
    ) -> usize {
        let node = match expr {
            Expr::Num(_) => DegreeNode::Constant,
            Expr::Ident { name, .. } => {
                match (locals.get(name.as_str()), params.get(name.as_str())) {
                    (Some(&root), _) => DegreeNode::Local(root),
                    (None, Some(&p)) => DegreeNode::Param(p),
                    (None, None) => DegreeNode::Constant,
                }
            }
            Expr::Neg(a) => DegreeNode::Neg(self.push(a, params, locals)),
            Expr::Bin(op, a, b) => {
                let (a_node, b_node) = (self.push(a, params, locals), self.push(b, params, locals));
                DegreeNode::Bin(*op, a_node, b_node, **b == Expr::Num(1.0))
            }
            Expr::Call(_, call_args) => {
                let children: Vec<usize> = call_args
                    .iter()
                    .map(|a| self.push(a, params, locals))
                    .collect();
                let start = self.args.len();
                self.args.extend(children);
                DegreeNode::Call(start, self.args.len())
            }
        };
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The degree of the body in the parameters marked in `in_set` (None: not polynomial).
    /// `degrees` is scratch space, reused between passes.
    fn degree(&self, in_set: &[bool], degrees: &mut Vec<u32>) -> Option<u32> {
        degrees.clear();
        for node in &self.nodes {
            let d = match *node {
                DegreeNode::Constant => 0,
                DegreeNode::Param(p) => u32::from(in_set[p]),
                DegreeNode::Local(root) | DegreeNode::Neg(root) => degrees[root],
                DegreeNode::Bin(op, a, b, b_is_one) => {
                    bin_degree(op, degrees[a], degrees[b], b_is_one)
                }
                DegreeNode::Call(start, end) => {
                    let all_zero = self.args[start..end].iter().all(|&a| degrees[a] == 0);
                    if all_zero {
                        0
                    } else {
                        NOT_POLYNOMIAL
                    }
                }
            };
            degrees.push(d);
        }
        degrees.last().copied().filter(|&d| d != NOT_POLYNOMIAL)
    }

    fn is_affine(&self, in_set: &[bool], degrees: &mut Vec<u32>) -> bool {
        self.degree(in_set, degrees).is_some_and(|d| d <= 1)
    }
}

/// Why a formula with no fitted parameter is refused: every name is a data column, or (as in
/// `5` or `2*3`) it names nothing at all.
fn no_parameters_message(variables: &[String]) -> String {
    if variables.is_empty() {
        "the formula has no parameter to fit and reads no data column: write a law of the data's \
     columns with names for its parameters, e.g. E + A*N^-alpha"
            .to_string()
    } else {
        format!(
            "the formula has no parameters to fit (every name is a data column: {})",
            variables.join(", ")
        )
    }
}

/// The degree of `a OP b` from its operands' ([`NOT_POLYNOMIAL`] when either is, or when the
/// operation is not a polynomial one in the parameters).
fn bin_degree(op: BinOp, da: u32, db: u32, b_is_one: bool) -> u32 {
    if da == NOT_POLYNOMIAL || db == NOT_POLYNOMIAL {
        return NOT_POLYNOMIAL;
    }
    match op {
        BinOp::Add | BinOp::Sub => da.max(db),
        // Saturating: a product of a million factors stays "not affine", not a wrapped 0.
        BinOp::Mul => da.saturating_add(db).min(NOT_POLYNOMIAL - 1),
        BinOp::Div if db == 0 => da,
        BinOp::Pow if da == 0 && db == 0 => 0,
        BinOp::Pow if b_is_one => da,
        _ => NOT_POLYNOMIAL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn law(formula: &str, vars: &[&str]) -> Law {
        Law::from_formula(formula, &|id| vars.contains(&id)).unwrap()
    }

    #[test]
    fn identifiers_split_into_variables_and_parameters() {
        let l = law("E + A*N^-alpha + B*D^-beta", &["N", "D"]);
        assert_eq!(l.variables, vec!["N", "D"]);
        assert_eq!(l.param_names(), vec!["E", "A", "alpha", "B", "beta"]);
        let linear: Vec<bool> = l.params.iter().map(|p| p.linear).collect();
        assert_eq!(linear, vec![true, true, false, true, false]);
    }

    #[test]
    fn linear_detection_handles_products_and_locals() {
        let l = law("lo + (hi - lo)*sigmoid(k*(x - x0))", &["x"]);
        let linear: Vec<bool> = l.params.iter().map(|p| p.linear).collect();
        assert_eq!(l.param_names(), vec!["lo", "hi", "k", "x0"]);
        assert_eq!(linear, vec![true, true, false, false]);
        let l = law("a*b*x", &["x"]);
        assert_eq!(l.params.iter().filter(|p| p.linear).count(), 1);
        let l = law("s = A*x; s + exp(c)", &["x"]);
        assert!(l.params[0].linear && !l.params[1].linear);
    }

    #[test]
    fn positive_variables_are_those_under_powers_logs_and_m4root() {
        let l = law(
            "E + A*N^-alpha + B*D^2 + c*log(x) + d*y",
            &["N", "D", "x", "y"],
        );
        assert_eq!(l.positive_variables(), vec!["N", "x"]);
        let dc = catalog::lookup("data_constrained").unwrap();
        assert_eq!(dc.positive_variables(), vec!["N", "D", "U"]);
        let logistic = catalog::lookup("logistic").unwrap();
        assert!(logistic.positive_variables().is_empty());
        let m4root = law("E + m4root(g, a*t) + u", &["g", "t", "u"]);
        assert_eq!(m4root.positive_variables(), vec!["g", "t"]);
    }

    #[test]
    fn no_parameters_is_an_error() {
        assert!(Law::from_formula("x*2", &|id| id == "x").is_err());
    }

    /// Three reasons a value is not a finite double, told apart: exp(k*t) beyond 1.8e308, a
    /// formula whose inner power overflows although its value is moderate, and a pole.
    #[test]
    fn non_finite_values_say_why() {
        let growth = catalog::lookup("exp_growth").unwrap();
        // y0 = 2, k = 0.05 at t = 1e8: log10 y = log10 2 + 5e6/ln 10.
        match growth.non_finite(&[2.0, 0.05], &[1e8]) {
            Some(NonFinite::Overflow { sign, log10 }) => {
                let want = 2f64.log10() + 5e6 / std::f64::consts::LN_10;
                assert!(
                    sign > 0.0 && (log10 - want).abs() < 1e-6,
                    "{log10} vs {want}"
                );
                let text = NonFinite::Overflow { sign, log10 }.to_string();
                assert!(
                    text.contains("e2171472") && text.contains("1.8e308"),
                    "{text}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(growth.non_finite(&[2.0, 0.05], &[100.0]), None);
        // Caballero et al.'s factor as printed: (x/d)^(1/f) = 1e1500 overflows, the value is
        // 0.5 + 2·(1e6)^-0.5·... = 0.5 + 2·(x/d)^0.5 ≈ 2000.5.
        let by_name = |law: &Law| -> Vec<f64> {
            let value = |name: &str| match name {
                "a" => 0.5,
                "b" => 2.0,
                "c" => -0.5,
                "d" => 1.0,
                _ => 0.004,
            };
            law.param_names().into_iter().map(value).collect()
        };
        let printed = law("a + b*(1 + (x/d)^(1/f))^(-c*f)", &["x"]);
        match printed.non_finite(&by_name(&printed), &[1e6]) {
            Some(NonFinite::Intermediate { value }) => {
                assert!((value - 2000.5).abs() < 1e-6, "{value}")
            }
            other => panic!("{other:?}"),
        }
        let stable = law("a + b*exp(-c*f*softplus(log(x/d)/f))", &["x"]);
        assert!((stable.eval(&by_name(&stable), &[1e6]) - 2000.5).abs() < 1e-9);
        let pole = law("A/(x - 1)", &["x"]);
        assert_eq!(pole.non_finite(&[1.0], &[1.0]), Some(NonFinite::Undefined));
        let negative_log = law("A*log(x - 2)", &["x"]);
        assert_eq!(
            negative_log.non_finite(&[1.0], &[1.0]),
            Some(NonFinite::Undefined)
        );
    }

    #[test]
    fn eval_matches_hand_computation() {
        let l = law("E + A*N^-alpha + B*D^-beta", &["N", "D"]);
        let p = [1.8, 400.0, 0.34, 410.0, 0.28];
        let v = l.eval(&p, &[7e10, 1.4e12]);
        let want = 1.8 + 400.0 * 7e10f64.powf(-0.34) + 410.0 * 1.4e12f64.powf(-0.28);
        assert!((v - want).abs() < 1e-12 * want);
    }
}
