//! Names in a recipe: which dataset column a name reads (a derived column, a map alias or a
//! column), every name an expression may use, and the error for a name that is none of them.

use std::collections::HashMap;

use crate::data::Dataset;
use crate::error::{Error, Location, Text};
use crate::suggest::closest;
use crate::text;

pub(super) fn resolve<'a>(
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
pub(super) fn known_names(
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

pub(super) fn missing(
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

pub(super) fn file_location(dataset: &Dataset, column: Option<&str>) -> Location {
    Location {
        file: dataset.source().to_string(),
        row: None,
        line: None,
        column: column.map(str::to_string),
    }
}

/// `'a', 'b', 'c'`.
pub(super) fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ")
}
