//! Reading a Parquet file into a `Dataset`, so that a table written by pandas, polars, pyarrow,
//! DuckDB or Spark is read as its CSV export would be: numbers stay numbers (integers and
//! decimals read as numbers), a null is a missing value as an empty CSV cell is (the column is
//! then kept as text, each number as it prints, and `Dataset::numeric` names the null's row),
//! text, booleans, dates and times are text. The checks that follow (a cell that is not a
//! number, NaN, a missing column) are the dataset's own, so their messages are the same as
//! CSV's, with the 1-based data row counted across row groups (a Parquet file has no lines).
//!
//! Only flat tables are read: a nested column (a list, map or struct) is refused naming it, as
//! is a damaged file (the column and row group whose pages fail, or the file when its footer
//! does). The file is read whole into memory first, so every offset its metadata claims is
//! checked against the bytes there (a claimed length never becomes an allocation), and values
//! are decoded in batches of [`BATCH`] rows, so a claimed row count is never allocated either.
//!
//! The format: <https://parquet.apache.org/docs/file-format/> (logical types:
//! `LogicalTypes.md` of apache/parquet-format); the decoder is the `parquet` crate of
//! apache/arrow-rs, its column readers only (no Arrow arrays).

use super::{count, data_error, file_location, Column, Dataset, Origins};
use crate::error::{Error, Location, Result};
use bytes::Bytes;
use parquet::basic::{ConvertedType, LogicalType, Repetition, TimeUnit, Type as Physical};
use parquet::column::reader::{ColumnReader, ColumnReaderImpl};
use parquet::data_type::{ByteArray, DataType, FixedLenByteArray, Int96};
use parquet::errors::ParquetError;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::Type;
use std::collections::HashMap;

/// Rows decoded at a time per column.
const BATCH: usize = 64 * 1024;

const REWRITE: &str = "the file is damaged or cut short; write it again (e.g. with pandas' \
                       DataFrame.to_parquet or polars' write_parquet)";

/// Reads the Parquet file held in `bytes`; `source` names it in messages.
pub(super) fn read_parquet(source: &str, bytes: Bytes) -> Result<Dataset> {
    let reader = SerializedFileReader::new(bytes).map_err(|error| not_parquet(source, &error))?;
    let metadata = reader.metadata();
    let schema = metadata.file_metadata().schema_descr();
    let fields = schema.root_schema().get_fields();
    let names = column_names(source, fields)?;
    let mut columns: Vec<Builder> = fields
        .iter()
        .map(|field| Builder::new(source, field))
        .collect::<Result<_>>()?;
    let mut rows = 0usize;
    for group_index in 0..reader.num_row_groups() {
        let group = reader
            .get_row_group(group_index)
            .map_err(|error| broken(source, None, group_index, &error))?;
        let claimed = group.metadata().num_rows();
        let group_rows = usize::try_from(claimed).map_err(|_| {
            let message = format!("row group {} claims {claimed} rows", group_index + 1);
            data_error(file_location(source, None), message, REWRITE)
        })?;
        if group.num_columns() != columns.len() {
            return Err(broken_text(
                source,
                None,
                group_index,
                "the row group's columns are not the schema's",
            ));
        }
        for (index, column) in columns.iter_mut().enumerate() {
            let place = Place {
                source,
                name: &names[index],
                group: group_index,
                first_row: rows,
            };
            let chunk = group
                .get_column_reader(index)
                .map_err(|error| place.broken(&error))?;
            let max_def = schema.column(index).max_def_level();
            let read = column.read(chunk, group_rows, max_def, &place)?;
            if read != group_rows {
                let message = format!(
                    "row group {} has {} but its column holds {}",
                    group_index + 1,
                    count(group_rows, "row"),
                    count(read, "value")
                );
                return Err(data_error(
                    file_location(source, Some(&names[index])),
                    message,
                    REWRITE,
                ));
            }
        }
        rows += group_rows;
    }
    finish(source, names, columns, rows)
}

fn finish(source: &str, names: Vec<String>, columns: Vec<Builder>, rows: usize) -> Result<Dataset> {
    if names.is_empty() {
        return Err(data_error(
            file_location(source, None),
            "no columns: the Parquet schema is empty",
            "write the table with its columns",
        ));
    }
    if rows == 0 {
        return Err(data_error(
            file_location(source, None),
            "no data rows: the Parquet file has columns but no rows",
            "add at least one data row",
        ));
    }
    let columns = columns.into_iter().map(|column| column.values).collect();
    Ok(Dataset::from_parts(
        source.to_string(),
        names,
        columns,
        Origins::in_memory(rows),
    ))
}

/// The top-level fields' names, each a plain (not repeated, not nested) column, non-empty and
/// distinct: what a CSV header must be.
fn column_names(source: &str, fields: &[std::sync::Arc<Type>]) -> Result<Vec<String>> {
    let mut names = Vec::with_capacity(fields.len());
    let mut first_index: HashMap<&str, usize> = HashMap::new();
    for (index, field) in fields.iter().enumerate() {
        let name = field.name();
        let number = index + 1;
        if name.trim().is_empty() {
            return Err(data_error(
                file_location(source, None),
                format!("column {number} of the Parquet schema has no name"),
                "name every column",
            ));
        }
        if let Some(first) = first_index.insert(name, index) {
            return Err(data_error(
                file_location(source, None),
                format!(
                    "the Parquet schema names '{}' twice, as columns {} and {number}",
                    crate::error::clipped(name, false),
                    first + 1
                ),
                "give every column a distinct name",
            ));
        }
        check_flat(source, field)?;
        names.push(name.trim().to_string());
    }
    Ok(names)
}

/// A nested column (a group: struct, list or map; or a repeated value) is refused by name.
fn check_flat(source: &str, field: &Type) -> Result<()> {
    let info = field.get_basic_info();
    let repeated = info.has_repetition() && info.repetition() == Repetition::REPEATED;
    if field.is_primitive() && !repeated {
        return Ok(());
    }
    let kind = match (info.logical_type_ref(), info.converted_type()) {
        (Some(LogicalType::List), _) | (_, ConvertedType::LIST) => "a list",
        (Some(LogicalType::Map), _) | (_, ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE) => {
            "a map"
        }
        _ if repeated => "a repeated value (a list)",
        _ => "a struct",
    };
    Err(data_error(
        file_location(source, Some(field.name())),
        format!("the column is nested ({kind}); only flat columns of plain values are read"),
        format!(
            "flatten '{}' into separate columns of numbers or text before writing the file \
             (e.g. pandas' json_normalize, or polars' unnest and explode)",
            field.name()
        ),
    ))
}

/// How a column's stored values become cells.
#[derive(Clone, Copy)]
enum Kind {
    /// Signed integers or floats, divided by 10^scale (decimals; 0 otherwise).
    Number {
        scale: i32,
    },
    /// Unsigned integers stored in INT32 or INT64.
    Unsigned,
    Bool,
    Text,
    Date,
    /// Since midnight, in units of a second's 1/`per_second`.
    Time {
        per_second: i64,
    },
    /// Since 1970-01-01T00:00, in units of a second's 1/`per_second`.
    Timestamp {
        per_second: i64,
    },
    /// A decimal stored as big-endian two's complement bytes.
    DecimalBytes {
        scale: i32,
    },
    /// 16 bytes, printed as 8-4-4-4-12 hexadecimal digits.
    Uuid,
}

fn kind_of(source: &str, field: &Type) -> Result<Kind> {
    let info = field.get_basic_info();
    let physical = field.get_physical_type();
    let per_second = |unit: &TimeUnit| match unit {
        TimeUnit::MILLIS => 1_000,
        TimeUnit::MICROS => 1_000_000,
        TimeUnit::NANOS => 1_000_000_000,
    };
    let kind = match (info.logical_type_ref(), info.converted_type(), physical) {
        (_, _, Physical::BOOLEAN) => Some(Kind::Bool),
        (Some(LogicalType::Decimal(decimal)), _, Physical::INT32 | Physical::INT64) => {
            Some(Kind::Number {
                scale: decimal.scale,
            })
        }
        (Some(LogicalType::Decimal(decimal)), _, _) => Some(Kind::DecimalBytes {
            scale: decimal.scale,
        }),
        (None, ConvertedType::DECIMAL, Physical::INT32 | Physical::INT64) => Some(Kind::Number {
            scale: field.get_scale(),
        }),
        (None, ConvertedType::DECIMAL, _) => Some(Kind::DecimalBytes {
            scale: field.get_scale(),
        }),
        (Some(LogicalType::Date), ..) | (None, ConvertedType::DATE, _) => Some(Kind::Date),
        (Some(LogicalType::Time(time)), ..) => Some(Kind::Time {
            per_second: per_second(&time.unit),
        }),
        (Some(LogicalType::Timestamp(time)), ..) => Some(Kind::Timestamp {
            per_second: per_second(&time.unit),
        }),
        (None, ConvertedType::TIME_MILLIS, _) => Some(Kind::Time { per_second: 1_000 }),
        (None, ConvertedType::TIME_MICROS, _) => Some(Kind::Time {
            per_second: 1_000_000,
        }),
        (None, ConvertedType::TIMESTAMP_MILLIS, _) => Some(Kind::Timestamp { per_second: 1_000 }),
        (None, ConvertedType::TIMESTAMP_MICROS, _) => Some(Kind::Timestamp {
            per_second: 1_000_000,
        }),
        (_, _, Physical::INT96) => Some(Kind::Timestamp {
            per_second: 1_000_000_000,
        }),
        (Some(LogicalType::Integer(int)), _, _) if !int.is_signed => Some(Kind::Unsigned),
        (None, ConvertedType::UINT_8 | ConvertedType::UINT_16 | ConvertedType::UINT_32, _)
        | (None, ConvertedType::UINT_64, _) => Some(Kind::Unsigned),
        (_, _, Physical::INT32 | Physical::INT64 | Physical::FLOAT | Physical::DOUBLE) => {
            Some(Kind::Number { scale: 0 })
        }
        (Some(LogicalType::Uuid), _, Physical::FIXED_LEN_BYTE_ARRAY) => Some(Kind::Uuid),
        (
            None | Some(LogicalType::String | LogicalType::Enum | LogicalType::Json),
            _,
            Physical::BYTE_ARRAY,
        ) => Some(Kind::Text),
        _ => None,
    };
    kind.ok_or_else(|| {
        let what = match info.logical_type_ref() {
            Some(logical) => format!("{logical:?}"),
            None => format!("{physical}"),
        };
        let what: String = what.chars().take(40).collect();
        data_error(
            file_location(source, Some(field.name())),
            format!("the column's Parquet type ({what}) is not read"),
            "store it as numbers (integers or floats) or as text (strings)",
        )
    })
}

/// Where values are being read, for messages.
struct Place<'a> {
    source: &'a str,
    name: &'a str,
    group: usize,
    /// Data rows in the row groups before this one.
    first_row: usize,
}

impl Place<'_> {
    fn broken(&self, error: &ParquetError) -> Error {
        broken(self.source, Some(self.name), self.group, error)
    }

    /// A cell's location: `row` is 0-based within the row group.
    fn cell(&self, row: usize) -> Location {
        Location {
            file: self.source.to_string(),
            row: Some(self.first_row + row + 1),
            line: None,
            column: Some(self.name.to_string()),
        }
    }
}

/// The kinds an INT32 or INT64 column is read as.
macro_rules! integer_kinds {
    () => {
        Kind::Number { .. }
            | Kind::Unsigned
            | Kind::Date
            | Kind::Time { .. }
            | Kind::Timestamp { .. }
    };
}

/// The kinds a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY column is read as.
macro_rules! byte_kinds {
    () => {
        Kind::Text | Kind::Uuid | Kind::DecimalBytes { .. }
    };
}

/// A column while it is read: numbers until the first null (then text from the start, each
/// number as it prints and each null empty, as JSON Lines' columns turn), or text.
struct Builder {
    kind: Kind,
    values: Column,
}

impl Builder {
    fn new(source: &str, field: &Type) -> Result<Builder> {
        let kind = kind_of(source, field)?;
        let values = match kind {
            Kind::Number { .. } | Kind::Unsigned | Kind::DecimalBytes { .. } => {
                Column::Numeric(Vec::new())
            }
            _ => Column::Text(Vec::new()),
        };
        Ok(Builder { kind, values })
    }

    fn push_number(&mut self, value: Option<f64>) {
        match (&mut self.values, value) {
            (Column::Numeric(values), Some(value)) => values.push(value),
            (Column::Text(cells), value) => cells.push(value.map_or_else(String::new, number_text)),
            (Column::Numeric(values), None) => {
                let mut cells: Vec<String> = values.iter().map(|&v| number_text(v)).collect();
                cells.push(String::new());
                self.values = Column::Text(cells);
            }
        }
    }

    fn push_text(&mut self, cell: Option<String>) {
        if let Column::Text(cells) = &mut self.values {
            cells.push(cell.unwrap_or_default());
        }
    }

    /// Reads up to `rows` rows of one row group's column chunk; the rows read.
    fn read(
        &mut self,
        chunk: ColumnReader,
        rows: usize,
        max_def: i16,
        place: &Place,
    ) -> Result<usize> {
        let kind = self.kind;
        let mismatch = || {
            broken_text(
                place.source,
                Some(place.name),
                place.group,
                "the column's pages are not of its schema's type",
            )
        };
        match (chunk, kind) {
            (ColumnReader::BoolColumnReader(reader), Kind::Bool) => {
                each_value(reader, rows, max_def, place, |_, value| {
                    self.push_text(value.map(|flag| flag.to_string()));
                    Ok(())
                })
            }
            (ColumnReader::Int32ColumnReader(reader), integer_kinds!()) => {
                each_value(reader, rows, max_def, place, |_, value| {
                    self.push_integer(value.map(|&v| i64::from(v)), 32);
                    Ok(())
                })
            }
            (ColumnReader::Int64ColumnReader(reader), integer_kinds!()) => {
                each_value(reader, rows, max_def, place, |_, value| {
                    self.push_integer(value.copied(), 64);
                    Ok(())
                })
            }
            (ColumnReader::Int96ColumnReader(reader), Kind::Timestamp { .. }) => {
                each_value(reader, rows, max_def, place, |_, value| {
                    self.push_text(value.map(int96_text));
                    Ok(())
                })
            }
            (ColumnReader::FloatColumnReader(reader), Kind::Number { .. }) => {
                each_value(reader, rows, max_def, place, |_, value| {
                    self.push_number(value.map(|&v| f64::from(v)));
                    Ok(())
                })
            }
            (ColumnReader::DoubleColumnReader(reader), Kind::Number { .. }) => {
                each_value(reader, rows, max_def, place, |_, value| {
                    self.push_number(value.copied());
                    Ok(())
                })
            }
            (ColumnReader::ByteArrayColumnReader(reader), byte_kinds!()) => each_value(
                reader,
                rows,
                max_def,
                place,
                |row, value: Option<&ByteArray>| {
                    self.push_bytes(value.map(ByteArray::data), row, place)
                },
            ),
            (ColumnReader::FixedLenByteArrayColumnReader(reader), byte_kinds!()) => each_value(
                reader,
                rows,
                max_def,
                place,
                |row, value: Option<&FixedLenByteArray>| {
                    self.push_bytes(value.map(|v| v.data()), row, place)
                },
            ),
            _ => Err(mismatch()),
        }
    }

    /// An integer (INT32 or INT64 of `bits`) as the column's kind reads it.
    fn push_integer(&mut self, value: Option<i64>, bits: u32) {
        match self.kind {
            Kind::Number { scale } => {
                self.push_number(value.map(|v| scaled(v as f64, scale)));
            }
            Kind::Unsigned => {
                let unsigned = |v: i64| match bits {
                    32 => f64::from(v as u32),
                    _ => v as u64 as f64,
                };
                self.push_number(value.map(unsigned));
            }
            Kind::Date => self.push_text(value.map(date_text)),
            Kind::Time { per_second } => {
                self.push_text(value.map(|v| time_text(v, per_second)));
            }
            Kind::Timestamp { per_second } => {
                self.push_text(value.map(|v| timestamp_text(v, per_second)));
            }
            Kind::Bool | Kind::Text | Kind::Uuid | Kind::DecimalBytes { .. } => {
                self.push_text(None)
            }
        }
    }

    /// Bytes as text (UTF-8, else an error naming the row) or as a decimal.
    fn push_bytes(&mut self, value: Option<&[u8]>, row: usize, place: &Place) -> Result<()> {
        match (self.kind, value) {
            (Kind::DecimalBytes { scale }, value) => {
                let number = value.map(|bytes| decimal(bytes, row, place)).transpose()?;
                self.push_number(number.map(|v| scaled(v, scale)));
            }
            (_, None) => self.push_text(None),
            (Kind::Uuid, Some(bytes)) => self.push_text(Some(uuid_text(bytes))),
            (_, Some(bytes)) => match std::str::from_utf8(bytes) {
                Ok(text) => self.push_text(Some(text.to_string())),
                Err(error) => {
                    return Err(data_error(
                        place.cell(row),
                        format!(
                            "the cell is not valid UTF-8 (bad byte at position {})",
                            error.valid_up_to() + 1
                        ),
                        "store the column as UTF-8 strings",
                    ))
                }
            },
        }
        Ok(())
    }
}

/// Calls `each(row, value)` (row 0-based within the group; None for a null) for up to `rows`
/// rows of the chunk, decoding [`BATCH`] rows at a time; the rows read.
fn each_value<T: DataType>(
    mut reader: ColumnReaderImpl<T>,
    rows: usize,
    max_def: i16,
    place: &Place,
    mut each: impl FnMut(usize, Option<&T::T>) -> Result<()>,
) -> Result<usize> {
    let mut levels: Vec<i16> = Vec::new();
    let mut values: Vec<T::T> = Vec::new();
    let mut read = 0;
    while read < rows {
        levels.clear();
        values.clear();
        let want = (rows - read).min(BATCH);
        let (records, n_values, n_levels) = reader
            .read_records(want, Some(&mut levels), None, &mut values)
            .map_err(|error| place.broken(&error))?;
        if records == 0 {
            break;
        }
        if max_def == 0 {
            for (offset, value) in values.iter().take(records).enumerate() {
                each(read + offset, Some(value))?;
            }
        } else {
            let mut present = values.iter().take(n_values);
            for (offset, &level) in levels.iter().take(n_levels).enumerate() {
                let value = if level == max_def {
                    Some(present.next().ok_or_else(|| place.broken(&short()))?)
                } else {
                    None
                };
                each(read + offset, value)?;
            }
        }
        read += records;
    }
    Ok(read)
}

fn short() -> ParquetError {
    ParquetError::General("fewer values than the definition levels say".to_string())
}

fn scaled(value: f64, scale: i32) -> f64 {
    if scale == 0 {
        value
    } else {
        value / 10f64.powi(scale)
    }
}

/// A decimal's unscaled value from big-endian two's complement bytes (at most 16).
fn decimal(bytes: &[u8], row: usize, place: &Place) -> Result<f64> {
    if bytes.is_empty() || bytes.len() > 16 {
        return Err(data_error(
            place.cell(row),
            format!("a decimal of {} is not read", count(bytes.len(), "byte")),
            "store the column as float64",
        ));
    }
    let fill = if bytes[0] & 0x80 != 0 { 0xFF } else { 0 };
    let mut wide = [fill; 16];
    wide[16 - bytes.len()..].copy_from_slice(bytes);
    Ok(i128::from_be_bytes(wide) as f64)
}

fn uuid_text(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(36);
    for (index, byte) in bytes.iter().enumerate() {
        if matches!(index, 4 | 6 | 8 | 10) {
            text.push('-');
        }
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

/// A number as text, as the dataset prints numbers (`{}`: 3.0 is "3").
fn number_text(value: f64) -> String {
    format!("{value}")
}

/// The civil date of a day counted from 1970-01-01 (proleptic Gregorian), after Howard
/// Hinnant's `civil_from_days` (<https://howardhinnant.github.io/date_algorithms.html>).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * shifted_month + 2) / 5 + 1) as u32;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn date_text(days: i64) -> String {
    let (year, month, day) = civil(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// `HH:MM:SS`, with the fraction of a second when there is one.
fn clock_text(seconds_of_day: i64, fraction: i64, per_second: i64) -> String {
    let (hour, minute, second) = (
        seconds_of_day / 3600,
        seconds_of_day / 60 % 60,
        seconds_of_day % 60,
    );
    let mut text = format!("{hour:02}:{minute:02}:{second:02}");
    if fraction != 0 {
        let digits = per_second.ilog10() as usize;
        text.push_str(&format!(".{fraction:0digits$}"));
    }
    text
}

fn time_text(value: i64, per_second: i64) -> String {
    let seconds = value.div_euclid(per_second);
    clock_text(seconds, value.rem_euclid(per_second), per_second)
}

fn timestamp_text(value: i64, per_second: i64) -> String {
    let seconds = value.div_euclid(per_second);
    let clock = clock_text(
        seconds.rem_euclid(86_400),
        value.rem_euclid(per_second),
        per_second,
    );
    format!("{}T{clock}", date_text(seconds.div_euclid(86_400)))
}

/// A legacy INT96 timestamp: nanoseconds of the day, then the Julian day.
fn int96_text(value: &Int96) -> String {
    let [low, high, julian] = match value.data() {
        &[low, high, julian] => [low, high, julian],
        _ => [0, 0, 0],
    };
    const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;
    let nanos = (i64::from(high) << 32) | i64::from(low);
    let days = i64::from(julian) - UNIX_EPOCH_JULIAN_DAY;
    let seconds = nanos.div_euclid(1_000_000_000).rem_euclid(86_400);
    let clock = clock_text(seconds, nanos.rem_euclid(1_000_000_000), 1_000_000_000);
    format!("{}T{clock}", date_text(days))
}

fn not_parquet(source: &str, error: &ParquetError) -> Error {
    data_error(
        file_location(source, None),
        format!("cannot read the file as Parquet ({})", clipped_error(error)),
        REWRITE,
    )
}

fn broken(source: &str, column: Option<&str>, group: usize, error: &ParquetError) -> Error {
    let text = clipped_error(error);
    let fix = if text.contains("not enabled") || text.contains("not supported") {
        "write the file with snappy, zstd, lz4 or gzip compression (or none)"
    } else {
        REWRITE
    };
    data_error(
        file_location(source, column),
        format!("cannot read row group {} ({text})", group + 1),
        fix,
    )
}

fn broken_text(source: &str, column: Option<&str>, group: usize, what: &str) -> Error {
    data_error(
        file_location(source, column),
        format!("cannot read row group {} ({what})", group + 1),
        REWRITE,
    )
}

/// The parquet crate's message, without its "Parquet error: " prefix and at most 200
/// characters (a hostile file's text can be long).
fn clipped_error(error: &ParquetError) -> String {
    let text = error.to_string();
    let text = text.strip_prefix("Parquet error: ").unwrap_or(&text);
    let mut clipped: String = text.chars().take(200).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times_print_as_iso_8601() {
        assert_eq!(date_text(0), "1970-01-01");
        assert_eq!(date_text(19_723), "2024-01-01");
        assert_eq!(date_text(-1), "1969-12-31");
        assert_eq!(date_text(11_016), "2000-02-29");
        assert_eq!(
            timestamp_text(1_704_067_200_500, 1_000),
            "2024-01-01T00:00:00.500"
        );
        assert_eq!(timestamp_text(-1, 1_000_000), "1969-12-31T23:59:59.999999");
        assert_eq!(time_text(3_723_000_000, 1_000_000), "01:02:03");
        // Extreme values print something (no overflow).
        let _ = timestamp_text(i64::MIN, 1_000);
        let _ = date_text(i64::from(i32::MIN));
    }

    #[test]
    fn decimals_read_from_twos_complement_bytes() {
        let place = Place {
            source: "t.parquet",
            name: "d",
            group: 0,
            first_row: 0,
        };
        let value = |bytes: &[u8]| decimal(bytes, 0, &place).unwrap();
        assert_eq!(value(&[0x01, 0x00]), 256.0);
        assert_eq!(value(&[0xFF]), -1.0);
        assert_eq!(value(&[0xFF, 0x00]), -256.0);
        assert!(decimal(&[0; 17], 0, &place).is_err());
    }
}
