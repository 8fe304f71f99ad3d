//! `scalinglaws sim`: the lab's simulators (crates/scalinglaws-lab), each writing a dataset the
//! other commands read.

use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct SimArgs {
    #[command(subcommand)]
    pub simulator: Simulator,
}

#[derive(Debug, Subcommand)]
pub enum Simulator {
    /// NVFP4 dot products: the signal-to-noise ratio of dot products of NVFP4-quantised vectors
    /// (E2M1 elements, an E4M3 scale per block of 16, an FP32 tensor scale) against the
    /// dimension, for Gaussian and unit-hypersphere vectors, with and without a weak positive
    /// correlation. Writes one CSV row per dimension and case.
    Nvfp4(Nvfp4Args),
    /// SGD and signSGD on linear regression with power-law spectrum λ_i = i^-a and target
    /// λ_i·w*_i² = i^-b: SGD's expected risk by the exact second-moment recursion, SGD and
    /// signSGD by Monte Carlo over seeds. Writes one CSV row per optimizer and logged step.
    Sgd(SgdArgs),
    /// The data-scaling exponents of SGD and signSGD: at each training length T the excess risk
    /// at the end of training with the learning rate tuned over a grid per optimizer. Writes
    /// one CSV row per optimizer and T (fit it with `fit --law power --map x=horizon
    /// --target excess_risk --group optimizer`).
    SgdScaling(SgdScalingArgs),
    /// Norm feedback in sequential model editing: a linear layer edited by rank-one least
    /// squares (ROME) for a stream of edits whose values are solved through the current layer,
    /// with and without Norm-Anchor Scaling. Writes one CSV row per variant and edit (weight and
    /// value norms, retention of earlier edits, drift on unedited keys).
    Editing(EditingArgs),
    /// Hierarchical multi-index targets: subspace recovery by the spectral estimator (top
    /// eigenvectors of the average of y·x·xᵀ) against samples n = κ·d, one direction after
    /// another. Writes one CSV row per dimension, κ and direction.
    MultiIndex(MultiIndexArgs),
    /// Associative recall through a random linear hash: the largest vocabulary recalled
    /// perfectly (Monte Carlo) against state size, with its Johnson–Lindenstrauss-style lower
    /// bound. Writes one CSV row per state size.
    Recall(RecallArgs),
}

#[derive(Debug, Args)]
pub struct Nvfp4Args {
    /// Vector lengths, comma-separated [default: 64,128,...,8192].
    #[arg(long, value_name = "D,...", value_delimiter = ',')]
    pub dimensions: Vec<usize>,
    /// Vector pairs per dimension [default: 1000].
    #[arg(long, value_name = "N")]
    pub pairs: Option<usize>,
    /// ρ of the correlated cases, in [0, 1) [default: 0.05].
    #[arg(long, value_name = "RHO")]
    pub correlation: Option<f64>,
    /// Quantise with the E4M3 block scales only, the FP32 per-tensor scale fixed to 1 (NVFP4's
    /// recipe sets it from the tensor's largest magnitude).
    #[arg(long)]
    pub no_tensor_scale: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct SgdArgs {
    /// M, the number of features [default: 64].
    #[arg(long, value_name = "M")]
    pub dimension: Option<usize>,
    /// Spectrum exponent a > 1 (λ_i = i^-a) [default: 2].
    #[arg(long, value_name = "A")]
    pub a: Option<f64>,
    /// Target exponent b > 1 (λ_i·w*_i² = i^-b): b < a is a hard task, b ≥ a easy [default: 1.5].
    #[arg(long, value_name = "B")]
    pub b: Option<f64>,
    /// σ, the label noise's standard deviation [default: 0.5].
    #[arg(long, value_name = "SIGMA")]
    pub noise: Option<f64>,
    /// Samples per step [default: 1].
    #[arg(long, value_name = "B")]
    pub batch: Option<usize>,
    /// The learning rate of every step [default: 0.2].
    #[arg(long, value_name = "ETA")]
    pub lr: Option<f64>,
    /// Training steps [default: 1000].
    #[arg(long, value_name = "T")]
    pub steps: Option<usize>,
    /// Logged steps per decade (steps 0, 1 and the last are always logged) [default: 4].
    #[arg(long, value_name = "K")]
    pub per_decade: Option<usize>,
    /// Monte Carlo seeds [default: 1000].
    #[arg(long, value_name = "N")]
    pub seeds: Option<usize>,
    /// Optimizers, comma-separated: sgd_exact, sgd_mc, signsgd_mc [default: all three].
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub optimizer: Vec<String>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct SgdScalingArgs {
    /// Spectrum exponent a > 1 [default: 2].
    #[arg(long, value_name = "A")]
    pub a: Option<f64>,
    /// Target exponent b > 1: b < a is a hard task, b ≥ a easy [default: 1.5, hard].
    #[arg(long, value_name = "B")]
    pub b: Option<f64>,
    /// M, the number of features [default: 512].
    #[arg(long, value_name = "M")]
    pub dimension: Option<usize>,
    /// Training lengths T, comma-separated, increasing [default: 256,512,...,16384].
    #[arg(long, value_name = "T,...", value_delimiter = ',')]
    pub horizons: Vec<usize>,
    /// Decay the learning rate linearly over this fraction of each run (1: to zero from the
    /// start) instead of holding it constant.
    #[arg(long, value_name = "FRACTION")]
    pub decay: Option<f64>,
    /// Monte Carlo seeds of signSGD per (T, learning rate) [default: 12].
    #[arg(long, value_name = "N")]
    pub seeds: Option<usize>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct EditingArgs {
    /// Output dimension of the edited layer [default: 64].
    #[arg(long, value_name = "M")]
    pub rows: Option<usize>,
    /// Key dimension of the edited layer [default: 256].
    #[arg(long, value_name = "N")]
    pub cols: Option<usize>,
    /// Edits in the stream [default: 300].
    #[arg(long, value_name = "T")]
    pub edits: Option<usize>,
    /// Size of each edit's change relative to the current output, α [default: 3].
    #[arg(long, value_name = "ALPHA")]
    pub feedback: Option<f64>,
    /// Relative error below which an earlier edit counts as retained [default: 0.5].
    #[arg(long, value_name = "X")]
    pub tolerance: Option<f64>,
    /// Retention below which the editing horizon ends [default: 0.9].
    #[arg(long, value_name = "X")]
    pub threshold: Option<f64>,
    /// Independent runs averaged [default: 24].
    #[arg(long, value_name = "N")]
    pub seeds: Option<usize>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct MultiIndexArgs {
    /// Input dimensions d, comma-separated [default: 64,128,256].
    #[arg(long, value_name = "D,...", value_delimiter = ',')]
    pub dimensions: Vec<usize>,
    /// Samples per dimension κ = n/d, comma-separated, increasing [default: 0.5 to 64].
    #[arg(long, value_name = "K,...", value_delimiter = ',')]
    pub kappas: Vec<f64>,
    /// Directions k of the target [default: 3].
    #[arg(long, value_name = "K")]
    pub directions: Option<usize>,
    /// Strengths a_j = d^(-γ(j-1)): γ [default: 0.125].
    #[arg(long, value_name = "GAMMA")]
    pub strength_exponent: Option<f64>,
    /// Label noise σ [default: 0].
    #[arg(long, value_name = "SIGMA")]
    pub noise: Option<f64>,
    /// Independent runs averaged [default: 16].
    #[arg(long, value_name = "N")]
    pub seeds: Option<usize>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// State sizes d, comma-separated [default: 8,12,...,36].
    #[arg(long, value_name = "D,...", value_delimiter = ',')]
    pub state_sizes: Vec<usize>,
    /// Embedding dimension of the keys [default: 1024].
    #[arg(long, value_name = "E")]
    pub embedding: Option<usize>,
    /// Key–value pairs in the context [default: 2].
    #[arg(long, value_name = "L")]
    pub context: Option<usize>,
    /// Monte Carlo trials [default: 64].
    #[arg(long, value_name = "N")]
    pub trials: Option<usize>,
    /// The capacity is the δ-quantile over trials, and the bound holds with probability 1 − δ
    /// [default: 0.1].
    #[arg(long, value_name = "DELTA")]
    pub delta: Option<f64>,
    /// Largest vocabulary a trial grows to [default: 4096].
    #[arg(long, value_name = "V")]
    pub max_vocab: Option<usize>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// What every simulator takes: its seed, where its dataset goes, and where its figure goes.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Seed of the random streams (the output is bit-identical for any number of threads).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Write the dataset (CSV) to PATH, or to stdout with '-' [default: stdout].
    #[arg(short = 'o', long = "output", value_name = "PATH|-")]
    pub output: Option<String>,
    /// Also draw the simulator's figure: FILE.svg, FILE.png or - (SVG on stdout; the dataset
    /// then needs -o PATH).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
}
