//! How far to trust a fit: bootstrap replicates (rows or whole runs resampled, every replicate
//! refitted with the full global search), confidence and prediction intervals at new points
//! (from the bootstrap draws, else by the delta method), profile-likelihood intervals of single
//! parameters, prediction intervals calibrated beyond the data by rolling-origin backtests,
//! a fit's curve and bands along one variable (for plots), and the [`FitRecord`] that holds a
//! fit with all of these. (The likelihood of a fit under
//! its loss's error density lives with the objective, in [`crate::fit::likelihood`].)

/// The level of every interval a caller does not set one for: confidence, prediction and
/// calibrated intervals, profiles and bands. The one default: every front end's level setting
/// and every options struct's `Default` read it from here.
pub const DEFAULT_LEVEL: f64 = 0.95;

pub mod bootstrap;
pub mod calibration;
pub mod curves;
pub mod intervals;
pub mod prediction;
pub mod predictive;
pub mod prior;
pub mod profile;
pub mod record;
pub mod widening;

pub use bootstrap::{bootstrap, BootstrapOptions, Resampling};
pub use calibration::{calibrate, CalibrationOptions, IntervalNote, ScaleRule};
pub use intervals::{predict_with_intervals, predict_with_intervals_of};
pub use prediction::{IntervalSource, PointPrediction};
pub use profile::{profile, Profile};
pub use record::{BootstrapSummary, FitRecord};
pub use widening::Calibration;

use crate::error::{Error, Result, Setting};
use crate::text;

/// A count of bootstrap replicates as every face reads it: 0 means no bootstrap (None). The one
/// reading: a request's `bootstrap` and every face's count of replicates come through here; a
/// count too small for its level is refused later, by [`crate::limits::check_replicates`].
pub fn replicates(count: usize) -> Option<usize> {
    (count > 0).then_some(count)
}

/// Checks a confidence level given by a user (the `level` setting): the one rule for every
/// analysis that takes one.
pub fn check_level(level: f64) -> Result<()> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(Error::setting(
            Setting::Level,
            text![
                Setting::Level.number(crate::error::short_number(level)),
                ": give a confidence level strictly between 0 and 1 (e.g. 0.95)"
            ],
        ))
    }
}
