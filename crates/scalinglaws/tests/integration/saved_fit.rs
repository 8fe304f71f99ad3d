//! A fit file written by an earlier build still loads, unchanged: the fixture was written by
//! the release build of main at 45c99e6 (`scalinglaws fit examples/chinchilla/chinchilla_epoch.csv
//! --law chinchilla --target loss --map N="Model Size" --map C="Training FLOP" --derive
//! "D=C/(6*N)" --where "loss < 3.44" --bootstrap 20 --profile alpha --json FILE`), so it holds
//! every optional part (data summary, bootstrap, profile, calibration). Whatever the result
//! types become, reading it and writing it again must give the same bytes.

use scalinglaws::uncertainty::FitRecord;

const SAVED: &str = include_str!("../fixtures/fit_schema1_main_45c99e6.json");

#[test]
fn a_saved_fit_loads_with_every_part() {
    let fit = FitRecord::from_json(SAVED).expect("the saved fit loads");
    assert_eq!(fit.law, "chinchilla");
    let alpha = fit.value("alpha").expect("alpha is a parameter");
    assert!(alpha > 0.0 && alpha < 1.0, "alpha = {alpha}");
    let data = fit.data.as_ref().expect("the data summary");
    assert_eq!(data.filters, vec!["loss < 3.44".to_string()]);
    assert_eq!(data.derived, vec!["D=C/(6*N)".to_string()]);
    let bootstrap = fit.bootstrap.as_ref().expect("the bootstrap");
    assert_eq!(bootstrap.replicates, 20);
    assert_eq!(bootstrap.draws.len() + bootstrap.failed, 20);
    assert!(bootstrap.draws.iter().all(|d| d.len() == fit.params.len()));
    assert_eq!(fit.profiles.len(), 1);
    assert_eq!(fit.profiles[0].param, "alpha");
    assert!(fit.calibration.is_some());
    assert!(fit.param("alpha").and_then(|p| p.ci).is_some());
}

/// Byte for byte, but for the `kind` every document now starts with (issue 49).
#[test]
fn a_saved_fit_is_written_back_byte_for_byte() {
    let fit = FitRecord::from_json(SAVED).expect("the saved fit loads");
    let body = SAVED.trim_end().strip_prefix("{\n").expect("an object");
    assert_eq!(fit.to_json(), format!("{{\n  \"kind\": \"fit\",\n{body}"));
}

#[test]
fn a_saved_fit_predicts_from_its_own_law() {
    let fit = FitRecord::from_json(SAVED).expect("the saved fit loads");
    let at = fit.predict(&[vec![7e10, 1.4e12]]).expect("predicts");
    assert!(
        at[0] > 1.0 && at[0] < 3.0,
        "loss at Chinchilla's scale = {}",
        at[0]
    );
}
