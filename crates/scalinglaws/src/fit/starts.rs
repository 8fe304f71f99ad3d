//! Start values from the data for the nonlinear parameters of a user formula. A fixed grid
//! such as {−0.3, 0.1, 0.3, 1} ignores the data's scale: a peak at x = 180 on x ∈ [1, 250]
//! (NIST's Gauss1–3) or a centre at 451 on x ∈ [400, 500] (Eckerle4) is out of its reach, and
//! every start ends in a local optimum or gives no finite objective at all. Where a parameter
//! plays a recognisable role next to the data, its starts are placed on the data's scale:
//!
//! - a **location**, `x − p` or `p − x`: quantiles of x (and 0, the fixed grid's centre);
//! - a **width**, `(…x…)/p` or `(…x…)/p^k` with p also in the numerator's company: fractions of
//!   the spread of x;
//! - a **rate**, `p·x` (as in `exp(−p·x)` or `1 + p·x`): multiples of 1/typical |x|, both signs;
//! - a **period**, `sin(c·x/p)` or `cos(c·x/p)`: the harmonics c·span/(2πk) of the data's span,
//!   one Fourier frequency apart (k = 1..10), the grid a periodogram searches (NIST's ENSO).
//!
//! The roles are read from the formula's tree, the first occurrence deciding; a parameter with
//! no recognisable role keeps the fixed grid. Catalog laws keep their own grids.

use super::quantile;
use crate::law::expr::{BinOp, Expr, Func};
use crate::law::Law;

/// The role a parameter plays next to the data.
#[derive(Debug, Clone, PartialEq)]
enum Role {
    /// x − p: values of the data expression.
    Location(Vec<f64>),
    /// (…)/p: the spread of the variable(s) in the numerator.
    Width(f64),
    /// p·E: the typical magnitude of the data expression E.
    Rate(f64),
    /// sin(E/p), cos(E/p): the span of E (its phase over the data, in radians, at p = 1).
    Period(f64),
}

/// Data-derived starts for parameter `name` of `law`, or None when it has no recognisable role.
pub fn derived_starts(law: &Law, name: &str, variables: &[Vec<f64>]) -> Option<Vec<f64>> {
    let program = law.program();
    let context = Context { law, variables };
    let role = program
        .definitions
        .iter()
        .map(|(_, e)| e)
        .chain([&program.body])
        .find_map(|e| context.role(e, name))?;
    let starts = match role {
        Role::Location(mut values) => {
            values.retain(|v| v.is_finite());
            values.sort_by(f64::total_cmp);
            let mut s = vec![0.0];
            s.extend([0.15, 0.5, 0.85].map(|q| quantile(&values, q)));
            s
        }
        Role::Width(spread) => vec![0.1 * spread, 0.3 * spread],
        Role::Rate(typical) => [-0.3, 0.3, 1.0, 3.0].map(|c| c / typical).to_vec(),
        Role::Period(span) => (1..=HARMONICS)
            .map(|k| span / (std::f64::consts::TAU * k as f64))
            .collect(),
    };
    let mut starts: Vec<f64> = starts.into_iter().filter(|v| v.is_finite()).collect();
    starts.dedup();
    (!starts.is_empty()).then_some(starts)
}

/// Harmonics of the data's span tried for a period.
const HARMONICS: usize = 10;

struct Context<'a> {
    law: &'a Law,
    variables: &'a [Vec<f64>],
}

fn is_param(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Ident { name: n, .. } => n == name,
        Expr::Neg(a) => is_param(a, name),
        _ => false,
    }
}

impl Context<'_> {
    /// True when `e` reads data but no parameter (nor a local definition).
    fn data_only(&self, e: &Expr) -> bool {
        let (mut data, mut other) = (false, false);
        e.for_each_ident(&mut |id, _| {
            if self.law.variable_index(id).is_some() {
                data = true;
            } else {
                other = true;
            }
        });
        data && !other
    }

    /// Values of a data-only expression on every row.
    fn values(&self, e: &Expr) -> Option<Vec<f64>> {
        let n = self.variables.first()?.len();
        (0..n)
            .map(|row| {
                e.eval_f64(&|id| self.law.variable_index(id).map(|i| self.variables[i][row]))
            })
            .collect()
    }

    /// Spread (max − min) of the variables read by `e`, the widest if several.
    fn spread(&self, e: &Expr) -> Option<f64> {
        let mut widest: Option<f64> = None;
        e.for_each_ident(&mut |id, _| {
            if let Some(i) = self.law.variable_index(id) {
                let column = &self.variables[i];
                let (lo, hi) = column
                    .iter()
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                        (lo.min(*v), hi.max(*v))
                    });
                let s = hi - lo;
                if s.is_finite() && s > 0.0 {
                    widest = Some(widest.map_or(s, |w: f64| w.max(s)));
                }
            }
        });
        widest
    }

    fn typical(&self, e: &Expr) -> Option<f64> {
        let mut magnitudes: Vec<f64> = self
            .values(e)?
            .into_iter()
            .map(f64::abs)
            .filter(|v| v.is_finite() && *v > 0.0)
            .collect();
        magnitudes.sort_by(f64::total_cmp);
        let m = quantile(&magnitudes, 0.5);
        (m.is_finite() && m > 0.0).then_some(m)
    }

    fn role(&self, e: &Expr, name: &str) -> Option<Role> {
        match e {
            Expr::Num(_) | Expr::Ident { .. } => None,
            Expr::Neg(a) => self.role(a, name),
            Expr::Call(func, args) => {
                let periodic = matches!(func, Func::Sin | Func::Cos);
                let here = match args.first() {
                    Some(Expr::Bin(BinOp::Div, a, b)) if periodic && is_param(b, name) => self
                        .data_only(a)
                        .then(|| self.spread(a))
                        .flatten()
                        .and_then(|_| {
                            let values = self.values(a)?;
                            let (lo, hi) = values
                                .iter()
                                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                                    (lo.min(*v), hi.max(*v))
                                });
                            let span = hi - lo;
                            (span.is_finite() && span > 0.0).then_some(Role::Period(span))
                        }),
                    _ => None,
                };
                here.or_else(|| args.iter().find_map(|a| self.role(a, name)))
            }
            Expr::Bin(op, a, b) => self
                .here(*op, a, b, name)
                .or_else(|| self.role(a, name).or_else(|| self.role(b, name))),
        }
    }

    /// The role of `name` as a direct operand of `a op b`, if any.
    fn here(&self, op: BinOp, a: &Expr, b: &Expr, name: &str) -> Option<Role> {
        match op {
            BinOp::Sub if is_param(b, name) && self.data_only(a) => {
                Some(Role::Location(self.values(a)?))
            }
            BinOp::Sub if is_param(a, name) && self.data_only(b) => {
                Some(Role::Location(self.values(b)?))
            }
            BinOp::Mul if is_param(a, name) && self.data_only(b) => {
                Some(Role::Rate(self.typical(b)?))
            }
            BinOp::Mul if is_param(b, name) && self.data_only(a) => {
                Some(Role::Rate(self.typical(a)?))
            }
            BinOp::Div if self.divides(b, name) && !self.data_only(a) => {
                // (x − p0)/p: a width on the scale of x's spread.
                Some(Role::Width(self.spread(a)?))
            }
            _ => None,
        }
    }

    /// `e` is the parameter, or a power of it with a literal exponent.
    fn divides(&self, e: &Expr, name: &str) -> bool {
        match e {
            Expr::Bin(BinOp::Pow, base, exponent) => {
                is_param(base, name) && matches!(exponent.as_ref(), Expr::Num(_))
            }
            other => is_param(other, name),
        }
    }
}
