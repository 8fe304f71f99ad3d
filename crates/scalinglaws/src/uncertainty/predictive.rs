//! Prediction intervals of a new count or proportion: quantiles of the fit's family itself
//! (binomial, beta-binomial, Poisson, negative binomial) at a given number of trials or
//! exposure, mixed over the uncertainty of the law's mean there (the bootstrap replicates'
//! predictions, or equal-probability nodes of the delta method's normal) and of a fitted
//! dispersion (normal on ln α or logit ρ with the fit's standard error, its nodes paired with
//! the mean's on a golden-ratio lattice, so J components cover both). A normal residual
//! scale would give one width for every number of trials and a symmetric interval at 0 or 1;
//! the family's own distribution has neither fault. The mixture's CDF is
//! F(k) = (1/J) Σⱼ P(K ≤ k | μⱼ), and its q-quantile the least whole k with F(k) ≥ q
//! (a discrete quantile, so a 95 % interval covers at least 95 % when the mean is known).
//!
//! The CDFs are the standard closed forms (Johnson, Kemp & Kotz, *Univariate Discrete
//! Distributions*, 3rd ed., 2005): binomial P(K ≤ k) = I₁₋ₚ(n − k, k + 1) (§3.6), Poisson
//! Q(k + 1, μ) (§4.5), negative binomial (NB2, r = 1/α, p = r/(r + μ)) Iₚ(r, k + 1) (§5.6);
//! the beta-binomial (a = p(1 − ρ)/ρ, b = (1 − p)(1 − ρ)/ρ) has none and is summed from its
//! pmf, whose ratio of successive terms is (n − k)(k + a) / ((k + 1)(n − k − 1 + b)) (§6.7.2).

use statrs::function::gamma::gamma_ur;

use crate::fit::FamilyKind;
use crate::stats::{beta_reg, ln_gamma, normal_quantile};

/// Nodes of the delta method's normal for the mixture (equal probability each).
pub const DELTA_NODES: usize = 64;

/// A new observation's distribution: the family, its dispersion (α or ρ; unused otherwise)
/// with the standard error of its fit on ln α or logit ρ (0: known), and the trials n
/// (proportions) or exposure E (counts) it is predicted at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Predictive {
    pub kind: FamilyKind,
    pub dispersion: f64,
    pub dispersion_se: f64,
    pub size: f64,
}

impl Predictive {
    /// None for a location-scale family (its intervals add a residual scale instead) or a
    /// size that is not positive and finite.
    pub fn new(kind: FamilyKind, dispersion: Option<f64>, size: f64) -> Option<Predictive> {
        let needs_dispersion = matches!(
            kind,
            FamilyKind::NegativeBinomial | FamilyKind::BetaBinomial
        );
        let dispersion = match (needs_dispersion, dispersion) {
            (true, Some(d)) if d > 0.0 && d.is_finite() => d,
            (true, _) => return None,
            (false, _) => 0.0,
        };
        let discrete = kind.counts() || kind.proportions();
        (discrete && size > 0.0 && size.is_finite()).then_some(Predictive {
            kind,
            dispersion,
            dispersion_se: 0.0,
            size,
        })
    }

    /// The same with the dispersion's standard error `se` (on ln α or logit ρ) mixed in.
    pub fn with_dispersion_se(self, se: Option<f64>) -> Predictive {
        let dispersion_se = se.filter(|s| s.is_finite() && *s > 0.0).unwrap_or(0.0);
        Predictive {
            dispersion_se,
            ..self
        }
    }

    /// The mixture's components: each mean with a dispersion node (the j-th at probability
    /// frac(½ + j/φ) of the dispersion's normal, a rank-1 lattice against the sorted means).
    fn components(&self, means: &[f64]) -> Vec<(f64, f64)> {
        let golden = 0.618_033_988_749_894_9;
        let node = |j: usize| {
            if self.dispersion_se == 0.0 {
                return self.dispersion;
            }
            let u = (0.5 + j as f64 * golden).fract();
            let z = self.dispersion_se * normal_quantile(u);
            match self.kind {
                FamilyKind::BetaBinomial => {
                    crate::law::real::sigmoid((self.dispersion / (1.0 - self.dispersion)).ln() + z)
                }
                _ => self.dispersion * z.exp(),
            }
        };
        means
            .iter()
            .enumerate()
            .map(|(j, &m)| (m, node(j)))
            .collect()
    }

    /// The interval at `level` of a new observation whose law mean (a proportion, or a count
    /// per unit of exposure) is uncertain as `means` say, in the prediction's own units: a
    /// proportion k/n, or a rate k/E. None when no mean lies in the family's domain.
    pub fn interval(&self, means: &[f64], level: f64) -> Option<[f64; 2]> {
        let mut means = self.in_domain(means);
        if means.is_empty() {
            return None;
        }
        means.sort_by(f64::total_cmp);
        let means = self.components(&means);
        let tail = (1.0 - level) / 2.0;
        let [low, high] = match self.kind {
            FamilyKind::BetaBinomial => self.beta_binomial_quantiles(&means, [tail, 1.0 - tail]),
            _ => [
                self.quantile(&means, tail),
                self.quantile(&means, 1.0 - tail),
            ],
        };
        Some([low / self.size, high / self.size])
    }

    /// Means mapped into the family's domain: a proportion in (0, 1), a count rate > 0 (a
    /// normal node beyond the edge stands for the edge itself). Non-finite means are dropped.
    fn in_domain(&self, means: &[f64]) -> Vec<f64> {
        let tiny = 1e-12;
        let clamp = |m: f64| {
            if self.kind.proportions() {
                m.clamp(tiny, 1.0 - tiny)
            } else {
                m.max(tiny / self.size)
            }
        };
        means
            .iter()
            .filter(|m| m.is_finite())
            .map(|&m| clamp(m))
            .collect()
    }

    /// P(K ≤ k) at the mean `mean` (a proportion or a rate) and the dispersion `dispersion`,
    /// k whole.
    fn cdf(&self, k: f64, (mean, dispersion): (f64, f64)) -> f64 {
        let n = self.size;
        match self.kind {
            FamilyKind::Binomial if k >= n => 1.0,
            FamilyKind::Binomial => beta_reg(n - k, k + 1.0, 1.0 - mean),
            FamilyKind::Poisson => gamma_ur(k + 1.0, n * mean),
            FamilyKind::NegativeBinomial => {
                let r = 1.0 / dispersion;
                beta_reg(r, k + 1.0, r / (r + n * mean))
            }
            // The location-scale families and the beta-binomial never come here.
            _ => f64::NAN,
        }
    }

    fn mixture_cdf(&self, k: f64, means: &[(f64, f64)]) -> f64 {
        means.iter().map(|&m| self.cdf(k, m)).sum::<f64>() / means.len() as f64
    }

    /// The least whole k with mixture CDF ≥ q, by bisection (the CDF rises with k).
    fn quantile(&self, means: &[(f64, f64)], q: f64) -> f64 {
        let (mut low, mut high) = (-1.0, self.upper_start(means));
        while self.kind.counts() && self.mixture_cdf(high, means) < q && high < 1e300 {
            high = 2.0 * high + 1.0;
        }
        // Invariant: F(low) < q ≤ F(high) (F(−1) = 0).
        while high - low > 1.0 {
            let middle = ((low + high) / 2.0).floor();
            if self.mixture_cdf(middle, means) >= q {
                high = middle;
            } else {
                low = middle;
            }
        }
        high
    }

    /// A k at or above the quantiles: n for proportions; the largest expected count plus
    /// ten of its standard deviations (Poisson or NB2 variance) for counts.
    fn upper_start(&self, means: &[(f64, f64)]) -> f64 {
        if self.kind.proportions() {
            return self.size.floor();
        }
        let mu = means.iter().fold(0.0f64, |a, &(m, _)| a.max(m)) * self.size;
        let alpha = means.iter().fold(0.0f64, |a, &(_, d)| a.max(d));
        let variance = mu + alpha * mu * mu;
        (mu + 10.0 * variance.sqrt() + 10.0).ceil()
    }

    /// Both quantiles of a beta-binomial mixture in one pass over k (its pmf by the ratio of
    /// successive terms, from P(K = 0) = B(a, n + b)/B(a, b)). The trials are rounded to whole.
    fn beta_binomial_quantiles(&self, means: &[(f64, f64)], q: [f64; 2]) -> [f64; 2] {
        let n = self.size.round().max(1.0);
        let shapes: Vec<(f64, f64)> = means
            .iter()
            .map(|&(p, rho)| {
                let c = (1.0 - rho) / rho;
                (p * c, (1.0 - p) * c)
            })
            .collect();
        // ln P(K = k) per component, so that a first term that underflows (large n) does not
        // zero the whole recursion.
        let mut log_pmf: Vec<f64> = shapes
            .iter()
            .map(|&(a, b)| ln_gamma(n + b) + ln_gamma(a + b) - ln_gamma(b) - ln_gamma(n + a + b))
            .collect();
        let mut cumulative = 0.0;
        let mut found = [None, None];
        let mut k = 0.0;
        while k <= n {
            cumulative += log_pmf.iter().map(|l| l.exp()).sum::<f64>() / means.len() as f64;
            for (slot, &level) in found.iter_mut().zip(&q) {
                if slot.is_none() && cumulative >= level {
                    *slot = Some(k);
                }
            }
            if found[1].is_some() {
                break;
            }
            for (l, &(a, b)) in log_pmf.iter_mut().zip(&shapes) {
                *l += ((n - k) * (k + a) / ((k + 1.0) * (n - k - 1.0 + b))).ln();
            }
            k += 1.0;
        }
        // Rounding can leave the sum a hair below 1 at k = n.
        [found[0].unwrap_or(n), found[1].unwrap_or(n)]
    }
}

/// Equal-probability nodes of N(centre, se²): the delta method's mean uncertainty as a
/// mixture (the node at probability (j + ½)/J for j < J).
pub fn normal_nodes(centre: f64, se: f64) -> Vec<f64> {
    (0..DELTA_NODES)
        .map(|j| centre + se * normal_quantile((j as f64 + 0.5) / DELTA_NODES as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 95 % interval of one observation, as whole counts k (the interval times the size).
    fn counts(kind: FamilyKind, dispersion: Option<f64>, size: f64, mean: f64) -> [i64; 2] {
        let [low, high] = Predictive::new(kind, dispersion, size)
            .unwrap()
            .interval(&[mean], 0.95)
            .unwrap();
        [(low * size).round() as i64, (high * size).round() as i64]
    }

    // References: scipy.stats 1.17, `dist.ppf([0.025, 0.975], ...)`.
    #[test]
    fn quantiles_match_scipy() {
        use FamilyKind::*;
        // binom.ppf(q, 10, 0.5) = [2, 8]; binom.ppf(q, 1000, 0.03) = [20, 41]
        assert_eq!(counts(Binomial, None, 10.0, 0.5), [2, 8]);
        assert_eq!(counts(Binomial, None, 1000.0, 0.03), [20, 41]);
        // poisson.ppf(q, 10) = [4, 17]; poisson.ppf(q, 0.2) = [0, 1]; with exposure 4 and
        // rate 2.5 the count's are those of mean 10.
        assert_eq!(counts(Poisson, None, 1.0, 10.0), [4, 17]);
        assert_eq!(counts(Poisson, None, 1.0, 0.2), [0, 1]);
        assert_eq!(counts(Poisson, None, 4.0, 2.5), [4, 17]);
        // nbinom.ppf(q, n=2, p=2/12) (μ = 10, α = 0.5) = [0, 30]
        assert_eq!(counts(NegativeBinomial, Some(0.5), 1.0, 10.0), [0, 30]);
        // betabinom.ppf(q, 20, 3, 7) (p = 0.3, ρ = 1/11) = [1, 13]; (10000, 3, 7) =
        // [747, 6002]; (10000, 300, 700) = [2706, 3302], where P(K = 0) underflows.
        assert_eq!(counts(BetaBinomial, Some(1.0 / 11.0), 20.0, 0.3), [1, 13]);
        assert_eq!(
            counts(BetaBinomial, Some(1.0 / 11.0), 1e4, 0.3),
            [747, 6002]
        );
        assert_eq!(
            counts(BetaBinomial, Some(1.0 / 1001.0), 1e4, 0.3),
            [2706, 3302]
        );
    }

    #[test]
    fn a_mixture_is_wider_than_its_centre() {
        let p = Predictive::new(FamilyKind::Binomial, None, 1000.0).unwrap();
        let sharp = p.interval(&[0.3], 0.95).unwrap();
        let wide = p.interval(&normal_nodes(0.3, 0.02), 0.95).unwrap();
        assert!(
            wide[0] < sharp[0] && wide[1] > sharp[1],
            "{sharp:?} {wide:?}"
        );
        // An uncertain dispersion widens a negative binomial's upper tail.
        let nb = Predictive::new(FamilyKind::NegativeBinomial, Some(0.3), 1.0).unwrap();
        let known = nb.interval(&normal_nodes(60.0, 1e-9), 0.95).unwrap();
        let unsure = nb
            .with_dispersion_se(Some(0.4))
            .interval(&normal_nodes(60.0, 1e-9), 0.95)
            .unwrap();
        assert!(unsure[1] > known[1], "{known:?} {unsure:?}");
    }

    #[test]
    fn location_scale_families_and_bad_sizes_have_none() {
        assert!(Predictive::new(FamilyKind::Gaussian, None, 1.0).is_none());
        assert!(Predictive::new(FamilyKind::Binomial, None, 0.0).is_none());
        assert!(Predictive::new(FamilyKind::NegativeBinomial, None, 1.0).is_none());
    }
}
