//! Parquet files written by the tests themselves (with the parquet crate's own writer), so
//! that no binary fixture is committed: a schema in Parquet's message syntax and one list of
//! cells per column (None: a null), split into row groups. Compiled by the library's and the
//! command line's tests (the latter through `#[path]`).
#![allow(dead_code)]

use parquet::basic::{Compression, LogicalType, Repetition, Type as PhysicalType};
use parquet::data_type::{
    BoolType, ByteArray, ByteArrayType, DataType, DoubleType, FixedLenByteArray,
    FixedLenByteArrayType, FloatType, Int32Type, Int64Type,
};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::Type;
use std::path::Path;
use std::sync::Arc;

/// One column's cells, as the physical type stores them.
#[derive(Clone)]
pub enum Cells {
    F64(Vec<Option<f64>>),
    F32(Vec<Option<f32>>),
    I32(Vec<Option<i32>>),
    I64(Vec<Option<i64>>),
    Bool(Vec<Option<bool>>),
    Bytes(Vec<Option<Vec<u8>>>),
    Fixed(Vec<Option<Vec<u8>>>),
    /// A list column (`optional group NAME (LIST) { repeated group list { optional binary
    /// element; } }`) with this many rows, each a null list.
    NullLists(usize),
}

impl Cells {
    fn len(&self) -> usize {
        match self {
            Cells::F64(v) => v.len(),
            Cells::F32(v) => v.len(),
            Cells::I32(v) => v.len(),
            Cells::I64(v) => v.len(),
            Cells::Bool(v) => v.len(),
            Cells::Bytes(v) => v.len(),
            Cells::Fixed(v) => v.len(),
            Cells::NullLists(n) => *n,
        }
    }

    fn has_null(&self) -> bool {
        match self {
            Cells::F64(v) => v.iter().any(Option::is_none),
            Cells::F32(v) => v.iter().any(Option::is_none),
            Cells::I32(v) => v.iter().any(Option::is_none),
            Cells::I64(v) => v.iter().any(Option::is_none),
            Cells::Bool(v) => v.iter().any(Option::is_none),
            Cells::Bytes(v) | Cells::Fixed(v) => v.iter().any(Option::is_none),
            Cells::NullLists(_) => true,
        }
    }

    /// Text cells (UTF-8 strings).
    pub fn text(cells: &[&str]) -> Cells {
        Cells::Bytes(cells.iter().map(|c| Some(c.as_bytes().to_vec())).collect())
    }

    pub fn numbers(values: &[f64]) -> Cells {
        Cells::F64(values.iter().map(|&v| Some(v)).collect())
    }
}

/// Writes `columns` under `schema` to `path`, `group_rows` rows per row group.
pub fn write(
    path: &Path,
    schema: &str,
    columns: &[Cells],
    group_rows: usize,
    compression: Compression,
) {
    let schema = parse_message_type(schema).expect("a valid schema");
    write_schema(path, schema, columns, group_rows, compression);
}

/// Writes flat named columns (any names, spaces included): doubles, floats, integers,
/// booleans, and bytes as UTF-8 strings; a column with a null is optional.
pub fn write_named(path: &Path, columns: &[(&str, Cells)], group_rows: usize) {
    let fields = columns
        .iter()
        .map(|(name, cells)| {
            let (physical, text) = match cells {
                Cells::F64(_) => (PhysicalType::DOUBLE, false),
                Cells::F32(_) => (PhysicalType::FLOAT, false),
                Cells::I32(_) => (PhysicalType::INT32, false),
                Cells::I64(_) => (PhysicalType::INT64, false),
                Cells::Bool(_) => (PhysicalType::BOOLEAN, false),
                Cells::Bytes(_) => (PhysicalType::BYTE_ARRAY, true),
                Cells::Fixed(_) | Cells::NullLists(_) => panic!("use write with a schema"),
            };
            let repetition = if cells.has_null() {
                Repetition::OPTIONAL
            } else {
                Repetition::REQUIRED
            };
            let mut field =
                Type::primitive_type_builder(name, physical).with_repetition(repetition);
            if text {
                field = field.with_logical_type(Some(LogicalType::String));
            }
            Arc::new(field.build().unwrap())
        })
        .collect();
    let schema = Type::group_type_builder("table")
        .with_fields(fields)
        .build()
        .unwrap();
    let cells: Vec<Cells> = columns.iter().map(|(_, c)| c.clone()).collect();
    write_schema(path, schema, &cells, group_rows, Compression::SNAPPY);
}

fn write_schema(
    path: &Path,
    schema: Type,
    columns: &[Cells],
    group_rows: usize,
    compression: Compression,
) {
    let schema = Arc::new(schema);
    let properties = Arc::new(
        WriterProperties::builder()
            .set_compression(compression)
            .build(),
    );
    let file = std::fs::File::create(path).unwrap();
    let mut writer = SerializedFileWriter::new(file, schema, properties).unwrap();
    let rows = columns.first().map_or(0, Cells::len);
    let mut start = 0;
    while start < rows || (rows == 0 && start == 0) {
        let end = (start + group_rows.max(1)).min(rows);
        let mut group = writer.next_row_group().unwrap();
        let mut index = 0;
        while let Some(mut column) = group.next_column().unwrap() {
            match &columns[index] {
                Cells::F64(v) => put::<DoubleType, _>(&mut column, &v[start..end], |&x| x),
                Cells::F32(v) => put::<FloatType, _>(&mut column, &v[start..end], |&x| x),
                Cells::I32(v) => put::<Int32Type, _>(&mut column, &v[start..end], |&x| x),
                Cells::I64(v) => put::<Int64Type, _>(&mut column, &v[start..end], |&x| x),
                Cells::Bool(v) => put::<BoolType, _>(&mut column, &v[start..end], |&x| x),
                Cells::Bytes(v) => put::<ByteArrayType, _>(&mut column, &v[start..end], |x| {
                    ByteArray::from(x.clone())
                }),
                Cells::Fixed(v) => {
                    put::<FixedLenByteArrayType, _>(&mut column, &v[start..end], |x| {
                        FixedLenByteArray::from(x.clone())
                    })
                }
                Cells::NullLists(_) => {
                    let levels = vec![0i16; end - start];
                    column
                        .typed::<ByteArrayType>()
                        .write_batch(&[], Some(&levels), Some(&levels))
                        .unwrap();
                }
            }
            column.close().unwrap();
            index += 1;
        }
        group.close().unwrap();
        if end >= rows {
            break;
        }
        start = end;
    }
    writer.close().unwrap();
}

/// Writes one column chunk: the present cells as values, and a definition level per row
/// when the column is optional.
fn put<T: DataType, C>(
    column: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    cells: &[Option<C>],
    value: impl Fn(&C) -> T::T,
) {
    let writer = column.typed::<T>();
    let optional = writer.get_descriptor().max_def_level() > 0;
    let values: Vec<T::T> = cells.iter().flatten().map(value).collect();
    let levels: Vec<i16> = cells.iter().map(|c| i16::from(c.is_some())).collect();
    writer
        .write_batch(&values, optional.then_some(&levels[..]), None)
        .unwrap();
}
