//! Associative-recall capacity with linear hashing: the bound computed two ways, the bound
//! below the Monte Carlo capacity, growth with the state size, determinism at any thread count,
//! refusals.

use scalinglaws_lab::recall::{
    dg_bound, jl_bound, jl_bound_search, recall_capacity, RecallConfig, RecallRow,
};
use scalinglaws_lab::LabError;

fn setting_key(error: LabError) -> &'static str {
    match error {
        LabError::Setting { key, .. } => key,
    }
}

fn small() -> RecallConfig {
    RecallConfig {
        state_sizes: vec![8, 16, 24],
        embedding: 512,
        context: 2,
        trials: 16,
        delta: 0.1,
        max_vocab: 1024,
        seed: 7,
    }
}

fn in_pool<T: Send>(threads: usize, job: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(job)
}

#[test]
fn the_bound_computed_two_ways_agrees() {
    // Closed-form root against integer bisection of the same union-bound inequality, over a
    // range of settings: within one key (floors of the same real root), or 1e-12 relatively
    // where the bound is in the billions.
    for d in [4, 16, 64, 128, 256, 512] {
        for (e, l) in [(64, 2), (1024, 3), (65536, 4)] {
            for delta in [0.01, 0.1, 0.5] {
                let closed = jl_bound(d, e, l, delta).unwrap();
                let search = jl_bound_search(d, e, l, delta).unwrap();
                let tolerance = 1.0f64.max(1e-12 * closed);
                assert!(
                    (closed - search).abs() <= tolerance,
                    "d {d} e {e} L {l} δ {delta}: {closed} vs {search}"
                );
            }
        }
    }
}

#[test]
fn the_bounds_grow_with_state_and_embedding_and_shrink_with_context() {
    let at = |d, e, l| jl_bound(d, e, l, 0.1).unwrap();
    assert!(at(256, 4096, 3) > at(128, 4096, 3));
    assert!(at(128, 4096, 3) >= at(128, 256, 3));
    assert!(at(128, 4096, 2) > at(128, 4096, 4));
    // The classical Dasgupta–Gupta form is valid but never better than the direct bound.
    for d in [64, 256, 1024] {
        assert!(dg_bound(d, 4096, 3, 0.1).unwrap() <= at(d, 4096, 3));
    }
}

#[test]
fn the_bound_is_below_the_monte_carlo_capacity_and_capacity_grows() {
    let rows = recall_capacity(&small()).unwrap();
    assert_eq!(rows.len(), 3);
    for row in &rows {
        assert!(
            row.capacity_bound <= row.capacity_mc as f64,
            "d {}: bound {} above capacity {}",
            row.state_size,
            row.capacity_bound,
            row.capacity_mc
        );
        assert!(row.capacity_dg <= row.capacity_bound);
        assert!(row.ratio >= 1.0);
    }
    for pair in rows.windows(2) {
        assert!(
            pair[1].capacity_mc > pair[0].capacity_mc,
            "capacity {} at d {} but {} at d {}",
            pair[0].capacity_mc,
            pair[0].state_size,
            pair[1].capacity_mc,
            pair[1].state_size
        );
    }
}

#[test]
fn seeded_runs_are_bit_identical_at_any_thread_count() {
    let config = small();
    let one = in_pool(1, || recall_capacity(&config).unwrap());
    let two = in_pool(2, || recall_capacity(&config).unwrap());
    let lines = |rows: &[RecallRow]| rows.iter().map(RecallRow::csv_line).collect::<Vec<_>>();
    assert_eq!(lines(&one), lines(&two));
    assert_eq!(one, two);
    let other = recall_capacity(&RecallConfig { seed: 8, ..config }).unwrap();
    assert_ne!(lines(&one), lines(&other));
}

#[test]
fn rows_write_csv_matching_the_header() {
    let rows = recall_capacity(&RecallConfig {
        state_sizes: vec![16],
        trials: 4,
        ..small()
    })
    .unwrap();
    let columns = RecallRow::csv_header().split(',').count();
    assert_eq!(rows[0].csv_line().split(',').count(), columns);
    assert!(RecallRow::csv_header().starts_with("state_size,"));
}

#[test]
fn bad_settings_are_refused_naming_the_key() {
    let refused = |config: RecallConfig| setting_key(recall_capacity(&config).unwrap_err());
    assert_eq!(
        refused(RecallConfig {
            state_sizes: vec![],
            ..small()
        }),
        "state_sizes"
    );
    assert_eq!(
        refused(RecallConfig {
            state_sizes: vec![0],
            ..small()
        }),
        "state_sizes"
    );
    assert_eq!(
        refused(RecallConfig {
            state_sizes: vec![1 << 20],
            ..small()
        }),
        "state_sizes"
    );
    assert_eq!(
        refused(RecallConfig {
            embedding: 0,
            ..small()
        }),
        "embedding"
    );
    assert_eq!(
        refused(RecallConfig {
            context: 1,
            ..small()
        }),
        "context"
    );
    assert_eq!(
        refused(RecallConfig {
            trials: 0,
            ..small()
        }),
        "trials"
    );
    assert_eq!(
        refused(RecallConfig {
            delta: f64::NAN,
            ..small()
        }),
        "delta"
    );
    assert_eq!(
        refused(RecallConfig {
            delta: 1.0,
            ..small()
        }),
        "delta"
    );
    assert_eq!(
        refused(RecallConfig {
            max_vocab: 1,
            ..small()
        }),
        "max_vocab"
    );
    assert_eq!(
        refused(RecallConfig {
            max_vocab: 1 << 16,
            state_sizes: vec![4096],
            ..small()
        }),
        "max_vocab"
    );
    assert_eq!(
        refused(RecallConfig {
            trials: 100_000,
            ..small()
        }),
        "trials"
    );
    assert_eq!(
        setting_key(jl_bound(0, 64, 3, 0.1).unwrap_err()),
        "state_sizes"
    );
    assert_eq!(setting_key(jl_bound(64, 64, 3, 0.0).unwrap_err()), "delta");
    assert_eq!(
        setting_key(jl_bound_search(64, 64, 1, 0.1).unwrap_err()),
        "context"
    );
    assert!(RecallConfig::default().validate().is_ok());
}

/// The default run's table and its run time (ignored: run it explicitly to print them).
// An experiment, not a test: run by this crate's `examples/lab_tables.rs`.
#[allow(dead_code)]
pub fn default_table() {
    let start = std::time::Instant::now();
    let rows = recall_capacity(&RecallConfig::default()).unwrap();
    println!("{}", RecallRow::csv_header());
    for row in &rows {
        println!("{}", row.csv_line());
    }
    println!("{:.2} s", start.elapsed().as_secs_f64());
}
