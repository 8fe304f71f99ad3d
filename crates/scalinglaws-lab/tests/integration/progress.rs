//! Every simulator reports its progress (`*_with_progress`): `done` increasing from report to
//! report, never above the total, the last report `done == total`; and hearing it changes
//! nothing: the results equal those of the function without a listener, at any thread count.

use std::sync::Mutex;

use scalinglaws_lab::editing::{editing, editing_with_progress, EditingConfig};
use scalinglaws_lab::multi_index::{
    spectral_recovery, spectral_recovery_with_progress, MultiIndexConfig,
};
use scalinglaws_lab::recall::{recall_capacity, recall_capacity_with_progress, RecallConfig};
use scalinglaws_lab::sgd::{
    data_scaling, data_scaling_with_progress, simulate, simulate_with_progress, Optimizer,
    ScalingConfig, SgdConfig,
};

/// Runs `work` with a listener on `threads` threads; returns its result and what it heard.
fn heard<T: Send>(
    threads: usize,
    work: impl FnOnce(&(dyn Fn(usize, usize) + Sync)) -> T + Send,
) -> (T, Vec<(usize, usize)>) {
    let reports = Mutex::new(Vec::new());
    let listen = |done: usize, total: usize| reports.lock().unwrap().push((done, total));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let result = pool.install(|| work(&listen));
    (result, reports.into_inner().unwrap())
}

fn check_reports(reports: &[(usize, usize)]) {
    assert!(reports.len() >= 2, "{reports:?}");
    assert!(reports.iter().all(|&(done, total)| done <= total));
    assert!(reports
        .windows(2)
        .all(|w| w[0].0 < w[1].0 || w[1].0 == w[1].1));
    let (done, total) = *reports.last().unwrap();
    assert_eq!(done, total);
}

#[test]
fn sgd_reports_its_seeds_and_matches_the_silent_run() {
    let config = SgdConfig {
        dimension: 16,
        lrs: vec![0.2; 100],
        log_steps: vec![0, 10, 100],
        seeds: 50,
        ..SgdConfig::default()
    };
    let plain = simulate(&config, &Optimizer::ALL).unwrap();
    for threads in [1, 2] {
        let (rows, reports) = heard(threads, |p| {
            simulate_with_progress(&config, &Optimizer::ALL, p)
        });
        assert_eq!(rows.unwrap(), plain);
        check_reports(&reports);
        // The exact recursion, then 2 × 50 seeds.
        assert_eq!(reports.len(), 1 + 100 + 1);
    }
}

#[test]
fn data_scaling_reports_an_estimate_that_ends_at_the_work_done() {
    let config = ScalingConfig {
        dimension: 16,
        horizons: vec![16, 32, 64],
        seeds: 3,
        ..ScalingConfig::hard()
    };
    let plain = data_scaling(&config).unwrap();
    let (result, reports) = heard(2, |p| data_scaling_with_progress(&config, p));
    assert_eq!(result.unwrap(), plain);
    check_reports(&reports);
}

#[test]
fn editing_reports_each_run() {
    let config = EditingConfig {
        rows: 8,
        cols: 16,
        edits: 20,
        seeds: 3,
        ..EditingConfig::default()
    };
    let plain = editing(&config).unwrap();
    let (result, reports) = heard(2, |p| editing_with_progress(&config, p));
    assert_eq!(result.unwrap(), plain);
    check_reports(&reports);
    assert_eq!(reports.len(), 2 * 3 + 1);
}

#[test]
fn multi_index_and_recall_report_their_seeds_and_trials() {
    let config = MultiIndexConfig {
        dimensions: vec![8, 16],
        kappas: vec![1.0, 4.0],
        directions: 2,
        seeds: 3,
        ..MultiIndexConfig::default()
    };
    let plain = spectral_recovery(&config).unwrap();
    let (rows, reports) = heard(2, |p| spectral_recovery_with_progress(&config, p));
    assert_eq!(rows.unwrap(), plain);
    check_reports(&reports);
    assert_eq!(reports.len(), 2 * 3 + 1);
    let config = RecallConfig {
        state_sizes: vec![8, 12],
        embedding: 64,
        trials: 5,
        ..RecallConfig::default()
    };
    let plain = recall_capacity(&config).unwrap();
    let (rows, reports) = heard(2, |p| recall_capacity_with_progress(&config, p));
    assert_eq!(rows.unwrap(), plain);
    check_reports(&reports);
    assert_eq!(reports.len(), 2 * 5 + 1);
}
