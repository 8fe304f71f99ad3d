//! Noise models as objectives. Robust least squares on log values is wrong where data are
//! counts (zeros, a variance that grows with the mean), accuracies out of n questions (a
//! floor at chance, a variance p(1 − p)/n) or heavy-tailed runs; each family here is the
//! negative log-likelihood of the data it names, written as a function of the law's
//! prediction f with its exact first and second derivatives (so the tape's gradients and
//! Hessians carry through the chain rule), and the family's nuisance parameters (a
//! dispersion, Student's ν) fitted with the law.
//!
//! Names follow statsmodels and scipy:
//! - `gaussian`: y ~ N(f, σ²), σ fitted (least squares; `fit::likelihood` profiles σ);
//! - `student_t`: y ~ f + s·t_ν, scale s fitted, ν given or fitted (Lange, Little & Taylor
//!   1989, JASA 84:881);
//! - `poisson`: y ~ Poisson(E·f) with exposure E (McCullagh & Nelder 1989, §6.2);
//! - `negative_binomial`: NB2, mean μ = E·f and variance μ + α·μ² (Cameron & Trivedi 1986;
//!   statsmodels' `NegativeBinomial`), α fitted;
//! - `binomial`: k = y·n successes of n trials, k ~ Bin(n, f) (McCullagh & Nelder 1989, §4);
//! - `beta_binomial`: k ~ BetaBin(n, a, b) with a = f(1 − ρ)/ρ, b = (1 − f)(1 − ρ)/ρ, the
//!   intra-class correlation ρ fitted (Williams 1975, Biometrics 31:949).
//!
//! Per-row costs are written in deviance form (−ℓ less a term of the data alone, ≥ 0 and 0 at
//! a perfect fit for every family but `beta_binomial`), so the solvers' relative tolerances
//! see the misfit, not the data's constant; [`RowFamily::log_density`] is the full ℓ.
//! Nuisance parameters are fitted by alternation (the law at fixed nuisance values, then the
//! nuisance values at fixed predictions, each step raising ℓ), which converges fast because
//! the mean is orthogonal to the dispersion in these families (Cox & Reid 1987, JRSS B
//! 49:1): the NB2 and Student-t information matrices are block-diagonal in (mean, nuisance).

use serde::{Deserialize, Serialize};

use super::space::Space;
use crate::stats::{digamma, ln_gamma, trigamma};

/// A noise model (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FamilyKind {
    Gaussian,
    StudentT,
    Poisson,
    NegativeBinomial,
    Binomial,
    BetaBinomial,
}

impl FamilyKind {
    pub const ALL: [FamilyKind; 6] = [
        FamilyKind::Gaussian,
        FamilyKind::StudentT,
        FamilyKind::Poisson,
        FamilyKind::NegativeBinomial,
        FamilyKind::Binomial,
        FamilyKind::BetaBinomial,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FamilyKind::Gaussian => "gaussian",
            FamilyKind::StudentT => "student_t",
            FamilyKind::Poisson => "poisson",
            FamilyKind::NegativeBinomial => "negative_binomial",
            FamilyKind::Binomial => "binomial",
            FamilyKind::BetaBinomial => "beta_binomial",
        }
    }

    pub fn from_name(name: &str) -> Option<FamilyKind> {
        FamilyKind::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Counts (`poisson`, `negative_binomial`): y ≥ 0, an optional exposure.
    pub fn counts(self) -> bool {
        matches!(self, FamilyKind::Poisson | FamilyKind::NegativeBinomial)
    }

    /// Proportions of trials (`binomial`, `beta_binomial`): 0 ≤ y ≤ 1 with trials n.
    pub fn proportions(self) -> bool {
        matches!(self, FamilyKind::Binomial | FamilyKind::BetaBinomial)
    }

    /// Location-scale families, fitted in the settings' residual space.
    pub fn location_scale(self) -> bool {
        matches!(self, FamilyKind::Gaussian | FamilyKind::StudentT)
    }

    /// The family's dispersion parameter, by its statsmodels name (None: none).
    pub fn dispersion_name(self) -> Option<&'static str> {
        match self {
            FamilyKind::Gaussian => Some("sigma"),
            FamilyKind::StudentT => Some("scale"),
            FamilyKind::NegativeBinomial => Some("alpha"),
            FamilyKind::BetaBinomial => Some("rho"),
            FamilyKind::Poisson | FamilyKind::Binomial => None,
        }
    }

    /// Where the law's prediction must lie for the family's likelihood to be defined.
    pub fn domain(self) -> &'static str {
        match self {
            FamilyKind::Gaussian | FamilyKind::StudentT => "finite",
            FamilyKind::Poisson | FamilyKind::NegativeBinomial => "positive (a mean count)",
            FamilyKind::Binomial | FamilyKind::BetaBinomial => {
                "strictly between 0 and 1 (a probability)"
            }
        }
    }
}

/// A fit's noise model: the family and its nuisance values held fixed (None: fitted).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Family {
    pub kind: FamilyKind,
    /// Student's t degrees of freedom ν (None: fitted). Only for `student_t`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nu: Option<f64>,
    /// The dispersion held at this value (`alpha`, `rho`, `scale`; None: fitted with the law).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispersion: Option<f64>,
}

impl Family {
    pub fn new(kind: FamilyKind) -> Family {
        Family {
            kind,
            nu: None,
            dispersion: None,
        }
    }

    /// Nuisance parameters fitted with the law (the dispersion and ν that are not given).
    /// `gaussian`'s σ is profiled in closed form and counted by the caller as before.
    pub fn fitted_nuisance(&self) -> usize {
        let dispersion = match self.kind {
            FamilyKind::StudentT | FamilyKind::NegativeBinomial | FamilyKind::BetaBinomial => {
                usize::from(self.dispersion.is_none())
            }
            _ => 0,
        };
        let nu = usize::from(self.kind == FamilyKind::StudentT && self.nu.is_none());
        dispersion + nu
    }

    /// True when every nuisance value is given, so the fit is one search.
    pub fn nuisance_fixed(&self) -> bool {
        self.fitted_nuisance() == 0
    }
}

/// What a fit says of its family: the name, where residuals were taken (location-scale
/// families), and the nuisance values with whether they were fitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FamilyFit {
    pub name: String,
    pub space: Space,
    /// The dispersion's name (`alpha`, `rho`, `scale`, `sigma`) and value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispersion: Option<(String, f64)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nu: Option<f64>,
    /// Nuisance parameters fitted with the law (counted in AIC and BIC).
    pub fitted_nuisance: usize,
    /// Alternations of the nuisance fit (0: every nuisance value given).
    pub alternations: usize,
    /// The trials (proportions) or exposure (counts) every row shared, 1 without an exposure:
    /// what a new observation's prediction interval is drawn at. None where rows differ (or
    /// for a location-scale family).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<f64>,
    /// A fitted α or ρ adjusted for the mean parameters' fit (Cox–Reid), with its standard
    /// error on ln α or logit ρ: what prediction intervals draw a new observation at (the
    /// maximum-likelihood value, `dispersion`, runs low in small samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjusted_dispersion: Option<(f64, f64)>,
}

/// The trials or exposure every row of `data` shares (see [`FamilyFit::size`]).
pub(crate) fn common_size(kind: FamilyKind, data: &super::FitData) -> Option<f64> {
    let sizes = match kind {
        _ if kind.proportions() => data.trials.as_deref()?,
        _ if kind.counts() => match data.exposure.as_deref() {
            Some(exposure) => exposure,
            None => return Some(1.0),
        },
        _ => return None,
    };
    let first = *sizes.first()?;
    sizes.iter().all(|&s| s == first).then_some(first)
}

/// The Student-t degrees of freedom a fit may take (fitted or given).
pub const NU_RANGE: (f64, f64) = (0.2, 1e4);

/// A family bound to a fit's rows: its nuisance values and each row's trials or exposure.
#[derive(Debug, Clone, PartialEq)]
pub struct RowFamily {
    pub kind: FamilyKind,
    /// α (`negative_binomial`), ρ (`beta_binomial`), s (`student_t`); unused otherwise.
    pub dispersion: f64,
    /// ν (`student_t`); unused otherwise.
    pub nu: f64,
    /// Trials n (proportions) or exposure E (counts) per row; 1 elsewhere.
    pub size: Vec<f64>,
}

/// One row's cost as a function of the law's prediction f and its derivatives in f.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FamilyTerms {
    pub cost: f64,
    /// d cost / d f
    pub d1: f64,
    /// d² cost / d f²
    pub d2: f64,
    /// The expected (Fisher) information about f in the row, ≥ 0: the curvature of
    /// iteratively reweighted least squares (Fisher scoring).
    pub fisher: f64,
}

/// x·ln(y) with 0·ln(anything) = 0.
fn xlogy(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x * y.ln()
    }
}

/// ln C(n, k) for real n ≥ k ≥ 0.
fn ln_choose(n: f64, k: f64) -> f64 {
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma((n - k).max(0.0) + 1.0)
}

/// The residual in `space` and its first and second derivatives in the prediction.
fn residual_in(space: Space, f: f64, target: f64) -> Option<(f64, f64, f64)> {
    match space {
        Space::Log if f > 0.0 && f.is_finite() => Some((f.ln() - target, 1.0 / f, -1.0 / (f * f))),
        Space::Log => None,
        Space::Linear if f.is_finite() => Some((f - target, 1.0, 0.0)),
        Space::Linear => None,
    }
}

impl RowFamily {
    /// The cost of `row` at prediction `f` against `target` (in the fitted space); None
    /// where f is outside the family's domain.
    #[inline]
    pub fn terms(&self, f: f64, target: f64, row: usize, space: Space) -> Option<FamilyTerms> {
        let terms = match self.kind {
            FamilyKind::StudentT => self.student_t(f, target, space)?,
            FamilyKind::Poisson => poisson(f, target, self.size[row])?,
            FamilyKind::NegativeBinomial => {
                negative_binomial(f, target, self.size[row], self.dispersion)?
            }
            FamilyKind::Binomial => binomial(f, target, self.size[row])?,
            FamilyKind::BetaBinomial => beta_binomial(f, target, self.size[row], self.dispersion)?,
            FamilyKind::Gaussian => {
                let (r, dr, _) = residual_in(space, f, target)?;
                FamilyTerms {
                    cost: 0.5 * r * r,
                    d1: r * dr,
                    d2: dr * dr,
                    fisher: dr * dr,
                }
            }
        };
        (terms.cost.is_finite() && terms.d1.is_finite() && terms.d2.is_finite()).then_some(terms)
    }

    fn student_t(&self, f: f64, target: f64, space: Space) -> Option<FamilyTerms> {
        let (r, dr, ddr) = residual_in(space, f, target)?;
        let (nu, s) = (self.nu, self.dispersion);
        let scale2 = nu * s * s;
        let q = scale2 + r * r;
        let c1 = (nu + 1.0) * r / q;
        let c2 = (nu + 1.0) * (scale2 - r * r) / (q * q);
        Some(FamilyTerms {
            cost: 0.5 * (nu + 1.0) * (r * r / scale2).ln_1p(),
            d1: c1 * dr,
            d2: c2 * dr * dr + c1 * ddr,
            fisher: (nu + 1.0) / ((nu + 3.0) * s * s) * dr * dr,
        })
    }

    /// ℓ of `row` at prediction `f`: the full log density (of ln y for `student_t` in log
    /// space); −∞ outside the family's domain.
    pub fn log_density(&self, f: f64, target: f64, row: usize, space: Space) -> f64 {
        let Some(terms) = self.terms(f, target, row, space) else {
            return f64::NEG_INFINITY;
        };
        let n = self.size[row];
        match self.kind {
            FamilyKind::Gaussian => f64::NAN,
            FamilyKind::StudentT => {
                let (nu, s) = (self.nu, self.dispersion);
                ln_gamma(0.5 * (nu + 1.0))
                    - ln_gamma(0.5 * nu)
                    - 0.5 * (nu * std::f64::consts::PI).ln()
                    - s.ln()
                    - terms.cost
            }
            FamilyKind::Poisson => {
                let mu = n * f;
                xlogy(target, mu) - mu - ln_gamma(target + 1.0)
            }
            FamilyKind::NegativeBinomial => {
                let (mu, r) = (n * f, 1.0 / self.dispersion);
                ln_gamma(target + r) - ln_gamma(r) - ln_gamma(target + 1.0) - r * (mu / r).ln_1p()
                    + xlogy(target, mu / (r + mu))
            }
            FamilyKind::Binomial => {
                let k = target * n;
                ln_choose(n, k) + xlogy(k, f) + xlogy(n - k, 1.0 - f)
            }
            FamilyKind::BetaBinomial => {
                let k = target * n;
                let c = (1.0 - self.dispersion) / self.dispersion;
                let (a, b) = (f * c, (1.0 - f) * c);
                ln_choose(n, k) + ln_gamma(k + a) + ln_gamma(n - k + b)
                    - ln_gamma(n + c)
                    - ln_gamma(a)
                    - ln_gamma(b)
                    + ln_gamma(c)
            }
        }
    }
}

fn poisson(f: f64, y: f64, exposure: f64) -> Option<FamilyTerms> {
    if !(f > 0.0 && f.is_finite()) {
        return None;
    }
    let mu = exposure * f;
    let saturated = if y > 0.0 { y * (y / mu).ln() } else { 0.0 };
    Some(FamilyTerms {
        cost: mu - y + saturated,
        d1: exposure - y / f,
        d2: y / (f * f),
        fisher: exposure / f,
    })
}

fn negative_binomial(f: f64, y: f64, exposure: f64, alpha: f64) -> Option<FamilyTerms> {
    if !(f > 0.0 && f.is_finite()) {
        return None;
    }
    let (mu, r) = (exposure * f, 1.0 / alpha);
    let saturated = if y > 0.0 { y * (y / mu).ln() } else { 0.0 };
    // (y + r)·ln((y + r)/(μ + r)), written with ln_1p: r is huge when α is small.
    let tail = (y + r) * ((y - mu) / (mu + r)).ln_1p();
    let d1_mu = -y / mu + (y + r) / (mu + r);
    let d2_mu = y / (mu * mu) - (y + r) / ((mu + r) * (mu + r));
    Some(FamilyTerms {
        cost: saturated - tail,
        d1: exposure * d1_mu,
        d2: exposure * exposure * d2_mu,
        fisher: exposure * exposure * r / (mu * (mu + r)),
    })
}

fn binomial(p: f64, y: f64, n: f64) -> Option<FamilyTerms> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    let q = 1.0 - p;
    let cost = n * (xlogy(y, y / p) + xlogy(1.0 - y, (1.0 - y) / q));
    Some(FamilyTerms {
        cost,
        d1: n * (p - y) / (p * q),
        d2: n * (y / (p * p) + (1.0 - y) / (q * q)),
        fisher: n / (p * q),
    })
}

fn beta_binomial(p: f64, y: f64, n: f64, rho: f64) -> Option<FamilyTerms> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    let c = (1.0 - rho) / rho;
    let (k, m) = (y * n, (n - y * n).max(0.0));
    let part = |p: f64| {
        let (a, b) = (p * c, (1.0 - p) * c);
        ln_gamma(k + a) - ln_gamma(a) + ln_gamma(m + b) - ln_gamma(b)
    };
    // Against the value at the observed proportion (kept inside (0, 1)): a term of the data.
    let edge = 0.5 / (n + 1.0);
    let reference = part(y.clamp(edge, 1.0 - edge));
    let (a, b) = (p * c, (1.0 - p) * c);
    let d1 = -c * (digamma(k + a) - digamma(a) - digamma(m + b) + digamma(b));
    let d2 = -c * c * (trigamma(k + a) - trigamma(a) + trigamma(m + b) - trigamma(b));
    Some(FamilyTerms {
        cost: reference - part(p),
        d1,
        d2,
        // The binomial information shrunk by the design effect 1 + (n − 1)ρ: the exact
        // expectation has no closed form, and this is positive (what Fisher scoring needs).
        fisher: n / (p * (1.0 - p) * (1.0 + (n - 1.0) * rho)),
    })
}

/// Brent's minimisation without derivatives on [a, b]: golden-section steps with parabolic
/// interpolation (R. P. Brent, *Algorithms for Minimization without Derivatives*, 1973, ch. 5;
/// the `fmin` of Forsythe, Malcolm & Moler 1977). Non-finite values count as +∞.
pub(crate) fn brent_minimize(
    mut f: impl FnMut(f64) -> f64,
    lower: f64,
    upper: f64,
    tolerance: f64,
) -> (f64, f64) {
    const GOLDEN: f64 = 0.381_966_011_250_105_1;
    let mut value = |x: f64| {
        let v = f(x);
        if v.is_nan() {
            f64::INFINITY
        } else {
            v
        }
    };
    let (mut a, mut b) = (lower, upper);
    let mut x = a + GOLDEN * (b - a);
    let (mut w, mut v) = (x, x);
    let mut fx = value(x);
    let (mut fw, mut fv) = (fx, fx);
    let (mut d, mut e) = (0.0f64, 0.0f64);
    for _ in 0..200 {
        let middle = 0.5 * (a + b);
        let tol1 = tolerance * x.abs() + 1e-14;
        let tol2 = 2.0 * tol1;
        if (x - middle).abs() <= tol2 - 0.5 * (b - a) {
            break;
        }
        let mut golden = true;
        if e.abs() > tol1 {
            let r = (x - w) * (fx - fv);
            let mut q = (x - v) * (fx - fw);
            let mut p = (x - v) * q - (x - w) * r;
            q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            } else {
                q = -q;
            }
            let previous = e;
            e = d;
            if p.abs() < (0.5 * q * previous).abs() && p > q * (a - x) && p < q * (b - x) {
                d = p / q;
                let u = x + d;
                if u - a < tol2 || b - u < tol2 {
                    d = tol1.copysign(middle - x);
                }
                golden = false;
            }
        }
        if golden {
            e = if x >= middle { a - x } else { b - x };
            d = GOLDEN * e;
        }
        let u = if d.abs() >= tol1 {
            x + d
        } else {
            x + tol1.copysign(d)
        };
        let fu = value(u);
        if fu <= fx {
            if u < x {
                b = x;
            } else {
                a = x;
            }
            (v, fv, w, fw, x, fx) = (w, fw, x, fx, u, fu);
        } else {
            if u < x {
                a = u;
            } else {
                b = u;
            }
            if fu <= fw || w == x {
                (v, fv, w, fw) = (w, fw, u, fu);
            } else if fu <= fv || v == x || v == w {
                (v, fv) = (u, fu);
            }
        }
    }
    (x, fx)
}

/// Points of the coarse scan before [`brent_minimize`] (so a profile with a second, worse
/// minimum at the far end of the range does not capture the search).
const SCAN_POINTS: usize = 33;

/// The minimum of `f` on [lower, upper]: a scan of [`SCAN_POINTS`] points, then Brent's
/// method between the best point's neighbours.
pub(crate) fn scan_minimize(
    mut f: impl FnMut(f64) -> f64,
    lower: f64,
    upper: f64,
    tolerance: f64,
) -> (f64, f64) {
    let step = (upper - lower) / (SCAN_POINTS - 1) as f64;
    let points: Vec<f64> = (0..SCAN_POINTS).map(|i| lower + step * i as f64).collect();
    let values: Vec<f64> = points
        .iter()
        .map(|&x| {
            let v = f(x);
            if v.is_nan() {
                f64::INFINITY
            } else {
                v
            }
        })
        .collect();
    let best = (0..SCAN_POINTS)
        .min_by(|&i, &j| values[i].total_cmp(&values[j]))
        .unwrap_or(0);
    let lo = points[best.saturating_sub(1)];
    let hi = points[(best + 1).min(SCAN_POINTS - 1)];
    let (x, fx) = brent_minimize(&mut f, lo, hi, tolerance);
    if fx <= values[best] {
        (x, fx)
    } else {
        (points[best], values[best])
    }
}

/// Fixed predictions of a fit, against which the nuisance values are maximised.
pub(crate) struct AtPredictions<'a> {
    pub predictions: &'a [f64],
    /// Targets in the fitted space.
    pub target: &'a [f64],
    pub weights: &'a [f64],
    pub size: &'a [f64],
    pub space: Space,
}

/// The nuisance values that maximise ℓ at fixed predictions, and ℓ there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nuisance {
    pub dispersion: Option<f64>,
    pub nu: Option<f64>,
    pub log_likelihood: f64,
}

impl AtPredictions<'_> {
    /// Σ w·ℓ of `family` at these predictions.
    pub fn log_likelihood(&self, family: &RowFamily) -> f64 {
        let total: f64 = self
            .predictions
            .iter()
            .zip(self.target)
            .zip(self.weights)
            .enumerate()
            .map(|(row, ((&f, &t), &w))| {
                if w == 0.0 {
                    0.0
                } else {
                    w * family.log_density(f, t, row, self.space)
                }
            })
            .sum();
        if total.is_nan() {
            f64::NEG_INFINITY
        } else {
            total
        }
    }

    fn bound(&self, kind: FamilyKind, dispersion: f64, nu: f64) -> RowFamily {
        RowFamily {
            kind,
            dispersion,
            nu,
            size: self.size.to_vec(),
        }
    }

    /// The root mean square residual (the Student-t scale's reference), None when every
    /// residual is zero (ℓ then grows without bound as the scale shrinks).
    fn residual_rms(&self) -> Option<f64> {
        let (mut sum, mut weight) = (0.0, 0.0);
        for ((&f, &t), &w) in self.predictions.iter().zip(self.target).zip(self.weights) {
            let (r, _, _) = residual_in(self.space, f, t)?;
            sum += w * r * r;
            weight += w;
        }
        let rms = (sum / weight).sqrt();
        (rms > 0.0 && rms.is_finite()).then_some(rms)
    }

    /// The Cox–Reid adjusted dispersion (Cox & Reid 1987; as edgeR fits NB dispersions,
    /// McCarthy, Chen & Smyth 2012): the maximum over α (or ρ) of
    /// ℓ(α) − ½·ln det(Σ w·I(α)·∇f∇fᵀ) at these predictions, with I the family's Fisher
    /// information of the prediction and ∇f the law's gradient in its free parameters on
    /// each row (`gradients`). The determinant charges the mean parameters' fit, which the
    /// plain maximum leaves to bias α low in small samples. Returns the value and its
    /// standard error on ln α or logit ρ; None for other families or where ℓ is not finite.
    pub fn adjusted_dispersion(
        &self,
        kind: FamilyKind,
        gradients: &[Vec<f64>],
    ) -> Option<(f64, f64)> {
        let (lower, upper, to_value): (f64, f64, fn(f64) -> f64) = match kind {
            FamilyKind::NegativeBinomial => (1e-8f64.ln(), 1e4f64.ln(), f64::exp),
            FamilyKind::BetaBinomial => (-14.0, 14.0, crate::law::real::sigmoid),
            _ => return None,
        };
        let adjusted = |x: f64| {
            let family = self.bound(kind, to_value(x), 0.0);
            let half_log_det = self.half_log_det_information(&family, gradients);
            -(self.log_likelihood(&family) - half_log_det)
        };
        let (x, value) = scan_minimize(adjusted, lower, upper, 1e-12);
        let h = 1e-3;
        let curvature = (adjusted(x + h) - 2.0 * value + adjusted(x - h)) / (h * h);
        let se = (curvature > 0.0 && curvature.is_finite()).then(|| curvature.sqrt().recip());
        value.is_finite().then(|| (to_value(x), se.unwrap_or(0.0)))
    }

    /// ½·ln det(Σ w·I·∇f∇fᵀ) of `family` at these predictions (+∞ when not positive definite).
    fn half_log_det_information(&self, family: &RowFamily, gradients: &[Vec<f64>]) -> f64 {
        let k = gradients.first().map_or(0, Vec::len);
        let mut information = nalgebra::DMatrix::<f64>::zeros(k, k);
        for (row, gradient) in gradients.iter().enumerate() {
            let (f, t, w) = (self.predictions[row], self.target[row], self.weights[row]);
            let Some(terms) = family.terms(f, t, row, self.space) else {
                return f64::INFINITY;
            };
            let weight = w * terms.fisher;
            for (a, &ga) in gradient.iter().enumerate() {
                for (b, &gb) in gradient.iter().enumerate() {
                    information[(a, b)] += weight * ga * gb;
                }
            }
        }
        match information.cholesky() {
            Some(c) => c.l().diagonal().iter().map(|d| d.ln()).sum(),
            None => f64::INFINITY,
        }
    }

    /// Maximises ℓ over the nuisance values `family` leaves free; None when ℓ is not finite
    /// or (Student-t) every residual is zero.
    pub fn maximise(&self, family: &Family) -> Option<Nuisance> {
        let kind = family.kind;
        let tolerance = 1e-12;
        let (dispersion, nu, value) = match kind {
            FamilyKind::NegativeBinomial | FamilyKind::BetaBinomial => {
                let (lower, upper, to_value): (f64, f64, fn(f64) -> f64) =
                    if kind == FamilyKind::NegativeBinomial {
                        (1e-8f64.ln(), 1e4f64.ln(), f64::exp)
                    } else {
                        (-14.0, 14.0, crate::law::real::sigmoid)
                    };
                match family.dispersion {
                    Some(d) => (d, 0.0, -self.log_likelihood(&self.bound(kind, d, 0.0))),
                    None => {
                        let nll =
                            |x: f64| -self.log_likelihood(&self.bound(kind, to_value(x), 0.0));
                        let (x, v) = scan_minimize(nll, lower, upper, tolerance);
                        (to_value(x), 0.0, v)
                    }
                }
            }
            FamilyKind::StudentT => self.student_t(family, tolerance)?,
            FamilyKind::Poisson | FamilyKind::Binomial | FamilyKind::Gaussian => {
                (0.0, 0.0, -self.log_likelihood(&self.bound(kind, 1.0, 1.0)))
            }
        };
        let has_dispersion = matches!(
            kind,
            FamilyKind::NegativeBinomial | FamilyKind::BetaBinomial | FamilyKind::StudentT
        );
        value.is_finite().then_some(Nuisance {
            dispersion: has_dispersion.then_some(dispersion),
            nu: (kind == FamilyKind::StudentT).then_some(nu),
            log_likelihood: -value,
        })
    }

    /// Student-t: the scale on ln s around the residuals' RMS, ν on ln ν over [`NU_RANGE`]
    /// (nested: for each ν the best scale).
    fn student_t(&self, family: &Family, tolerance: f64) -> Option<(f64, f64, f64)> {
        let kind = FamilyKind::StudentT;
        let rms = self.residual_rms()?;
        let best_scale = |nu: f64| -> (f64, f64) {
            match family.dispersion {
                Some(s) => (s, -self.log_likelihood(&self.bound(kind, s, nu))),
                None => {
                    let nll = |x: f64| -self.log_likelihood(&self.bound(kind, x.exp(), nu));
                    let (x, v) = scan_minimize(nll, rms.ln() - 12.0, rms.ln() + 3.0, tolerance);
                    (x.exp(), v)
                }
            }
        };
        Some(match family.nu {
            Some(nu) => {
                let (s, v) = best_scale(nu);
                (s, nu, v)
            }
            None => {
                let (x, v) = scan_minimize(
                    |x| best_scale(x.exp()).1,
                    NU_RANGE.0.ln(),
                    NU_RANGE.1.ln(),
                    1e-9,
                );
                // exp(ln 1e4) can round above 1e4, and a fitted ν outside its own range was
                // then refused on a refit as if the user had given it (issue 50).
                let nu = x.exp().clamp(NU_RANGE.0, NU_RANGE.1);
                (best_scale(nu).0, nu, v)
            }
        })
    }
}

/// Checks a family's own settings (`nu`, `dispersion`, the space, the variance model).
pub(super) fn validate_settings(settings: &super::FitSettings) -> crate::error::Result<()> {
    use crate::error::{Error, Setting};
    use crate::text;
    let Some(family) = settings.family else {
        return Ok(());
    };
    let kind = family.kind;
    if settings.heteroscedastic.is_some() && kind != FamilyKind::Gaussian {
        return Err(Error::setting(
            Setting::Heteroscedastic,
            text![
                Setting::Heteroscedastic.named(),
                format!(
                    " models a Gaussian residual scale; it does not combine with the {} family",
                    kind.name()
                )
            ],
        ));
    }
    if !kind.location_scale() && settings.space == Space::Log {
        return Err(Error::setting(
            Setting::Space,
            text![
                format!(
                    "the {} family takes the target as it is (its likelihood is of the {}, not of their logs): ",
                    kind.name(),
                    if kind.counts() { "counts" } else { "proportions" }
                ),
                Setting::Space.text("linear"),
                " or no space"
            ],
        ));
    }
    validate_nu(family)?;
    validate_dispersion(family)
}

/// `nu` only for `student_t`, inside [`NU_RANGE`].
fn validate_nu(family: Family) -> crate::error::Result<()> {
    use crate::error::{short_number, Error, Setting};
    use crate::text;
    let kind = family.kind;
    if let Some(nu) = family.nu {
        if kind != FamilyKind::StudentT {
            return Err(Error::setting(
                Setting::Nu,
                text![
                    Setting::Nu.named(),
                    format!(
                        " is Student's degrees of freedom; the {} family has none",
                        kind.name()
                    )
                ],
            ));
        }
        if !(NU_RANGE.0..=NU_RANGE.1).contains(&nu) {
            return Err(Error::setting(
                Setting::Nu,
                text![
                    Setting::Nu.number(short_number(nu)),
                    format!(
                        ": give degrees of freedom between {} and {}",
                        NU_RANGE.0, NU_RANGE.1
                    )
                ],
            ));
        }
    }
    Ok(())
}

/// `dispersion` only for the families that have one, inside its range.
fn validate_dispersion(family: Family) -> crate::error::Result<()> {
    use crate::error::{short_number, Error, Setting};
    use crate::text;
    let kind = family.kind;
    if let Some(value) = family.dispersion {
        let (name, ok, range) = match kind {
            FamilyKind::NegativeBinomial => ("alpha", value > 0.0 && value <= 1e4, "in (0, 1e4]"),
            FamilyKind::BetaBinomial => ("rho", value > 0.0 && value < 1.0, "in (0, 1)"),
            FamilyKind::StudentT => ("scale", value > 0.0 && value.is_finite(), "above 0"),
            _ => {
                return Err(Error::setting(
                    Setting::Dispersion,
                    text![
                        Setting::Dispersion.named(),
                        format!(
                            " holds a dispersion; the {} family has none to hold{}",
                            kind.name(),
                            if kind == FamilyKind::Gaussian {
                                " (its sigma is profiled in closed form)"
                            } else {
                                ""
                            }
                        )
                    ],
                ))
            }
        };
        if !ok {
            return Err(Error::setting(
                Setting::Dispersion,
                text![
                    Setting::Dispersion.number(short_number(value)),
                    format!(": the {} family's {name} must be {range}", kind.name())
                ],
            ));
        }
    }
    Ok(())
}

/// Checks the target, trials and exposure against the family (row by row, naming the row).
pub(super) fn validate_data(
    data: &super::FitData,
    settings: &super::FitSettings,
) -> crate::error::Result<()> {
    use crate::error::{Error, Setting};
    use crate::text;
    let kind = settings.family.map(|f| f.kind);
    let refuse = |setting: Setting, applies: &str| {
        Error::setting(
            setting,
            text![
                setting.named(),
                format!(
                    " applies to the {applies}; this fit's objective is {}",
                    kind.map_or("the loss (no family)", |k| k.name())
                )
            ],
        )
    };
    if data.trials.is_some() && !kind.is_some_and(FamilyKind::proportions) {
        return Err(refuse(
            Setting::Trials,
            "binomial and beta_binomial families",
        ));
    }
    if data.exposure.is_some() && !kind.is_some_and(FamilyKind::counts) {
        return Err(refuse(
            Setting::Exposure,
            "poisson and negative_binomial families",
        ));
    }
    let Some(kind) = kind else {
        return Ok(());
    };
    validate_sizes(data)?;
    if kind.proportions() && data.trials.is_none() {
        return Err(Error::setting(
            Setting::Trials,
            text![
                format!(
                    "the {} family needs the number of trials behind each proportion: ",
                    kind.name()
                ),
                Setting::Trials.text("COLUMN"),
                " or a number of trials for every row"
            ],
        ));
    }
    let outside = |v: f64| {
        if kind.proportions() {
            !(0.0..=1.0).contains(&v)
        } else if kind.counts() {
            // Whole counts only: a loss of 2.35 read as a count has a variance of 2.35, so its
            // intervals would be nonsense (issue 50).
            v < 0.0 || (v - v.round()).abs() > 1e-9 * v.max(1.0)
        } else {
            false
        }
    };
    if let Some(row) = data.target.iter().position(|&v| outside(v)) {
        let (what, fix) = if kind.proportions() {
            (
                "a proportion of successes between 0 and 1",
                "give the target as successes / trials",
            )
        } else {
            (
                "a whole count (0 or more)",
                "give counts, or choose a family for measurements (gaussian, student_t)",
            )
        };
        return Err(super::data_error(
            Some(row),
            "target",
            format!(
                "{} is not {what}, as the {} family needs",
                data.target[row],
                kind.name()
            ),
            fix,
        ));
    }
    Ok(())
}

/// Trials and exposure, when given: one positive number per row.
fn validate_sizes(data: &super::FitData) -> crate::error::Result<()> {
    let n = data.target.len();
    for (column, values) in [("trials", &data.trials), ("exposure", &data.exposure)] {
        let Some(values) = values else { continue };
        if values.len() != n {
            return Err(super::data_error(
                None,
                column,
                format!("has {} values for {n} rows", values.len()),
                "give every column the same rows",
            ));
        }
        if let Some(row) = values.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(super::data_error(
                Some(row),
                column,
                format!("{} is not a positive number", values[row]),
                "remove or correct the row",
            ));
        }
    }
    Ok(())
}

/// The family bound to a fit's rows (None for `gaussian`, which is least squares, and for
/// no family). Nuisance values not given are NaN: a problem built before they are fitted
/// has no finite objective.
pub(super) fn row_family(
    settings: &super::FitSettings,
    data: &super::FitData,
) -> Option<RowFamily> {
    let family = settings.family?;
    if family.kind == FamilyKind::Gaussian {
        return None;
    }
    let n = data.target.len();
    let size = if family.kind.proportions() {
        data.trials.clone()
    } else if family.kind.counts() {
        data.exposure.clone()
    } else {
        None
    };
    Some(RowFamily {
        kind: family.kind,
        dispersion: family.dispersion.unwrap_or(f64::NAN),
        nu: family.nu.unwrap_or(f64::NAN),
        size: size.unwrap_or_else(|| vec![1.0; n]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(kind: FamilyKind, dispersion: f64, nu: f64, size: f64) -> RowFamily {
        RowFamily {
            kind,
            dispersion,
            nu,
            size: vec![size],
        }
    }

    #[test]
    fn derivatives_match_central_differences() {
        let cases = [
            (
                bound(FamilyKind::Poisson, 1.0, 1.0, 2.5),
                3.0,
                1.7,
                Space::Linear,
            ),
            (
                bound(FamilyKind::Poisson, 1.0, 1.0, 1.0),
                0.0,
                0.4,
                Space::Linear,
            ),
            (
                bound(FamilyKind::NegativeBinomial, 0.3, 1.0, 2.0),
                7.0,
                2.2,
                Space::Linear,
            ),
            (
                bound(FamilyKind::Binomial, 1.0, 1.0, 40.0),
                0.35,
                0.42,
                Space::Linear,
            ),
            (
                bound(FamilyKind::Binomial, 1.0, 1.0, 40.0),
                0.0,
                0.1,
                Space::Linear,
            ),
            (
                bound(FamilyKind::BetaBinomial, 0.05, 1.0, 40.0),
                0.35,
                0.42,
                Space::Linear,
            ),
            (
                bound(FamilyKind::StudentT, 0.2, 4.0, 1.0),
                1.3,
                1.1,
                Space::Linear,
            ),
            (
                bound(FamilyKind::StudentT, 0.02, 3.0, 1.0),
                1.3f64.ln(),
                1.2,
                Space::Log,
            ),
        ];
        for (family, target, f, space) in cases {
            let t = family.terms(f, target, 0, space).unwrap();
            let h = 1e-6 * f;
            let at = |x: f64| family.terms(x, target, 0, space).unwrap();
            let d1 = (at(f + h).cost - at(f - h).cost) / (2.0 * h);
            let d2 = (at(f + h).d1 - at(f - h).d1) / (2.0 * h);
            let kind = family.kind;
            assert!(
                (t.d1 - d1).abs() < 1e-6 * (1.0 + d1.abs()),
                "{kind:?}: {} vs {d1}",
                t.d1
            );
            assert!(
                (t.d2 - d2).abs() < 1e-5 * (1.0 + d2.abs()),
                "{kind:?}: {} vs {d2}",
                t.d2
            );
            // The cost is −ℓ less a term of the data: the same derivative as −log_density.
            let l = |x: f64| family.log_density(x, target, 0, space);
            let dl = -(l(f + h) - l(f - h)) / (2.0 * h);
            assert!(
                (t.d1 - dl).abs() < 1e-6 * (1.0 + dl.abs()),
                "{kind:?}: {} vs {dl}",
                t.d1
            );
        }
    }

    #[test]
    fn densities_sum_to_one_over_the_support() {
        let sum = |family: &RowFamily, f: f64, support: &mut dyn Iterator<Item = f64>| -> f64 {
            support
                .map(|y| family.log_density(f, y, 0, Space::Linear).exp())
                .sum()
        };
        let poisson = bound(FamilyKind::Poisson, 1.0, 1.0, 2.0);
        assert!((sum(&poisson, 1.5, &mut (0..200).map(f64::from)) - 1.0).abs() < 1e-12);
        let nb = bound(FamilyKind::NegativeBinomial, 0.7, 1.0, 2.0);
        assert!((sum(&nb, 1.5, &mut (0..20_000).map(f64::from)) - 1.0).abs() < 1e-9);
        let n = 30.0;
        let binomial = bound(FamilyKind::Binomial, 1.0, 1.0, n);
        assert!((sum(&binomial, 0.3, &mut (0..=30).map(|k| f64::from(k) / n)) - 1.0).abs() < 1e-12);
        let bb = bound(FamilyKind::BetaBinomial, 0.2, 1.0, n);
        assert!((sum(&bb, 0.3, &mut (0..=30).map(|k| f64::from(k) / n)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn brent_finds_a_parabola_minimum() {
        let (x, fx) = brent_minimize(|x| (x - 0.3).powi(2) + 2.0, -5.0, 7.0, 1e-12);
        assert!((x - 0.3).abs() < 1e-8 && (fx - 2.0).abs() < 1e-15);
        let (x, _) = scan_minimize(|x| (x * x - 4.0).powi(2) + 0.1 * x, -5.0, 5.0, 1e-12);
        assert!((x + 2.0).abs() < 0.01, "{x}");
    }
}
