//! The logistic function and softplus evaluated without overflow or lost digits: the number types
//! of [`crate::law::real`] and the implicit root of [`crate::law::implicit`] both build on them.

/// Numerically stable logistic function 1 / (1 + exp(-x)).
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// softplus(x) = log(1 + exp(x)), evaluated as max(x, 0) + log1p(exp(−|x|)): exp never sees a
/// positive argument, so no overflow, and log1p keeps the digits of the small correction (the
/// log1pexp of Mächler 2012, "Accurately Computing log(1 − exp(−|a|))", eq. 10, in one branch).
/// softplus(x) = x + log1p(exp(−x)) ≈ x for large x and ≈ exp(x) for very negative x.
pub fn softplus(x: f64) -> f64 {
    if x.is_nan() {
        return x; // f64::max would drop the NaN
    }
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}
