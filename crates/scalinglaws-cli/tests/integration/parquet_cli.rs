//! Parquet through the command line (issue 51, item 5): the README's Chinchilla fit read from
//! the same table written as Parquet prints the same report, byte for byte; a Parquet file is
//! told by its extension, by its first bytes (any name) and on standard input; and a file with
//! a nested column, a column of the wrong type, a null, or cut short exits 2 naming the file
//! and the column (the footer, which holds the schema, is what a cut-short file loses, so that
//! one names the file).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use parquet::basic::Compression;
use scalinglaws::data::{Column, Dataset};

use crate::common::parquet_writer::{write, write_named, Cells};
use crate::common::{fails, root, scalinglaws, CHINCHILLA};

/// The bundled Chinchilla table written to `path` as Parquet (numbers as doubles, text as
/// strings; `group_rows` rows a row group).
fn chinchilla_parquet(path: &Path, group_rows: usize) {
    let csv = Dataset::read(&root().join(CHINCHILLA[1]), None).unwrap();
    let columns: Vec<(&str, Cells)> = csv
        .column_names()
        .iter()
        .map(|name| {
            let cells = match csv.column(name).unwrap() {
                Column::Numeric(values) => Cells::numbers(values),
                Column::Text(cells) => {
                    Cells::text(&cells.iter().map(String::as_str).collect::<Vec<_>>())
                }
            };
            (name.as_str(), cells)
        })
        .collect();
    write_named(path, &columns, group_rows);
}

/// `fit FILE` with the README's law and columns, run in `dir`: (exit code, stdout, stderr).
fn fit(dir: &Path, file: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let output = scalinglaws()
        .current_dir(dir)
        .args(["fit", file])
        .args(&CHINCHILLA[2..])
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_readme_fit_from_parquet_prints_the_same_report_as_from_csv() {
    let dir = tempfile::tempdir().unwrap();
    let csv: PathBuf = dir.path().join("chinchilla.csv");
    std::fs::copy(root().join(CHINCHILLA[1]), &csv).unwrap();
    chinchilla_parquet(&dir.path().join("chinchilla.parquet"), 100);
    let (code, from_csv, _) = fit(dir.path(), "chinchilla.csv", &[]);
    assert_eq!(code, Some(0));
    let (code, from_parquet, stderr) = fit(dir.path(), "chinchilla.parquet", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    // The report names its data file; with that one word aside, the bytes are the same.
    assert!(from_csv.contains("chinchilla.csv"), "{from_csv}");
    assert_eq!(
        from_csv.replace("chinchilla.csv", "chinchilla.parquet"),
        from_parquet
    );
    // The same holds of the saved fit, every number in it.
    let (_, json_csv, _) = fit(dir.path(), "chinchilla.csv", &["--json"]);
    let (_, json_parquet, _) = fit(dir.path(), "chinchilla.parquet", &["--json"]);
    assert_eq!(
        json_csv.replace("chinchilla.csv", "chinchilla.parquet"),
        json_parquet
    );
}

#[test]
fn parquet_is_read_by_its_first_bytes_and_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    chinchilla_parquet(&dir.path().join("runs.bin"), 1000);
    let (code, by_magic, stderr) = fit(dir.path(), "runs.bin", &[]);
    assert_eq!(code, Some(0), "{stderr}");
    let mut child = scalinglaws()
        .current_dir(dir.path())
        .args(["fit", "-"])
        .args(&CHINCHILLA[2..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(dir.path().join("runs.bin")).unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let from_stdin = String::from_utf8_lossy(&output.stdout);
    assert_eq!(by_magic.replace("runs.bin", "stdin"), from_stdin);
}

#[test]
fn a_bad_parquet_file_exits_2_naming_the_file_and_the_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path();
    write(
        &path.join("nested.parquet"),
        "message t { required double loss; optional group tags (LIST) { repeated group list { \
         optional binary element (UTF8); } } }",
        &[Cells::numbers(&[3.0, 2.9]), Cells::NullLists(2)],
        1,
        Compression::SNAPPY,
    );
    let n = |values: &[f64]| Cells::numbers(values);
    let cases: [(&str, Cells, Cells, &[&str]); 3] = [
        (
            "text.parquet",
            Cells::text(&["1e9", "big"]),
            n(&[3.0, 2.9]),
            &[
                "text.parquet, row 2, column 'Model Size'",
                "\"big\" is not a number",
            ],
        ),
        (
            "null.parquet",
            Cells::I64(vec![Some(1_000_000_000), Some(2_000_000_000)]),
            Cells::F64(vec![Some(3.0), None]),
            &["null.parquet, row 2, column 'loss'", "empty"],
        ),
        (
            "nan.parquet",
            n(&[1e9, f64::NAN]),
            n(&[3.0, 2.9]),
            // As of a CSV cell "NaN": the derived column's row is named.
            &["nan.parquet, row 2, column 'D'", "gives NaN"],
        ),
    ];
    for (name, size, loss, _) in &cases {
        let columns = [
            ("Model Size", size.clone()),
            ("Training FLOP", n(&[1e20, 2e20])),
            ("loss", loss.clone()),
        ];
        write_named(&path.join(name), &columns, 1);
    }
    let nested: &[&str] = &["nested.parquet, column 'tags'", "nested (a list)"];
    for (name, expected) in cases
        .iter()
        .map(|(name, _, _, expected)| (*name, *expected))
        .chain([("nested.parquet", nested)])
    {
        // The README's command without its filter (which would leave out a null loss).
        let without_where = &CHINCHILLA[2..CHINCHILLA.len() - 2];
        fails(
            scalinglaws()
                .current_dir(path)
                .args(["fit", name])
                .args(without_where),
            expected,
        );
    }
    // Cut short: the footer (with the schema) is gone, so the file is what can be named.
    chinchilla_parquet(&path.join("whole.parquet"), 100);
    let bytes = std::fs::read(path.join("whole.parquet")).unwrap();
    std::fs::write(path.join("cut.parquet"), &bytes[..bytes.len() / 2]).unwrap();
    fails(
        scalinglaws()
            .current_dir(path)
            .args(["fit", "cut.parquet"])
            .args(&CHINCHILLA[2..]),
        &[
            "cut.parquet: cannot read the file as Parquet",
            "write it again",
        ],
    );
}

/// The bundled Parquet copy of the Chinchilla example (what the Python tests and a reader
/// trying `fit examples/chinchilla/chinchilla_epoch.parquet` use) holds the CSV's table;
/// `SCALINGLAWS_BLESS=1` writes it again from the CSV.
#[test]
fn the_bundled_parquet_example_is_the_csv_table() {
    let parquet = root().join("examples/chinchilla/chinchilla_epoch.parquet");
    if std::env::var_os("SCALINGLAWS_BLESS").is_some() {
        chinchilla_parquet(&parquet, 1 << 20);
    }
    let csv = Dataset::read(&root().join(CHINCHILLA[1]), None).unwrap();
    let bundled = Dataset::read(&parquet, None).unwrap();
    assert_eq!(csv.column_names(), bundled.column_names());
    // The same numbers bit for bit (a copy, not a computation), and the same text.
    let bits = |column: &Column| match column {
        Column::Numeric(values) => values.iter().map(|v| v.to_bits().to_string()).collect(),
        Column::Text(cells) => cells.clone(),
    };
    for name in csv.column_names() {
        let (a, b) = (csv.column(name).unwrap(), bundled.column(name).unwrap());
        assert_eq!(bits(a), bits(b), "{name}");
    }
}
