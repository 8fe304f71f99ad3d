//! One work budget instead of a cap per option. Each option's own limit ([`crate::limits`])
//! stops an absurd value, but products of allowed values are unbounded: 20 tracks × shared
//! exponents, a 4⁹-point start grid, a million budgets × a thousand replicates. So every
//! workflow estimates, before it starts, the work it will do (in core-seconds of this
//! machine's class) and the memory it will hold, as a product of named factors, and refuses
//! over the caller's budget ([`DEFAULT_MAX_WORK`], raised with the `max_work` setting) with a
//! message that names the factors and the settings that shrink them.
//!
//! The estimate is an upper estimate, not a forecast: a fit is costed as if every start ran
//! [`STEPS_PER_START`] steps (about twice what the search's merging and culling leave them on
//! average), so a run usually takes a fraction of its estimate. `crates/scalinglaws-cli/tests/measured/work_cli.rs` draws random option combinations and
//! checks that the estimate bounds the measured CPU time and peak memory.

use crate::error::{Error, Result, Setting, Text};
use crate::limits::thousands;
use crate::text;

/// The budget of a run when the caller gives none, in estimated core-seconds: the estimates
/// run 1.4–50 times what runs take (tests/measured/work_cli.rs prints it; the closest measured, a
/// 4-exponent formula's 256-start grid on 3,000 rows, 102 estimated for 74 taken), so on 2
/// cores a run within it ends within about a minute. The default fit of a million rows (with
/// its rolling origins) is estimated at about 103. (240, the first default, let that formula
/// run past a minute at 5 exponents on fewer rows.)
pub const DEFAULT_MAX_WORK: f64 = 120.0;

/// [`DEFAULT_MAX_WORK`], for serde defaults.
pub fn default_max_work() -> f64 {
    DEFAULT_MAX_WORK
}

/// Memory a run may hold per unit of budget: 8 MB, so the default budget allows 1.92 GB.
pub const BYTES_PER_WORK: f64 = 8e6;

/// The largest budget a caller may give (about a core-year): beyond it the estimate no longer
/// means anything as a bound.
pub const MAX_MAX_WORK: f64 = 3.2e7;

/// Core-seconds per operation of the fit model (one formula step or one Hessian entry on one
/// row): 4 ns, above the 1–3.5 ns measured on this project's fits (the CLI crate's tests/measured/work_cli.rs holds the
/// check).
pub const SECONDS_PER_OP: f64 = 4e-9;

/// Gauss–Newton steps a start is costed at (fewer if the iteration limit is lower). The
/// search merges starts that meet and culls slow ones, so a start runs about 5–15 steps on
/// average in this project's fits; a 4⁵-start formula, the worst measured, about 12.
pub const STEPS_PER_START: f64 = 25.0;

/// Starts a bootstrap replicate or a warm refit runs (its optima from the original search and
/// those of the grid that reached none: fit/basins.rs).
pub const REFIT_STARTS: f64 = 4.0;

/// Newton steps a large fit's best optima are finished with on every row (4 to 12 on the
/// million rows of bench/million_rows.sh: fit/search.rs).
pub const POLISH_STEPS: f64 = 12.0;

/// Fixed cost of any fit (setting up the problem and its starts, the covariance, the
/// diagnostics): 1.5 ms, above the 0.9–1.1 ms a bootstrap refit of a 3-parameter law on 5 to
/// 39 rows takes on one thread (the fuzz target `work` found 1,100 refits of compare's tracks
/// costed at 0.64 ms each, and 4,800 of grouped fits at 0.2 ms).
const SECONDS_PER_FIT: f64 = 1.5e-3;

/// Core-seconds per step of a learning-rate schedule a curve law is evaluated over once (a
/// predicted curve, a cooldown branch, each schedule of a study): 2 µs, above the 0.53 µs a
/// step of a 10-million-step cosine and the 0.94 µs a step of 1,000-step cooldown branches
/// measured under multi_power.
pub const SECONDS_PER_SCHEDULE_STEP: f64 = 2e-6;

/// Bytes held per step of a schedule written out in full (its rates and the law's running
/// sums): 32, above the 26 a cooldown study of one 1e7-step length measured.
pub const BYTES_PER_SCHEDULE_STEP: f64 = 32.0;

/// Core-seconds per step of the training schedules of one schedule fit (its start grid and
/// polish over every step of every training run): 2e-4, above the 19 µs (one 24,000-step run,
/// 0.46 s), 62 µs (two, 3.0 s) and 8 µs (all nine, 2.5 s) measured on the bundled 400M runs.
pub const SECONDS_PER_FIT_SCHEDULE_STEP: f64 = 2e-4;

/// Core-seconds per training step of one refit of a schedule fit (a bootstrap replicate from
/// the fitted values): 2.5e-5, above the 10 µs measured (20 replicates of a 24,000-step
/// training run in 4.8 core-seconds).
pub const SECONDS_PER_REFIT_SCHEDULE_STEP: f64 = 2.5e-5;

/// Core-seconds per training step of one refit of a profile-likelihood trace (warm, with a
/// parameter held): 1e-5, above the 3.4 µs measured (the calibrated profile of a 23,921-step
/// training run: 312 refits on the full curve and as many on its first half, 38.6 s).
pub const SECONDS_PER_PROFILE_SCHEDULE_STEP: f64 = 1e-5;

/// One factor of an estimate: how many of what, and the setting that sets it (if any).
#[derive(Debug, Clone, PartialEq)]
pub struct Factor {
    pub count: f64,
    pub what: String,
    pub setting: Option<Setting>,
}

/// What a run will cost before it runs: estimated core-seconds and peak bytes (beyond the
/// program itself), and the factors that multiply, for the message.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub seconds: f64,
    pub bytes: f64,
    pub factors: Vec<Factor>,
}

impl Estimate {
    /// Nothing yet.
    pub fn none() -> Estimate {
        Estimate {
            seconds: 0.0,
            bytes: 0.0,
            factors: Vec::new(),
        }
    }

    /// `seconds` of work holding `bytes`, with no named factor.
    pub fn of(seconds: f64, bytes: f64) -> Estimate {
        Estimate {
            seconds,
            bytes,
            factors: Vec::new(),
        }
    }

    /// Adds a factor to the description without changing the totals (the totals already hold
    /// it).
    pub fn described(mut self, count: f64, what: &str, setting: Option<Setting>) -> Estimate {
        self.factors.push(Factor {
            count,
            what: what.to_string(),
            setting,
        });
        self
    }

    /// The work `count` times over (the memory held once: each repetition frees its own).
    pub fn repeated(self, count: f64, what: &str, setting: Option<Setting>) -> Estimate {
        let seconds = self.seconds * count;
        Estimate { seconds, ..self }.described(count, what, setting)
    }

    /// This work and then `other`'s: times add, memory adds (an upper estimate: what the
    /// first step keeps may be held while the second runs). The factors named are the larger
    /// part's (a refusal says what to shrink first).
    pub fn plus(mut self, other: Estimate) -> Estimate {
        if other.seconds > self.seconds {
            self.factors = other.factors;
        }
        self.seconds += other.seconds;
        self.bytes += other.bytes;
        self
    }

    /// The work without its memory (a step whose memory another part already counts).
    pub fn work_only(mut self) -> Estimate {
        self.bytes = 0.0;
        self
    }

    /// Adds memory held by results (e.g. every replicate's parameters).
    pub fn holding(mut self, bytes: f64) -> Estimate {
        self.bytes += bytes;
        self
    }

    /// Refuses this estimate over the budget `max_work` (core-seconds; memory
    /// [`BYTES_PER_WORK`] per unit), naming the factors and the settings that shrink them.
    pub fn check(&self, max_work: f64) -> Result<()> {
        check_budget(max_work)?;
        let memory = max_work * BYTES_PER_WORK;
        if self.seconds <= max_work && self.bytes <= memory {
            return Ok(());
        }
        let what = match (self.seconds > max_work, self.bytes > memory) {
            (true, true) => format!(
                "this run is estimated at {} core-seconds of work holding {} of memory, more \
                 than the budget of {} (which allows {})",
                round(self.seconds),
                bytes_text(self.bytes),
                round(max_work),
                bytes_text(memory)
            ),
            (true, false) => format!(
                "this run is estimated at {} core-seconds of work, more than the budget of {}",
                round(self.seconds),
                round(max_work)
            ),
            _ => format!(
                "this run is estimated to hold {} of memory, more than the {} a budget of {} \
                 allows",
                bytes_text(self.bytes),
                bytes_text(memory),
                round(max_work)
            ),
        };
        Err(Error::setting(Setting::MaxWork, self.refusal(what)))
    }

    fn refusal(&self, what: String) -> Text {
        let mut message: Vec<Text> = vec![what.into()];
        if !self.factors.is_empty() {
            let parts: Vec<String> = self
                .factors
                .iter()
                .map(|f| format!("{} {}", count_text(f.count), f.what))
                .collect();
            message.push(format!(" (the largest part: {})", parts.join(" × ")).into());
        }
        let mut settings: Vec<Setting> = Vec::new();
        for setting in self.factors.iter().filter_map(|f| f.setting) {
            if !settings.contains(&setting) {
                settings.push(setting);
            }
        }
        message.push(
            if settings.is_empty() {
                "; use less data"
            } else {
                "; shrink it with "
            }
            .into(),
        );
        for (i, setting) in settings.iter().enumerate() {
            if i > 0 {
                message.push(
                    if i + 1 == settings.len() {
                        " or "
                    } else {
                        ", "
                    }
                    .into(),
                );
            }
            message.push(setting.subject().into());
        }
        let needed = (self.seconds.max(self.bytes / BYTES_PER_WORK) * 1.1).ceil();
        message.push(", or raise the budget with ".into());
        message.push(Setting::MaxWork.number(needed).into());
        message.push(" to allow it".into());
        Text::concat(message)
    }
}

/// The size of one fit, for its cost: rows, the formula's steps, the free parameters, the
/// points of the start grid and the iteration limit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitShape {
    pub rows: usize,
    /// Rows the start search runs on (a sample of large data: fit/mod.rs `search_sample`).
    pub search_rows: usize,
    pub nodes: usize,
    /// Free parameters one row's derivatives involve.
    pub free: usize,
    /// Free parameters of the whole fit (its linear solves): more than `free` where rows
    /// involve different parameters (a joint fit of tracks).
    pub solve: usize,
    pub starts: f64,
    pub max_iterations: usize,
    /// Gauss–Newton steps a start is costed at ([`STEPS_PER_START`], more for losses that
    /// make starts run longer: the fit room says which).
    pub steps_per_start: f64,
    pub variables: usize,
}

impl FitShape {
    /// Operations of one Gauss–Newton step on `rows` rows: each row's formula and its
    /// Jacobian's outer product, then the solve.
    fn step_ops(&self, rows: usize) -> f64 {
        let p = self.free as f64;
        let solve = self.solve as f64;
        rows as f64 * (self.nodes as f64 * (1.0 + p) + p * p) + solve * solve * solve
    }

    /// Core-seconds of the whole fit: every start its iteration limit on the search rows,
    /// then a few optima finished on every row.
    pub fn seconds(&self) -> f64 {
        let iterations = self.steps();
        let search = self.starts * iterations * self.step_ops(self.search_rows);
        let finish = if self.search_rows < self.rows {
            REFIT_STARTS * POLISH_STEPS.min(iterations) * self.step_ops(self.rows)
        } else {
            0.0
        };
        SECONDS_PER_FIT + SECONDS_PER_OP * (search + finish)
    }

    /// Core-seconds of a refit from warm starts (a bootstrap replicate, a profile point): the
    /// original's optima, and the starts of the grid that reached none of them, costed at
    /// three quarters of the grid. Half the grid was too little: a replicate of a formula with
    /// three power terms (7 parameters, 20 rows, 64 starts) measured 18-25 ms of CPU on 2
    /// cores against 17.8 ms estimated, and `tests/measured/work_cli.rs` failed by chance.
    pub fn refit_seconds(&self) -> f64 {
        let starts = REFIT_STARTS + 0.75 * self.starts.max(1.0);
        SECONDS_PER_FIT + SECONDS_PER_OP * starts * self.steps() * self.step_ops(self.rows)
    }

    fn steps(&self) -> f64 {
        (self.max_iterations as f64).min(self.steps_per_start)
    }

    /// Peak bytes of the fit: per row, the data, the bound formula's data slots, residuals
    /// and Jacobian rows for each worker's start; per start, its parameters.
    pub fn bytes(&self) -> f64 {
        let per_row = 8.0 * (4.0 * (self.variables as f64 + 3.0) + 3.0 * self.free as f64)
            + 8.0 * self.nodes as f64;
        let solve = self.solve as f64;
        self.rows as f64 * per_row + self.starts * (8.0 * solve + 96.0) + 32.0 * solve * solve
    }

    /// The fit as an estimate, with its factors named.
    pub fn estimate(&self) -> Estimate {
        let mut estimate = Estimate::of(self.seconds(), self.bytes());
        if self.starts > 1.0 {
            estimate = estimate.described(self.starts, "starts", Some(Setting::Grid));
        }
        estimate
            .described(self.search_rows as f64, "rows searched", None)
            .described(self.nodes as f64, "formula steps", None)
    }
}

/// Checks a budget a caller gave: positive, finite, at most [`MAX_MAX_WORK`].
pub fn check_budget(max_work: f64) -> Result<()> {
    if max_work > 0.0 && max_work <= MAX_MAX_WORK {
        return Ok(());
    }
    Err(Error::setting(
        Setting::MaxWork,
        text![
            Setting::MaxWork.number(round(max_work)),
            format!(
                ": give a budget in core-seconds above 0 and at most {} (the default is {})",
                round(MAX_MAX_WORK),
                round(DEFAULT_MAX_WORK)
            )
        ],
    ))
}

fn round(value: f64) -> String {
    if value >= 1e15 {
        format!("{value:.2e}")
    } else if value >= 100.0 {
        thousands(value.round() as usize)
    } else {
        crate::error::short_number(float_digits(value))
    }
}

/// Three significant digits.
fn float_digits(value: f64) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let scale = 10f64.powi(2 - value.abs().log10().floor() as i32);
    (value * scale).round() / scale
}

fn count_text(count: f64) -> String {
    if count < 1e15 && count.fract() == 0.0 {
        thousands(count as usize)
    } else {
        round(count)
    }
}

fn bytes_text(bytes: f64) -> String {
    if bytes >= 1e15 {
        return format!("{bytes:.2e} bytes");
    }
    let (value, unit) = if bytes >= 1e12 {
        (bytes / 1e12, "TB")
    } else if bytes >= 1e9 {
        (bytes / 1e9, "GB")
    } else if bytes >= 1e6 {
        (bytes / 1e6, "MB")
    } else {
        (bytes / 1e3, "kB")
    };
    format!("{} {unit}", crate::error::short_number(float_digits(value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(rows: usize, starts: f64) -> FitShape {
        FitShape {
            rows,
            search_rows: rows,
            nodes: 20,
            free: 5,
            solve: 5,
            starts,
            max_iterations: 200,
            steps_per_start: STEPS_PER_START,
            variables: 2,
        }
    }

    #[test]
    fn work_grows_with_every_factor() {
        let base = shape(100, 16.0).seconds();
        assert!(shape(1000, 16.0).seconds() > 5.0 * base);
        assert!(shape(100, 160.0).seconds() > 5.0 * base);
        let repeated = shape(100, 16.0)
            .estimate()
            .repeated(10.0, "replicates", None);
        assert!((repeated.seconds / base - 10.0).abs() < 1e-9);
    }

    #[test]
    fn a_refusal_names_the_factors_the_settings_and_the_budget() {
        let estimate = shape(20, 262_144.0).estimate().repeated(
            1000.0,
            "bootstrap replicates",
            Some(Setting::Bootstrap),
        );
        let message = estimate.check(DEFAULT_MAX_WORK).unwrap_err().to_string();
        assert!(message.contains("262,144 starts"), "{message}");
        assert!(message.contains("1,000 bootstrap replicates"), "{message}");
        assert!(
            message.contains("shrink it with grid or bootstrap"),
            "{message}"
        );
        assert!(message.contains("max_work="), "{message}");
        assert!(shape(20, 16.0).estimate().check(DEFAULT_MAX_WORK).is_ok());
    }

    #[test]
    fn memory_over_the_budget_is_refused_too() {
        let estimate = Estimate::of(1.0, 5e9);
        let message = estimate.check(DEFAULT_MAX_WORK).unwrap_err().to_string();
        assert!(message.contains("5 GB of memory"), "{message}");
        assert!(estimate.check(700.0).is_ok());
    }

    #[test]
    fn absurd_budgets_are_refused() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            assert!(check_budget(bad).is_err(), "{bad}");
        }
        assert!(check_budget(DEFAULT_MAX_WORK).is_ok());
    }
}
