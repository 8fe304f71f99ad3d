//! Grouped fits (issue 25): each group's fit is exactly the single fit of its rows, the batch
//! is bit-identical at any thread count, and a group that cannot be fitted is kept as a value
//! with its key and reason while the others are fitted.

use scalinglaws::data::recipe::{Filter, Recipe, Table};
use scalinglaws::data::Dataset;
use scalinglaws::fit::FitSettings;
use scalinglaws::job::{
    FitJob, GroupStatus, GroupedFitJob, LawChoice, SettingsJob, UncertaintySettings,
};
use scalinglaws::rng::Rng;

/// `curves` learning curves of 20 points of E + A·x^−α with 1 % noise, long format
/// (`curve,x,loss`); curve `short` (if any) keeps only 2 points.
fn csv(curves: usize, short: Option<usize>) -> String {
    let mut rng = Rng::new(11);
    let mut text = String::from("curve,x,loss\n");
    for c in 0..curves {
        let (e, a, alpha) = (
            1.5 + 1.5 * rng.uniform(),
            2.0 + 18.0 * rng.uniform(),
            0.2 + 0.6 * rng.uniform(),
        );
        let points = if Some(c) == short { 2 } else { 20 };
        for i in 0..points {
            let x = 10f64.powf(2.0 + 3.0 * i as f64 / 19.0);
            let y = (e + a * x.powf(-alpha)) * (0.01 * rng.normal()).exp();
            text.push_str(&format!("{c},{x},{y}\n"));
        }
    }
    text
}

fn table(text: &str, filter: Option<&str>) -> Table {
    let dataset = Dataset::read_stream("curves", text.as_bytes(), None).unwrap();
    let recipe = Recipe {
        target: "loss".into(),
        filters: filter
            .map(|f| Filter::parse(f).unwrap())
            .into_iter()
            .collect(),
        ..Recipe::default()
    };
    Table::prepare(dataset, &recipe).unwrap()
}

fn fit_job(threads: Option<usize>, bootstrap: Option<usize>) -> FitJob {
    FitJob {
        recipe: Recipe {
            target: "loss".into(),
            ..Recipe::default()
        },
        law: LawChoice::Catalog("power_offset".into()),
        settings: SettingsJob {
            settings: FitSettings {
                threads,
                ..FitSettings::default()
            },
            space: None,
            heteroscedastic: None,
        },
        uncertainty: UncertaintySettings {
            bootstrap,
            calibrate: false,
            ..UncertaintySettings::default()
        },
        qc: scalinglaws::job::qc::QcMode::Off,
    }
}

fn grouped(threads: Option<usize>, bootstrap: Option<usize>) -> GroupedFitJob {
    GroupedFitJob {
        fit: fit_job(threads, bootstrap),
        groups: vec!["curve".into()],
    }
}

#[test]
fn each_groups_fit_is_the_single_fit_of_its_rows() {
    let text = csv(6, None);
    let fits = grouped(None, Some(20))
        .run(&table(&text, None), &|_, _| {})
        .unwrap();
    assert_eq!(fits.len(), 6);
    for group in &fits {
        let label = &group.group["curve"];
        let alone = fit_job(None, Some(20))
            .run(&table(&text, Some(&format!("curve == {label}"))), &|_| {})
            .unwrap()
            .result;
        let record = group.fit.as_ref().unwrap();
        // Bit-identical: the same rows, search, settings and bootstrap streams.
        assert_eq!(record.fit.params, alone.fit.params, "group {label}");
        assert_eq!(
            record.fit.objective.to_bits(),
            alone.fit.objective.to_bits()
        );
        assert_eq!(record.fit.covariance, alone.fit.covariance);
        assert_eq!(record.bootstrap, alone.bootstrap);
        assert_eq!(group.rows, 20);
    }
}

#[test]
fn the_batch_does_not_depend_on_the_thread_count() {
    let text = csv(40, None);
    let one = grouped(Some(1), None)
        .run(&table(&text, None), &|_, _| {})
        .unwrap();
    let two = grouped(Some(2), None)
        .run(&table(&text, None), &|_, _| {})
        .unwrap();
    // Every number the same; only the recorded thread setting differs.
    let text = |fits: &[scalinglaws::job::GroupFit]| {
        serde_json::to_string(fits)
            .unwrap()
            .replace("\"threads\":1,", "")
            .replace("\"threads\":2,", "")
    };
    assert!(text(&one) == text(&two), "the batches differ");
}

#[test]
fn a_group_that_cannot_be_fitted_is_kept_with_its_reason() {
    let text = csv(5, Some(2));
    let done = std::sync::atomic::AtomicUsize::new(0);
    let fits = grouped(None, None)
        .run(&table(&text, None), &|_, total| {
            assert_eq!(total, 5);
            done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(done.into_inner(), 5);
    let failed: Vec<_> = fits
        .iter()
        .filter(|f| f.status == GroupStatus::Failed)
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].group["curve"], "2");
    assert_eq!(failed[0].rows, 2);
    assert!(failed[0].fit.is_none());
    let reason = failed[0].reason.as_deref().unwrap();
    assert!(reason.contains("2 rows for 3 free parameters"), "{reason}");
    assert_eq!(
        fits.iter()
            .filter(|f| f.status == GroupStatus::Fitted && f.fit.is_some())
            .count(),
        4
    );
}

#[test]
fn steps_that_read_the_whole_table_are_refused() {
    let text = csv(2, None);
    let mut job = grouped(None, None);
    job.fit.uncertainty.calibrate = true;
    let message = job
        .run(&table(&text, None), &|_, _| {})
        .unwrap_err()
        .to_string();
    assert!(message.contains("not run per group"), "{message}");
    let mut job = grouped(None, None);
    job.fit.uncertainty.profiles = vec!["alpha".into()];
    assert!(job.run(&table(&text, None), &|_, _| {}).is_err());
    let mut job = grouped(None, None);
    job.groups = vec!["nope".into()];
    assert!(job.run(&table(&text, None), &|_, _| {}).is_err());
}
