//! The hard limits on what one run may ask for, in one place, each with its reason. A number a
//! caller gives (replicates, grid budgets, schedule steps, a formula's length, threads) sizes an
//! allocation or a loop; unchecked, a typo such as `4294967296` replicates aborts on a 100 GB
//! allocation or runs for days. Each limit is far above any real use and is checked where the
//! value is used, before anything is allocated, so every front end gets the same refusal (the
//! error names the setting; the front end words it).

use crate::error::{Error, Result, Setting, Text};
use crate::text;

/// Most bootstrap replicates of one fit. A percentile interval's ends settle to about 1 % of
/// its width by 10,000 replicates; a million is a hundred times that, and already a million
/// refits (and `draws` of a million rows in the saved fit).
pub const MAX_REPLICATES: usize = 1_000_000;

/// Most budgets of the grid envelope (`grid:K`). Hoffmann et al. use 1,500; each budget is a
/// pass over the runs, so a million is already minutes of work and a million-entry frontier.
pub const MAX_GRID_BUDGETS: usize = 1_000_000;

/// Most optimizer steps of a learning-rate schedule. A schedule holds one learning rate (and
/// the curve laws one area) per step: 1e8 steps is 800 MB per array, beyond the longest
/// published runs (about 1e7 steps) and below what a laptop can hold.
pub const MAX_SCHEDULE_STEPS: usize = 100_000_000;

/// Most steps of all the runs' schedules in one schedule fit, in all (each run's schedule is
/// rebuilt for every step to its last logged one). Every iteration of the search evaluates the
/// law over all of them (a fit of the nine 400M runs, 216,000 steps, takes about half a
/// second): 2e7 is a 160 MB schedule and about a minute, and a 9-row log whose steps reach 1e8
/// otherwise took 2.4 GB per run and did not finish in 10 minutes.
pub const MAX_FIT_SCHEDULE_STEPS: usize = 20_000_000;

/// Most steps × iterations of one schedule optimisation. Each iteration evaluates the final
/// loss and its gradient over every step at least twice (about 100 ns a step with the
/// transcendentals), so 4e8 is about a minute on one core: a 1e6-step schedule at the default
/// 400 iterations, or 1e7 steps at 40. The search usually stops well before its iterations,
/// but the bound is what it may take.
pub const MAX_OPTIMIZE_WORK: usize = 400_000_000;

/// Most bootstrap draws a frontier's intervals are computed from (the first ones of a fit's
/// draws: they are independent, so these are a random subsample). Each draw's allocation is
/// solved at every budget and held until the percentiles are taken; a percentile interval's
/// ends settle to about 1 % of its width by 10,000 draws (see [`MAX_REPLICATES`]), and a fit
/// of 600,000 draws took 12.5 GB and 4 minutes to draw its frontier.
pub const MAX_BAND_DRAWS: usize = 10_000;

/// Most allocations solved for a frontier's intervals (draws used × budgets): 40 bytes and a
/// few microseconds each, so 1e7 is 400 MB and under a minute.
pub const MAX_BAND_SOLVES: usize = 10_000_000;

/// Most cooldown branches of one `cooldowns` schedule. Each is a row of the prediction's
/// table (and its own steps of work beyond the shared constant run); a table of 100,000 rows
/// is a cooldown every 240 steps of a 24,000-step run, and far past what anyone reads.
pub const MAX_COOLDOWN_BRANCHES: usize = 100_000;

/// Most points of one predicted curve (a schedule's steps over the reporting interval
/// `every`). Each point is a row of the prediction's table and JSON (about 100 bytes in each,
/// and a few more held per point): a 1e8-step schedule reported at every step reached 13.8 GB.
/// A million points is a thousand times what a plot shows.
pub const MAX_CURVE_POINTS: usize = 1_000_000;

/// Refuses a curve of `steps` steps reported every `every` steps (0: about 200 points) when it
/// has more than [`MAX_CURVE_POINTS`] points, naming the interval that would fit.
pub fn check_curve_points(steps: usize, every: usize) -> Result<()> {
    if every == 0 {
        return Ok(());
    }
    let points = steps.saturating_sub(1) / every + 1;
    if points <= MAX_CURVE_POINTS {
        return Ok(());
    }
    let fits = steps
        .saturating_sub(1)
        .div_ceil(MAX_CURVE_POINTS - 1)
        .max(1);
    Err(Error::setting(
        Setting::Every,
        text![
            Setting::Every.number(every),
            format!(
                ": a {}-step schedule reported every {} steps is {} points, more than the limit \
                 of {} points; give ",
                thousands(steps),
                thousands(every),
                thousands(points),
                thousands(MAX_CURVE_POINTS)
            ),
            Setting::Every.number(fits),
            " or more (or leave it out for about 200 points)"
        ],
    ))
}

/// Longest formula or expression, in bytes. Ten times any published law written out in full;
/// parsing, compiling and finding the linear parameters stay within milliseconds up to it.
pub const MAX_FORMULA_BYTES: usize = 65_536;

/// Most parameters of a user formula. The fit's Hessian is P×P and each polish step solves it
/// (P³): at 1,000 parameters that is a billion operations a step, already far slower than any
/// fit a scaling law needs (the catalog's largest law has 11).
pub const MAX_FORMULA_PARAMS: usize = 1_000;

/// Largest size of a number in the data (and smallest besides 0). The fits square residuals
/// and their weights in relative terms: a target of 1e-200 made every start's objective
/// overflow ("none of the starts gave a finite objective", no row named), a denormal one a
/// relative error of inf %. Every measured quantity of a scaling study (FLOPs to 1e30, losses,
/// learning rates to 1e-8) is far inside.
pub const MAX_MAGNITUDE: f64 = 1e100;

/// Why `value` is out of the range the fits compute in, if it is.
pub fn magnitude_problem(value: f64) -> Option<String> {
    let size = value.abs();
    (size > MAX_MAGNITUDE || (size > 0.0 && size < 1.0 / MAX_MAGNITUDE)).then(|| {
        format!(
            "{value:e} is outside the range the fits compute in (sizes from 1e-100 to 1e100, or 0)"
        )
    })
}

/// Threads per available core at most. Threads are started up front and the work is split
/// into a few pieces per thread, so more than a few per core only adds start-up time (5,000
/// threads took 28 s on a 20-row fit); the result never depends on the count.
pub const THREADS_PER_CORE: usize = 4;

/// The most worker threads a run starts: [`THREADS_PER_CORE`] × the available cores. The cores
/// are read once per process: the standard library reads the cgroup quota files on every call,
/// which took 11 % of a grouped fit of 20-row curves when each group's fit asked again.
pub fn max_threads() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    THREADS_PER_CORE * cores
}

/// The threads a run starts when `requested` are asked for: at least 1, at most
/// [`max_threads`] (the result does not depend on it, so a larger request is capped, not
/// refused; a front end says so).
pub fn threads(requested: usize) -> usize {
    requested.clamp(1, max_threads())
}

/// What a front end warns, once, when `requested` threads are more than [`max_threads`]
/// (the run uses the cap); None at or below it. The CLI and Python say the same words.
pub fn threads_warning(requested: usize) -> Option<Text> {
    let cap = max_threads();
    (requested > cap).then(|| {
        text![
            Setting::Threads.number(requested),
            format!(
                " is more than {THREADS_PER_CORE} per core; using {cap} (the result does not \
                 depend on the count)"
            ),
        ]
    })
}

/// The fewest replicates whose percentile interval at `level` is one: n·(1 − level) ≥ 1, so
/// that on average at least one draw falls outside the interval. With fewer, the interval's
/// ends are the extreme draws themselves (one replicate gives a single point that need not
/// contain the estimate). 20 at 0.95, 10 at 0.9, 100 at 0.99.
pub fn min_replicates(level: f64) -> usize {
    if !(level > 0.0 && level < 1.0) {
        return 2;
    }
    // The small slack keeps 1/(1 − 0.95) = 19.999… at 20.
    ((1.0 / (1.0 - level)) - 1e-9).ceil().max(2.0) as usize
}

/// Checks a count of bootstrap replicates for a percentile interval at `level`: at least
/// [`min_replicates`], at most [`MAX_REPLICATES`].
pub fn check_replicates(replicates: usize, level: f64) -> Result<()> {
    if replicates > MAX_REPLICATES {
        return Err(Error::setting(
            Setting::Bootstrap,
            text![
                Setting::Bootstrap.number(replicates),
                format!(
                    ": at most {} replicates (a million refits; intervals settle by 10,000)",
                    thousands(MAX_REPLICATES)
                )
            ],
        ));
    }
    let least = min_replicates(level);
    if replicates < least {
        return Err(Error::setting(
            Setting::Bootstrap,
            text![
                Setting::Bootstrap.number(replicates),
                format!(
                    ": a {}% percentile interval needs at least {least} replicates \
                     (n·(1 − level) ≥ 1, so that a draw falls outside each interval); \
                     use 1000 or more for stable ends",
                    (level * 1e4).round() / 100.0
                )
            ],
        ));
    }
    Ok(())
}

/// Checks the number of budgets of a grid envelope (at most [`MAX_GRID_BUDGETS`]).
pub fn check_grid_budgets(budgets: usize, setting: Setting) -> Result<()> {
    if budgets > MAX_GRID_BUDGETS {
        return Err(Error::setting(
            setting,
            text![
                setting.text(format!("grid:{budgets}")),
                format!(
                    ": at most {} budgets (Hoffmann et al. use 1,500)",
                    thousands(MAX_GRID_BUDGETS)
                )
            ],
        ));
    }
    Ok(())
}

/// Why `steps` optimizer steps are too many for a schedule, if they are.
pub fn schedule_steps_problem(steps: usize) -> Option<String> {
    (steps > MAX_SCHEDULE_STEPS).then(|| {
        format!(
            "{} steps are more than the limit of {} (a schedule holds one learning rate per step)",
            thousands(steps),
            thousands(MAX_SCHEDULE_STEPS)
        )
    })
}

/// Why a formula or expression of `bytes` bytes is too long, if it is.
pub fn formula_bytes_problem(bytes: usize) -> Option<String> {
    (bytes > MAX_FORMULA_BYTES).then(|| {
        format!(
            "the text is {} bytes long, more than the limit of {} bytes",
            thousands(bytes),
            thousands(MAX_FORMULA_BYTES)
        )
    })
}

/// 1,000,000 (written in the error room, which quotes lengths in it too).
pub use crate::error::thousands;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fewest_replicates_put_a_draw_outside_the_interval() {
        assert_eq!(min_replicates(0.95), 20);
        assert_eq!(min_replicates(0.9), 10);
        assert_eq!(min_replicates(0.99), 100);
        assert_eq!(min_replicates(0.5), 2);
        assert!(check_replicates(1, 0.95).is_err());
        assert!(check_replicates(20, 0.95).is_ok());
        assert!(check_replicates(MAX_REPLICATES + 1, 0.95).is_err());
        assert!(check_replicates(usize::MAX, 0.95).is_err());
    }

    #[test]
    fn threads_are_capped_at_a_few_per_core() {
        assert_eq!(threads(0), 1);
        assert_eq!(threads(1), 1);
        assert_eq!(threads(usize::MAX), max_threads());
        assert!(max_threads() >= THREADS_PER_CORE);
        assert_eq!(threads_warning(max_threads()), None);
        let warning = threads_warning(max_threads() + 1).unwrap().to_string();
        assert!(warning.starts_with("threads="), "{warning}");
        assert!(
            warning.contains("is more than 4 per core; using"),
            "{warning}"
        );
    }

    #[test]
    fn thousands_group_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1500), "1,500");
        assert_eq!(thousands(100_000_000), "100,000,000");
    }
}
