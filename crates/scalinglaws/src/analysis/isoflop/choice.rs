//! Which predictions at new budgets `isoflop` gives, chosen by a backtest over the user's own
//! budgets (issue 51): the per-budget minima's power laws (approach 2, `forecast.rs`) or the
//! joint law fitted to a window of the runs (Hoffmann et al. 2022's approach 3, `joint.rs`).
//!
//! Neither wins everywhere: one law may not hold from a study's smallest budgets to its largest,
//! nor from a profile's far tails to its valley, and on other studies it does and pools every
//! run. Which window, and whether the joint law at all, is a property of the study, so it is
//! measured on the study and no window is fixed beforehand: [`windows`] lists every window the
//! data allow (the last b budgets for every b, the runs within h sizes of each lowest loss for
//! every h, or all). Rolling origins (Tashman 2000) train every candidate on the smallest k
//! budgets for every k from [`MIN_TRAINING_BUDGETS`] and predict the larger budgets' own minima
//! as far ahead as the user asks (the requested budgets' decades beyond the data; at least the
//! next budget). Both choices follow the one-standard-error rule (Breiman et al. 1984 §3.4.3;
//! Hastie et al. 2009 §7.10), since the best of many candidates scored on a few held-out
//! budgets is flattered by its own selection: `joint` takes, of the windows whose mean |ln D*
//! error| is within one standard error of the smallest, the one holding the most runs; `auto`
//! takes that window over the per-budget minima only when it is lower by more than one standard
//! error of the paired difference, else keeps the minima (with fewer than two held-out budgets
//! there is no standard error: the most runs, and the minima). The result says what was chosen,
//! the scores and why ([`MethodChoice`]). Both are opt-in: the default is `profiles`, since
//! `auto` was not better on the measured studies taken together (bench/results/isoflop_joint.txt:
//! worse on the synthetic studies and on Porian et al., better only on Chinchilla).
//!
//! The joint law's bootstrap (at most [`MAX_JOINT_REPLICATES`] replicates) sees only the noise
//! of the runs, not the law's form error beyond them, so its intervals are widened as the
//! profiles' are (`forecast.rs`): every origin from [`MIN_TRAINING_BUDGETS`] budgets predicts
//! every larger budget with a minimum, and the level-quantile τ of |e|/(z·d^g) over those units
//! (d decades beyond the origin's largest budget, g = [`GROWTH`]) widens the interval to
//! ln value ± z·√(sd_boot² + (τ·d^g)²). Each (origin, runs) fit is made once and shared by the
//! choice and the widening.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::forecast::{subset, BudgetPrediction, Quantity, MIN_UNITS};
use super::joint::{joint_forecast, JointFit, Window};
use super::{isoflop, Isoflop, IsoflopData, IsoflopSettings};
use crate::error::{Error, Result, Setting};
use crate::stats::{normal_quantile, sample_std};
use crate::text;
use crate::uncertainty::calibration::GROWTH;
use crate::uncertainty::prior::weighted_quantile;

/// How `isoflop` predicts N*, D* and the loss at new budgets.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The joint law's best window when the backtest over the budgets finds it better than
    /// the per-budget minima by more than a standard error, else the minima.
    Auto,
    /// The joint law, its window chosen by the backtest.
    Joint,
    /// The power laws through the per-budget minima (approach 2); the default.
    #[default]
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

/// One way to predict at new budgets, by its `method`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "method", rename_all = "snake_case")]
#[schemars(rename = "IsoflopCandidate")]
pub enum Candidate {
    /// The power laws through the per-budget minima, as a candidate of the backtest over the
    /// budgets.
    #[schemars(title = "ProfilesCandidate")]
    Profiles,
    /// The joint law on a window of the runs, as a candidate of the backtest over the budgets.
    #[schemars(title = "JointCandidate")]
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

/// Fewest budgets an origin trains on, and fewest budgets in a window: two minima fix a line
/// and a third is the fewest that leaves it a residual (the profiles' own calibration trains
/// its smallest origin on three, `forecast::MIN_BUDGETS`).
pub const MIN_TRAINING_BUDGETS: usize = 3;
/// Most bootstrap replicates of the joint law (each a refit of the law): beyond the data its
/// intervals are dominated by the widening, and the Monte Carlo error of a 95 % percentile from
/// 200 draws is a few per cent of the interval's width.
pub const MAX_JOINT_REPLICATES: usize = 200;

/// Every window a study's data allow, none chosen beforehand: the runs of the last `b`
/// budgets for every `b` from [`MIN_TRAINING_BUDGETS`] up, or of every budget, crossed with the
/// runs within `h` sizes of each budget's lowest loss for every `h` from 1 until the window
/// holds every run, or every run. The backtest over the budgets chooses among them.
pub fn windows(data: &IsoflopData, groups: &[Vec<usize>]) -> Vec<Window> {
    let widest = groups
        .iter()
        .map(|rows| {
            let points = super::profile(data, rows);
            let lowest = (0..points.len())
                .min_by(|&a, &b| points[a].1.total_cmp(&points[b].1))
                .unwrap_or(0);
            lowest.max(points.len().saturating_sub(lowest + 1))
        })
        .max()
        .unwrap_or(0);
    let budgets = (MIN_TRAINING_BUDGETS..groups.len()).map(Some).chain([None]);
    let halves: Vec<Option<usize>> = (1..widest).map(Some).chain([None]).collect();
    budgets
        .flat_map(|b| {
            halves.iter().map(move |&h| Window {
                budgets: b,
                half: h,
            })
        })
        .collect()
}

/// A candidate's score in the backtest over the budgets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "IsoflopCandidateScore")]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MethodChoice {
    pub method: Method,
    pub chosen: Candidate,
    /// Training sizes (in budgets) of the origins compared, and the units scored.
    pub origins: Vec<usize>,
    pub units: usize,
    /// How far ahead each origin predicted: the requested budgets' decades beyond the data.
    pub horizon_decades: f64,
    /// The best joint window's mean |ln D* error| less the profiles', and that difference's
    /// standard error over the units (`auto` only; absent with fewer than two units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
    pub scores: Vec<CandidateScore>,
    pub reason: String,
}

/// The joint law's predictions: its fit and how its intervals were widened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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

/// ln N*, ln D*, ln loss at every budget from an origin's first held-out one on (None where
/// a fit failed).
type Predicted = Option<Vec<[f64; 3]>>;

/// The study's budgets, their own minima, and each (origin, runs) fit made once: a window
/// that holds the same runs as another at an origin is the same fit there.
struct Study<'a> {
    data: &'a IsoflopData,
    groups: &'a [Vec<usize>],
    budgets: Vec<f64>,
    observed: Vec<Option<[f64; 3]>>,
    settings: &'a IsoflopSettings,
    joint: RefCell<HashMap<(usize, Vec<usize>), Predicted>>,
    profiles: RefCell<HashMap<usize, Predicted>>,
}

impl Study<'_> {
    /// `candidate` trained on the smallest `k` budgets: its predictions at budgets `k..`.
    fn predicted(&self, candidate: Candidate, k: usize) -> Predicted {
        let targets = &self.budgets[k..];
        match candidate {
            Candidate::Profiles => {
                if let Some(p) = self.profiles.borrow().get(&k) {
                    return p.clone();
                }
                let rows: Vec<usize> = self.groups[..k].iter().flatten().copied().collect();
                let p = predict(candidate, &subset(self.data, &rows), targets, self.settings);
                self.profiles.borrow_mut().insert(k, p.clone());
                p
            }
            Candidate::Joint(window) => {
                let key = (k, window.rows(self.data, &self.groups[..k]));
                if let Some(p) = self.joint.borrow().get(&key) {
                    return p.clone();
                }
                let train = subset(self.data, &key.1);
                let p = predict(Candidate::Joint(ALL), &train, targets, self.settings);
                self.joint.borrow_mut().insert(key, p.clone());
                p
            }
        }
    }

    /// `candidate` trained on the smallest `k` budgets, scored on the `held` budgets (None
    /// when it fails to predict them).
    fn units(&self, candidate: Candidate, k: usize, held: &[usize]) -> Option<Vec<Unit>> {
        if held.is_empty() {
            return Some(Vec::new());
        }
        let predicted = self.predicted(candidate, k)?;
        let origin = self.budgets[k - 1];
        Some(
            held.iter()
                .map(|&j| {
                    let o = self.observed[j].expect("held-out budgets have a minimum");
                    let p = predicted[j - k];
                    Unit {
                        error: [0, 1, 2].map(|q| o[q] - p[q]),
                        distance: (self.budgets[j] / origin).log10().max(1e-9),
                    }
                })
                .collect(),
        )
    }

    /// The budgets with a minimum after the smallest `k`, within `horizon` decades of the
    /// origin's largest (at least the first of them).
    fn held(&self, k: usize, horizon: f64) -> Vec<usize> {
        let origin = self.budgets[k - 1];
        let slack = (1.0 + self.settings.tolerance).log10();
        let with_minimum = (k..self.groups.len()).filter(|&j| self.observed[j].is_some());
        with_minimum
            .enumerate()
            .filter(|&(i, j)| i == 0 || (self.budgets[j] / origin).log10() <= horizon + slack)
            .map(|(_, j)| j)
            .collect()
    }

    /// How far beyond the largest budget with a minimum the requested budgets lie, in decades.
    fn horizon(&self) -> f64 {
        let largest = self
            .budgets
            .iter()
            .zip(&self.observed)
            .filter(|(_, o)| o.is_some())
            .map(|(c, _)| *c)
            .fold(0.0, f64::max);
        let furthest = self.settings.predict_at.iter().copied().fold(0.0, f64::max);
        (furthest / largest).log10().max(0.0)
    }
}

/// Every run of the budgets given.
const ALL: Window = Window {
    budgets: None,
    half: None,
};

/// ln N*, ln D*, ln loss at `targets` by `candidate` trained on `train` (no intervals).
fn predict(
    candidate: Candidate,
    train: &IsoflopData,
    targets: &[f64],
    settings: &IsoflopSettings,
) -> Predicted {
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

/// A candidate's |ln D* error| at every (origin, held-out budget) unit, None at the units of
/// an origin where it failed to predict.
fn errors(study: &Study, candidate: Candidate, held: &[(usize, Vec<usize>)]) -> Vec<Option<f64>> {
    let mut out = Vec::new();
    for (k, budgets) in held {
        let units = match study.settings.interrupt.is_interrupted() {
            true => None,
            false => study.units(candidate, *k, budgets),
        };
        match units {
            Some(units) => out.extend(units.iter().map(|u| Some(u.error[1].abs()))),
            None => out.extend(budgets.iter().map(|_| None)),
        }
    }
    out
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The backtest over the budgets (module doc): every candidate's mean |ln D* error|, then the
/// choice.
fn choose(study: &Study, method: Method, windows: &[Window]) -> MethodChoice {
    let m = study.groups.len();
    let horizon = study.horizon();
    let origins: Vec<usize> = (MIN_TRAINING_BUDGETS..m).collect();
    let held: Vec<(usize, Vec<usize>)> = origins
        .iter()
        .map(|&k| (k, study.held(k, horizon)))
        .collect();
    let units = held.iter().map(|h| h.1.len()).sum();
    let mut choice = MethodChoice {
        method,
        chosen: Candidate::Profiles,
        origins,
        units,
        horizon_decades: horizon,
        difference: None,
        standard_error: None,
        scores: Vec::new(),
        reason: String::new(),
    };
    let mut scored: Vec<(Window, Vec<f64>)> = Vec::new();
    let mut profiles = Vec::new();
    let joint = windows.iter().map(|&w| Candidate::Joint(w));
    for candidate in std::iter::once(Candidate::Profiles)
        .filter(|_| method == Method::Auto)
        .chain(joint)
    {
        let found = errors(study, candidate, &held);
        let predicted: Vec<f64> = found.iter().flatten().copied().collect();
        choice.scores.push(CandidateScore {
            candidate,
            mean_abs_ln_error_d: (!predicted.is_empty()).then(|| mean(&predicted)),
        });
        match candidate {
            Candidate::Profiles => profiles = found,
            // A window is scored only when it predicted every unit.
            Candidate::Joint(w) if predicted.len() == found.len() && !found.is_empty() => {
                scored.push((w, predicted))
            }
            Candidate::Joint(_) => {}
        }
    }
    let runs = |w: Window| w.rows(study.data, study.groups).len();
    let best = largest_within_a_standard_error(&scored, runs);
    (choice.chosen, choice.reason) = match (method, best) {
        (_, None) => fallback(method),
        (Method::Joint, Some((w, e, why))) => {
            (Candidate::Joint(w), best_window(w, &e, why, &choice))
        }
        (_, Some((w, e, _))) => one_standard_error(Candidate::Joint(w), &e, &profiles, &mut choice),
    };
    choice
}

/// The joint window: of the windows whose mean |ln D* error| is within one standard error of
/// the smallest (that window's errors' sd/√n), the one holding the most runs (the
/// one-standard-error rule, Breiman et al. 1984 §3.4.3, Hastie et al. 2009 §7.10: a smaller
/// window's lower score is often its selection's luck, and more runs pin the law down); with
/// one held-out budget, no standard error: the window with the most runs.
fn largest_within_a_standard_error(
    scored: &[(Window, Vec<f64>)],
    runs: impl Fn(Window) -> usize,
) -> Option<(Window, Vec<f64>, String)> {
    let (best, errors) = scored
        .iter()
        .min_by(|a, b| mean(&a.1).total_cmp(&mean(&b.1)))?;
    let se = sample_std(errors).map(|sd| sd / (errors.len() as f64).sqrt());
    let bound = mean(errors) + se.unwrap_or(f64::INFINITY);
    let (window, chosen) = scored
        .iter()
        .filter(|(_, e)| mean(e) <= bound)
        .max_by(|a, b| {
            runs(a.0)
                .cmp(&runs(b.0))
                .then(mean(&b.1).total_cmp(&mean(&a.1)))
        })?;
    let why = match se {
        Some(se) => format!(
            "the window with the most runs whose mean |ln D* error| is within one standard error ({se:.4}) of the smallest ({:.4}, {})",
            mean(errors),
            best.describe()
        ),
        None => "one held-out budget gives no standard error: the window with the most runs".into(),
    };
    Some((*window, chosen.clone(), why))
}

fn best_window(w: Window, errors: &[f64], why: String, choice: &MethodChoice) -> String {
    format!(
        "mean |ln D* error| {:.4} over {} held-out budgets of {} rolling origins, {why}: the joint law fitted to {}",
        mean(errors),
        choice.units,
        choice.origins.len(),
        w.describe()
    )
}

/// `auto`: the best joint window replaces the per-budget minima only when its mean |ln D*
/// error| is lower by more than one standard error of the paired difference over the units
/// (the one-standard-error rule, Breiman et al. 1984 §3.4.3; Hastie, Tibshirani & Friedman
/// 2009 §7.10): the best of many windows looks better than it is, and the minima are the
/// simpler, established method.
fn one_standard_error(
    c: Candidate,
    joint: &[f64],
    profiles: &[Option<f64>],
    choice: &mut MethodChoice,
) -> (Candidate, String) {
    // Paired over the units the minima predicted (an origin with fewer than two minima has
    // no line through them).
    let (joint, profiles): (Vec<f64>, Vec<f64>) = joint
        .iter()
        .zip(profiles)
        .filter_map(|(&j, p)| Some((j, (*p)?)))
        .unzip();
    let d: Vec<f64> = joint.iter().zip(&profiles).map(|(j, p)| j - p).collect();
    let Some(sd) = sample_std(&d) else {
        return (
            Candidate::Profiles,
            format!(
                "{} held-out budget(s) predicted by both: too few for the standard error a choice needs, so the per-budget minima",
                d.len()
            ),
        );
    };
    let (diff, se) = (mean(&d), sd / (d.len() as f64).sqrt());
    (choice.difference, choice.standard_error) = (Some(diff), Some(se));
    let scores = format!(
        "over {} held-out budgets of {} rolling origins, the best joint window ({}) has mean |ln D* error| {:.4} against the per-budget minima's {:.4}: a difference of {:.4}, standard error {:.4}",
        d.len(),
        choice.origins.len(),
        c.describe(),
        mean(&joint),
        mean(&profiles),
        diff,
        se
    );
    if diff < -se {
        (
            c,
            format!(
                "{scores}; lower by more than one standard error: {}",
                c.describe()
            ),
        )
    } else {
        (
            Candidate::Profiles,
            format!("{scores}; not lower by more than one standard error: the per-budget minima"),
        )
    }
}

/// Without a comparison: the profiles (`auto`), or the joint law on every run (`joint`).
fn fallback(method: Method) -> (Candidate, String) {
    let why = "no joint window predicted every held-out budget with a minimum";
    match method {
        Method::Joint => (
            Candidate::Joint(ALL),
            format!("{why}: the joint law on every run"),
        ),
        _ => (Candidate::Profiles, format!("{why}: the per-budget minima")),
    }
}

/// The widening τ of the joint law in `window` from every origin of at least
/// [`MIN_TRAINING_BUDGETS`] budgets, predicting every larger budget with a minimum (the
/// profiles' scheme, `forecast.rs`; the fits are the backtest's own).
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
    for k in MIN_TRAINING_BUDGETS..m {
        if study.settings.interrupt.is_interrupted() {
            break;
        }
        let held: Vec<usize> = (k..m).filter(|&j| study.observed[j].is_some()).collect();
        if let Some(found) = study.units(Candidate::Joint(window), k, &held) {
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

/// The rows of each joint-law fit the backtest over the budgets of `data` makes (every
/// window at every origin, a window holding the same runs as another at an origin counted
/// once), then the final fit's on every run: what the work estimate counts before spending.
pub fn joint_fit_rows(data: &IsoflopData, tolerance: f64) -> Vec<usize> {
    let groups = super::group_by_budget(&data.compute, tolerance);
    let mut seen = std::collections::HashSet::new();
    for window in windows(data, &groups) {
        for k in MIN_TRAINING_BUDGETS..groups.len() {
            seen.insert((k, window.rows(data, &groups[..k])));
        }
    }
    let mut rows: Vec<usize> = seen.into_iter().map(|(_, r)| r.len()).collect();
    rows.push(data.loss.len());
    rows
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
        joint: RefCell::default(),
        profiles: RefCell::default(),
    };
    let choice = choose(&study, settings.method, &windows(data, groups));
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
        assert_eq!(Method::default(), Method::Profiles);
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
            method: Method::Joint,
            ..IsoflopSettings::default()
        };
        let result = isoflop(&data, &settings).unwrap();
        let choice = result.method_choice.as_ref().unwrap();
        assert!(matches!(choice.chosen, Candidate::Joint(_)), "{choice:?}");
        // Every window the data allow was scored: the last 3 to 6 budgets or all, crossed with
        // each budget's runs within 1, 2, ... sizes of its lowest loss or all.
        let groups = super::super::group_by_budget(&data.compute, 1e-3);
        let all = windows(&data, &groups);
        assert_eq!(all.len(), choice.scores.len());
        assert!(all.contains(&Window {
            budgets: Some(3),
            half: Some(1)
        }));
        assert!(all.contains(&ALL));
        assert_eq!(result.profile_predictions.len(), 1);
        let predicted = result.predictions[0].n.value;
        assert!(
            (predicted / n_star).ln().abs() < 1e-3,
            "{predicted:e} {n_star:e}"
        );
    }

    fn choice() -> MethodChoice {
        MethodChoice {
            method: Method::Auto,
            chosen: Candidate::Profiles,
            origins: vec![3, 4, 5],
            units: 0,
            horizon_decades: 0.5,
            difference: None,
            standard_error: None,
            scores: Vec::new(),
            reason: String::new(),
        }
    }

    /// `auto` takes the best joint window only when it is lower than the per-budget minima by
    /// more than one standard error of the paired difference, and keeps the minima with one
    /// held-out budget (no standard error).
    #[test]
    fn auto_needs_the_joint_law_better_by_a_standard_error() {
        let joint = Candidate::Joint(ALL);
        let profiles = [0.10, 0.12, 0.08, 0.11];
        let clear = [0.05, 0.06, 0.04, 0.05];
        let (chosen, reason) =
            one_standard_error(joint, &clear, &profiles.map(Some), &mut choice());
        assert_eq!(chosen, joint, "{reason}");
        let noisy = [0.02, 0.20, 0.01, 0.15];
        let mut c = choice();
        let (chosen, reason) = one_standard_error(joint, &noisy, &profiles.map(Some), &mut c);
        assert_eq!(chosen, Candidate::Profiles, "{reason}");
        let (d, se) = (c.difference.unwrap(), c.standard_error.unwrap());
        assert!(d < 0.0 && -d <= se, "{d} {se}");
        assert!(
            reason.contains("not lower by more than one standard error"),
            "{reason}"
        );
        let (chosen, reason) =
            one_standard_error(joint, &[0.0, 0.1], &[Some(0.5), None], &mut choice());
        assert_eq!(chosen, Candidate::Profiles, "{reason}");
    }
}
