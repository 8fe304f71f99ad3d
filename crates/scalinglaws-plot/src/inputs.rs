//! What the plots draw, as plain values: points, curves, bands and frontiers that an analysis
//! computed. The plot crate reads nothing else (no fit, no law, no analysis), so a picture
//! shows exactly the numbers the reports print; `scalinglaws-report::plots` fills these from
//! the library's results.

/// (x, y) points of a curve or of runs.
pub type Points = Vec<(f64, f64)>;
/// (x, low, high) of a shaded band.
pub type Band = Vec<(f64, f64, f64)>;

/// A fit against one variable: each group of runs with its curve and bands.
#[derive(Debug, Clone, PartialEq)]
pub struct FitPlot {
    /// The law's label and the target's name.
    pub law: String,
    pub target: String,
    /// The variable on the x axis.
    pub x: String,
    /// The fit's residuals are in log space (the y axes are logarithmic).
    pub log_y: bool,
    /// The level of the bands.
    pub level: f64,
    /// The extrapolation shaded beyond the data: (largest x, end of the curves).
    pub extrapolation: (f64, f64),
    /// The variable the groups are bins of (their curves at the bin's median), if binned.
    pub binned_by: Option<String>,
    pub groups: Vec<FitGroup>,
}

/// One curve of a fit plot and its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct FitGroup {
    /// The legend entry ("D = 1e10", "D in [1e10, 1e11]").
    pub label: String,
    /// The runs: (x, observed).
    pub runs: Points,
    /// The law along x.
    pub curve: Points,
    /// The band under the curve: the mean's confidence band, or the law over a bin's range
    /// (empty: none).
    pub band: Band,
    /// The calibrated prediction interval beyond the data (empty: none).
    pub calibrated: Band,
    /// Every run's (fitted, observed).
    pub fitted: Points,
}

/// The residuals against every variable.
#[derive(Debug, Clone, PartialEq)]
pub struct ResidualsPlot {
    pub law: String,
    /// Residuals are ln ŷ − ln y (else ŷ − y).
    pub log: bool,
    pub panels: Vec<ResidualPanel>,
}

/// The residuals against one variable.
#[derive(Debug, Clone, PartialEq)]
pub struct ResidualPanel {
    pub variable: String,
    pub values: Vec<f64>,
    pub residuals: Vec<f64>,
}

/// The compute-optimal N*(C) and D*(C), with their bands.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontierPlot {
    pub n: Points,
    pub n_band: Band,
    pub d: Points,
    pub d_band: Band,
    /// The exponents a, b of N* ∝ C^a, D* ∝ C^b.
    pub exponents: Option<(f64, f64)>,
    /// The bootstrap draws behind the bands (0: none).
    pub draws: usize,
    /// The FLOPs formula, as written on the x axis.
    pub flops: String,
}

/// The bootstrap distribution of every free parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct BootstrapPlot {
    pub law: String,
    pub draws: usize,
    pub level: f64,
    pub params: Vec<ParamDraws>,
}

/// One parameter's draws, its estimate and its interval.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDraws {
    pub name: String,
    pub values: Vec<f64>,
    pub estimate: f64,
    pub interval: Option<[f64; 2]>,
}

/// IsoFLOP profiles and their minima.
#[derive(Debug, Clone, PartialEq)]
pub struct IsoflopPlot {
    pub budgets: Vec<IsoflopBudget>,
    /// The power law through the minima: its exponent and its line.
    pub n_star: Option<(f64, Points)>,
}

/// One budget's runs, its local curve and its minimum.
#[derive(Debug, Clone, PartialEq)]
pub struct IsoflopBudget {
    pub budget: f64,
    /// The runs: (N, loss).
    pub runs: Points,
    /// The local curve (empty: none).
    pub curve: Points,
    pub n: Option<f64>,
    pub loss: Option<f64>,
    pub n_interval: Option<[f64; 2]>,
}

/// Tracks compared: each track's compute-optimal loss and its runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TracksPlot {
    pub title: String,
    /// Budgets beyond the largest run, shaded: (largest run, largest budget).
    pub beyond: Option<(f64, f64)>,
    pub tracks: Vec<TrackCurves>,
}

/// One track's compute-optimal loss L*(C) with its band, and its runs at their compute.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackCurves {
    pub name: String,
    pub loss: Points,
    pub band: Band,
    pub runs: Points,
}

/// Schedules side by side: learning rate and predicted loss against the step.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulesPlot {
    pub title: String,
    pub schedules: Vec<ScheduleCurves>,
}

/// One schedule's learning rate, predicted loss and logged losses.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleCurves {
    pub name: String,
    pub lr: Points,
    pub loss: Points,
    /// The logged (step, loss) points (empty: none).
    pub observed: Points,
    /// A prediction interval of the loss: (step, low, high) (empty: none).
    pub band: Vec<(f64, f64, f64)>,
}

/// A downstream page: one panel per task.
#[derive(Debug, Clone, PartialEq)]
pub struct DownstreamPlot {
    pub title: String,
    pub panels: Vec<DownstreamPanel>,
}

/// One task: the models' last checkpoints (compute, accuracy), each method's forecasts, and
/// the held-out accuracies of a backtest.
#[derive(Debug, Clone, PartialEq)]
pub struct DownstreamPanel {
    pub title: String,
    /// The task's chance level (a horizontal line), if known.
    pub chance: Option<f64>,
    pub observed: Points,
    pub methods: Vec<MethodForecasts>,
    pub held_out: Points,
}

/// One method's forecasts on a panel: (compute, value, lower, upper).
#[derive(Debug, Clone, PartialEq)]
pub struct MethodForecasts {
    pub name: String,
    pub forecasts: Vec<(f64, f64, f64, f64)>,
}

/// An experiment design in the (N, D) plane: the candidate runs, the runs so far and the runs
/// chosen to launch next, each a point (model size N, tokens D).
#[derive(Debug, Clone, PartialEq)]
pub struct DesignPlot {
    pub title: String,
    pub candidates: Points,
    pub existing: Points,
    pub chosen: Points,
}
