//! Criterion benchmark of the data readers (issue 51, item 5: "reading a 1e6-row file is no
//! slower than the CSV reader"): `Dataset::read` of one synthetic table of 1,000,000 runs
//! (N, D, loss as `bench/million_rows.sh` draws them, plus a run name) from CSV and from
//! Parquet as pandas and polars write it (snappy; zstd), and the three numeric columns asked
//! for as numbers, as a fit asks. Run with `cargo bench -p scalinglaws --bench read`.

#[path = "../tests/integration/common/parquet_writer.rs"]
mod parquet_writer;

use std::path::{Path, PathBuf};

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use parquet::basic::{Compression, ZstdLevel};
use parquet_writer::{write, Cells};
use scalinglaws::data::Dataset;

const ROWS: usize = 1_000_000;

/// The table's columns: N = 10^U(7,10), D = 10^U(9,12), the Chinchilla loss with 1% noise,
/// and a run name (a deterministic generator, so the files are the same each run).
fn table() -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<String>) {
    let mut state: u64 = 21;
    let mut uniform = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut columns = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for row in 0..ROWS {
        let n = 10f64.powf(7.0 + 3.0 * uniform());
        let d = 10f64.powf(9.0 + 3.0 * uniform());
        let noise = 0.01 * (uniform() - 0.5);
        let loss = (1.69 + 406.4 / n.powf(0.34) + 410.7 / d.powf(0.28)) * noise.exp();
        // Six significant digits, as the CSV holds them, so both files hold the same numbers.
        let six = |v: f64| format!("{v:.5e}").parse::<f64>().unwrap();
        columns.0.push(six(n));
        columns.1.push(six(d));
        columns.2.push(six(loss));
        columns.3.push(format!("run-{}", row % 5000));
    }
    columns
}

fn files(dir: &Path) -> [(&'static str, PathBuf); 3] {
    let (n, d, loss, name) = table();
    let csv = dir.join("runs.csv");
    let mut text = String::from("name,N,D,loss\n");
    for row in 0..ROWS {
        text.push_str(&format!(
            "{},{:.5e},{:.5e},{:.5e}\n",
            name[row], n[row], d[row], loss[row]
        ));
    }
    std::fs::write(&csv, text).unwrap();
    let schema = "message runs { required binary name (UTF8); required double N; \
                  required double D; required double loss; }";
    let names: Vec<&str> = name.iter().map(String::as_str).collect();
    let columns = [
        Cells::text(&names),
        Cells::numbers(&n),
        Cells::numbers(&d),
        Cells::numbers(&loss),
    ];
    let snappy = dir.join("runs-snappy.parquet");
    let zstd = dir.join("runs-zstd.parquet");
    // pandas (pyarrow) writes one row group of up to 1Mi rows with snappy; polars 250k with zstd.
    write(&snappy, schema, &columns, 1 << 20, Compression::SNAPPY);
    write(
        &zstd,
        schema,
        &columns,
        250_000,
        Compression::ZSTD(ZstdLevel::default()),
    );
    [
        ("csv", csv),
        ("parquet-snappy", snappy),
        ("parquet-zstd", zstd),
    ]
}

fn benches(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("scalinglaws-bench-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = files(&dir);
    let mut group = c.benchmark_group("read 1e6 rows");
    group.sample_size(10);
    for (name, path) in &files {
        let bytes = std::fs::metadata(path).unwrap().len();
        eprintln!("{name}: {:.1} MB", bytes as f64 / 1e6);
        group.bench_function(*name, |b| {
            b.iter(|| {
                let data = Dataset::read(black_box(path), None).unwrap();
                for column in ["N", "D", "loss"] {
                    black_box(data.finite(column).unwrap());
                }
                data
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(read, benches);
criterion_main!(read);
