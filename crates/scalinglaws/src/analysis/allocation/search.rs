//! The one-dimensional search over ln N: a coarse scan that widens its window until the best
//! point is inside, finer scans and a final parabola; the closed form of Hoffmann et al. 2022
//! (eq. 4) for Chinchilla's law with k·N·D FLOPs.

use super::*;

/// The first scan covers this many decades of N around a guess; an end where the best point
/// sits moves out by as many again, up to the widest range.
pub(super) const WINDOW: f64 = 14.0 * std::f64::consts::LN_10;
pub(super) const SCAN_POINTS: usize = 141;
pub(super) const ZOOMS: usize = 8;

/// Why a goal has no allocation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Unsolved {
    /// No finite optimum where the caps allow.
    NoOptimum,
    /// The best point is the end `log_n` of the widest range searched, (lo, hi) in ln N: the
    /// optimum, if there is one, lies beyond.
    AtEdge { log_n: f64, lo: f64, hi: f64 },
    /// The value no longer changes with N from `log_n` on (to f64 precision): the search
    /// cannot place the optimum.
    Flat { log_n: f64 },
}

/// The first window of ln N: WINDOW wide around the guess √(C/6) for a budget (1e9 for a
/// target loss), moved inside the limits.
pub(super) fn first_window(goal: Goal, limits: &Limits) -> (f64, f64) {
    let centre = match goal {
        Goal::Budget(c) => 0.5 * (c / 6.0).ln(),
        Goal::Loss(_) => 9.0 * std::f64::consts::LN_10,
    };
    let width = WINDOW.min(limits.hi - limits.lo);
    let lo = (centre - 0.5 * width).min(limits.hi - width).max(limits.lo);
    (lo, (lo + width).min(limits.hi))
}

/// A scan of `points` over [lo, hi]: the grid, the values and the index of the best.
pub(super) fn scan_window(
    roles: &Roles,
    params: &[f64],
    goal: Goal,
    (lo, hi): (f64, f64),
    points: usize,
) -> Result<(Vec<f64>, Vec<f64>, usize), Unsolved> {
    let step = (hi - lo) / (points - 1) as f64;
    let grid: Vec<f64> = (0..points).map(|i| lo + step * i as f64).collect();
    let values = roles.scan(params, goal, &grid);
    let (i, value) = values
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .ok_or(Unsolved::NoOptimum)?;
    if !value.is_finite() {
        return Err(Unsolved::NoOptimum);
    }
    Ok((grid, values, i))
}

/// The coarse scan whose best point lies inside the window or at a cap: the window widens
/// at an end where the best point sits, up to the widest range, past which it is an error.
pub(super) fn coarse_scan(
    roles: &Roles,
    params: &[f64],
    goal: Goal,
    limits: &Limits,
) -> Result<(Vec<f64>, Vec<f64>, usize), Unsolved> {
    let mut window = first_window(goal, limits);
    loop {
        let whole = window == (limits.lo, limits.hi);
        let (grid, values, i) = match scan_window(roles, params, goal, window, SCAN_POINTS) {
            // Nothing finite here (a target loss out of reach at these N): look further.
            Err(Unsolved::NoOptimum) if !whole => {
                window = widened(window, limits);
                continue;
            }
            scanned => scanned?,
        };
        let (first, last) = (i == 0, i + 1 == SCAN_POINTS);
        // The first best point of a tie: the loss has gone flat there.
        if !last && values[i + 1] == values[i] {
            return Err(Unsolved::Flat { log_n: grid[i] });
        }
        if first && window.0 > limits.lo {
            window.0 = (window.0 - WINDOW).max(limits.lo);
        } else if last && window.1 < limits.hi {
            window.1 = (window.1 + WINDOW).min(limits.hi);
        } else if (first && !limits.lo_is_cap) || (last && !limits.hi_is_cap) {
            return Err(Unsolved::AtEdge {
                log_n: grid[i],
                lo: limits.lo,
                hi: limits.hi,
            });
        } else {
            return Ok((grid, values, i));
        }
    }
}

/// The window moved out by WINDOW at both ends, within the limits.
pub(super) fn widened((lo, hi): (f64, f64), limits: &Limits) -> (f64, f64) {
    ((lo - WINDOW).max(limits.lo), (hi + WINDOW).min(limits.hi))
}

/// The optimal log N for one goal: a scan (widened while its best point sits at an end),
/// finer scans around the best point, then the vertex of the parabola through the last three.
pub(super) fn optimal_log_n(roles: &Roles, params: &[f64], goal: Goal) -> Result<f64, Unsolved> {
    let limits = roles.log_n_range(params, goal).ok_or(Unsolved::NoOptimum)?;
    if limits.hi - limits.lo < 1e-12 {
        return Ok(limits.lo);
    }
    let (mut grid, mut values, mut i) = coarse_scan(roles, params, goal, &limits)?;
    for _ in 0..ZOOMS {
        let window = (grid[i.saturating_sub(1)], grid[(i + 1).min(grid.len() - 1)]);
        (grid, values, i) = scan_window(roles, params, goal, window, 21)?;
    }
    Ok(vertex(&grid, &values, i).unwrap_or(grid[i]))
}

/// The vertex of the parabola through points i−1, i, i+1 (None at an edge or when flat).
pub(super) fn vertex(x: &[f64], y: &[f64], i: usize) -> Option<f64> {
    if i == 0 || i + 1 >= x.len() || !(y[i - 1].is_finite() && y[i + 1].is_finite()) {
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
pub(super) fn chinchilla_closed_form(params: &[f64], budget: f64, k: f64) -> (f64, f64) {
    let [_, a, alpha, b, beta] = [params[0], params[1], params[2], params[3], params[4]];
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let base = budget / k;
    let n = g * base.powf(beta / (alpha + beta));
    (n, base / n)
}

/// The budget whose closed-form optimum reaches `target`: along the closed form the loss is
/// E + K·(C/k)^(−αβ/(α+β)) with K = A·G^−α + B·G^β. None when the target is at or below E.
pub(super) fn chinchilla_budget_for_loss(params: &[f64], target: f64, k: f64) -> Option<f64> {
    let [e, a, alpha, b, beta] = [params[0], params[1], params[2], params[3], params[4]];
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let scale = a * g.powf(-alpha) + b * g.powf(beta);
    let gamma = alpha * beta / (alpha + beta);
    let budget = k * (scale / (target - e)).powf(1.0 / gamma);
    (target > e && budget > 0.0 && budget.is_finite()).then_some(budget)
}

/// The closed-form N, D at a budget; only a cap's end of `limits` may hold N (the loss along
/// the budget is convex in ln N, so a binding cap holds the optimum at its bound).
pub(super) fn closed_form_at_budget(limits: &Limits, params: &[f64], c: f64, k: f64) -> (f64, f64) {
    let mut log_n = chinchilla_closed_form(params, c, k).0.ln();
    if limits.hi_is_cap {
        log_n = log_n.min(limits.hi);
    }
    if limits.lo_is_cap {
        log_n = log_n.max(limits.lo);
    }
    let n = log_n.exp();
    (n, c / (k * n))
}

/// The allocation for one goal at one value of the held variables.
pub(super) fn allocation_at(
    roles: &Roles,
    params: &[f64],
    goal: Goal,
    closed: bool,
) -> Result<Allocation, Unsolved> {
    let closed_factor = roles.settings.flops.linear_factor.filter(|_| closed);
    let capped = {
        let s = roles.settings;
        s.max_params.is_some() || s.max_active.is_some() || s.max_tokens.is_some()
    };
    let (n, d) = match (goal, closed_factor) {
        (Goal::Budget(c), Some(k)) => {
            let limits = roles.log_n_range(params, goal).ok_or(Unsolved::NoOptimum)?;
            closed_form_at_budget(&limits, params, c, k)
        }
        (Goal::Loss(target), Some(k)) if !capped => {
            let c = chinchilla_budget_for_loss(params, target, k).ok_or(Unsolved::NoOptimum)?;
            chinchilla_closed_form(params, c, k)
        }
        _ => {
            let n = optimal_log_n(roles, params, goal)?.exp();
            (n, roles.tokens(params, n, goal).ok_or(Unsolved::NoOptimum)?)
        }
    };
    allocation_of(roles, params, goal, n, d).ok_or(Unsolved::NoOptimum)
}

/// The allocation at (N, D) for one goal (None unless N, D and the loss are finite).
pub(super) fn allocation_of(
    roles: &Roles,
    params: &[f64],
    goal: Goal,
    n: f64,
    d: f64,
) -> Option<Allocation> {
    let loss = match goal {
        Goal::Budget(_) => roles.loss(params, n, d),
        Goal::Loss(target) => target,
    };
    let with_inference = roles.settings.inference_tokens > 0.0;
    let training = roles.settings.flops.at(n, d);
    let budget = match goal {
        Goal::Budget(c) => c,
        Goal::Loss(_) => roles.lifetime_flops(n, d),
    };
    let finite = n.is_finite() && d.is_finite() && loss.is_finite();
    finite.then(|| Allocation {
        budget,
        n,
        d,
        tokens_per_param: d / n,
        loss,
        total_params: roles
            .settings
            .total_params
            .as_ref()
            .map(|_| roles.total_params(n)),
        training_flops: with_inference.then_some(training),
        inference_flops: with_inference.then(|| roles.inference_flops(n)),
        chosen: BTreeMap::new(),
        binding: roles.binding(n, d),
        reference: None,
        ci: BTreeMap::new(),
        pi: None,
        pi_fit: None,
        calibrated: false,
        distance_decades: None,
        regime: None,
    })
}
