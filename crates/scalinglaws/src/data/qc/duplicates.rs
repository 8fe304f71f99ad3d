//! Rule 2 of QC: rows that repeat an earlier row. Two rows are duplicates when the loss and
//! every compared column are equal, near-duplicates when each agrees within a relative
//! tolerance, |a − b| ≤ tol·max(|a|, |b|), labels always exactly. The first row of a group is
//! kept and each later one flagged naming it: each row's copy is the earliest kept row (one
//! that copies no earlier row) that agrees with it on every column.
//!
//! Only kept rows can be named, and no two kept rows agree on every column. Each number is
//! placed in a bucket by its bits, about 32 tolerances wide in relative terms (zero,
//! infinities and NaN in their own), and the values that agree with a number lie in its bucket
//! or in one neighbour (about 1.06 buckets per numeric column on average; equal numbers only,
//! in one, below a tolerance of 2^-55). A row looks in those cells of buckets for kept rows and
//! compares only those. Kept rows in one cell differ somewhere by more than the tolerance, so
//! a cell holds few of them unless the data are a lattice at that spacing: the work is about
//! rows × cells, whatever the rows share (comparing every row whose loss agrees took minutes
//! on 10^6 rows with two losses, and longer on 10^6 rows within the tolerance of each other).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::{Flag, Key, QcInput, Rule};

/// The exact and the near duplicates among the `usable` rows.
pub fn find(input: &QcInput, usable: &[bool], tolerance: f64) -> (Vec<Flag>, Vec<Flag>) {
    let rows = input.loss.len();
    let buckets = Buckets::new(tolerance);
    let mut first_in_cell: HashMap<u64, usize> = HashMap::new();
    let mut next_in_cell: Vec<usize> = vec![usize::MAX; rows];
    let mut copy_of: Vec<Option<(usize, f64)>> = vec![None; rows];
    for row in (0..rows).filter(|&r| usable[r]) {
        let ranges: Vec<CellRange> = (0..=input.keys.len())
            .map(|column| buckets.agreeing(value(input, column, row)))
            .collect();
        let mut best: Option<(usize, f64)> = None;
        for_each_cell(&ranges, &mut |cell| {
            let mut other = first_in_cell.get(&cell).copied().unwrap_or(usize::MAX);
            while other != usize::MAX {
                if let Some(difference) = difference(input, row, other, tolerance) {
                    if best.is_none_or(|(b, _)| other < b) {
                        best = Some((other, difference));
                    }
                }
                other = next_in_cell[other];
            }
        });
        if best.is_none() {
            let own: Vec<CellRange> = ranges.iter().map(CellRange::own).collect();
            for_each_cell(&own, &mut |cell| {
                next_in_cell[row] = first_in_cell.insert(cell, row).unwrap_or(usize::MAX);
            });
        }
        copy_of[row] = best;
    }
    flags(input, &copy_of, tolerance)
}

/// Row `row`'s value in column `column` (0: the loss).
fn value(input: &QcInput, column: usize, row: usize) -> Value {
    match column {
        0 => Value::Number(input.loss[row]),
        _ => match &input.keys[column - 1] {
            Key::Number(values) => Value::Number(values[row]),
            Key::Label(ids) => Value::Label(ids[row]),
        },
    }
}

#[derive(Debug, Clone, Copy)]
enum Value {
    Number(f64),
    Label(usize),
}

/// One column's part of a cell: a number's bucket, or a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Bucket {
    Positive(i64),
    Negative(i64),
    Zero,
    PositiveInfinity,
    NegativeInfinity,
    NaN,
    Label(usize),
}

/// The buckets of one column that hold every value agreeing with a row's, and its own.
#[derive(Debug, Clone, Copy)]
struct CellRange {
    own: Bucket,
    /// For a finite nonzero number: the first and last bucket index of the agreeing values.
    span: Option<(i64, i64)>,
}

impl CellRange {
    fn own(&self) -> CellRange {
        CellRange {
            own: self.own,
            span: None,
        }
    }

    fn len(&self) -> usize {
        self.span.map_or(1, |(lo, hi)| (hi - lo + 1) as usize)
    }

    fn at(&self, i: usize) -> Bucket {
        match (self.own, self.span) {
            (Bucket::Positive(_), Some((lo, _))) => Bucket::Positive(lo + i as i64),
            (Bucket::Negative(_), Some((lo, _))) => Bucket::Negative(lo + i as i64),
            (own, _) => own,
        }
    }
}

/// Buckets of |x| by its bits (which order positive numbers exactly): the top bits above
/// `shift`, a bucket about 32 tolerances wide in relative terms, shifted by half a bucket so
/// that round numbers (1, 10, 1e9: their low bits are zero) lie mid-bucket, not on an edge.
/// Below a relative tolerance of 2^-55 only equal numbers agree, each in its own bucket.
struct Buckets {
    tolerance: f64,
    exact: bool,
    shift: u32,
}

impl Buckets {
    fn new(tolerance: f64) -> Self {
        // Below 2^-55 no two different numbers agree: two normal numbers differ by at least
        // half a unit in the last place of the larger, over 2^-54 of it, and tol times the
        // larger rounds to about 2^-55 of it.
        let exact = tolerance < 2f64.powi(-55);
        let shift = match exact {
            true => 0,
            false => (52.0 + (32.0 * tolerance).log2()).ceil().clamp(1.0, 62.0) as u32,
        };
        Buckets {
            tolerance,
            exact,
            shift,
        }
    }

    fn index(&self, magnitude: f64) -> i64 {
        let bits = magnitude.clamp(f64::from_bits(1), f64::MAX).to_bits();
        let half = (1u64 << self.shift) >> 1;
        ((bits + half) >> self.shift) as i64
    }

    /// The buckets of the values that agree with `value` (0 agrees only with 0, an infinity
    /// or NaN only with itself): for a number x, those of [|x|(1 − tol), |x|/(1 − tol)],
    /// widened by 1e-15/(1 − tol) for the rounding of both bounds and of `close` (whose
    /// rounding is relative to the larger value, so it grows as tol nears 1).
    fn agreeing(&self, value: Value) -> CellRange {
        let x = match value {
            Value::Label(id) => return single(Bucket::Label(id)),
            Value::Number(x) => x,
        };
        if x.is_nan() {
            return single(Bucket::NaN);
        }
        if x == 0.0 {
            return single(Bucket::Zero);
        }
        if x.is_infinite() {
            return single(match x > 0.0 {
                true => Bucket::PositiveInfinity,
                false => Bucket::NegativeInfinity,
            });
        }
        let magnitude = x.abs();
        let margin = 1e-15 / (1.0 - self.tolerance);
        let low = magnitude * (1.0 - self.tolerance) * (1.0 - margin);
        let high = magnitude / (1.0 - self.tolerance) * (1.0 + margin);
        let index = self.index(magnitude);
        CellRange {
            own: match x > 0.0 {
                true => Bucket::Positive(index),
                false => Bucket::Negative(index),
            },
            span: (!self.exact).then(|| (self.index(low), self.index(high))),
        }
    }
}

fn single(bucket: Bucket) -> CellRange {
    CellRange {
        own: bucket,
        span: None,
    }
}

/// Calls `visit` with the fingerprint of every cell, one bucket of each column's range (a
/// collision of fingerprints only adds rows to compare).
fn for_each_cell(ranges: &[CellRange], visit: &mut impl FnMut(u64)) {
    let mut at = vec![0usize; ranges.len()];
    loop {
        let mut hasher = DefaultHasher::new();
        for (range, &i) in ranges.iter().zip(&at) {
            range.at(i).hash(&mut hasher);
        }
        visit(hasher.finish());
        let Some(column) = (0..ranges.len()).find(|&c| at[c] + 1 < ranges[c].len()) else {
            return;
        };
        at[column] += 1;
        at[..column].iter_mut().for_each(|i| *i = 0);
    }
}

/// The flags of the rows that copy an earlier one.
fn flags(
    input: &QcInput,
    copy_of: &[Option<(usize, f64)>],
    tolerance: f64,
) -> (Vec<Flag>, Vec<Flag>) {
    let mut exact = Vec::new();
    let mut near = Vec::new();
    for (row, copy) in copy_of.iter().enumerate() {
        let Some((other, difference)) = *copy else {
            continue;
        };
        let rule = if difference == 0.0 {
            Rule::Duplicate
        } else {
            Rule::NearDuplicate
        };
        let flag = Flag {
            row: input.file_rows[row],
            rule,
            value: Some(difference),
            threshold: Some(tolerance),
            loss: Some(input.loss[row]),
            written: None,
            expected: Some(input.loss[other]),
            other_row: Some(input.file_rows[other]),
            column: None,
        };
        match rule {
            Rule::Duplicate => exact.push(flag),
            _ => near.push(flag),
        }
    }
    (exact, near)
}

/// Whether two numbers agree within the relative tolerance (an infinity only with itself).
fn close(a: f64, b: f64, tolerance: f64) -> bool {
    a == b || (a.is_finite() && b.is_finite() && (a - b).abs() <= tolerance * a.abs().max(b.abs()))
}

/// The largest relative difference between two rows over the loss and the keys, when every
/// one is within the tolerance (None: they differ).
fn difference(input: &QcInput, a: usize, b: usize, tolerance: f64) -> Option<f64> {
    let relative = |x: f64, y: f64| {
        if x == y {
            Some(0.0)
        } else if close(x, y, tolerance) {
            Some((x - y).abs() / x.abs().max(y.abs()))
        } else {
            None
        }
    };
    let mut largest = relative(input.loss[a], input.loss[b])?;
    for key in &input.keys {
        let d = match key {
            Key::Number(values) => {
                let (x, y) = (values[a], values[b]);
                if x.is_nan() && y.is_nan() {
                    0.0
                } else {
                    relative(x, y)?
                }
            }
            Key::Label(ids) => {
                if ids[a] != ids[b] {
                    return None;
                }
                0.0
            }
        };
        largest = largest.max(d);
    }
    Some(largest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The rule as stated, by comparing every pair: each row's copy is the earliest earlier
    /// row, not itself a copy, that agrees on every column.
    fn every_pair(input: &QcInput, usable: &[bool], tolerance: f64) -> Vec<Option<usize>> {
        let mut copy_of: Vec<Option<usize>> = vec![None; input.loss.len()];
        for row in (0..input.loss.len()).filter(|&r| usable[r]) {
            copy_of[row] = (0..row).find(|&other| {
                usable[other]
                    && copy_of[other].is_none()
                    && difference(input, row, other, tolerance).is_some()
            });
        }
        copy_of
    }

    fn input<'a>(loss: &'a [f64], rows: &'a [usize], keys: Vec<Key<'a>>) -> QcInput<'a> {
        QcInput {
            loss,
            written: None,
            file_rows: rows,
            log: true,
            key_names: keys.iter().map(|_| "key").collect(),
            keys,
            scale: None,
            budget: None,
            step: None,
            predicted: None,
        }
    }

    /// Two numbers that agree (as far as rounding lets them) on either side of the edge of
    /// buckets above `x`'s bucket.
    fn across_an_edge(buckets: &Buckets, x: f64) -> [f64; 2] {
        let half = (1u64 << buckets.shift) >> 1;
        let next = (buckets.index(x) as u64 + 1) << buckets.shift;
        let edge = f64::from_bits(next - half);
        let t = buckets.tolerance;
        [
            (edge * (1.0 - 0.3 * t)).min(edge.next_down()),
            edge * (1.0 + 0.3 * t),
        ]
    }

    /// Random tables, at tolerances from 0 to 0.99, whose values come from a few: pairs that
    /// agree across a bucket's edge near 1 and near 1e20, of both signs, 0, -0, NaN and both
    /// infinities. The search finds what comparing every pair finds, row for row.
    #[test]
    fn the_search_finds_what_comparing_every_pair_finds() {
        let mut rng = Rng::new(51);
        for tolerance in [0.0, 1e-17, 1e-16, 1e-6, 1e-3, 0.5, 0.9, 0.99] {
            let buckets = Buckets::new(tolerance);
            let [a, b] = across_an_edge(&buckets, 1.0);
            let [c, d] = across_an_edge(&buckets, 1e20);
            let numbers = [
                1.0,
                1.0 + 0.5 * tolerance,
                a,
                b,
                c,
                d,
                -a,
                -b,
                0.0,
                -0.0,
                f64::NAN,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ];
            for case in 0..100 {
                let rows = 2 + case % 60;
                let mut pick = |values: &[f64]| -> Vec<f64> {
                    (0..rows)
                        .map(|_| {
                            values[(rng.uniform() * values.len() as f64) as usize % values.len()]
                        })
                        .collect()
                };
                let loss = pick(&numbers[..6]);
                let second = pick(&numbers[..8]);
                let first = pick(&numbers);
                let labels: Vec<usize> = (0..rows).map(|r| (r * 7 + case) % 3).collect();
                let file_rows: Vec<usize> = (1..=rows).collect();
                let usable: Vec<bool> = (0..rows).map(|r| (r + case) % 11 != 0).collect();
                let keys = vec![
                    Key::Number(&first),
                    Key::Label(&labels),
                    Key::Number(&second),
                ];
                let input = input(&loss, &file_rows, keys);
                let (exact, near) = find(&input, &usable, tolerance);
                let mut found: Vec<Option<usize>> = vec![None; rows];
                for flag in exact.iter().chain(&near) {
                    found[flag.row - 1] = flag.other_row.map(|r| r - 1);
                }
                let want = every_pair(&input, &usable, tolerance);
                assert_eq!(found, want, "tolerance {tolerance}, case {case}");
            }
        }
    }

    /// A pair that agrees at a tolerance of 0.99 only through `close`'s rounding, the smaller
    /// just below an edge: a margin of 1e-15 (not divided by 1 − tol) missed it.
    #[test]
    fn a_wide_tolerance_keeps_the_margin_for_rounding() {
        let loss = [131071.99999999999, 13107200.000000028];
        let input = input(&loss, &[1, 2], vec![]);
        let (_, near) = find(&input, &[true, true], 0.99);
        assert_eq!(near.len(), 1);
        assert_eq!(near[0].other_row, Some(1));
    }
}
