//! The words of a fit's caveats ([`scalinglaws::fit::FitCaveat`]): one warning line each,
//! repeated wherever the fit's predictions are used (`predict`, `optimal`, `design`, the
//! report's allocation), for every front end. Nothing is printed for a fit without one.

use scalinglaws::error::short_number;
use scalinglaws::fit::FitCaveat;

use crate::text::number;

/// What `caveat` means for predictions from the fit, in one sentence.
pub fn describe(caveat: &FitCaveat) -> String {
    match caveat {
        FitCaveat::AtBound {
            param,
            side,
            bound,
            value,
        } => format!(
            "the fit's {param} is at its {} bound ({}): predictions beyond the data lean on a boundary value",
            side.name(),
            short_number(bound.unwrap_or(*value))
        ),
        FitCaveat::IllConditioned { condition } => format!(
            "the fit's scaled Hessian is ill-conditioned (condition number {}): a combination of its parameters is barely determined, and so are predictions beyond the data",
            number(*condition, 3)
        ),
        FitCaveat::NotPositiveDefinite => "the fit's Hessian is not positive definite (a flat direction or a saddle): the data do not determine every parameter, and the fit has no standard errors to widen predictions by".to_string(),
        FitCaveat::Interpolates { params } => format!(
            "the fit has as many parameters ({params}) as rows: it interpolates the data, so nothing measures how far its predictions can be trusted"
        ),
        FitCaveat::NotConverged { termination } => format!(
            "the fit did not converge ({termination}): its predictions are approximate"
        ),
        FitCaveat::RivalOptimum { relative_gap } => format!(
            "another optimum of the fit is within {} (relative) of the best: its parameters are not unique, and predictions beyond the data may differ between the optima",
            number(*relative_gap, 2)
        ),
    }
}

/// One `warning: …` line per caveat, each after `indent` (nothing without a caveat).
pub fn lines(caveats: &[FitCaveat], indent: &str) -> String {
    caveats
        .iter()
        .map(|c| format!("{indent}warning: {}\n", describe(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use scalinglaws::fit::BoundSide;

    #[test]
    fn a_parameter_at_its_bound_is_named_with_its_side_and_bound() {
        let caveat = FitCaveat::AtBound {
            param: "E".into(),
            side: BoundSide::Lower,
            bound: Some(0.0),
            value: 0.0,
        };
        assert_eq!(
            lines(&[caveat], ""),
            "warning: the fit's E is at its lower bound (0): predictions beyond the data lean on a boundary value\n"
        );
        assert_eq!(lines(&[], "    "), "");
    }
}
