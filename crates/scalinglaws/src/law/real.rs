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
}

/// Numerically stable logistic function 1 / (1 + exp(-x)).
pub fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

impl Unary {
    pub fn value(self, x: f64) -> f64 {
        match self {
            Unary::Exp => x.exp(),
            Unary::Ln => x.ln(),
            Unary::Log10 => x.log10(),
            Unary::Sqrt => x.sqrt(),
            Unary::Sigmoid => sigmoid(x),
        }
    }

    /// f(x), f'(x) given the value f(x).
    pub fn first_derivative(self, x: f64, fx: f64) -> f64 {
        match self {
            Unary::Exp => fx,
            Unary::Ln => 1.0 / x,
            Unary::Log10 => 1.0 / (x * std::f64::consts::LN_10),
            Unary::Sqrt => 0.5 / fx,
            Unary::Sigmoid => fx * (1.0 - fx),
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
            Unary::Sigmoid => d1 * (1.0 - 2.0 * fx),
        };
        (fx, d1, d2)
    }
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

/// A value with its exact gradient and Hessian with respect to `n` parameters.
/// The Hessian is stored dense, row-major, n × n.
#[derive(Debug, Clone, PartialEq)]
pub struct HyperDual {
    pub value: f64,
    pub gradient: Vec<f64>,
    pub hessian: Vec<f64>,
}

impl HyperDual {
    /// The `index`-th of `n` independent variables, at `value`.
    pub fn variable(value: f64, index: usize, n: usize) -> Self {
        let mut d = Self::constant(value, n);
        d.gradient[index] = 1.0;
        d
    }

    pub fn n(&self) -> usize {
        self.gradient.len()
    }

    /// Chain rule for g(self) given g, g', g''.
    pub fn chain(&self, g: f64, d1: f64, d2: f64) -> Self {
        let n = self.n();
        let gradient = self.gradient.iter().map(|x| d1 * x).collect();
        let mut hessian = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                hessian[i * n + j] =
                    d1 * self.hessian[i * n + j] + d2 * self.gradient[i] * self.gradient[j];
            }
        }
        HyperDual {
            value: g,
            gradient,
            hessian,
        }
    }

    fn scaled_sum(&self, a: f64, other: &Self, b: f64) -> Self {
        HyperDual {
            value: a * self.value + b * other.value,
            gradient: zip_map(&self.gradient, &other.gradient, |x, y| a * x + b * y),
            hessian: zip_map(&self.hessian, &other.hessian, |x, y| a * x + b * y),
        }
    }
}

fn zip_map(a: &[f64], b: &[f64], f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    a.iter().zip(b).map(|(x, y)| f(*x, *y)).collect()
}

impl Real for HyperDual {
    fn constant(value: f64, n: usize) -> Self {
        HyperDual {
            value,
            gradient: vec![0.0; n],
            hessian: vec![0.0; n * n],
        }
    }
    fn value(&self) -> f64 {
        self.value
    }
    fn add(&self, other: &Self) -> Self {
        self.scaled_sum(1.0, other, 1.0)
    }
    fn sub(&self, other: &Self) -> Self {
        self.scaled_sum(1.0, other, -1.0)
    }
    fn mul(&self, other: &Self) -> Self {
        let n = self.n();
        let mut product = self.scaled_sum(other.value, other, self.value);
        product.value = self.value * other.value;
        for i in 0..n {
            for j in 0..n {
                product.hessian[i * n + j] +=
                    self.gradient[i] * other.gradient[j] + other.gradient[i] * self.gradient[j];
            }
        }
        product
    }
    fn div(&self, other: &Self) -> Self {
        let b = other.value;
        self.mul(&other.chain(1.0 / b, -1.0 / (b * b), 2.0 / (b * b * b)))
    }
    fn neg(&self) -> Self {
        self.chain(-self.value, -1.0, 0.0)
    }
    fn unary(&self, op: Unary) -> Self {
        let (f, d1, d2) = op.derivatives(self.value);
        self.chain(f, d1, d2)
    }
    fn powc(&self, c: f64) -> Self {
        let x = self.value;
        let d2 = if c == 1.0 {
            0.0
        } else {
            c * (c - 1.0) * x.powf(c - 2.0)
        };
        let d1 = if c == 0.0 { 0.0 } else { c * x.powf(c - 1.0) };
        self.chain(x.powf(c), d1, d2)
    }
    fn pow_data(ln_x: f64, exponent: &Self) -> Self {
        let f = (exponent.value * ln_x).exp();
        exponent.chain(f, f * ln_x, f * ln_x * ln_x)
    }
    fn dimension(&self) -> usize {
        self.n()
    }
}

/// Second-order numbers: what exact Hessians need beyond [`Real`].
pub trait SecondOrder: Real {
    fn variable_of(value: f64, index: usize, n: usize) -> Self;
    /// g(self) given g, g', g''.
    fn chain_rule(&self, g: f64, d1: f64, d2: f64) -> Self;
    /// (value, gradient, Hessian row-major).
    fn into_parts(self) -> (f64, Vec<f64>, Vec<f64>);
}

impl SecondOrder for HyperDual {
    fn variable_of(value: f64, index: usize, n: usize) -> Self {
        HyperDual::variable(value, index, n)
    }
    fn chain_rule(&self, g: f64, d1: f64, d2: f64) -> Self {
        self.chain(g, d1, d2)
    }
    fn into_parts(self) -> (f64, Vec<f64>, Vec<f64>) {
        (self.value, self.gradient, self.hessian)
    }
}

impl<const N: usize> SecondOrder for FixedHyperDual<N> {
    fn variable_of(value: f64, index: usize, _: usize) -> Self {
        FixedHyperDual::variable(value, index)
    }
    fn chain_rule(&self, g: f64, d1: f64, d2: f64) -> Self {
        self.chain(g, d1, d2)
    }
    fn into_parts(self) -> (f64, Vec<f64>, Vec<f64>) {
        (
            self.value,
            self.gradient.to_vec(),
            (0..N)
                .flat_map(|i| (0..N).map(move |j| (i, j)))
                .map(|(i, j)| self.hessian[i.max(j)][i.min(j)])
                .collect(),
        )
    }
}

/// [`HyperDual`] for a number of parameters known at compile time: the same arithmetic on
/// stack arrays, without allocation (Newton steps evaluate it on every row). Only the lower
/// triangle of the symmetric Hessian is computed (`hessian[i][j]` for j <= i).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FixedHyperDual<const N: usize> {
    pub value: f64,
    pub gradient: [f64; N],
    pub hessian: [[f64; N]; N],
}

impl<const N: usize> FixedHyperDual<N> {
    pub fn variable(value: f64, index: usize) -> Self {
        let mut d = Self::constant(value, N);
        d.gradient[index] = 1.0;
        d
    }

    #[inline]
    pub fn chain(&self, g: f64, d1: f64, d2: f64) -> Self {
        let mut out = Self::constant(g, N);
        for i in 0..N {
            out.gradient[i] = d1 * self.gradient[i];
            for j in 0..=i {
                out.hessian[i][j] =
                    d1 * self.hessian[i][j] + d2 * self.gradient[i] * self.gradient[j];
            }
        }
        out
    }

    #[inline]
    fn scaled_sum(&self, a: f64, other: &Self, b: f64) -> Self {
        let mut out = Self::constant(a * self.value + b * other.value, N);
        for i in 0..N {
            out.gradient[i] = a * self.gradient[i] + b * other.gradient[i];
            for j in 0..=i {
                out.hessian[i][j] = a * self.hessian[i][j] + b * other.hessian[i][j];
            }
        }
        out
    }
}

impl<const N: usize> Real for FixedHyperDual<N> {
    #[inline]
    fn constant(value: f64, _: usize) -> Self {
        FixedHyperDual {
            value,
            gradient: [0.0; N],
            hessian: [[0.0; N]; N],
        }
    }
    fn value(&self) -> f64 {
        self.value
    }
    fn add(&self, other: &Self) -> Self {
        self.scaled_sum(1.0, other, 1.0)
    }
    fn sub(&self, other: &Self) -> Self {
        self.scaled_sum(1.0, other, -1.0)
    }
    fn mul(&self, other: &Self) -> Self {
        let mut product = self.scaled_sum(other.value, other, self.value);
        product.value = self.value * other.value;
        for i in 0..N {
            for j in 0..=i {
                product.hessian[i][j] +=
                    self.gradient[i] * other.gradient[j] + other.gradient[i] * self.gradient[j];
            }
        }
        product
    }
    fn div(&self, other: &Self) -> Self {
        let b = other.value;
        self.mul(&other.chain(1.0 / b, -1.0 / (b * b), 2.0 / (b * b * b)))
    }
    fn neg(&self) -> Self {
        self.chain(-self.value, -1.0, 0.0)
    }
    fn unary(&self, op: Unary) -> Self {
        let (f, d1, d2) = op.derivatives(self.value);
        self.chain(f, d1, d2)
    }
    fn powc(&self, c: f64) -> Self {
        let x = self.value;
        let d2 = if c == 1.0 {
            0.0
        } else {
            c * (c - 1.0) * x.powf(c - 2.0)
        };
        let d1 = if c == 0.0 { 0.0 } else { c * x.powf(c - 1.0) };
        self.chain(x.powf(c), d1, d2)
    }
    fn pow_data(ln_x: f64, exponent: &Self) -> Self {
        let f = (exponent.value * ln_x).exp();
        exponent.chain(f, f * ln_x, f * ln_x * ln_x)
    }
    fn dimension(&self) -> usize {
        N
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
        let f = x.powc(2.0).mul(&y);
        assert_eq!(f.value, 18.0);
        assert_eq!(f.gradient, vec![12.0, 9.0]);
        assert_eq!(f.hessian, vec![4.0, 6.0, 6.0, 0.0]);
    }

    #[test]
    fn fixed_and_dynamic_hyperduals_agree() {
        let (x, y) = (
            HyperDual::variable(1.3, 0, 2),
            HyperDual::variable(0.7, 1, 2),
        );
        let (fx, fy) = (
            FixedHyperDual::<2>::variable(1.3, 0),
            FixedHyperDual::<2>::variable(0.7, 1),
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
        assert!((dynamic.value - fixed.value).abs() < 1e-15);
        for i in 0..2 {
            assert!((dynamic.gradient[i] - fixed.gradient[i]).abs() < 1e-14);
            for j in 0..2 {
                let full = fixed.into_parts().2;
                assert!((dynamic.hessian[i * 2 + j] - full[i * 2 + j]).abs() < 1e-13);
            }
        }
    }

    #[test]
    fn sigmoid_is_stable() {
        assert_eq!(sigmoid(-1000.0), 0.0);
        assert_eq!(sigmoid(1000.0), 1.0);
        assert!((sigmoid(0.0) - 0.5).abs() < 1e-15);
    }
}
