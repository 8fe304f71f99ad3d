//! The plots draw the values they are given, and nothing else: plain points, curves and bands
//! in, the same numbers of marks out (no fit, law or analysis involved).

use scalinglaws_plot::inputs::{DesignPlot, FrontierPlot, ScheduleCurves, SchedulesPlot};
use scalinglaws_plot::kinds::{design_page, frontier_page, schedules_page};

#[test]
fn a_schedule_plot_draws_the_logged_points_it_is_given() {
    let curves = |name: &str, observed: Vec<(f64, f64)>| ScheduleCurves {
        name: name.into(),
        lr: (0..10).map(|i| (i as f64 * 100.0, 1e-3)).collect(),
        loss: (0..10)
            .map(|i| (i as f64 * 100.0, 4.0 - 0.1 * i as f64))
            .collect(),
        observed,
        band: Vec::new(),
    };
    let plot = SchedulesPlot {
        title: "two schedules".into(),
        schedules: vec![
            curves("constant", vec![(0.0, 4.0), (500.0, 3.6), (900.0, 3.2)]),
            curves("linear", Vec::new()),
        ],
    };
    let page = schedules_page(&plot);
    assert_eq!(page.panels.len(), 2);
    let svg = scalinglaws_plot::svg(&page, page.default_size()).unwrap();
    assert!(svg.contains("two schedules") && svg.contains("linear"));
    assert_eq!(svg.matches("<circle").count(), 3);
}

#[test]
fn a_frontier_names_its_exponents_and_draws() {
    let line = |scale: f64| {
        (0..5)
            .map(|i| (10f64.powi(20 + i), scale * 10f64.powi(i)))
            .collect()
    };
    let plot = FrontierPlot {
        n: line(1e9),
        n_band: Vec::new(),
        d: line(2e10),
        d_band: Vec::new(),
        exponents: Some((0.5, 0.5)),
        draws: 40,
        flops: "6*N*D".into(),
    };
    let page = frontier_page(&plot);
    let svg = scalinglaws_plot::svg(&page, page.default_size()).unwrap();
    assert!(
        svg.contains("N* ∝ C^0.500, D* ∝ C^0.500 (40 bootstrap draws)"),
        "title"
    );
    assert!(svg.contains("FLOPs = 6*N*D"));
}

#[test]
fn a_design_draws_every_candidate_run_so_far_and_run_to_launch() {
    let plot = DesignPlot {
        title: "2 runs to launch of 4 candidates".into(),
        candidates: vec![(1e8, 1e9), (1e8, 1e10), (1e9, 1e10), (1e9, 1e11)],
        existing: vec![(3e7, 6e8), (5e7, 1e9), (7e7, 2e9)],
        chosen: vec![(1e8, 1e10), (1e9, 1e11)],
    };
    let page = design_page(&plot);
    let svg = scalinglaws_plot::svg(&page, page.default_size()).unwrap();
    for text in [
        "2 runs to launch of 4 candidates",
        "model size N",
        "tokens D",
    ] {
        assert!(svg.contains(text), "{text}");
    }
    for label in ["candidates", "runs so far", "runs to launch"] {
        assert!(svg.contains(label), "{label}");
    }
    // Every point, and one marker per legend entry.
    assert_eq!(svg.matches("<circle").count(), 4 + 3 + 2 + 3);
}
