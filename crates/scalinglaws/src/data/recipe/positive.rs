//! Why a law needs a variable positive (it raises it to a fitted power or takes its log), so
//! that the complaint about a value <= 0 says what in the law requires it.

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
    let use_ = reason.unwrap_or_else(|| format!("raises {variable} to a fitted power"));
    format!("the law {use_}")
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
