//! The table of experiment records that laws are fitted to. It exists so that the rest of the
//! library gets typed columns with checked values, and so that every complaint about a value can
//! name the file, data row, file line and column it came from, even after rows are filtered out.

#[cfg(feature = "parquet")]
mod parquet;
pub mod qc;
mod read;
pub mod recipe;
pub mod sweep;

use crate::error::{Error, Location, Result, Setting, Text};
use crate::suggest;
use crate::text;
use std::collections::HashSet;
use std::path::Path;

/// Each label as a dense id, numbered in order of first appearance, and the number of
/// distinct labels (runs, tracks, clusters).
pub fn label_ids<S: AsRef<str>>(labels: &[S]) -> (Vec<usize>, usize) {
    let mut ids: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let of_row = labels
        .iter()
        .map(|label| {
            let next = ids.len();
            *ids.entry(label.as_ref()).or_insert(next)
        })
        .collect();
    (of_row, ids.len())
}

/// One column of a dataset: numbers when every cell of the file parsed as a number, otherwise
/// the cells' text as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Numeric(Vec<f64>),
    Text(Vec<String>),
}

impl Column {
    fn select(&self, keep: &[bool]) -> Column {
        match self {
            Column::Numeric(values) => Column::Numeric(select_kept(values, keep)),
            Column::Text(cells) => Column::Text(select_kept(cells, keep)),
        }
    }
}

/// Where a row came from: its 1-based data row in the original file and its 1-based file line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RowOrigin {
    row: usize,
    line: Option<usize>,
}

/// Where every row came from. Rows read in order from consecutive lines (or built in memory)
/// are described by their count and first line: a list would take 24 bytes a row (24 MB of a
/// million-row table, as much as its three numeric columns).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origins {
    /// Row i (0-based) is data row i + 1, at line `first_line + i` (None: no lines).
    Consecutive {
        rows: usize,
        first_line: Option<usize>,
    },
    Listed(Vec<RowOrigin>),
}

impl Default for Origins {
    fn default() -> Self {
        Origins::Consecutive {
            rows: 0,
            first_line: None,
        }
    }
}

impl Origins {
    /// `rows` rows made in memory: data rows 1, 2, ... with no lines.
    fn in_memory(rows: usize) -> Origins {
        Origins::Consecutive {
            rows,
            first_line: None,
        }
    }

    fn len(&self) -> usize {
        match self {
            Origins::Consecutive { rows, .. } => *rows,
            Origins::Listed(list) => list.len(),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The origin of the 0-based `row`.
    fn get(&self, row: usize) -> Option<RowOrigin> {
        match self {
            Origins::Consecutive { rows, first_line } => (row < *rows).then(|| RowOrigin {
                row: row + 1,
                line: first_line.map(|line| line + row),
            }),
            Origins::Listed(list) => list.get(row).copied(),
        }
    }

    /// Appends the next row's origin, listing every origin from the first that breaks the run.
    fn push(&mut self, origin: RowOrigin) {
        if let Origins::Consecutive { rows, first_line } = *self {
            let first_line = if rows == 0 { origin.line } else { first_line };
            let next = RowOrigin {
                row: rows + 1,
                line: first_line.map(|line| line + rows),
            };
            if next == origin {
                *self = Origins::Consecutive {
                    rows: rows + 1,
                    first_line,
                };
                return;
            }
            *self = Origins::Listed((0..rows).filter_map(|row| self.get(row)).collect());
        }
        if let Origins::Listed(list) = self {
            list.push(origin);
        }
    }

    /// The origins of the rows where `keep[i]` is true.
    fn select(&self, keep: &[bool]) -> Origins {
        let kept = (0..self.len())
            .zip(keep)
            .filter(|(_, &kept)| kept)
            .filter_map(|(row, _)| self.get(row));
        Origins::Listed(kept.collect())
    }
}

/// A table read from a file (or built in memory) with named columns of equal length.
#[derive(Debug, Clone)]
pub struct Dataset {
    source: String,
    names: Vec<String>,
    columns: Vec<Column>,
    origins: Origins,
}

impl Dataset {
    /// Reads CSV (.csv), TSV (.tsv, .tab), JSON Lines (.jsonl, .ndjson) or Parquet (.parquet,
    /// .pq, or any name when the file starts with `PAR1`) chosen by extension;
    /// `delimiter` overrides the extension and forces delimited text (so `data.txt` with
    /// `Some(b';')` works). An unknown extension with no delimiter is an error that names the
    /// file and suggests giving the delimiter.
    pub fn read(path: &Path, delimiter: Option<u8>) -> Result<Dataset> {
        read::read_file(path, delimiter)
    }

    /// Reads a stream (standard input) named `source` in messages: delimited by `delimiter`
    /// when given, else Parquet when it starts with `PAR1`, else JSON Lines when its first character that is not blank is `{`, else
    /// CSV. The stream is read whole before it is parsed.
    pub fn read_stream(
        source: &str,
        stream: impl std::io::Read,
        delimiter: Option<u8>,
    ) -> Result<Dataset> {
        read::read_stream(source, stream, delimiter)
    }

    /// A dataset from in-memory numeric columns; `source` names it in messages. Every column
    /// must have the same length and a distinct name.
    pub fn from_numeric(
        source: impl Into<String>,
        columns: Vec<(String, Vec<f64>)>,
    ) -> Result<Dataset> {
        let source = source.into();
        check_numeric_columns(&source, &columns)?;
        let n_rows = columns.first().map_or(0, |(_, values)| values.len());
        let origins = Origins::in_memory(n_rows);
        let (names, values): (Vec<String>, Vec<Vec<f64>>) = columns.into_iter().unzip();
        let columns = values.into_iter().map(Column::Numeric).collect();
        Ok(Dataset::from_parts(source, names, columns, origins))
    }

    /// A dataset from in-memory columns of numbers or text (a DataFrame's columns); `source`
    /// names it in messages. Every column must have the same length and a distinct name.
    pub fn from_columns(
        source: impl Into<String>,
        columns: Vec<(String, Column)>,
    ) -> Result<Dataset> {
        let source = source.into();
        let lengths: Vec<(&str, usize)> = columns
            .iter()
            .map(|(name, column)| match column {
                Column::Numeric(values) => (name.as_str(), values.len()),
                Column::Text(cells) => (name.as_str(), cells.len()),
            })
            .collect();
        check_columns(&source, &lengths)?;
        let n_rows = lengths.first().map_or(0, |(_, length)| *length);
        let origins = Origins::in_memory(n_rows);
        let (names, columns): (Vec<String>, Vec<Column>) = columns.into_iter().unzip();
        Ok(Dataset::from_parts(source, names, columns, origins))
    }

    fn from_parts(
        source: String,
        names: Vec<String>,
        columns: Vec<Column>,
        origins: Origins,
    ) -> Dataset {
        Dataset {
            source,
            names,
            columns,
            origins,
        }
    }

    /// The file name (or the name given to `from_numeric`) used in messages.
    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn n_rows(&self) -> usize {
        self.origins.len()
    }

    pub fn column_names(&self) -> &[String] {
        &self.names
    }

    pub fn has_column(&self, name: &str) -> bool {
        self.index_of(name).is_some()
    }

    /// The named column; a missing name is an error that suggests the closest existing name
    /// and lists the columns.
    pub fn column(&self, name: &str) -> Result<&Column> {
        match self.index_of(name) {
            Some(index) => Ok(&self.columns[index]),
            None => Err(self.missing_column(name)),
        }
    }

    /// The column as numbers. A text column is parsed cell by cell (surrounding whitespace is
    /// ignored); the first empty cell or cell that is not a number is an error naming its row,
    /// line and text.
    pub fn numeric(&self, name: &str) -> Result<Vec<f64>> {
        match self.column(name)? {
            Column::Numeric(values) => Ok(values.clone()),
            Column::Text(cells) => cells
                .iter()
                .enumerate()
                .map(|(row, cell)| {
                    parse_cell(cell).ok_or_else(|| self.not_a_number(row, name, cell))
                })
                .collect(),
        }
    }

    /// `numeric`, except that an empty cell reads as NaN (a missing value): what expressions
    /// of the `where` and `derive` settings see, so that a filter `loss > 0` can leave out the
    /// rows whose loss was never logged (a comparison with NaN is false). Text that is not a
    /// number is still an error naming its row.
    pub fn numeric_or_missing(&self, name: &str) -> Result<Vec<f64>> {
        match self.column(name)? {
            Column::Numeric(values) => Ok(values.clone()),
            Column::Text(cells) => cells
                .iter()
                .enumerate()
                .map(|(row, cell)| match parse_cell(cell) {
                    Some(value) => Ok(value),
                    None if cell.trim().is_empty() => Ok(f64::NAN),
                    None => Err(self.not_a_number(row, name, cell)),
                })
                .collect(),
        }
    }

    /// `numeric` plus: NaN or ±infinity anywhere is an error naming the first such row, and so
    /// is a number too large or too small for the fits to compute with
    /// ([`crate::limits::MAX_MAGNITUDE`]).
    pub fn finite(&self, name: &str) -> Result<Vec<f64>> {
        let values = self.numeric(name)?;
        if let Some(row) = values.iter().position(|value| !value.is_finite()) {
            return Err(self.bad_value(
                row,
                name,
                format!("{} is not a finite number", values[row]),
            ));
        }
        let out_of_range = values
            .iter()
            .enumerate()
            .find_map(|(row, &v)| crate::limits::magnitude_problem(v).map(|m| (row, m)));
        match out_of_range {
            Some((row, problem)) => Err(self.bad_value(
                row,
                name,
                text![problem, "; rescale the column with ", Setting::Derive],
            )),
            None => Ok(values),
        }
    }

    /// `finite` plus every value > 0; `why` (e.g. "the law takes log(N)") goes in the message.
    pub fn positive(&self, name: &str, why: impl Into<Text>) -> Result<Vec<f64>> {
        let values = self.finite(name)?;
        match values.iter().position(|&value| value <= 0.0) {
            Some(row) => {
                let why = why.into();
                let mut message = Text::from(format!("{} is not positive", values[row]));
                if !why.to_string().trim().is_empty() {
                    message = text![message, ", but ", why];
                }
                Err(self.bad_value(row, name, message))
            }
            None => Ok(values),
        }
    }

    /// Text view of a column; numbers are printed with `{}` (so 3.0 becomes "3").
    pub fn text(&self, name: &str) -> Result<Vec<String>> {
        Ok(self.text_cells(name)?.into_owned())
    }

    /// [`Dataset::text`] borrowed where the column is text already (no copy of its cells).
    pub fn text_cells(&self, name: &str) -> Result<std::borrow::Cow<'_, [String]>> {
        Ok(match self.column(name)? {
            Column::Numeric(values) => values.iter().map(|value| format!("{value}")).collect(),
            Column::Text(cells) => std::borrow::Cow::Borrowed(cells),
        })
    }

    /// Adds a numeric column, or replaces the column of that name; `values` needs one value per
    /// row.
    pub fn set_numeric(&mut self, name: &str, values: Vec<f64>) -> Result<()> {
        if values.len() != self.n_rows() {
            return Err(data_error(
                self.file_location(Some(name)),
                format!(
                    "the new column has {} but the data has {}",
                    count(values.len(), "value"),
                    count(self.n_rows(), "row")
                ),
                "give the column exactly one value per row",
            ));
        }
        match self.index_of(name) {
            Some(index) => self.columns[index] = Column::Numeric(values),
            None => {
                self.names.push(name.to_string());
                self.columns.push(Column::Numeric(values));
            }
        }
        Ok(())
    }

    /// Keeps the rows where `keep[i]` is true; rows beyond the end of `keep` are dropped. The
    /// kept rows remember their original row and line numbers for later messages.
    pub fn filter(&self, keep: &[bool]) -> Dataset {
        Dataset {
            source: self.source.clone(),
            names: self.names.clone(),
            columns: self
                .columns
                .iter()
                .map(|column| column.select(keep))
                .collect(),
            origins: self.origins.select(keep),
        }
    }

    /// Location of the 0-based `row` of this dataset: its 1-based data row in the original file
    /// and its file line, for other modules' messages.
    pub fn location(&self, row: usize, column: Option<&str>) -> Location {
        let origin = self.origins.get(row).unwrap_or(RowOrigin {
            row: row + 1,
            line: None,
        });
        Location {
            file: self.source.clone(),
            row: Some(origin.row),
            line: origin.line,
            column: column.map(str::to_string),
        }
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|candidate| candidate == name)
    }

    fn file_location(&self, column: Option<&str>) -> Location {
        file_location(&self.source, column)
    }

    fn missing_column(&self, name: &str) -> Error {
        let listing = list_names(&self.names);
        let suggestion = suggest::closest(name, self.names.iter().map(String::as_str));
        let fix = match suggestion {
            Some(closest) => format!("did you mean '{closest}'? The columns are {listing}"),
            None => format!("the columns are {listing}"),
        };
        data_error(
            self.file_location(Some(name)),
            "there is no such column",
            fix,
        )
    }

    fn not_a_number(&self, row: usize, name: &str, cell: &str) -> Error {
        let (message, fix) = if cell.trim().is_empty() {
            (
                "empty cell".to_string(),
                text![
                    format!("make every cell of '{name}' a number, or leave such rows out with a "),
                    Setting::Where.subject(),
                    format!(" comparison on '{name}' (a comparison with an empty cell is false)")
                ],
            )
        } else {
            let (message, fix) = why_not_a_number(name, cell);
            (message, text![fix])
        };
        data_error(self.location(row, Some(name)), message, fix)
    }

    fn bad_value(&self, row: usize, name: &str, message: impl Into<Text>) -> Error {
        data_error(
            self.location(row, Some(name)),
            message,
            text![
                "remove or correct the row, or filter it out with ",
                Setting::Where
            ],
        )
    }
}

/// A cell as a number: surrounding whitespace is ignored; empty or unparsable cells give None,
/// and so does a number too large for f64 (`1e400`, which would read as infinity; `inf`
/// written as such is infinity).
fn parse_cell(cell: &str) -> Option<f64> {
    let trimmed = cell.trim();
    if trimmed.is_empty() {
        return None;
    }
    let value: f64 = trimmed.parse().ok()?;
    if value.is_infinite() && !names_infinity(trimmed) {
        return None;
    }
    Some(value)
}

/// `inf`, `-Infinity` and the like: infinity written as a word, not a number that overflows.
fn names_infinity(text: &str) -> bool {
    let word = text.trim_start_matches(['+', '-']);
    word.eq_ignore_ascii_case("inf") || word.eq_ignore_ascii_case("infinity")
}

/// Why a cell that is not empty is not a number, and the fix: an overflow and a decimal comma
/// are named as such.
fn why_not_a_number(name: &str, cell: &str) -> (String, String) {
    let shown = crate::error::clipped(cell, true);
    let name = &crate::error::clipped(name, false);
    let trimmed = cell.trim();
    if trimmed.parse::<f64>().is_ok_and(f64::is_infinite) {
        return (
            format!("{shown} overflows f64 (the largest is about 1.8e308)"),
            format!("write the cells of '{name}' within f64's range, or in other units"),
        );
    }
    let pointed = trimmed.replacen(',', ".", 1);
    if trimmed.matches(',').count() == 1 && pointed.parse::<f64>().is_ok() {
        return (
            format!("{shown} is not a number"),
            format!("decimal commas are not read: use a point ({pointed:?}, not {trimmed:?})"),
        );
    }
    (
        format!("{shown} is not a number"),
        format!("make every cell of '{name}' a number"),
    )
}

fn select_kept<T: Clone>(items: &[T], keep: &[bool]) -> Vec<T> {
    items
        .iter()
        .zip(keep)
        .filter(|(_, &kept)| kept)
        .map(|(item, _)| item.clone())
        .collect()
}

fn check_numeric_columns(source: &str, columns: &[(String, Vec<f64>)]) -> Result<()> {
    let lengths: Vec<(&str, usize)> = columns
        .iter()
        .map(|(name, values)| (name.as_str(), values.len()))
        .collect();
    check_columns(source, &lengths)
}

/// Distinct names and equal lengths.
fn check_columns(source: &str, columns: &[(&str, usize)]) -> Result<()> {
    let mut seen = HashSet::new();
    let Some(&(first_name, first_length)) = columns.first() else {
        return Ok(());
    };
    for &(name, length) in columns {
        if !seen.insert(name) {
            return Err(data_error(
                file_location(source, Some(name)),
                "the column name is given twice",
                "give every column a distinct name",
            ));
        }
        if length != first_length {
            return Err(data_error(
                file_location(source, Some(name)),
                format!(
                    "the column has {} but column '{first_name}' has {}",
                    count(length, "value"),
                    count(first_length, "value")
                ),
                "give every column the same number of values",
            ));
        }
    }
    Ok(())
}

/// "1 row", "2 rows".
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The names as `'a', 'b', 'c'`, shortened after 20 names.
fn list_names(names: &[String]) -> String {
    const SHOWN: usize = 20;
    if names.is_empty() {
        return "none: the data has no columns".to_string();
    }
    let mut listing = names
        .iter()
        .take(SHOWN)
        .map(|name| format!("'{name}'"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        listing.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    listing
}

fn file_location(source: &str, column: Option<&str>) -> Location {
    Location {
        file: source.to_string(),
        row: None,
        line: None,
        column: column.map(str::to_string),
    }
}

fn data_error(location: Location, message: impl Into<Text>, fix: impl Into<Text>) -> Error {
    Error::Data {
        location,
        message: message.into(),
        fix: fix.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    /// Writes `contents` to a fresh file whose name ends in `file_name`.
    fn temp_file(file_name: &str, contents: &[u8]) -> PathBuf {
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let process = std::process::id();
        let path =
            std::env::temp_dir().join(format!("scalinglaws-data-{process}-{unique}-{file_name}"));
        std::fs::write(&path, contents).expect("write temp file");
        path
    }

    fn read_with(file_name: &str, contents: &[u8], delimiter: Option<u8>) -> Result<Dataset> {
        let path = temp_file(file_name, contents);
        let result = Dataset::read(&path, delimiter);
        let _ = std::fs::remove_file(&path);
        result
    }

    fn read(file_name: &str, contents: &str) -> Dataset {
        read_with(file_name, contents.as_bytes(), None).expect("file should read")
    }

    fn read_error(file_name: &str, contents: &[u8]) -> String {
        match read_with(file_name, contents, None) {
            Ok(dataset) => panic!("expected an error, got {dataset:?}"),
            Err(error) => error.to_string(),
        }
    }

    fn error_text<T: std::fmt::Debug>(result: Result<T>) -> String {
        result.expect_err("expected an error").to_string()
    }

    #[test]
    fn reads_numeric_and_text_columns() {
        let data = read("runs.csv", "N,loss,name\n1e9,2.5,a\n2e9, 2.25 ,b\n");
        assert_eq!(data.n_rows(), 2);
        assert_eq!(data.column_names(), ["N", "loss", "name"]);
        assert!(data.has_column("loss"));
        assert!(!data.has_column("Loss"));
        assert_eq!(data.numeric("N").unwrap(), vec![1e9, 2e9]);
        assert_eq!(
            data.column("loss").unwrap(),
            &Column::Numeric(vec![2.5, 2.25])
        );
        assert_eq!(
            data.column("name").unwrap(),
            &Column::Text(vec!["a".into(), "b".into()])
        );
        assert!(data.source().ends_with("runs.csv"));
    }

    #[test]
    fn quoted_names_with_spaces_and_quotes() {
        let data = read(
            "quoted.csv",
            "\"model size\",\"a \"\"b\"\"\",note\n1,2,\"x, y\"\n3,4,\"say \"\"hi\"\"\"\n",
        );
        assert_eq!(data.column_names(), ["model size", "a \"b\"", "note"]);
        assert_eq!(data.numeric("model size").unwrap(), vec![1.0, 3.0]);
        assert_eq!(data.numeric("a \"b\"").unwrap(), vec![2.0, 4.0]);
        assert_eq!(data.text("note").unwrap(), vec!["x, y", "say \"hi\""]);
    }

    #[test]
    fn header_names_are_trimmed() {
        let data = read("spaced.csv", "N , loss\n1, 2\n");
        assert_eq!(data.column_names(), ["N", "loss"]);
    }

    #[test]
    fn tsv_and_tab_by_extension() {
        for name in ["data.tsv", "data.tab", "DATA.TSV"] {
            let data = read(name, "N\tloss\n1\t2.5\n");
            assert_eq!(data.numeric("loss").unwrap(), vec![2.5], "{name}");
        }
    }

    #[test]
    fn delimiter_overrides_the_extension() {
        let txt = read_with("data.txt", b"N;loss\n1;2\n", Some(b';')).unwrap();
        assert_eq!(txt.numeric("loss").unwrap(), vec![2.0]);
        let csv = read_with("data.csv", b"N;loss\n1;2\n", Some(b';')).unwrap();
        assert_eq!(csv.column_names(), ["N", "loss"]);
        let jsonl = read_with("data.jsonl", b"a|b\n1|2\n", Some(b'|')).unwrap();
        assert_eq!(jsonl.numeric("b").unwrap(), vec![2.0]);
    }

    #[test]
    fn unknown_extension_needs_a_delimiter() {
        let message = read_error("data.txt", b"N,loss\n1,2\n");
        assert!(message.contains("data.txt"), "{message}");
        assert!(message.contains("with `delimiter`"), "{message}");
        let message = read_error("noextension", b"N,loss\n1,2\n");
        assert!(message.contains("with `delimiter`"), "{message}");
    }

    #[test]
    fn quote_or_newline_cannot_be_the_delimiter() {
        let result = read_with("data.txt", b"a\"b\n1\"2\n", Some(b'"'));
        let error = result.expect_err("a quote cannot be the delimiter");
        assert!(
            error.to_string().contains("choose another delimiter"),
            "{error}"
        );
    }

    #[test]
    fn missing_file_is_an_io_error_with_the_path() {
        let path = std::env::temp_dir().join("scalinglaws-no-such-file-7d1f.csv");
        let error = Dataset::read(&path, None).expect_err("missing file");
        assert!(matches!(error, Error::Io { .. }), "{error:?}");
        assert!(error
            .to_string()
            .contains("scalinglaws-no-such-file-7d1f.csv"));
    }

    #[test]
    fn empty_file_and_header_only_have_no_data_rows() {
        for contents in ["", "N,loss\n", "N,loss", "\n\n"] {
            let message = read_error("empty.csv", contents.as_bytes());
            assert!(message.contains("no data rows"), "{contents:?}: {message}");
        }
        let message = read_error("empty.jsonl", b"\n  \n");
        assert!(message.contains("no data rows"), "{message}");
    }

    #[test]
    fn duplicate_column_name() {
        let message = read_error("dup.csv", b"N,loss,N\n1,2,3\n");
        assert!(message.contains("'N'"), "{message}");
        assert!(message.contains("(line 1) names 'N' twice"), "{message}");
        assert!(message.contains("columns 1 and 3"), "{message}");
        assert!(message.contains("distinct"), "{message}");
    }

    #[test]
    fn empty_column_name() {
        let message = read_error("unnamed.csv", b"N,,loss\n1,2,3\n");
        assert!(message.contains("column 2 of the header"), "{message}");
        assert!(message.contains("has no name"), "{message}");
        let message = read_error("trailing.csv", b"N,loss,\n1,2,\n");
        assert!(message.contains("column 3 of the header"), "{message}");
    }

    #[test]
    fn ragged_row_names_row_line_and_counts() {
        let message = read_error("ragged.csv", b"a,b,c\n1,2,3\n4,5\n");
        assert!(message.contains("row 2 (line 3)"), "{message}");
        assert!(message.contains("the row has 2 fields"), "{message}");
        assert!(message.contains("header has 3"), "{message}");
        assert!(message.contains("every row needs 3 fields"), "{message}");
        let message = read_error("long.csv", b"a,b\n1,2,3\n");
        assert!(message.contains("row 1 (line 2)"), "{message}");
        assert!(message.contains("the row has 3 fields"), "{message}");
        let message = read_error("short.csv", b"a,b\n1\n");
        assert!(message.contains("the row has 1 field but"), "{message}");
    }

    #[test]
    fn text_cell_in_numeric_use_is_named_exactly() {
        let path = temp_file("bad.csv", b"N,loss\n1,2\n2,abc\n");
        let data = Dataset::read(&path, None).unwrap();
        let _ = std::fs::remove_file(&path);
        let expected = format!(
            "{}, row 2 (line 3), column 'loss': \"abc\" is not a number; \
             make every cell of 'loss' a number",
            path.display()
        );
        assert_eq!(error_text(data.numeric("loss")), expected);
    }

    #[test]
    fn empty_cells_read_as_missing_in_expressions_only() {
        let data = read("holes.csv", "x,y\n1,\n2,3\n3,abc\n");
        let message = error_text(data.numeric_or_missing("y"));
        assert!(
            message.contains("row 3 (line 4), column 'y': \"abc\""),
            "{message}"
        );
        let data = read("holes.csv", "x,y\n1,\n2,3\n");
        let values = data.numeric_or_missing("y").unwrap();
        assert!(values[0].is_nan() && values[1] == 3.0);
        let message = error_text(data.numeric("y"));
        assert!(message.contains("a where comparison on 'y'"), "{message}");
    }

    #[test]
    fn empty_cell_makes_text_and_is_reported() {
        let data = read("holes.csv", "x,y\n1,\n2,3\n");
        assert!(matches!(data.column("y").unwrap(), Column::Text(_)));
        let message = error_text(data.numeric("y"));
        assert!(
            message.contains("row 1 (line 2), column 'y': empty cell"),
            "{message}"
        );
        assert!(
            message.contains("make every cell of 'y' a number"),
            "{message}"
        );
    }

    #[test]
    fn nan_and_inf_parse_but_are_not_finite() {
        let data = read("special.csv", "a,b\n1,1\nnan,inf\n");
        assert_eq!(data.numeric("a").unwrap()[0], 1.0);
        assert!(data.numeric("a").unwrap()[1].is_nan());
        let message = error_text(data.finite("a"));
        assert!(
            message.contains("row 2 (line 3), column 'a': NaN is not a finite"),
            "{message}"
        );
        let message = error_text(data.finite("b"));
        assert!(
            message.contains("row 2 (line 3), column 'b': inf is not a finite"),
            "{message}"
        );
        assert!(message.contains("filter it out with `where`"), "{message}");
    }

    #[test]
    fn positive_names_the_row_and_the_reason() {
        let data = read("sizes.csv", "N\n10\n0\n-1\n");
        let message = error_text(data.positive("N", "the law takes log(N)"));
        assert!(message.contains("row 2 (line 3), column 'N'"), "{message}");
        assert!(
            message.contains("0 is not positive, but the law takes log(N)"),
            "{message}"
        );
        assert!(message.contains("remove or correct the row, or filter it out with `where`"));
        let kept = data.filter(&[true, false, false]);
        assert_eq!(kept.positive("N", "").unwrap(), vec![10.0]);
    }

    #[test]
    fn missing_column_suggests_and_lists() {
        let data = read("cols.csv", "N,loss\n1,2\n");
        let message = error_text(data.column("lss"));
        assert!(message.contains("column 'lss'"), "{message}");
        assert!(message.contains("did you mean 'loss'?"), "{message}");
        assert!(message.contains("'N', 'loss'"), "{message}");
        let message = error_text(data.numeric("tokens"));
        assert!(!message.contains("did you mean"), "{message}");
        assert!(message.contains("'N', 'loss'"), "{message}");
    }

    #[test]
    fn text_prints_numbers_plainly() {
        let data = read("t.csv", "a\n3.0\n2.5\n1e3\n");
        assert_eq!(data.text("a").unwrap(), vec!["3", "2.5", "1000"]);
    }

    #[test]
    fn set_numeric_adds_replaces_and_checks_length() {
        let mut data = read("set.csv", "a,b\n1,x\n2,y\n");
        data.set_numeric("c", vec![5.0, 6.0]).unwrap();
        data.set_numeric("b", vec![7.0, 8.0]).unwrap();
        assert_eq!(data.column_names(), ["a", "b", "c"]);
        assert_eq!(data.numeric("b").unwrap(), vec![7.0, 8.0]);
        let message = error_text(data.set_numeric("d", vec![1.0]));
        assert!(message.contains("column 'd'"), "{message}");
        assert!(
            message.contains("1 value but the data has 2 rows"),
            "{message}"
        );
    }

    #[test]
    fn filter_keeps_original_rows_and_lines() {
        let data = read("f.csv", "a,b\n1,x\n2,y\n3,zz\n");
        let kept = data.filter(&[false, true, true]);
        assert_eq!(kept.n_rows(), 2);
        assert_eq!(kept.numeric("a").unwrap(), vec![2.0, 3.0]);
        let location = kept.location(1, Some("b"));
        assert_eq!(location.row, Some(3));
        assert_eq!(location.line, Some(4));
        assert_eq!(location.column.as_deref(), Some("b"));
        let message = error_text(kept.numeric("b"));
        assert!(
            message.contains("row 2 (line 3), column 'b': \"y\""),
            "{message}"
        );
        // A short mask drops the rows it does not cover.
        assert_eq!(data.filter(&[true]).n_rows(), 1);
    }

    #[test]
    fn location_out_of_range_does_not_panic() {
        let data = read("l.csv", "a\n1\n");
        let location = data.location(10, None);
        assert_eq!(location.row, Some(11));
        assert_eq!(location.line, None);
    }

    #[test]
    fn bom_and_crlf() {
        let data = read("bom.csv", "\u{feff}a,b\r\n1,2\r\n3,4\r\n");
        assert_eq!(data.column_names(), ["a", "b"]);
        assert_eq!(data.numeric("b").unwrap(), vec![2.0, 4.0]);
        let message = read_error("bomragged.csv", "\u{feff}a,b\r\n1,2\r\n3\r\n".as_bytes());
        assert!(message.contains("row 2 (line 3)"), "{message}");
        let data = read("bom.jsonl", "\u{feff}{\"a\": 1}\r\n{\"a\": 2}\r\n");
        assert_eq!(data.numeric("a").unwrap(), vec![1.0, 2.0]);
    }

    #[test]
    fn line_numbers_count_blank_lines_and_every_line_ending() {
        let cases = [
            "a,b\n1,2\n3,x\n",
            "a,b\r\n1,2\r\n3,x\r\n",
            "a,b\r1,2\r3,x\r",
            "\n\na,b\n\n1,2\n\n3,x\n",
            "\r\n\r\na,b\r\n\r\n1,2\r\n\r\n3,x\r\n",
            "a,b\r\n\"two\r\nlines\",2\r\n3,x",
        ];
        let expected_lines = [3, 3, 3, 7, 7, 4];
        for (contents, expected) in cases.iter().zip(expected_lines) {
            let data = read("lines.csv", contents);
            let location = data.location(1, None);
            assert_eq!(location.row, Some(2), "{contents:?}");
            assert_eq!(location.line, Some(expected), "{contents:?}");
        }
    }

    #[test]
    fn multiline_quoted_field_keeps_line_numbers() {
        let data = read("ml.csv", "a,b\n\"two\nlines\",1\nx,oops\n");
        let message = error_text(data.numeric("b"));
        assert!(message.contains("row 2 (line 4)"), "{message}");
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let message = read_error("bad8.csv", b"a,b\n1,\xff\xfe\n");
        assert!(message.contains("row 1 (line 2), column 'b'"), "{message}");
        assert!(message.contains("UTF-8"), "{message}");
        let message = read_error("bad8head.csv", b"a,\xc3\n1,2\n");
        assert!(message.contains("column 2 of the header"), "{message}");
        assert!(message.contains("UTF-8"), "{message}");
        let message = read_error("bad8.jsonl", b"{\"a\": 1}\n{\"a\": \"\xff\"}\n");
        assert!(message.contains("row 2 (line 2)"), "{message}");
        assert!(message.contains("UTF-8"), "{message}");
    }

    #[test]
    fn json_lines_columns_in_order_of_first_appearance() {
        let data = read(
            "runs.jsonl",
            "{\"N\": 1e9, \"loss\": 2.5}\n\n{\"loss\": 2.0, \"N\": 2e9, \"tag\": \"big\"}\n",
        );
        assert_eq!(data.column_names(), ["N", "loss", "tag"]);
        assert_eq!(data.numeric("N").unwrap(), vec![1e9, 2e9]);
        assert_eq!(data.text("tag").unwrap(), vec!["", "big"]);
        // Blank line 2 is skipped: data row 2 is file line 3.
        let location = data.location(1, None);
        assert_eq!((location.row, location.line), (Some(2), Some(3)));
    }

    #[test]
    fn json_lines_missing_null_and_boolean_values() {
        let data = read(
            "mixed.ndjson",
            "{\"a\": 1, \"b\": true}\n{\"a\": null, \"b\": false}\n{\"b\": true}\n",
        );
        assert_eq!(data.text("b").unwrap(), vec!["true", "false", "true"]);
        assert_eq!(data.text("a").unwrap(), vec!["1", "", ""]);
        let message = error_text(data.numeric("a"));
        assert!(
            message.contains("row 2 (line 2), column 'a': empty cell"),
            "{message}"
        );
    }

    #[test]
    fn json_lines_numbers_in_strings_still_convert() {
        let data = read("strnum.jsonl", "{\"a\": \"3\"}\n{\"a\": 4}\n");
        assert!(matches!(data.column("a").unwrap(), Column::Text(_)));
        assert_eq!(data.numeric("a").unwrap(), vec![3.0, 4.0]);
    }

    #[test]
    fn json_lines_bad_line() {
        let message = read_error("bad.jsonl", b"{\"a\": 1}\n\n{\"a\": }\n");
        assert!(message.contains("row 2 (line 3)"), "{message}");
        assert!(message.contains("not valid JSON"), "{message}");
        assert!(!message.contains("at line 1"), "{message}");
    }

    #[test]
    fn json_lines_line_that_is_not_an_object() {
        let message = read_error("arr.jsonl", b"{\"a\": 1}\n[1, 2]\n");
        assert!(message.contains("row 2 (line 2)"), "{message}");
        assert!(message.contains("an array, not a JSON object"), "{message}");
        let message = read_error("num.jsonl", b"3\n");
        assert!(message.contains("a number, not a JSON object"), "{message}");
    }

    #[test]
    fn json_lines_nested_values_name_the_key() {
        let message = read_error(
            "nested.jsonl",
            b"{\"a\": 1}\n{\"a\": 2, \"cfg\": {\"x\": 1}}\n",
        );
        assert!(
            message.contains("row 2 (line 2), column 'cfg'"),
            "{message}"
        );
        assert!(message.contains("an object"), "{message}");
        let message = read_error("nestarr.jsonl", b"{\"a\": [1]}\n");
        assert!(message.contains("column 'a'"), "{message}");
        assert!(message.contains("an array"), "{message}");
    }

    #[test]
    fn json_lines_duplicate_and_empty_keys() {
        let message = read_error("dupkey.jsonl", b"{\"a\": 1, \"a\": 2}\n");
        assert!(message.contains("row 1 (line 1), column 'a'"), "{message}");
        assert!(message.contains("twice"), "{message}");
        let message = read_error("emptykey.jsonl", b"{\"\": 1}\n");
        assert!(message.contains("empty"), "{message}");
    }

    #[test]
    fn from_numeric_checks_lengths() {
        let data = Dataset::from_numeric(
            "memory",
            vec![
                ("N".into(), vec![1.0, 2.0]),
                ("loss".into(), vec![3.0, 4.0]),
            ],
        )
        .unwrap();
        assert_eq!(data.n_rows(), 2);
        assert_eq!(data.source(), "memory");
        assert_eq!(
            data.location(1, Some("N")).to_string(),
            "memory, row 2, column 'N'"
        );
        let result = Dataset::from_numeric(
            "memory",
            vec![("N".into(), vec![1.0, 2.0]), ("loss".into(), vec![3.0])],
        );
        let message = error_text(result);
        assert!(message.contains("column 'loss'"), "{message}");
        assert!(
            message.contains("1 value but column 'N' has 2 values"),
            "{message}"
        );
        let result = Dataset::from_numeric(
            "memory",
            vec![("N".into(), vec![1.0]), ("N".into(), vec![3.0])],
        );
        assert!(error_text(result).contains("twice"));
    }
}
