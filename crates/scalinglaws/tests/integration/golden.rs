//! Golden results on real published data (DESIGN.md, "Reference results").

use crate::common;

use scalinglaws::fit::{fit, FitSettings};
use scalinglaws::law::catalog;

const EPOCH_OBJECTIVE: f64 = 0.0010182740;

fn check_epoch_optimum(result: &scalinglaws::fit::FitResult) {
    assert_eq!(result.n_obs, 240);
    assert!(result.converged, "{:?}", result.termination);
    assert!(
        result.objective <= 1.01828e-3,
        "objective {:.10e} is above Epoch's optimum {EPOCH_OBJECTIVE:.10e}",
        result.objective
    );
    let law = result.law().unwrap();
    let params = result.param_values();
    for (n, d) in [(7e10, 1.4e12), (1e12, 2e13)] {
        let ours = law.eval(&params, &[n, d]);
        let epoch = common::epoch_prediction(n, d);
        let relative = (ours - epoch).abs() / epoch;
        assert!(
            relative < 1e-3,
            "at N={n:e}, D={d:e}: {ours} vs Epoch {epoch} ({relative:.2e})"
        );
    }
}

#[test]
fn chinchilla_default_search_reproduces_epoch() {
    let data = common::chinchilla_epoch();
    let law = catalog::lookup("chinchilla").unwrap();
    let result = fit(&law, &data, &FitSettings::default()).unwrap();
    eprintln!("{}", result.to_json());
    check_epoch_optimum(&result);
}

/// Epoch's grid: alpha, beta in 0..2 step 0.5; log E in -1..1 step 0.5; log A, log B in 0..25
/// step 5 (4,500 starts, every one polished from its grid point).
#[test]
fn chinchilla_epoch_full_grid_reproduces_epoch() {
    let data = common::chinchilla_epoch();
    let law = catalog::lookup("chinchilla").unwrap();
    let settings = common::epoch_grid();
    let result = fit(&law, &data, &settings).unwrap();
    assert_eq!(result.optima.starts, 4500);
    check_epoch_optimum(&result);
}

/// The same law written as a user formula (no catalog bounds or grid) finds the same optimum.
#[test]
fn chinchilla_as_a_user_formula_reproduces_epoch() {
    let data = common::chinchilla_epoch();
    let law =
        scalinglaws::Law::from_formula(catalog::CHINCHILLA_FORMULA, &|id| id == "N" || id == "D")
            .unwrap();
    let result = fit(&law, &data, &FitSettings::default()).unwrap();
    check_epoch_optimum(&result);
}
