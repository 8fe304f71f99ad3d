//! Number types a compiled law evaluates on: plain `f64`, and hyper-dual numbers carrying the
//! exact gradient and Hessian with respect to the parameters (forward-mode automatic
//! differentiation, second order). The fast path for gradients is the reverse sweep in
//! [`crate::law::tape`]; hyper-duals give exact Hessians for Newton steps and standard errors,
//! and serve as an independent check of the reverse sweep in tests.

/// Elementary one-argument functions of the law language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unary {
    Exp,
    Ln,
    Log10,
    Sqrt,
    Sigmoid,
    Sin,
    Cos,
    Tan,
    Atan,
    Tanh,
    Abs,
    Log1p,
    Expm1,
    Softplus,
}

pub use super::stable::{sigmoid, softplus};

/// σ'(x) = σ(x)·σ(−x), accurate to a few ulps for every x: the textbook σ(1 − σ) loses all
/// digits of 1 − σ(x) once σ(x) rounds to 1 (x > 37), where σ(−x) keeps them.
fn sigmoid_slope(x: f64, sigmoid_x: f64) -> f64 {
    let complement = if x > 0.0 {
        sigmoid(-x)
    } else {
        1.0 - sigmoid_x
    };
    sigmoid_x * complement
}

impl Unary {
    pub fn value(self, x: f64) -> f64 {
        match self {
            Unary::Exp => x.exp(),
            Unary::Ln => x.ln(),
            Unary::Log10 => x.log10(),
            Unary::Sqrt => x.sqrt(),
            Unary::Sigmoid => sigmoid(x),
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Atan => x.atan(),
            Unary::Tanh => x.tanh(),
            Unary::Abs => x.abs(),
            Unary::Log1p => x.ln_1p(),
            Unary::Expm1 => x.exp_m1(),
            Unary::Softplus => softplus(x),
        }
    }

    /// f(x), f'(x) given the value f(x).
    pub fn first_derivative(self, x: f64, fx: f64) -> f64 {
        match self {
            Unary::Exp => fx,
            Unary::Ln => 1.0 / x,
            Unary::Log10 => 1.0 / (x * std::f64::consts::LN_10),
            Unary::Sqrt => 0.5 / fx,
            Unary::Sigmoid => sigmoid_slope(x, fx),
            Unary::Sin => x.cos(),
            Unary::Cos => -x.sin(),
            Unary::Tan => 1.0 + fx * fx,
            Unary::Atan => 1.0 / (1.0 + x * x),
            Unary::Tanh => 1.0 - fx * fx,
            // The kink at 0 gets the subgradient 0 (as min/max pick one side).
            Unary::Abs => sign(x),
            Unary::Log1p => 1.0 / (1.0 + x),
            Unary::Expm1 => fx + 1.0,
            Unary::Softplus => sigmoid(x),
        }
    }

    /// (f(x), f'(x), f''(x)).
    pub fn derivatives(self, x: f64) -> (f64, f64, f64) {
        let fx = self.value(x);
        let d1 = self.first_derivative(x, fx);
        let d2 = match self {
            Unary::Exp => fx,
            Unary::Ln => -1.0 / (x * x),
            Unary::Log10 => -1.0 / (x * x * std::f64::consts::LN_10),
            Unary::Sqrt => -0.25 / (fx * x),
            // 1 − 2σ(x) = −tanh(x/2), without the cancellation of 1 − 2σ for large x.
            Unary::Sigmoid => -d1 * (0.5 * x).tanh(),
            Unary::Sin => -fx,
            Unary::Cos => -fx,
            Unary::Tan => 2.0 * fx * d1,
            Unary::Atan => -2.0 * x * d1 * d1,
            Unary::Tanh => -2.0 * fx * d1,
            Unary::Abs => 0.0,
            Unary::Log1p => -d1 * d1,
            Unary::Expm1 => d1,
            Unary::Softplus => sigmoid_slope(x, d1),
        };
        (fx, d1, d2)
    }
}

/// −1, 0 or 1 (0 at ±0 and NaN for NaN).
fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x == 0.0 {
        0.0
    } else {
        f64::NAN
    }
}

/// atan2(y, x) with its first and second partial derivatives:
/// (f, f_y, f_x, f_yy, f_yx, f_xx), from r² = x² + y².
pub fn atan2_derivatives(y: f64, x: f64) -> [f64; 6] {
    let r2 = x * x + y * y;
    let r4 = r2 * r2;
    [
        y.atan2(x),
        x / r2,
        -y / r2,
        -2.0 * x * y / r4,
        (y * y - x * x) / r4,
        2.0 * x * y / r4,
    ]
}

/// Arithmetic a law needs from its number type.
pub trait Real: Clone {
    /// A constant (zero derivatives) in a space of `n` parameters.
    fn constant(value: f64, n: usize) -> Self;
    fn value(&self) -> f64;
    fn add(&self, other: &Self) -> Self;
    fn sub(&self, other: &Self) -> Self;
    fn mul(&self, other: &Self) -> Self;
    fn div(&self, other: &Self) -> Self;
    fn neg(&self) -> Self;
    fn unary(&self, op: Unary) -> Self;
    /// self^c for a constant exponent (negative bases allowed for integer c).
    fn powc(&self, c: f64) -> Self;
    /// The angle of the point (x, self), in (−π, π].
    fn atan2(&self, x: &Self) -> Self;
    /// The root u of u = self·(1 − u)^a ([`crate::law::implicit`]).
    fn m4root(&self, a: &Self) -> Self;
    /// self^exponent for a positive base.
    fn pow(&self, exponent: &Self) -> Self {
        self.unary(Unary::Ln).mul(exponent).unary(Unary::Exp)
    }
    /// x^exponent where x > 0 is data with known ln x.
    fn pow_data(ln_x: f64, exponent: &Self) -> Self {
        let n = exponent.dimension();
        exponent.mul(&Self::constant(ln_x, n)).unary(Unary::Exp)
    }
    fn dimension(&self) -> usize;
}

impl Real for f64 {
    fn constant(value: f64, _: usize) -> Self {
        value
    }
    fn value(&self) -> f64 {
        *self
    }
    fn add(&self, other: &Self) -> Self {
        self + other
    }
    fn sub(&self, other: &Self) -> Self {
        self - other
    }
    fn mul(&self, other: &Self) -> Self {
        self * other
    }
    fn div(&self, other: &Self) -> Self {
        self / other
    }
    fn neg(&self) -> Self {
        -self
    }
    fn unary(&self, op: Unary) -> Self {
        op.value(*self)
    }
    fn powc(&self, c: f64) -> Self {
        self.powf(c)
    }
    fn atan2(&self, x: &Self) -> Self {
        f64::atan2(*self, *x)
    }
    fn m4root(&self, a: &Self) -> Self {
        crate::law::implicit::m4root(*self, *a)
    }
    fn pow(&self, exponent: &Self) -> Self {
        self.powf(*exponent)
    }
    fn pow_data(ln_x: f64, exponent: &Self) -> Self {
        (exponent * ln_x).exp()
    }
    fn dimension(&self) -> usize {
        0
    }
}

/// Storage of a second-order number: a value, its gradient with respect to `n` parameters and
/// its Hessian (n × n row-major, of which only the lower triangle j <= i is kept). The arithmetic
/// is written once, over this trait, for both the heap ([`HyperDual`]) and the stack
/// ([`FixedHyperDual`]) layouts.
pub trait Jet: Clone {
    fn zero(n: usize) -> Self;
    fn parts(&self) -> (f64, &[f64], &[f64]);
    fn parts_mut(&mut self) -> (&mut f64, &mut [f64], &mut [f64]);
}

fn jet_n<J: Jet>(x: &J) -> usize {
    x.parts().1.len()
}

fn jet_constant<J: Jet>(value: f64, n: usize) -> J {
    let mut out = J::zero(n);
    *out.parts_mut().0 = value;
    out
}

/// g(x) from g, g', g'' (chain rule to second order).
fn jet_chain<J: Jet>(x: &J, g: f64, d1: f64, d2: f64) -> J {
    let n = jet_n(x);
    let mut out = J::zero(n);
    let (_, xg, xh) = x.parts();
    let (value, og, oh) = out.parts_mut();
    *value = g;
    for i in 0..n {
        og[i] = d1 * xg[i];
        for j in 0..=i {
            oh[i * n + j] = d1 * xh[i * n + j] + d2 * xg[i] * xg[j];
        }
    }
    out
}

/// a·x + b·y.
fn jet_scaled_sum<J: Jet>(a: f64, x: &J, b: f64, y: &J) -> J {
    let n = jet_n(x);
    let mut out = J::zero(n);
    let ((xv, xg, xh), (yv, yg, yh)) = (x.parts(), y.parts());
    let (value, og, oh) = out.parts_mut();
    *value = a * xv + b * yv;
    for i in 0..n {
        og[i] = a * xg[i] + b * yg[i];
        for j in 0..=i {
            oh[i * n + j] = a * xh[i * n + j] + b * yh[i * n + j];
        }
    }
    out
}

/// g(x, y) from g and its first and second partials (chain rule to second order).
#[allow(clippy::too_many_arguments)]
fn jet_chain2<J: Jet>(x: &J, y: &J, g: f64, gx: f64, gy: f64, gxx: f64, gxy: f64, gyy: f64) -> J {
    let n = jet_n(x);
    let mut out = J::zero(n);
    let ((_, xg, xh), (_, yg, yh)) = (x.parts(), y.parts());
    let (value, og, oh) = out.parts_mut();
    *value = g;
    for i in 0..n {
        og[i] = gx * xg[i] + gy * yg[i];
        for j in 0..=i {
            oh[i * n + j] = gx * xh[i * n + j]
                + gy * yh[i * n + j]
                + gxx * xg[i] * xg[j]
                + gxy * (xg[i] * yg[j] + yg[i] * xg[j])
                + gyy * yg[i] * yg[j];
        }
    }
    out
}

fn jet_mul<J: Jet>(x: &J, y: &J) -> J {
    let n = jet_n(x);
    let (xv, yv) = (x.parts().0, y.parts().0);
    let mut out = jet_scaled_sum(yv, x, xv, y);
    let ((_, xg, _), (_, yg, _)) = (x.parts(), y.parts());
    let (value, _, oh) = out.parts_mut();
    *value = xv * yv;
    for i in 0..n {
        for j in 0..=i {
            oh[i * n + j] += xg[i] * yg[j] + yg[i] * xg[j];
        }
    }
    out
}

impl<J: Jet> Real for J {
    fn constant(value: f64, n: usize) -> Self {
        jet_constant(value, n)
    }
    fn value(&self) -> f64 {
        self.parts().0
    }
    fn add(&self, other: &Self) -> Self {
        jet_scaled_sum(1.0, self, 1.0, other)
    }
    fn sub(&self, other: &Self) -> Self {
        jet_scaled_sum(1.0, self, -1.0, other)
    }
    fn mul(&self, other: &Self) -> Self {
        jet_mul(self, other)
    }
    fn div(&self, other: &Self) -> Self {
        let b = other.parts().0;
        jet_mul(
            self,
            &jet_chain(other, 1.0 / b, -1.0 / (b * b), 2.0 / (b * b * b)),
        )
    }
    fn neg(&self) -> Self {
        jet_chain(self, -self.parts().0, -1.0, 0.0)
    }
    fn unary(&self, op: Unary) -> Self {
        let (f, d1, d2) = op.derivatives(self.parts().0);
        jet_chain(self, f, d1, d2)
    }
    fn powc(&self, c: f64) -> Self {
        let x = self.parts().0;
        let d2 = if c == 1.0 {
            0.0
        } else {
            c * (c - 1.0) * x.powf(c - 2.0)
        };
        let d1 = if c == 0.0 { 0.0 } else { c * x.powf(c - 1.0) };
        jet_chain(self, x.powf(c), d1, d2)
    }
    fn atan2(&self, x: &Self) -> Self {
        let [f, fy, fx, fyy, fyx, fxx] = atan2_derivatives(self.parts().0, x.parts().0);
        jet_chain2(self, x, f, fy, fx, fyy, fyx, fxx)
    }
    fn m4root(&self, a: &Self) -> Self {
        let [u, ug, ua, ugg, uga, uaa] =
            crate::law::implicit::m4root_derivatives(self.parts().0, a.parts().0);
        jet_chain2(self, a, u, ug, ua, ugg, uga, uaa)
    }
    fn pow_data(ln_x: f64, exponent: &Self) -> Self {
        let f = (exponent.parts().0 * ln_x).exp();
        jet_chain(exponent, f, f * ln_x, f * ln_x * ln_x)
    }
    fn dimension(&self) -> usize {
        jet_n(self)
    }
}

/// The natural log of the largest f64 (about 709.78): beyond it exp overflows.
const LN_MAX: f64 = 709.782712893384;

/// A real number stored as its sign and the natural log of its magnitude, so that it reaches
/// magnitudes far beyond f64's (about 1.8e308): what `exp(k*t)` is a million times beyond the
/// data. Values only (no derivatives): it says how large a law's value is where f64 overflows,
/// and is not used to fit. Operations without a log-space form (sin of a number too large for
/// f64, ...) and those outside their domain (log of a negative number, division by zero, 0·∞)
/// are undefined; `min` and `max` on the tape compare the f64 values (±∞ beyond the range).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wide {
    /// −1, 0 or 1; NaN when undefined.
    sign: f64,
    /// ln |value|: −∞ for zero, +∞ beyond even this range.
    ln: f64,
}

impl Wide {
    const UNDEFINED: Wide = Wide {
        sign: f64::NAN,
        ln: f64::NAN,
    };
    const ZERO: Wide = Wide {
        sign: 0.0,
        ln: f64::NEG_INFINITY,
    };

    /// sign × e^ln, normalising zero and undefined parts.
    fn new(sign: f64, ln: f64) -> Wide {
        if sign.is_nan() || ln.is_nan() {
            Wide::UNDEFINED
        } else if sign == 0.0 || ln == f64::NEG_INFINITY {
            Wide::ZERO
        } else {
            Wide { sign, ln }
        }
    }

    /// An f64 (±∞ reads as a magnitude beyond this range; NaN as undefined).
    pub fn from_f64(value: f64) -> Wide {
        Wide::new(value.signum(), value.abs().ln())
    }

    /// False for a value that does not exist (NaN in f64 terms).
    pub fn is_defined(&self) -> bool {
        !self.sign.is_nan()
    }

    /// −1, 0 or 1 (NaN when undefined).
    pub fn sign(&self) -> f64 {
        self.sign
    }

    /// log10 of the magnitude: −∞ for zero, +∞ beyond even this range, NaN when undefined.
    pub fn log10_abs(&self) -> f64 {
        self.ln / std::f64::consts::LN_10
    }

    /// The nearest f64 (±∞ beyond its range).
    pub fn to_f64(&self) -> f64 {
        if self.sign == 0.0 {
            0.0
        } else {
            self.sign * self.ln.exp()
        }
    }

    /// e^x for x given as an f64.
    fn exp_of(x: f64) -> Wide {
        Wide::new(1.0, x)
    }

    /// Whether the magnitude exceeds the largest f64.
    fn beyond_f64(&self) -> bool {
        self.ln > LN_MAX
    }
}

impl Real for Wide {
    fn constant(value: f64, _: usize) -> Self {
        Wide::from_f64(value)
    }
    fn value(&self) -> f64 {
        self.to_f64()
    }
    fn add(&self, other: &Self) -> Self {
        if !self.is_defined() || !other.is_defined() {
            return Wide::UNDEFINED;
        }
        if self.sign == 0.0 {
            return *other;
        }
        if other.sign == 0.0 {
            return *self;
        }
        let (big, small) = if self.ln >= other.ln {
            (self, other)
        } else {
            (other, self)
        };
        if big.ln == f64::INFINITY {
            let opposite_infinities = small.ln == f64::INFINITY && small.sign != big.sign;
            return if opposite_infinities {
                Wide::UNDEFINED
            } else {
                *big
            };
        }
        // log-sum-exp: ln(e^B ± e^S) = B + ln(1 ± e^(S − B)), with S − B <= 0.
        let ratio = (small.ln - big.ln).exp();
        let ln = if small.sign == big.sign {
            big.ln + ratio.ln_1p()
        } else {
            big.ln + (-ratio).ln_1p()
        };
        Wide::new(big.sign, ln)
    }
    fn sub(&self, other: &Self) -> Self {
        self.add(&other.neg())
    }
    fn mul(&self, other: &Self) -> Self {
        Wide::new(self.sign * other.sign, self.ln + other.ln)
    }
    fn div(&self, other: &Self) -> Self {
        if other.sign == 0.0 {
            return Wide::UNDEFINED;
        }
        Wide::new(self.sign * other.sign, self.ln - other.ln)
    }
    fn neg(&self) -> Self {
        Wide {
            sign: -self.sign,
            ln: self.ln,
        }
    }
    fn unary(&self, op: Unary) -> Self {
        if !self.is_defined() {
            return Wide::UNDEFINED;
        }
        let x = self.to_f64();
        let positive = self.sign > 0.0;
        match op {
            // x itself may be beyond f64: then e^x is beyond even this range (or zero).
            Unary::Exp => Wide::exp_of(x),
            Unary::Ln | Unary::Log10 if !positive => Wide::UNDEFINED,
            Unary::Ln => Wide::from_f64(self.ln),
            Unary::Log10 => Wide::from_f64(self.log10_abs()),
            Unary::Sqrt if self.sign < 0.0 => Wide::UNDEFINED,
            Unary::Sqrt => Wide::new(self.sign, 0.5 * self.ln),
            Unary::Abs => Wide::new(self.sign.abs(), self.ln),
            // ln(1 + x) ≈ ln x, e^x − 1 ≈ e^x and softplus(x) ≈ x far beyond f64.
            Unary::Log1p if self.beyond_f64() && positive => Wide::from_f64(self.ln),
            Unary::Expm1 | Unary::Softplus if x > 700.0 => {
                if op == Unary::Expm1 {
                    Wide::exp_of(x)
                } else {
                    *self
                }
            }
            Unary::Sin | Unary::Cos | Unary::Tan if self.beyond_f64() => Wide::UNDEFINED,
            _ => Wide::from_f64(op.value(x)),
        }
    }
    fn powc(&self, c: f64) -> Self {
        if !self.is_defined() {
            return Wide::UNDEFINED;
        }
        if self.sign == 0.0 {
            return if c > 0.0 {
                Wide::ZERO
            } else if c == 0.0 {
                Wide::from_f64(1.0)
            } else {
                Wide::UNDEFINED // a pole
            };
        }
        let sign = if self.sign > 0.0 {
            1.0
        } else if c.fract() != 0.0 {
            return Wide::UNDEFINED;
        } else if (c / 2.0).fract() != 0.0 {
            -1.0
        } else {
            1.0
        };
        if c == 0.0 {
            return Wide::from_f64(1.0);
        }
        Wide::new(sign, c * self.ln)
    }
    fn pow(&self, exponent: &Self) -> Self {
        let e = exponent.to_f64();
        if self.sign > 0.0 && !e.is_nan() {
            Wide::new(1.0, e * self.ln)
        } else {
            self.powc(e)
        }
    }
    fn pow_data(ln_x: f64, exponent: &Self) -> Self {
        Wide::new(1.0, exponent.to_f64() * ln_x)
    }
    fn atan2(&self, x: &Self) -> Self {
        if !self.is_defined() || !x.is_defined() {
            return Wide::UNDEFINED;
        }
        Wide::from_f64(self.to_f64().atan2(x.to_f64()))
    }
    fn m4root(&self, a: &Self) -> Self {
        if !self.is_defined() || !a.is_defined() {
            return Wide::UNDEFINED;
        }
        // The root is in [0, 1]: an argument beyond f64 saturates it.
        Wide::from_f64(crate::law::implicit::m4root(self.to_f64(), a.to_f64()))
    }
    fn dimension(&self) -> usize {
        0
    }
}

/// Second-order numbers: what exact Hessians need beyond [`Real`].
pub trait SecondOrder: Real {
    fn variable_of(value: f64, index: usize, n: usize) -> Self;
    /// g(self) given g, g', g''.
    fn chain_rule(&self, g: f64, d1: f64, d2: f64) -> Self;
    /// (value, gradient, full symmetric Hessian row-major).
    fn into_parts(self) -> (f64, Vec<f64>, Vec<f64>);
}

impl<J: Jet> SecondOrder for J {
    fn variable_of(value: f64, index: usize, n: usize) -> Self {
        let mut out: J = jet_constant(value, n);
        out.parts_mut().1[index] = 1.0;
        out
    }
    fn chain_rule(&self, g: f64, d1: f64, d2: f64) -> Self {
        jet_chain(self, g, d1, d2)
    }
    fn into_parts(self) -> (f64, Vec<f64>, Vec<f64>) {
        let (value, gradient, lower) = self.parts();
        let n = gradient.len();
        let hessian = (0..n * n)
            .map(|k| (k / n, k % n))
            .map(|(i, j)| lower[i.max(j) * n + i.min(j)])
            .collect();
        (value, gradient.to_vec(), hessian)
    }
}

/// A value with its exact gradient and Hessian with respect to any number of parameters (heap
/// storage; see [`Jet`] for the layout).
#[derive(Debug, Clone, PartialEq)]
pub struct HyperDual {
    value: f64,
    gradient: Vec<f64>,
    hessian: Vec<f64>,
}

impl HyperDual {
    /// The `index`-th of `n` independent variables, at `value`.
    pub fn variable(value: f64, index: usize, n: usize) -> Self {
        Self::variable_of(value, index, n)
    }
}

impl Jet for HyperDual {
    fn zero(n: usize) -> Self {
        HyperDual {
            value: 0.0,
            gradient: vec![0.0; n],
            hessian: vec![0.0; n * n],
        }
    }
    fn parts(&self) -> (f64, &[f64], &[f64]) {
        (self.value, &self.gradient, &self.hessian)
    }
    fn parts_mut(&mut self) -> (&mut f64, &mut [f64], &mut [f64]) {
        (&mut self.value, &mut self.gradient, &mut self.hessian)
    }
}

/// [`HyperDual`] for a number of parameters known at compile time, on the stack: no allocation
/// in the Newton steps, which evaluate it on every row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedHyperDual<const N: usize> {
    value: f64,
    gradient: [f64; N],
    hessian: [[f64; N]; N],
}

impl<const N: usize> Jet for FixedHyperDual<N> {
    fn zero(_: usize) -> Self {
        FixedHyperDual {
            value: 0.0,
            gradient: [0.0; N],
            hessian: [[0.0; N]; N],
        }
    }
    fn parts(&self) -> (f64, &[f64], &[f64]) {
        (self.value, &self.gradient, self.hessian.as_flattened())
    }
    fn parts_mut(&mut self) -> (&mut f64, &mut [f64], &mut [f64]) {
        (
            &mut self.value,
            &mut self.gradient,
            self.hessian.as_flattened_mut(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyperdual_product_rule() {
        // f(x, y) = x^2 * y at (3, 2): grad (2xy, x^2) = (12, 9), Hessian [[2y, 2x], [2x, 0]].
        let x = HyperDual::variable(3.0, 0, 2);
        let y = HyperDual::variable(2.0, 1, 2);
        let (value, gradient, hessian) = x.powc(2.0).mul(&y).into_parts();
        assert_eq!(value, 18.0);
        assert_eq!(gradient, vec![12.0, 9.0]);
        assert_eq!(hessian, vec![4.0, 6.0, 6.0, 0.0]);
    }

    #[test]
    fn heap_and_stack_layouts_agree() {
        let (x, y) = (
            HyperDual::variable(1.3, 0, 2),
            HyperDual::variable(0.7, 1, 2),
        );
        let (fx, fy) = (
            FixedHyperDual::<2>::variable_of(1.3, 0, 2),
            FixedHyperDual::<2>::variable_of(0.7, 1, 2),
        );
        let dynamic = x
            .mul(&y)
            .div(&x.add(&y))
            .unary(Unary::Exp)
            .pow(&y)
            .sub(&HyperDual::pow_data(0.5, &x));
        let fixed = fx
            .mul(&fy)
            .div(&fx.add(&fy))
            .unary(Unary::Exp)
            .pow(&fy)
            .sub(&FixedHyperDual::pow_data(0.5, &fx));
        // The same arithmetic over two storage layouts: the results must agree exactly.
        assert_eq!(dynamic.into_parts(), fixed.into_parts());
    }

    /// Central differences of f'(x) and f(x) against the exact first and second derivatives.
    #[test]
    fn elementary_derivatives_match_finite_differences() {
        let cases = [
            (Unary::Sin, 0.7),
            (Unary::Cos, -1.3),
            (Unary::Tan, 0.4),
            (Unary::Atan, 1.7),
            (Unary::Tanh, -0.6),
            (Unary::Abs, -2.5),
            (Unary::Abs, 0.8),
            (Unary::Log1p, 0.3),
            (Unary::Expm1, -0.2),
            (Unary::Softplus, -3.0),
            (Unary::Softplus, 0.4),
            (Unary::Softplus, 12.0),
            (Unary::Sigmoid, -2.0),
            (Unary::Sigmoid, 1.5),
        ];
        let h = 1e-5;
        for (op, x) in cases {
            let (_, d1, d2) = op.derivatives(x);
            let fd1 = (op.value(x + h) - op.value(x - h)) / (2.0 * h);
            let fd2 = (op.derivatives(x + h).1 - op.derivatives(x - h).1) / (2.0 * h);
            assert!(
                (d1 - fd1).abs() < 1e-8 * (1.0 + d1.abs()),
                "{op:?} d1 {d1} vs {fd1}"
            );
            assert!(
                (d2 - fd2).abs() < 1e-6 * (1.0 + d2.abs()),
                "{op:?} d2 {d2} vs {fd2}"
            );
        }
    }

    #[test]
    fn atan2_hessian_matches_finite_differences() {
        let (y0, x0) = (0.8, -1.4);
        let y = HyperDual::variable(y0, 0, 2);
        let x = HyperDual::variable(x0, 1, 2);
        let (value, gradient, hessian) = Real::atan2(&y, &x).into_parts();
        assert!((value - y0.atan2(x0)).abs() < 1e-15);
        let h = 1e-5;
        let g = |y: f64, x: f64| {
            let [_, fy, fx, ..] = atan2_derivatives(y, x);
            [fy, fx]
        };
        let fd = [
            (y0 + h).atan2(x0) - (y0 - h).atan2(x0),
            y0.atan2(x0 + h) - y0.atan2(x0 - h),
        ];
        for k in 0..2 {
            assert!(
                (gradient[k] - fd[k] / (2.0 * h)).abs() < 1e-8,
                "{gradient:?}"
            );
        }
        let (gy1, gy0) = (g(y0 + h, x0), g(y0 - h, x0));
        let (gx1, gx0) = (g(y0, x0 + h), g(y0, x0 - h));
        let fd_h = [
            (gy1[0] - gy0[0]) / (2.0 * h),
            (gx1[0] - gx0[0]) / (2.0 * h),
            (gy1[1] - gy0[1]) / (2.0 * h),
            (gx1[1] - gx0[1]) / (2.0 * h),
        ];
        for k in 0..4 {
            assert!(
                (hessian[k] - fd_h[k]).abs() < 1e-7,
                "{hessian:?} vs {fd_h:?}"
            );
        }
    }

    #[test]
    fn sigmoid_is_stable() {
        assert_eq!(sigmoid(-1000.0), 0.0);
        assert_eq!(sigmoid(1000.0), 1.0);
        assert!((sigmoid(0.0) - 0.5).abs() < 1e-15);
        // The slope keeps its digits where σ rounds to 1: σ'(40) = e^-40/(1 + e^-40)^2.
        let (_, d1, d2) = Unary::Sigmoid.derivatives(40.0);
        let e = (-40.0f64).exp();
        assert!((d1 / e - 1.0).abs() < 1e-14, "{d1} vs {e}");
        assert!((d2 / -e - 1.0).abs() < 1e-14, "{d2} vs {}", -e);
        let (_, d1, _) = Unary::Sigmoid.derivatives(1000.0);
        assert!((0.0..1e-300).contains(&d1));
    }

    /// Sign-and-log numbers: f64 arithmetic where f64 suffices, sizes far beyond it, and the
    /// undefined cases (0·∞, log of a negative number, division by zero) kept undefined.
    #[test]
    fn wide_numbers_reach_beyond_f64() {
        let w = Wide::from_f64;
        let close = |a: Wide, b: f64| (a.to_f64() - b).abs() <= 1e-13 * b.abs().max(1e-300);
        assert!(close(w(3.0).add(&w(-5.0)), -2.0));
        assert!(close(w(3.0).sub(&w(3.0)), 0.0));
        assert!(close(w(-2.0).mul(&w(4.5)).div(&w(3.0)), -3.0));
        assert!(close(w(-2.0).powc(3.0), -8.0) && close(w(9.0).unary(Unary::Sqrt), 3.0));
        assert!(close(w(0.3).unary(Unary::Softplus), softplus(0.3)));
        // e^1000 · e^1000 / e^1999 = e, though every intermediate is beyond f64. (1000 itself
        // is held as ln 1000, to a relative 1e-16: e^1000 to about 1e-13.)
        let big = w(1000.0).unary(Unary::Exp);
        let e = big.mul(&big).div(&w(1999.0).unary(Unary::Exp));
        assert!(
            (e.to_f64() / std::f64::consts::E - 1.0).abs() < 1e-12,
            "{e:?}"
        );
        let huge = w(1e7).unary(Unary::Exp);
        assert!((huge.log10_abs() - 1e7 / std::f64::consts::LN_10).abs() < 1e-6);
        assert!(
            close(huge.unary(Unary::Ln), 1e7)
                && close(huge.unary(Unary::Softplus).unary(Unary::Ln), 1e7)
        );
        assert!(huge.to_f64().is_infinite() && huge.sign() > 0.0);
        for undefined in [
            w(0.0).mul(&w(f64::INFINITY)),
            w(-1.0).unary(Unary::Ln),
            w(1.0).div(&w(0.0)),
            w(-2.0).powc(0.5),
            w(f64::NAN),
            huge.unary(Unary::Sin),
        ] {
            assert!(!undefined.is_defined(), "{undefined:?}");
        }
    }

    /// softplus(x) = log(1 + exp(x)) without overflow: ≈ x far right, ≈ exp(x) far left, and
    /// its derivatives σ(x) and σ'(x) finite everywhere.
    #[test]
    fn softplus_is_stable() {
        for x in [-800.0, -40.0, -1.0, 0.0, 0.5, 30.0, 800.0, 1e300] {
            let (f, d1, d2) = Unary::Softplus.derivatives(x);
            assert!(f.is_finite() && d1.is_finite() && d2.is_finite(), "{x}");
            assert!(f >= 0.0 && (0.0..=1.0).contains(&d1) && d2 >= 0.0, "{x}");
        }
        // Against log(1 + exp(x)) where that is exact enough, and the asymptotes beyond.
        for x in [-5.0, -0.3, 0.0, 2.0, 7.0] {
            let naive = (1.0 + f64::exp(x)).ln();
            assert!((softplus(x) - naive).abs() < 1e-15 * naive.max(1.0), "{x}");
        }
        assert!((softplus(800.0) - 800.0).abs() < 1e-12);
        assert!((softplus(-40.0) / (-40.0f64).exp() - 1.0).abs() < 1e-15);
        assert!(softplus(f64::NAN).is_nan());
        assert!(softplus(f64::INFINITY).is_infinite() && softplus(f64::NEG_INFINITY) < 1e-300);
    }
}
