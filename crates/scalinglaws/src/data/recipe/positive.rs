//! Why a law needs a variable positive (it raises it to a fitted power, takes its log or passes
//! it to m4root), so that the complaint about a value <= 0 says what in the law requires it.
//! The law finds the place ([`Law::positive_uses`], the same walk that decides which variables
//! must be positive); this words it.

use crate::law::Law;

/// Why the law needs `variable` > 0, for the message of a non-positive value: "the law raises
/// N to a fitted power", "the law takes log(x)".
pub fn why_positive(law: &Law, variable: &str) -> String {
    let use_ = law
        .positive_uses()
        .into_iter()
        .find(|(v, _)| *v == variable)
        .map(|(_, use_)| use_.words(variable));
    match use_ {
        Some(use_) => format!("the law {use_}"),
        None => format!("the law needs {variable} positive"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_names_the_use_that_needs_the_variable_positive() {
        let is_variable = |name: &str| ["x", "t", "u"].contains(&name);
        let law = Law::from_formula("E + m4root((x0/x)^c, a*t) + log(u)", &is_variable).unwrap();
        let why = |variable| why_positive(&law, variable);
        assert_eq!(
            why("x"),
            "the law raises an expression in x to a fitted power"
        );
        assert_eq!(
            why("t"),
            "the law passes an expression in t to m4root, whose arguments must be positive"
        );
        assert_eq!(why("u"), "the law takes log(u)");
        let is_variable = |name: &str| ["N", "x", "t"].contains(&name);
        let formula = "z = a*t; E + A*N^-alpha + m4root(z, b) + sqrt(1 + x) + m4root(x, t)";
        let law = Law::from_formula(formula, &is_variable).unwrap();
        let why = |variable| why_positive(&law, variable);
        assert_eq!(why("N"), "the law raises N to a fitted power");
        assert_eq!(
            why("t"),
            "the law passes an expression in t to m4root, whose arguments must be positive"
        );
        assert_eq!(why("x"), "the law takes sqrt of an expression in x");
    }
}
