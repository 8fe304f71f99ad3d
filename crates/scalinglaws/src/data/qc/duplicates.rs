//! Rule 2 of QC: rows that repeat an earlier row. Two rows are duplicates when the loss and
//! every compared column are equal, near-duplicates when each agrees within a relative
//! tolerance, |a − b| ≤ tol·max(|a|, |b|), labels always exactly. The first row of a group is
//! kept and each later one flagged naming it. Rows are visited in the order of their loss, so a
//! row is compared only with those whose loss lies within the tolerance of its own: the work is
//! rows × the rows sharing a loss, not rows².

use super::{Flag, Key, QcInput, Rule};

/// The exact and the near duplicates among the `usable` rows.
pub fn find(input: &QcInput, usable: &[bool], tolerance: f64) -> (Vec<Flag>, Vec<Flag>) {
    let loss = input.loss;
    let mut order: Vec<usize> = (0..loss.len()).filter(|&r| usable[r]).collect();
    order.sort_by(|&a, &b| loss[a].total_cmp(&loss[b]).then(a.cmp(&b)));
    let mut position = vec![usize::MAX; loss.len()];
    for (at, &row) in order.iter().enumerate() {
        position[row] = at;
    }
    let mut copy_of: Vec<Option<(usize, f64)>> = vec![None; loss.len()];
    for row in 0..loss.len() {
        if !usable[row] {
            continue;
        }
        let mut best: Option<(usize, f64)> = None;
        let mut consider = |other: usize| {
            if other >= row || copy_of[other].is_some() {
                return;
            }
            if let Some(difference) = difference(input, row, other, tolerance) {
                if best.is_none_or(|(b, _)| other < b) {
                    best = Some((other, difference));
                }
            }
        };
        let at = position[row];
        for &other in order[at + 1..].iter() {
            if !close(loss[row], loss[other], tolerance) {
                break;
            }
            consider(other);
        }
        for &other in order[..at].iter().rev() {
            if !close(loss[row], loss[other], tolerance) {
                break;
            }
            consider(other);
        }
        copy_of[row] = best;
    }
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
            loss: Some(loss[row]),
            written: None,
            expected: Some(loss[other]),
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

/// Whether two numbers agree within the relative tolerance.
fn close(a: f64, b: f64, tolerance: f64) -> bool {
    a == b || (a - b).abs() <= tolerance * a.abs().max(b.abs())
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
