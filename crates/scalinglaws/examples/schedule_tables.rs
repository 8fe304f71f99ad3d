//! The schedule experiments whose tables the README and `bench/results/` quote: each rewrites
//! its file (minutes each in release on 2 cores). They share their data readers and helpers
//! with the fast tests that check those files, so their code lives beside those tests.
//! Usage: `cargo run --release -p scalinglaws --example schedule_tables -- NAME...`; no NAME lists them.

#[path = "../tests/integration/common/mod.rs"]
mod common;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/cooldown_study.rs"]
mod cooldown_study;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/schedule_fsl.rs"]
mod schedule_fsl;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/schedule_intervals.rs"]
mod schedule_intervals;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/schedule_profiles.rs"]
mod schedule_profiles;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/schedule_protocol.rs"]
mod schedule_protocol;

/// Each experiment: its name, what it writes, and the run.
const TABLES: [(&str, &str, fn()); 7] = [
    (
        "cooldown_study",
        "bench/results/cooldown_study.md",
        cooldown_study::cooldown_study_table,
    ),
    (
        "fsl_vs_multi_power",
        "bench/results/fsl_vs_multi_power.md",
        schedule_fsl::comparison_table,
    ),
    (
        "schedule_intervals",
        "bench/results/schedule_intervals.md",
        schedule_intervals::intervals_table,
    ),
    (
        "schedule_intervals_profiles",
        "the profile section of bench/results/schedule_intervals.md",
        schedule_intervals::profile_table,
    ),
    (
        "schedule_profiles",
        "bench/results/schedule_profiles.md",
        schedule_profiles::profiles_table,
    ),
    (
        "schedule_profiles_a1",
        "bench/results/schedule_profiles_a1.md",
        schedule_profiles::cosine_constant_profiles_table,
    ),
    (
        "schedule_identifiability",
        "bench/results/schedule_identifiability.md",
        schedule_protocol::identifiability_table,
    ),
];

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    if names.is_empty() {
        println!("usage: cargo run --release -p scalinglaws --example schedule_tables -- NAME...");
        for (name, writes, _) in TABLES {
            println!("  {name:<28} writes {writes}");
        }
        return;
    }
    for name in &names {
        let Some((_, writes, run)) = TABLES.iter().find(|(n, _, _)| n == name) else {
            eprintln!("no experiment is named {name:?}: run without arguments to list them");
            std::process::exit(2);
        };
        eprintln!("{name}: writing {writes}");
        run();
    }
}
