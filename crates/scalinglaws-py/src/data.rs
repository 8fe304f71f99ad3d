//! The data as the Python layer hands it over (columns or a file path) and the recipe of a
//! request (`map`, `derive`, `where`, `target`, `weights`), as the library's `Table`.

use std::collections::HashMap;

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::data::recipe::{Derive, Filter, Recipe, Table};
use scalinglaws::data::{Column, Dataset};
use scalinglaws::error::Setting;
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

/// `map`, `derive`, `where`, `target` and `weights` of a request.
#[derive(Deserialize)]
pub(crate) struct RecipeRequest {
    pub(crate) target: String,
    #[serde(default)]
    pub(crate) map: Vec<(String, String)>,
    #[serde(default)]
    pub(crate) derive: Vec<(String, String)>,
    #[serde(default, rename = "where")]
    pub(crate) filters: Vec<String>,
    pub(crate) weights: Option<String>,
}

impl RecipeRequest {
    pub(crate) fn recipe(&self) -> Result<Recipe, Error> {
        Ok(Recipe {
            maps: self.map.clone(),
            derives: self
                .derive
                .iter()
                .map(|(name, expr)| Derive::parse(&format!("{name}={expr}")))
                .collect::<Result<_, _>>()
                .map_err(|e| e.within(Setting::Derive.subject()))?,
            filters: self
                .filters
                .iter()
                .map(|text| Filter::parse(text))
                .collect::<Result<_, _>>()
                .map_err(|e| e.within(Setting::Where.subject()))?,
            target: self.target.clone(),
            weights: self.weights.clone(),
            trials: None,
            exposure: None,
            sweep: Vec::new(),
        })
    }
}

pub(crate) fn table(data: Data, recipe: &Recipe) -> Result<Table, Error> {
    Table::prepare(data.dataset()?, recipe)
}
