//! From a dataset and its recipe (names mapped onto columns, derived columns, filters, the
//! target and the weights) to the numbers a fit needs. It exists so that every complaint about
//! the data names the file, the row (as numbered in the file, even after filtering), the column
//! or the character position in the expression, and so that no row disappears without being
//! counted. The command line and the Python package share it; its hints mention the settings
//! by key ([`Setting::Map`], ...), which each front end words in its own terms
//! (`--map N=COLUMN` or `map={"N": "COLUMN"}`).
//!
//! Order of work: check the map aliases; compute the derived columns in order on every row;
//! apply the filters (rows they remove are counted); then check the values the fit will use
//! (derived values finite, the target positive in log space, variables positive where the law
//! raises them to a fitted power or takes their log, weights >= 0).

use std::collections::HashMap;

use super::Dataset;
use crate::error::{Error, Location, Result, Setting, Text};
use crate::fit::result::DataSummary;
use crate::fit::{FitData, FitResult, Space};
use crate::law::expr::{parse_expr, BinOp, Expr, Func};
use crate::law::Law;
use crate::suggest::closest;
use crate::text;

// ---------------------------------------------------------------------------------------------
// Parsing the options (no data needed)
// ---------------------------------------------------------------------------------------------

/// How to turn a dataset into a fit's data.
#[derive(Debug, Clone, Default)]
pub struct Recipe {
    /// `VAR=COLUMN` aliases, in order.
    pub maps: Vec<(String, String)>,
    pub derives: Vec<Derive>,
    pub filters: Vec<Filter>,
    pub target: String,
    pub weights: Option<String>,
}

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

/// `VAR=EXPR`: a column computed row by row.
#[derive(Debug, Clone)]
pub struct Derive {
    /// As given (positions in messages count from its start).
    pub text: String,
    pub name: String,
    expr: Expr,
    /// Character offset of the expression in `text`.
    offset: usize,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
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
    fn holds(self, left: f64, right: f64) -> bool {
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
    left: Expr,
    comparison: Comparison,
    right: Expr,
    /// Character offset of the right-hand side in `text`.
    right_offset: usize,
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

// ---------------------------------------------------------------------------------------------
// Reading and preparing the data
// ---------------------------------------------------------------------------------------------

/// The data after the maps, derived columns and filters, with the names they define.
#[derive(Debug, Clone)]
pub struct Table {
    /// The kept rows, with derived columns added.
    pub dataset: Dataset,
    /// Map alias → column, later ones winning.
    aliases: HashMap<String, String>,
    /// Derived name → its text (`D=C/(6*N)`).
    derived: HashMap<String, String>,
    pub rows_read: usize,
    pub rows_filtered: usize,
}

impl Table {
    /// The dataset column a name reads: a derived column, an alias's column, or a column.
    pub fn resolve<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        resolve(&self.dataset, &self.aliases, &self.derived, name)
    }

    /// How a law variable is fed, for the result: the column, or `VAR=EXPR` when derived.
    pub fn describe(&self, name: &str) -> String {
        match self.derived.get(name) {
            Some(text) => text.clone(),
            None => self.resolve(name).unwrap_or(name).to_string(),
        }
    }

    /// The column named `name` (via alias or derive) or an error naming the file and the
    /// column, with a suggestion.
    fn require<'a>(&'a self, name: &'a str, role: &Text) -> Result<&'a str> {
        self.resolve(name)
            .ok_or_else(|| missing(&self.dataset, &self.aliases, &self.derived, name, role))
    }

    /// The values of a column (or map/derived name) as text, one per kept row: run labels.
    pub fn labels(&self, name: &str, role: impl Into<Text>) -> Result<Vec<String>> {
        let column = self.require(name, &role.into())?;
        self.dataset.text(column)
    }

    /// The column that orders scale (for rolling-origin calibration) and its values: `by`,
    /// else a column `C` (compute), else 6·N·D when the law has N and D, else the law's first
    /// variable. `role` names the setting in errors.
    pub fn scale(
        &self,
        law: &Law,
        data: &FitData,
        by: Option<&str>,
        role: impl Into<Text>,
    ) -> Result<(String, Vec<f64>)> {
        let role = role.into();
        if let Some(by) = by {
            return Ok((by.to_string(), self.values(by, &role)?));
        }
        if self.resolve("C").is_some() {
            if let Ok(values) = self.values("C", &role) {
                return Ok(("C".into(), values));
            }
        }
        let position = |name: &str| law.variables.iter().position(|v| v == name);
        if let (Some(n), Some(d)) = (position("N"), position("D")) {
            let compute = data.variables[n]
                .iter()
                .zip(&data.variables[d])
                .map(|(n, d)| 6.0 * n * d)
                .collect();
            return Ok(("6*N*D".into(), compute));
        }
        Ok((law.variables[0].clone(), data.variables[0].clone()))
    }

    /// The variance model σ(x) = σ0·(x/x0)^s with x the column (or map/derived name) `column`:
    /// a variable of the law, or a column proportional to N·D on every row (compute, C =
    /// 6·N·D), so that σ at a new point follows from the law's variables. Errors name the
    /// column (and the file's row of a value that is not positive).
    pub fn heteroscedastic(
        &self,
        law: &Law,
        data: &FitData,
        column: &str,
    ) -> Result<crate::fit::Heteroscedastic> {
        let role = Setting::Heteroscedastic.subject();
        let why = format!("the heteroscedastic variance model takes log({column})");
        let values = self.positive_values(column, role.clone(), &why)?;
        let rule = crate::fit::ScaleRule::infer(law, data, column, &values).ok_or_else(|| {
            Error::setting(
                Setting::Heteroscedastic,
                text![
                    role,
                    format!(
                        " '{column}': the column is neither a variable of the law ({}) nor \
                         proportional to N·D on every row, so σ at a new point could not be \
                         computed from the law's variables; let σ vary with a variable of the \
                         law, or with a compute column C = k·N·D",
                        law.variables.join(", ")
                    )
                ],
            )
        })?;
        Ok(crate::fit::Heteroscedastic {
            by: column.to_string(),
            rule,
        })
    }

    /// The values of a numeric column (or map/derived name), finite, one per kept row.
    pub fn values(&self, name: &str, role: impl Into<Text>) -> Result<Vec<f64>> {
        let column = self.require(name, &role.into())?;
        self.dataset.finite(column)
    }

    /// The values of a numeric column (or map/derived name), each positive (errors name the
    /// file's row), one per kept row.
    pub fn positive_values(
        &self,
        name: &str,
        role: impl Into<Text>,
        why: &str,
    ) -> Result<Vec<f64>> {
        let column = self.require(name, &role.into())?;
        self.dataset.positive(column, why)
    }

    /// The row of the file (1-based, as a spreadsheet numbers data rows) of kept row `index`.
    pub fn file_row(&self, index: usize) -> Option<usize> {
        self.dataset.location(index, None).row
    }

    /// The target, variables and weights of a fit of `law`, checked for the fit's needs.
    pub fn fit_data(&self, law: &Law, recipe: &Recipe, space: Space) -> Result<FitData> {
        let target_column = self.require(&recipe.target, &Setting::Target.subject().into())?;
        let target = match space {
            Space::Log => self.dataset.positive(
                target_column,
                text![
                    format!("log-space residuals take log({}) (", recipe.target),
                    Setting::Space.text("linear"),
                    " fits without logs)"
                ],
            )?,
            Space::Linear => self.dataset.finite(target_column)?,
        };
        let positive = law.positive_variables();
        let mut variables = Vec::with_capacity(law.variables.len());
        for variable in &law.variables {
            let Some(column) = self.resolve(variable) else {
                return Err(self.missing_variable(law, variable));
            };
            let values = if positive.contains(&variable.as_str()) {
                self.dataset
                    .positive(column, &why_positive(law, variable))?
            } else {
                self.dataset.finite(column)?
            };
            variables.push(values);
        }
        let weights = match &recipe.weights {
            None => None,
            Some(name) => {
                let column = self.require(name, &Setting::Weights.subject().into())?;
                let values = self.dataset.finite(column)?;
                if let Some(row) = values.iter().position(|w| *w < 0.0) {
                    return Err(Error::Data {
                        location: self.dataset.location(row, Some(column)),
                        message: format!("the weight {} is negative", values[row]).into(),
                        fix: "give every row a weight >= 0".into(),
                    });
                }
                Some(values)
            }
        };
        Ok(FitData {
            variables,
            target,
            weights,
        })
    }

    /// The kept rows of each combination of the labels of `columns` (one group of every row
    /// when `columns` is empty), in label order.
    pub fn group_rows(
        &self,
        columns: &[String],
        role: impl Into<Text>,
    ) -> Result<std::collections::BTreeMap<Vec<String>, Vec<usize>>> {
        let role = role.into();
        let labels: Vec<Vec<String>> = columns
            .iter()
            .map(|c| self.labels(c, &role))
            .collect::<Result<_>>()?;
        let mut groups = std::collections::BTreeMap::new();
        for row in 0..self.dataset.n_rows() {
            let key = labels.iter().map(|column| column[row].clone()).collect();
            groups.entry(key).or_insert_with(Vec::new).push(row);
        }
        Ok(groups)
    }

    /// Records in a fit's result where every number came from (the target and variables as
    /// columns or derived expressions) and returns the data's summary: the source, rows read
    /// and filtered, filters and derives.
    pub fn describe_fit(&self, result: &mut FitResult, law: &Law, recipe: &Recipe) -> DataSummary {
        result.target = self.describe(&recipe.target);
        result.variables = law
            .variables
            .iter()
            .map(|variable| (variable.clone(), self.describe(variable)))
            .collect();
        DataSummary {
            source: self.dataset.source().to_string(),
            rows_read: self.rows_read,
            rows_filtered: self.rows_filtered,
            filters: recipe.filters.iter().map(|f| f.text.clone()).collect(),
            derived: recipe.derives.iter().map(|d| d.text.clone()).collect(),
        }
    }

    /// Each row's run as a dense id (runs numbered in order of first appearance), for
    /// resampling whole runs; an empty label is an error naming its row.
    pub fn run_ids(&self, column: &str, role: impl Into<Text>) -> Result<Vec<usize>> {
        let role = role.into();
        let labels = self.labels(column, &role)?;
        if let Some(row) = labels.iter().position(|label| label.trim().is_empty()) {
            return Err(Error::Data {
                location: self
                    .dataset
                    .location(row, Some(self.resolve(column).unwrap_or(column))),
                message: "the run label is empty".into(),
                fix: text![
                    "give every row the name of its run, or drop ",
                    role,
                    " to resample rows"
                ],
            });
        }
        Ok(super::label_ids(&labels).0)
    }

    fn missing_variable(&self, law: &Law, variable: &str) -> Error {
        let names = known_names(&self.dataset, &self.aliases, &self.derived);
        let hint = closest(variable, names.iter().map(String::as_str))
            .map(|name| {
                text![
                    " (did you mean ",
                    Setting::Map.entry_text(variable, name),
                    "?)"
                ]
            })
            .unwrap_or_default();
        Error::Data {
            location: file_location(&self.dataset, Some(variable)),
            message: text![
                format!(
                    "the law '{}' reads the variable '{variable}', but the data has no column, ",
                    law.label()
                ),
                Setting::Map.subject(),
                " name or ",
                Setting::Derive.subject(),
                format!(" name '{variable}'"),
            ],
            fix: text![
                "name the column that holds it with ",
                Setting::Map.entry_text(variable, "COLUMN"),
                " or compute it with ",
                Setting::Derive.entry_text(variable, "EXPR"),
                hint,
                format!("; the columns are {}", list(self.dataset.column_names())),
            ],
        }
    }
}

impl Table {
    /// Applies the recipe's maps, derived columns and filters to `dataset`.
    pub fn prepare(mut dataset: Dataset, recipe: &Recipe) -> Result<Table> {
        let rows_read = dataset.n_rows();
        let mut aliases = HashMap::new();
        for (alias, column) in &recipe.maps {
            dataset
                .column(column)
                .map_err(|e| e.within(Setting::Map.entry_text(alias, column)))?;
            if aliases.insert(alias.clone(), column.clone()).is_some() {
                return Err(Error::setting(
                    Setting::Map,
                    text![
                        Setting::Map.subject(),
                        format!(": '{alias}' is given twice")
                    ],
                ));
            }
        }
        let mut derived: HashMap<String, String> = HashMap::new();
        let mut bad_derived: Vec<(String, Vec<(usize, String)>)> = Vec::new();
        for derive in &recipe.derives {
            let columns = columns_for(
                &dataset,
                &aliases,
                &derived,
                (&derive.expr, &derive.text, derive.offset),
            )
            .map_err(|e| e.within(Setting::Derive.subject()))?;
            let values: Vec<f64> = (0..rows_read)
                .map(|row| evaluate(&derive.expr, &columns, row))
                .collect();
            let bad: Vec<(usize, String)> = values
                .iter()
                .enumerate()
                .filter(|(_, value)| !value.is_finite())
                .map(|(row, value)| (row, describe_row(&derive.text, *value, &columns, row)))
                .collect();
            dataset.set_numeric(&derive.name, values)?;
            derived.insert(derive.name.clone(), derive.text.clone());
            bad_derived.retain(|(name, _)| *name != derive.name);
            bad_derived.push((derive.name.clone(), bad));
        }
        let mut keep = vec![true; rows_read];
        for filter in &recipe.filters {
            let within = |e: Error| e.within(Setting::Where.subject());
            let left = columns_for(
                &dataset,
                &aliases,
                &derived,
                (&filter.left, &filter.text, 0),
            )
            .map_err(within)?;
            let right = columns_for(
                &dataset,
                &aliases,
                &derived,
                (&filter.right, &filter.text, filter.right_offset),
            )
            .map_err(within)?;
            for (row, kept) in keep.iter_mut().enumerate() {
                let holds = filter.comparison.holds(
                    evaluate(&filter.left, &left, row),
                    evaluate(&filter.right, &right, row),
                );
                *kept &= holds;
            }
        }
        for (name, bad) in &bad_derived {
            if let Some((row, description)) = bad.iter().find(|(row, _)| keep[*row]) {
                return Err(Error::Data {
                    location: dataset.location(*row, Some(name)),
                    message: description.clone().into(),
                    fix: text![
                        "correct the row's inputs, or filter the row out with ",
                        Setting::Where
                    ],
                });
            }
        }
        let kept = keep.iter().filter(|k| **k).count();
        if kept == 0 {
            return Err(Error::setting(
                Setting::Where,
                text![
                    format!("{}: the ", dataset.source()),
                    Setting::Where.subject(),
                    format!(" filters removed all {rows_read} rows; nothing is left to fit"),
                ],
            ));
        }
        let dataset = if kept < rows_read {
            dataset.filter(&keep)
        } else {
            dataset
        };
        Ok(Table {
            dataset,
            aliases,
            derived,
            rows_read,
            rows_filtered: rows_read - kept,
        })
    }
}

fn resolve<'a>(
    dataset: &'a Dataset,
    aliases: &'a HashMap<String, String>,
    derived: &HashMap<String, String>,
    name: &'a str,
) -> Option<&'a str> {
    if derived.contains_key(name) {
        return Some(name);
    }
    if let Some(column) = aliases.get(name) {
        return Some(column.as_str());
    }
    dataset.has_column(name).then_some(name)
}

/// Every name an expression may use: aliases, derived columns, and columns that are
/// identifiers.
fn known_names(
    dataset: &Dataset,
    aliases: &HashMap<String, String>,
    derived: &HashMap<String, String>,
) -> Vec<String> {
    let mut names: Vec<String> = dataset.column_names().to_vec();
    let mut extra: Vec<&String> = aliases.keys().chain(derived.keys()).collect();
    extra.sort();
    for name in extra {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

fn missing(
    dataset: &Dataset,
    aliases: &HashMap<String, String>,
    derived: &HashMap<String, String>,
    name: &str,
    role: &Text,
) -> Error {
    let names = known_names(dataset, aliases, derived);
    let suggestion = closest(name, names.iter().map(String::as_str));
    let listing = list(dataset.column_names());
    let fix = match suggestion {
        Some(closest) => format!("did you mean '{closest}'? The columns are {listing}"),
        None => format!("the columns are {listing}"),
    };
    Error::Data {
        location: file_location(dataset, Some(name)),
        message: text![role, " names no such column"],
        fix: fix.into(),
    }
}

/// The values of every identifier of `expr` (with its text and its offset in that text), after
/// checking that each names a column, alias or derived column (an unknown name is a formula
/// error at its position in the text).
fn columns_for(
    dataset: &Dataset,
    aliases: &HashMap<String, String>,
    derived: &HashMap<String, String>,
    (expr, text, offset): (&Expr, &str, usize),
) -> Result<Vec<(String, Vec<f64>)>> {
    let mut unknown: Option<(String, usize)> = None;
    let mut wanted: Vec<String> = Vec::new();
    expr.for_each_ident(&mut |name, position| {
        if resolve(dataset, aliases, derived, name).is_none() {
            unknown.get_or_insert((name.to_string(), position));
        } else if !wanted.iter().any(|w| w == name) {
            wanted.push(name.to_string());
        }
    });
    if let Some((name, position)) = unknown {
        let names = known_names(dataset, aliases, derived);
        let hint = closest(&name, names.iter().map(String::as_str))
            .map(|closest| format!(" (did you mean '{closest}'?)"))
            .unwrap_or_default();
        let spaced: Vec<&String> = dataset
            .column_names()
            .iter()
            .filter(|column| !is_identifier(column))
            .collect();
        let map_hint = match spaced.first() {
            Some(column) => text![
                format!("; name columns such as '{column}' with "),
                Setting::Map.entry_text("VAR", column.as_str()),
                " to use them here"
            ],
            None => Text::default(),
        };
        return Err(Error::Formula {
            formula: text.to_string(),
            position: offset + position,
            message: text![
                format!("'{name}' is not a column, a "),
                Setting::Map.subject(),
                " name or an earlier ",
                Setting::Derive.subject(),
                format!(" name{hint}"),
                map_hint,
            ],
        });
    }
    wanted
        .into_iter()
        .map(|name| {
            let column = resolve(dataset, aliases, derived, &name).unwrap_or(&name);
            let values = dataset.numeric_or_missing(column)?;
            Ok((name, values))
        })
        .collect()
}

fn evaluate(expr: &Expr, columns: &[(String, Vec<f64>)], row: usize) -> f64 {
    expr.eval_f64(&|name| {
        columns
            .iter()
            .find(|(column, _)| column == name)
            .and_then(|(_, values)| values.get(row).copied())
    })
    .unwrap_or(f64::NAN)
}

/// "D=C/(6*N) gives NaN (C = 1e20, N = 0)".
fn describe_row(text: &str, value: f64, columns: &[(String, Vec<f64>)], row: usize) -> String {
    let inputs: Vec<String> = columns
        .iter()
        .map(|(name, values)| match values[row] {
            value if value.is_nan() => format!("{name} is empty"),
            value => format!("{name} = {value}"),
        })
        .collect();
    if inputs.is_empty() {
        format!("{text} gives {value}, not a finite number")
    } else {
        format!(
            "{text} gives {value}, not a finite number ({})",
            inputs.join(", ")
        )
    }
}

fn file_location(dataset: &Dataset, column: Option<&str>) -> Location {
    Location {
        file: dataset.source().to_string(),
        row: None,
        line: None,
        column: column.map(str::to_string),
    }
}

/// `'a', 'b', 'c'`.
fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

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
