//! Chinchilla's approach 1 (Hoffmann et al. 2022, §3.1): from the training curves of models of
//! several sizes, the lowest loss reached at each compute C (the envelope of the curves), the
//! model size N that reaches it, and the power laws N* ∝ C^a, D* ∝ C^b through those points.
//! Checkpoints, not finished runs, are the input: each row is one (C, N, loss) of some run.
//!
//! Two envelopes:
//! - `hull` (McLeish et al. 2025, Gemstones, `plotters/approach_1.py`): the lower convex hull of
//!   the checkpoints in (ln C, ln loss), kept while the loss falls. Needs no run labels.
//! - `grid` (Hoffmann et al. 2022): K budgets log-spaced over the checkpoints' range; at each,
//!   every run's curve is interpolated (linearly in ln C, ln loss, inside the run's own range)
//!   and the run with the lowest loss gives N*. A budget covered by fewer than two runs is
//!   skipped (one run is no comparison).
//!
//! Intervals: a bootstrap over runs (the checkpoints of one run are not independent), the
//! envelope and its power laws recomputed on every replicate, percentile intervals.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::isoflop::{power_law_through, PowerLaw};
use crate::data::label_ids;
use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::rng::Rng;
use crate::stats::percentile_interval;
use crate::text;

/// Written as `hull` or `grid:K` in JSON, as on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum EnvelopeMethod {
    /// The lower convex hull of all checkpoints (Gemstones).
    Hull,
    /// The lowest interpolated curve at this many log-spaced budgets (Chinchilla).
    Grid(usize),
}

impl EnvelopeMethod {
    /// `hull`, `grid` (1,500 budgets, as in Hoffmann et al.) or `grid:K`.
    pub fn parse(text: &str) -> Option<EnvelopeMethod> {
        match text.split_once(':') {
            None if text == "hull" => Some(EnvelopeMethod::Hull),
            None if text == "grid" => Some(EnvelopeMethod::Grid(1500)),
            Some(("grid", k)) => k.parse().ok().filter(|k| *k >= 2).map(EnvelopeMethod::Grid),
            _ => None,
        }
    }

    pub fn name(self) -> String {
        match self {
            EnvelopeMethod::Hull => "hull".into(),
            EnvelopeMethod::Grid(k) => format!("grid:{k}"),
        }
    }

    pub fn describe(self) -> String {
        match self {
            EnvelopeMethod::Hull => "lower convex hull of the checkpoints".into(),
            EnvelopeMethod::Grid(k) => {
                format!("lowest interpolated curve at {k} log-spaced budgets")
            }
        }
    }
}

impl From<EnvelopeMethod> for String {
    fn from(method: EnvelopeMethod) -> String {
        method.name()
    }
}

impl TryFrom<String> for EnvelopeMethod {
    type Error = String;

    fn try_from(text: String) -> std::result::Result<Self, String> {
        EnvelopeMethod::parse(&text).ok_or_else(|| format!("unknown envelope method '{text}'"))
    }
}

/// Checkpoints: compute so far, model size, loss, tokens so far (optional) and run label
/// (needed by `grid` and by the bootstrap).
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeData {
    pub compute: Vec<f64>,
    pub size: Vec<f64>,
    pub loss: Vec<f64>,
    pub tokens: Option<Vec<f64>>,
    pub run: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeSettings {
    pub method: EnvelopeMethod,
    pub bootstrap: usize,
    pub seed: u64,
    pub level: f64,
    /// Stops the grid's budgets and the bootstrap's replicates ([`Error::Interrupted`]).
    pub interrupt: Interrupt,
}

/// One point of the envelope: at compute C, the lowest loss and the N, D that reach it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EnvelopePoint {
    pub budget: f64,
    #[serde(rename = "N")]
    pub n: f64,
    #[serde(rename = "D")]
    pub d: f64,
    pub loss: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// Chinchilla's approach 1: the envelope of every run's checkpoints, the lowest loss at each
/// compute, and the power laws through it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Envelope {
    /// `hull` or `grid:K` (K log-spaced budgets).
    #[schemars(with = "String")]
    pub method: EnvelopeMethod,
    pub checkpoints: usize,
    /// Distinct runs (0 without run labels).
    pub runs: usize,
    pub points: Vec<EnvelopePoint>,
    /// N* ∝ C^a and D* ∝ C^b through the envelope's points.
    pub n_star: Option<PowerLaw>,
    pub d_star: Option<PowerLaw>,
    /// Bootstrap replicates over runs (0: none), and how many gave both power laws (the
    /// intervals' draws).
    pub bootstrap: usize,
    #[serde(default)]
    pub bootstrap_used: usize,
    pub level: f64,
}

pub fn envelope(data: &EnvelopeData, settings: &EnvelopeSettings) -> Result<Envelope> {
    validate(data, settings)?;
    let runs = run_ids(data);
    let all: Vec<usize> = (0..data.loss.len()).collect();
    let points = envelope_points(data, runs.as_ref(), &all, settings);
    let (mut n_star, mut d_star) = power_laws(&points);
    let mut bootstrap_used = 0;
    if settings.bootstrap > 0 {
        let (a, b) = bootstrap_exponents(data, runs.as_ref(), settings);
        bootstrap_used = a.len();
        if let Some(law) = n_star.as_mut().filter(|_| !a.is_empty()) {
            law.ci = Some(percentile_interval(a, settings.level));
        }
        if let Some(law) = d_star.as_mut().filter(|_| !b.is_empty()) {
            law.ci = Some(percentile_interval(b, settings.level));
        }
    }
    // An interrupted pass stopped early: its points and intervals are not the analysis's.
    settings.interrupt.check()?;
    Ok(Envelope {
        method: settings.method,
        checkpoints: data.loss.len(),
        runs: runs.as_ref().map_or(0, |r| r.count),
        points,
        n_star,
        d_star,
        bootstrap: settings.bootstrap,
        bootstrap_used,
        level: settings.level,
    })
}

fn validate(data: &EnvelopeData, settings: &EnvelopeSettings) -> Result<()> {
    let n = data.loss.len();
    let lengths_agree = data.compute.len() == n
        && data.size.len() == n
        && data.tokens.as_ref().is_none_or(|t| t.len() == n)
        && data.run.as_ref().is_none_or(|r| r.len() == n);
    if !lengths_agree {
        return Err(Error::settings(
            "envelope: every column needs one value per checkpoint",
        ));
    }
    if n < 2 {
        return Err(Error::settings(format!(
            "envelope: {n} checkpoint(s); the envelope needs the training curves of at least two runs"
        )));
    }
    let positive = |v: &[f64]| v.iter().all(|x| *x > 0.0 && x.is_finite());
    let all_positive = positive(&data.compute)
        && positive(&data.size)
        && positive(&data.loss)
        && data.tokens.as_deref().is_none_or(positive);
    if !all_positive {
        return Err(Error::settings(
            "envelope: compute, size, loss and tokens must be positive and finite (they are taken on logs)",
        ));
    }
    if let Some(runs) = &data.run {
        if let Some(row) = runs.iter().position(|r| r.trim().is_empty()) {
            return Err(Error::settings(format!(
                "envelope: checkpoint {} has an empty run label; name every checkpoint's run",
                row + 1
            )));
        }
        let mut size_of: BTreeMap<&str, f64> = BTreeMap::new();
        for (row, run) in runs.iter().enumerate() {
            let size = *size_of.entry(run.as_str()).or_insert(data.size[row]);
            if size != data.size[row] {
                return Err(Error::settings(format!(
                    "envelope: run '{run}' has checkpoints of sizes {size} and {}; a run's checkpoints share one model size (is the run column right?)",
                    data.size[row]
                )));
            }
        }
    }
    if data.run.is_none() {
        if matches!(settings.method, EnvelopeMethod::Grid(_)) {
            return Err(Error::setting(
                Setting::Run,
                text![
                    "the grid envelope interpolates each run's curve: name the run column (",
                    Setting::Run.text("COLUMN"),
                    ")"
                ],
            ));
        }
        if settings.bootstrap > 0 {
            return Err(Error::setting(
                Setting::Run,
                text![
                    "the envelope's bootstrap resamples whole runs: name the run column (",
                    Setting::Run.text("COLUMN"),
                    ")"
                ],
            ));
        }
    }
    crate::uncertainty::check_level(settings.level)?;
    if let EnvelopeMethod::Grid(budgets) = settings.method {
        crate::limits::check_grid_budgets(budgets, Setting::Envelope)?;
    }
    if settings.bootstrap > 0 {
        crate::limits::check_replicates(settings.bootstrap, settings.level)?;
    }
    Ok(())
}

/// Run labels as dense ids, in order of first appearance.
struct RunIds {
    of_row: Vec<usize>,
    count: usize,
}

fn run_ids(data: &EnvelopeData) -> Option<RunIds> {
    let (of_row, count) = label_ids(data.run.as_ref()?);
    Some(RunIds { of_row, count })
}

fn envelope_points(
    data: &EnvelopeData,
    runs: Option<&RunIds>,
    rows: &[usize],
    settings: &EnvelopeSettings,
) -> Vec<EnvelopePoint> {
    match (settings.method, runs) {
        (EnvelopeMethod::Grid(k), Some(runs)) => {
            grid_envelope(data, runs, rows, k, &settings.interrupt)
        }
        _ => hull_envelope(data, rows),
    }
}

fn point_at_row(data: &EnvelopeData, row: usize) -> EnvelopePoint {
    let (c, n) = (data.compute[row], data.size[row]);
    EnvelopePoint {
        budget: c,
        n,
        d: data
            .tokens
            .as_ref()
            .map_or(c / (6.0 * n), |tokens| tokens[row]),
        loss: data.loss[row],
        run: data.run.as_ref().map(|r| r[row].clone()),
    }
}

/// The lower convex hull in (ln C, ln loss) by Andrew's monotone chain, kept from the
/// smallest compute while the loss falls.
fn hull_envelope(data: &EnvelopeData, rows: &[usize]) -> Vec<EnvelopePoint> {
    let mut order: Vec<(f64, f64, usize)> = rows
        .iter()
        .map(|&r| (data.compute[r].ln(), data.loss[r].ln(), r))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    order.dedup_by(|next, kept| next.0 == kept.0 && next.1 == kept.1);
    let mut hull: Vec<(f64, f64, usize)> = Vec::new();
    for p in order {
        while hull.len() >= 2 {
            let (o, a) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let cross = (a.0 - o.0) * (p.1 - o.1) - (a.1 - o.1) * (p.0 - o.0);
            if cross <= 0.0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(p);
    }
    let falling = hull.windows(2).take_while(|w| w[1].1 < w[0].1).count() + 1;
    hull.truncate(falling.min(hull.len()));
    hull.iter().map(|p| point_at_row(data, p.2)).collect()
}

/// One run's curve, sorted by compute, on logs.
struct Curve {
    log_c: Vec<f64>,
    log_loss: Vec<f64>,
    log_d: Vec<f64>,
    n: f64,
    label: String,
}

impl Curve {
    /// The interpolated (ln loss, ln D) at ln C, inside the curve's own range.
    fn at(&self, x: f64) -> Option<(f64, f64)> {
        let last = self.log_c.len() - 1;
        if x < self.log_c[0] || x > self.log_c[last] {
            return None;
        }
        let i = self.log_c.partition_point(|c| *c < x).clamp(1, last.max(1));
        if last == 0 {
            return Some((self.log_loss[0], self.log_d[0]));
        }
        let (x0, x1) = (self.log_c[i - 1], self.log_c[i]);
        let t = if x1 > x0 { (x - x0) / (x1 - x0) } else { 1.0 };
        let lerp = |v: &[f64]| v[i - 1] + t * (v[i] - v[i - 1]);
        Some((lerp(&self.log_loss), lerp(&self.log_d)))
    }
}

fn curves(data: &EnvelopeData, runs: &RunIds, rows: &[usize]) -> Vec<Curve> {
    let mut by_run: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &r in rows {
        by_run.entry(runs.of_row[r]).or_default().push(r);
    }
    let labels = data.run.as_ref().expect("grid has run labels");
    by_run
        .into_values()
        .map(|mut rows| {
            rows.sort_by(|a, b| data.compute[*a].total_cmp(&data.compute[*b]));
            let point = |r: &usize| point_at_row(data, *r);
            Curve {
                log_c: rows.iter().map(|r| data.compute[*r].ln()).collect(),
                log_loss: rows.iter().map(|r| data.loss[*r].ln()).collect(),
                log_d: rows.iter().map(|r| point(r).d.ln()).collect(),
                n: data.size[rows[0]],
                label: labels[rows[0]].clone(),
            }
        })
        .collect()
}

/// The envelope at `k` budgets (fewer once `stop` is set: the caller then discards them).
fn grid_envelope(
    data: &EnvelopeData,
    runs: &RunIds,
    rows: &[usize],
    k: usize,
    stop: &Interrupt,
) -> Vec<EnvelopePoint> {
    let curves = curves(data, runs, rows);
    let (lo, hi) = rows
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &r| {
            let c = data.compute[r].ln();
            (lo.min(c), hi.max(c))
        });
    let mut points = Vec::new();
    for i in (0..k).take_while(|_| !stop.is_interrupted()) {
        let x = lo + (hi - lo) * i as f64 / (k - 1) as f64;
        let covering: Vec<(&Curve, (f64, f64))> =
            curves.iter().filter_map(|c| Some((c, c.at(x)?))).collect();
        if covering.len() < 2 {
            continue;
        }
        let (best, (log_loss, log_d)) = covering
            .into_iter()
            .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
            .expect("two covering curves");
        points.push(EnvelopePoint {
            budget: x.exp(),
            n: best.n,
            d: log_d.exp(),
            loss: log_loss.exp(),
            run: Some(best.label.clone()),
        });
    }
    points
}

fn power_laws(points: &[EnvelopePoint]) -> (Option<PowerLaw>, Option<PowerLaw>) {
    let n: Vec<(f64, f64)> = points.iter().map(|p| (p.budget, p.n)).collect();
    let d: Vec<(f64, f64)> = points.iter().map(|p| (p.budget, p.d)).collect();
    (power_law_through(&n), power_law_through(&d))
}

/// Exponents a and b over replicates that resample whole runs, seeded per replicate.
fn bootstrap_exponents(
    data: &EnvelopeData,
    runs: Option<&RunIds>,
    settings: &EnvelopeSettings,
) -> (Vec<f64>, Vec<f64>) {
    let Some(runs) = runs else {
        return (Vec::new(), Vec::new());
    };
    let mut rows_of_run = vec![Vec::new(); runs.count];
    for (row, &run) in runs.of_row.iter().enumerate() {
        rows_of_run[run].push(row);
    }
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for replicate in 0..settings.bootstrap {
        if settings.interrupt.is_interrupted() {
            break;
        }
        let mut rng = Rng::stream(settings.seed, replicate as u64);
        let mut chosen = vec![false; runs.count];
        for _ in 0..runs.count {
            chosen[rng.below(runs.count)] = true;
        }
        // A run drawn twice adds the same curve twice: the envelope is unchanged by it.
        let rows: Vec<usize> = (0..runs.count)
            .filter(|r| chosen[*r])
            .flat_map(|r| rows_of_run[r].iter().copied())
            .collect();
        let points = envelope_points(data, Some(runs), &rows, settings);
        if let (Some(n), Some(d)) = power_laws(&points) {
            a.push(n.exponent);
            b.push(d.exponent);
        }
    }
    (a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Curves of Chinchilla's law, L = E + A·N^−α + B·D^−β along D = C/(6N): the envelope's
    /// N* grows like the closed form's C^(β/(α+β)).
    fn chinchilla_curves() -> EnvelopeData {
        let (e, a, alpha, b, beta) = (1.69, 406.4, 0.34, 410.7, 0.28);
        let mut data = EnvelopeData {
            compute: Vec::new(),
            size: Vec::new(),
            loss: Vec::new(),
            tokens: None,
            run: Some(Vec::new()),
        };
        for i in 0..40 {
            let n = 1e7 * 10f64.powf(i as f64 / 8.0);
            for j in 0..60 {
                let d = 1e8 * 10f64.powf(j as f64 / 12.0);
                data.compute.push(6.0 * n * d);
                data.size.push(n);
                data.loss.push(e + a * n.powf(-alpha) + b * d.powf(-beta));
                data.run.as_mut().unwrap().push(format!("run{i}"));
            }
        }
        data
    }

    #[test]
    fn both_envelopes_follow_the_closed_form_exponent() {
        let data = chinchilla_curves();
        let expected = 0.28 / (0.34 + 0.28);
        for method in [EnvelopeMethod::Hull, EnvelopeMethod::Grid(400)] {
            let settings = EnvelopeSettings {
                method,
                bootstrap: 0,
                seed: 0,
                level: 0.95,
                interrupt: Interrupt::default(),
            };
            let result = envelope(&data, &settings).unwrap();
            let a = result.n_star.unwrap().exponent;
            let b = result.d_star.unwrap().exponent;
            assert!((a - expected).abs() < 0.03, "{method:?}: a = {a}");
            assert!((a + b - 1.0).abs() < 1e-9, "{method:?}: a + b = {}", a + b);
        }
    }

    #[test]
    fn the_hull_keeps_only_falling_points_and_bootstraps_over_runs() {
        let data = chinchilla_curves();
        let settings = EnvelopeSettings {
            method: EnvelopeMethod::Hull,
            bootstrap: 50,
            seed: 3,
            level: 0.9,
            interrupt: Interrupt::default(),
        };
        let result = envelope(&data, &settings).unwrap();
        assert!(result
            .points
            .windows(2)
            .all(|w| w[1].loss < w[0].loss && w[1].budget > w[0].budget));
        let law = result.n_star.unwrap();
        let [lo, hi] = law.ci.unwrap();
        assert!(
            lo <= law.exponent && law.exponent <= hi,
            "{lo} {} {hi}",
            law.exponent
        );
        assert_eq!(result.runs, 40);
    }

    #[test]
    fn an_interrupt_stops_the_grid_and_the_bootstrap() {
        let data = chinchilla_curves();
        let settings = EnvelopeSettings {
            method: EnvelopeMethod::Grid(400),
            bootstrap: 20,
            seed: 0,
            level: 0.9,
            interrupt: Interrupt::default(),
        };
        settings.interrupt.interrupt();
        let error = envelope(&data, &settings).unwrap_err();
        assert!(matches!(error, Error::Interrupted), "{error}");
    }

    #[test]
    fn grid_and_bootstrap_need_run_labels() {
        let mut data = chinchilla_curves();
        data.run = None;
        let mut settings = EnvelopeSettings {
            method: EnvelopeMethod::Grid(100),
            bootstrap: 0,
            seed: 0,
            level: 0.95,
            interrupt: Interrupt::default(),
        };
        assert_eq!(
            envelope(&data, &settings).unwrap_err().key(),
            Some(Setting::Run)
        );
        settings.method = EnvelopeMethod::Hull;
        settings.bootstrap = 10;
        let error = envelope(&data, &settings).unwrap_err();
        assert_eq!(error.key(), Some(Setting::Run));
        assert!(error.to_string().contains("(run=\"COLUMN\")"), "{error}");
        assert_eq!(
            EnvelopeMethod::parse("grid:50"),
            Some(EnvelopeMethod::Grid(50))
        );
        assert_eq!(EnvelopeMethod::parse("grid:1"), None);
        assert_eq!(EnvelopeMethod::parse("hulls"), None);
    }
}
