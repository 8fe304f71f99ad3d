//! Columns that look swept within the cells: a knob besides the LR (batch size, warmup, weight
//! decay) whose several values share one (N, D) cell is pooled into one LR profile. The
//! profile's vertex then mixes the knob's values' optima (the optimal LR moves with the batch
//! size: Step Law, Li et al. 2025), and its residuals carry their loss differences (on the
//! bundled batch sweep, whose optimal LR does not depend on the batch size, the loss noise
//! estimated from the pooled profiles is 25 times the one with the batch column).
//!
//! A numeric column other than the ones the analysis reads is reported when
//! - in at least half of the cells (and at least two) it takes two or more values and one of
//!   them spans two or more distinct LRs (so it is not a relabelling of the LR, such as an LR
//!   index or multiplier, and not constant per cell, such as compute);
//! - at least two of its values recur in two or more cells (a sweep repeated across cells, not
//!   a per-run measurement such as another loss);
//! - its name is not that of a replicate or run id (seed, run, id, index, replicate, trial),
//!   since pooling replicates is what the profile should do.
//!
//! Columns that split every cell's runs the same way (batch size and steps = D/batch) are one
//! finding; a name that says batch is preferred as its column.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::Serialize;

use crate::data::recipe::is_identifier;
use crate::error::{Setting, Text};
use crate::text;

/// A column whose values vary within the cells as a swept knob would.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SweptColumn {
    /// The column's name.
    pub column: String,
    /// Other columns that split the cells' runs the same way.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// Distinct values over the sweep.
    pub values: usize,
    /// Cells in which it varies among runs (of `cells`).
    pub varying_cells: usize,
    /// Cells in all.
    pub cells: usize,
    /// The setting that handles it: `batch` (profile each value, use each (N, D)'s best), or
    /// `where` (keep one value) when a batch column is already given.
    pub setting: String,
    /// The value a row filter would keep: the most common one.
    pub common_value: f64,
}

/// Words that mark a replicate or run id, matched against the name's words.
const ID_WORDS: [&str; 11] = [
    "seed",
    "seeds",
    "run",
    "runs",
    "id",
    "idx",
    "index",
    "replicate",
    "rep",
    "trial",
    "repeat",
];

/// The swept-looking columns among `others`, given each cell's rows and the runs' LRs; the
/// setting offered is `batch` unless `has_batch`.
pub(crate) fn find(
    others: &[(String, Vec<f64>)],
    cells: &[Vec<usize>],
    lr: &[f64],
    has_batch: bool,
) -> Vec<SweptColumn> {
    let mut found: Vec<(SweptColumn, Vec<usize>)> = Vec::new();
    for (name, values) in others {
        let Some(mut column) = check(name, values, cells, lr) else {
            continue;
        };
        let partition = partition(values, cells);
        if let Some((first, _)) = found.iter_mut().find(|(_, p)| *p == partition) {
            if looks_like_batch(name) && !looks_like_batch(&first.column) {
                let previous = std::mem::replace(&mut first.column, name.clone());
                first.also.push(previous);
            } else {
                first.also.push(name.clone());
            }
            continue;
        }
        column.setting = if has_batch { "where" } else { "batch" }.into();
        found.push((column, partition));
    }
    found.into_iter().map(|(column, _)| column).collect()
}

/// The finding for one column, or None when it does not look swept.
fn check(name: &str, values: &[f64], cells: &[Vec<usize>], lr: &[f64]) -> Option<SweptColumn> {
    if values.len() != lr.len() || values.iter().any(|v| !v.is_finite()) || is_id(name) {
        return None;
    }
    let mut varying = 0;
    let mut cells_of: BTreeMap<i64, BTreeSet<usize>> = BTreeMap::new();
    for (index, rows) in cells.iter().enumerate() {
        let mut lrs_of: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
        for &row in rows {
            let value = value_key(values[row]);
            lrs_of.entry(value).or_default().insert(value_key(lr[row]));
            cells_of.entry(value).or_default().insert(index);
        }
        let spans = lrs_of.values().any(|lrs| lrs.len() >= 2);
        varying += (lrs_of.len() >= 2 && spans) as usize;
    }
    let recurring = cells_of.values().filter(|c| c.len() >= 2).count();
    if varying < 2 || 2 * varying < cells.len() || recurring < 2 {
        return None;
    }
    Some(SweptColumn {
        column: name.to_string(),
        also: Vec::new(),
        values: cells_of.len(),
        varying_cells: varying,
        cells: cells.len(),
        setting: String::new(),
        common_value: most_common(values),
    })
}

/// Each row's label: the first row of its cell with the same value (so two columns that split
/// the cells alike get equal labels).
fn partition(values: &[f64], cells: &[Vec<usize>]) -> Vec<usize> {
    let mut labels = vec![0; values.len()];
    for rows in cells {
        let mut first: BTreeMap<i64, usize> = BTreeMap::new();
        for &row in rows {
            labels[row] = *first.entry(value_key(values[row])).or_insert(row);
        }
    }
    labels
}

/// Values equal to ~1e-9 relative share a key (zero and either sign included).
fn value_key(value: f64) -> i64 {
    if value.abs() < f64::MIN_POSITIVE {
        return 0;
    }
    let magnitude = (value.abs().ln() * 1e9).round() as i64;
    // Keep the keys of positive and negative values apart (|ln| of f64 is below 745).
    value.signum() as i64 * (magnitude + 1_000_000_000_000)
}

fn most_common(values: &[f64]) -> f64 {
    let mut counts: BTreeMap<i64, (usize, f64)> = BTreeMap::new();
    for &v in values {
        counts.entry(value_key(v)).or_insert((0, v)).0 += 1;
    }
    // The first (smallest) of the most common values.
    counts
        .into_values()
        .rev()
        .max_by_key(|(count, _)| *count)
        .map_or(f64::NAN, |(_, value)| value)
}

fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn is_id(name: &str) -> bool {
    words(name).any(|w| ID_WORDS.contains(&w.as_str()))
}

fn looks_like_batch(name: &str) -> bool {
    words(name).any(|w| w.starts_with("batch") || matches!(w.as_str(), "bs" | "bsz" | "b"))
}

impl SweptColumn {
    /// The warning, mentioning the settings (the `batch` setting, worded by each front end).
    pub fn describe(&self) -> Text {
        let also = match self.also.as_slice() {
            [] => String::new(),
            names => format!(" (as do {})", quoted(names)),
        };
        let spread = if self.varying_cells == self.cells {
            format!("every one of the {} cells", self.cells)
        } else {
            format!("{} of the {} cells", self.varying_cells, self.cells)
        };
        let cell = if self.setting == "batch" {
            "(N, D)"
        } else {
            "(N, D, B)"
        };
        let found = format!(
            "the runs of one {cell} cell differ in '{}'{also} ({} values; several in {spread}), \
             so each cell's LR profile pools them and its optimum mixes theirs",
            self.column, self.values
        );
        let keep = is_identifier(&self.column).then(|| {
            let filter = format!("{} == {}", self.column, self.common_value);
            Setting::Where.text(filter)
        });
        let fix = match (self.setting.as_str(), keep) {
            ("batch", keep) => {
                let batch = text![
                    "give it as the batch column (",
                    Setting::Batch.text(self.column.as_str()),
                    "): each value then gets its own profile, the LR law uses each (N, D)'s \
                     best, and B* = c·D^b is fitted",
                ];
                match (looks_like_batch(&self.column), keep) {
                    (false, Some(keep)) => text![
                        batch,
                        "; if it is not a batch size, keep one value (",
                        keep,
                        ") or analyse each value separately",
                    ],
                    _ => batch,
                }
            }
            (_, Some(keep)) => text![
                "keep one value (",
                keep,
                "), or analyse each value separately"
            ],
            (_, None) => "keep one value, or analyse each value separately".into(),
        };
        text![found, "; ", fix]
    }
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Part;

    /// 4 cells of 3 LRs × 2 values of a knob.
    fn design() -> (Vec<Vec<usize>>, Vec<f64>, Vec<f64>) {
        let mut lr = Vec::new();
        let mut knob = Vec::new();
        let mut cells = Vec::new();
        for _ in 0..4 {
            let mut rows = Vec::new();
            for b in [32.0, 64.0] {
                for l in [1e-3, 2e-3, 4e-3] {
                    rows.push(lr.len());
                    lr.push(l);
                    knob.push(b);
                }
            }
            cells.push(rows);
        }
        (cells, lr, knob)
    }

    #[test]
    fn a_crossed_knob_is_found_and_relabelled_lrs_are_not() {
        let (cells, lr, knob) = design();
        let index: Vec<f64> = lr.iter().map(|l| (l / 1e-3f64).log2()).collect();
        let noise: Vec<f64> = (0..lr.len()).map(|i| 3.0 + 0.01 * i as f64).collect();
        let others = vec![
            ("wd".to_string(), knob.clone()),
            ("lr_index".to_string(), index),
            ("train_loss".to_string(), noise),
            ("seed".to_string(), knob.clone()),
            ("steps".to_string(), knob.iter().map(|b| 1e6 / b).collect()),
            ("batch_size".to_string(), knob),
        ];
        let found = find(&others, &cells, &lr, false);
        assert_eq!(found.len(), 1, "{found:?}");
        let f = &found[0];
        assert_eq!(f.column, "batch_size");
        assert_eq!(f.also, vec!["steps".to_string(), "wd".to_string()]);
        assert_eq!((f.values, f.varying_cells, f.cells), (2, 4, 4));
        let text = f.describe();
        println!("{text}");
        assert!(
            text.parts()
                .contains(&Part::Mention(Setting::Batch.text("batch_size"))),
            "{text}"
        );
        assert!(!text.to_string().contains("not a batch size"), "{text}");
        assert!(text.to_string().contains("batch=\"batch_size\""), "{text}");
        let given = find(&others[..1], &cells, &lr, true);
        assert_eq!(given[0].setting, "where");
        assert!(given[0]
            .describe()
            .parts()
            .contains(&Part::Mention(Setting::Where.text("wd == 32"))));
    }

    #[test]
    fn a_knob_in_one_cell_only_is_not_a_sweep() {
        let (cells, lr, mut knob) = design();
        for rows in &cells[1..] {
            for &row in rows {
                knob[row] = 32.0;
            }
        }
        assert!(find(&[("wd".into(), knob)], &cells, &lr, false).is_empty());
    }
}
