//! The recipe target: each input line is one step of a recipe as the options give it —
//! `map VAR=COLUMN`, `derive VAR=EXPR`, `where LHS OP RHS`, or a bare line tried as a derive
//! and as a filter — parsed with the library's parsers and applied, in order, to a small table
//! (with a text column, a zero, a negative value and a column name with a space), then the
//! chinchilla law's data taken from the prepared table as `fit --target loss` takes it.

use scalinglaws::data::recipe::{Derive, Filter, Recipe, Table};
use scalinglaws::data::{Column, Dataset};
use scalinglaws::fit::Space;
use scalinglaws::law::catalog;

use super::text;
use crate::Signature;

/// At most this many lines are used (a recipe has a handful).
const MAX_STEPS: usize = 64;

fn dataset() -> Option<Dataset> {
    let numbers = |values: [f64; 6]| Column::Numeric(values.to_vec());
    Dataset::from_columns(
        "fuzz.csv",
        vec![
            (
                "Model Size".into(),
                numbers([4e7, 1e8, 4e8, 1e9, 0.0, 7e10]),
            ),
            ("N".into(), numbers([4e7, 1e8, 4e8, 1e9, 2e9, 7e10])),
            ("C".into(), numbers([1e18, 1e19, 1e20, 1e21, -1.0, 1e23])),
            ("U".into(), numbers([1e9, 1e9, 1e10, 1e10, 1e11, 1e11])),
            ("loss".into(), numbers([3.9, 3.5, 3.1, 2.8, 2.6, f64::NAN])),
            (
                "run".into(),
                Column::Text(["a", "b", "", "a", "é", "b"].map(String::from).to_vec()),
            ),
        ],
    )
    .ok()
}

pub fn run(input: &[u8]) -> Signature {
    let Some(lines) = text(input) else {
        return Signature::tag("not utf-8");
    };
    let mut recipe = Recipe {
        target: "loss".into(),
        ..Recipe::default()
    };
    let mut signature = Signature::tag("recipe");
    for line in lines.lines().take(MAX_STEPS) {
        signature = signature.then(add_step(&mut recipe, line));
    }
    let Some(dataset) = dataset() else {
        return Signature::tag("no dataset");
    };
    let table = match Table::prepare(dataset, &recipe) {
        Ok(table) => table,
        Err(error) => return signature.then(Signature::of_error("prepare", &error)),
    };
    let Ok(law) = catalog::lookup("chinchilla") else {
        return Signature::tag("no chinchilla law");
    };
    let data = table.fit_data(&law, &recipe, Space::Log);
    signature.then(Signature::of_result("fit data", &data))
}

/// Parses one line into the recipe; the signature says what it became.
fn add_step(recipe: &mut Recipe, line: &str) -> Signature {
    if let Some(map) = line.strip_prefix("map ") {
        return match map.split_once('=') {
            Some((name, column)) => {
                recipe
                    .maps
                    .push((name.trim().to_string(), column.trim().to_string()));
                Signature::tag("map")
            }
            None => Signature::tag("map without ="),
        };
    }
    if let Some(derive) = line.strip_prefix("derive ") {
        return push_derive(recipe, derive);
    }
    if let Some(filter) = line.strip_prefix("where ") {
        return push_filter(recipe, filter);
    }
    // A bare line: whichever parser takes it (both are tried, so both see every line).
    let derived = Derive::parse(line);
    let filtered = Filter::parse(line);
    let signature =
        Signature::of_result("derive", &derived).then(Signature::of_result("where", &filtered));
    if let Ok(derive) = derived {
        recipe.derives.push(derive);
    } else if let Ok(filter) = filtered {
        recipe.filters.push(filter);
    }
    signature
}

fn push_derive(recipe: &mut Recipe, text: &str) -> Signature {
    let parsed = Derive::parse(text);
    let signature = Signature::of_result("derive", &parsed);
    if let Ok(derive) = parsed {
        recipe.derives.push(derive);
    }
    signature
}

fn push_filter(recipe: &mut Recipe, text: &str) -> Signature {
    let parsed = Filter::parse(text);
    let signature = Signature::of_result("where", &parsed);
    if let Ok(filter) = parsed {
        recipe.filters.push(filter);
    }
    signature
}
