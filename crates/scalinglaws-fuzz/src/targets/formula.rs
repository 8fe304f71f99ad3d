//! The formula target: the input is a `formula` as typed. It is parsed into a law (as the fit
//! command builds a user formula, with N, D, U, C, M and x as data columns), then evaluated
//! at a few points with values, exact gradients and, for a modest number of parameters, exact
//! Hessians, and asked what the fit asks of it (which variables must be positive, which
//! parameters enter linearly, why a value is not finite).

use scalinglaws::law::real::{HyperDual, Real};
use scalinglaws::law::NonFinite;
use scalinglaws::Law;

use super::text;
use crate::Signature;

const COLUMNS: [&str; 10] = ["N", "D", "U", "C", "M", "x", "t", "r", "N_rec", "N_once"];
/// Parameter values tried, cycled over the parameters.
const PARAM_VALUES: [f64; 5] = [0.34, 1.69, 406.4, -0.5, 2.0];
/// Points tried for every variable: ordinary, tiny, huge, zero and negative.
const POINTS: [f64; 5] = [7e10, 1e-3, 1e300, 0.0, -2.0];
/// Above this many parameters the Hessian (n² per operation) is skipped.
const HESSIAN_PARAMS: usize = 24;

pub fn run(input: &[u8]) -> Signature {
    let Some(formula) = text(input) else {
        return Signature::tag("not utf-8");
    };
    let law = match Law::from_formula(formula, &|name| COLUMNS.contains(&name)) {
        Ok(law) => law,
        Err(error) => return Signature::of_error("formula", &error),
    };
    // The fit refuses a law that reads no data column (its data would have no rows).
    if law.variables.is_empty() {
        return Signature::tag("no variable");
    }
    exercise(&law)
}

/// Everything a fit asks of a law, at a few points; the signature says which kinds of value
/// came out.
pub(crate) fn exercise(law: &Law) -> Signature {
    let n_params = law.params.len();
    let params: Vec<f64> = (0..n_params)
        .map(|i| PARAM_VALUES[i % PARAM_VALUES.len()])
        .collect();
    let mut signature = Signature::tag("law");
    signature = signature.mix(&[law.positive_variables().len().min(8) as u8]);
    let names = law.param_names();
    signature = signature.mix(&[u8::from(law.is_affine_in(&names))]);
    let columns: Vec<Vec<f64>> = law.variables.iter().map(|_| POINTS.to_vec()).collect();
    let column_refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    let bound = law.bind(&column_refs);
    let mut scratch = bound.scratch();
    let mut gradient = vec![0.0; n_params];
    for row in 0..POINTS.len() {
        let point: Vec<f64> = columns.iter().map(|c| c[row]).collect();
        let value = bound.gradient_row(&params, row, &mut scratch, &mut gradient);
        let direct = law.eval(&params, &point);
        signature = signature.mix(&[class(value), class(direct)]);
        if let Some(why) = law.non_finite(&params, &point) {
            let _words = why.to_string();
            signature = signature.mix(&[match why {
                NonFinite::Overflow { .. } => 3,
                NonFinite::Intermediate { .. } => 4,
                NonFinite::Undefined => 5,
            }]);
        }
        if n_params <= HESSIAN_PARAMS {
            let duals: Vec<HyperDual> = params
                .iter()
                .enumerate()
                .map(|(i, p)| HyperDual::variable(*p, i, n_params))
                .collect();
            let exact = bound.eval_row_real(&duals, row);
            signature = signature.mix(&[class(exact.value())]);
        }
    }
    signature
}

/// Finite, infinite or NaN.
fn class(value: f64) -> u8 {
    if value.is_finite() {
        0
    } else if value.is_nan() {
        2
    } else {
        1
    }
}
