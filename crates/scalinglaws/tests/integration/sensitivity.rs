//! The sensitivity workflow (`scalinglaws::workflow::sensitivity`): on runs of a known law,
//! leaving out a scale group barely moves the prediction; when the runs of one scale are off
//! (a mistuned size), that group is the one whose removal moves the prediction, by about what
//! its shift implies.

use scalinglaws::data::recipe::Table;
use scalinglaws::data::Dataset;
use scalinglaws::workflow::sensitivity::{Sensitivity, SensitivitySpec};
use scalinglaws::workflow::{Ctx, Workflow};

/// Runs of L = 1.7 + 400 N^-0.34 at six sizes, three per size (±0.2 % scatter), the largest
/// size's losses multiplied by `off`.
fn table(off: f64) -> Table {
    let (mut n, mut loss) = (Vec::new(), Vec::new());
    for k in 0..6 {
        let size = 1e7 * 4f64.powi(k);
        for (j, wiggle) in [-0.002, 0.0, 0.002].iter().enumerate() {
            let factor = if k == 5 { off } else { 1.0 };
            n.push(size * (1.0 + 0.01 * j as f64));
            loss.push((1.7 + 400.0 * size.powf(-0.34)) * (1.0 + wiggle) * factor);
        }
    }
    let dataset =
        Dataset::from_numeric("runs", vec![("N".into(), n), ("loss".into(), loss)]).unwrap();
    Table::prepare(dataset, &spec().fit.recipe).unwrap()
}

fn spec() -> SensitivitySpec {
    Sensitivity::spec(
        serde_json::from_value(serde_json::json!({
            "law": "power_offset", "target": "loss", "map": {"x": "N"}, "by": "N", "at": {"x": 1e11}
        }))
        .unwrap(),
    )
    .unwrap()
}

#[test]
fn one_off_scale_is_the_one_whose_removal_moves_the_prediction() {
    let clean = Sensitivity::run(&spec(), &table(1.0), &Ctx::default()).unwrap();
    assert_eq!(clean.groups.len(), 6);
    assert!(clean.max_change.unwrap() < 0.01, "{:?}", clean.max_change);
    assert!(clean
        .groups
        .iter()
        .all(|g| g.rows == 3 && g.converged == Some(true)));

    let off = Sensitivity::run(&spec(), &table(1.03), &Ctx::default()).unwrap();
    assert_eq!(off.most_influential, Some(5), "{:?}", off.groups);
    let change = off.groups[5].change.unwrap();
    // Without the off group the prediction falls back towards the true law's.
    let truth = 1.7 + 400.0 * 1e11f64.powf(-0.34);
    let without = off.groups[5].value.unwrap();
    assert!(
        (without / truth - 1.0).abs() < 0.01,
        "{without} against {truth}"
    );
    assert!(change < -0.01, "{change}");
}

#[test]
fn too_few_scale_groups_and_unknown_variables_are_refused() {
    let mut two = spec();
    two.at.insert("Q".into(), 1.0);
    let error = Sensitivity::run(&two, &table(1.0), &Ctx::default()).unwrap_err();
    assert!(
        error.to_string().contains("'Q' is not a variable"),
        "{error}"
    );
    let dataset = Dataset::from_numeric(
        "runs",
        vec![
            ("N".into(), vec![1e7, 1e7, 1e9, 1e9]),
            ("loss".into(), vec![5.0, 5.1, 3.0, 3.1]),
        ],
    )
    .unwrap();
    let table = Table::prepare(dataset, &spec().fit.recipe).unwrap();
    let error = Sensitivity::run(&spec(), &table, &Ctx::default()).unwrap_err();
    assert!(error.to_string().contains("needs at least 3"), "{error}");
}
