//! A weighted straight line, the local trend the pooled model extends (accuracy against log
//! compute across the largest models, or against log tokens). Its variances use the
//! weights' scale, inflated by the residual scatter when that is larger (a Birge ratio above
//! one: the points scatter more than their binomial errors say).

/// `y ≈ level + slope·(x − centre)`, with the variances of the two (uncorrelated: x is
/// centred at its weighted mean).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Line {
    pub centre: f64,
    pub level: f64,
    pub slope: f64,
    pub var_level: f64,
    pub var_slope: f64,
}

impl Line {
    pub fn at(&self, x: f64) -> f64 {
        self.level + self.slope * (x - self.centre)
    }

    /// The variance of the line's value at `x`.
    pub fn var_at(&self, x: f64) -> f64 {
        self.var_level + (x - self.centre).powi(2) * self.var_slope
    }
}

/// The weighted least-squares line through (x, y) with weights `w` (inverse variances). One
/// point, or points at one x, give a flat line with an infinite slope variance.
pub fn weighted_line(x: &[f64], y: &[f64], w: &[f64]) -> Line {
    let total: f64 = w.iter().sum();
    let centre = x.iter().zip(w).map(|(x, w)| x * w).sum::<f64>() / total;
    let level = y.iter().zip(w).map(|(y, w)| y * w).sum::<f64>() / total;
    let sxx: f64 = x.iter().zip(w).map(|(x, w)| w * (x - centre).powi(2)).sum();
    let sxy: f64 = x
        .iter()
        .zip(y)
        .zip(w)
        .map(|((x, y), w)| w * (x - centre) * (y - level))
        .sum();
    let degenerate = !(sxx > 1e-12 * total);
    let slope = if degenerate { 0.0 } else { sxy / sxx };
    let dof = x.len().saturating_sub(2);
    let chi2: f64 = x
        .iter()
        .zip(y)
        .zip(w)
        .map(|((x, y), w)| w * (y - level - slope * (x - centre)).powi(2))
        .sum();
    let birge = if dof > 0 {
        (chi2 / dof as f64).max(1.0)
    } else {
        1.0
    };
    Line {
        centre,
        level,
        slope,
        var_level: birge / total,
        var_slope: if degenerate {
            f64::INFINITY
        } else {
            birge / sxx
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_line_and_its_textbook_variances() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let y = [1.0, 3.0, 5.0, 7.0];
        let line = weighted_line(&x, &y, &[1.0; 4]);
        assert!((line.slope - 2.0).abs() < 1e-12);
        assert!((line.at(0.0) - 1.0).abs() < 1e-12);
        // Exact fit: the Birge ratio is one, var(slope) = 1/Sxx = 1/5.
        assert!((line.var_slope - 0.2).abs() < 1e-12);
        assert!((line.var_level - 0.25).abs() < 1e-12);
    }

    #[test]
    fn one_x_gives_a_flat_line() {
        let line = weighted_line(&[2.0, 2.0], &[0.3, 0.5], &[1.0, 1.0]);
        assert!(line.slope.abs() < 1e-15 && line.var_slope.is_infinite());
        assert!((line.level - 0.4).abs() < 1e-12);
    }
}
