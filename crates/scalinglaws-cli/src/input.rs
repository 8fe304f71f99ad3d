//! The command line's data options (the file, `--delimiter`, `--map`, `--derive`, `--where`,
//! `--target`, `--weights`) turned into the library's recipe (`scalinglaws::data::recipe`, which
//! the Python package shares), and the file read with it (`-`: standard input).

use std::collections::BTreeMap;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use anyhow::Result;
use scalinglaws::data::recipe;
use scalinglaws::data::{Column, Dataset};

pub use scalinglaws::data::recipe::{
    constant, constant_list, split_top_level, Derive, Filter, Table,
};

use crate::config::split_name;
use crate::input_error;

/// What to read, and the recipe that turns it into a fit's data.
#[derive(Debug)]
pub struct Recipe {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub recipe: recipe::Recipe,
}

impl Deref for Recipe {
    type Target = recipe::Recipe;

    fn deref(&self) -> &recipe::Recipe {
        &self.recipe
    }
}

/// `--map VAR=COLUMN` as (VAR, COLUMN).
pub fn parse_map(text: &str) -> Result<(String, String)> {
    let (name, column) = split_name("--map", text, "VAR=COLUMN, e.g. N=\"Model Size\"")?;
    let column = column.trim();
    if column.is_empty() {
        return Err(input_error(format!(
            "--map '{text}': no column after '='; expected VAR=COLUMN, e.g. N=\"Model Size\""
        )));
    }
    Ok((name.to_string(), column.to_string()))
}

/// Reads the file and applies `--map`, `--derive` and `--where`.
pub fn load(recipe: &Recipe) -> Result<Table> {
    read(&recipe.path, recipe.delimiter, &recipe.recipe)
}

/// Reads the file at `path` (`-`: standard input, CSV unless `--delimiter` says otherwise or
/// it starts with `{`, JSON Lines) and prepares it with `recipe`.
pub fn read(path: &Path, delimiter: Option<u8>, recipe: &recipe::Recipe) -> Result<Table> {
    let dataset = if path == Path::new("-") {
        Dataset::read_stream("stdin", std::io::stdin().lock(), delimiter)?
    } else {
        Dataset::read(path, delimiter)?
    };
    Ok(Table::prepare(dataset, recipe)?)
}

/// The runs of `--candidates-file`: each row a candidate, each numeric column a variable (the
/// law takes the ones it names; text columns, such as a run's name, are left out). The
/// library checks the values.
pub fn candidate_runs(path: &Path) -> Result<Vec<BTreeMap<String, f64>>> {
    if path == Path::new("-") {
        return Err(input_error(
            "--candidates-file -: give the candidates as a file (CSV, TSV or JSON Lines)",
        ));
    }
    let dataset = Dataset::read(path, None)
        .map_err(anyhow::Error::from)
        .map_err(|e| e.context("--candidates-file"))?;
    let columns: Vec<(&String, &Vec<f64>)> = dataset
        .column_names()
        .iter()
        .filter_map(|name| match dataset.column(name) {
            Ok(Column::Numeric(values)) => Some((name, values)),
            _ => None,
        })
        .collect();
    Ok((0..dataset.n_rows())
        .map(|row| {
            columns
                .iter()
                .map(|(name, values)| ((*name).clone(), values[row]))
                .collect()
        })
        .collect())
}
