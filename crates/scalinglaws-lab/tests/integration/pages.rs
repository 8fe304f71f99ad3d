//! The lab's figures draw the curves they are given and nothing else: the markers of measured
//! curves (none for exact ones), every legend entry, the panels, and the same SVG every time.

use scalinglaws_lab::pages::{
    cascade_page, data_scaling_page, editing_page, recall_page, risk_page, snr_page, CascadePanel,
    CascadePlot, DataScalingPlot, EditingCurves, EditingPlot, LabCurve, RecallPlot, RiskPlot,
    ScalingCurve, SnrCurve, SnrPlot,
};
use scalinglaws_plot::Page;

fn curve(name: &str, points: &[(f64, f64)], markers: bool) -> LabCurve {
    LabCurve {
        name: name.into(),
        points: points.to_vec(),
        band: if markers {
            points.iter().map(|&(x, y)| (x, 0.9 * y, 1.1 * y)).collect()
        } else {
            Vec::new()
        },
        markers,
    }
}

fn svg(page: &Page) -> String {
    let text = scalinglaws_plot::svg(page, page.default_size()).unwrap();
    assert_eq!(
        text,
        scalinglaws_plot::svg(page, page.default_size()).unwrap(),
        "the same page drew two different SVGs"
    );
    text
}

#[test]
fn the_risk_plot_marks_monte_carlo_points_only() {
    let plot = RiskPlot {
        title: "SGD vs signSGD".into(),
        curves: vec![
            curve("exact", &[(1.0, 1.0), (10.0, 0.5), (100.0, 0.2)], false),
            curve(
                "Monte Carlo",
                &[(1.0, 1.1), (10.0, 0.6), (100.0, 0.3)],
                true,
            ),
        ],
    };
    let page = risk_page(&plot);
    let text = svg(&page);
    for label in ["SGD vs signSGD", "exact", "Monte Carlo", "step t"] {
        assert!(text.contains(label), "{label}");
    }
    // Three points and the legend's marker.
    assert_eq!(text.matches("<circle").count(), 3 + 1);
}

#[test]
fn the_scaling_plot_names_each_fitted_exponent() {
    let points = [(256.0, 0.3), (1024.0, 0.2), (4096.0, 0.12)];
    let plot = DataScalingPlot {
        title: "Data scaling".into(),
        optimizers: vec![ScalingCurve {
            curve: curve("signSGD", &points, true),
            fit: vec![(256.0, 0.31), (4096.0, 0.12)],
            exponent: -0.345,
        }],
    };
    let text = svg(&data_scaling_page(&plot));
    assert!(text.contains("signSGD fit: ∝ T^-0.345"));
    assert_eq!(text.matches("<circle").count(), 3 + 1);
}

#[test]
fn the_snr_plot_draws_normalised_cases_as_dashed_lines() {
    let case = |name: &str, normalised: bool, correlated: bool| SnrCurve {
        curve: curve(name, &[(64.0, 50.0), (512.0, 60.0)], true),
        normalised,
        correlated,
    };
    let plot = SnrPlot {
        title: "NVFP4".into(),
        cases: vec![
            case("standard, independent", false, false),
            case("standard, correlated", false, true),
            case("normalised, independent", true, false),
            case("normalised, correlated", true, true),
        ],
    };
    let text = svg(&snr_page(&plot));
    for label in ["standard, correlated", "normalised, independent"] {
        assert!(text.contains(label), "{label}");
    }
    // Markers for the two standard cases only (two points and a legend marker each).
    assert_eq!(text.matches("<circle").count(), 2 * 3);
}

#[test]
fn the_editing_plot_has_four_panels_and_its_horizons() {
    let line = |rate: f64| -> Vec<(f64, f64)> {
        (1..=10)
            .map(|t| (t as f64, (rate * t as f64).exp()))
            .collect()
    };
    let variant = |name: &str, rate: f64, horizon: Option<f64>| EditingCurves {
        name: name.into(),
        weight_norm: line(rate),
        value_norm: line(rate),
        retention: (1..=10)
            .map(|t| (t as f64, 1.0 - 0.05 * t as f64))
            .collect(),
        drift: line(rate),
        horizon,
        capability_horizon: horizon.map(|h| h - 1.0),
    };
    let plot = EditingPlot {
        title: "edits".into(),
        variants: vec![
            variant("standard", 0.3, Some(3.0)),
            variant("Norm-Anchor Scaling", 0.0, None),
        ],
        theory: vec![(0.0, 1.0), (10.0, 3f64.exp())],
        threshold: 0.9,
        drift_limit: 1.0,
    };
    let page = editing_page(&plot);
    assert_eq!(page.panels.len(), 4);
    let text = svg(&page);
    for label in [
        "theory without the anchor",
        "standard: retention past its line at edit 3",
        "standard: drift past its line at edit 2",
        "retention (line: 0.9)",
    ] {
        assert!(text.contains(label), "{label}");
    }
    assert!(!text.contains("Norm-Anchor Scaling: retention"));
}

#[test]
fn recall_and_cascade_plots_draw_every_curve() {
    let plot = RecallPlot {
        title: "recall".into(),
        capacity: vec![curve("capacity", &[(8.0, 2.0), (16.0, 12.0)], true)],
        bounds: vec![
            curve("JL-style lower bound", &[(8.0, 2.0), (16.0, 6.0)], false),
            curve("Dasgupta–Gupta JL bound", &[(8.0, 1.0), (16.0, 1.0)], false),
        ],
    };
    let text = svg(&recall_page(&plot));
    assert!(text.contains("JL-style lower bound") && text.contains("Dasgupta–Gupta"));
    assert_eq!(text.matches("<circle").count(), 2 + 1);
    let panel = |d: usize| CascadePanel {
        title: format!("d = {d}"),
        measured: vec![
            curve("direction 1", &[(1.0, 0.2), (10.0, 0.9)], true),
            curve("direction 2", &[(1.0, 0.1), (10.0, 0.6)], true),
        ],
        predicted: vec![
            curve("prediction", &[(1.0, 0.3), (10.0, 0.95)], false),
            curve("prediction", &[(1.0, 0.0), (10.0, 0.8)], false),
        ],
        level: 0.5,
    };
    let page = cascade_page(&CascadePlot {
        title: "cascade".into(),
        panels: vec![panel(64), panel(128)],
    });
    assert_eq!(page.columns, 2);
    let text = svg(&page);
    assert!(text.contains("d = 64") && text.contains("d = 128"));
    // Two points per direction per panel, and the first panel's two legend markers.
    assert_eq!(text.matches("<circle").count(), 2 * 2 * 2 + 2);
}
