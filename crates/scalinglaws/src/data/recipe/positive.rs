//! Why a law needs a variable positive (it raises it to a fitted power, takes its log or passes
//! it to m4root), so that the complaint about a value <= 0 says what in the law requires it.

use crate::law::expr::{BinOp, Expr, Func};
use crate::law::Law;

/// Why the law needs `variable` > 0, for the message of a non-positive value: "the law raises
/// N to a fitted power", "the law takes log(x)".
pub fn why_positive(law: &Law, variable: &str) -> String {
    let program = law.program();
    let mut reason: Option<String> = None;
    for expr in program
        .definitions
        .iter()
        .map(|(_, expr)| expr)
        .chain([&program.body])
    {
        find_positive_use(expr, variable, &mut reason);
    }
    let only_m4root = !program_has(program, &|e| power_base_holds(e, variable))
        && program_has(program, &|e| m4root_holds(e, variable));
    let use_ = reason.unwrap_or_else(|| match only_m4root {
        true => format!("passes {variable} to m4root (NaN below 0)"),
        false => format!("raises {variable} to a fitted power"),
    });
    format!("the law {use_}")
}

/// Whether `test` holds at some node of the law's definitions or body.
fn program_has(program: &crate::law::expr::Program, test: &dyn Fn(&Expr) -> bool) -> bool {
    let mut found = false;
    for expr in program
        .definitions
        .iter()
        .map(|(_, e)| e)
        .chain([&program.body])
    {
        expr.for_each_node(&mut |node| found |= test(node));
    }
    found
}

fn contains(expr: &Expr, variable: &str) -> bool {
    let mut found = false;
    expr.for_each_ident(&mut |name, _| found |= name == variable);
    found
}

/// A power with a fitted exponent whose base holds `variable`, as in (x0/x)^c.
fn power_base_holds(expr: &Expr, variable: &str) -> bool {
    matches!(expr, Expr::Bin(BinOp::Pow, base, exponent)
        if !matches!(**exponent, Expr::Num(_)) && contains(base, variable))
}

fn m4root_holds(expr: &Expr, variable: &str) -> bool {
    matches!(expr, Expr::Call(Func::M4Root, args) if args.iter().any(|a| contains(a, variable)))
}

fn find_positive_use(expr: &Expr, variable: &str, reason: &mut Option<String>) {
    if reason.is_some() {
        return;
    }
    let is_variable = |expr: &Expr| matches!(expr, Expr::Ident { name, .. } if name == variable);
    match expr {
        Expr::Num(_) | Expr::Ident { .. } => {}
        Expr::Neg(inner) => find_positive_use(inner, variable, reason),
        Expr::Bin(op, base, exponent) => {
            if *op == BinOp::Pow && is_variable(base) && !matches!(**exponent, Expr::Num(_)) {
                *reason = Some(format!("raises {variable} to a fitted power"));
                return;
            }
            find_positive_use(base, variable, reason);
            find_positive_use(exponent, variable, reason);
        }
        Expr::Call(func, args) => {
            if matches!(func, Func::Log | Func::Log10 | Func::Sqrt)
                && args.first().is_some_and(is_variable)
            {
                *reason = Some(format!("takes {}({variable})", func.name()));
                return;
            }
            for arg in args {
                find_positive_use(arg, variable, reason);
            }
        }
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
        assert_eq!(why("x"), "the law raises x to a fitted power");
        assert_eq!(why("t"), "the law passes t to m4root (NaN below 0)");
        assert_eq!(why("u"), "the law takes log(u)");
    }
}
