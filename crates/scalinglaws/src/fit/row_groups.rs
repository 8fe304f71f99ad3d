//! The rows of a problem grouped by the free parameters they depend on ([`RowGroups`]), what
//! the row-sparse evaluation of `row_sparse.rs` runs over. Its own file, below problem.rs,
//! because the problem holds the groups and `row_sparse.rs` (a part of problem.rs) evaluates
//! the problem over them: the groups name nothing of the problem.

use std::ops::Range;

use crate::law::tape::{BoundTape, RunOps, Step};

/// Runs of consecutive rows that depend on the same free parameters and share an evaluation
/// plan.
#[derive(Debug, Clone)]
pub struct RowGroups {
    pub runs: Vec<Run>,
    /// The most free parameters any row depends on.
    pub width: usize,
}

/// Consecutive rows with the same free parameters and plan.
#[derive(Debug, Clone)]
pub struct Run {
    pub rows: Range<usize>,
    /// The free slots the rows depend on, ascending.
    pub support: Vec<usize>,
    pub steps: Vec<Step>,
    /// The whole-column sweep of the rows.
    pub ops: RunOps,
}

impl RowGroups {
    /// The runs of the tape's row plans, their parameters as free slots (`slot_of`); None (found
    /// at the first such row) when some row depends on every free parameter: nothing to gain,
    /// the dense evaluation is the same work.
    pub fn new(
        tape: &BoundTape,
        slot_of: impl Fn(u32) -> Option<usize>,
        dim: usize,
    ) -> Option<RowGroups> {
        let mut runs: Vec<Run> = Vec::new();
        let mut dense = false;
        tape.row_plans(|row, plan| {
            let support: Vec<usize> = plan.support.iter().filter_map(|&p| slot_of(p)).collect();
            dense = support.len() >= dim;
            match runs.last_mut() {
                Some(run) if run.support == support && run.steps == plan.steps => {
                    run.rows.end = row + 1
                }
                _ => runs.push(Run {
                    rows: row..row + 1,
                    support,
                    steps: plan.steps.clone(),
                    ops: tape.run_ops(&plan.steps),
                }),
            }
            !dense
        });
        let width = runs.iter().map(|r| r.support.len()).max().unwrap_or(0);
        (!dense).then_some(RowGroups { runs, width })
    }

    /// The runs' sweeps cut to the rows `rows`.
    pub(super) fn sweeps(&self, rows: &Range<usize>) -> Vec<(Range<usize>, &RunOps)> {
        self.within(rows)
            .map(|(cut, run)| (cut, &run.ops))
            .collect()
    }

    /// The runs cut to the rows `rows`.
    pub(super) fn within(&self, rows: &Range<usize>) -> impl Iterator<Item = (Range<usize>, &Run)> {
        let rows = rows.clone();
        self.runs.iter().filter_map(move |run| {
            let cut = run.rows.start.max(rows.start)..run.rows.end.min(rows.end);
            (!cut.is_empty()).then_some((cut, run))
        })
    }
}
