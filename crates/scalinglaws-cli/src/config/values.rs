//! Numbers given on the command line, parsed once for every command that takes them: lists of
//! numbers (`--budget`, `--target-loss`), single numbers (`--max-params`, `--from`), and
//! variables with values (`--set VAR=V[,V...]`, `--at VAR=V[,V...]`, predict's `VAR=V`).
//! Every value may be a constant expression such as `5.88e23` or `20*7e9`.

use std::collections::BTreeMap;

use anyhow::{Context, Result};

use scalinglaws::workflow::design::{AnyRatio, TokensPerParam};

use super::split_name;
use crate::input;
use crate::input_error;

/// The values of a repeated `option`, each a number or a comma list, in order.
pub fn numbers(option: &str, texts: &[String]) -> Result<Vec<f64>> {
    let mut values = Vec::new();
    for text in texts {
        values.extend(
            input::constant_list(text, text).with_context(|| format!("{option} '{text}'"))?,
        );
    }
    Ok(values)
}

/// The values of repeated `--budget` options, each a number or a comma list, in order (the one
/// `--budget` parser; the library's isoflop workflow requires them positive).
pub fn budget_values(texts: &[String]) -> Result<Vec<f64>> {
    numbers("--budget", texts)
}

/// One number (a constant expression) given to `option`.
pub fn number(option: &str, text: &str) -> Result<f64> {
    input::constant(text, text).with_context(|| format!("{option} '{text}'"))
}

/// `option`'s number, when given.
pub fn optional_number(option: &str, text: Option<&str>) -> Result<Option<f64>> {
    text.map(|t| number(option, t)).transpose()
}

/// `VAR=V` or `VAR=V1,V2,...` of a repeated `option`, each name once, in the order given;
/// `form` is the shape shown when one is malformed.
pub fn named_lists(option: &str, form: &str, texts: &[String]) -> Result<Vec<(String, Vec<f64>)>> {
    let mut named: Vec<(String, Vec<f64>)> = Vec::new();
    for text in texts {
        let (name, list) = split_name(option, text, form)?;
        if named.iter().any(|(n, _)| n == name) {
            return Err(input_error(format!("{option}: '{name}' is given twice")));
        }
        let values =
            input::constant_list(text, list).with_context(|| format!("{option} '{text}'"))?;
        named.push((name.to_string(), values));
    }
    Ok(named)
}

/// `--set VAR=V` or `--set VAR=V1,V2,...` (several values: optimised over), by name.
pub fn held_values(texts: &[String]) -> Result<BTreeMap<String, Vec<f64>>> {
    let form = "VAR=VALUE[,VALUE...], e.g. U=25e9";
    Ok(named_lists("--set", form, texts)?.into_iter().collect())
}

/// `--tokens-per-param LOW..HIGH` or `any` (None: not given, the library's default); the
/// library checks the range.
pub fn tokens_per_param(text: Option<&str>) -> Result<Option<TokensPerParam>> {
    let Some(text) = text.map(str::trim) else {
        return Ok(None);
    };
    if text.eq_ignore_ascii_case("any") {
        return Ok(Some(TokensPerParam::Any(AnyRatio::Any)));
    }
    let bad = || {
        input_error(format!(
            "--tokens-per-param '{text}': write LOW..HIGH, two numbers, e.g. 2..500, or any"
        ))
    };
    let (low, high) = text.split_once("..").ok_or_else(bad)?;
    let number = |s: &str| s.trim().parse::<f64>().ok();
    match (number(low), number(high)) {
        (Some(low), Some(high)) => Ok(Some(TokensPerParam::Range([low, high]))),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lists_and_expressions() {
        let values = budget_values(&texts(&["1e21,1e22", "20*7e9"])).unwrap();
        assert_eq!(values, vec![1e21, 1e22, 1.4e11]);
        let error = numbers("--target-loss", &texts(&["2.1,x"])).unwrap_err();
        assert!(
            format!("{error:#}").contains("--target-loss '2.1,x'"),
            "{error:#}"
        );
        assert_eq!(
            optional_number("--max-params", Some("7e9")).unwrap(),
            Some(7e9)
        );
        assert_eq!(optional_number("--max-params", None).unwrap(), None);
    }

    #[test]
    fn named_values_once_each() {
        let held = held_values(&texts(&["U=25e9", "E=1,8"])).unwrap();
        assert_eq!(held["U"], vec![25e9]);
        assert_eq!(held["E"], vec![1.0, 8.0]);
        let twice = held_values(&texts(&["U=1", "U=2"])).unwrap_err();
        assert!(
            twice.to_string().contains("--set: 'U' is given twice"),
            "{twice}"
        );
        let at = named_lists("--at", "VAR=VALUE", &texts(&["N=7e10", "D=1e12,2e12"])).unwrap();
        assert_eq!(at[1], ("D".to_string(), vec![1e12, 2e12]));
        assert!(named_lists("--at", "VAR=VALUE", &texts(&["N"])).is_err());
    }

    /// The help of `--per-decade` and `--tokens-per-param` states these defaults.
    #[test]
    fn the_documented_grid_defaults_are_the_library_s() {
        assert_eq!(scalinglaws::workflow::design::PER_DECADE, 8);
        assert_eq!(
            scalinglaws::workflow::design::TOKENS_PER_PARAM,
            [2.0, 500.0]
        );
    }

    #[test]
    fn tokens_per_param_reads_a_range_or_any() {
        // Not given: the library's default range once the grid is laid out; `any`: none.
        use scalinglaws::workflow::design::{CandidateSpace, TOKENS_PER_PARAM};
        let kept = |text: Option<&str>| match CandidateSpace::grid(
            Vec::new(),
            None,
            tokens_per_param(text).unwrap(),
            None,
        ) {
            CandidateSpace::Grid {
                tokens_per_param, ..
            } => tokens_per_param,
            CandidateSpace::List(_) => unreachable!("a grid"),
        };
        assert_eq!(kept(None), Some(TOKENS_PER_PARAM));
        assert_eq!(kept(Some("any")), None);
        assert_eq!(kept(Some(" 10..100 ")), Some([10.0, 100.0]));
        for bad in ["10", "a..b"] {
            let message = tokens_per_param(Some(bad)).unwrap_err().to_string();
            assert!(message.contains("--tokens-per-param"), "{message}");
        }
    }
}
