//! A campaign planned round by round (`sequential`): the current estimate plays the truth,
//! and each round designs a batch on what is known so far, draws the batch's outcomes from
//! that truth (with the fit's noise), and refits, so the next round designs on the refit. It
//! shows how the targets' widths may shrink over the rounds, and what each round costs.

use serde::{Deserialize, Serialize};

use super::simulate::{widths_of, with_outcomes};
use super::{choose, criterion, Candidates, DesignSettings, Knowledge};
use crate::error::Result;
use crate::fit;
use crate::rng::Rng;
use crate::stats::normal_quantile;

/// One round of a planned campaign (`sequential`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Round {
    /// The round's number, from 1.
    pub round: usize,
    /// Runs in the round's batch.
    pub runs: usize,
    /// The round's cost.
    pub cost: f64,
    /// Cost of this round and the ones before it.
    pub total_cost: f64,
    /// Per goal: the width the design expected after the round.
    pub widths_expected: Vec<f64>,
    /// Per goal: the width the refit on the round's simulated outcomes reported (None: no
    /// covariance).
    pub widths_refit: Vec<Option<f64>>,
}

/// A stream index no other random step of a design uses.
const CAMPAIGN_STREAM: u64 = 0xCA4A_1605;

/// The rounds of `settings.rounds` (none for a single batch).
pub fn plan(
    knowledge: &Knowledge,
    candidates: &Candidates,
    settings: &DesignSettings,
    notes: &mut Vec<String>,
) -> Result<Vec<Round>> {
    if settings.rounds <= 1 {
        return Ok(Vec::new());
    }
    let truth = &knowledge.centre;
    let z = normal_quantile(0.5 + settings.level / 2.0);
    let spend = settings.spend.unwrap_or(f64::INFINITY);
    let mut known = knowledge.clone();
    let mut rounds = Vec::new();
    let mut total_cost = 0.0;
    for round in 1..=settings.rounds {
        let criterion = match criterion(&known, candidates, settings, round as u64) {
            Ok((criterion, _)) => criterion,
            Err(e) if round > 1 => {
                notes.push(format!(
                    "campaign: round {round} could not be designed on the refit ({}); it stops there",
                    e.worded(&crate::error::Neutral)
                ));
                break;
            }
            Err(e) => return Err(e),
        };
        let Some(batch) = choose::choose(&criterion, settings.runs, spend) else {
            notes.push(format!(
                "campaign: round {round} found no run within the spend; it stops there"
            ));
            break;
        };
        let points: Vec<Vec<f64>> = batch
            .runs
            .iter()
            .map(|&c| candidates.points[c].clone())
            .collect();
        let mut rng = Rng::stream(settings.seed ^ CAMPAIGN_STREAM, round as u64);
        let data = with_outcomes(&known, &points, truth, &mut rng);
        let expected = criterion.per_target(&criterion.after(&batch.runs));
        let cost: f64 = batch.runs.iter().map(|&c| candidates.cost[c]).sum();
        total_cost += cost;
        let refit = fit::fit(&known.law, &data, &known.settings);
        let widths_refit = match &refit {
            Ok(r) => widths_of(
                &known.law,
                r,
                &settings.targets,
                &settings.flops,
                settings.level,
            )
            .map(|w| w.into_iter().map(Some).collect())
            .unwrap_or_else(|| vec![None; settings.targets.len()]),
            Err(_) => vec![None; settings.targets.len()],
        };
        rounds.push(Round {
            round,
            runs: points.len(),
            cost,
            total_cost,
            widths_expected: expected
                .iter()
                .map(|v| 2.0 * z * v.max(0.0).sqrt())
                .collect(),
            widths_refit,
        });
        let Ok(refit) = refit else {
            notes.push(format!(
                "campaign: the refit after round {round} failed; the campaign stops there"
            ));
            break;
        };
        known.centre = refit.param_values();
        known.data = data;
    }
    Ok(rounds)
}
