//! The comparison of fitted tracks: compute-optimal frontiers per draw, the pairwise gaps,
//! compute multipliers, win probabilities and crossings, and paired-cell wins.

use super::*;

/// Budgets, the law and the allocation settings: compute-optimal losses and the compute to
/// reach a loss, for any parameter vector.
pub(super) struct Frontiers<'a> {
    pub(super) law: &'a Law,
    pub(super) settings: &'a TrackSettings,
    pub(super) budgets: &'a [f64],
}

impl Frontiers<'_> {
    /// The allocations of `params` at `budgets` or for `target_losses` (one of the two).
    pub(super) fn solve(
        &self,
        params: &[f64],
        budgets: Vec<f64>,
        target_losses: Vec<f64>,
    ) -> Result<Vec<Allocation>> {
        let settings = AllocationSettings {
            budgets,
            target_losses,
            draws: Vec::new(),
            ..self.settings.allocation.clone()
        };
        optimal(self.law, params, &settings).map(|f| f.allocations)
    }

    pub(super) fn allocations(&self, params: &[f64]) -> Result<Vec<Allocation>> {
        if self.budgets.is_empty() {
            return Ok(Vec::new());
        }
        self.solve(params, self.budgets.to_vec(), Vec::new())
    }

    pub(super) fn loss_at(&self, params: &[f64], budget: f64) -> Option<f64> {
        Some(self.solve(params, vec![budget], Vec::new()).ok()?[0].loss)
    }

    /// The least compute at which `params` reaches `loss` (None: never).
    pub(super) fn compute_for(&self, params: &[f64], loss: f64) -> Option<f64> {
        Some(self.solve(params, Vec::new(), vec![loss]).ok()?[0].budget)
    }

    /// Gap, multiplier and its mirror at every budget, for one pair of parameter vectors.
    pub(super) fn compare(&self, a: &[f64], b: &[f64]) -> Vec<PairAt> {
        self.budgets
            .iter()
            .map(|&c| {
                let (la, lb) = (self.loss_at(a, c), self.loss_at(b, c));
                PairAt {
                    loss_a: la,
                    loss_b: lb,
                    multiplier: lb.and_then(|l| self.compute_for(a, l)).map(|x| x / c),
                    track_needs: la.and_then(|l| self.compute_for(b, l)).map(|x| x / c),
                }
            })
            .collect()
    }

    /// The first budget in [1e15, 1e30] where L*_B − L*_A changes sign.
    pub(super) fn crossover(&self, a: &[f64], b: &[f64]) -> Option<f64> {
        let gap = |log_c: f64| {
            let c = log_c.exp();
            Some(self.loss_at(b, c)? - self.loss_at(a, c)?)
        };
        let (lo, hi) = (
            15.0 * std::f64::consts::LN_10,
            30.0 * std::f64::consts::LN_10,
        );
        let steps = 60;
        let mut previous: Option<(f64, f64)> = None;
        for i in 0..=steps {
            let x = lo + (hi - lo) * i as f64 / steps as f64;
            let Some(g) = gap(x) else { continue };
            if let Some((px, pg)) = previous {
                if pg.signum() != g.signum() && pg != 0.0 {
                    let (mut l, mut h) = (px, x);
                    for _ in 0..60 {
                        let mid = 0.5 * (l + h);
                        match gap(mid) {
                            Some(m) if m.signum() == pg.signum() => l = mid,
                            _ => h = mid,
                        }
                    }
                    return Some((0.5 * (l + h)).exp());
                }
            }
            previous = Some((x, g));
        }
        None
    }
}

/// One pair at one budget, for one parameter draw.
#[derive(Clone, Copy)]
pub(super) struct PairAt {
    pub(super) loss_a: Option<f64>,
    pub(super) loss_b: Option<f64>,
    pub(super) multiplier: Option<f64>,
    pub(super) track_needs: Option<f64>,
}

pub(super) fn track_fit(
    law: &Law,
    track: &Track,
    fitted: &Fitted,
    t: usize,
    frontier: &Frontiers,
    settings: &TrackSettings,
) -> Result<TrackFit> {
    let params = &fitted.params[t];
    let level = settings.level;
    let draws: Vec<&Vec<f64>> = fitted.draws.iter().map(|d| &d[t]).collect();
    let track_params = law
        .params
        .iter()
        .enumerate()
        .map(|(p, spec)| TrackParam {
            name: spec.name.clone(),
            value: params[p],
            shared: settings.shared.contains(&spec.name),
            stderr: fitted.stderr[t][p],
            ci: (!draws.is_empty())
                .then(|| percentile_interval(draws.iter().map(|d| d[p]).collect(), level)),
        })
        .collect();
    let mut allocations = frontier
        .allocations(params)
        .map_err(|e| in_track(e, &track.label))?;
    let drawn: Vec<Vec<Allocation>> = draws
        .par_iter()
        .filter_map(|d| frontier.allocations(d).ok())
        .collect();
    if !drawn.is_empty() {
        add_intervals(&mut allocations, None, &drawn, level, "budget");
    }
    let prediction_intervals = if allocations.is_empty() {
        None
    } else {
        let (result, fitted_law, extra) = fitted.predictor.of(t);
        let (held, _) = split_held(&settings.allocation.held);
        let fitted_law = fitted_law.unwrap_or(law);
        let source = predict_allocations(
            result,
            fitted_law,
            law,
            &held,
            &mut allocations,
            &extra,
            level,
        )
        .map_err(|e| in_track(e, &track.label))?;
        Some(IntervalNote::of(result, source, level))
    };
    Ok(TrackFit {
        track: track.label.clone(),
        rows: track.data.target.len(),
        params: track_params,
        objective: fitted.objective[t],
        converged: fitted.converged[t],
        warnings: fitted.warnings[t].clone(),
        allocations,
        prediction_intervals,
    })
}

pub(super) fn estimate(
    value: Option<f64>,
    draws: &[Option<f64>],
    level: f64,
    with_ci: bool,
) -> Estimate {
    let finite: Vec<f64> = draws
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    Estimate {
        value,
        // An interval only when (nearly) every draw has the value.
        ci: (with_ci && !finite.is_empty() && finite.len() * 20 >= draws.len() * 19)
            .then(|| percentile_interval(finite, level)),
    }
}

pub(super) fn pair(
    law: &Law,
    tracks: &[Track],
    fitted: &Fitted,
    a: usize,
    b: usize,
    frontier: &Frontiers,
    settings: &TrackSettings,
) -> Result<PairComparison> {
    let level = settings.level;
    let with_ci = !fitted.draws.is_empty();
    let differences = law
        .params
        .iter()
        .enumerate()
        .filter(|(_, spec)| !settings.shared.contains(&spec.name))
        .map(|(p, spec)| {
            let value = fitted.params[b][p] - fitted.params[a][p];
            let draws: Vec<Option<f64>> = fitted
                .draws
                .iter()
                .map(|d| Some(d[b][p] - d[a][p]))
                .collect();
            (
                spec.name.clone(),
                estimate(Some(value), &draws, level, with_ci),
            )
        })
        .collect();
    let point = frontier.compare(&fitted.params[a], &fitted.params[b]);
    let drawn: Vec<Vec<PairAt>> = fitted
        .draws
        .par_iter()
        .map(|d| frontier.compare(&d[a], &d[b]))
        .collect();
    let budgets = frontier
        .budgets
        .iter()
        .enumerate()
        .map(|(i, &budget)| {
            let at = point[i];
            let column = |f: fn(&PairAt) -> Option<f64>| -> Vec<Option<f64>> {
                drawn.iter().map(|d| f(&d[i])).collect()
            };
            let gap = |p: &PairAt| Some(p.loss_b? - p.loss_a?);
            let gaps = column(gap);
            let better = gaps.iter().flatten().filter(|g| **g < 0.0).count();
            let compared = gaps.iter().flatten().count();
            Ok(BudgetComparison {
                budget,
                loss_baseline: at.loss_a.ok_or_else(|| no_optimum(tracks, a, budget))?,
                loss_track: at.loss_b.ok_or_else(|| no_optimum(tracks, b, budget))?,
                gap: estimate(gap(&at), &gaps, level, with_ci),
                multiplier: estimate(at.multiplier, &column(|p| p.multiplier), level, with_ci),
                track_needs: estimate(at.track_needs, &column(|p| p.track_needs), level, with_ci),
                p_track_better: (compared > 0).then(|| better as f64 / compared as f64),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let crossover = if frontier.budgets.is_empty() {
        None
    } else {
        frontier.crossover(&fitted.params[a], &fitted.params[b])
    };
    Ok(PairComparison {
        baseline: tracks[a].label.clone(),
        track: tracks[b].label.clone(),
        differences,
        budgets,
        crossover,
        cells: cell_wins(&tracks[a].data, &tracks[b].data, settings.cell_tolerance),
    })
}

pub(super) fn no_optimum(tracks: &[Track], t: usize, budget: f64) -> Error {
    Error::fit(format!(
        "track '{}' has no compute-optimal allocation at {} FLOPs",
        tracks[t].label,
        crate::error::short_number(budget)
    ))
}

/// Cells (rows with the same law variables, within the tolerance) of both tracks, and which
/// track's mean loss is lower in each.
pub(super) fn cell_wins(a: &FitData, b: &FitData, tolerance: f64) -> CellWins {
    let (cells_a, cells_b) = (cells(a, tolerance), cells(b, tolerance));
    let mut wins = CellWins {
        shared: 0,
        track_wins: 0,
        baseline_wins: 0,
        ties: 0,
    };
    for (key, loss_a) in &cells_a {
        let Some(loss_b) = cells_b.get(key) else {
            continue;
        };
        wins.shared += 1;
        match loss_b.total_cmp(loss_a) {
            std::cmp::Ordering::Less => wins.track_wins += 1,
            std::cmp::Ordering::Greater => wins.baseline_wins += 1,
            std::cmp::Ordering::Equal => wins.ties += 1,
        }
    }
    wins
}

/// The mean target of each cell, keyed by every variable rounded on a log grid of the
/// tolerance's width.
pub(super) fn cells(data: &FitData, tolerance: f64) -> BTreeMap<Vec<i64>, f64> {
    let step = tolerance.max(1e-12);
    let mut sums: BTreeMap<Vec<i64>, (f64, usize)> = BTreeMap::new();
    for row in 0..data.target.len() {
        let key = data
            .variables
            .iter()
            .map(|column| {
                let x = column[row];
                let scaled = if x > 0.0 { x.ln() } else { x };
                (scaled / step).round() as i64
            })
            .collect();
        let entry = sums.entry(key).or_insert((0.0, 0));
        entry.0 += data.target[row];
        entry.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (sum, count))| (k, sum / count as f64))
        .collect()
}
