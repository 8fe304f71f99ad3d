//! A filter, `LHS OP RHS`, parsed once: the one top-level comparison operator is found (with
//! a hint for `=`), and both sides are expressions whose errors point at the option as given.

use super::syntax::{char_offset, shift};
use crate::error::{Error, Result};
use crate::law::expr::{parse_expr, Expr};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Comparison {
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Equal,
    NotEqual,
}

impl Comparison {
    /// Longest spellings first, so that "<=" is not read as "<".
    const SPELLINGS: [(&'static str, Comparison); 6] = [
        ("<=", Comparison::LessEqual),
        (">=", Comparison::GreaterEqual),
        ("==", Comparison::Equal),
        ("!=", Comparison::NotEqual),
        ("<", Comparison::Less),
        (">", Comparison::Greater),
    ];

    /// False when either side is NaN (the row does not satisfy the filter).
    pub(super) fn holds(self, left: f64, right: f64) -> bool {
        match self {
            Comparison::Less => left < right,
            Comparison::LessEqual => left <= right,
            Comparison::Greater => left > right,
            Comparison::GreaterEqual => left >= right,
            Comparison::Equal => left == right,
            Comparison::NotEqual => left != right && !left.is_nan() && !right.is_nan(),
        }
    }
}

/// `LHS OP RHS`: keeps the rows where the comparison holds.
#[derive(Debug, Clone)]
pub struct Filter {
    /// As given (positions in messages count from its start).
    pub text: String,
    pub(super) left: Expr,
    pub(super) comparison: Comparison,
    pub(super) right: Expr,
    /// Character offset of the right-hand side in `text`.
    pub(super) right_offset: usize,
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter> {
        let formula_error = |position: usize, message: String| Error::Formula {
            formula: text.to_string(),
            position,
            message: message.into(),
        };
        let mut found: Vec<(usize, usize, Comparison)> = Vec::new(); // (byte, length, op)
        let mut depth = 0i32;
        let mut bytes = text.char_indices().peekable();
        while let Some((at, c)) = bytes.next() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '<' | '>' | '=' | '!' if depth == 0 => {
                    let rest = &text[at..];
                    let Some((spelling, comparison)) = Comparison::SPELLINGS
                        .iter()
                        .find(|(spelling, _)| rest.starts_with(spelling))
                    else {
                        let hint = if c == '=' {
                            "; to compare, write '=='"
                        } else {
                            ""
                        };
                        return Err(formula_error(
                            char_offset(text, rest),
                            format!("'{c}' is not a comparison operator{hint}"),
                        ));
                    };
                    if spelling.len() == 2 {
                        bytes.next();
                    }
                    found.push((at, spelling.len(), *comparison));
                }
                _ => {}
            }
        }
        let (at, length, comparison) = match found.as_slice() {
            [] => {
                return Err(formula_error(
                    text.chars().count(),
                    "expected a comparison such as 'loss < 3.5' (operators: < <= > >= == !=)"
                        .to_string(),
                ))
            }
            [one] => *one,
            [_, second, ..] => {
                return Err(formula_error(
                    char_offset(text, &text[second.0..]),
                    "only one comparison per filter; give several filters to require several"
                        .to_string(),
                ))
            }
        };
        let (left_text, right_text) = (&text[..at], &text[at + length..]);
        let right_offset = char_offset(text, right_text);
        let left = parse_expr(left_text).map_err(|error| shift(error, text, 0))?;
        let right = parse_expr(right_text).map_err(|error| shift(error, text, right_offset))?;
        Ok(Filter {
            text: text.to_string(),
            left,
            comparison,
            right,
            right_offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<impl std::fmt::Debug>) -> String {
        result.expect_err("expected an error").to_string()
    }

    #[test]
    fn filter_finds_the_top_level_operator() {
        let filter = Filter::parse("loss < 3.44").unwrap();
        assert_eq!(filter.comparison, Comparison::Less);
        assert_eq!(filter.right_offset, 6);
        let filter = Filter::parse("max(a, b)>=c*2").unwrap();
        assert_eq!(filter.comparison, Comparison::GreaterEqual);
        assert!(Filter::parse("x != 1").is_ok());
        assert!(Filter::parse("x == 1").is_ok());
    }

    #[test]
    fn malformed_filters_point_at_the_problem() {
        let text = message(Filter::parse("loss 3.44"));
        assert!(text.contains("character 10"), "{text}");
        assert!(text.contains("expected a comparison"), "{text}");
        let text = message(Filter::parse("loss = 3"));
        assert!(text.contains("character 6"), "{text}");
        assert!(text.contains("'=='"), "{text}");
        let text = message(Filter::parse("1 < x < 3"));
        assert!(text.contains("character 7"), "{text}");
        let text = message(Filter::parse("loss < "));
        assert!(text.contains("character 8"), "{text}");
        let text = message(Filter::parse("loss < 3 +* 2"));
        assert!(text.contains("character 11"), "{text}");
    }
}
