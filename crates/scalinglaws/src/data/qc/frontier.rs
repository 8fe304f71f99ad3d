//! Rule 6 of QC, `above_frontier`: a run whose loss jumps above the smooth curve that the other
//! runs of its budget trace along one setting. A budget (the rows equal on the budget columns)
//! holds designed arms: an IsoFLOP profile's sizes, a learning-rate or batch sweep. Their losses
//! lie on a smooth curve of the setting (its log when every value is positive), near convex
//! about the best run; a diverged or unstable run lies far above it. Distance from the budget's
//! best cannot tell the two apart: on the public studies the arms of IsoFLOP profiles and
//! sweeps stood as far from their best run as diverged runs did (3 of 10 sampled flags of a
//! rule by modified z in the budget were right, `bench/results/qc_hand_check.txt` before this
//! rule).
//!
//! **Lines.** Within a budget, for each numeric compared column that varies (a setting), the
//! runs equal on every other compared column form a line along it; a column that maps one to
//! one onto the setting within the budget (tokens against size on an IsoFLOP profile) is the
//! same line, not a split. Lines of fewer than [`MIN_LINE`] positions are not judged.
//!
//! **The bound.** At each position the rule takes the largest of what its neighbours allow (the
//! median loss of each other position): the chord between the nearest positions on either side,
//! which lies above a convex curve, and, when the loss rises towards the run from one side, the
//! extrapolation from that side: the straight line through its two nearest positions, bent up
//! by the parabola through a third when the rise steepens towards the run (a curve that keeps
//! rising faster, as a batch far beyond its best does), or at the third's steeper rise when it
//! flattens (one low neighbour does not lower the bound); a falling side, which may turn at a
//! minimum in between, bounds nothing. So an end of a line reached by a falling side (the best
//! run next to it) is not judged: a run that diverged past the best one there looks like the
//! designed low-rate end of a sweep (the highest loss of the rest of the line as its bound
//! flagged 10 more runs on the public CLIP sweeps, 4 of them designed low-rate ends). A run is flagged when its loss exceeds the bound by more
//! than [`FRONTIER_JUMP`] (relative). Flagged runs leave the line and the rest are judged
//! again, so that one diverged run does not hide another behind its chord; at most
//! [`MAX_PASSES`] passes.

use std::collections::{HashMap, HashSet};

use super::{Flag, Key, QcInput, Rule};

/// How far above the bound a run must lie, as a fraction of the bound: 10 %. On the public
/// sweeps and profiles the designed arms stayed within it of the bound their neighbours set,
/// while diverged learning rates stood 12-46 % above it.
pub const FRONTIER_JUMP: f64 = 0.10;

/// The fewest positions of a line that is judged: each end then has two neighbours on its side
/// and each inner position one on either side, with one more to spare.
pub const MIN_LINE: usize = 4;

/// The most passes over a line (each after the flagged runs leave it).
pub const MAX_PASSES: usize = 4;

/// What the rule reads: the compared value of each row (log loss or loss), whether it may be
/// used, and each row's budget.
pub struct Frontier<'a> {
    pub input: &'a QcInput<'a>,
    pub value: &'a [f64],
    pub clean: &'a [bool],
    pub budget: &'a [usize],
}

/// A run found above its line: the bound, the column and the neighbour the bound rests on.
#[derive(Debug, Clone, Copy)]
struct Above {
    row: usize,
    key: usize,
    bound: f64,
    neighbour: usize,
    excess: f64,
}

impl Frontier<'_> {
    /// Every flag of the rule (None: no line of [`MIN_LINE`] positions in any budget).
    pub fn flags(&self) -> Option<Vec<Flag>> {
        let mut judged = false;
        let mut found: HashMap<usize, Above> = HashMap::new();
        for cell in super::clean_cells(self.budget, self.clean) {
            for (key, line) in self.lines(&cell) {
                judged = true;
                for above in self.judge(key, &line) {
                    let kept = found.entry(above.row).or_insert(above);
                    if above.excess > kept.excess {
                        *kept = above;
                    }
                }
            }
        }
        if !judged {
            return None;
        }
        let mut flags: Vec<Above> = found.into_values().collect();
        flags.sort_by_key(|a| a.row);
        Some(flags.iter().map(|a| self.flag(a)).collect())
    }

    fn flag(&self, above: &Above) -> Flag {
        let input = self.input;
        let loss = input.loss[above.row];
        let expected = if input.log {
            above.bound.exp()
        } else {
            above.bound
        };
        Flag {
            row: input.file_rows[above.row],
            rule: Rule::AboveFrontier,
            value: Some(above.excess),
            threshold: Some(FRONTIER_JUMP),
            loss: Some(loss),
            written: None,
            expected: Some(expected),
            other_row: Some(input.file_rows[above.neighbour]),
            column: input.key_names.get(above.key).map(|s| s.to_string()),
        }
    }

    /// The lines of a budget: (the numeric key along which the line runs, its rows).
    fn lines(&self, cell: &[usize]) -> Vec<(usize, Vec<usize>)> {
        let keys = &self.input.keys;
        let mut lines = Vec::new();
        for (j, key) in keys.iter().enumerate() {
            let Key::Number(axis) = key else { continue };
            if distinct(cell.iter().map(|&r| axis[r].to_bits())) < 2 {
                continue;
            }
            let split: Vec<usize> = (0..keys.len())
                .filter(|&k| k != j && !one_to_one(cell, axis, &keys[k]))
                .collect();
            let mut groups: Vec<Vec<usize>> = Vec::new();
            let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
            for &row in cell {
                let id: Vec<u64> = split.iter().map(|&k| key_bits(&keys[k], row)).collect();
                let at = *index.entry(id).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
                groups[at].push(row);
            }
            for line in groups {
                // A setting that is not a finite number places no run on the line.
                let line: Vec<usize> = line.into_iter().filter(|&r| axis[r].is_finite()).collect();
                if distinct(line.iter().map(|&r| (axis[r] + 0.0).to_bits())) >= MIN_LINE {
                    lines.push((j, line));
                }
            }
        }
        lines
    }

    /// The runs of one line above its bound, pass after pass.
    fn judge(&self, key: usize, line: &[usize]) -> Vec<Above> {
        let Key::Number(axis) = self.input.keys[key] else {
            return Vec::new();
        };
        let logged = line.iter().all(|&r| axis[r] > 0.0);
        // `+ 0.0` makes −0 and 0 one position.
        let at = |r: usize| (if logged { axis[r].ln() } else { axis[r] }) + 0.0;
        let mut alive: Vec<usize> = line.to_vec();
        alive.sort_by(|&a, &b| at(a).total_cmp(&at(b)).then(a.cmp(&b)));
        let mut found = Vec::new();
        let mut flagged: HashSet<usize> = HashSet::new();
        for _ in 0..MAX_PASSES {
            let positions = Positions::of(&alive, &at, self.value);
            if positions.x.len() < 3 {
                break;
            }
            let scale = self.scale(&positions.median);
            let before = found.len();
            for p in 0..positions.x.len() {
                let Some((bound, neighbour)) = positions.bound(p) else {
                    continue;
                };
                for &row in &positions.rows[p] {
                    let excess = self.excess(self.value[row], bound, scale);
                    if excess > FRONTIER_JUMP {
                        flagged.insert(row);
                        found.push(Above {
                            row,
                            key,
                            bound,
                            neighbour,
                            excess,
                        });
                    }
                }
            }
            if found.len() == before {
                break;
            }
            alive.retain(|r| !flagged.contains(r));
        }
        found
    }

    /// What a linear loss's excess is a fraction of, besides its bound: the line's typical
    /// size (the median of its positions' |median|), so that a bound near zero does not make
    /// a small excess look large (log losses are measured by their ratio).
    fn scale(&self, medians: &[f64]) -> f64 {
        let sizes: Vec<f64> = medians.iter().map(|m| m.abs()).collect();
        super::robust::median(&sizes).unwrap_or(0.0)
    }

    /// How far `value` lies above `bound`, as a fraction of the bound's loss (of the line's
    /// typical size for a linear loss whose bound is smaller); 0 when it is not above, or when
    /// there is nothing to measure it by.
    fn excess(&self, value: f64, bound: f64, scale: f64) -> f64 {
        if value <= bound {
            return 0.0;
        }
        if self.input.log {
            return (value - bound).exp_m1();
        }
        let by = bound.abs().max(scale);
        if by > 0.0 {
            (value - bound) / by
        } else {
            0.0
        }
    }
}

/// The distinct positions of a line in order, each with its rows and their median value.
struct Positions {
    x: Vec<f64>,
    median: Vec<f64>,
    rows: Vec<Vec<usize>>,
}

impl Positions {
    fn of(sorted: &[usize], at: &dyn Fn(usize) -> f64, value: &[f64]) -> Positions {
        let mut positions = Positions {
            x: Vec::new(),
            median: Vec::new(),
            rows: Vec::new(),
        };
        for &row in sorted {
            let x = at(row);
            if positions
                .x
                .last()
                .is_some_and(|&last| last.to_bits() == x.to_bits())
            {
                positions.rows.last_mut().expect("a position").push(row);
            } else {
                positions.x.push(x);
                positions.rows.push(vec![row]);
            }
        }
        positions.median = positions
            .rows
            .iter()
            .map(|rows| {
                let values: Vec<f64> = rows.iter().map(|&r| value[r]).collect();
                super::robust::median(&values).unwrap_or(f64::NAN)
            })
            .collect();
        positions
    }

    /// The bound at position `p` from the other positions, with the row it rests on (None:
    /// nothing bounds it).
    fn bound(&self, p: usize) -> Option<(f64, usize)> {
        let (x, m) = (&self.x, &self.median);
        let n = x.len();
        let mut best: Option<(f64, usize)> = None;
        let mut offer = |bound: f64, near: usize| {
            if bound.is_finite() && best.is_none_or(|(b, _)| bound > b) {
                best = Some((bound, self.rows[near][0]));
            }
        };
        if p > 0 && p + 1 < n {
            let t = (x[p] - x[p - 1]) / (x[p + 1] - x[p - 1]);
            let near = if m[p - 1] >= m[p + 1] { p - 1 } else { p + 1 };
            offer(m[p - 1] + t * (m[p + 1] - m[p - 1]), near);
        }
        // Rising towards p from the left (p-1, p-2, p-3) and from the right (p+1, p+2, p+3).
        if p >= 2 && m[p - 1] >= m[p - 2] {
            let nodes: Vec<usize> = (p.saturating_sub(3)..p).rev().collect();
            offer(self.extrapolate(&nodes, x[p]), p - 1);
        }
        if p + 2 < n && m[p + 1] >= m[p + 2] {
            let nodes: Vec<usize> = (p + 1..n.min(p + 4)).collect();
            offer(self.extrapolate(&nodes, x[p]), p + 1);
        }
        best
    }
}

impl Positions {
    /// The extrapolation to `at` from the nearest positions on one side, `nodes` (nearest
    /// first), where the loss rises towards `at`. With a third position: when the rise steepens
    /// towards `at` (a convex curve), the parabola through the three (Newton's divided
    /// differences), which the straight line would understate; when it flattens, the straight
    /// line at the steeper, farther rise, so that one low neighbour does not lower the bound.
    fn extrapolate(&self, nodes: &[usize], at: f64) -> f64 {
        let (x, m) = (&self.x, &self.median);
        let slope = |a: usize, b: usize| (m[b] - m[a]) / (x[b] - x[a]);
        let rise = |a: usize, b: usize| (m[a] - m[b]) / (x[a] - x[b]).abs();
        let (a, b) = (nodes[0], nodes[1]);
        let line = m[a] + slope(a, b) * (at - x[a]);
        let Some(&c) = nodes.get(2) else {
            return line;
        };
        if rise(a, b) >= rise(b, c) {
            let curvature = (slope(b, c) - slope(a, b)) / (x[c] - x[a]);
            line + curvature * (at - x[a]) * (at - x[b])
        } else {
            m[a] + rise(b, c) * (at - x[a]).abs()
        }
    }
}

/// Whether `other` maps one to one onto `axis` within `cell` (the same line, not a split).
fn one_to_one(cell: &[usize], axis: &[f64], other: &Key) -> bool {
    let mut forward: HashMap<u64, u64> = HashMap::new();
    let mut backward: HashMap<u64, u64> = HashMap::new();
    for &row in cell {
        let (a, b) = (axis[row].to_bits(), key_bits(other, row));
        if *forward.entry(a).or_insert(b) != b || *backward.entry(b).or_insert(a) != a {
            return false;
        }
    }
    true
}

fn key_bits(key: &Key, row: usize) -> u64 {
    match key {
        Key::Number(values) => values[row].to_bits(),
        Key::Label(ids) => ids[row] as u64,
    }
}

fn distinct(bits: impl Iterator<Item = u64>) -> usize {
    let mut seen: Vec<u64> = bits.collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}
