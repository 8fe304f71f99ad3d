//! The structure of the SVG a fit plot produces on a small synthetic fit, as a snapshot: the
//! texts (title, tick labels, legend) and how many of each drawing element there are. Tick
//! labels read as numbers (1e9, not 1000000000.0). The whole path is tested: the library's
//! curves and bands, `scalinglaws_report::plots` choosing them, the plot crate drawing them.

use scalinglaws::fit::{fit, FitData, FitSettings};
use scalinglaws::law::catalog;
use scalinglaws::uncertainty::FitRecord;
use scalinglaws_report::plots::{fit_page, residuals_page};

fn synthetic() -> FitData {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.69, 406.4, 0.34, 410.7, 0.28];
    let mut data = FitData {
        variables: vec![Vec::new(), Vec::new()],
        target: Vec::new(),
        weights: None,
        trials: None,
        exposure: None,
    };
    for i in 0..6 {
        for d in [1e10, 1e11, 1e12] {
            let n = 1e8 * 10f64.powf(i as f64 * 0.5);
            data.variables[0].push(n);
            data.variables[1].push(d);
            let wiggle = 1.0 + 0.003 * ((i * 7 % 5) as f64 - 2.0);
            data.target.push(law.eval(&params, &[n, d]) * wiggle);
        }
    }
    data
}

/// The texts of an SVG and the count of each element name, in a stable order.
fn structure(svg: &str) -> String {
    let mut texts = Vec::new();
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for piece in svg.split('<').skip(1) {
        let name: String = piece
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.is_empty() {
            continue;
        }
        *counts.entry(name.clone()).or_default() += 1;
        if name == "text" {
            if let Some((_, text)) = piece.split_once('>') {
                texts.push(text.trim().to_string());
            }
        }
    }
    format!("{counts:#?}\n{}", texts.join("\n"))
}

#[test]
fn fit_plot_structure() {
    let law = catalog::lookup("chinchilla").unwrap();
    let data = synthetic();
    let result = FitRecord::from(fit(&law, &data, &FitSettings::default()).unwrap());
    let page = fit_page(&law, &result, &data, 0, 0.95).unwrap();
    let svg = scalinglaws_plot::svg(&page, page.default_size()).unwrap();
    assert!(
        svg.contains("1e9") && !svg.contains("1000000000"),
        "tick labels"
    );
    insta::assert_snapshot!("fit_plot", structure(&svg));
}

/// With a calibration, the prediction interval is shaded beyond the data (the largest compute
/// 6·N·D), named in the legend, and drawn apart from the mean's band (dashed edges); without
/// one, the plot is the one above.
#[test]
fn fit_plot_shades_the_calibrated_interval_beyond_the_data() {
    use scalinglaws::uncertainty::{calibrate, CalibrationOptions};
    let law = catalog::lookup("chinchilla").unwrap();
    let data = synthetic();
    let settings = FitSettings::default();
    let mut result = FitRecord::from(fit(&law, &data, &settings).unwrap());
    let scale: Vec<f64> = (0..data.target.len())
        .map(|r| 6.0 * data.variables[0][r] * data.variables[1][r])
        .collect();
    let options = CalibrationOptions::default();
    let calibration = calibrate(&law, &data, "C", &scale, &settings, &options).unwrap();
    assert!(calibration.calibrated, "{}", calibration.describe());
    result.calibration = Some(calibration.require_rule());
    let page = fit_page(&law, &result, &data, 0, 0.95).unwrap();
    let svg = scalinglaws_plot::svg(&page, page.default_size()).unwrap();
    assert!(svg.contains("95% prediction interval, calibrated beyond the data"));
    assert!(svg.contains("stroke-dasharray") || svg.contains("<polyline"));
    insta::assert_snapshot!("fit_plot_calibrated", structure(&svg));
}

#[test]
fn residual_plot_has_a_panel_per_variable() {
    let law = catalog::lookup("chinchilla").unwrap();
    let data = synthetic();
    let result = fit(&law, &data, &FitSettings::default()).unwrap();
    let page = residuals_page(&law, &result, &data).unwrap();
    assert_eq!(page.panels.len(), 2);
    let svg = scalinglaws_plot::svg(&page, page.default_size()).unwrap();
    assert!(svg.contains("residuals against N") && svg.contains("residuals against D"));
    // One circle per row in each panel.
    assert_eq!(svg.matches("<circle").count(), 2 * data.target.len());
}

#[test]
fn schedule_plot_draws_rates_and_curves() {
    use scalinglaws::analysis::schedule::Prediction;
    use scalinglaws_report::plots::schedules_page;
    let prediction = |name: &str, drop: f64| Prediction {
        schedule: name.to_string(),
        steps_total: 1000,
        peak_lr: 1e-3,
        final_lr: 1e-3 * (1.0 - drop),
        final_loss: 3.0 - drop,
        steps: (0..10).map(|i| i * 111).collect(),
        lr: (0..10)
            .map(|i| 1e-3 * (1.0 - drop * i as f64 / 9.0))
            .collect(),
        loss: (0..10)
            .map(|i| 4.0 - 0.1 * i as f64 - drop * i as f64 / 9.0)
            .collect(),
        cooldowns: Vec::new(),
    };
    let predictions = vec![prediction("constant", 0.0), prediction("linear", 0.9)];
    let observed = vec![
        Some((
            (0..5).map(|i| i * 200).collect(),
            vec![4.0, 3.8, 3.6, 3.5, 3.4],
        )),
        None,
    ];
    let page = schedules_page("two schedules", &predictions, &observed).unwrap();
    assert_eq!(page.panels.len(), 2);
    let svg = scalinglaws_plot::svg(&page, page.default_size()).unwrap();
    assert!(
        svg.contains("learning rate") && svg.contains("two schedules") && svg.contains("linear")
    );
    // The logged points of the first schedule (the curves start at 5% of the run).
    assert_eq!(svg.matches("<circle").count(), 5);
    let many = vec![prediction("x", 0.1); 9];
    assert!(schedules_page("too many", &many, &[]).is_err());
}
