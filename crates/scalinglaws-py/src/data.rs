//! The data as the Python layer hands it over (columns or a file path), as the library's
//! `Table` under a request's recipe (which the library parses: `job::fit::TableRequest` and
//! `RecipeRequest`).

use std::collections::HashMap;

use pyo3::prelude::*;

use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::data::{Column, Dataset};
use scalinglaws::Error;

/// The data as the Python layer hands it over: named columns (numbers or text, in order), or a
/// file path.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct Data {
    pub(crate) source: String,
    pub(crate) names: Vec<String>,
    pub(crate) numeric: HashMap<String, Vec<f64>>,
    pub(crate) text: HashMap<String, Vec<String>>,
    pub(crate) path: Option<String>,
    pub(crate) delimiter: Option<String>,
}

impl Data {
    pub(crate) fn dataset(self) -> Result<Dataset, Error> {
        if let Some(path) = &self.path {
            let delimiter = self
                .delimiter
                .as_deref()
                .map(|d| match d.as_bytes() {
                    [byte] if byte.is_ascii() => Ok(*byte),
                    _ => Err(Error::settings(format!(
                        "delimiter '{d}': give one ASCII character"
                    ))),
                })
                .transpose()?;
            return Dataset::read(std::path::Path::new(path), delimiter);
        }
        let Data {
            source,
            names,
            mut numeric,
            mut text,
            ..
        } = self;
        let columns = names
            .into_iter()
            .map(|name| {
                let column = match numeric.remove(&name) {
                    Some(values) => Column::Numeric(values),
                    None => Column::Text(text.remove(&name).unwrap_or_default()),
                };
                (name, column)
            })
            .collect();
        Dataset::from_columns(source, columns)
    }
}

pub(crate) fn table(data: Data, recipe: &Recipe) -> Result<Table, Error> {
    Table::prepare(data.dataset()?, recipe)
}
