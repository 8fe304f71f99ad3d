//! The tracks fitted one by one (each with its own bootstrap stream), and what both kinds of fit
//! hand on: every track's parameters and draws, and the fit its prediction intervals come from.

use super::*;

/// Every track's fitted parameters (in the law's order), its share of the objective, and the
/// paired bootstrap draws: `draws[r][t]` is track t's parameters in replicate r.
pub(super) struct Fitted {
    pub(super) params: Vec<Vec<f64>>,
    pub(super) stderr: Vec<Vec<Option<f64>>>,
    pub(super) objective: Vec<f64>,
    pub(super) converged: Vec<bool>,
    pub(super) warnings: Vec<Vec<String>>,
    pub(super) draws: Vec<Vec<Vec<f64>>>,
    pub(super) predictor: Predictor,
}

/// The fits the tracks' prediction intervals come from.
pub(super) enum Predictor {
    /// One fit per track.
    Separate(Vec<FitRecord>),
    /// The joint fit of the joint law; track t's points carry the indicators of `tracks`
    /// tracks.
    Joint {
        result: Box<FitRecord>,
        law: Box<Law>,
        tracks: usize,
    },
}

impl Predictor {
    /// Track t's fit, the law it fitted (None: the track's law) and the values its points
    /// carry after the law's variables.
    pub(super) fn of(&self, t: usize) -> (&FitRecord, Option<&Law>, Vec<f64>) {
        match self {
            Predictor::Separate(results) => (&results[t], None, Vec::new()),
            Predictor::Joint {
                result,
                law,
                tracks,
            } => (
                result,
                Some(law),
                (0..*tracks)
                    .map(|u| if u == t { 1.0 } else { 0.0 })
                    .collect(),
            ),
        }
    }
}

/// The calibration of `law` fitted to `data` by `scale`, refused (with a reason) when a new
/// point's scale cannot be computed from the law's variables.
pub(super) fn calibrated(
    result: &mut FitRecord,
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &TrackSettings,
    fit_settings: &FitSettings,
) -> Result<()> {
    let options = CalibrationOptions {
        level: settings.level,
        ..CalibrationOptions::default()
    };
    let calibration = calibrate(law, data, by, scale, fit_settings, &options)?;
    result.calibration = Some(calibration.require_rule());
    Ok(())
}

pub(super) fn fit_separately(
    law: &Law,
    tracks: &[Track],
    settings: &TrackSettings,
) -> Result<Fitted> {
    let mut results = Vec::with_capacity(tracks.len());
    let mut per_track_draws = Vec::with_capacity(tracks.len());
    for (t, track) in tracks.iter().enumerate() {
        let mut result = FitRecord::from(
            fit(law, &track.data, &settings.fit).map_err(|e| in_track(e, &track.label))?,
        );
        if let Some(c) = &settings.calibration {
            let scale = c.scales.get(t).map_or(&[][..], Vec::as_slice);
            calibrated(
                &mut result,
                law,
                &track.data,
                &c.by,
                scale,
                settings,
                &settings.fit,
            )
            .map_err(|e| in_track(e, &track.label))?;
        }
        let draws = if settings.bootstrap > 0 {
            let options = BootstrapOptions {
                replicates: settings.bootstrap,
                level: settings.level,
                seed: Rng::stream(settings.seed, t as u64).next_u64(),
                resampling: Resampling::Rows,
            };
            let summary = bootstrap(law, &track.data, &settings.fit, &result, &options, &|_| {})?;
            let draws = summary.draws.clone();
            attach(&mut result, summary);
            draws
        } else {
            Vec::new()
        };
        per_track_draws.push(draws);
        results.push(result);
    }
    let paired = per_track_draws.iter().map(Vec::len).min().unwrap_or(0);
    let draws = (0..paired)
        .map(|r| per_track_draws.iter().map(|d| d[r].clone()).collect())
        .collect();
    Ok(Fitted {
        params: results.iter().map(|r| r.param_values()).collect(),
        stderr: results
            .iter()
            .map(|r| r.params.iter().map(|(_, p)| p.stderr).collect())
            .collect(),
        objective: results.iter().map(|r| r.objective).collect(),
        converged: results.iter().map(|r| r.converged).collect(),
        warnings: results.iter().map(neutral_warnings).collect(),
        draws,
        predictor: Predictor::Separate(results),
    })
}

/// Names the track in a fit's or a setting's error (data errors already name their row).
pub(super) fn in_track(error: Error, label: &str) -> Error {
    match error {
        Error::Fit { message } => Error::fit(message.after(format!("track '{label}': "))),
        Error::Settings { key, message } => Error::Settings {
            key,
            message: message.after(format!("track '{label}': ")),
        },
        other => other,
    }
}

/// A track fit's warnings as the library words them: a comparison's results hold words (a
/// joint fit's warnings are rewritten per track, by the names they contain).
pub(super) fn neutral_warnings(fit: &FitRecord) -> Vec<String> {
    fit.warnings.iter().map(ToString::to_string).collect()
}
