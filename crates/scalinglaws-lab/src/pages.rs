//! The lab's pages (`scalinglaws sim NAME --plot FILE`), one per simulator: the plain values
//! each figure shows (filled by [`crate::figures`] from the simulator's own rows, so a figure
//! shows exactly the numbers its dataset holds) and the page drawn from them with the plot
//! crate's picture model. They live in the lab's wing, so the plot crate knows nothing of the lab:
//! - `sgd`: excess risk against the step, SGD exact and by Monte Carlo, and signSGD (log–log);
//! - `sgd-scaling`: the tuned excess risk against the training length per optimizer, with the
//!   fitted power laws;
//! - `nvfp4`: the dot product's SNR against the dimension, standard (solid) and normalised
//!   (dashed), with and without correlated products;
//! - `editing`: the weight and value norms, the retention of earlier edits and the drift on
//!   keys never edited, per edit, with and without Norm-Anchor Scaling;
//! - `recall`: the largest vocabulary recalled perfectly against the state size, with its lower
//!   bounds;
//! - `multi-index`: each direction's overlap against the samples per dimension, one panel per
//!   dimension: the cascade.

use scalinglaws_plot::inputs::{Band, Points};
use scalinglaws_plot::{Axis, Figure, Layer, Legend, Page};

/// One curve of a lab figure (`scalinglaws sim`): its values, their band (± two standard errors
/// over seeds or trials; empty: none), and whether they are drawn as markers joined by a thin
/// line (values measured at a few x: Monte Carlo means, tuned runs) or as a line alone (a curve
/// known exactly, a bound, a prediction).
#[derive(Debug, Clone, PartialEq)]
pub struct LabCurve {
    pub name: String,
    pub points: Points,
    pub band: Band,
    pub markers: bool,
}

/// SGD and signSGD on power-law regression: each optimizer's mean excess risk against the step.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskPlot {
    pub title: String,
    pub curves: Vec<LabCurve>,
}

/// Data scaling: each optimizer's tuned excess risk against the training length, with the
/// power law fitted through it.
#[derive(Debug, Clone, PartialEq)]
pub struct DataScalingPlot {
    pub title: String,
    pub optimizers: Vec<ScalingCurve>,
}

/// One optimizer's tuned points and its fitted power law, excess risk ∝ T^exponent.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingCurve {
    pub curve: LabCurve,
    pub fit: Points,
    pub exponent: f64,
}

/// NVFP4 dot products: the signal-to-noise ratio against the dimension, one curve per case.
#[derive(Debug, Clone, PartialEq)]
pub struct SnrPlot {
    pub title: String,
    pub cases: Vec<SnrCurve>,
}

/// One case of the SNR plot: normalised (drawn dashed) or not, correlated (its own color) or not.
#[derive(Debug, Clone, PartialEq)]
pub struct SnrCurve {
    pub curve: LabCurve,
    pub normalised: bool,
    pub correlated: bool,
}

/// Sequential editing: each variant's norms, its retention of earlier edits and its drift on
/// keys never edited, per edit.
#[derive(Debug, Clone, PartialEq)]
pub struct EditingPlot {
    pub title: String,
    pub variants: Vec<EditingCurves>,
    /// The weight norm the theory predicts without the anchor (empty: none).
    pub theory: Points,
    /// The retention below which the editing horizon ends.
    pub threshold: f64,
    /// The drift above which the capability horizon ends.
    pub drift_limit: f64,
}

/// One variant's curves against the edit, and its horizons (the first edit whose retention is
/// below the threshold; the first whose drift is above the limit).
#[derive(Debug, Clone, PartialEq)]
pub struct EditingCurves {
    pub name: String,
    pub weight_norm: Points,
    pub value_norm: Points,
    pub retention: Points,
    pub drift: Points,
    pub horizon: Option<f64>,
    pub capability_horizon: Option<f64>,
}

/// Associative recall: the largest vocabulary recalled perfectly against the state size, with
/// its lower bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallPlot {
    pub title: String,
    /// The Monte Carlo capacity (and its median over trials, a second curve).
    pub capacity: Vec<LabCurve>,
    /// The lower bounds, each a line.
    pub bounds: Vec<LabCurve>,
}

/// The spectral estimator's cascade: one panel per dimension, each direction's overlap against
/// the samples per dimension κ, with the spiked-random-matrix prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct CascadePlot {
    pub title: String,
    pub panels: Vec<CascadePanel>,
}

/// One dimension's curves: the measured overlap and the prediction of each direction, and the
/// overlap at which a transition is read.
#[derive(Debug, Clone, PartialEq)]
pub struct CascadePanel {
    pub title: String,
    pub measured: Vec<LabCurve>,
    pub predicted: Vec<LabCurve>,
    pub level: f64,
}

/// The gray of reference curves (theory, levels).
const GRAY: usize = 6;

/// A curve's layers in `color`: its band, then a line, labelled unless it carries markers,
/// which then carry the label.
fn curve_layers(curve: &LabCurve, color: usize, dashed: bool, labelled: bool) -> Vec<Layer> {
    let label = labelled.then(|| curve.name.clone());
    let mut layers = Vec::new();
    if !curve.band.is_empty() {
        layers.push(Layer::Band {
            points: curve.band.clone(),
            color,
        });
    }
    layers.push(Layer::Line {
        label: if curve.markers { None } else { label.clone() },
        points: curve.points.clone(),
        color,
        dashed,
    });
    if curve.markers {
        layers.push(Layer::Points {
            label,
            points: curve.points.clone(),
            color,
        });
    }
    layers
}

/// `sim sgd`: each optimizer's excess risk against the step, log–log (step 0 is off the axis).
pub fn risk_page(plot: &RiskPlot) -> Page {
    let layers = plot
        .curves
        .iter()
        .enumerate()
        .flat_map(|(i, curve)| curve_layers(curve, i, false, true))
        .collect();
    Page::single(Figure {
        title: plot.title.clone(),
        x: Axis::log("step t"),
        y: Axis::log("excess risk E[R(w_t)] − σ²/2"),
        layers,
        legend: Legend::UpperRight,
    })
}

/// `sim sgd-scaling`: the tuned points of each optimizer with its fitted power law (dashed).
pub fn data_scaling_page(plot: &DataScalingPlot) -> Page {
    let mut layers = Vec::new();
    for (i, optimizer) in plot.optimizers.iter().enumerate() {
        layers.extend(curve_layers(&optimizer.curve, i, false, true));
        layers.push(Layer::Line {
            label: Some(format!(
                "{} fit: ∝ T^{:.3}",
                optimizer.curve.name, optimizer.exponent
            )),
            points: optimizer.fit.clone(),
            color: i,
            dashed: true,
        });
    }
    Page::single(Figure {
        title: plot.title.clone(),
        x: Axis::log("training length T (steps, one sample each)"),
        y: Axis::log("excess risk at the end, learning rate tuned"),
        layers,
        legend: Legend::UpperRight,
    })
}

/// `sim nvfp4`: the SNR of each case against the dimension. A color per correlation; the
/// standard vectors as markers with their band, the normalised ones as a dashed line over them.
pub fn snr_page(plot: &SnrPlot) -> Page {
    let mut layers = Vec::new();
    let (standard, normalised): (Vec<_>, Vec<_>) = plot.cases.iter().partition(|c| !c.normalised);
    for case in standard.into_iter().chain(normalised) {
        let color = usize::from(case.correlated);
        if case.normalised {
            let line = LabCurve {
                band: Vec::new(),
                markers: false,
                ..case.curve.clone()
            };
            layers.extend(curve_layers(&line, color, true, true));
        } else {
            layers.extend(curve_layers(&case.curve, color, false, true));
        }
    }
    Page::single(Figure {
        title: plot.title.clone(),
        x: Axis::log("dimension d"),
        y: Axis::log("SNR = E[s²] / E[(ŝ − s)²]"),
        layers,
        legend: Legend::UpperLeft,
    })
}

/// `sim editing`: four panels against the edit, a color per variant: the weight norm (with the
/// theory's, dashed) and the solved values' norm on log axes, then the retention of earlier
/// edits and the drift on keys never edited, each with its level and each variant's horizon.
pub fn editing_page(plot: &EditingPlot) -> Page {
    let mut weight = variant_lines(plot, |v| &v.weight_norm, true);
    if !plot.theory.is_empty() {
        weight.push(Layer::Line {
            label: Some("theory without the anchor".into()),
            points: plot.theory.clone(),
            color: GRAY,
            dashed: true,
        });
    }
    let mut retention = vec![Layer::HLine { y: plot.threshold }];
    retention.extend(variant_lines(plot, |v| &v.retention, false));
    retention.extend(horizons(plot, |v| v.horizon, "retention"));
    let mut drift = vec![Layer::HLine {
        y: plot.drift_limit,
    }];
    drift.extend(variant_lines(plot, |v| &v.drift, false));
    drift.extend(horizons(plot, |v| v.capability_horizon, "drift"));
    let panel = |title: String, y: Axis, layers, legend| Figure {
        title,
        x: Axis::linear("edit t"),
        y,
        layers,
        legend,
    };
    let value = variant_lines(plot, |v| &v.value_norm, false);
    Page {
        title: plot.title.clone(),
        columns: 2,
        panels: vec![
            panel(
                "weight norm".into(),
                Axis::log("‖W_t‖_F"),
                weight,
                Legend::UpperLeft,
            ),
            panel(
                "solved value norm".into(),
                Axis::log("‖v_t‖"),
                value,
                Legend::UpperLeft,
            ),
            panel(
                format!("retention (line: {})", plot.threshold),
                Axis::linear("earlier edits retained (fraction)"),
                retention,
                Legend::UpperRight,
            ),
            panel(
                format!("drift on keys never edited (line: {})", plot.drift_limit),
                Axis::log("‖W_t x − W_0 x‖ / ‖W_0 x‖"),
                drift,
                Legend::UpperLeft,
            ),
        ],
    }
}

/// One line per variant of the values `pick` chooses, named when `labelled`.
fn variant_lines(
    plot: &EditingPlot,
    pick: fn(&EditingCurves) -> &Points,
    labelled: bool,
) -> Vec<Layer> {
    plot.variants
        .iter()
        .enumerate()
        .map(|(i, variant)| Layer::Line {
            label: labelled.then(|| variant.name.clone()),
            points: pick(variant).clone(),
            color: i,
            dashed: false,
        })
        .collect()
}

/// A vertical line at each variant's horizon of `what` (none where it is not reached).
fn horizons(plot: &EditingPlot, pick: fn(&EditingCurves) -> Option<f64>, what: &str) -> Vec<Layer> {
    let mut layers = Vec::new();
    for (i, variant) in plot.variants.iter().enumerate() {
        let Some(edit) = pick(variant) else {
            continue;
        };
        layers.push(Layer::VLine {
            x: edit,
            color: i,
            label: Some(format!(
                "{}: {what} past its line at edit {edit}",
                variant.name
            )),
        });
    }
    layers
}

/// `sim recall`: the Monte Carlo capacity (markers) and the lower bounds (lines) against the
/// state size, the vocabulary on a log axis.
pub fn recall_page(plot: &RecallPlot) -> Page {
    let measured = plot.capacity.iter().enumerate();
    let mut layers: Vec<Layer> = measured
        .flat_map(|(i, c)| curve_layers(c, if i == 0 { 0 } else { 5 }, false, true))
        .collect();
    for (i, bound) in plot.bounds.iter().enumerate() {
        let color = if i == 0 { 1 } else { GRAY };
        layers.extend(curve_layers(bound, color, i > 0, true));
    }
    Page::single(Figure {
        title: plot.title.clone(),
        x: Axis::linear("state size d"),
        y: Axis::log("largest vocabulary recalled perfectly"),
        layers,
        legend: Legend::UpperLeft,
    })
}

/// `sim multi-index`: one panel per dimension, each direction's overlap against κ (log axis)
/// with its prediction dashed and the level at which transitions are read; the first panel
/// carries the legend.
pub fn cascade_page(plot: &CascadePlot) -> Page {
    let panels: Vec<Figure> = plot
        .panels
        .iter()
        .enumerate()
        .map(|(p, panel)| cascade_panel(panel, p == 0))
        .collect();
    Page {
        title: plot.title.clone(),
        columns: panels.len().clamp(1, 3),
        panels,
    }
}

fn cascade_panel(panel: &CascadePanel, labelled: bool) -> Figure {
    let mut layers = vec![Layer::HLine { y: panel.level }];
    for (j, curve) in panel.measured.iter().enumerate() {
        layers.extend(curve_layers(curve, j, false, labelled));
    }
    for (j, curve) in panel.predicted.iter().enumerate() {
        layers.extend(curve_layers(curve, j, true, labelled && j == 0));
    }
    Figure {
        title: panel.title.clone(),
        x: Axis::log("samples per dimension κ = n/d"),
        y: Axis::linear("overlap ‖P̂ w_j‖²"),
        layers,
        legend: Legend::UpperLeft,
    }
}
