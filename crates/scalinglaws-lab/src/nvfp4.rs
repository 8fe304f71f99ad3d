//! NVFP4, emulated bit for bit, and the dot-product signal-to-noise experiment of the nGPT seed
//! paper (Fishman, Chmiel, Banner, Soudry & Ginsburg 2026, "Normalized Architectures are
//! Natively 4-Bit", arXiv:2605.06067). Its claim: "while quantization noise remains largely
//! uncorrelated in both standard and normalized architectures, the signal behaves differently.
//! In nGPT, the hypersphere constraint enhances weak positive correlations among the
//! element-wise products, leading to a constructive accumulation of the signal across the hidden
//! dimension while the noise continues to average out. This yields a higher effective
//! signal-to-noise ratio ..., with the effect strengthening as the hidden dimension grows."
//! Here that mechanism can be run on its own, with no model and no GPU: [`snr_experiment`]
//! draws vector pairs, quantises them exactly as NVFP4 hardware does, and measures how the
//! dot product's signal and its quantisation noise grow with the dimension.
//!
//! # The format
//!
//! As specified by NVIDIA ("Introducing NVFP4 for Efficient and Accurate Low-Precision
//! Inference", NVIDIA technical blog, June 2025; "Pretraining Large Language Models with
//! NVFP4", NVIDIA, arXiv:2509.25149, 2025):
//!
//! * elements are E2M1: 1 sign, 2 exponent bits (bias 1), 1 mantissa bit; magnitudes 0, 0.5, 1,
//!   1.5, 2, 3, 4, 6; no infinities or NaN ([`encode_e2m1`], [`decode_e2m1`]);
//! * each block of 16 consecutive elements has a scale in FP8 E4M3 (the "FN" variant: bias 7,
//!   subnormals, largest finite 448, no infinities, NaN only at `S.1111.111`)
//!   ([`encode_e4m3`], [`decode_e4m3`]);
//! * the tensor has one FP32 scale.
//!
//! # The recipe, and the choices made where sources differ
//!
//! The scales follow the two-level recipe of those sources, in the order of operations of
//! NVIDIA Transformer Engine's NVFP4 kernels (`transformer_engine/common/cast/nvfp4/
//! core_nvfp4.cuh`: `compute_global_encode_scaling_factor_FP4`,
//! `compute_decoding_scaling_factor`, `compute_scaling_coefficient`), all in FP32 arithmetic:
//!
//! 1. global encode scale `s_enc = (448 · 6) / amax(x)`, or 1 when `amax(x) = 0` (TE), capped at
//!    the largest f32; the tensor's decode scale is `s_dec = 1 / s_enc` (≈ `amax / 2688`, the
//!    `s_t` of the blog's description);
//! 2. block decode scale `b = E4M3(amax_block · (s_enc · (1/6)))`, rounded to nearest even and
//!    saturated at 448 (TE multiplies by the f32 constant `1/6` rather than dividing by 6);
//! 3. element code `E2M1(x · r)` with `r = min(1 / (b · s_dec), f32::MAX)`, rounded to nearest
//!    even and saturated at ±6; a block whose scale is 0 (all zeros, or so small beside the
//!    tensor's maximum that it underflows E4M3) therefore decodes to zeros, never NaN;
//! 4. decoded value `e · b · s_dec`.
//!
//! Written as `x / (s_t · b)` with `s_t = amax / 2688` (the blog's form) the arithmetic is the
//! same up to FP32 rounding of the scales; TE's order is kept so that the codes follow its
//! arithmetic (checked here against the formulas only, not against a GPU). Choices beyond the
//! sources: [`Nvfp4Tensor::decode_exact`] returns
//! `e · b · s_dec` exactly (it needs at most 2 + 4 + 24 significant bits, so f64 holds it), and
//! [`quantize`] rounds that once to f32; a tensor whose length is not a multiple of 16 ends in
//! a short block scaled by its own maximum; elements are packed two per byte, even index in the
//! low nibble (the ModelOpt checkpoint layout). Not modelled: the paper's random Hadamard
//! transforms, its 16×16 two-dimensional weight blocks, and stochastic rounding (used there for
//! gradients only); only round-to-nearest-even 1×16 blocks.
//!
//! # The experiment
//!
//! For each dimension `d`, `pairs` pairs `(x, y)` are drawn from independent standard normals
//! `x, z` in four cases, {standard Gaussian, unit hypersphere} × {independent, correlated}:
//! independent takes `y = z`; correlated takes `y = ρx + √(1−ρ²)z`, so each element-wise
//! product `x_i y_i` has mean `ρ` (variance `1 + ρ²`) and any two products have the positive
//! uncentred correlation `E[p_i p_j] / E[p_i²] = ρ² / (1 + 2ρ²)`: weak for small `ρ`, yet the
//! dot product's mean `dρ` then grows like `d` while its spread grows like `√d`. The hypersphere
//! cases divide `x` and `y` by their norms (the dot product becomes their cosine). The four
//! cases of a pair share `x` and `z` (common random numbers), so differences between cases do
//! not come from different draws. Both vectors are rounded to f32 (the high-precision input),
//! quantised with NVFP4 and decoded exactly; the exact dot product `s` and the quantised one
//! `ŝ` are accumulated in f64, so the error `ŝ − s` is NVFP4's alone (hardware accumulates in
//! FP32, whose error is orders of magnitude smaller).
//!
//! * signal = mean over pairs of `s²`: the dot product's second moment, its coherent part
//!   (mean `s`)² plus its incoherent spread. With uncorrelated products both parts grow like
//!   `d` (unit-variance elements); with positively correlated products the coherent part grows
//!   like `d²`, which is the paper's "constructive accumulation";
//! * noise = mean over pairs of `(ŝ − s)²`, the quantisation error's second moment;
//! * SNR = signal / noise, with its delta-method standard error over pairs,
//!   `√(Σ (s² − SNR·e²)² / (n(n−1))) / noise`.
//!
//! NVFP4's scales make quantisation (nearly) invariant to multiplying a vector by a constant,
//! so normalising a vector by itself changes little: the experiment separates the two parts of
//! the paper's explanation (the normalisation, and the correlation it is said to enhance in a
//! trained model) instead of assuming that one causes the other.
//!
//! What it shows, at the default settings (ρ = 0.05, 1,000 pairs, d = 64 … 8192): with
//! independent products the SNR is about 56 at every `d` (signal and noise both grow like `d`);
//! with correlated products it grows roughly like `1 + dρ²` (59 at d = 64, 990 at d = 8192);
//! normalising changes neither beyond sampling noise. The noise does not quite "average out":
//! NVFP4's round-to-nearest shrinks a Gaussian vector slightly (the quantised dot product is
//! about 1 % short, [`SnrRow::error_mean`]), a coherent error that grows like `d` just as the signal's
//! coherent part does, so the correlated SNR levels off towards about 1/0.01² ≈ 10⁴ (4,850 at
//! d = 65,536).
//!
//! Without the tensor scale ([`SnrConfig::tensor_scale`] false: each block's E4M3 scale is its
//! maximum over 6 by itself, [`Nvfp4Tensor::encode_block_scaled`]), the standard vectors lose
//! nothing, but the normalised ones lose more SNR the larger `d` is (at d = 8192: 38 against 59
//! independent, 324 against 990 correlated): a unit vector's elements are about `1/√d`, so its
//! block scales fall below E4M3's smallest normal value (2⁻⁶), where they keep fewer
//! significant bits. Here the hypersphere needs the per-tensor scale more, not less.
//!
//! Each pair draws from its own stream ([`Rng::stream`] with `seed` and an index made of `d`
//! and the pair's number), pairs run in parallel with rayon and are summed in pair order, so
//! the output is bit-identical at any thread count, and a pair's draws do not depend on the
//! other dimensions asked for or on the number of pairs.

use rayon::prelude::*;
use scalinglaws::rng::Rng;

use crate::error::{LabError, Result};
use crate::progress::{silent, Counter, Progress};

/// Elements per NVFP4 block, each block sharing one E4M3 scale.
pub const BLOCK: usize = 16;

/// Largest E2M1 magnitude.
pub const E2M1_MAX: f32 = 6.0;

/// Largest finite E4M3 ("FN") magnitude, 1.75 · 2⁸.
pub const E4M3_MAX: f32 = 448.0;

/// The E4M3 code [`encode_e4m3`] returns for NaN (`S.1111.111` with the sign clear; `0xFF` also
/// decodes to NaN).
pub const E4M3_NAN: u8 = 0x7F;

/// Most entries of [`SnrConfig::dimensions`]: each is one sweep over all pairs; 64 is far more
/// points than a curve of SNR against `d` needs.
pub const MAX_SNR_DIMENSIONS: usize = 64;

/// Largest dimension of [`SnrConfig::dimensions`]: 8× the widest hidden size in the seed paper's
/// analysis (4,096); a pair holds about twenty f64 vectors of this length (10 MB) per thread.
pub const MAX_SNR_DIMENSION: usize = 65_536;

/// Most pairs per dimension: the SNR's relative standard error falls like `1/√pairs`, about
/// 0.2 % at a million, far below any effect the experiment looks for.
pub const MAX_SNR_PAIRS: usize = 1_000_000;

/// Most vector elements a run draws, Σ dimensions × pairs: each costs six quantisations, two
/// normals and four products (about 0.5 µs on one core), so 2·10⁹ is about 20 minutes of one
/// core.
pub const MAX_SNR_ELEMENTS: u64 = 200_000_000;

/// A small binary floating-point format: sign, exponent and mantissa fields, a bias, and the
/// largest finite magnitude's code. Every code with a zero exponent field is subnormal.
struct Minifloat {
    mantissa_bits: u32,
    bias: i32,
    /// Magnitude code (sign clear) of the largest finite value.
    max_code: u8,
    sign_bit: u8,
}

const E2M1: Minifloat = Minifloat {
    mantissa_bits: 1,
    bias: 1,
    max_code: 0x7,
    sign_bit: 0x8,
};

const E4M3: Minifloat = Minifloat {
    mantissa_bits: 3,
    bias: 7,
    max_code: 0x7E,
    sign_bit: 0x80,
};

/// 2^k exactly, for the small exponents the formats here need.
fn pow2(k: i32) -> f64 {
    debug_assert!((-1000..1000).contains(&k));
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The unbiased binary exponent of a positive normal f64 (every finite f32 is one).
fn exponent_of(a: f64) -> i32 {
    ((a.to_bits() >> 52) & 0x7FF) as i32 - 1023
}

impl Minifloat {
    fn min_exponent(&self) -> i32 {
        1 - self.bias
    }

    /// The magnitude a code (sign clear) stands for.
    fn decode_magnitude(&self, code: u8) -> f64 {
        let mantissa = i32::from(code & ((1 << self.mantissa_bits) - 1));
        let field = i32::from(code >> self.mantissa_bits);
        if field == 0 {
            f64::from(mantissa) * pow2(self.min_exponent() - self.mantissa_bits as i32)
        } else {
            let significand = (1 << self.mantissa_bits) + mantissa;
            f64::from(significand) * pow2(field - self.bias - self.mantissa_bits as i32)
        }
    }

    /// The code (sign clear) of `a ≥ 0` rounded to nearest, ties to the even code, saturated at
    /// the largest finite value. In the binade of `a` (or the subnormal range) representable
    /// values are `n · q` with `q = 2^(e − mantissa_bits)`; with `n = round_ties_even(a / q)`
    /// (exact division by a power of two), the code is `(e − e_min) · 2^mantissa_bits + n` for
    /// normals, subnormals and a carry into the next binade alike, and `n` even is the even code.
    fn encode_magnitude(&self, a: f64) -> u8 {
        if a.is_nan() || a >= self.decode_magnitude(self.max_code) {
            return self.max_code;
        }
        if a == 0.0 {
            return 0;
        }
        let exponent = exponent_of(a).max(self.min_exponent());
        let quantum = pow2(exponent - self.mantissa_bits as i32);
        let n = (a / quantum).round_ties_even() as i64;
        let code = i64::from(exponent - self.min_exponent()) * (1i64 << self.mantissa_bits) + n;
        code.min(i64::from(self.max_code)) as u8
    }

    fn encode(&self, value: f32) -> u8 {
        let sign = if value.is_sign_negative() {
            self.sign_bit
        } else {
            0
        };
        sign | self.encode_magnitude(f64::from(value.abs()))
    }

    fn decode(&self, code: u8) -> f64 {
        let magnitude = self.decode_magnitude(code & (self.sign_bit - 1));
        if code & self.sign_bit != 0 {
            -magnitude
        } else {
            magnitude
        }
    }
}

/// The E2M1 code (low 4 bits: sign, 2 exponent bits, 1 mantissa bit) of `value` rounded to
/// nearest, ties to the even code (0.25 → 0, 0.75 → 1, 2.5 → 2, 5 → 4), saturating at ±6 as the
/// hardware's `satfinite` conversion does (infinities become ±6). The sign is kept, so −0 and
/// negatives that round to zero give `0x8`. E2M1 has no NaN: NaN gives `+6` (`0x7`); the NVFP4
/// quantiser refuses non-finite input before it gets here.
pub fn encode_e2m1(value: f32) -> u8 {
    if value.is_nan() {
        return E2M1.max_code;
    }
    E2M1.encode(value)
}

/// The value of an E2M1 code (its low 4 bits; higher bits are ignored).
pub fn decode_e2m1(code: u8) -> f32 {
    E2M1.decode(code & 0xF) as f32
}

/// The FP8 E4M3 ("FN") code of `value` rounded to nearest, ties to the even code, saturating at
/// ±448 (infinities become ±448, as in the `satfinite` conversions NVFP4 uses); NaN gives
/// [`E4M3_NAN`]. Subnormals (multiples of 2⁻⁹ below 2⁻⁶) are kept.
pub fn encode_e4m3(value: f32) -> u8 {
    if value.is_nan() {
        return E4M3_NAN;
    }
    E4M3.encode(value)
}

/// The value of an E4M3 code; `0x7F` and `0xFF` are NaN.
pub fn decode_e4m3(code: u8) -> f32 {
    if code & 0x7F == 0x7F {
        return f32::NAN;
    }
    E4M3.decode(code) as f32
}

/// The exact value of an E4M3 code that is not NaN.
fn decode_e4m3_exact(code: u8) -> f64 {
    E4M3.decode(code)
}

/// A tensor in NVFP4: E2M1 element codes packed two per byte (element `2k` in the low nibble),
/// one E4M3 scale code per block of [`BLOCK`] elements (the last block may be short), and the
/// FP32 per-tensor decode scale. See the module documentation for the recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct Nvfp4Tensor {
    len: usize,
    tensor_scale: f32,
    block_scales: Vec<u8>,
    packed: Vec<u8>,
}

impl Nvfp4Tensor {
    /// Quantise `values` (any length, including 0). Refuses a non-finite value with a
    /// [`LabError`] naming `values` and the first offending index.
    pub fn encode(values: &[f32]) -> Result<Self> {
        Self::encode_with(values, true)
    }

    /// Quantise `values` with block scales only: the FP32 per-tensor scale fixed to 1
    /// (`s_enc = s_dec = 1`), so each block's E4M3 scale is `E4M3(amax_block / 6)` by itself, as
    /// a recipe that skips the per-tensor scaling calculation does. A block whose maximum is
    /// below about 2⁻⁹·6·½ gets a zero scale and decodes to zeros; one above 448·6 saturates.
    pub fn encode_block_scaled(values: &[f32]) -> Result<Self> {
        Self::encode_with(values, false)
    }

    /// [`Nvfp4Tensor::encode`] with the tensor scale from the tensor's maximum, or
    /// [`Nvfp4Tensor::encode_block_scaled`] without it.
    pub fn encode_with(values: &[f32], tensor_scale: bool) -> Result<Self> {
        if let Some(index) = values.iter().position(|v| !v.is_finite()) {
            return Err(LabError::setting(
                "values",
                format!(
                    "value {index} is {}; NVFP4 has no infinities or NaN, pass finite values",
                    values[index]
                ),
            ));
        }
        let amax = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let encode_scale = if tensor_scale {
            global_encode_scale(amax)
        } else {
            1.0
        };
        let tensor_scale = 1.0 / encode_scale;
        let mut block_scales = Vec::with_capacity(values.len().div_ceil(BLOCK));
        let mut packed = vec![0u8; values.len().div_ceil(2)];
        for (b, block) in values.chunks(BLOCK).enumerate() {
            let block_amax = block.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let scale_code = encode_e4m3(block_amax * (encode_scale * (1.0 / E2M1_MAX)));
            let reciprocal = (1.0 / (decode_e4m3(scale_code) * tensor_scale)).min(f32::MAX);
            block_scales.push(scale_code);
            for (k, &v) in block.iter().enumerate() {
                let index = b * BLOCK + k;
                let code = encode_e2m1(v * reciprocal);
                packed[index / 2] |= code << (4 * (index % 2));
            }
        }
        Ok(Nvfp4Tensor {
            len: values.len(),
            tensor_scale,
            block_scales,
            packed,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The FP32 per-tensor decode scale `s_dec = 1 / s_enc`.
    pub fn tensor_scale(&self) -> f32 {
        self.tensor_scale
    }

    /// The E4M3 code of each block's scale, in block order.
    pub fn block_scales(&self) -> &[u8] {
        &self.block_scales
    }

    /// The packed element codes: two per byte, element `2k` in the low nibble.
    pub fn packed_elements(&self) -> &[u8] {
        &self.packed
    }

    /// The E2M1 code of element `index`, or `None` past the end.
    pub fn element_code(&self, index: usize) -> Option<u8> {
        (index < self.len).then(|| (self.packed[index / 2] >> (4 * (index % 2))) & 0xF)
    }

    /// Every element's decoded value `e · b · s_dec`, exactly (f64 holds the product).
    pub fn decode_exact(&self) -> Vec<f64> {
        let tensor_scale = f64::from(self.tensor_scale);
        (0..self.len)
            .map(|index| {
                let code = (self.packed[index / 2] >> (4 * (index % 2))) & 0xF;
                let block_scale = decode_e4m3_exact(self.block_scales[index / BLOCK]);
                E2M1.decode(code) * block_scale * tensor_scale
            })
            .collect()
    }

    /// Every element's decoded value rounded once to f32.
    pub fn dequantize(&self) -> Vec<f32> {
        self.decode_exact().into_iter().map(|v| v as f32).collect()
    }
}

/// TE's global encode scale: `2688 / amax` in f32, capped at the largest f32, and 1 for an
/// all-zero tensor.
fn global_encode_scale(amax: f32) -> f32 {
    let scale = (E4M3_MAX * E2M1_MAX / amax).min(f32::MAX);
    if amax == 0.0 || scale == 0.0 {
        1.0
    } else {
        scale
    }
}

/// Quantise-dequantise: what a tensor becomes after a round trip through NVFP4, each value
/// rounded once to f32. Refuses non-finite values (key `values`).
pub fn quantize(values: &[f32]) -> Result<Vec<f32>> {
    Ok(Nvfp4Tensor::encode(values)?.dequantize())
}

/// The settings of [`snr_experiment`].
#[derive(Debug, Clone, PartialEq)]
pub struct SnrConfig {
    /// Vector lengths `d`, each one sweep (rows come out in this order).
    pub dimensions: Vec<usize>,
    /// Vector pairs per dimension (at least 2, for the standard error).
    pub pairs: usize,
    /// `ρ` of the correlated cases, in [0, 1).
    pub correlation: f64,
    pub seed: u64,
    /// Quantise with NVFP4's FP32 per-tensor scale (true, the recipe) or with block scales only,
    /// the tensor scale fixed to 1 ([`Nvfp4Tensor::encode_block_scaled`]).
    pub tensor_scale: bool,
}

impl Default for SnrConfig {
    /// `d` = 64, 128, ..., 8192; 1,000 pairs; `ρ` = 0.05 (`dρ² = 1` at `d = 400`, inside the
    /// range); seed 0; with the tensor scale: about 5 s on 2 cores (release build).
    fn default() -> Self {
        SnrConfig {
            dimensions: (6..=13).map(|k| 1usize << k).collect(),
            pairs: 1_000,
            correlation: 0.05,
            seed: 0,
            tensor_scale: true,
        }
    }
}

impl SnrConfig {
    /// Refuses settings out of range or beyond the caps, naming the setting.
    pub fn validate(&self) -> Result<()> {
        let dims = &self.dimensions;
        if dims.is_empty() || dims.len() > MAX_SNR_DIMENSIONS {
            return Err(LabError::setting(
                "dimensions",
                format!("{} given; give 1 to {MAX_SNR_DIMENSIONS}", dims.len()),
            ));
        }
        if let Some(d) = dims.iter().find(|&&d| d == 0 || d > MAX_SNR_DIMENSION) {
            return Err(LabError::setting(
                "dimensions",
                format!("{d} is out of range; each must be 1 to {MAX_SNR_DIMENSION}"),
            ));
        }
        crate::error::refuse_repeats("dimensions", "dimension", dims)?;
        if self.pairs < 2 || self.pairs > MAX_SNR_PAIRS {
            return Err(LabError::setting(
                "pairs",
                format!("{} is out of range; give 2 to {MAX_SNR_PAIRS}", self.pairs),
            ));
        }
        let elements = dims.iter().map(|&d| d as u64).sum::<u64>() * self.pairs as u64;
        if elements > MAX_SNR_ELEMENTS {
            return Err(LabError::setting(
                "pairs",
                format!(
                    "{} pairs × {} summed dimensions = {elements} elements, more than \
                     {MAX_SNR_ELEMENTS}; use fewer pairs or smaller dimensions",
                    self.pairs,
                    elements / self.pairs as u64
                ),
            ));
        }
        if !(self.correlation.is_finite() && (0.0..1.0).contains(&self.correlation)) {
            return Err(LabError::setting(
                "correlation",
                format!(
                    "{} is out of range; give a value in [0, 1)",
                    self.correlation
                ),
            ));
        }
        Ok(())
    }
}

/// One of the experiment's four kinds of vector pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorCase {
    /// Standard Gaussian `x` and an independent standard Gaussian `y`.
    GaussianIndependent,
    /// Standard Gaussian `x`, `y = ρx + √(1−ρ²)z`.
    GaussianCorrelated,
    /// The independent pair, each divided by its norm.
    SphereIndependent,
    /// The correlated pair, each divided by its norm.
    SphereCorrelated,
}

impl VectorCase {
    /// The four cases, in the order rows come out for each dimension.
    pub const ALL: [VectorCase; 4] = [
        VectorCase::GaussianIndependent,
        VectorCase::GaussianCorrelated,
        VectorCase::SphereIndependent,
        VectorCase::SphereCorrelated,
    ];

    /// On the unit hypersphere (normalised).
    pub fn normalised(self) -> bool {
        matches!(
            self,
            VectorCase::SphereIndependent | VectorCase::SphereCorrelated
        )
    }

    /// With positively correlated element-wise products.
    pub fn correlated(self) -> bool {
        matches!(
            self,
            VectorCase::GaussianCorrelated | VectorCase::SphereCorrelated
        )
    }

    /// The name written in the dataset's `case` column.
    pub fn name(self) -> &'static str {
        match self {
            VectorCase::GaussianIndependent => "gaussian_independent",
            VectorCase::GaussianCorrelated => "gaussian_correlated",
            VectorCase::SphereIndependent => "sphere_independent",
            VectorCase::SphereCorrelated => "sphere_correlated",
        }
    }

    fn index(self) -> usize {
        match self {
            VectorCase::GaussianIndependent => 0,
            VectorCase::GaussianCorrelated => 1,
            VectorCase::SphereIndependent => 2,
            VectorCase::SphereCorrelated => 3,
        }
    }
}

/// One (dimension, case) of [`snr_experiment`]: the quantities are defined in the module
/// documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct SnrRow {
    pub dimension: usize,
    pub case: VectorCase,
    pub pairs: usize,
    /// signal / noise (infinite if no pair had a quantisation error).
    pub snr: f64,
    /// The SNR's delta-method standard error over pairs (0 when `snr` is infinite).
    pub snr_stderr: f64,
    /// Mean over pairs of the exact dot product squared.
    pub signal: f64,
    /// Mean over pairs of the quantisation error squared.
    pub noise: f64,
    /// Mean over pairs of the exact dot product: its square is the signal's coherent part.
    pub dot_mean: f64,
    /// Mean over pairs of the quantisation error (quantised − exact): its square is the
    /// noise's coherent part, which stays near 0 when the noise averages out.
    pub error_mean: f64,
}

impl SnrRow {
    /// The dataset's header line (no newline).
    pub fn csv_header() -> &'static str {
        "dimension,case,normalised,correlated,pairs,snr,snr_stderr,signal,noise,dot_mean,error_mean"
    }

    /// This row as a CSV line matching [`SnrRow::csv_header`] (no newline); numbers are
    /// written in Rust's shortest form that reads back to the same f64.
    pub fn csv_line(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{}",
            self.dimension,
            self.case.name(),
            self.case.normalised(),
            self.case.correlated(),
            self.pairs,
            self.snr,
            self.snr_stderr,
            self.signal,
            self.noise,
            self.dot_mean,
            self.error_mean
        )
    }
}

/// The SNR of NVFP4 dot products against the dimension: four rows per dimension (in
/// [`VectorCase::ALL`] order), dimensions in the order given. Refuses settings out of range
/// (see [`SnrConfig::validate`]). Parallel over pairs; bit-identical at any thread count.
pub fn snr_experiment(config: &SnrConfig) -> Result<Vec<SnrRow>> {
    snr_experiment_with_progress(config, &silent)
}

/// [`snr_experiment`], telling `progress` the vector elements drawn (a pair at dimension `d`
/// counts `d`) out of Σ dimensions × pairs.
pub fn snr_experiment_with_progress(
    config: &SnrConfig,
    progress: Progress<'_>,
) -> Result<Vec<SnrRow>> {
    config.validate()?;
    let total = config.dimensions.iter().sum::<usize>() * config.pairs;
    let counter = Counter::new(progress, total);
    let mut rows = Vec::with_capacity(config.dimensions.len() * VectorCase::ALL.len());
    for &dimension in &config.dimensions {
        let outcomes = (0..config.pairs)
            .into_par_iter()
            .map(|pair| {
                let outcome = pair_outcomes(dimension, pair, config);
                counter.add(dimension);
                outcome
            })
            .collect::<Result<Vec<_>>>()?;
        for case in VectorCase::ALL {
            let pairs: Vec<Outcome> = outcomes.iter().map(|o| o[case.index()]).collect();
            rows.push(summarise(dimension, case, &pairs));
        }
    }
    counter.finish();
    Ok(rows)
}

/// One pair's exact dot product and quantisation error.
#[derive(Debug, Clone, Copy)]
struct Outcome {
    dot: f64,
    error: f64,
}

/// The stream of pair `pair` at dimension `dimension`: the same for any other settings.
fn stream_index(dimension: usize, pair: usize) -> u64 {
    ((dimension as u64) << 32) | pair as u64
}

/// One pair's outcome in each case, [`VectorCase::ALL`] order.
fn pair_outcomes(dimension: usize, pair: usize, config: &SnrConfig) -> Result<[Outcome; 4]> {
    let mut rng = Rng::stream(config.seed, stream_index(dimension, pair));
    let x: Vec<f64> = (0..dimension).map(|_| rng.normal()).collect();
    let z: Vec<f64> = (0..dimension).map(|_| rng.normal()).collect();
    let rho = config.correlation;
    let complement = (1.0 - rho * rho).sqrt();
    let y: Vec<f64> = x
        .iter()
        .zip(&z)
        .map(|(a, b)| rho * a + complement * b)
        .collect();
    let operand = |v: &[f64]| Operand::new(v, config.tensor_scale);
    let gaussian = [operand(&x)?, operand(&z)?, operand(&y)?];
    let sphere = [
        operand(&normalise(&x))?,
        operand(&normalise(&z))?,
        operand(&normalise(&y))?,
    ];
    Ok([
        gaussian[0].against(&gaussian[1]),
        gaussian[0].against(&gaussian[2]),
        sphere[0].against(&sphere[1]),
        sphere[0].against(&sphere[2]),
    ])
}

/// `v / ‖v‖` (unchanged if `v` is all zeros).
fn normalise(v: &[f64]) -> Vec<f64> {
    let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.iter().map(|a| a / norm).collect()
    } else {
        v.to_vec()
    }
}

/// A vector as the f32 input a kernel sees, and its NVFP4 round trip (exact, in f64).
struct Operand {
    exact: Vec<f64>,
    quantised: Vec<f64>,
}

impl Operand {
    fn new(values: &[f64], tensor_scale: bool) -> Result<Self> {
        let input: Vec<f32> = values.iter().map(|&v| v as f32).collect();
        let quantised = Nvfp4Tensor::encode_with(&input, tensor_scale)?.decode_exact();
        let exact = input.into_iter().map(f64::from).collect();
        Ok(Operand { exact, quantised })
    }

    fn against(&self, other: &Operand) -> Outcome {
        let dot: f64 = self
            .exact
            .iter()
            .zip(&other.exact)
            .map(|(a, b)| a * b)
            .sum();
        let quantised: f64 = self
            .quantised
            .iter()
            .zip(&other.quantised)
            .map(|(a, b)| a * b)
            .sum();
        Outcome {
            dot,
            error: quantised - dot,
        }
    }
}

/// The row of one (dimension, case) from its pairs' outcomes, summed in pair order.
fn summarise(dimension: usize, case: VectorCase, outcomes: &[Outcome]) -> SnrRow {
    let n = outcomes.len() as f64;
    let signal = outcomes.iter().map(|o| o.dot * o.dot).sum::<f64>() / n;
    let noise = outcomes.iter().map(|o| o.error * o.error).sum::<f64>() / n;
    let dot_mean = outcomes.iter().map(|o| o.dot).sum::<f64>() / n;
    let error_mean = outcomes.iter().map(|o| o.error).sum::<f64>() / n;
    let (snr, snr_stderr) = if noise > 0.0 {
        let snr = signal / noise;
        let spread: f64 = outcomes
            .iter()
            .map(|o| (o.dot * o.dot - snr * o.error * o.error).powi(2))
            .sum();
        (snr, (spread / (n * (n - 1.0))).sqrt() / noise)
    } else {
        (f64::INFINITY, 0.0)
    };
    SnrRow {
        dimension,
        case,
        pairs: outcomes.len(),
        snr,
        snr_stderr,
        signal,
        noise,
        dot_mean,
        error_mean,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The eight E2M1 magnitudes, by code.
    const E2M1_VALUES: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];

    #[test]
    fn e2m1_codes_decode_to_the_published_table() {
        for (code, &value) in E2M1_VALUES.iter().enumerate() {
            assert_eq!(decode_e2m1(code as u8).to_bits(), value.to_bits());
            assert_eq!(decode_e2m1(code as u8 | 0x8).to_bits(), (-value).to_bits());
        }
    }

    #[test]
    fn e4m3_landmarks_decode_exactly() {
        let cases: [(u8, f32); 6] = [
            (0x01, 2f32.powi(-9)),       // smallest subnormal
            (0x07, 7.0 * 2f32.powi(-9)), // largest subnormal
            (0x08, 2f32.powi(-6)),       // smallest normal
            (0x38, 1.0),
            (0x7E, 448.0),
            (0xFE, -448.0),
        ];
        for (code, value) in cases {
            assert_eq!(
                decode_e4m3(code).to_bits(),
                value.to_bits(),
                "code {code:#04x}"
            );
        }
        assert!(decode_e4m3(0x7F).is_nan() && decode_e4m3(0xFF).is_nan());
    }

    /// The generic rounding agrees with the threshold table of E2M1 (midpoints between
    /// neighbours, ties to the even code) on a fine grid including every midpoint.
    #[test]
    fn e2m1_rounding_matches_nearest_even_by_table() {
        for step in 0..=1600 {
            let a = step as f32 / 200.0; // 0 .. 8 in steps of 0.005 (every midpoint is on it)
            let code = encode_e2m1(a);
            let got = E2M1_VALUES[code as usize];
            let best = E2M1_VALUES
                .iter()
                .map(|v| (v - a).abs())
                .fold(f32::INFINITY, f32::min);
            assert!((got - a).abs() <= best, "{a} → {got}");
            let ties: Vec<usize> = (0..8)
                .filter(|&k| (E2M1_VALUES[k] - a).abs() <= best)
                .collect();
            if ties.len() == 2 {
                assert_eq!(code % 2, 0, "tie at {a} must pick the even code");
            }
        }
    }

    #[test]
    fn stream_indices_do_not_collide_within_the_caps() {
        assert_ne!(stream_index(64, MAX_SNR_PAIRS - 1), stream_index(65, 0));
        assert_eq!(stream_index(1, 0), 1 << 32);
    }
}
