//! A derived column, `VAR=EXPR`, parsed once so that it is computed on every row and its
//! errors point at a character of the option as given.

use super::syntax::{char_offset, shift, split_assignment};
use crate::error::Result;
use crate::law::expr::{parse_expr, Expr};

/// `VAR=EXPR`: a column computed row by row.
#[derive(Debug, Clone)]
pub struct Derive {
    /// As given (positions in messages count from its start).
    pub text: String,
    pub name: String,
    pub(super) expr: Expr,
    /// Character offset of the expression in `text`.
    pub(super) offset: usize,
}

impl Derive {
    pub fn parse(text: &str) -> Result<Derive> {
        let (name, expression) = split_assignment("", text, "VAR=EXPR, e.g. D=C/(6*N)")?;
        let offset = char_offset(text, expression);
        let expr = parse_expr(expression).map_err(|error| shift(error, text, offset))?;
        Ok(Derive {
            text: text.to_string(),
            name: name.to_string(),
            expr,
            offset,
        })
    }
}
