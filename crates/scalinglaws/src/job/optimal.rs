//! What an allocation takes from the fit it allocates with: the bootstrap's parameter draws
//! (for intervals on N*, D*) and the level of those intervals. One implementation for the
//! command line's `optimal`, Python's `optimal` and the frontier plot.

use crate::analysis::allocation::AllocationSettings;
use crate::uncertainty::FitRecord;

/// `settings` with the draws of `fit`'s bootstrap (none without one) and the level: the one
/// asked for, else the bootstrap's, else the calibration's, else 95%.
pub fn allocation_from_fit(
    settings: AllocationSettings,
    fit: Option<&FitRecord>,
    level: Option<f64>,
) -> AllocationSettings {
    let bootstrap = fit.and_then(|fit| fit.bootstrap.as_ref());
    let level = level
        .or_else(|| bootstrap.map(|b| b.level))
        .or_else(|| fit?.calibration.as_ref().map(|c| c.level))
        .unwrap_or(0.95);
    AllocationSettings {
        draws: bootstrap.map(|b| b.draws.clone()).unwrap_or_default(),
        level,
        ..settings
    }
}
