//! The picture model and its one renderer: a page of panels, each a figure of layers (points,
//! lines, bands, shaded spans, bars) on linear or log axes, drawn by plotters to SVG or PNG.
//! Log axes are drawn in log10 units, with ticks at round numbers (every decade, or 1-2-5 steps,
//! or every integer mantissa, or round steps in the data's units, so that a short range still
//! gets at least a handful of labels) labelled as numbers (1e9, 2e9, 2.5), so every figure
//! shares one coordinate type and the tick labels stay readable. An SVG can be drawn at a
//! multiple of its size and shown at its size ([`svg_scaled`]): plotters draws on whole
//! pixels, so a finer canvas draws smooth curves.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::font;

/// One axis: its label and whether it is logarithmic.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub label: String,
    pub log: bool,
}

impl Axis {
    pub fn log(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            log: true,
        }
    }

    pub fn linear(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            log: false,
        }
    }

    /// Data value → drawing coordinate (log10 on a log axis; None when it cannot be drawn).
    fn to_coord(&self, v: f64) -> Option<f64> {
        let c = if self.log {
            (v > 0.0).then(|| v.log10())?
        } else {
            v
        };
        c.is_finite().then_some(c)
    }
}

/// Something drawn in a figure. Colors index a fixed colorblind-safe palette.
#[derive(Debug, Clone, PartialEq)]
pub enum Layer {
    Points {
        label: Option<String>,
        points: Vec<(f64, f64)>,
        color: usize,
    },
    /// Small, pale points behind the others (the many candidates a few runs are chosen from).
    FaintPoints {
        label: Option<String>,
        points: Vec<(f64, f64)>,
        color: usize,
    },
    Line {
        label: Option<String>,
        points: Vec<(f64, f64)>,
        color: usize,
        dashed: bool,
    },
    /// An interval band: (x, lower, upper).
    Band {
        points: Vec<(f64, f64, f64)>,
        color: usize,
    },
    /// A prediction interval band (x, lower, upper): a fainter fill with dashed edges, so that
    /// it reads apart from a [`Layer::Band`] of the mean drawn inside it.
    PredictionBand {
        points: Vec<(f64, f64, f64)>,
        color: usize,
        label: Option<String>,
    },
    /// A shaded range of x, e.g. where a curve extrapolates beyond the data.
    Span { from: f64, to: f64, label: String },
    /// A horizontal reference line (0 for residuals).
    HLine { y: f64 },
    /// A vertical marker line.
    VLine {
        x: f64,
        color: usize,
        label: Option<String>,
    },
    /// Histogram bars: (from, to, count).
    Bars {
        bars: Vec<(f64, f64, f64)>,
        color: usize,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub title: String,
    pub x: Axis,
    pub y: Axis,
    pub layers: Vec<Layer>,
    /// Where the legend sits (away from the data: upper left for rising curves).
    pub legend: Legend,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Legend {
    #[default]
    UpperRight,
    UpperLeft,
}

/// Panels laid out in a grid of `columns`.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub title: String,
    pub columns: usize,
    pub panels: Vec<Figure>,
}

impl Page {
    pub fn single(figure: Figure) -> Page {
        Page {
            title: String::new(),
            columns: 1,
            panels: vec![figure],
        }
    }

    /// A size that gives each panel about 640 × 420 pixels.
    pub fn default_size(&self) -> (u32, u32) {
        let columns = self.columns.max(1) as u32;
        let rows = self.panels.len().div_ceil(self.columns.max(1)).max(1) as u32;
        let title = if self.title.is_empty() { 0 } else { 40 };
        (640 * columns, 420 * rows + title)
    }
}

/// Okabe–Ito: distinguishable with every common color-vision deficiency.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(240, 228, 66),
];

/// The color index drawn in black (markers that must stand out from every series).
pub const BLACK_INDEX: usize = usize::MAX;

pub fn color(index: usize) -> RGBColor {
    if index == BLACK_INDEX {
        return RGBColor(0, 0, 0);
    }
    PALETTE[index % PALETTE.len()]
}

/// An error of drawing (plotters reports them as text).
#[derive(Debug)]
pub struct DrawError(pub String);

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "drawing failed: {}", self.0)
    }
}

impl std::error::Error for DrawError {}

fn drawing<E: std::fmt::Debug>(error: E) -> DrawError {
    DrawError(format!("{error:?}"))
}

/// The page as an SVG document.
pub fn svg(page: &Page, size: (u32, u32)) -> Result<String, DrawError> {
    svg_scaled(page, size, 1)
}

/// The page as an SVG document of `size`, drawn on a canvas `scale` times finer (every length
/// and font scaled with it, the view box the finer canvas): the same picture, with curves and
/// markers placed to 1/`scale` of a pixel.
pub fn svg_scaled(page: &Page, size: (u32, u32), scale: u32) -> Result<String, DrawError> {
    font::register();
    let scale = scale.max(1);
    let canvas = (size.0 * scale, size.1 * scale);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, canvas).into_drawing_area();
        draw_page(&root, page, scale)?;
        root.present().map_err(drawing)?;
    }
    if scale > 1 {
        let drawn = format!("<svg width=\"{}\" height=\"{}\"", canvas.0, canvas.1);
        let shown = format!("<svg width=\"{}\" height=\"{}\"", size.0, size.1);
        text = text.replacen(&drawn, &shown, 1);
    }
    Ok(text)
}

/// The page as PNG, written to `path`.
pub fn png(page: &Page, size: (u32, u32), path: &std::path::Path) -> Result<(), DrawError> {
    font::register();
    let root = BitMapBackend::new(path, size).into_drawing_area();
    draw_page(&root, page, 1)?;
    root.present().map_err(drawing)
}

fn draw_page<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    page: &Page,
    scale: u32,
) -> Result<(), DrawError> {
    root.fill(&WHITE).map_err(drawing)?;
    let body = if page.title.is_empty() {
        root.clone()
    } else {
        root.titled(&page.title, (font::FAMILY, 22.0 * f64::from(scale)))
            .map_err(drawing)?
    };
    let columns = page.columns.max(1);
    let rows = page.panels.len().div_ceil(columns).max(1);
    let areas = body.split_evenly((rows, columns));
    for (figure, area) in page.panels.iter().zip(areas.iter()) {
        draw_figure(area, figure, scale)?;
    }
    Ok(())
}

/// Range of the coordinates of every layer, padded by 4 %.
fn extent(figure: &Figure) -> Option<((f64, f64), (f64, f64))> {
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let (x, y) = (&figure.x, &figure.y);
    for layer in &figure.layers {
        match layer {
            Layer::Points { points, .. }
            | Layer::FaintPoints { points, .. }
            | Layer::Line { points, .. } => {
                for &(a, b) in points {
                    if let (Some(a), Some(b)) = (x.to_coord(a), y.to_coord(b)) {
                        xs.push(a);
                        ys.push(b);
                    }
                }
            }
            Layer::Band { points, .. } | Layer::PredictionBand { points, .. } => {
                for &(a, lo, hi) in points {
                    if let (Some(a), Some(lo), Some(hi)) =
                        (x.to_coord(a), y.to_coord(lo), y.to_coord(hi))
                    {
                        xs.push(a);
                        ys.extend([lo, hi]);
                    }
                }
            }
            Layer::Bars { bars, .. } => {
                for &(from, to, count) in bars {
                    xs.extend([from, to].iter().filter_map(|v| x.to_coord(*v)));
                    ys.extend([0.0, count]);
                }
            }
            Layer::HLine { y: value } => ys.extend(y.to_coord(*value)),
            Layer::VLine { x: value, .. } => xs.extend(x.to_coord(*value)),
            Layer::Span { .. } => {}
        }
    }
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let pad = if hi > lo { 0.04 * (hi - lo) } else { 0.5 };
        Some((lo - pad, hi + pad))
    };
    let (xr, (y0, y1)) = (range(&xs)?, range(&ys)?);
    // Above histogram bars, room for the legend: the marker lines stop at the bars' top.
    let y1 = match bars_top(figure) {
        Some(top) => y1.max(top * BAR_HEADROOM),
        None => y1,
    };
    Some((xr, (y0, y1)))
}

/// The plot's top over histogram bars (the legend sits above, the marker lines end here).
const BAR_HEADROOM: f64 = 1.5;

/// A little above the tallest histogram bar, when the figure has bars.
fn bars_top(figure: &Figure) -> Option<f64> {
    let top = figure
        .layers
        .iter()
        .filter_map(|l| match l {
            Layer::Bars { bars, .. } => bars.iter().map(|b| b.2).reduce(f64::max),
            _ => None,
        })
        .reduce(f64::max)?;
    (top > 0.0).then_some(top * 1.06)
}

/// Round numbers between lo and hi (drawing coordinates): about `target` of them, at steps of
/// 1, 2 or 5 times a power of ten in the data's own units.
pub fn ticks(axis: &Axis, lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if !axis.log {
        return nice_steps(lo, hi, target);
    }
    let decades = hi - lo;
    if decades >= 2.0 {
        // Whole decades, every k-th so that about `target` remain.
        let step = (decades / target as f64).ceil().max(1.0);
        let first = (lo / step).ceil() as i64;
        let last = (hi / step).floor() as i64;
        return (first..=last).map(|k| k as f64 * step).collect();
    }
    // Under two decades: 1-2-5, else 1-2-3-5, else every integer mantissa (minor values),
    // the first that labels at least four ticks.
    let mantissas: [&[f64]; 3] = [
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ];
    for set in mantissas {
        let mut values = Vec::new();
        for exponent in (lo.floor() as i64)..=(hi.ceil() as i64) {
            for m in set {
                values.push((m * 10f64.powi(exponent as i32)).log10());
            }
        }
        values.retain(|c| *c >= lo && *c <= hi);
        if values.len() >= 4 && values.len() <= 2 * target.max(2) {
            return values;
        }
    }
    // Less than about half a decade: round steps in the data's units, finer until there are
    // at least `target` of them (2, 2.2, 2.4, ... rather than 2, 2.5, 3).
    let (a, b) = (10f64.powf(lo), 10f64.powf(hi));
    let mut asked = target.max(1);
    loop {
        let values = nice_steps(a, b, asked);
        if values.len() >= target || asked >= 4 * target.max(1) {
            return values
                .into_iter()
                .filter(|v| *v > 0.0)
                .map(f64::log10)
                .collect();
        }
        asked += 1;
    }
}

/// Multiples of 1, 2 or 5 × 10^k in [lo, hi], about `target` of them.
fn nice_steps(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return vec![lo];
    }
    let raw = (hi - lo) / target.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Tick label of a drawing coordinate: the number itself on a linear axis, 10^c written as a
/// number (1e9, 2e9, 2.5) on a log axis.
pub fn tick_label(axis: &Axis, c: f64) -> String {
    if !axis.log {
        return short_number(c);
    }
    let value = 10f64.powf(c);
    let exponent = c.floor();
    let mantissa = value / 10f64.powf(exponent);
    if (mantissa - mantissa.round()).abs() < 0.05 || mantissa >= 9.95 {
        let (m, e) = if mantissa.round() >= 10.0 {
            (1.0, exponent + 1.0)
        } else {
            (mantissa.round(), exponent)
        };
        if (-2.0..=3.0).contains(&e) {
            return short_number(m * 10f64.powf(e));
        }
        return format!("{m}e{e}");
    }
    if (-2.0..=3.0).contains(&exponent) {
        return short_number(value);
    }
    format!("{mantissa:.1}e{exponent}")
}

/// 0.25, 12, 3.5, 1e6: at most three significant digits, no trailing zeros.
fn short_number(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor();
    if !(-3.0..5.0).contains(&magnitude) {
        return format!("{v:.1e}");
    }
    let decimals = (2.0 - magnitude).clamp(0.0, 6.0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Font sizes (plotters' units: about 0.81 of a CSS pixel in an SVG): tick labels and legends
/// at 14 show at 11.3 px, above the 10 px a page needs to stay readable.
const TICK_FONT: f64 = 14.0;
const AXIS_FONT: f64 = 15.0;
const CAPTION_FONT: f64 = 18.0;

fn draw_figure<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    figure: &Figure,
    scale: u32,
) -> Result<(), DrawError> {
    let (s, f) = (scale as i32, f64::from(scale));
    let Some(((x0, x1), (y0, y1))) = extent(figure) else {
        area.draw(&Text::new(
            format!("{}: nothing to draw", figure.title),
            (20 * s, 20 * s),
            (font::FAMILY, 16.0 * f),
        ))
        .map_err(drawing)?;
        return Ok(());
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&figure.title, (font::FAMILY, CAPTION_FONT * f))
        .margin(12 * scale)
        .x_label_area_size(46 * scale)
        .y_label_area_size(68 * scale)
        .build_cartesian_2d(
            Ticked::new(x0, x1, ticks(&figure.x, x0, x1, 6)),
            Ticked::new(y0, y1, ticks(&figure.y, y0, y1, 6)),
        )
        .map_err(drawing)?;
    let (x_axis, y_axis) = (figure.x.clone(), figure.y.clone());
    let x_format = move |c: &f64| tick_label(&x_axis, *c);
    let y_format = move |c: &f64| tick_label(&y_axis, *c);
    chart
        .configure_mesh()
        .x_desc(&figure.x.label)
        .y_desc(&figure.y.label)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .label_style((font::FAMILY, TICK_FONT * f))
        .axis_desc_style((font::FAMILY, AXIS_FONT * f))
        .light_line_style(RGBColor(235, 235, 235).stroke_width(scale))
        .bold_line_style(BLACK.mix(0.2).stroke_width(scale))
        .axis_style(BLACK.stroke_width(scale))
        .set_all_tick_mark_size(5 * s)
        .draw()
        .map_err(drawing)?;
    let mut labelled = false;
    let top = bars_top(figure).map_or(y1, |t| t.min(y1));
    for layer in &figure.layers {
        labelled |= draw_layer(&mut chart, figure, layer, (y0, y1, top), scale)?;
    }
    if labelled {
        chart
            .configure_series_labels()
            .position(match figure.legend {
                Legend::UpperRight => SeriesLabelPosition::UpperRight,
                Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
            })
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200).stroke_width(scale))
            .margin(10 * scale)
            .legend_area_size(30 * scale)
            .label_font((font::FAMILY, TICK_FONT * f))
            .draw()
            .map_err(drawing)?;
    }
    Ok(())
}

/// A linear coordinate with our own tick positions.
#[derive(Debug, Clone)]
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
        Ticked { lo, hi, ticks }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let share = (value - self.lo) / (self.hi - self.lo);
        let length = f64::from(limit.1 - limit.0);
        if !share.is_finite() {
            return limit.0;
        }
        limit.0 + (length * share + 1e-3).floor() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<Ticked, Ticked>>;

/// Draws one layer; true when it added a legend entry.
fn draw_layer<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    figure: &Figure,
    layer: &Layer,
    (y0, y1, top): (f64, f64, f64),
    scale: u32,
) -> Result<bool, DrawError> {
    let s = scale as i32;
    let (x, y) = (&figure.x, &figure.y);
    let at = |a: f64, b: f64| Some((x.to_coord(a)?, y.to_coord(b)?));
    match layer {
        Layer::Points {
            label,
            points,
            color: c,
        } => return draw_points(chart, points, (*c, false), label.as_deref(), &at, scale),
        Layer::FaintPoints {
            label,
            points,
            color: c,
        } => return draw_points(chart, points, (*c, true), label.as_deref(), &at, scale),
        Layer::Line {
            label,
            points,
            color: c,
            dashed,
        } => return draw_line(chart, points, (*c, *dashed), label.as_deref(), &at, scale),
        Layer::Band { points, color: c } => draw_band(chart, points, *c, &at)?,
        Layer::PredictionBand {
            points,
            color: c,
            label,
        } => {
            return draw_prediction_band(chart, points, *c, label.as_deref(), &at, scale);
        }
        Layer::Span { from, to, label } => {
            if let (Some(a), Some(b)) = (x.to_coord(*from), x.to_coord(*to)) {
                return draw_span(chart, (a, b), label, (y0, y1), scale);
            }
        }
        Layer::HLine { y: value } => {
            if let Some(c) = y.to_coord(*value) {
                let (x0, x1) = (chart.x_range().start, chart.x_range().end);
                chart
                    .draw_series(LineSeries::new(
                        vec![(x0, c), (x1, c)],
                        BLACK.mix(0.5).stroke_width(scale),
                    ))
                    .map_err(drawing)?;
            }
        }
        Layer::VLine {
            x: value,
            color: c,
            label,
        } => {
            if let Some(a) = x.to_coord(*value) {
                let style = color(*c).stroke_width(2 * scale);
                let drawn = chart
                    .draw_series(LineSeries::new(vec![(a, y0), (a, top)], style))
                    .map_err(drawing)?;
                if let Some(label) = label {
                    drawn.label(label).legend(move |(px, py)| {
                        PathElement::new(vec![(px, py), (px + 20 * s, py)], style)
                    });
                    return Ok(true);
                }
            }
        }
        Layer::Bars { bars, color: c } => {
            let style = color(*c).mix(0.6).filled();
            chart
                .draw_series(bars.iter().filter_map(|&(from, to, count)| {
                    Some(Rectangle::new(
                        [(x.to_coord(from)?, 0.0), (x.to_coord(to)?, count)],
                        style,
                    ))
                }))
                .map_err(drawing)?;
        }
    }
    Ok(false)
}

/// A shaded range of x (in axis coordinates) with its legend entry.
fn draw_span<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    (a, b): (f64, f64),
    label: &str,
    (y0, y1): (f64, f64),
    scale: u32,
) -> Result<bool, DrawError> {
    let s = scale as i32;
    let style = RGBColor(120, 120, 120).mix(0.10).filled();
    chart
        .draw_series(std::iter::once(Rectangle::new([(a, y0), (b, y1)], style)))
        .map_err(drawing)?
        .label(label)
        .legend(move |(px, py)| {
            Rectangle::new([(px, py - 5 * s), (px + 20 * s, py + 5 * s)], style)
        });
    Ok(true)
}

/// A scatter of points, or of small pale ones when `faint`; true when it adds a legend entry.
fn draw_points<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    points: &[(f64, f64)],
    (c, faint): (usize, bool),
    label: Option<&str>,
    at: &dyn Fn(f64, f64) -> Option<(f64, f64)>,
    scale: u32,
) -> Result<bool, DrawError> {
    let s = scale as i32;
    let (alpha, radius) = if faint { (0.25, 2 * s) } else { (0.75, 3 * s) };
    let style = color(c).mix(alpha).filled();
    let drawn = chart
        .draw_series(
            points
                .iter()
                .filter_map(|&(a, b)| at(a, b))
                .map(move |p| Circle::new(p, radius, style)),
        )
        .map_err(drawing)?;
    if let Some(label) = label {
        drawn
            .label(label)
            .legend(move |(px, py)| Circle::new((px + 10 * s, py), radius + s, style));
        return Ok(true);
    }
    Ok(false)
}

/// A curve, solid or dashed; true when it adds a legend entry.
fn draw_line<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    points: &[(f64, f64)],
    (c, dashed): (usize, bool),
    label: Option<&str>,
    at: &dyn Fn(f64, f64) -> Option<(f64, f64)>,
    scale: u32,
) -> Result<bool, DrawError> {
    let s = scale as i32;
    let style = color(c).stroke_width(2 * scale);
    let coords: Vec<(f64, f64)> = points.iter().filter_map(|&(a, b)| at(a, b)).collect();
    let drawn = if dashed {
        chart
            .draw_series(DashedLineSeries::new(coords, 6 * s, 4 * s, style))
            .map_err(drawing)?
    } else {
        chart
            .draw_series(LineSeries::new(coords, style))
            .map_err(drawing)?
    };
    let Some(label) = label else {
        return Ok(false);
    };
    let drawn = drawn.label(label);
    if dashed {
        // A dashed line's legend is dashed too: two strokes with the series' gap between.
        drawn.legend(move |(px, py)| {
            EmptyElement::at((px, py))
                + PathElement::new(vec![(0, 0), (8 * s, 0)], style)
                + PathElement::new(vec![(12 * s, 0), (20 * s, 0)], style)
        });
    } else {
        drawn.legend(move |(px, py)| PathElement::new(vec![(px, py), (px + 20 * s, py)], style));
    }
    Ok(true)
}

/// A confidence band: a faint fill between its lower and upper edges.
fn draw_band<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    points: &[(f64, f64, f64)],
    c: usize,
    at: &dyn Fn(f64, f64) -> Option<(f64, f64)>,
) -> Result<(), DrawError> {
    let lower: Vec<(f64, f64)> = points.iter().filter_map(|&(a, lo, _)| at(a, lo)).collect();
    let upper: Vec<(f64, f64)> = points.iter().filter_map(|&(a, _, hi)| at(a, hi)).collect();
    if lower.len() >= 2 && upper.len() == lower.len() {
        let polygon: Vec<(f64, f64)> = lower.into_iter().chain(upper.into_iter().rev()).collect();
        chart
            .draw_series(std::iter::once(Polygon::new(
                polygon,
                color(c).mix(0.18).filled(),
            )))
            .map_err(drawing)?;
    }
    Ok(())
}

/// A prediction band: a faint fill between its edges and dashed edges; true when it adds a
/// legend entry.
fn draw_prediction_band<'a, DB: DrawingBackend + 'a>(
    chart: &mut Chart<'a, DB>,
    points: &[(f64, f64, f64)],
    c: usize,
    label: Option<&str>,
    at: &dyn Fn(f64, f64) -> Option<(f64, f64)>,
    scale: u32,
) -> Result<bool, DrawError> {
    let s = scale as i32;
    let lower: Vec<(f64, f64)> = points.iter().filter_map(|&(a, lo, _)| at(a, lo)).collect();
    let upper: Vec<(f64, f64)> = points.iter().filter_map(|&(a, _, hi)| at(a, hi)).collect();
    if lower.len() < 2 || upper.len() != lower.len() {
        return Ok(false);
    }
    let fill = color(c).mix(0.08).filled();
    let edge = color(c).mix(0.8).stroke_width(scale);
    let polygon: Vec<(f64, f64)> = lower.iter().chain(upper.iter().rev()).copied().collect();
    chart
        .draw_series(std::iter::once(Polygon::new(polygon, fill)))
        .map_err(drawing)?;
    chart
        .draw_series(DashedLineSeries::new(upper, 4 * s, 3 * s, edge))
        .map_err(drawing)?;
    let drawn = chart
        .draw_series(DashedLineSeries::new(lower, 4 * s, 3 * s, edge))
        .map_err(drawing)?;
    let Some(label) = label else {
        return Ok(false);
    };
    let (legend_fill, legend_edge) = (
        RGBColor(90, 90, 90).mix(0.12).filled(),
        RGBColor(90, 90, 90).stroke_width(scale),
    );
    drawn.label(label).legend(move |(px, py)| {
        EmptyElement::at((px, py))
            + Rectangle::new([(0, -5 * s), (20 * s, 5 * s)], legend_fill)
            + PathElement::new(vec![(0, -5 * s), (20 * s, -5 * s)], legend_edge)
            + PathElement::new(vec![(0, 5 * s), (20 * s, 5 * s)], legend_edge)
    });
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_tick_labels_read_as_numbers() {
        let log = Axis::log("N");
        assert_eq!(tick_label(&log, 9.0), "1e9");
        assert_eq!(tick_label(&log, 9.5), "3.2e9");
        assert_eq!(tick_label(&log, 12.0), "1e12");
        assert_eq!(tick_label(&log, 0.0), "1");
        assert_eq!(tick_label(&log, 2.0), "100");
        assert_eq!(tick_label(&log, -1.0), "0.1");
        assert_eq!(tick_label(&log, 9.0 + 2f64.log10()), "2e9");
        let linear = Axis::linear("loss");
        assert_eq!(tick_label(&linear, 2.5), "2.5");
        assert_eq!(tick_label(&linear, 0.0125), "0.0125");
        assert_eq!(tick_label(&linear, 1234.0), "1234");
    }
}
