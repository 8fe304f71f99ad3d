//! What a task's accuracies do as models grow: at chance for every model (no prediction is
//! informative), monotone, plateaued, emergent (at chance for the smaller models, then a
//! sharp rise) or non-monotone (a larger model significantly below a smaller one's peak).
//! The tests use each model's last checkpoint, its binomial error when the task's number of
//! questions is known, and a Bonferroni correction over the evaluations tested.

use serde::{Deserialize, Serialize};

use super::data::{binomial_variance, compute, DownstreamData, Series};
use crate::stats::normal_quantile;

/// The shape of a task's accuracy against compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    AtChance,
    Monotone,
    Plateau,
    Emergent,
    NonMonotone,
}

impl Shape {
    pub fn name(self) -> &'static str {
        match self {
            Shape::AtChance => "at chance",
            Shape::Monotone => "monotone",
            Shape::Plateau => "plateau",
            Shape::Emergent => "emergent",
            Shape::NonMonotone => "non-monotone",
        }
    }
}

/// Without a question count, an accuracy this far above chance counts as above it.
const MARGIN_WITHOUT_COUNT: f64 = 0.02;

/// One model's last checkpoint on the task: log10 compute, accuracy, its variance.
struct Point {
    params: f64,
    x: f64,
    y: f64,
    v: Option<f64>,
}

/// The task's shape from the evaluations in `data` (`series[model][task]`).
pub fn diagnose(data: &DownstreamData, series: &[Vec<Series>], task: usize) -> Shape {
    let info = &data.tasks[task];
    let tested: usize = series.iter().map(|s| s[task].tokens.len()).sum();
    if tested == 0 || !any_above_chance(series, task, info.chance, info.questions, tested) {
        return Shape::AtChance;
    }
    let mut points: Vec<Point> = series
        .iter()
        .zip(&data.models)
        .filter_map(|(s, m)| {
            let (&tokens, &y) = (s[task].tokens.last()?, s[task].accuracy.last()?);
            let x = compute(m.params, tokens).log10();
            Some(Point {
                params: m.params,
                x,
                y,
                v: binomial_variance(y, info.questions),
            })
        })
        .collect();
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    shape_of(&points, info.chance)
}

fn any_above_chance(
    series: &[Vec<Series>],
    task: usize,
    chance: f64,
    n: Option<f64>,
    tested: usize,
) -> bool {
    let z = normal_quantile(1.0 - 0.05 / tested as f64);
    series
        .iter()
        .flat_map(|s| s[task].accuracy.iter())
        .any(|&a| above(a, chance, n, z))
}

/// `a` significantly above `chance` at the one-sided z (normal approximation to the binomial
/// with a continuity correction), or by the fixed margin without a question count.
fn above(a: f64, chance: f64, n: Option<f64>, z: f64) -> bool {
    match n {
        Some(n) if chance > 0.0 => {
            let sd = (chance * (1.0 - chance) / n).sqrt();
            a - 0.5 / n - chance > z * sd
        }
        Some(_) => a > 0.0,
        None => a > chance + MARGIN_WITHOUT_COUNT,
    }
}

fn shape_of(points: &[Point], chance: f64) -> Shape {
    let largest = points.iter().map(|p| p.params).fold(0.0, f64::max);
    let sd = |p: &Point| p.v.map_or(MARGIN_WITHOUT_COUNT / 2.0, f64::sqrt);
    let last: Vec<&Point> = points.iter().filter(|p| p.params >= largest).collect();
    let peak = points
        .iter()
        .filter(|p| p.params < largest)
        .max_by(|a, b| a.y.total_cmp(&b.y));
    if let Some(peak) = peak {
        let below = last.iter().all(|l| {
            let gap = peak.y - l.y;
            gap > 0.02 && gap > 3.0 * (sd(peak).powi(2) + sd(l).powi(2)).sqrt()
        });
        if below {
            return Shape::NonMonotone;
        }
    }
    let half = points.len() / 2;
    let small_at_chance = half >= 2 && points[..half].iter().all(|p| p.y - chance < 2.0 * sd(p));
    let large_above = last.iter().all(|p| p.y - chance > 3.0 * sd(p));
    if small_at_chance && large_above {
        return Shape::Emergent;
    }
    let (all_slope, all_se) = slope(points);
    let tail = largest_sizes(points, 3);
    let (tail_slope, tail_se) = slope(&tail);
    let rising = all_slope > 2.0 * all_se;
    if !rising || tail_slope.abs() < 2.0 * tail_se || tail_slope < 0.25 * all_slope {
        return Shape::Plateau;
    }
    Shape::Monotone
}

/// The points of the `k` largest distinct model sizes.
fn largest_sizes(points: &[Point], k: usize) -> Vec<Point> {
    let mut sizes: Vec<f64> = points.iter().map(|p| p.params).collect();
    sizes.sort_by(|a, b| b.total_cmp(a));
    sizes.dedup();
    let cut = sizes.get(k - 1).or(sizes.last()).copied().unwrap_or(0.0);
    points
        .iter()
        .filter(|p| p.params >= cut)
        .map(|p| Point {
            params: p.params,
            x: p.x,
            y: p.y,
            v: p.v,
        })
        .collect()
}

/// The weighted least-squares slope of accuracy in log10 compute and its standard error.
fn slope(points: &[Point]) -> (f64, f64) {
    let w: Vec<f64> = points
        .iter()
        .map(|p| 1.0 / p.v.unwrap_or(MARGIN_WITHOUT_COUNT.powi(2) / 4.0))
        .collect();
    let xs: Vec<f64> = points.iter().map(|p| p.x).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.y).collect();
    let line = super::trend::weighted_line(&xs, &ys, &w);
    (line.slope, line.var_slope.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::downstream::data::{Evaluation, ModelInfo, TaskInfo};

    /// Six models (1e8 … 1e10.5 parameters), one checkpoint each, on one 4-way task of 2,000
    /// questions with the given accuracies.
    fn shape_with(accuracies: [f64; 6]) -> Shape {
        let models = (0..6)
            .map(|i| ModelInfo {
                name: format!("m{i}"),
                params: 10f64.powf(8.0 + 0.5 * i as f64),
            })
            .collect();
        let task = TaskInfo {
            name: "t".into(),
            chance: 0.25,
            questions: Some(2000.0),
        };
        let evaluations = accuracies
            .iter()
            .enumerate()
            .map(|(model, &accuracy)| Evaluation {
                model,
                task: 0,
                tokens: 1e11,
                accuracy,
                loss: None,
            })
            .collect();
        let data = DownstreamData {
            models,
            tasks: vec![task],
            evaluations,
        };
        diagnose(&data, &data.series(), 0)
    }

    #[test]
    fn each_shape_is_recognised() {
        assert_eq!(
            shape_with([0.25, 0.26, 0.24, 0.25, 0.26, 0.25]),
            Shape::AtChance
        );
        assert_eq!(
            shape_with([0.30, 0.36, 0.42, 0.48, 0.54, 0.60]),
            Shape::Monotone
        );
        assert_eq!(
            shape_with([0.25, 0.26, 0.25, 0.30, 0.42, 0.60]),
            Shape::Emergent
        );
        assert_eq!(
            shape_with([0.30, 0.40, 0.50, 0.55, 0.55, 0.55]),
            Shape::Plateau
        );
        assert_eq!(
            shape_with([0.30, 0.40, 0.50, 0.45, 0.40, 0.35]),
            Shape::NonMonotone
        );
    }
}
