//! The frontier over budgets (or target losses): the settings checked and turned into a
//! problem, every held combination solved, the exponents of N* ∝ C^a and D* ∝ C^b, references
//! without inference, and percentile intervals from bootstrap draws.

use super::*;
use crate::error::short_number;

/// Every combination of the held variables' values, as (variable index, value) lists.
pub(super) fn held_combinations(
    law: &Law,
    held: &BTreeMap<String, Vec<f64>>,
) -> Vec<Vec<(usize, f64)>> {
    let mut combinations: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    for (name, values) in held {
        let i = law.variable_index(name).expect("checked by roles()");
        combinations = combinations
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut next = c.clone();
                    next.push((i, *v));
                    next
                })
            })
            .collect();
    }
    combinations
}

/// The problem for one law and its settings: the roles of N and D and every combination of
/// held values.
pub(super) struct Problem<'a> {
    pub(super) law: &'a Law,
    pub(super) n: usize,
    pub(super) d: usize,
    pub(super) combinations: Vec<Vec<(usize, f64)>>,
    pub(super) settings: &'a AllocationSettings,
    pub(super) closed: bool,
}

impl Problem<'_> {
    pub(super) fn roles(&self, held: &[(usize, f64)]) -> Roles<'_> {
        Roles {
            law: self.law,
            n: self.n,
            d: self.d,
            held: held.to_vec(),
            settings: self.settings,
        }
    }

    /// The best allocation over the held combinations: lowest loss for a budget, least
    /// compute for a target loss. A combination without an optimum is skipped; one whose
    /// optimum lies beyond the range searched is an error (it might be the best).
    pub(super) fn solve(&self, params: &[f64], goal: Goal) -> Result<Allocation, Unsolved> {
        let score = |a: &Allocation| match goal {
            Goal::Budget(_) => a.loss,
            Goal::Loss(_) => a.budget,
        };
        let mut best: Option<Allocation> = None;
        for held in &self.combinations {
            let mut allocation = match allocation_at(&self.roles(held), params, goal, self.closed) {
                Ok(allocation) => allocation,
                Err(Unsolved::NoOptimum) => continue,
                Err(edge) => return Err(edge),
            };
            if self.combinations.len() > 1 {
                allocation.chosen = held
                    .iter()
                    .map(|(i, v)| (self.law.variables[*i].clone(), *v))
                    .collect();
            }
            if best.as_ref().is_none_or(|b| score(&allocation) < score(b)) {
                best = Some(allocation);
            }
        }
        best.ok_or(Unsolved::NoOptimum)
    }

    pub(super) fn feasible(&self, params: &[f64], goal: Goal) -> bool {
        self.combinations
            .iter()
            .any(|held| self.roles(held).log_n_range(params, goal).is_some())
    }
}

/// Least-squares slope of log y on log x.
pub(super) fn log_slope(x: &[f64], y: &[f64]) -> Option<f64> {
    let points: Vec<(f64, f64)> = x.iter().zip(y).map(|(a, b)| (a.ln(), b.ln())).collect();
    least_squares_line(&points).map(|(slope, _)| slope)
}

/// The frontier's exponents; None with fewer than two points, with inference (the frontier
/// is then not a power law) or when a cap holds any allocation at its bound.
pub(super) fn exponents(allocations: &[Allocation]) -> Option<(f64, f64)> {
    let bent = |a: &Allocation| a.binding.is_some() || a.inference_flops.is_some();
    if allocations.len() < 2 || allocations.iter().any(bent) {
        return None;
    }
    let c: Vec<f64> = allocations.iter().map(|a| a.budget).collect();
    let n: Vec<f64> = allocations.iter().map(|a| a.n).collect();
    let d: Vec<f64> = allocations.iter().map(|a| a.d).collect();
    Some((log_slope(&c, &n)?, log_slope(&c, &d)?))
}

/// The compute-optimal frontier of `law` with `params` at every budget (or target loss).
pub fn optimal(law: &Law, params: &[f64], settings: &AllocationSettings) -> Result<Frontier> {
    let goals = goals(settings)?;
    let problem = problem(law, settings)?;
    check_feasible(&problem, params, &goals)?;
    // Once interrupted, a solve stops between goals and its allocations are discarded.
    let stop = &settings.interrupt;
    let solve = |p: &[f64]| -> Result<Vec<Allocation>, (Goal, Unsolved)> {
        goals
            .iter()
            .take_while(|_| !stop.is_interrupted())
            .map(|&goal| problem.solve(p, goal).map_err(|u| (goal, u)))
            .collect()
    };
    let allocations = solve(params);
    stop.check()?;
    let mut allocations = allocations.map_err(|(goal, why)| match why {
        Unsolved::NoOptimum => no_optimum(goal, stalled(&problem, params, goal)),
        why => unsolved(goal, why),
    })?;
    if settings.inference_tokens > 0.0 && !settings.target_losses.is_empty() {
        add_references(law, params, settings, &mut allocations)?;
    }
    let mut exponents = exponents(&allocations).map(|(a, b)| Exponents {
        a,
        b,
        ci: BTreeMap::new(),
    });
    // Draws are independent: solved in parallel, collected in order (results do not depend
    // on the thread count), each reduced to the quantities its intervals read.
    let used = band_draws(&settings.draws, goals.len())?;
    let draws: Vec<DrawRow> = used
        .par_iter()
        .filter_map(|d| solve(d).ok().map(|a| DrawRow::of(&a)))
        .collect();
    stop.check()?;
    if !draws.is_empty() {
        let fixed = if settings.target_losses.is_empty() {
            "budget"
        } else {
            "loss"
        };
        add_row_intervals(
            &mut allocations,
            exponents.as_mut(),
            &draws,
            settings.level,
            fixed,
        );
    }
    let (held, choices) = split_held(&settings.held);
    Ok(Frontier {
        flops: settings.flops.text.clone(),
        method: if problem.closed && settings.flops.linear_factor.is_some() {
            "closed form".into()
        } else {
            "numerical".into()
        },
        goal: if settings.target_losses.is_empty() {
            "budget".into()
        } else {
            "target_loss".into()
        },
        inference_tokens: (settings.inference_tokens > 0.0).then_some(settings.inference_tokens),
        held,
        choices,
        total_params: settings.total_params.as_ref().map(|f| f.text.clone()),
        allocations,
        exponents,
        draws: draws.len(),
        level: (!draws.is_empty()).then_some(settings.level),
        prediction_intervals: None,
        fit_caveats: Vec::new(),
    })
}

/// Every goal has an allocation within the caps, else the error naming the first that has not.
fn check_feasible(problem: &Problem, params: &[f64], goals: &[Goal]) -> Result<()> {
    let Some(goal) = goals.iter().find(|g| !problem.feasible(params, **g)) else {
        return Ok(());
    };
    Err(Error::settings(match goal {
        Goal::Budget(c) => format!(
            "at the budget {} no allocation meets the caps (the caps and the inference tokens leave no N); raise a cap or the budget",
            short_number(*c)
        ),
        Goal::Loss(l) => format!(
            "no allocation reaches the loss {} within the caps; raise a cap or the target loss",
            short_number(*l)
        ),
    }))
}

/// The error for a goal without an allocation, naming the range searched.
pub(super) fn unsolved(goal: Goal, why: Unsolved) -> Error {
    let decades = |x: f64| format!("1e{}", (x / std::f64::consts::LN_10).round());
    let (lo, hi) = WIDEST_LOG_N;
    let widest = format!("N from {} to {}", decades(lo), decades(hi));
    match (goal, why) {
        (Goal::Budget(c), Unsolved::NoOptimum) => Error::settings(format!(
            "at the budget {} the law has no finite optimum along the budget's constraint ({widest}); check the law and the FLOPs formula",
            short_number(c)
        )),
        (Goal::Loss(l), Unsolved::NoOptimum) => Error::settings(format!(
            "the law does not reach the loss {} for any {widest} and D from {} to {} (is the target below the law's floor?); raise the target loss",
            short_number(l),
            decades(LOG_D_RANGE.0),
            decades(LOG_D_RANGE.1)
        )),
        (goal, Unsolved::Flat { log_n }) => Error::settings(format!(
            "{} {} no longer changes with N from N = {:.3e} on (to machine precision), so the search cannot place an optimum; check the law's parameters, or cap the model size or the tokens",
            goal_words(goal).0,
            goal_words(goal).1,
            log_n.exp()
        )),
        (goal, Unsolved::AtEdge { log_n, lo, hi }) => {
            let (what, falls) = goal_words(goal);
            Error::settings(format!(
                "{what} {falls} still falls at N = {:.3e}, the end of the range searched (N from {:.3e} to {:.3e}): the optimum lies beyond it, if there is one; check the law's parameters (does {falls} rise again as N moves on?), or cap the model size or the tokens",
                log_n.exp(),
                lo.exp(),
                hi.exp()
            ))
        }
    }
}

/// A variable the law's loss does not fall with (at a point on the goal's scale, the first
/// held combination), and the parameters whose change would make it fall: why a law has no
/// optimum, in its own terms (an exponent held at 0, say).
fn stalled(problem: &Problem, params: &[f64], goal: Goal) -> Option<String> {
    let roles = problem.roles(problem.combinations.first()?);
    let n0 = match goal {
        Goal::Budget(c) => (c / 6.0).sqrt(),
        Goal::Loss(_) => 1e9,
    };
    let d0 = 20.0 * n0;
    let falls = |p: &[f64], along_n: bool| {
        let (n1, d1) = if along_n {
            (10.0 * n0, d0)
        } else {
            (n0, 10.0 * d0)
        };
        roles.loss(p, n1, d1) < roles.loss(p, n0, d0)
    };
    let along_n = if !falls(params, true) {
        true
    } else if !falls(params, false) {
        false
    } else {
        return None;
    };
    let movers: Vec<String> = (0..params.len())
        .filter(|&j| {
            let step = 0.5 * params[j].abs() + 0.1;
            [step, -step].iter().any(|s| {
                let mut moved = params.to_vec();
                moved[j] += s;
                falls(&moved, along_n)
            })
        })
        .map(|j| {
            format!(
                "{} = {}",
                problem.law.params[j].name,
                short_number(params[j])
            )
        })
        .collect();
    let (variable, value) = if along_n { ("N", n0) } else { ("D", d0) };
    Some(format!(
        "the law's loss does not fall as {variable} grows (from {variable} = {value:.2e}){}",
        if movers.is_empty() {
            String::new()
        } else {
            format!("; the parameters that set its fall: {}", movers.join(", "))
        }
    ))
}

/// The error for a goal without a finite optimum, with why when the law shows it.
fn no_optimum(goal: Goal, stalled: Option<String>) -> Error {
    let Some(why) = stalled else {
        return unsolved(goal, Unsolved::NoOptimum);
    };
    Error::settings(format!(
        "{} the law has no finite optimum: {why}; check the law's parameters",
        goal_words(goal).0
    ))
}

/// "at the budget C" and "the loss", or "for the loss L" and "the compute".
pub(super) fn goal_words(goal: Goal) -> (String, &'static str) {
    match goal {
        Goal::Budget(c) => (format!("at the budget {}", short_number(c)), "the loss"),
        Goal::Loss(l) => (format!("for the loss {}", short_number(l)), "the compute"),
    }
}

/// Held variables with one value, and those with several (choices).
pub(crate) fn split_held(
    held: &BTreeMap<String, Vec<f64>>,
) -> (BTreeMap<String, f64>, BTreeMap<String, Vec<f64>>) {
    let single = held
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(k, v)| (k.clone(), v[0]))
        .collect();
    let several = held
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (single, several)
}

/// The inference-blind optimum at each target loss (least training compute), and what the
/// inference-aware allocation saves over the run's life relative to it.
pub(super) fn add_references(
    law: &Law,
    params: &[f64],
    settings: &AllocationSettings,
    allocations: &mut [Allocation],
) -> Result<()> {
    let blind = AllocationSettings {
        inference_tokens: 0.0,
        draws: Vec::new(),
        ..settings.clone()
    };
    let reference = optimal(law, params, &blind)?;
    let t = settings.inference_tokens;
    for (allocation, r) in allocations.iter_mut().zip(reference.allocations) {
        let budget = r.budget + 2.0 * r.n * t;
        allocation.reference = Some(Reference {
            n: r.n,
            d: r.d,
            budget,
            savings: 1.0 - allocation.budget / budget,
        });
    }
    Ok(())
}

pub(super) fn goals(settings: &AllocationSettings) -> Result<Vec<Goal>> {
    let valid = |v: &f64| *v > 0.0 && v.is_finite();
    match (
        settings.budgets.is_empty(),
        settings.target_losses.is_empty(),
    ) {
        (false, true) => match settings.budgets.iter().find(|c| !valid(c)) {
            Some(bad) => Err(Error::setting(
                Setting::Budget,
                text![
                    Setting::Budget.number(short_number(*bad)),
                    ": a budget is a positive number of FLOPs"
                ],
            )),
            None => Ok(settings.budgets.iter().map(|c| Goal::Budget(*c)).collect()),
        },
        (true, false) => match settings.target_losses.iter().find(|l| !valid(l)) {
            Some(bad) => Err(Error::setting(
                Setting::TargetLoss,
                text![
                    Setting::TargetLoss.number(short_number(*bad)),
                    ": give a positive loss the law can reach"
                ],
            )),
            None => Ok(settings
                .target_losses
                .iter()
                .map(|l| Goal::Loss(*l))
                .collect()),
        },
        _ => Err(Error::setting(
            Setting::TargetLoss,
            text![
                "give either budgets (",
                Setting::Budget.named(),
                ") or target losses (",
                Setting::TargetLoss.named(),
                "), not both"
            ],
        )),
    }
}

pub(super) fn problem<'a>(law: &'a Law, settings: &'a AllocationSettings) -> Result<Problem<'a>> {
    let index = |name: &str| {
        law.variable_index(name).ok_or_else(|| {
            Error::settings(format!(
                "the law '{}' has no variable {name}; allocation needs N (parameters) and D (tokens), its variables are {}",
                law.label(),
                law.variables.join(", ")
            ))
        })
    };
    let (n, d) = (index("N")?, index("D")?);
    check_held(law, &settings.held)?;
    for (option, cap) in [
        (Setting::MaxParams, settings.max_params),
        (Setting::MaxActive, settings.max_active),
        (Setting::MaxTokens, settings.max_tokens),
    ] {
        if let Some(cap) = cap.filter(|c| !(*c > 0.0 && c.is_finite())) {
            return Err(Error::setting(
                option,
                text![option.number(short_number(cap)), ": give a positive number"],
            ));
        }
    }
    let t = settings.inference_tokens;
    if !(t >= 0.0 && t.is_finite()) {
        return Err(Error::setting(
            Setting::InferenceTokens,
            text![
                Setting::InferenceTokens.number(short_number(t)),
                ": give a number of tokens >= 0"
            ],
        ));
    }
    Ok(Problem {
        law,
        n,
        d,
        combinations: held_combinations(law, &settings.held),
        settings,
        closed: law.label() == "chinchilla" && t == 0.0,
    })
}

/// Every other variable of the law needs values, and every held name must be one of them.
pub(super) fn check_held(law: &Law, held: &BTreeMap<String, Vec<f64>>) -> Result<()> {
    for variable in law.variables.iter().filter(|v| *v != "N" && *v != "D") {
        match held.get(variable) {
            None => {
                return Err(Error::setting(
                    Setting::Set,
                    text![
                        format!(
                            "the law '{}' also reads {variable}: give its value with ",
                            law.label()
                        ),
                        Setting::Set.entry_number(variable, "VALUE"),
                        " (or several: ",
                        Setting::Set.entry_number(variable, "1,8,64"),
                        " to optimise over them)"
                    ],
                ))
            }
            Some(values) if values.is_empty() || values.iter().any(|v| !v.is_finite()) => {
                return Err(Error::setting(
                    Setting::Set,
                    text![
                        Setting::Set.key(variable),
                        ": give one or more finite values"
                    ],
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(name) = held
        .keys()
        .find(|k| law.variable_index(k).is_none() || *k == "N" || *k == "D")
    {
        let others: Vec<&str> = law
            .variables
            .iter()
            .filter(|v| *v != "N" && *v != "D")
            .map(String::as_str)
            .collect();
        return Err(Error::setting(
            Setting::Set,
            text![
                Setting::Set.key(name.as_str()),
                format!(
                    ": not one of the law's other variables ({})",
                    others.join(", ")
                )
            ],
        ));
    }
    Ok(())
}

/// The draws the intervals use: the first [`crate::limits::MAX_BAND_DRAWS`] (bootstrap draws
/// are independent, so these are a random subsample of them); refused when they and the goals
/// are more solves than [`crate::limits::MAX_BAND_SOLVES`].
fn band_draws(draws: &[Vec<f64>], goals: usize) -> Result<&[Vec<f64>]> {
    use crate::limits::{thousands, MAX_BAND_DRAWS, MAX_BAND_SOLVES};
    let used = &draws[..draws.len().min(MAX_BAND_DRAWS)];
    let solves = used.len().saturating_mul(goals);
    if solves <= MAX_BAND_SOLVES {
        return Ok(used);
    }
    Err(Error::setting(
        Setting::Budget,
        text![
            format!(
                "{} budgets or target losses × {} bootstrap draws are {} allocations to solve \
                 for the intervals, more than the limit of {}: give at most {} ",
                thousands(goals),
                thousands(used.len()),
                thousands(solves),
                thousands(MAX_BAND_SOLVES),
                thousands(MAX_BAND_SOLVES / used.len().max(1))
            ),
            Setting::Budget.named()
        ],
    ))
}

/// One draw's allocations reduced to what the intervals read: N, D, tokens per parameter,
/// loss and budget at each goal, and the frontier's exponents.
struct DrawRow {
    values: Vec<[f64; 5]>,
    exponents: Option<(f64, f64)>,
}

impl DrawRow {
    fn of(allocations: &[Allocation]) -> DrawRow {
        DrawRow {
            values: allocations
                .iter()
                .map(|a| [a.n, a.d, a.tokens_per_param, a.loss, a.budget])
                .collect(),
            exponents: exponents(allocations),
        }
    }
}

/// [`add_intervals`] from the draws' rows: the same percentile intervals over the same values.
fn add_row_intervals(
    allocations: &mut [Allocation],
    exponents: Option<&mut Exponents>,
    draws: &[DrawRow],
    level: f64,
    fixed: &str,
) {
    const NAMES: [&str; 5] = ["N", "D", "tokens_per_param", "loss", "budget"];
    for (i, allocation) in allocations.iter_mut().enumerate() {
        for (q, name) in NAMES.iter().enumerate() {
            // The given quantity (the budget, or the target loss) has no interval.
            if *name != fixed {
                let values = draws.iter().map(|d| d.values[i][q]).collect();
                let interval = percentile_interval(values, level);
                allocation.ci.insert(name.to_string(), interval);
            }
        }
    }
    if let Some(exponents) = exponents {
        let (a, b): (Vec<f64>, Vec<f64>) = draws.iter().filter_map(|d| d.exponents).unzip();
        if !a.is_empty() {
            exponents
                .ci
                .insert("a".into(), percentile_interval(a, level));
            exponents
                .ci
                .insert("b".into(), percentile_interval(b, level));
        }
    }
}

/// Percentile intervals of every allocation quantity over the draws' allocations (`fixed`
/// names the given one, which has none), and of the exponents.
pub(crate) fn add_intervals(
    allocations: &mut [Allocation],
    exponents: Option<&mut Exponents>,
    draws: &[Vec<Allocation>],
    level: f64,
    fixed: &str,
) {
    for (i, allocation) in allocations.iter_mut().enumerate() {
        let pick = |f: fn(&Allocation) -> f64| draws.iter().map(|d| f(&d[i])).collect::<Vec<_>>();
        for (name, values) in [
            ("N", pick(|a| a.n)),
            ("D", pick(|a| a.d)),
            ("tokens_per_param", pick(|a| a.tokens_per_param)),
            ("loss", pick(|a| a.loss)),
            ("budget", pick(|a| a.budget)),
        ] {
            // The given quantity (the budget, or the target loss) has no interval.
            if name != fixed {
                let interval = percentile_interval(values, level);
                allocation.ci.insert(name.to_string(), interval);
            }
        }
    }
    if let Some(exponents) = exponents {
        let (a, b): (Vec<f64>, Vec<f64>) = draws.iter().filter_map(|d| self::exponents(d)).unzip();
        if !a.is_empty() {
            exponents
                .ci
                .insert("a".into(), percentile_interval(a, level));
            exponents
                .ci
                .insert("b".into(), percentile_interval(b, level));
        }
    }
}
