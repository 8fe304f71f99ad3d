//! The nonparametric bootstrap of a fit (Efron 1979): resample the rows with replacement, or
//! whole runs when the rows are checkpoints of runs (the cluster bootstrap: checkpoints of one
//! run are not independent, and resampling them one by one makes intervals far too narrow),
//! refit every replicate with the global search, and keep every replicate's parameters, so
//! that every later quantity (predictions, allocations) gets its interval from the same draws.
//! Where the original search found one optimum, a replicate's search starts from it and reruns
//! only the starts that reached none ([`crate::fit::BasinMap`]): it reached the full search's
//! optimum on every replicate tested, at about a fifth of the CPU time on the Chinchilla
//! example; elsewhere it runs the full search.
//!
//! A replicate is a reweighting: row i enters with weight (times drawn) × (its own weight).
//! Replicate r draws from its own stream `Rng::stream(seed, r)` and replicates are collected in
//! order, so the draws are bit-identical for any number of threads.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

pub use super::record::BootstrapSummary;
use crate::error::{Error, Result, Setting, Text};
use crate::fit::{BasinMap, FitData, FitResult, FitSettings};
use crate::law::Law;
use crate::rng::Rng;
use crate::stats::{percentile_interval, sample_std};
use crate::text;

/// What one draw of the bootstrap resamples.
#[derive(Debug, Clone, PartialEq)]
pub enum Resampling {
    /// Rows, independently.
    Rows,
    /// Whole clusters (runs): `ids[row]` is the cluster of each row, named by `column`.
    Clusters { column: String, ids: Vec<usize> },
    /// Rows, independently within each stratum (`ids[row]`, e.g. a track), so that every
    /// replicate keeps each stratum's size.
    Strata { column: String, ids: Vec<usize> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct BootstrapOptions {
    pub replicates: usize,
    /// Confidence level of the percentile intervals, e.g. 0.95.
    pub level: f64,
    pub seed: u64,
    pub resampling: Resampling,
}

/// Refits `options.replicates` resampled copies of `data`. `progress` is called with the number
/// of replicates finished so far (from worker threads).
pub fn bootstrap(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    base: &FitResult,
    options: &BootstrapOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<BootstrapSummary> {
    super::check_level(options.level)?;
    if options.replicates == 0 {
        return Err(Error::setting(
            Setting::Bootstrap,
            text![Setting::Bootstrap.subject(), " needs at least 1 replicate"],
        ));
    }
    crate::limits::check_replicates(options.replicates, options.level)?;
    let units = Units::new(&options.resampling, data.target.len())?;
    // The basins of the original search: each replicate starts from its optima and reruns only
    // the starts that reached none (fit/basins.rs).
    let basins = BasinMap::of(law, data, settings, &base.param_values())?;
    // Replicates run in parallel; each replicate's own search then shares the same pool.
    let replicate_settings = FitSettings {
        threads: None,
        ..settings.clone()
    };
    let done = AtomicUsize::new(0);
    let run = || {
        (0..options.replicates)
            .into_par_iter()
            .map(|r| {
                // Interrupted: skip the rest quickly (the summary is refused below).
                if settings.interrupt.is_interrupted() {
                    return None;
                }
                let counts = units.draw(&mut Rng::stream(options.seed, r as u64));
                let replicate = reweighted(data, &counts);
                let best = basins.fit_best(law, &replicate, &replicate_settings).ok();
                progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                best.filter(|b| b.converged && b.params.iter().all(|p| p.is_finite()))
                    .map(|b| b.params)
            })
            .collect::<Vec<Option<Vec<f64>>>>()
    };
    let outcomes = crate::fit::with_threads(settings.threads, run)?;
    settings.interrupt.check()?;
    let failed = outcomes.iter().filter(|o| o.is_none()).count();
    let (cluster, clusters) = match &options.resampling {
        Resampling::Rows | Resampling::Strata { .. } => (None, None),
        Resampling::Clusters { column, .. } => (Some(column.clone()), Some(units.count)),
    };
    Ok(BootstrapSummary {
        replicates: options.replicates,
        seed: options.seed,
        cluster,
        clusters,
        level: options.level,
        failed,
        draws: outcomes.into_iter().flatten().collect(),
    })
}

/// The resampling units: `members[u]` are the rows of unit u, and each stratum lists its
/// units (one stratum of every unit, except under `Strata`).
struct Units {
    count: usize,
    members: Vec<Vec<usize>>,
    strata: Vec<Vec<usize>>,
    rows: usize,
}

impl Units {
    fn new(resampling: &Resampling, rows: usize) -> Result<Units> {
        let rows_as_units = || (0..rows).map(|r| vec![r]).collect::<Vec<_>>();
        let (members, strata) = match resampling {
            Resampling::Rows => (rows_as_units(), vec![(0..rows).collect()]),
            Resampling::Clusters { column, ids } => {
                let members = groups(column, ids, rows)?;
                if members.len() < 2 {
                    return Err(Error::setting(
                        Setting::Cluster,
                        text![
                            format!(
                                "the cluster column '{column}' names {} run(s); resampling runs \
                                 needs at least 2 (drop ",
                                members.len()
                            ),
                            Setting::Cluster.subject(),
                            " to resample rows)"
                        ],
                    ));
                }
                let all = (0..members.len()).collect();
                (members, vec![all])
            }
            Resampling::Strata { column, ids } => (rows_as_units(), groups(column, ids, rows)?),
        };
        Ok(Units {
            count: members.len(),
            members,
            strata,
            rows,
        })
    }

    /// How many times each row is drawn in one replicate.
    fn draw(&self, rng: &mut Rng) -> Vec<f64> {
        let mut counts = vec![0.0; self.rows];
        for stratum in &self.strata {
            for _ in 0..stratum.len() {
                for &row in &self.members[stratum[rng.below(stratum.len())]] {
                    counts[row] += 1.0;
                }
            }
        }
        counts
    }
}

/// The rows of each group id (empty ids dropped).
fn groups(column: &str, ids: &[usize], rows: usize) -> Result<Vec<Vec<usize>>> {
    if ids.len() != rows {
        return Err(Error::settings(format!(
            "the column '{column}' has {} values for {rows} rows",
            ids.len()
        )));
    }
    let count = ids.iter().max().map_or(0, |m| m + 1);
    let mut members = vec![Vec::new(); count];
    for (row, &id) in ids.iter().enumerate() {
        members[id].push(row);
    }
    members.retain(|m| !m.is_empty());
    Ok(members)
}

/// The rows drawn at least once, each weighted by its count (times its own weight).
fn reweighted(data: &FitData, counts: &[f64]) -> FitData {
    let kept: Vec<usize> = (0..counts.len()).filter(|&i| counts[i] > 0.0).collect();
    let pick = |column: &[f64]| kept.iter().map(|&i| column[i]).collect::<Vec<f64>>();
    let own = |i: usize| data.weights.as_ref().map_or(1.0, |w| w[i]);
    FitData {
        variables: data.variables.iter().map(|c| pick(c)).collect(),
        target: pick(&data.target),
        weights: Some(kept.iter().map(|&i| counts[i] * own(i)).collect()),
        trials: data.trials.as_deref().map(pick),
        exposure: data.exposure.as_deref().map(pick),
    }
}

/// Adds the bootstrap to a fit: each free parameter's percentile interval and standard
/// deviation over the replicates, and the replicates themselves.
pub fn attach(result: &mut super::FitRecord, summary: BootstrapSummary) {
    for (index, (_, param)) in result.params.iter_mut().enumerate() {
        if param.fixed || summary.draws.is_empty() {
            continue;
        }
        let values: Vec<f64> = summary.draws.iter().map(|d| d[index]).collect();
        param.boot_stderr = sample_std(&values);
        param.ci = Some(percentile_interval(values, summary.level));
    }
    let far: Vec<String> = result
        .params
        .iter()
        .filter_map(|(name, p)| {
            crate::fit::far_from_interval(p).map(|i| crate::fit::far_warning(name, p.value, i))
        })
        .collect();
    result.warnings.extend(far.into_iter().map(Text::from));
    if summary.clusters == Some(result.n_obs) {
        result.warnings.push(format!(
            "every row of '{}' is its own run, so resampling runs is resampling rows; name the column that identifies runs",
            summary.cluster.as_deref().unwrap_or("the cluster column")
        ).into());
    }
    let successful = summary.draws.len();
    if summary.failed * 20 > summary.replicates {
        result.warnings.push(format!(
            "{} of {} bootstrap replicates did not converge and are left out: the intervals may be too narrow",
            summary.failed, summary.replicates
        ).into());
    }
    if successful > 0 && successful < 200 {
        result.warnings.push(
            format!(
            "only {successful} bootstrap replicates: the interval ends are rough (use 1000 or more)"
        )
            .into(),
        );
    }
    result.bootstrap = Some(summary);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_draws_take_whole_runs() {
        let ids = vec![0, 0, 0, 1, 1, 2];
        let units = Units::new(
            &Resampling::Clusters {
                column: "run".into(),
                ids,
            },
            6,
        )
        .unwrap();
        for seed in 0..20 {
            let counts = units.draw(&mut Rng::stream(seed, 0));
            assert_eq!(counts[0], counts[1]);
            assert_eq!(counts[1], counts[2]);
            assert_eq!(counts[3], counts[4]);
            let runs = counts[0] + counts[3] + counts[5];
            assert!((runs - 3.0).abs() < 1e-12, "three runs drawn, got {runs}");
        }
    }

    /// A bootstrap whose token is set part-way stops soon after, with `Error::Interrupted`.
    #[test]
    fn an_interrupt_stops_the_replicates() {
        use crate::law::catalog;
        let n: Vec<f64> = (0..12).map(|i| 1e7 * 2f64.powi(i)).collect();
        let loss: Vec<f64> = n.iter().map(|n| 1.7 + 400.0 * n.powf(-0.34)).collect();
        let data = FitData {
            variables: vec![n],
            target: loss,
            weights: None,
            trials: None,
            exposure: None,
        };
        let law = catalog::lookup("power_offset").unwrap();
        let settings = FitSettings::default();
        let base = crate::fit::fit(&law, &data, &settings).unwrap();
        let options = BootstrapOptions {
            replicates: 1_000_000,
            level: 0.95,
            seed: 0,
            resampling: Resampling::Rows,
        };
        let token = settings.interrupt.clone();
        let started = std::time::Instant::now();
        let stop = |done: usize| {
            if done == 50 {
                token.interrupt();
            }
        };
        let outcome = bootstrap(&law, &data, &settings, &base, &options, &stop);
        assert!(matches!(outcome, Err(Error::Interrupted)), "{outcome:?}");
        assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
    }

    #[test]
    fn row_draws_sum_to_the_row_count() {
        let units = Units::new(&Resampling::Rows, 50).unwrap();
        let counts = units.draw(&mut Rng::stream(7, 3));
        assert!((counts.iter().sum::<f64>() - 50.0).abs() < 1e-12);
    }

    #[test]
    fn a_single_run_cannot_be_resampled() {
        let error = Units::new(
            &Resampling::Clusters {
                column: "run".into(),
                ids: vec![0, 0, 0],
            },
            3,
        )
        .err()
        .unwrap();
        assert!(error.to_string().contains("at least 2"), "{error}");
    }
}
