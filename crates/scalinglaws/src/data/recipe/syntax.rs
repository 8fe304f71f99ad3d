//! The text of recipe options, before any data: plain names, `NAME=REST` assignments, constant
//! numbers and lists of them, and character positions, so that an error in a piece of an option
//! points at its place in the whole option.

use crate::error::{Error, Result, Text};
use crate::law::expr::parse_expr;
use crate::text;

/// A name the law language accepts as an identifier.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_alphabetic() || first == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Splits `NAME=REST`, checking that NAME is a plain name; `what` names the setting in
/// messages and `form` shows the expected shape.
pub fn split_assignment<'a>(
    what: impl Into<Text>,
    text: &'a str,
    form: &str,
) -> Result<(&'a str, &'a str)> {
    let what = what.into();
    let quoted = if what.is_empty() {
        Text::from(format!("'{text}'"))
    } else {
        text![what, format!(" '{text}'")]
    };
    let Some((name, rest)) = text.split_once('=') else {
        return Err(Error::settings(text![
            quoted,
            format!(": expected {form} (no '=' found)")
        ]));
    };
    let name = name.trim();
    if !is_identifier(name) {
        return Err(Error::settings(text![
            quoted,
            format!(
                ": '{name}' is not a name; names start with a letter or '_' and hold letters, \
                 digits and '_' (expected {form})"
            )
        ]));
    }
    Ok((name, rest))
}

/// A number written as a constant expression (`1e-3`, `exp(6.26)`, `-0.5`) inside `full`, the
/// whole option value (for the error position).
pub fn constant(full: &str, piece: &str) -> Result<f64> {
    let offset = char_offset(full, piece);
    let expr = parse_expr(piece).map_err(|error| shift(error, full, offset))?;
    let mut named = None;
    expr.for_each_ident(&mut |name, position| {
        named.get_or_insert((name.to_string(), position));
    });
    if let Some((name, position)) = named {
        return Err(Error::Formula {
            formula: full.to_string(),
            position: offset + position,
            message: format!(
                "'{name}' is a name, but a value must be a number or a constant expression \
                 such as exp(5)"
            )
            .into(),
        });
    }
    Ok(expr.eval_f64(&|_| None).unwrap_or(f64::NAN))
}

/// A comma-separated list of constants (commas inside parentheses do not split).
pub fn constant_list(full: &str, list: &str) -> Result<Vec<f64>> {
    split_top_level(list)
        .into_iter()
        .map(|piece| constant(full, piece))
        .collect()
}

/// Splits at commas outside parentheses; every piece is a subslice of `text`.
pub fn split_top_level(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    pieces.push(&text[start..]);
    pieces
}

/// Character offset of `part` (a subslice of `full`) in `full`.
pub fn char_offset(full: &str, part: &str) -> usize {
    let bytes = (part.as_ptr() as usize).saturating_sub(full.as_ptr() as usize);
    full.get(..bytes.min(full.len()))
        .map_or(0, |before| before.chars().count())
}

/// A formula error inside a piece of `full`, re-pointed at `full`.
pub fn shift(error: Error, full: &str, offset: usize) -> Error {
    match error {
        Error::Formula {
            position, message, ..
        } => Error::Formula {
            formula: full.to_string(),
            position: position + offset,
            message,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(result: Result<impl std::fmt::Debug>) -> String {
        result.expect_err("expected an error").to_string()
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier("N"));
        assert!(is_identifier("_x1"));
        assert!(!is_identifier("1x"));
        assert!(!is_identifier("Model Size"));
        assert!(!is_identifier(""));
    }

    #[test]
    fn constants_and_lists() {
        assert_eq!(
            constant("x", "x")
                .map_err(|e| e.to_string())
                .err()
                .map(|m| m.contains("character 1")),
            Some(true)
        );
        assert_eq!(constant("1e-3", "1e-3").unwrap(), 1e-3);
        let full = "A=exp(0),max(1, 2),-3";
        let values = constant_list(full, &full[2..]).unwrap();
        assert_eq!(values, vec![1.0, 2.0, -3.0]);
        let full = "A=1,2,(";
        let text = message(constant_list(full, &full[2..]));
        assert!(text.contains("character 8"), "{text}");
    }

    #[test]
    fn offsets_count_characters() {
        let full = "größe=1";
        assert_eq!(char_offset(full, &full[full.find('=').unwrap() + 1..]), 6);
    }
}
