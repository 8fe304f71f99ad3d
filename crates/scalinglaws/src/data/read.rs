//! Readers that turn a CSV/TSV or JSON Lines file into a `Dataset`. They live apart from the
//! dataset's accessors because all the format details (header, quoting, BOM, line endings,
//! UTF-8, JSON value kinds) and the read-time error messages belong here.

use super::{count, data_error, file_location, parse_cell, Column, Dataset, RowOrigin};
use crate::error::{Error, Location, Result, Setting};
use crate::text;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF8_FIX: &str = "save the file as UTF-8 text";

enum Format {
    Delimited(u8),
    JsonLines,
}

pub(super) fn read_file(path: &Path, delimiter: Option<u8>) -> Result<Dataset> {
    let source = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|error| Error::Io {
        path: source.clone(),
        source: error,
    })?;
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(&bytes);
    match choose_format(path, &source, delimiter)? {
        Format::Delimited(delimiter) => read_delimited(&source, bytes, delimiter),
        Format::JsonLines => read_json_lines(&source, bytes),
    }
}

fn choose_format(path: &Path, source: &str, delimiter: Option<u8>) -> Result<Format> {
    if let Some(delimiter) = delimiter {
        check_delimiter(source, delimiter)?;
        return Ok(Format::Delimited(delimiter));
    }
    let extension = path
        .extension()
        .map(|extension| extension.to_string_lossy().to_lowercase());
    match extension.as_deref() {
        Some("csv") => Ok(Format::Delimited(b',')),
        Some("tsv") | Some("tab") => Ok(Format::Delimited(b'\t')),
        Some("jsonl") | Some("ndjson") => Ok(Format::JsonLines),
        other => {
            let message = match other {
                Some(extension) => {
                    format!("cannot tell the file format from the extension '.{extension}'")
                }
                None => "cannot tell the file format: the name has no extension".to_string(),
            };
            Err(data_error(
                file_location(source, None),
                message,
                text![
                    "name the file .csv, .tsv, .tab, .jsonl or .ndjson, or give the delimiter \
                     with ",
                    Setting::Delimiter,
                    " (e.g. ",
                    Setting::Delimiter.text(";"),
                    ")"
                ],
            ))
        }
    }
}

fn check_delimiter(source: &str, delimiter: u8) -> Result<()> {
    if matches!(delimiter, b'"' | b'\n' | b'\r') {
        return Err(data_error(
            file_location(source, None),
            format!(
                "{:?} cannot be the delimiter",
                char::from(delimiter).to_string()
            ),
            text![
                "choose another ",
                Setting::Delimiter.subject(),
                ", such as ',', ';', '|' or a tab"
            ],
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Delimited text (CSV, TSV, any single-byte delimiter)
// ---------------------------------------------------------------------------------------------

fn read_delimited(source: &str, bytes: &[u8], delimiter: u8) -> Result<Dataset> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    let mut lines = LineCounter::new(bytes);
    if !next_record(source, &mut reader, &mut record)? {
        return Err(no_data_rows(source, "the file is empty"));
    }
    let names = header_names(source, &record, lines.line_of(&record))?;
    let mut cells: Vec<Vec<String>> = vec![Vec::new(); names.len()];
    let mut origins = Vec::new();
    while next_record(source, &mut reader, &mut record)? {
        let origin = RowOrigin {
            row: origins.len() + 1,
            line: lines.line_of(&record),
        };
        check_field_count(source, &record, names.len(), origin)?;
        for ((field, column), name) in record.iter().zip(&mut cells).zip(&names) {
            column.push(decode_cell(source, field, origin, name)?);
        }
        origins.push(origin);
    }
    if origins.is_empty() {
        return Err(no_data_rows(
            source,
            "the file has a header but no data rows",
        ));
    }
    let columns = cells.into_iter().map(column_from_strings).collect();
    Ok(Dataset::from_parts(
        source.to_string(),
        names,
        columns,
        origins,
    ))
}

/// Reads the next record into `record`; false at the end of the file.
fn next_record(
    source: &str,
    reader: &mut csv::Reader<&[u8]>,
    record: &mut csv::ByteRecord,
) -> Result<bool> {
    reader.read_byte_record(record).map_err(|error| {
        data_error(
            file_location(source, None),
            format!("cannot read the file: {error}"),
            "check the file's quoting and delimiter",
        )
    })
}

/// Line numbers of records, counted from the bytes: the csv crate's own line numbers are off
/// after CRLF line ends and blank lines, but its byte offsets are right. A record's offset is
/// where the parser started looking for it, so line breaks right after it are skipped first.
/// "\n", "\r\n" and a lone "\r" each end one line.
struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        LineCounter {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// The 1-based line where `record` begins; records must be passed in file order.
    fn line_of(&mut self, record: &csv::ByteRecord) -> Option<usize> {
        let scan_start = usize::try_from(record.position()?.byte()).ok()?;
        let mut start = scan_start.min(self.bytes.len());
        while matches!(self.bytes.get(start), Some(b'\r' | b'\n')) {
            start += 1;
        }
        self.advance_to(start);
        Some(self.line)
    }

    fn advance_to(&mut self, target: usize) {
        while self.offset < target {
            let ends_line = match self.bytes[self.offset] {
                b'\n' => true,
                b'\r' => self.bytes.get(self.offset + 1) != Some(&b'\n'),
                _ => false,
            };
            if ends_line {
                self.line += 1;
            }
            self.offset += 1;
        }
    }
}

/// The trimmed column names of the header record, all non-empty and distinct.
fn header_names(
    source: &str,
    header: &csv::ByteRecord,
    line: Option<usize>,
) -> Result<Vec<String>> {
    let place = match line {
        Some(line) => format!("the header (line {line})"),
        None => "the header".to_string(),
    };
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    let mut first_index: HashMap<String, usize> = HashMap::new();
    for (index, field) in header.iter().enumerate() {
        let number = index + 1;
        let name = decode_header_field(source, field, number, &place)?;
        if name.is_empty() {
            return Err(data_error(
                file_location(source, None),
                format!("column {number} of {place} has no name"),
                "name every column in the header, or remove the extra delimiter",
            ));
        }
        if let Some(first) = first_index.get(&name) {
            return Err(data_error(
                file_location(source, None),
                format!(
                    "{place} names '{name}' twice, as columns {} and {number}",
                    first + 1
                ),
                "give every column a distinct name",
            ));
        }
        first_index.insert(name.clone(), index);
        names.push(name);
    }
    Ok(names)
}

fn decode_header_field(source: &str, field: &[u8], number: usize, place: &str) -> Result<String> {
    match std::str::from_utf8(field) {
        Ok(text) => Ok(text.trim().to_string()),
        Err(error) => Err(data_error(
            file_location(source, None),
            format!(
                "column {number} of {place} is not valid UTF-8 (bad byte at position {})",
                error.valid_up_to() + 1
            ),
            UTF8_FIX,
        )),
    }
}

fn check_field_count(
    source: &str,
    record: &csv::ByteRecord,
    expected: usize,
    origin: RowOrigin,
) -> Result<()> {
    if record.len() == expected {
        return Ok(());
    }
    Err(data_error(
        row_location(source, origin, None),
        format!(
            "the row has {} but the header has {expected}",
            count(record.len(), "field")
        ),
        format!("every row needs {}", count(expected, "field")),
    ))
}

fn decode_cell(source: &str, field: &[u8], origin: RowOrigin, column: &str) -> Result<String> {
    match std::str::from_utf8(field) {
        Ok(text) => Ok(text.to_string()),
        Err(error) => Err(data_error(
            row_location(source, origin, Some(column)),
            format!(
                "the cell is not valid UTF-8 (bad byte at position {})",
                error.valid_up_to() + 1
            ),
            UTF8_FIX,
        )),
    }
}

/// Numeric when every cell parses as a number (whitespace trimmed), else the raw text.
fn column_from_strings(cells: Vec<String>) -> Column {
    let numbers: Option<Vec<f64>> = cells.iter().map(|cell| parse_cell(cell)).collect();
    match numbers {
        Some(values) => Column::Numeric(values),
        None => Column::Text(cells),
    }
}

// ---------------------------------------------------------------------------------------------
// JSON Lines
// ---------------------------------------------------------------------------------------------

/// One JSON Lines value as a cell.
#[derive(Clone)]
enum Cell {
    Number(f64),
    Text(String),
    Empty,
}

/// Columns collected line by line, in order of first appearance.
#[derive(Default)]
struct JsonTable {
    names: Vec<String>,
    index: HashMap<String, usize>,
    cells: Vec<Vec<Cell>>,
    origins: Vec<RowOrigin>,
}

fn read_json_lines(source: &str, bytes: &[u8]) -> Result<Dataset> {
    let mut table = JsonTable::default();
    for (index, raw_line) in bytes.split(|&byte| byte == b'\n').enumerate() {
        let origin = RowOrigin {
            row: table.origins.len() + 1,
            line: Some(index + 1),
        };
        let text = decode_line(source, raw_line, origin)?;
        if text.trim().is_empty() {
            continue;
        }
        let entries = parse_object(source, text, origin)?;
        table.push_row(source, entries, origin)?;
    }
    table.finish(source)
}

fn decode_line<'a>(source: &str, raw_line: &'a [u8], origin: RowOrigin) -> Result<&'a str> {
    let raw_line = raw_line.strip_suffix(b"\r").unwrap_or(raw_line);
    std::str::from_utf8(raw_line).map_err(|error| {
        data_error(
            row_location(source, origin, None),
            format!(
                "the line is not valid UTF-8 (bad byte at position {})",
                error.valid_up_to() + 1
            ),
            UTF8_FIX,
        )
    })
}

impl JsonTable {
    fn push_row(
        &mut self,
        source: &str,
        entries: Vec<(String, Value)>,
        origin: RowOrigin,
    ) -> Result<()> {
        let rows_before = self.origins.len();
        for (key, value) in entries {
            let cell = json_cell(source, &key, value, origin)?;
            let column = self.column_index(source, key, origin)?;
            if self.cells[column].len() > rows_before {
                return Err(data_error(
                    row_location(source, origin, Some(&self.names[column])),
                    "the key appears twice on this line",
                    "give every key on a line a distinct name",
                ));
            }
            self.cells[column].push(cell);
        }
        for column in &mut self.cells {
            if column.len() == rows_before {
                column.push(Cell::Empty);
            }
        }
        self.origins.push(origin);
        Ok(())
    }

    /// The index of the column named `key`, adding it (empty in earlier rows) if new.
    fn column_index(&mut self, source: &str, key: String, origin: RowOrigin) -> Result<usize> {
        if let Some(&index) = self.index.get(&key) {
            return Ok(index);
        }
        if key.trim().is_empty() {
            return Err(data_error(
                row_location(source, origin, None),
                "a key is empty",
                "give every key a name",
            ));
        }
        let index = self.names.len();
        self.index.insert(key.clone(), index);
        self.names.push(key);
        self.cells.push(vec![Cell::Empty; self.origins.len()]);
        Ok(index)
    }

    fn finish(self, source: &str) -> Result<Dataset> {
        if self.origins.is_empty() {
            return Err(no_data_rows(source, "the file has no JSON objects"));
        }
        if self.names.is_empty() {
            return Err(data_error(
                file_location(source, None),
                "no columns: every line is an empty object",
                "give the objects keys, e.g. {\"N\": 1e9, \"loss\": 2.5}",
            ));
        }
        let columns = self.cells.into_iter().map(column_from_cells).collect();
        Ok(Dataset::from_parts(
            source.to_string(),
            self.names,
            columns,
            self.origins,
        ))
    }
}

fn json_cell(source: &str, key: &str, value: Value, origin: RowOrigin) -> Result<Cell> {
    let nested = match value {
        Value::Number(number) => {
            return Ok(match number.as_f64() {
                Some(value) => Cell::Number(value),
                None => Cell::Text(number.to_string()),
            })
        }
        Value::String(text) => return Ok(Cell::Text(text)),
        Value::Bool(flag) => return Ok(Cell::Text(flag.to_string())),
        Value::Null => return Ok(Cell::Empty),
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    Err(data_error(
        row_location(source, origin, Some(key)),
        format!("the value is {nested}; values must be numbers, strings, booleans or null"),
        format!("flatten '{key}' into separate keys with plain values"),
    ))
}

/// Numeric when every cell is a number, else text (numbers printed with `{}`, missing as "").
fn column_from_cells(cells: Vec<Cell>) -> Column {
    let numbers: Option<Vec<f64>> = cells
        .iter()
        .map(|cell| match cell {
            Cell::Number(value) => Some(*value),
            _ => None,
        })
        .collect();
    if let Some(values) = numbers {
        return Column::Numeric(values);
    }
    let texts = cells
        .into_iter()
        .map(|cell| match cell {
            Cell::Number(value) => format!("{value}"),
            Cell::Text(text) => text,
            Cell::Empty => String::new(),
        })
        .collect();
    Column::Text(texts)
}

/// Parses one line as a JSON object, keeping its keys in the order written.
fn parse_object(source: &str, text: &str, origin: RowOrigin) -> Result<Vec<(String, Value)>> {
    match serde_json::from_str::<OrderedObject>(text) {
        Ok(object) => Ok(object.0),
        Err(error) => Err(json_line_error(source, text, origin, &error)),
    }
}

fn json_line_error(
    source: &str,
    text: &str,
    origin: RowOrigin,
    error: &serde_json::Error,
) -> Error {
    let message = match serde_json::from_str::<Value>(text) {
        Ok(value) if !value.is_object() => {
            format!(
                "the line holds {}, not a JSON object",
                describe_kind(&value)
            )
        }
        _ => format!("the line is not valid JSON ({})", json_message(error)),
    };
    data_error(
        row_location(source, origin, None),
        message,
        "write one JSON object per line, e.g. {\"N\": 1e9, \"loss\": 2.5}",
    )
}

/// serde_json's message with its "at line 1 column C" (always line 1 here) as "at column C".
fn json_message(error: &serde_json::Error) -> String {
    let full = error.to_string();
    let message = match full.rfind(" at line ") {
        Some(end) => &full[..end],
        None => full.as_str(),
    };
    format!("{message} at column {}", error.column())
}

fn describe_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON object with its entries in document order (serde_json's `Map` sorts its keys unless
/// the `preserve_order` feature is on). Duplicate keys are kept so they can be reported.
struct OrderedObject(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OrderedObjectVisitor)
    }
}

struct OrderedObjectVisitor;

impl<'de> Visitor<'de> for OrderedObjectVisitor {
    type Value = OrderedObject;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedObject, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry::<String, Value>()? {
            entries.push(entry);
        }
        Ok(OrderedObject(entries))
    }
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

fn no_data_rows(source: &str, what: &str) -> Error {
    data_error(
        file_location(source, None),
        format!("no data rows: {what}"),
        "add at least one data row",
    )
}

fn row_location(source: &str, origin: RowOrigin, column: Option<&str>) -> Location {
    Location {
        file: source.to_string(),
        row: Some(origin.row),
        line: origin.line,
        column: column.map(str::to_string),
    }
}
