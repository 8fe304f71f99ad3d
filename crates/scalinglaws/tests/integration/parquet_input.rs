//! Parquet as data (issue 51, item 5): every flat type a writer uses reads as its CSV export
//! would (numbers as numbers, a null as an empty cell), every check of the dataset says the
//! same about a Parquet file as about the same table in CSV (the file named, the 1-based data
//! row counted across row groups, the column), and a nested, damaged or cut-short file is an
//! error naming the file (and the column when the schema is there to say it).

use std::path::{Path, PathBuf};

use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use scalinglaws::data::{Column, Dataset};

use crate::common::parquet_writer::{write, Cells};

fn dir() -> tempfile_dir::Dir {
    tempfile_dir::Dir::new()
}

/// A private temporary directory, removed on drop (no tempfile crate in this package).
mod tempfile_dir {
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub struct Dir(PathBuf);

    impl Dir {
        pub fn new() -> Dir {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let path = std::env::temp_dir().join(format!(
                "scalinglaws-parquet-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&path).unwrap();
            Dir(path)
        }

        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A message with the file's name and its CSV line numbers left out, for comparing what the
/// dataset says about the same table read from CSV and from Parquet.
fn neutral(message: &str, file: &Path) -> String {
    let mut text = message.replace(&file.display().to_string(), "FILE");
    while let Some(start) = text.find(" (line ") {
        let end = text[start..]
            .find(')')
            .map_or(text.len(), |e| start + e + 1);
        text.replace_range(start..end, "");
    }
    text
}

/// A table of runs with a text column, a null loss in row 3, NaN in `bad` row 2 and text in
/// `mixed` row 4, in CSV and Parquet (two rows per row group).
fn runs_in_both(dir: &Path) -> (PathBuf, PathBuf) {
    let csv = dir.join("runs.csv");
    std::fs::write(
        &csv,
        "name,N,loss,bad,mixed,neg\n\
         a,1000000,3.5,1,1,1\n\
         b,2000000,3.2,NaN,2,2\n\
         c,4000000,,3,3,-3\n\
         d,8000000,2.9,4,x,4\n\
         e,16000000,2.8,5,5,5\n",
    )
    .unwrap();
    let parquet = dir.join("runs.parquet");
    write(
        &parquet,
        "message runs { required binary name (UTF8); required int64 N; optional double loss; \
         required double bad; required binary mixed (UTF8); required int32 neg; }",
        &[
            Cells::text(&["a", "b", "c", "d", "e"]),
            Cells::I64(
                [1e6, 2e6, 4e6, 8e6, 16e6]
                    .iter()
                    .map(|&v| Some(v as i64))
                    .collect(),
            ),
            Cells::F64(vec![Some(3.5), Some(3.2), None, Some(2.9), Some(2.8)]),
            Cells::numbers(&[1.0, f64::NAN, 3.0, 4.0, 5.0]),
            Cells::text(&["1", "2", "3", "x", "5"]),
            Cells::I32(vec![Some(1), Some(2), Some(-3), Some(4), Some(5)]),
        ],
        2,
        Compression::SNAPPY,
    );
    (csv, parquet)
}

#[test]
fn every_check_says_the_same_of_parquet_as_of_csv() {
    let dir = dir();
    let (csv_path, parquet_path) = runs_in_both(dir.path());
    let csv = Dataset::read(&csv_path, None).unwrap();
    let parquet = Dataset::read(&parquet_path, None).unwrap();
    assert_eq!(csv.column_names(), parquet.column_names());
    assert_eq!(parquet.n_rows(), 5);
    let mut errors = 0;
    for name in ["name", "N", "loss", "bad", "mixed", "neg", "Loss"] {
        let checks: [(&str, fn(&Dataset, &str) -> String); 5] = [
            ("numeric", |d, n| {
                format!("{:?}", d.numeric(n).map_err(|e| e.to_string()))
            }),
            ("missing", |d, n| {
                format!("{:?}", d.numeric_or_missing(n).map_err(|e| e.to_string()))
            }),
            ("finite", |d, n| {
                format!("{:?}", d.finite(n).map_err(|e| e.to_string()))
            }),
            ("positive", |d, n| {
                format!(
                    "{:?}",
                    d.positive(n, "the law takes log(N)")
                        .map_err(|e| e.to_string())
                )
            }),
            ("text", |d, n| {
                format!("{:?}", d.text(n).map_err(|e| e.to_string()))
            }),
        ];
        for (check, run) in checks {
            let from_csv = neutral(&run(&csv, name), &csv_path);
            let from_parquet = neutral(&run(&parquet, name), &parquet_path);
            assert_eq!(from_csv, from_parquet, "{check}({name})");
            errors += usize::from(from_csv.starts_with("Err"));
        }
    }
    // The table's faults are found: name and mixed are not numbers, loss has an empty cell,
    // bad a NaN, neg a negative, Loss is missing.
    assert!(errors >= 12, "{errors} errors");
    let message = parquet.numeric("loss").unwrap_err().to_string();
    assert!(
        message.contains("runs.parquet, row 3, column 'loss'"),
        "{message}"
    );
    // Rows are counted across row groups (two rows each): row 4 is the second group's second.
    let message = parquet.numeric("mixed").unwrap_err().to_string();
    assert!(
        message.contains("runs.parquet, row 4, column 'mixed'"),
        "{message}"
    );
}

#[test]
fn integers_decimals_booleans_dates_and_text_read_as_their_csv_export() {
    let dir = dir();
    let path = dir.path().join("types.parquet");
    let uuid: Vec<u8> = (0u8..16).collect();
    write(
        &path,
        "message t { required int32 i32; required int64 i64; required int32 u32 (INTEGER(32, \
         false)); required int64 u64 (INTEGER(64, false)); required int32 d2 (DECIMAL(9, 2)); \
         required fixed_len_byte_array(4) dbytes (DECIMAL(9, 3)); required float f32; \
         required boolean flag; required int32 day (DATE); required int64 at (TIMESTAMP(MILLIS, \
         true)); required fixed_len_byte_array(16) id (UUID); required binary raw; }",
        &[
            Cells::I32(vec![Some(-7), Some(7)]),
            Cells::I64(vec![Some(1 << 40), Some(-1)]),
            Cells::I32(vec![Some(-1), Some(5)]),
            Cells::I64(vec![Some(-1), Some(5)]),
            Cells::I32(vec![Some(12345), Some(-5)]),
            Cells::Fixed(vec![
                Some(vec![0, 0, 0x30, 0x39]),
                Some(vec![0xFF, 0xFF, 0xFF, 0xFF]),
            ]),
            Cells::F32(vec![Some(0.5), Some(2.25)]),
            Cells::Bool(vec![Some(true), Some(false)]),
            Cells::I32(vec![Some(19_723), Some(0)]),
            Cells::I64(vec![Some(1_704_067_200_500), Some(0)]),
            Cells::Fixed(vec![Some(uuid.clone()), Some(uuid)]),
            Cells::text(&["x", "2.5"]),
        ],
        10,
        Compression::UNCOMPRESSED,
    );
    let data = Dataset::read(&path, None).unwrap();
    let numbers = |name: &str| data.numeric(name).unwrap();
    assert_eq!(numbers("i32"), [-7.0, 7.0]);
    assert_eq!(numbers("i64"), [(1u64 << 40) as f64, -1.0]);
    assert_eq!(numbers("u32"), [4_294_967_295.0, 5.0]);
    assert_eq!(numbers("u64"), [18_446_744_073_709_551_615.0, 5.0]);
    let close = |got: Vec<f64>, want: [f64; 2]| {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() <= 1e-12 * w.abs(), "{got:?} vs {want:?}");
        }
    };
    close(numbers("d2"), [123.45, -0.05]);
    close(numbers("dbytes"), [12.345, -0.001]);
    assert_eq!(numbers("f32"), [0.5, 2.25]);
    assert!(matches!(data.column("i32").unwrap(), Column::Numeric(_)));
    assert_eq!(data.text("flag").unwrap(), ["true", "false"]);
    assert_eq!(data.text("day").unwrap(), ["2024-01-01", "1970-01-01"]);
    assert_eq!(
        data.text("at").unwrap(),
        ["2024-01-01T00:00:00.500", "1970-01-01T00:00:00"]
    );
    assert_eq!(
        data.text("id").unwrap()[0],
        "00010203-0405-0607-0809-0a0b0c0d0e0f"
    );
    // Text that holds a number is read as one when asked, as a CSV cell is.
    assert_eq!(data.text("raw").unwrap(), ["x", "2.5"]);
    let message = data.numeric("raw").unwrap_err().to_string();
    assert!(message.contains("row 1, column 'raw'"), "{message}");
    // A date asked for as a number says what it holds.
    let message = data.numeric("day").unwrap_err().to_string();
    assert!(
        message.contains("row 1, column 'day'") && message.contains("2024-01-01"),
        "{message}"
    );
}

#[test]
fn every_codec_a_common_writer_uses_is_read() {
    let dir = dir();
    let codecs = [
        ("none", Compression::UNCOMPRESSED),
        ("snappy", Compression::SNAPPY),
        ("zstd", Compression::ZSTD(ZstdLevel::default())),
        ("gzip", Compression::GZIP(GzipLevel::default())),
        ("lz4", Compression::LZ4_RAW),
        ("lz4-hadoop", Compression::LZ4),
    ];
    let values: Vec<f64> = (0..5000).map(|i| 1.0 + f64::from(i) * 0.25).collect();
    for (name, codec) in codecs {
        let path = dir.path().join(format!("{name}.parquet"));
        write(
            &path,
            "message t { required double x; optional binary label (UTF8); }",
            &[
                Cells::numbers(&values),
                Cells::Bytes(
                    (0..5000)
                        .map(|i| (i % 3 != 0).then(|| b"r".to_vec()))
                        .collect(),
                ),
            ],
            1500,
            codec,
        );
        let data = Dataset::read(&path, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(data.numeric("x").unwrap(), values, "{name}");
        let labels = data.text("label").unwrap();
        assert_eq!(labels[..4], ["", "r", "r", ""], "{name}");
    }
}

#[test]
fn a_nested_column_is_refused_by_name() {
    let dir = dir();
    let path = dir.path().join("nested.parquet");
    write(
        &path,
        "message t { required double loss; optional group tags (LIST) { repeated group list { \
         optional binary element (UTF8); } } }",
        &[Cells::numbers(&[1.0, 2.0]), Cells::NullLists(2)],
        10,
        Compression::SNAPPY,
    );
    let message = Dataset::read(&path, None).unwrap_err().to_string();
    assert!(
        message.contains("nested.parquet, column 'tags': the column is nested (a list)"),
        "{message}"
    );
    assert!(message.contains("flatten 'tags'"), "{message}");
    let path = dir.path().join("struct.parquet");
    write(
        &path,
        "message t { required double loss; required group run { required double lr; } }",
        &[Cells::numbers(&[1.0]), Cells::numbers(&[0.1])],
        10,
        Compression::SNAPPY,
    );
    let message = Dataset::read(&path, None).unwrap_err().to_string();
    assert!(
        message.contains("column 'run': the column is nested (a struct)"),
        "{message}"
    );
}

#[test]
fn a_cut_short_or_damaged_file_is_an_error_naming_the_file() {
    let dir = dir();
    let path = dir.path().join("whole.parquet");
    let values: Vec<f64> = (0..20_000).map(f64::from).collect();
    write(
        &path,
        "message t { required double x; required double loss; }",
        &[Cells::numbers(&values), Cells::numbers(&values)],
        20_000,
        Compression::UNCOMPRESSED,
    );
    let bytes = std::fs::read(&path).unwrap();
    for keep in [0, 3, 4, 8, 100, bytes.len() / 2, bytes.len() - 1] {
        let cut = dir.path().join("cut.parquet");
        std::fs::write(&cut, &bytes[..keep]).unwrap();
        let message = Dataset::read(&cut, None).unwrap_err().to_string();
        assert!(
            message.starts_with(&cut.display().to_string()),
            "{keep}: {message}"
        );
        assert!(message.contains("Parquet"), "{keep}: {message}");
    }
    // The footer kept and the second column's pages overwritten: the column is named.
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let metadata = SerializedFileReader::new(bytes::Bytes::from(bytes.clone()))
        .unwrap()
        .metadata()
        .clone();
    let (start, _) = metadata.row_group(0).column(1).byte_range();
    let mut damaged = bytes.clone();
    let start = start as usize;
    damaged[start..start + 64].fill(0xFF);
    let path = dir.path().join("damaged.parquet");
    std::fs::write(&path, &damaged).unwrap();
    let message = Dataset::read(&path, None).unwrap_err().to_string();
    assert!(
        message.contains("damaged.parquet, column 'loss'"),
        "{message}"
    );
    assert!(message.contains("row group 1"), "{message}");
}

#[test]
fn parquet_is_told_by_its_first_bytes_in_a_file_of_any_name_and_on_a_stream() {
    let dir = dir();
    let path = dir.path().join("runs.data");
    write(
        &path,
        "message t { required double N; required double loss; }",
        &[Cells::numbers(&[1.0, 2.0]), Cells::numbers(&[3.0, 4.0])],
        10,
        Compression::SNAPPY,
    );
    let data = Dataset::read(&path, None).unwrap();
    assert_eq!(data.numeric("loss").unwrap(), [3.0, 4.0]);
    let bytes = std::fs::read(&path).unwrap();
    let data = Dataset::read_stream("stdin", &bytes[..], None).unwrap();
    assert_eq!(data.numeric("N").unwrap(), [1.0, 2.0]);
    let message = Dataset::read_stream("stdin", &bytes[..bytes.len() - 8], None)
        .unwrap_err()
        .to_string();
    assert!(
        message.starts_with("stdin: cannot read the file as Parquet"),
        "{message}"
    );
    // An empty table is refused as an empty CSV is.
    let path = dir.path().join("empty.parquet");
    write(
        &path,
        "message t { required double loss; }",
        &[Cells::numbers(&[])],
        10,
        Compression::SNAPPY,
    );
    let message = Dataset::read(&path, None).unwrap_err().to_string();
    assert!(message.contains("no data rows"), "{message}");
}
