//! The shipped extrapolation prior against a rebuild from `../shared/data`, and the
//! leave-one-study-out check of issue 48's acceptance (pooled 95 % coverage in [0.90, 0.98] over
//! studies and over units, every study at least 0.80; at least 0.85 with each study cut to its
//! first three scale groups), its tables equal to the ones the repository keeps in
//! `bench/results/extrapolation_loso.md` (which the README quotes). The data are unlicensed in
//! part and live beside the checkout: where `../shared/data` is absent both tests skip, saying
//! why. The corpus and the fits are built once for both tests (about four minutes on two cores).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use scalinglaws::uncertainty::prior::{shipped, Prior};
use scalinglaws_corpus::corpus::{build, Unit};
use scalinglaws_corpus::loso::Folds;
use scalinglaws_corpus::{prior_file, report, studies};

// The library's tests' skip log, compiled here too (as the CLI's tests do).
#[path = "../../scalinglaws/tests/integration/common/skip.rs"]
mod skip;
use skip::skip;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the repository holds the crate")
        .to_path_buf()
}

/// The corpus and every fit of the check, built once, or None without `../shared/data`.
fn fitted() -> Option<&'static (Vec<Unit>, Folds)> {
    static BUILT: OnceLock<Option<(Vec<Unit>, Folds)>> = OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let data = repository().parent()?.join("shared/data");
        if !data.exists() {
            return None;
        }
        let (sets, missing) = studies::load_all(&data);
        assert!(
            missing.len() <= 1,
            "studies that could not be read: {missing:?}"
        );
        let units = build(&sets);
        let folds = Folds::fit(&units, true).expect("the prior's fits");
        Some((units, folds))
    });
    if built.is_none() {
        skip("../shared/data is absent (the studies are kept beside the checkout, some unlicensed): the extrapolation prior's rebuild and leave-one-study-out check skipped");
    }
    built.as_ref()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

#[test]
fn the_shipped_prior_is_what_the_corpus_rebuilds() {
    let Some((units, folds)) = fitted() else {
        return;
    };
    let fitted = folds.prior(units, &[], None).expect("the full prior");
    let rebuilt: Prior = prior_file::prior(units, &fitted);
    let ship = shipped();
    assert_eq!(rebuilt.version, ship.version);
    assert_eq!(rebuilt.provenance, ship.provenance);
    let (a, b) = (
        serde_json::to_value(rebuilt.model).unwrap(),
        serde_json::to_value(ship.model).unwrap(),
    );
    for (key, value) in a.as_object().unwrap() {
        let (x, y) = (value.as_f64().unwrap(), b[key].as_f64().unwrap());
        assert!(close(x, y), "model.{key}: rebuilt {x}, shipped {y}");
    }
    assert!(close(rebuilt.evidence_weight, ship.evidence_weight));
    for (x, y) in rebuilt.levels.pairs.iter().zip(&ship.levels.pairs) {
        assert!(close(x[1], y[1]), "levels: rebuilt {x:?}, shipped {y:?}");
    }
}

#[test]
fn the_prior_holds_on_studies_it_never_saw() {
    let Some((units, folds)) = fitted() else {
        return;
    };
    let (text, pooled, few) = report::document(units, folds, None);
    eprintln!("{text}\ncheck {pooled:?}\nfirst three scale groups {few:?}");
    assert!((0.90..=0.98).contains(&pooled.over_studies), "{pooled:?}");
    assert!((0.90..=0.98).contains(&pooled.over_units), "{pooled:?}");
    assert!(pooled.lowest_study >= 0.80, "{pooled:?}");
    assert!(
        few.over_studies >= 0.85 && few.over_units >= 0.85,
        "{few:?}"
    );
    let kept = repository().join("bench/results/extrapolation_loso.md");
    let recorded = std::fs::read_to_string(&kept).expect("the recorded check");
    assert_eq!(
        recorded, text,
        "{} differs from the check's tables: rerun `cargo run --release -p scalinglaws-corpus -- --loso --out bench/results`",
        kept.display()
    );
}
