//! Compute-optimal allocation: at a training budget C, the model size N* and token count D*
//! that minimise a fitted law's predicted loss subject to FLOPs(N, D) = C (6·N·D by default;
//! Kaplan et al. 2020, Hoffmann et al. 2022). For Chinchilla's law with 6·N·D the optimum has a
//! closed form (Hoffmann et al. 2022, eq. 4):
//!   N* = G·(C/6)^(β/(α+β)),  D* = G⁻¹·(C/6)^(α/(α+β)),  G = (αA/(βB))^(1/(α+β)).
//! Any other law (`data_constrained` at a given number of unique tokens, `looped` at a given r,
//! user formulas) and any FLOPs formula go through a robust one-dimensional search over log N:
//! D solves FLOPs(N, D) = C by bisection in log D, a scan over twelve decades of N finds the
//! best bracket, and repeated finer scans with a final parabola pin the minimum. Over several
//! budgets the frontier gives the exponents a, b of N* ∝ C^a and D* ∝ C^b (least squares on
//! logs). With bootstrap draws, every quantity gets a percentile interval from the same draws.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::law::expr::{parse_expr, Expr};
use crate::law::Law;
use crate::uncertainty::dist::{least_squares_line, percentile_interval};

/// How training compute depends on N and D.
#[derive(Debug, Clone)]
pub struct Flops {
    pub text: String,
    expr: Expr,
    /// Some(k) when the formula is k·N·D (the closed form applies).
    linear_factor: Option<f64>,
}

impl Flops {
    /// A FLOPs formula in N and D, e.g. "6*N*D" or "6*N*D + 2*N*2048".
    pub fn parse(text: &str) -> Result<Flops> {
        let expr = parse_expr(text)?;
        let mut unknown = None;
        expr.for_each_ident(&mut |name, position| {
            if name != "N" && name != "D" && unknown.is_none() {
                unknown = Some((name.to_string(), position));
            }
        });
        if let Some((name, position)) = unknown {
            return Err(Error::Formula {
                formula: text.to_string(),
                position,
                message: format!(
                    "'{name}' is not N or D; the FLOPs formula may use only N, D and numbers"
                ),
            });
        }
        let flops = Flops {
            text: text.to_string(),
            expr,
            linear_factor: None,
        };
        // k·N·D when doubling N or D doubles the FLOPs everywhere we probe.
        let k = flops.at(1.0, 1.0);
        let bilinear = [(3.0, 7.0), (1e9, 1e12), (2e11, 5e9)]
            .iter()
            .all(|&(n, d)| (flops.at(n, d) / (k * n * d) - 1.0).abs() < 1e-12);
        Ok(Flops {
            linear_factor: (k > 0.0 && bilinear).then_some(k),
            ..flops
        })
    }

    pub fn standard() -> Flops {
        Flops::parse("6*N*D").expect("a valid formula")
    }

    pub fn at(&self, n: f64, d: f64) -> f64 {
        let lookup = |name: &str| match name {
            "N" => Some(n),
            "D" => Some(d),
            _ => None,
        };
        self.expr.eval_f64(&lookup).unwrap_or(f64::NAN)
    }

    /// The D with FLOPs(N, D) = C, or None when no positive D reaches C.
    fn tokens_for(&self, n: f64, budget: f64) -> Option<f64> {
        if let Some(k) = self.linear_factor {
            return Some(budget / (k * n));
        }
        let f = |log_d: f64| self.at(n, log_d.exp()) - budget;
        let (mut lo, mut hi) = (-10.0f64, 120.0f64);
        if !(f(lo) < 0.0 && f(hi) > 0.0) {
            return None;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if f(mid) < 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some((0.5 * (lo + hi)).exp())
    }
}

/// The compute-optimal point at one budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Allocation {
    pub budget: f64,
    #[serde(rename = "N")]
    pub n: f64,
    #[serde(rename = "D")]
    pub d: f64,
    pub tokens_per_param: f64,
    pub loss: f64,
    /// The cap that holds the allocation at its bound (`max_params` or `max_tokens`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// Percentile intervals from bootstrap draws: `N`, `D`, `tokens_per_param`, `loss`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ci: BTreeMap<String, [f64; 2]>,
}

/// The exponents of the frontier, N* ∝ C^a and D* ∝ C^b.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exponents {
    pub a: f64,
    pub b: f64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ci: BTreeMap<String, [f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frontier {
    pub flops: String,
    /// "closed form" or "numerical".
    pub method: String,
    /// Other variables of the law, held at the given values (e.g. U).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub held: BTreeMap<String, f64>,
    pub allocations: Vec<Allocation>,
    pub exponents: Option<Exponents>,
    /// Bootstrap draws the intervals come from (0: none).
    pub draws: usize,
    pub level: Option<f64>,
}

/// How the law's variables map onto an allocation.
struct Roles<'a> {
    law: &'a Law,
    n: usize,
    d: usize,
    held: Vec<(usize, f64)>,
    flops: &'a Flops,
    max_params: Option<f64>,
    max_tokens: Option<f64>,
}

impl Roles<'_> {
    /// The range of ln N the caps allow at `budget`: N ≤ max_params, and D(N) ≤ max_tokens
    /// (D falls as N grows along the budget). None when the caps leave nothing.
    fn log_n_range(&self, budget: f64) -> Option<(f64, f64)> {
        let (mut lo, mut hi) = LOG_N_RANGE;
        if let Some(p) = self.max_params {
            hi = hi.min(p.ln());
        }
        if let Some(u) = self.max_tokens {
            let too_many = |log_n: f64| {
                self.flops
                    .tokens_for(log_n.exp(), budget)
                    .map_or(true, |d| d > u)
            };
            let (mut a, mut b) = (lo, hi);
            if too_many(b) {
                return None;
            }
            if too_many(a) {
                for _ in 0..200 {
                    let mid = 0.5 * (a + b);
                    if too_many(mid) {
                        a = mid;
                    } else {
                        b = mid;
                    }
                }
                lo = b;
            }
        }
        (lo <= hi).then_some((lo, hi))
    }

    fn binding(&self, n: f64, budget: f64) -> Option<String> {
        let near = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-6;
        if self.max_params.is_some_and(|p| near(n, p)) {
            return Some("max_params".into());
        }
        let d = self.flops.tokens_for(n, budget)?;
        self.max_tokens
            .filter(|u| near(d, *u))
            .map(|_| "max_tokens".into())
    }

    fn loss(&self, params: &[f64], n: f64, d: f64) -> f64 {
        let mut point = vec![0.0; self.law.variables.len()];
        point[self.n] = n;
        point[self.d] = d;
        for &(i, v) in &self.held {
            point[i] = v;
        }
        self.law.eval(params, &point)
    }

    /// Loss along the budget's constraint at each log N of `grid`, in one bound tape.
    fn scan(&self, params: &[f64], budget: f64, grid: &[f64]) -> Vec<f64> {
        let mut columns = vec![Vec::with_capacity(grid.len()); self.law.variables.len()];
        let mut valid = Vec::with_capacity(grid.len());
        for &log_n in grid {
            let n = log_n.exp();
            let d = self.flops.tokens_for(n, budget);
            valid.push(d.is_some());
            columns[self.n].push(n);
            columns[self.d].push(d.unwrap_or(1.0));
            for &(i, v) in &self.held {
                columns[i].push(v);
            }
        }
        let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let tape = self.law.bind(&slices);
        let mut scratch = tape.scratch();
        tape.forward_columns(params, &mut scratch)
            .iter()
            .zip(valid)
            .map(|(&loss, ok)| {
                if ok && loss.is_finite() {
                    loss
                } else {
                    f64::INFINITY
                }
            })
            .collect()
    }
}

/// Decades of N scanned, and points per scan.
const LOG_N_RANGE: (f64, f64) = (
    2.0 * std::f64::consts::LN_10,
    16.0 * std::f64::consts::LN_10,
);
const SCAN_POINTS: usize = 141;
const ZOOMS: usize = 8;

/// The optimal log N at one budget: a scan, finer scans around the best point, then the vertex
/// of the parabola through the last three.
fn optimal_log_n(roles: &Roles, params: &[f64], budget: f64) -> Option<f64> {
    let (mut lo, mut hi) = roles.log_n_range(budget)?;
    if hi - lo < 1e-12 {
        return Some(lo);
    }
    let mut points = SCAN_POINTS;
    let mut best = None;
    for _ in 0..=ZOOMS {
        let step = (hi - lo) / (points - 1) as f64;
        let grid: Vec<f64> = (0..points).map(|i| lo + step * i as f64).collect();
        let losses = roles.scan(params, budget, &grid);
        let (i, &value) = losses
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))?;
        if !value.is_finite() {
            return None;
        }
        best = Some(vertex(&grid, &losses, i).unwrap_or(grid[i]));
        lo = grid[i.saturating_sub(1)];
        hi = grid[(i + 1).min(points - 1)];
        points = 21;
    }
    best
}

/// The vertex of the parabola through points i−1, i, i+1 (None at an edge or when flat).
fn vertex(x: &[f64], y: &[f64], i: usize) -> Option<f64> {
    if i == 0 || i + 1 >= x.len() {
        return None;
    }
    let (x0, x1, x2) = (x[i - 1], x[i], x[i + 1]);
    let (y0, y1, y2) = (y[i - 1], y[i], y[i + 1]);
    let denominator = (x0 - x1) * (x0 - x2) * (x1 - x2);
    let a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denominator;
    let b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denominator;
    (a > 0.0 && a.is_finite() && b.is_finite())
        .then(|| -b / (2.0 * a))
        .filter(|v| *v >= x0 && *v <= x2)
}

/// Chinchilla's closed form (Hoffmann et al. 2022, eq. 4) for FLOPs = k·N·D.
fn chinchilla_closed_form(params: &[f64], budget: f64, k: f64) -> (f64, f64) {
    let [_, a, alpha, b, beta] = [params[0], params[1], params[2], params[3], params[4]];
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let base = budget / k;
    let n = g * base.powf(beta / (alpha + beta));
    (n, base / n)
}

fn allocation_at(roles: &Roles, params: &[f64], budget: f64, closed: bool) -> Option<Allocation> {
    let (n, d) = match (closed, roles.flops.linear_factor) {
        (true, Some(k)) => {
            // The loss along the budget is convex in ln N: a cap holds the optimum at its bound.
            let (lo, hi) = roles.log_n_range(budget)?;
            let n = chinchilla_closed_form(params, budget, k)
                .0
                .ln()
                .clamp(lo, hi)
                .exp();
            (n, budget / (k * n))
        }
        _ => {
            let n = optimal_log_n(roles, params, budget)?.exp();
            (n, roles.flops.tokens_for(n, budget)?)
        }
    };
    let loss = roles.loss(params, n, d);
    (n.is_finite() && d.is_finite() && loss.is_finite()).then(|| Allocation {
        budget,
        n,
        d,
        tokens_per_param: d / n,
        loss,
        binding: roles.binding(n, budget),
        ci: BTreeMap::new(),
    })
}

/// Least-squares slope of log y on log x.
fn log_slope(x: &[f64], y: &[f64]) -> Option<f64> {
    let points: Vec<(f64, f64)> = x.iter().zip(y).map(|(a, b)| (a.ln(), b.ln())).collect();
    least_squares_line(&points).map(|(slope, _)| slope)
}

/// The frontier's exponents; None with fewer than two budgets or when a cap holds any
/// allocation at its bound (the frontier is then not a power law).
fn exponents(allocations: &[Allocation]) -> Option<(f64, f64)> {
    if allocations.len() < 2 || allocations.iter().any(|a| a.binding.is_some()) {
        return None;
    }
    let c: Vec<f64> = allocations.iter().map(|a| a.budget).collect();
    let n: Vec<f64> = allocations.iter().map(|a| a.n).collect();
    let d: Vec<f64> = allocations.iter().map(|a| a.d).collect();
    Some((log_slope(&c, &n)?, log_slope(&c, &d)?))
}

/// What `optimal` needs besides the law and its parameters.
#[derive(Debug, Clone)]
pub struct AllocationSettings {
    pub budgets: Vec<f64>,
    pub flops: Flops,
    /// Values of the law's other variables (everything but N and D).
    pub held: BTreeMap<String, f64>,
    /// Bootstrap draws (every parameter, in the law's order) and their level.
    pub draws: Vec<Vec<f64>>,
    pub level: f64,
    /// Cap on the model size (memory), and on the tokens (unique data).
    pub max_params: Option<f64>,
    pub max_tokens: Option<f64>,
}

/// The compute-optimal frontier of `law` with `params` at every budget.
pub fn optimal(law: &Law, params: &[f64], settings: &AllocationSettings) -> Result<Frontier> {
    let roles = roles(law, settings)?;
    if let Some(bad) = settings
        .budgets
        .iter()
        .find(|c| !(**c > 0.0 && c.is_finite()))
    {
        return Err(Error::settings(format!(
            "--budget {bad:e}: a budget is a positive number of FLOPs"
        )));
    }
    let closed = law.label() == "chinchilla";
    let solve = |p: &[f64]| -> Option<Vec<Allocation>> {
        settings
            .budgets
            .iter()
            .map(|&c| allocation_at(&roles, p, c, closed))
            .collect()
    };
    if let Some(c) = settings
        .budgets
        .iter()
        .find(|c| roles.log_n_range(**c).is_none())
    {
        return Err(Error::settings(format!(
            "at the budget {c:e} no allocation meets the caps (--max-params with --max-tokens leave no N); raise a cap or lower the budget"
        )));
    }
    let mut allocations = solve(params).ok_or_else(|| {
        Error::fit("the law has no finite optimum along the budget's constraint (N from 1e2 to 1e16); check the law and the FLOPs formula")
    })?;
    let mut exponents = exponents(&allocations).map(|(a, b)| Exponents {
        a,
        b,
        ci: BTreeMap::new(),
    });
    let draws: Vec<Vec<Allocation>> = settings.draws.iter().filter_map(|d| solve(d)).collect();
    if !draws.is_empty() {
        add_intervals(&mut allocations, exponents.as_mut(), &draws, settings.level);
    }
    Ok(Frontier {
        flops: settings.flops.text.clone(),
        method: if closed && settings.flops.linear_factor.is_some() {
            "closed form".into()
        } else {
            "numerical".into()
        },
        held: settings.held.clone(),
        allocations,
        exponents,
        draws: draws.len(),
        level: (!draws.is_empty()).then_some(settings.level),
    })
}

fn roles<'a>(law: &'a Law, settings: &'a AllocationSettings) -> Result<Roles<'a>> {
    let index = |name: &str| {
        law.variable_index(name).ok_or_else(|| {
            Error::settings(format!(
                "the law '{}' has no variable {name}; allocation needs N (parameters) and D (tokens), its variables are {}",
                law.label(),
                law.variables.join(", ")
            ))
        })
    };
    let (n, d) = (index("N")?, index("D")?);
    let mut held = Vec::new();
    for (i, variable) in law.variables.iter().enumerate() {
        if i == n || i == d {
            continue;
        }
        let value = settings.held.get(variable).ok_or_else(|| {
            Error::settings(format!(
                "the law '{}' also reads {variable}: give its value with --set {variable}=VALUE",
                law.label()
            ))
        })?;
        held.push((i, *value));
    }
    if let Some(name) = settings
        .held
        .keys()
        .find(|k| law.variable_index(k).is_none() || *k == "N" || *k == "D")
    {
        return Err(Error::settings(format!(
            "--set {name}: not one of the law's other variables ({})",
            law.variables
                .iter()
                .filter(|v| *v != "N" && *v != "D")
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    for (option, cap) in [
        ("--max-params", settings.max_params),
        ("--max-tokens", settings.max_tokens),
    ] {
        if let Some(cap) = cap.filter(|c| !(*c > 0.0 && c.is_finite())) {
            return Err(Error::settings(format!(
                "{option} {cap:e}: give a positive number"
            )));
        }
    }
    Ok(Roles {
        law,
        n,
        d,
        held,
        flops: &settings.flops,
        max_params: settings.max_params,
        max_tokens: settings.max_tokens,
    })
}

fn add_intervals(
    allocations: &mut [Allocation],
    exponents: Option<&mut Exponents>,
    draws: &[Vec<Allocation>],
    level: f64,
) {
    for (i, allocation) in allocations.iter_mut().enumerate() {
        let pick = |f: fn(&Allocation) -> f64| draws.iter().map(|d| f(&d[i])).collect::<Vec<_>>();
        for (name, values) in [
            ("N", pick(|a| a.n)),
            ("D", pick(|a| a.d)),
            ("tokens_per_param", pick(|a| a.tokens_per_param)),
            ("loss", pick(|a| a.loss)),
        ] {
            allocation
                .ci
                .insert(name.to_string(), percentile_interval(values, level));
        }
    }
    if let Some(exponents) = exponents {
        let (a, b): (Vec<f64>, Vec<f64>) = draws.iter().filter_map(|d| self::exponents(d)).unzip();
        if !a.is_empty() {
            exponents
                .ci
                .insert("a".into(), percentile_interval(a, level));
            exponents
                .ci
                .insert("b".into(), percentile_interval(b, level));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::catalog;

    fn settings(budgets: Vec<f64>) -> AllocationSettings {
        AllocationSettings {
            budgets,
            flops: Flops::standard(),
            held: BTreeMap::new(),
            draws: Vec::new(),
            level: 0.95,
            max_params: None,
            max_tokens: None,
        }
    }

    /// Caps on size and tokens hold the optimum at the bound, in the closed form and in the
    /// numerical search alike.
    #[test]
    fn caps_hold_the_optimum_at_their_bound() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let mut s = settings(vec![5.88e23]);
        s.max_params = Some(3e10);
        let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!((a.n / 3e10 - 1.0).abs() < 1e-9 && a.binding.as_deref() == Some("max_params"));
        s.max_params = None;
        s.max_tokens = Some(1e12);
        let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!((a.d / 1e12 - 1.0).abs() < 1e-6, "D = {:e}", a.d);
        assert_eq!(a.binding.as_deref(), Some("max_tokens"));
        // The same through the numerical search (a formula law has no closed form).
        let formula =
            Law::from_formula("E + A*N^-alpha + B*D^-beta", &|v| v == "N" || v == "D").unwrap();
        let a = optimal(&formula, &params, &s).unwrap().allocations[0].clone();
        assert!((a.d / 1e12 - 1.0).abs() < 1e-6, "numerical D = {:e}", a.d);
        // Caps that leave nothing are an error.
        s.max_params = Some(1e9);
        assert!(optimal(&law, &params, &s)
            .unwrap_err()
            .to_string()
            .contains("caps"));
    }

    /// Epoch AI's published parameters at Chinchilla's budget: N* ≈ 7.312e10, D*/N* ≈ 18.33.
    #[test]
    fn epochs_parameters_give_chinchillas_allocation() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let frontier = optimal(&law, &params, &settings(vec![5.88e23])).unwrap();
        let a = &frontier.allocations[0];
        assert_eq!(frontier.method, "closed form");
        println!("Epoch: N* = {:e}, D*/N* = {}", a.n, a.tokens_per_param);
        assert!((a.n / 7.312e10 - 1.0).abs() < 0.01, "N* = {:e}", a.n);
        assert!(
            (a.tokens_per_param / 18.33 - 1.0).abs() < 0.01,
            "D*/N* = {}",
            a.tokens_per_param
        );
        // The numerical search agrees with the closed form.
        let one_budget = settings(vec![5.88e23]);
        let roles = roles(&law, &one_budget).unwrap();
        let numerical = allocation_at(&roles, &params, 5.88e23, false).unwrap();
        assert!(
            (numerical.n / a.n - 1.0).abs() < 1e-6,
            "{:e} vs {:e}",
            numerical.n,
            a.n
        );
    }

    /// Datablations' published parameters (Muennighoff et al. 2023) at C = 1e22 with 25e9
    /// unique tokens: D* ≈ 237.34e9, N* ≈ 7.02e9.
    #[test]
    fn datablations_parameters_give_the_papers_allocation() {
        let law = catalog::lookup("data_constrained").unwrap();
        let by_name = [
            ("E", 0.6254804f64.exp()),
            ("A", 6.255414f64.exp()),
            ("alpha", 0.3526596),
            ("B", 7.3049974f64.exp()),
            ("beta", 0.3526596),
            ("RN_star", 5.309743),
            ("RD_star", 15.387756),
        ];
        let params: Vec<f64> = law
            .params
            .iter()
            .map(|p| by_name.iter().find(|(n, _)| *n == p.name).unwrap().1)
            .collect();
        let mut s = settings(vec![1e22]);
        s.held.insert("U".into(), 25e9);
        let frontier = optimal(&law, &params, &s).unwrap();
        let a = &frontier.allocations[0];
        assert_eq!(frontier.method, "numerical");
        println!("datablations: N* = {:e}, D* = {:e}", a.n, a.d);
        assert!((a.d / 237.34e9 - 1.0).abs() < 0.01, "D* = {:e}", a.d);
        assert!((a.n / 7.02e9 - 1.0).abs() < 0.01, "N* = {:e}", a.n);
    }

    #[test]
    fn the_frontier_exponents_follow_the_closed_form() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let frontier = optimal(&law, &params, &settings(vec![1e20, 1e22, 1e24])).unwrap();
        let e = frontier.exponents.unwrap();
        let (alpha, beta) = (params[2], params[4]);
        assert!((e.a - beta / (alpha + beta)).abs() < 1e-9, "a = {}", e.a);
        assert!((e.b - alpha / (alpha + beta)).abs() < 1e-9, "b = {}", e.b);
    }

    #[test]
    fn other_flops_formulas_and_missing_variables_are_handled() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let mut s = settings(vec![5.88e23]);
        s.flops = Flops::parse("6*N*D + 2*N*1e3").unwrap();
        let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!((s.flops.at(a.n, a.d) / 5.88e23 - 1.0).abs() < 1e-9);
        assert!(Flops::parse("6*N*T").is_err());
        let constrained = catalog::lookup("data_constrained").unwrap();
        let error = optimal(&constrained, &[1.0; 7], &settings(vec![1e22])).unwrap_err();
        assert!(error.to_string().contains("--set U=VALUE"), "{error}");
    }
}
