//! Readers that turn a CSV/TSV or JSON Lines file (or, through `parquet.rs`, a Parquet file)
//! into a `Dataset`. They live apart from the
//! dataset's accessors because all the format details (header, quoting, BOM, line endings,
//! UTF-8, JSON value kinds) and the read-time error messages belong here.

use super::{count, data_error, file_location, parse_cell, Column, Dataset, Origins, RowOrigin};
use crate::error::{Error, Location, Result, Setting};
use crate::text;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, Read};
use std::path::Path;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const UTF8_FIX: &str = "save the file as UTF-8 text";

enum Format {
    Delimited(u8),
    JsonLines,
    Parquet,
}

/// The first bytes of a Parquet file.
const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

pub(super) fn read_file(path: &Path, delimiter: Option<u8>) -> Result<Dataset> {
    let source = path.display().to_string();
    let open = || {
        std::fs::File::open(path).map_err(|error| Error::Io {
            path: source.clone(),
            source: error,
        })
    };
    let file = open()?;
    match choose_format(path, &source, delimiter)? {
        Format::Delimited(separator) => {
            let reopen = || -> Result<Box<dyn Read>> { Ok(Box::new(without_bom(open()?))) };
            let guessed = delimiter.is_none();
            read_delimited(&source, without_bom(file), separator, guessed, &reopen)
        }
        Format::JsonLines => read_json_lines(&source, without_bom(file)),
        Format::Parquet => {
            drop(file);
            let bytes = std::fs::read(path).map_err(|error| Error::Io {
                path: source.clone(),
                source: error,
            })?;
            read_parquet(&source, bytes)
        }
    }
}

/// A Parquet file's bytes as a dataset (or, in a build without the `parquet` feature, an
/// error that says so).
fn read_parquet(source: &str, bytes: Vec<u8>) -> Result<Dataset> {
    #[cfg(feature = "parquet")]
    {
        super::parquet::read_parquet(source, bytes.into())
    }
    #[cfg(not(feature = "parquet"))]
    {
        drop(bytes);
        Err(data_error(
            file_location(source, None),
            "the file is Parquet, and this build of scalinglaws reads no Parquet (it was built \
             without the `parquet` feature)",
            "build it with its default features, or write the table as CSV",
        ))
    }
}

/// Whether the file at `path` starts with Parquet's magic bytes.
fn starts_as_parquet(path: &Path) -> bool {
    let mut start = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut start))
        .is_ok()
        && &start == PARQUET_MAGIC
}

/// Reads a stream (standard input) whole: delimited by `delimiter` when given, else JSON Lines
/// when its first character that is not blank is `{`, else CSV.
pub(super) fn read_stream(
    source: &str,
    mut stream: impl Read,
    delimiter: Option<u8>,
) -> Result<Dataset> {
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).map_err(|error| Error::Io {
        path: source.to_string(),
        source: error,
    })?;
    if delimiter.is_none() && bytes.starts_with(PARQUET_MAGIC) {
        return read_parquet(source, bytes);
    }
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(&bytes);
    let first = bytes.iter().find(|byte| !byte.is_ascii_whitespace());
    match delimiter {
        Some(separator) => check_delimiter(source, separator)?,
        None if first == Some(&b'{') => return read_json_lines(source, bytes),
        None => {}
    }
    let reopen = || -> Result<Box<dyn Read + '_>> { Ok(Box::new(bytes)) };
    let separator = delimiter.unwrap_or(b',');
    read_delimited(source, bytes, separator, delimiter.is_none(), &reopen)
}

/// The stream after a UTF-8 byte order mark, if it starts with one.
fn without_bom<R: Read>(mut reader: R) -> impl Read {
    let mut start = Vec::with_capacity(UTF8_BOM.len());
    let _ = (&mut reader)
        .take(UTF8_BOM.len() as u64)
        .read_to_end(&mut start);
    if start == UTF8_BOM {
        start.clear();
    }
    std::io::Cursor::new(start).chain(reader)
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
        Some("parquet") | Some("pq") => Ok(Format::Parquet),
        _ if starts_as_parquet(path) => Ok(Format::Parquet),
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
                    "name the file .csv, .tsv, .tab, .jsonl, .ndjson or .parquet, or give the delimiter \
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

/// Opens the source again from its start, for a second pass over the file.
type Reopen<'a> = &'a dyn Fn() -> Result<Box<dyn Read + 'a>>;

/// Streams the records straight into typed columns: memory grows with the columns, not with
/// the cells' text (a column is kept as text only once a cell of it is not a number).
fn read_delimited(
    source: &str,
    stream: impl Read,
    delimiter: u8,
    guessed: bool,
    reopen: Reopen<'_>,
) -> Result<Dataset> {
    let mut reader = csv_reader(Scanned::new(stream, delimiter), delimiter);
    let mut record = csv::ByteRecord::new();
    if !next_record(source, &mut reader, &mut record)? {
        return Err(no_data_rows(source, "the file is empty"));
    }
    let header_line = reader.get_ref().line_of(&record);
    check_quotes(source, reader.get_ref(), None, &[])?;
    let names = header_names(source, &record, header_line)?;
    if guessed {
        check_guessed_delimiter(source, &names, delimiter)?;
    }
    let mut columns: Vec<ColumnBuilder> = names.iter().map(|_| ColumnBuilder::default()).collect();
    let mut origins = Origins::default();
    while next_record(source, &mut reader, &mut record)? {
        let origin = RowOrigin {
            row: origins.len() + 1,
            line: reader.get_ref().line_of(&record),
        };
        check_quotes(source, reader.get_ref(), Some(origin), &names)?;
        check_field_count(source, &record, names.len(), origin, delimiter)?;
        let text = decode_record(source, &record, origin, &names)?;
        for (index, column) in columns.iter_mut().enumerate() {
            column.push(record_field(text, &record, index));
        }
        origins.push(origin);
    }
    if origins.is_empty() {
        return Err(no_data_rows(
            source,
            "the file has a header but no data rows",
        ));
    }
    let columns = finish_columns(source, columns, delimiter, reopen)?;
    Ok(Dataset::from_parts(
        source.to_string(),
        names,
        columns,
        origins,
    ))
}

fn csv_reader<R: Read>(stream: R, delimiter: u8) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(stream)
}

/// A column while it is read: numbers until a cell is not one, then text from that row on
/// (the cells before it are read again as text at the end, see [`finish_columns`]).
enum ColumnBuilder {
    Numeric(Vec<f64>),
    Text { from_row: usize, cells: Vec<String> },
}

impl Default for ColumnBuilder {
    fn default() -> Self {
        ColumnBuilder::Numeric(Vec::new())
    }
}

impl ColumnBuilder {
    fn push(&mut self, cell: &str) {
        match self {
            ColumnBuilder::Numeric(values) => match parse_cell(cell) {
                Some(value) => values.push(value),
                None => {
                    *self = ColumnBuilder::Text {
                        from_row: values.len(),
                        cells: vec![cell.to_string()],
                    }
                }
            },
            ColumnBuilder::Text { cells, .. } => cells.push(cell.to_string()),
        }
    }
}

/// The finished columns. A column that turned to text after some numeric rows gets those
/// rows' cells as written (not as the numbers print) from a second pass over the source.
fn finish_columns(
    source: &str,
    columns: Vec<ColumnBuilder>,
    delimiter: u8,
    reopen: Reopen<'_>,
) -> Result<Vec<Column>> {
    let rows_again = columns
        .iter()
        .map(|column| match column {
            ColumnBuilder::Text { from_row, .. } => *from_row,
            ColumnBuilder::Numeric(_) => 0,
        })
        .max()
        .unwrap_or(0);
    let mut heads: Vec<Vec<String>> = vec![Vec::new(); columns.len()];
    if rows_again > 0 {
        let mut reader = csv_reader(reopen()?, delimiter);
        let mut record = csv::ByteRecord::new();
        let pending: Vec<(usize, usize)> = columns
            .iter()
            .enumerate()
            .filter_map(|(index, column)| match column {
                ColumnBuilder::Text { from_row, .. } if *from_row > 0 => Some((index, *from_row)),
                _ => None,
            })
            .collect();
        // The header, then the rows before the last column's first text cell.
        for row in 0..=rows_again {
            if !next_record(source, &mut reader, &mut record)? {
                return Err(changed_while_read(source));
            }
            for &(index, from_row) in &pending {
                if row >= 1 && row <= from_row {
                    let field = record
                        .get(index)
                        .ok_or_else(|| changed_while_read(source))?;
                    heads[index].push(String::from_utf8_lossy(field).into_owned());
                }
            }
        }
    }
    Ok(columns
        .into_iter()
        .zip(heads)
        .map(|(column, mut head)| match column {
            ColumnBuilder::Numeric(values) => Column::Numeric(values),
            ColumnBuilder::Text { cells, .. } => {
                head.extend(cells);
                Column::Text(head)
            }
        })
        .collect())
}

fn changed_while_read(source: &str) -> Error {
    data_error(
        file_location(source, None),
        "the file changed while it was read",
        "read it again once nothing writes to it",
    )
}

/// A file of one column whose name holds another delimiter ("N;D;loss" read as CSV): the file
/// is most likely delimited by it.
fn check_guessed_delimiter(source: &str, names: &[String], delimiter: u8) -> Result<()> {
    let [name] = names else {
        return Ok(());
    };
    let Some(other) = [b';', b'\t', b'|']
        .into_iter()
        .find(|&other| other != delimiter && name.as_bytes().contains(&other))
    else {
        return Ok(());
    };
    let shown = if other == b'\t' {
        "tab".to_string()
    } else {
        char::from(other).to_string()
    };
    Err(data_error(
        file_location(source, None),
        format!(
            "the header is one column, '{}', with '{}' between its names",
            crate::error::clipped(name, false),
            if other == b'\t' {
                "\\t"
            } else {
                shown.as_str()
            }
        ),
        text![
            "give the delimiter with ",
            Setting::Delimiter.text(shown),
            " (decimal commas are not read: write numbers with a point, 2.5 not 2,5)"
        ],
    ))
}

/// An unterminated quote: the parser read from it to the end of the file as one cell.
fn check_quotes<R>(
    source: &str,
    scanned: &Scanned<R>,
    origin: Option<RowOrigin>,
    names: &[String],
) -> Result<()> {
    let Some(quote) = scanned.unterminated_quote() else {
        return Ok(());
    };
    let column = quote.field + 1;
    let name = match names.get(quote.field) {
        Some(name) => format!(" ('{name}')"),
        None => String::new(),
    };
    let row = match origin {
        Some(origin) => format!("row {}", origin.row),
        None => "the header".to_string(),
    };
    Err(data_error(
        file_location(source, None),
        format!(
            "unterminated quote starting at {row}, column {column}{name} (line {}): the rest \
             of the file was read as one cell",
            quote.line
        ),
        "close the quote, or write a quote inside a quoted cell twice (\"\")",
    ))
}

/// Reads the next record into `record`; false at the end of the file.
fn next_record<R: Read>(
    source: &str,
    reader: &mut csv::Reader<R>,
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

/// The bytes on their way to the csv parser, scanned for two things the parser does not say.
/// Line numbers of records: the csv crate's own line numbers are off after CRLF line ends and
/// blank lines, but its byte offsets are right. A record's offset is where the parser started
/// looking for it, so the line breaks right after it are skipped first; "\n", "\r\n" and a
/// lone "\r" each end one line. Only the runs of line breaks not yet asked about are kept
/// (those in the parser's read-ahead), so the memory is a few buffers whatever the file's size.
/// And an unterminated quote: the parser reads from it to the end of the file as one cell, so
/// the quoting is followed here as csv does it (a quote opens a quoted cell only at the cell's
/// start, two quotes inside one are one, a quote then anything else closes it).
struct Scanned<R> {
    inner: R,
    scan: std::cell::RefCell<Scan>,
}

#[derive(Default)]
struct Scan {
    delimiter: u8,
    offset: u64,
    /// Line breaks in the runs already counted (before the last record asked about).
    counted: usize,
    /// Runs of line-break bytes ahead of the last record asked about.
    runs: VecDeque<BreakRun>,
    /// The run being read, and whether its last byte was a '\r' not yet known to be lone.
    open: Option<BreakRun>,
    pending_cr: bool,
    quoting: Quoting,
    field: usize,
    quote: Option<QuoteStart>,
    ended: bool,
}

#[derive(Clone, Copy)]
struct BreakRun {
    start: u64,
    breaks: usize,
}

#[derive(Default, Clone, Copy, PartialEq)]
enum Quoting {
    #[default]
    CellStart,
    Unquoted,
    Quoted,
    AfterQuote,
}

/// Where the quote of the quoted cell being read opened.
#[derive(Clone, Copy)]
struct QuoteStart {
    field: usize,
    line: usize,
}

impl<R> Scanned<R> {
    fn new(inner: R, delimiter: u8) -> Self {
        Scanned {
            inner,
            scan: std::cell::RefCell::new(Scan {
                delimiter,
                ..Scan::default()
            }),
        }
    }

    /// The 1-based line where `record` begins; records must be passed in file order.
    fn line_of(&self, record: &csv::ByteRecord) -> Option<usize> {
        let start = record.position()?.byte();
        Some(self.scan.borrow_mut().line_at(start))
    }

    /// The quote still open at the end of the input, if the input ended inside a quoted cell.
    fn unterminated_quote(&self) -> Option<QuoteStart> {
        let scan = self.scan.borrow();
        match (scan.ended, scan.quoting) {
            (true, Quoting::Quoted) => scan.quote,
            _ => None,
        }
    }
}

impl<R: Read> Read for Scanned<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        let scan = self.scan.get_mut();
        if read == 0 && !buffer.is_empty() {
            scan.end();
        }
        scan.bytes(&buffer[..read]);
        Ok(read)
    }
}

impl Scan {
    /// [`Scan::byte`] for each byte, taking the runs without a line break or quote (most of a
    /// file) at once.
    fn bytes(&mut self, mut rest: &[u8]) {
        while !rest.is_empty() {
            let plain = memchr::memchr3(b'\n', b'\r', b'"', rest).unwrap_or(rest.len());
            if plain > 0 {
                self.plain_run(&rest[..plain]);
                rest = &rest[plain..];
            }
            if let Some((&byte, tail)) = rest.split_first() {
                self.byte(byte);
                rest = tail;
            }
        }
    }

    /// What [`Scan::byte`] does for a run of bytes with no line break and no quote: the first
    /// closes a run of line breaks; outside a quoted cell each delimiter starts a cell, and the
    /// run ends at a cell's start when its last byte is one (else inside an unquoted cell).
    fn plain_run(&mut self, run: &[u8]) {
        self.close_run();
        if self.quoting == Quoting::AfterQuote {
            self.quoting = Quoting::Unquoted;
        }
        if self.quoting != Quoting::Quoted {
            let delimiter = self.delimiter;
            self.field += run.iter().filter(|&&b| b == delimiter).count();
            self.quoting = if run.last() == Some(&delimiter) {
                Quoting::CellStart
            } else {
                Quoting::Unquoted
            };
        }
        self.offset += run.len() as u64;
    }

    fn byte(&mut self, byte: u8) {
        let is_break = matches!(byte, b'\n' | b'\r');
        if is_break {
            let run = self.open.get_or_insert(BreakRun {
                start: self.offset,
                breaks: 0,
            });
            if byte == b'\n' || self.pending_cr {
                run.breaks += 1;
            }
            self.pending_cr = byte == b'\r';
        } else {
            self.close_run();
        }
        self.follow_quotes(byte, is_break);
        self.offset += 1;
    }

    fn close_run(&mut self) {
        if let Some(mut run) = self.open.take() {
            if self.pending_cr {
                run.breaks += 1;
            }
            self.pending_cr = false;
            self.runs.push_back(run);
        }
    }

    fn end(&mut self) {
        self.close_run();
        self.ended = true;
    }

    fn follow_quotes(&mut self, byte: u8, is_break: bool) {
        if self.quoting == Quoting::AfterQuote {
            if byte == b'"' {
                self.quoting = Quoting::Quoted;
                return;
            }
            self.quoting = Quoting::Unquoted;
        }
        match self.quoting {
            Quoting::Quoted => {
                if byte == b'"' {
                    self.quoting = Quoting::AfterQuote;
                }
            }
            _ if is_break => {
                self.quoting = Quoting::CellStart;
                self.field = 0;
            }
            _ if byte == self.delimiter => {
                self.quoting = Quoting::CellStart;
                self.field += 1;
            }
            Quoting::CellStart if byte == b'"' => {
                self.quoting = Quoting::Quoted;
                let line = self.line_before(self.offset);
                self.quote = Some(QuoteStart {
                    field: self.field,
                    line,
                });
            }
            _ => self.quoting = Quoting::Unquoted,
        }
    }

    /// The line of the first byte at or after `start` that is not a line break.
    fn line_at(&mut self, start: u64) -> usize {
        while let Some(run) = self.runs.front().copied() {
            if run.start > start {
                break;
            }
            self.counted += run.breaks;
            self.runs.pop_front();
        }
        let open = match self.open {
            Some(run) if run.start <= start => run.breaks + usize::from(self.pending_cr),
            _ => 0,
        };
        1 + self.counted + open
    }

    /// The line of the byte at `offset` (ahead of every record asked about).
    fn line_before(&self, offset: u64) -> usize {
        let ahead: usize = self
            .runs
            .iter()
            .filter(|run| run.start < offset)
            .map(|run| run.breaks)
            .sum();
        1 + self.counted + ahead
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
                    "{place} names '{}' twice, as columns {} and {number}",
                    crate::error::clipped(&name, false),
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
    delimiter: u8,
) -> Result<()> {
    if record.len() == expected {
        return Ok(());
    }
    let mut fix = format!("every row needs {}", count(expected, "field"));
    if delimiter == b',' && record.len() > expected {
        fix.push_str("; decimal commas are not read: use a point (2.5, not 2,5)");
    }
    Err(data_error(
        row_location(source, origin, None),
        format!(
            "the row has {} but the header has {expected}",
            count(record.len(), "field")
        ),
        fix,
    ))
}

/// The record's fields as one text, validated as UTF-8 once (most files are): the fields
/// are then slices of it ([`record_field`]). A record that is not valid UTF-8, or whose
/// field boundaries split a character, names its first bad cell.
fn decode_record<'a>(
    source: &str,
    record: &'a csv::ByteRecord,
    origin: RowOrigin,
    names: &[String],
) -> Result<&'a str> {
    if let Ok(text) = std::str::from_utf8(record.as_slice()) {
        let mut boundaries = (0..record.len()).filter_map(|i| record.range(i));
        if boundaries.all(|r| text.is_char_boundary(r.start) && text.is_char_boundary(r.end)) {
            return Ok(text);
        }
    }
    for (field, name) in record.iter().zip(names) {
        decode_cell(source, field, origin, name)?;
    }
    // Fields that are each valid UTF-8 join into valid UTF-8: one of them failed above.
    Err(data_error(
        row_location(source, origin, None),
        "the row is not valid UTF-8",
        UTF8_FIX,
    ))
}

/// Field `index` of a record [`decode_record`] validated.
fn record_field<'a>(text: &'a str, record: &csv::ByteRecord, index: usize) -> &'a str {
    record.range(index).map_or("", |range| &text[range])
}

fn decode_cell<'a>(
    source: &str,
    field: &'a [u8],
    origin: RowOrigin,
    column: &str,
) -> Result<&'a str> {
    match std::str::from_utf8(field) {
        Ok(text) => Ok(text),
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

/// A column while it is read: numbers while every cell is one, else text (numbers printed
/// with `{}`, missing as "").
enum JsonColumn {
    Numeric(Vec<f64>),
    Text(Vec<String>),
}

impl JsonColumn {
    fn len(&self) -> usize {
        match self {
            JsonColumn::Numeric(values) => values.len(),
            JsonColumn::Text(cells) => cells.len(),
        }
    }

    fn push(&mut self, cell: Cell) {
        match (&mut *self, cell) {
            (JsonColumn::Numeric(values), Cell::Number(value)) => values.push(value),
            (JsonColumn::Text(cells), cell) => cells.push(cell_text(cell)),
            (JsonColumn::Numeric(values), cell) => {
                let mut cells: Vec<String> =
                    values.iter().map(|value| format!("{value}")).collect();
                cells.push(cell_text(cell));
                *self = JsonColumn::Text(cells);
            }
        }
    }
}

fn cell_text(cell: Cell) -> String {
    match cell {
        Cell::Number(value) => format!("{value}"),
        Cell::Text(text) => text,
        Cell::Empty => String::new(),
    }
}

/// Columns collected line by line, in order of first appearance.
#[derive(Default)]
struct JsonTable {
    names: Vec<String>,
    index: HashMap<String, usize>,
    columns: Vec<JsonColumn>,
    origins: Origins,
}

fn read_json_lines(source: &str, stream: impl Read) -> Result<Dataset> {
    let mut stream = std::io::BufReader::new(stream);
    let mut table = JsonTable::default();
    let mut raw_line = Vec::new();
    for index in 0.. {
        raw_line.clear();
        let read = stream
            .read_until(b'\n', &mut raw_line)
            .map_err(|error| Error::Io {
                path: source.to_string(),
                source: error,
            })?;
        if read == 0 {
            break;
        }
        let origin = RowOrigin {
            row: table.origins.len() + 1,
            line: Some(index + 1),
        };
        let line = raw_line.strip_suffix(b"\n").unwrap_or(&raw_line);
        let text = decode_line(source, line, origin)?;
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
            if self.columns[column].len() > rows_before {
                return Err(data_error(
                    row_location(source, origin, Some(&self.names[column])),
                    "the key appears twice on this line",
                    "give every key on a line a distinct name",
                ));
            }
            self.columns[column].push(cell);
        }
        for column in &mut self.columns {
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
        let column = if self.origins.is_empty() {
            JsonColumn::Numeric(Vec::new())
        } else {
            JsonColumn::Text(vec![String::new(); self.origins.len()])
        };
        self.columns.push(column);
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
        let columns = self
            .columns
            .into_iter()
            .map(|column| match column {
                JsonColumn::Numeric(values) => Column::Numeric(values),
                JsonColumn::Text(cells) => Column::Text(cells),
            })
            .collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything a scan holds, for comparing two scans.
    fn state(scan: &Scan) -> String {
        let runs: Vec<(u64, usize)> = scan.runs.iter().map(|r| (r.start, r.breaks)).collect();
        format!(
            "{} {} {:?} {:?} {} {} {} {:?} {}",
            scan.offset,
            scan.counted,
            runs,
            scan.open.map(|r| (r.start, r.breaks)),
            scan.pending_cr,
            scan.quoting as u8,
            scan.field,
            scan.quote.map(|q| (q.field, q.line)),
            scan.ended
        )
    }

    #[test]
    fn scanning_plain_runs_at_once_equals_scanning_byte_by_byte() {
        let alphabet = b"ab1.,;\"\n\r\t ";
        let mut seed: u64 = 7;
        let mut next = |bound: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % bound
        };
        for case in 0..2000 {
            let delimiter = [b',', b';', b'\t'][case % 3];
            let len = next(120);
            let text: Vec<u8> = (0..len).map(|_| alphabet[next(alphabet.len())]).collect();
            let mut whole = Scan {
                delimiter,
                ..Scan::default()
            };
            let mut one = Scan {
                delimiter,
                ..Scan::default()
            };
            let split = next(len + 1);
            whole.bytes(&text[..split]);
            whole.bytes(&text[split..]);
            text.iter().for_each(|&b| one.byte(b));
            assert_eq!(
                state(&whole),
                state(&one),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
            let at = next(len + 1) as u64;
            assert_eq!(whole.line_at(at), one.line_at(at));
        }
    }

    fn stream(text: &str) -> Result<Dataset> {
        read_stream("stdin", text.as_bytes(), None)
    }

    #[test]
    fn a_column_turned_text_keeps_every_cell_as_written() {
        let text = "size,loss\n1.0,2\n 2e0,3\nbig,4\n";
        let path =
            std::env::temp_dir().join(format!("scalinglaws-read-{}.csv", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let from_file = Dataset::read(&path, None).unwrap();
        std::fs::remove_file(&path).unwrap();
        for data in [from_file, stream(text).unwrap()] {
            assert_eq!(data.text("size").unwrap(), ["1.0", " 2e0", "big"]);
            assert_eq!(
                data.column("loss").unwrap(),
                &Column::Numeric(vec![2.0, 3.0, 4.0])
            );
        }
    }

    #[test]
    fn a_cell_that_is_not_utf8_is_named_even_when_the_row_joins_into_utf8() {
        // "é" is C3 A9: split across two cells, the row's bytes read as UTF-8 but neither
        // cell does; a lone C3 is bad in any row.
        for (bytes, column) in [
            (&b"x,y,z\n1,\xC3,\xA9\n"[..], "'y'"),
            (&b"x,y,z\n1,2,\xC3\n"[..], "'z'"),
            (&b"x,y,z\n\xC3\xA9,2,3\n1,\xFF,3\n"[..], "'y'"),
        ] {
            let error = read_stream("stdin", bytes, None).unwrap_err().to_string();
            assert!(error.contains("not valid UTF-8"), "{error}");
            assert!(error.contains(column), "{column}: {error}");
        }
        let data = read_stream("stdin", "x,y\né,1\n".as_bytes(), None).unwrap();
        assert_eq!(data.text("x").unwrap(), ["é"]);
    }

    #[test]
    fn lines_are_counted_past_the_parsers_buffer() {
        let mut text = String::from("x,y\r\n");
        let mut line = 1;
        for row in 0..5000 {
            text.push_str(&format!("{row},\"{row}\r\nmore\"\r\n"));
            line += 2;
            if row % 7 == 0 {
                text.push_str("\r\n\n\r");
                line += 3;
            }
        }
        text.push_str("1,2,3\n");
        line += 1;
        let message = stream(&text).unwrap_err().to_string();
        assert!(
            message.contains(&format!("row 5001 (line {line})")),
            "{message}"
        );
    }

    #[test]
    fn an_unterminated_quote_in_the_header_is_named() {
        let message = stream("x,\"loss\n1,2\n").unwrap_err().to_string();
        assert!(
            message.contains("unterminated quote starting at the header, column 2 (line 1)"),
            "{message}"
        );
        // A closed quote, doubled quotes and a quote inside an unquoted cell are fine.
        let data = stream("x,name\n1,\"a \"\"b\"\"\"\n2,c\"d\n").unwrap();
        assert_eq!(data.text("name").unwrap(), ["a \"b\"", "c\"d"]);
    }

    #[test]
    fn stdin_is_json_lines_when_it_starts_with_a_brace() {
        let data = stream("\n {\"x\": 1, \"loss\": 2}\n{\"x\": 2}\n").unwrap();
        assert_eq!(data.column("x").unwrap(), &Column::Numeric(vec![1.0, 2.0]));
        assert_eq!(data.text("loss").unwrap(), ["2", ""]);
    }
}
