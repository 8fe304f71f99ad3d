//! Bounded linear least squares for the parameters that enter a law linearly (variable
//! projection starts): min ‖Φθ − t‖² subject to lo ≤ θ ≤ hi, by an active-set method in the
//! manner of Lawson & Hanson's NNLS (Solving Least Squares Problems, 1974, ch. 23) generalised
//! to two-sided bounds (Stark & Parker 1995, BVLS). Columns are normalised first so that a
//! constant column and a column of N^-α ≈ 1e-4 are equally well conditioned.

use nalgebra::{DMatrix, DVector};

#[derive(Debug, Clone, Copy, PartialEq)]
enum State {
    Free,
    AtLower,
    AtUpper,
}

/// Solves the bounded problem; `columns[j]` is column j of Φ. None if no column has any
/// scale or the system is degenerate beyond repair.
pub fn bounded_least_squares<C: AsRef<[f64]>>(
    columns: &[C],
    target: &[f64],
    lower: &[f64],
    upper: &[f64],
) -> Option<Vec<f64>> {
    let k = columns.len();
    let norms: Vec<f64> = columns
        .iter()
        .map(|c| c.as_ref().iter().map(|x| x * x).sum::<f64>().sqrt())
        .collect();
    if norms.iter().any(|n| !n.is_finite() || *n == 0.0) {
        return None;
    }
    let mut gram = DMatrix::zeros(k, k);
    let mut rhs = DVector::zeros(k);
    for a in 0..k {
        rhs[a] = dot(columns[a].as_ref(), target) / norms[a];
        for b in 0..=a {
            let g = dot(columns[a].as_ref(), columns[b].as_ref()) / (norms[a] * norms[b]);
            gram[(a, b)] = g;
            gram[(b, a)] = g;
        }
    }
    let lo: Vec<f64> = lower.iter().zip(&norms).map(|(l, n)| l * n).collect();
    let hi: Vec<f64> = upper.iter().zip(&norms).map(|(h, n)| h * n).collect();
    let scaled = active_set(&gram, &rhs, &lo, &hi)?;
    Some(scaled.iter().zip(&norms).map(|(t, n)| t / n).collect())
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// min ½θᵀGθ − bᵀθ on the box [lo, hi]. The problem is convex, so an unconstrained optimum
/// inside the box is the answer (most variable-projection starts): the active set is entered
/// only when it is not.
fn active_set(gram: &DMatrix<f64>, rhs: &DVector<f64>, lo: &[f64], hi: &[f64]) -> Option<Vec<f64>> {
    let k = rhs.len();
    let all: Vec<usize> = (0..k).collect();
    if let Some(theta) = unconstrained_free_optimum(gram, rhs, &vec![0.0; k], &all) {
        if (0..k).all(|j| lo[j] <= theta[j] && theta[j] <= hi[j]) {
            return Some(theta);
        }
    }
    let mut state: Vec<State> = (0..k)
        .map(|j| match (lo[j].is_finite(), hi[j].is_finite()) {
            (true, _) => State::AtLower,
            (false, true) => State::AtUpper,
            (false, false) => State::Free,
        })
        .collect();
    let mut theta: Vec<f64> = (0..k)
        .map(|j| match state[j] {
            State::AtLower => lo[j],
            State::AtUpper => hi[j],
            State::Free => 0.0,
        })
        .collect();
    for _ in 0..(10 * k + 10) {
        solve_free_set(gram, rhs, lo, hi, &mut theta, &mut state)?;
        let gradient = gram * DVector::from_column_slice(&theta) - rhs;
        let release = (0..k)
            .filter_map(|j| match state[j] {
                State::AtLower if gradient[j] < -1e-12 => Some((j, -gradient[j])),
                State::AtUpper if gradient[j] > 1e-12 => Some((j, gradient[j])),
                _ => None,
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match release {
            Some((j, _)) => state[j] = State::Free,
            None => return Some(theta),
        }
    }
    Some(theta)
}

/// Moves the free variables toward their unconstrained optimum, fixing any that hit a bound.
fn solve_free_set(
    gram: &DMatrix<f64>,
    rhs: &DVector<f64>,
    lo: &[f64],
    hi: &[f64],
    theta: &mut [f64],
    state: &mut [State],
) -> Option<()> {
    let k = theta.len();
    for _ in 0..=k {
        let free: Vec<usize> = (0..k).filter(|&j| state[j] == State::Free).collect();
        if free.is_empty() {
            return Some(());
        }
        let target = unconstrained_free_optimum(gram, rhs, theta, &free)?;
        let mut step = 1.0f64;
        let mut blocking = None;
        for (idx, &j) in free.iter().enumerate() {
            let (from, to) = (theta[j], target[idx]);
            let limit = if to < lo[j] {
                Some((lo[j] - from) / (to - from))
            } else if to > hi[j] {
                Some((hi[j] - from) / (to - from))
            } else {
                None
            };
            if let Some(t) = limit {
                if t < step {
                    step = t.max(0.0);
                    blocking = Some(j);
                }
            }
        }
        for (idx, &j) in free.iter().enumerate() {
            theta[j] += step * (target[idx] - theta[j]);
        }
        match blocking {
            None => return Some(()),
            Some(j) => {
                let at_lower = (theta[j] - lo[j]).abs() <= (theta[j] - hi[j]).abs();
                theta[j] = if at_lower { lo[j] } else { hi[j] };
                state[j] = if at_lower {
                    State::AtLower
                } else {
                    State::AtUpper
                };
            }
        }
    }
    Some(())
}

fn unconstrained_free_optimum(
    gram: &DMatrix<f64>,
    rhs: &DVector<f64>,
    theta: &[f64],
    free: &[usize],
) -> Option<Vec<f64>> {
    let m = free.len();
    let mut g = DMatrix::zeros(m, m);
    let mut b = DVector::zeros(m);
    for (a, &i) in free.iter().enumerate() {
        b[a] = rhs[i]
            - (0..theta.len())
                .filter(|j| !free.contains(j))
                .map(|j| gram[(i, j)] * theta[j])
                .sum::<f64>();
        for (c, &j) in free.iter().enumerate() {
            g[(a, c)] = gram[(i, j)];
        }
        g[(a, a)] += 1e-14;
    }
    let solution = nalgebra::Cholesky::new(g)?.solve(&b);
    solution
        .iter()
        .all(|x| x.is_finite())
        .then(|| solution.as_slice().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unconstrained_solution_when_inside_bounds() {
        let x: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let ones = vec![1.0; 10];
        let y: Vec<f64> = x.iter().map(|v| 2.0 + 3.0 * v).collect();
        let theta =
            bounded_least_squares(&[ones, x], &y, &[0.0, 0.0], &[f64::INFINITY; 2]).unwrap();
        assert!(
            (theta[0] - 2.0).abs() < 1e-9 && (theta[1] - 3.0).abs() < 1e-9,
            "{theta:?}"
        );
    }

    #[test]
    fn active_bound_is_respected() {
        let x: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let ones = vec![1.0; 10];
        // y = -5 + x: the intercept wants to be negative but is bounded at 0.
        let y: Vec<f64> = x.iter().map(|v| -5.0 + v).collect();
        let theta = bounded_least_squares(
            &[ones.clone(), x.clone()],
            &y,
            &[0.0, 0.0],
            &[f64::INFINITY; 2],
        )
        .unwrap();
        assert_eq!(theta[0], 0.0);
        // With intercept 0, the slope is Σxy/Σx².
        let want = dot(&x, &y) / dot(&x, &x);
        assert!((theta[1] - want).abs() < 1e-9);
        let theta = bounded_least_squares(
            &[ones, x],
            &y,
            &[f64::NEG_INFINITY; 2],
            &[f64::INFINITY, 0.5],
        )
        .unwrap();
        assert!((theta[1] - 0.5).abs() < 1e-12, "{theta:?}");
    }
}
