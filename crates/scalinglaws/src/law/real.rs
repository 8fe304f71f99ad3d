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
            Unary::Sin => x.sin(),
            Unary::Cos => x.cos(),
            Unary::Tan => x.tan(),
            Unary::Atan => x.atan(),
            Unary::Tanh => x.tanh(),
            Unary::Abs => x.abs(),
            Unary::Log1p => x.ln_1p(),
            Unary::Expm1 => x.exp_m1(),
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
            Unary::Sin => x.cos(),
            Unary::Cos => -x.sin(),
            Unary::Tan => 1.0 + fx * fx,
            Unary::Atan => 1.0 / (1.0 + x * x),
            Unary::Tanh => 1.0 - fx * fx,
            // The kink at 0 gets the subgradient 0 (as min/max pick one side).
            Unary::Abs => sign(x),
            Unary::Log1p => 1.0 / (1.0 + x),
            Unary::Expm1 => fx + 1.0,
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
            Unary::Sin => -fx,
            Unary::Cos => -fx,
            Unary::Tan => 2.0 * fx * d1,
            Unary::Atan => -2.0 * x * d1 * d1,
            Unary::Tanh => -2.0 * fx * d1,
            Unary::Abs => 0.0,
            Unary::Log1p => -d1 * d1,
            Unary::Expm1 => d1,
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
    fn pow_data(ln_x: f64, exponent: &Self) -> Self {
        let f = (exponent.parts().0 * ln_x).exp();
        jet_chain(exponent, f, f * ln_x, f * ln_x * ln_x)
    }
    fn dimension(&self) -> usize {
        jet_n(self)
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
    }
}
