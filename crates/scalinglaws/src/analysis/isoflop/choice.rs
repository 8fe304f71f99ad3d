//! Which predictions at new budgets `isoflop` gives, chosen by a backtest over the budgets
//! (issue 51): the per-budget minima's power laws (approach 2, `forecast.rs`) or the joint law
//! fitted to a window of the runs (Hoffmann et al. 2022's approach 3, `joint.rs`).
//!
//! Neither wins everywhere. On Porian et al. 2024's fifteen configurations a joint Chinchilla
//! fit of every run misses D* at the two largest budgets by 0.69 in ln units where the
//! per-budget minima miss by 0.06, because one law does not hold from their smallest budgets
//! to their largest; fitted to the runs of the last few budgets near their valleys it misses by
//! less than the minima (bench/results/isoflop_joint.txt). Which window, and whether the joint
//! law at all, is a property of the study, so it is measured on the study: rolling origins
//! (Tashman 2000) train every candidate on the smallest k budgets for every k from
//! [`MIN_TRAINING_BUDGETS`] and predict the next [`AHEAD`] budgets' own minima; the candidate
//! with the smallest mean |ln D* error| there makes the predictions. With fewer than
//! [`MIN_SELECTION_UNITS`] such held-out budgets the choice would be noise, and `joint` fits
//! every run (`auto`: the profiles).
//!
//! The joint law's bootstrap (at most [`MAX_JOINT_REPLICATES`] replicates) sees only the noise of the runs, not the law's form error beyond
//! them, so its intervals are widened as the profiles' are (`forecast.rs`): every origin from
//! [`MIN_TRAINING_BUDGETS`] budgets predicts every larger budget with a minimum, and the
//! level-quantile τ of |e|/(z·d^g) over those units (d decades beyond the origin's largest
//! budget, g = [`GROWTH`]) widens the interval to ln value ± z·√(sd_boot² + (τ·d^g)²).

use serde::{Deserialize, Serialize};

use super::forecast::{subset, BudgetPrediction, Quantity};
use super::joint::{joint_forecast, JointFit, Window};
use super::{isoflop, Isoflop, IsoflopData, IsoflopSettings};
use crate::error::{Error, Result, Setting};
use crate::stats::normal_quantile;
use crate::text;
use crate::uncertainty::calibration::GROWTH;
use crate::uncertainty::prior::weighted_quantile;

/// How `isoflop` predicts N*, D* and the loss at new budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The candidate with the smallest error in the backtest over the budgets.
    Auto,
    /// The joint law, its window chosen by the backtest.
    #[default]
    Joint,
    /// The power laws through the per-budget minima (approach 2).
    Profiles,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::Auto, Method::Joint, Method::Profiles];

    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Joint => "joint",
            Method::Profiles => "profiles",
        }
    }

    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    /// A method by name, or an error naming the setting and the choices.
    pub fn parse(name: &str) -> Result<Method> {
        Method::from_name(name).ok_or_else(|| {
            let choices = Method::ALL.map(Method::name).join(", ");
            Error::setting(
                Setting::Method,
                text![
                    Setting::Method.text(name),
                    format!(": use one of {choices}")
                ],
            )
        })
    }
}

/// One way to predict at new budgets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Candidate {
    Profiles,
    Joint(Window),
}

impl Candidate {
    /// In words, for reports.
    pub fn describe(self) -> String {
        match self {
            Candidate::Profiles => "the power laws through the per-budget minima".to_string(),
            Candidate::Joint(w) => format!("the joint law fitted to {}", w.describe()),
        }
    }
}

/// The joint law's windows the backtest compares: the last 3, 4 or 6 budgets or all, each
/// with the runs within 2 or 3 sizes of each budget's lowest loss, or all of them.
pub const WINDOWS: [Window; 12] = {
    let budgets = [Some(3), Some(4), Some(6), None];
    let halves = [Some(2), Some(3), None];
    let mut out = [Window {
        budgets: None,
        half: None,
    }; 12];
    let mut i = 0;
    while i < 12 {
        out[i] = Window {
            budgets: budgets[i / 3],
            half: halves[i % 3],
        };
        i += 1;
    }
    out
};
/// Fewest held-out budgets a comparison needs: with fewer the choice is noise (on synthetic
/// studies of 7 budgets, 3 units chose worse windows than the fixed ones; bench/results).
pub const MIN_SELECTION_UNITS: usize = 4;
/// Budgets each origin of the choice predicts (the next ones).
pub const AHEAD: usize = 2;
/// Fewest budgets an origin trains on.
pub const MIN_TRAINING_BUDGETS: usize = 3;
/// Origins of the joint law's widening: train on the smallest m−1, …, m−this budgets.
pub const CALIBRATION_ORIGINS: usize = 5;
/// Most bootstrap replicates of the joint law (each a refit of the law): beyond the data its
/// intervals are dominated by the widening, and 200 percentiles of N*, D* and the loss at
/// 95 % are steady to a few per cent of their width.
pub const MAX_JOINT_REPLICATES: usize = 200;
/// Fewest (origin, budget) units the joint law's widening is computed from.
pub const MIN_UNITS: usize = 6;

/// A candidate's score in the backtest over the budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateScore {
    pub candidate: Candidate,
    /// Mean |ln D* error| over the units (absent when it failed to predict one of them).
    #[serde(
        rename = "mean_abs_ln_error_D",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub mean_abs_ln_error_d: Option<f64>,
}

/// What made the predictions at new budgets, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodChoice {
    pub method: Method,
    pub chosen: Candidate,
    /// Training sizes (in budgets) of the origins compared, and the units scored.
    pub origins: Vec<usize>,
    pub units: usize,
    pub scores: Vec<CandidateScore>,
    pub reason: String,
}

/// The joint law's predictions: its fit and how its intervals were widened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JointForecast {
    pub fit: JointFit,
    pub calibrated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub origins: Vec<usize>,
    pub units: usize,
    /// τ of N*, D* and the loss, per decade^g in ln units.
    pub tau_n: f64,
    pub tau_d: f64,
    pub tau_loss: f64,
}

/// A held-out budget's errors (ln observed − ln predicted of N*, D*, loss) and its distance in
/// decades beyond the origin's largest budget.
struct Unit {
    error: [f64; 3],
    distance: f64,
}

/// The study's budgets, their own minima and what a candidate's origins need.
struct Study<'a> {
    data: &'a IsoflopData,
    groups: &'a [Vec<usize>],
    budgets: Vec<f64>,
    observed: Vec<Option<[f64; 3]>>,
    settings: &'a IsoflopSettings,
}

impl Study<'_> {
    /// `candidate` trained on the smallest `k` budgets, scored on the larger ones with a
    /// minimum up to `ahead` budgets out (None when it fails to predict one of them).
    fn units(&self, candidate: Candidate, k: usize, ahead: usize) -> Option<Vec<Unit>> {
        let held: Vec<usize> = (k..(k + ahead).min(self.groups.len()))
            .filter(|&j| self.observed[j].is_some())
            .collect();
        if held.is_empty() {
            return Some(Vec::new());
        }
        let rows: Vec<usize> = self.groups[..k].iter().flatten().copied().collect();
        let train = subset(self.data, &rows);
        let targets: Vec<f64> = held.iter().map(|&j| self.budgets[j]).collect();
        let predicted = predict(candidate, &train, &targets, self.settings)?;
        let origin = self.budgets[k - 1];
        Some(
            held.iter()
                .zip(predicted)
                .map(|(&j, p)| {
                    let o = self.observed[j].expect("held-out budgets have a minimum");
                    Unit {
                        error: [0, 1, 2].map(|q| o[q] - p[q]),
                        distance: (self.budgets[j] / origin).log10().max(1e-9),
                    }
                })
                .collect(),
        )
    }
}

/// ln N*, ln D*, ln loss at `targets` by `candidate` trained on `train` (no intervals).
fn predict(
    candidate: Candidate,
    train: &IsoflopData,
    targets: &[f64],
    settings: &IsoflopSettings,
) -> Option<Vec<[f64; 3]>> {
    let quiet = IsoflopSettings {
        bootstrap: 0,
        calibrate: false,
        method: Method::Profiles,
        predict_at: targets.to_vec(),
        ..settings.clone()
    };
    let predictions = match candidate {
        Candidate::Profiles => isoflop(train, &quiet).ok()?.predictions,
        Candidate::Joint(window) => joint_forecast(train, window, targets, &quiet).ok()?.1,
    };
    (predictions.len() == targets.len()).then(|| {
        predictions
            .iter()
            .map(|p| [p.n.value.ln(), p.d.value.ln(), p.loss.value.ln()])
            .collect()
    })
}

/// The candidates `method` compares, the profiles first (they win ties).
fn candidates(method: Method) -> Vec<Candidate> {
    let joint = WINDOWS.iter().map(|&w| Candidate::Joint(w));
    match method {
        Method::Auto => std::iter::once(Candidate::Profiles).chain(joint).collect(),
        Method::Joint => joint.collect(),
        Method::Profiles => vec![Candidate::Profiles],
    }
}

/// The backtest over the budgets: every candidate's mean |ln D* error| on the last origins.
fn choose(study: &Study, method: Method) -> MethodChoice {
    let m = study.groups.len();
    let origins: Vec<usize> = (MIN_TRAINING_BUDGETS..m).collect();
    let mut scores = Vec::new();
    let mut units = 0;
    for candidate in candidates(method) {
        let mut errors = Vec::new();
        let mut failed = false;
        for &k in &origins {
            if study.settings.interrupt.is_interrupted() {
                break;
            }
            match study.units(candidate, k, AHEAD) {
                Some(found) => errors.extend(found.iter().map(|u| u.error[1].abs())),
                None => failed = true,
            }
        }
        units = units.max(errors.len());
        let mean = (!failed && !errors.is_empty())
            .then(|| errors.iter().sum::<f64>() / errors.len() as f64);
        scores.push(CandidateScore {
            candidate,
            mean_abs_ln_error_d: mean,
        });
    }
    let best = scores
        .iter()
        .filter_map(|s| Some((s.candidate, s.mean_abs_ln_error_d?)))
        .filter(|_| units >= MIN_SELECTION_UNITS)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let (chosen, reason) = match best {
        Some((c, e)) => (
            c,
            format!(
                "smallest mean |ln D* error| ({e:.4}) over {units} held-out budgets of {} rolling origins: {}",
                origins.len(),
                c.describe()
            ),
        ),
        None => fallback(method),
    };
    MethodChoice {
        method,
        chosen,
        origins,
        units,
        scores,
        reason,
    }
}

/// Without a comparison: the profiles (`auto`), or the joint law on every run (`joint`).
fn fallback(method: Method) -> (Candidate, String) {
    let why = format!(
        "fewer than {MIN_SELECTION_UNITS} held-out budgets with a minimum to compare the candidates on"
    );
    match method {
        Method::Joint => {
            let all = Window {
                budgets: None,
                half: None,
            };
            (
                Candidate::Joint(all),
                format!("{why}: the joint law on every run"),
            )
        }
        _ => (Candidate::Profiles, format!("{why}: the per-budget minima")),
    }
}

/// The widening τ of the joint law in `window` from every origin of at least
/// [`MIN_TRAINING_BUDGETS`] budgets, predicting every larger budget with a minimum.
fn calibrate(study: &Study, window: Window, fit: JointFit) -> JointForecast {
    let m = study.groups.len();
    let mut forecast = JointForecast {
        fit,
        calibrated: false,
        reason: None,
        origins: Vec::new(),
        units: 0,
        tau_n: 0.0,
        tau_d: 0.0,
        tau_loss: 0.0,
    };
    if !study.settings.calibrate {
        forecast.reason = Some("calibration not asked for".into());
        return forecast;
    }
    let mut units = Vec::new();
    let first = m
        .saturating_sub(CALIBRATION_ORIGINS)
        .max(MIN_TRAINING_BUDGETS);
    for k in first..m {
        if study.settings.interrupt.is_interrupted() {
            break;
        }
        if let Some(found) = study.units(Candidate::Joint(window), k, m) {
            if !found.is_empty() {
                forecast.origins.push(k);
                units.extend(found);
            }
        }
    }
    forecast.units = units.len();
    if units.len() < MIN_UNITS {
        forecast.reason = Some(format!(
            "the rolling origins held out {} (origin, budget) units; calibration needs {MIN_UNITS}",
            units.len()
        ));
        return forecast;
    }
    let z = normal_quantile(0.5 + study.settings.level / 2.0);
    let tau = |q: usize| {
        let mut scores: Vec<(f64, f64)> = units
            .iter()
            .map(|u| (u.error[q].abs() / z / u.distance.powf(GROWTH), 1.0))
            .collect();
        scores.sort_by(|a, b| a.0.total_cmp(&b.0));
        weighted_quantile(&scores, study.settings.level)
    };
    (forecast.tau_n, forecast.tau_d, forecast.tau_loss) = (tau(0), tau(1), tau(2));
    forecast.calibrated = true;
    forecast
}

/// A quantity's interval widened by the form error τ·d^g (the bootstrap's sd read from its
/// percentile interval).
fn widen(quantity: &Quantity, form_sd: f64, z: f64) -> Quantity {
    if form_sd == 0.0 {
        return quantity.clone();
    }
    let boot = quantity
        .bootstrap_interval
        .map_or(0.0, |[lo, hi]| (hi.ln() - lo.ln()) / (2.0 * z));
    let half = z * (boot * boot + form_sd * form_sd).sqrt();
    let ln = quantity.value.ln();
    Quantity {
        value: quantity.value,
        interval: Some([(ln - half).exp(), (ln + half).exp()]),
        bootstrap_interval: quantity.bootstrap_interval,
    }
}

/// Chooses what predicts at `settings.predict_at` and, when the joint law wins, puts its
/// predictions in `result.predictions` and keeps the profiles' as `profile_predictions`.
pub(crate) fn predict_by_choice(
    data: &IsoflopData,
    groups: &[Vec<usize>],
    result: &mut Isoflop,
    settings: &IsoflopSettings,
) -> Result<()> {
    let study = Study {
        data,
        groups,
        budgets: super::forecast::budgets_of(data, groups),
        observed: super::forecast::own_minima(data, groups, result.shape),
        settings,
    };
    let choice = choose(&study, settings.method);
    settings.interrupt.check()?;
    let Candidate::Joint(window) = choice.chosen else {
        result.method_choice = Some(choice);
        return Ok(());
    };
    let capped = IsoflopSettings {
        bootstrap: settings.bootstrap.min(MAX_JOINT_REPLICATES),
        ..settings.clone()
    };
    let (fit, predictions) = joint_forecast(data, window, &settings.predict_at, &capped)?;
    let forecast = calibrate(&study, window, fit);
    settings.interrupt.check()?;
    let z = normal_quantile(0.5 + settings.level / 2.0);
    let taus = [forecast.tau_n, forecast.tau_d, forecast.tau_loss];
    let widened: Vec<BudgetPrediction> = predictions
        .into_iter()
        .map(|p| {
            let form = |q: usize| match forecast.calibrated {
                true => taus[q] * p.decades_out.powf(GROWTH),
                false => 0.0,
            };
            BudgetPrediction {
                n: widen(&p.n, form(0), z),
                d: widen(&p.d, form(1), z),
                loss: widen(&p.loss, form(2), z),
                ..p
            }
        })
        .collect();
    result.profile_predictions = std::mem::replace(&mut result.predictions, widened);
    result.profile_predictions_note = result.predictions_note.take();
    result.joint = Some(forecast);
    result.method_choice = Some(choice);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_named_and_a_bad_name_names_the_setting() {
        for method in Method::ALL {
            assert_eq!(Method::parse(method.name()).unwrap(), method);
        }
        assert_eq!(Method::default(), Method::Joint);
        let error = Method::parse("parabola").unwrap_err();
        assert_eq!(error.key(), Some(Setting::Method));
        assert!(error.to_string().contains("joint, profiles"), "{error}");
    }

    /// Noiseless profiles of Hoffmann et al.'s law: the joint law predicts the closed-form
    /// optimum one decade out, and the per-budget minima are kept beside it.
    #[test]
    fn the_joint_law_recovers_the_optimum_of_exact_profiles() {
        let (e, a, alpha, b, beta) = (1.69, 406.4, 0.34, 410.7, 0.28);
        let mut data = IsoflopData {
            compute: vec![],
            size: vec![],
            loss: vec![],
            tokens: None,
        };
        for k in 0..7 {
            let c = 1e18 * 10f64.powf(0.5 * k as f64);
            for i in 0..9 {
                let n = 1e7 * 10f64.powf(0.25 * i as f64 + 0.25 * k as f64);
                data.compute.push(c);
                data.size.push(n);
                data.loss
                    .push(e + a * n.powf(-alpha) + b * (c / (6.0 * n)).powf(-beta));
            }
        }
        let target: f64 = 1e22;
        let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
        let n_star = g * (target / 6.0).powf(beta / (alpha + beta));
        let settings = IsoflopSettings {
            predict_at: vec![target],
            ..IsoflopSettings::default()
        };
        let result = isoflop(&data, &settings).unwrap();
        let choice = result.method_choice.as_ref().unwrap();
        assert!(matches!(choice.chosen, Candidate::Joint(_)), "{choice:?}");
        assert_eq!(result.profile_predictions.len(), 1);
        let predicted = result.predictions[0].n.value;
        assert!(
            (predicted / n_star).ln().abs() < 1e-3,
            "{predicted:e} {n_star:e}"
        );
    }
}
