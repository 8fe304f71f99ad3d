//! The lab's default experiments as tables on standard output (about 10 s each in release on 2
//! cores). They share their helpers with the fast tests, so their code lives beside those tests.
//! Usage: `cargo run --release -p scalinglaws-lab --example lab_tables -- NAME...`; no NAME lists them.

// The test files are compiled here for their experiments: their tests, and the helpers and
// imports only the tests use, are left out or unused.
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/multi_index.rs"]
mod multi_index;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/nvfp4.rs"]
mod nvfp4;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/recall.rs"]
mod recall;

/// Each experiment: its name, what it prints, and the run.
const TABLES: [(&str, &str, fn()); 3] = [
    (
        "multi_index",
        "the default cascade",
        multi_index::print_the_default_cascade,
    ),
    (
        "nvfp4",
        "the default SNR table",
        nvfp4::print_the_default_snr_table,
    ),
    (
        "recall",
        "the default run's table and its run time",
        recall::default_table,
    ),
];

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        println!("usage: cargo run --release -p scalinglaws-lab --example lab_tables -- NAME...");
        for (name, prints, _) in TABLES {
            println!("  {name:<12} prints {prints}");
        }
        return;
    }
    for name in &names {
        let Some((_, _, run)) = TABLES.iter().find(|(n, _, _)| n == name) else {
            eprintln!("no experiment is named {name:?}: run without arguments to list them");
            std::process::exit(2);
        };
        run();
    }
}
