//! The table target: the input is a data file. An optional first line picks the format as a
//! file name or `--delimiter` would (`%%csv`, `%%tsv`, `%%jsonl`, `%%parquet`, `%%delim=;`;
//! CSV without one); the rest is written to a file in a private temporary directory and read with
//! `Dataset::read`, as every command reads its DATA. Every column is then asked for as numbers
//! and as text, and the table prepared as `fit --target loss` (or its last column) prepares it,
//! with a law's data taken from it.

use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::data::Dataset;
use scalinglaws::fit::Space;
use scalinglaws::law::catalog;

use super::scratch::InputFile;
use crate::Signature;

/// The format line, the extension it gives the file and the delimiter it forces.
fn format_of(input: &[u8]) -> (&[u8], &'static str, Option<u8>) {
    let choices: [(&[u8], &str, Option<u8>); 4] = [
        (b"%%csv\n", "csv", None),
        (b"%%tsv\n", "tsv", None),
        (b"%%jsonl\n", "jsonl", None),
        (b"%%parquet\n", "parquet", None),
    ];
    for (line, extension, delimiter) in choices {
        if let Some(rest) = input.strip_prefix(line) {
            return (rest, extension, delimiter);
        }
    }
    if let Some([delimiter, b'\n', body @ ..]) = input.strip_prefix(b"%%delim=") {
        return (body, "txt", Some(*delimiter));
    }
    (input, "csv", None)
}

pub fn run(input: &[u8]) -> Signature {
    let (body, extension, delimiter) = format_of(input);
    let file = match InputFile::write(extension, body) {
        Ok(file) => file,
        Err(_) => return Signature::tag("no temporary file"),
    };
    let read = Dataset::read(file.path(), delimiter);
    drop(file);
    let dataset = match read {
        Ok(dataset) => dataset,
        Err(error) => return Signature::of_error("read", &error),
    };
    let mut signature = Signature::tag("read").mix(&[dataset.column_names().len().min(16) as u8]);
    for name in dataset.column_names() {
        signature = signature
            .then(Signature::of_result("numeric", &dataset.numeric(name)))
            .then(Signature::of_result("finite", &dataset.finite(name)))
            .then(Signature::of_result("text", &dataset.text(name)));
    }
    signature.then(prepare(dataset))
}

/// The table prepared with the last column (or `loss`) as the target and the first as `x`,
/// and a power law's data taken from it.
fn prepare(dataset: Dataset) -> Signature {
    let names = dataset.column_names();
    let (Some(first), Some(last)) = (names.first().cloned(), names.last().cloned()) else {
        return Signature::tag("no columns");
    };
    let target = if dataset.has_column("loss") {
        "loss".to_string()
    } else {
        last
    };
    let maps = if first == "x" {
        Vec::new()
    } else {
        vec![("x".to_string(), first)]
    };
    let recipe = Recipe {
        maps,
        target,
        ..Recipe::default()
    };
    let table = match Table::prepare(dataset, &recipe) {
        Ok(table) => table,
        Err(error) => return Signature::of_error("prepare", &error),
    };
    let Ok(law) = catalog::lookup("power_offset") else {
        return Signature::tag("no power_offset law");
    };
    Signature::of_result("fit data", &table.fit_data(&law, &recipe, Space::Log))
}
