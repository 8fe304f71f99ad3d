//! Derivative-free minimisation of a few smooth parameters: the Nelder–Mead simplex (Nelder &
//! Mead 1965, "A simplex method for function minimization", Computer Journal 7:308; the
//! standard coefficients and the shrink step as in Lagarias, Reeds, Wright & Wright 1998, SIAM
//! J. Optim. 9:112), restarted from its own optimum until a restart no longer improves it (the
//! usual remedy for a simplex that collapsed early; Gao & Han 2012). It fits the handful of
//! hyperparameters of the cross-study extrapolation prior, whose objective is a sum of
//! quadratures that has no tape. Deterministic: the same function and start give the same
//! point.

/// Settings of [`minimize`].
#[derive(Debug, Clone, Copy)]
pub struct SimplexOptions {
    /// Size of the first simplex's steps along each coordinate.
    pub step: f64,
    /// Stop when the simplex's values differ by less than this (absolute).
    pub tolerance: f64,
    /// Most function evaluations per run, and most restarts.
    pub evaluations: usize,
    pub restarts: usize,
}

impl Default for SimplexOptions {
    fn default() -> Self {
        SimplexOptions {
            step: 0.25,
            tolerance: 1e-7,
            evaluations: 4000,
            restarts: 6,
        }
    }
}

/// The minimum found of `f` from `start`: its point and value. Non-finite values count as +∞.
pub fn minimize(
    f: &dyn Fn(&[f64]) -> f64,
    start: &[f64],
    options: &SimplexOptions,
) -> (Vec<f64>, f64) {
    let value = |x: &[f64]| {
        let v = f(x);
        if v.is_finite() {
            v
        } else {
            f64::INFINITY
        }
    };
    let mut best = (start.to_vec(), value(start));
    for _ in 0..=options.restarts {
        let found = run(&value, &best.0, options);
        let improved = found.1 < best.1 - options.tolerance;
        if found.1 <= best.1 {
            best = found;
        }
        if !improved {
            break;
        }
    }
    best
}

/// One Nelder–Mead run from `start` (reflection 1, expansion 2, contraction 1/2, shrink 1/2).
fn run(f: &dyn Fn(&[f64]) -> f64, start: &[f64], options: &SimplexOptions) -> (Vec<f64>, f64) {
    let n = start.len();
    let mut simplex: Vec<(Vec<f64>, f64)> = (0..=n)
        .map(|i| {
            let mut x = start.to_vec();
            if i > 0 {
                x[i - 1] += options.step;
            }
            let v = f(&x);
            (x, v)
        })
        .collect();
    let mut evaluations = n + 1;
    while evaluations < options.evaluations {
        simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
        if simplex[n].1 - simplex[0].1 <= options.tolerance && simplex[0].1.is_finite() {
            break;
        }
        let centroid: Vec<f64> = (0..n)
            .map(|j| simplex[..n].iter().map(|p| p.0[j]).sum::<f64>() / n as f64)
            .collect();
        let along = |t: f64| -> Vec<f64> {
            (0..n)
                .map(|j| centroid[j] + t * (simplex[n].0[j] - centroid[j]))
                .collect()
        };
        let reflected = along(-1.0);
        let r = f(&reflected);
        evaluations += 1;
        if r < simplex[0].1 {
            let expanded = along(-2.0);
            let e = f(&expanded);
            evaluations += 1;
            simplex[n] = if e < r { (expanded, e) } else { (reflected, r) };
        } else if r < simplex[n - 1].1 {
            simplex[n] = (reflected, r);
        } else {
            let (t, bound) = if r < simplex[n].1 {
                (-0.5, r)
            } else {
                (0.5, simplex[n].1)
            };
            let contracted = along(t);
            let c = f(&contracted);
            evaluations += 1;
            if c <= bound {
                simplex[n] = (contracted, c);
            } else {
                evaluations += shrink(f, &mut simplex);
            }
        }
    }
    simplex.sort_by(|a, b| a.1.total_cmp(&b.1));
    simplex.swap_remove(0)
}

/// Moves every vertex halfway to the best one; returns the evaluations spent.
fn shrink(f: &dyn Fn(&[f64]) -> f64, simplex: &mut [(Vec<f64>, f64)]) -> usize {
    let best = simplex[0].0.clone();
    for vertex in simplex.iter_mut().skip(1) {
        for (x, b) in vertex.0.iter_mut().zip(&best) {
            *x = b + 0.5 * (*x - b);
        }
        vertex.1 = f(&vertex.0);
    }
    simplex.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_minimum_of_rosenbrocks_valley() {
        let rosenbrock = |x: &[f64]| (1.0 - x[0]).powi(2) + 100.0 * (x[1] - x[0] * x[0]).powi(2);
        let options = SimplexOptions {
            tolerance: 1e-14,
            ..SimplexOptions::default()
        };
        let (x, v) = minimize(&rosenbrock, &[-1.2, 1.0], &options);
        assert!(
            (x[0] - 1.0).abs() < 1e-4 && (x[1] - 1.0).abs() < 1e-4,
            "{x:?}"
        );
        assert!(v < 1e-8);
    }

    #[test]
    fn a_quadratic_bowl_in_five_dimensions() {
        let bowl = |x: &[f64]| {
            x.iter()
                .enumerate()
                .map(|(i, v)| (i as f64 + 1.0) * (v - i as f64).powi(2))
                .sum::<f64>()
        };
        let options = SimplexOptions {
            tolerance: 1e-16,
            ..SimplexOptions::default()
        };
        let (x, _) = minimize(&bowl, &[0.0; 5], &options);
        for (i, v) in x.iter().enumerate() {
            assert!((v - i as f64).abs() < 1e-4, "{x:?}");
        }
    }

    #[test]
    fn non_finite_values_are_walls() {
        let walled = |x: &[f64]| {
            if x[0] < 0.0 {
                f64::NAN
            } else {
                (x[0] - 0.5).powi(2)
            }
        };
        let (x, _) = minimize(&walled, &[2.0], &SimplexOptions::default());
        assert!((x[0] - 0.5).abs() < 1e-3, "{x:?}");
    }
}
