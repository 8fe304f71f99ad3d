//! The robust statistics every QC rule measures with: the median, the median absolute
//! deviation (MAD) and the modified z-score of Iglewicz & Hoaglin (1993, *How to Detect and
//! Handle Outliers*, ASQC Basic References in Quality Control vol. 16, §3.2),
//! M = 0.6745·(x − median)/MAD, where 0.6745 is the standard normal's third quartile, so that
//! M is on the scale of a z-score under normal data while one wild value moves neither the
//! centre nor the spread. They recommend labelling |M| > 3.5 as a potential outlier.
//!
//! When more than half the values equal the median the MAD is zero; the scale is then the mean
//! absolute deviation times √(π/2) = 1.253314 (its ratio to the standard deviation under the
//! normal), the fallback used with the modified z-score in IBM SPSS's outlier rules. When both
//! are zero every value equals the median and nothing is an outlier.

/// The normal's third quartile: MAD/0.6745 estimates σ under normal data.
pub const MAD_FACTOR: f64 = 0.6745;

/// √(π/2): the mean absolute deviation times this estimates σ under normal data.
pub const MEAN_AD_FACTOR: f64 = 1.253314;

/// The median of finite values (None when there are none).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    })
}

/// A centre and a robust σ: modified z-scores are (x − centre)/sigma.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Robust {
    pub centre: f64,
    /// MAD/0.6745, or the mean absolute deviation × 1.253314 when the MAD is zero; zero when
    /// every value equals the centre.
    pub sigma: f64,
}

impl Robust {
    /// The median and robust σ of the finite `values` (None when there are none).
    pub fn of(values: &[f64]) -> Option<Robust> {
        let centre = median(values)?;
        Some(Robust {
            centre,
            sigma: sigma_about(values, centre),
        })
    }

    /// The modified z-score of `x`: None when the spread is zero (nothing stands out).
    pub fn z(&self, x: f64) -> Option<f64> {
        (self.sigma > 0.0 && x.is_finite()).then(|| (x - self.centre) / self.sigma)
    }
}

/// The robust σ of `deviations`' values about `centre` (see the module doc).
pub fn sigma_about(values: &[f64], centre: f64) -> f64 {
    let deviations: Vec<f64> = values
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| (v - centre).abs())
        .collect();
    let Some(mad) = median(&deviations) else {
        return 0.0;
    };
    if mad > 0.0 {
        return mad / MAD_FACTOR;
    }
    let mean = deviations.iter().sum::<f64>() / deviations.len() as f64;
    mean * MEAN_AD_FACTOR
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_odd_and_even_counts_skips_nan() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, f64::NAN, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN]), None);
    }

    #[test]
    fn one_wild_value_moves_neither_centre_nor_spread() {
        let clean = Robust::of(&[1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
        let wild = Robust::of(&[1.0, 2.0, 3.0, 4.0, 500.0]).unwrap();
        assert!((clean.centre - wild.centre).abs() < 1e-12);
        assert!((clean.sigma - wild.sigma).abs() < 1e-12);
        // MAD of 1..5 about 3 is 1: sigma = 1/0.6745.
        assert!((clean.sigma - 1.0 / MAD_FACTOR).abs() < 1e-12);
        assert!(wild.z(500.0).unwrap() > 300.0);
    }

    #[test]
    fn a_zero_mad_falls_back_to_the_mean_absolute_deviation() {
        let r = Robust::of(&[2.0, 2.0, 2.0, 2.0, 7.0]).unwrap();
        assert!((r.sigma - 1.0 * MEAN_AD_FACTOR).abs() < 1e-12);
        let flat = Robust::of(&[2.0, 2.0, 2.0]).unwrap();
        assert_eq!(flat.z(2.0), None);
    }
}
