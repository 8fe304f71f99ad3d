//! Quality control of the runs before a law is fitted to them: which rows a careful user would
//! set aside by hand, each flagged with its rule, the value it measured and the threshold it
//! crossed, never dropped here. Real exports hold diverged runs, repeated rows, checkpoints at
//! initialisation and early checkpoints bent by warm-up; users filter them by hand and forget
//! to say so. This module holds the pure detection, one function ([`check`]) on plain
//! columns, so the `qc` workflow and the fit's QC stage (`job::qc`, which reads the table and
//! fits the law) flag with the same rules. It sits in `data/`, below `uncertainty/`, because a
//! saved fit ([`crate::uncertainty::FitRecord`]) carries its QC ([`FitQc`]); it reads columns,
//! not tables, and fits nothing (the law's predictions come in as a column).
//!
//! The rules, in the order they are checked (a row flagged by the first three is left out of
//! the statistics of the last three, so that a repeated or broken row cannot hide another):
//!
//! 1. `non_finite`: the loss is missing, not a number or infinite (or, when losses are
//!    compared in log space, not positive).
//! 2. `duplicate` / `near_duplicate`: every compared column (the loss and the columns that
//!    place the run) equals an earlier row's, exactly or within a relative tolerance
//!    ([`DEFAULT_DUPLICATE_TOLERANCE`], 1e-6: the same numbers written to six or more
//!    significant digits, as when one record is exported twice with different rounding; two
//!    runs, even two seeds of one run, differ in the loss by far more). The first row is kept.
//! 3. `initialisation` (a step column is given and the row's step is 0: the model before any
//!    update) and `warmup` (the step lies before a warm-up length the caller gives; none is
//!    assumed).
//! 4. `law_outlier`: the row's log loss minus the fitted law's, as a modified z-score
//!    (Iglewicz & Hoaglin 1993, see [`robust`]) over every row, beyond ±[`DEFAULT_CUTOFF`]
//!    (3.5, their recommended cutoff).
//! 5. `neighbour_outlier`: the row's log loss against the other runs at its scale (the rows
//!    equal on every scale column, e.g. seeds of one (N, D)), in cells of [`MIN_CELL`] rows or
//!    more: its deletion t (the others' mean and spread, Student's t on n − 2 degrees of
//!    freedom), beyond the t as rare as ±cutoff is for a z-score (see [`neighbours`]: a
//!    modified z-score over a handful of seeds flags ordinary noise).
//! 6. `above_frontier`: within a budget (the rows equal on the budget columns), a run whose
//!    loss jumps more than [`frontier::FRONTIER_JUMP`] (10 %) above the smooth curve its
//!    neighbours trace along one setting (an IsoFLOP profile's size, a swept learning rate):
//!    the designed arms of a profile or a sweep lie on that curve, however far from the best
//!    run; a diverged run does not (see [`frontier`]).

pub mod duplicates;
pub mod frontier;
pub mod neighbours;
pub mod robust;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, Setting, Text};
use crate::text;
use robust::Robust;

/// Iglewicz & Hoaglin's cutoff on the modified z-score (1993, §3.2).
pub const DEFAULT_CUTOFF: f64 = 3.5;

/// Rows whose compared columns agree within this relative difference are near-duplicates.
pub const DEFAULT_DUPLICATE_TOLERANCE: f64 = 1e-6;

/// The fewest rows of a scale or a budget whose rows are judged against each other: the
/// median and MAD of fewer rest on one or two deviations (with two rows neither stands out).
pub const MIN_CELL: usize = 5;

/// A rule of QC.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    NonFinite,
    Duplicate,
    NearDuplicate,
    Initialisation,
    Warmup,
    LawOutlier,
    NeighbourOutlier,
    AboveFrontier,
}

impl Rule {
    /// Every rule, in the order they are checked.
    pub const ALL: [Rule; 8] = [
        Rule::NonFinite,
        Rule::Duplicate,
        Rule::NearDuplicate,
        Rule::Initialisation,
        Rule::Warmup,
        Rule::LawOutlier,
        Rule::NeighbourOutlier,
        Rule::AboveFrontier,
    ];

    /// The rule's snake_case name (as in the JSON).
    pub fn name(self) -> &'static str {
        match self {
            Rule::NonFinite => "non_finite",
            Rule::Duplicate => "duplicate",
            Rule::NearDuplicate => "near_duplicate",
            Rule::Initialisation => "initialisation",
            Rule::Warmup => "warmup",
            Rule::LawOutlier => "law_outlier",
            Rule::NeighbourOutlier => "neighbour_outlier",
            Rule::AboveFrontier => "above_frontier",
        }
    }
}

/// One flagged row: what a face needs to say why, as values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Flag {
    /// The row as the user's file numbers it (1-based data row).
    pub row: usize,
    pub rule: Rule,
    /// What the rule measured: a modified z-score (the law rule), a deletion t (the neighbour
    /// rule), how far above
    /// its neighbours' bound as a fraction of it (above_frontier), the largest relative
    /// difference from the earlier row (duplicates), the step (warm-up, initialisation).
    pub value: Option<f64>,
    /// The threshold `value` crossed (the cutoff, the t as rare as the cutoff, the jump, the
    /// tolerance, the warm-up length).
    pub threshold: Option<f64>,
    /// The row's loss (None: not a number).
    pub loss: Option<f64>,
    /// The loss cell as written, when it is not a finite number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<String>,
    /// What the loss was compared with: the law's prediction, the mean of the other runs at
    /// its scale, the loss its neighbours along a setting allow at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<f64>,
    /// The other row the flag names: the earlier copy of a duplicate, the neighbour whose
    /// loss bounds a run above its budget's curve.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_row: Option<usize>,
    /// The setting along which a run stands above its neighbours (above_frontier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
}

/// Whether a rule ran, and what it flagged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RuleCheck {
    pub rule: Rule,
    /// Rows flagged by the rule.
    pub flagged: usize,
    /// Why the rule did not run (None: it ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_checked: Option<Text>,
}

/// Every rule's outcome and every flag, in file order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QcReport {
    /// Rows checked.
    pub rows: usize,
    /// The cutoff: on modified z-scores (the law rule), and the deletion t as rare as it (the
    /// neighbour rule).
    pub cutoff: f64,
    /// The relative tolerance of near-duplicates.
    pub duplicate_tolerance: f64,
    pub rules: Vec<RuleCheck>,
    /// Every flag, by row then rule.
    pub flags: Vec<Flag>,
}

impl QcReport {
    /// The 0-based rows (of the input) flagged by any rule.
    pub fn flagged_rows(&self, file_rows: &[usize]) -> Vec<bool> {
        let flagged: std::collections::HashSet<usize> = self.flags.iter().map(|f| f.row).collect();
        file_rows.iter().map(|row| flagged.contains(row)).collect()
    }
}

/// A column compared when looking for duplicates.
#[derive(Debug, Clone, Copy)]
pub enum Key<'a> {
    /// Numbers, equal within the relative tolerance.
    Number(&'a [f64]),
    /// Labels as ids, equal exactly.
    Label(&'a [usize]),
}

/// The columns QC reads, one value per row.
#[derive(Debug, Clone)]
pub struct QcInput<'a> {
    /// Each row's loss (NaN where the cell is not a number).
    pub loss: &'a [f64],
    /// The loss cells as written (for the flags of those that are not numbers).
    pub written: Option<&'a [String]>,
    /// Each row's number in the user's file.
    pub file_rows: &'a [usize],
    /// Losses compared in log space (the loss must be positive), else as they are.
    pub log: bool,
    /// The columns that, with the loss, make two rows duplicates (and, within a budget, the
    /// settings along which the frontier rule looks).
    pub keys: Vec<Key<'a>>,
    /// The name of each of `keys`, in order.
    pub key_names: Vec<&'a str>,
    /// Each row's scale (rows of one scale are neighbours), when scale columns are given.
    pub scale: Option<&'a [usize]>,
    /// Each row's budget (the cells of the frontier rule), when a budget column is given.
    pub budget: Option<&'a [usize]>,
    /// Each row's step (or tokens seen), when a step column is given.
    pub step: Option<&'a [f64]>,
    /// The fitted law's prediction for each row, when a law was fitted.
    pub predicted: Option<&'a [f64]>,
}

/// The thresholds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QcSettings {
    pub cutoff: f64,
    pub duplicate_tolerance: f64,
    /// The warm-up length in the step column's units (None: the warm-up rule does not run).
    pub warmup: Option<f64>,
}

impl Default for QcSettings {
    fn default() -> Self {
        QcSettings {
            cutoff: DEFAULT_CUTOFF,
            duplicate_tolerance: DEFAULT_DUPLICATE_TOLERANCE,
            warmup: None,
        }
    }
}

/// Every rule on `input`; nothing is removed.
pub fn check(input: &QcInput, settings: &QcSettings) -> QcReport {
    let n = input.loss.len();
    let mut flags: Vec<Flag> = Vec::new();
    let mut rules: Vec<RuleCheck> = Vec::new();
    // The loss on the scale the rules compare (log or as it is), NaN when unusable.
    let value: Vec<f64> = input
        .loss
        .iter()
        .map(|&y| match (y.is_finite(), input.log) {
            (false, _) => f64::NAN,
            (true, true) if y > 0.0 => y.ln(),
            (true, true) => f64::NAN,
            (true, false) => y,
        })
        .collect();
    let mut clean: Vec<bool> = value.iter().map(|v| v.is_finite()).collect();
    let found = non_finite(input, &value);
    rules.push(ran(Rule::NonFinite, found.len()));
    flags.extend(found);
    let (exact, near) = duplicates::find(input, &clean, settings.duplicate_tolerance);
    rules.push(ran(Rule::Duplicate, exact.len()));
    rules.push(ran(Rule::NearDuplicate, near.len()));
    flags.extend(exact.into_iter().chain(near));
    let (init, warm) = early(input, settings, &mut rules);
    flags.extend(init.into_iter().chain(warm));
    let by_row: std::collections::HashSet<usize> = flags.iter().map(|f| f.row).collect();
    for (row, keep) in clean.iter_mut().enumerate() {
        *keep &= !by_row.contains(&input.file_rows[row]);
    }
    let outliers = Outliers {
        input,
        value: &value,
        clean: &clean,
        cutoff: settings.cutoff,
    };
    for (rule, found) in [
        (Rule::LawOutlier, outliers.law()),
        (Rule::NeighbourOutlier, outliers.neighbours()),
        (Rule::AboveFrontier, outliers.frontier()),
    ] {
        match found {
            Ok(found) => {
                rules.push(ran(rule, found.len()));
                flags.extend(found);
            }
            Err(why) => rules.push(RuleCheck {
                rule,
                flagged: 0,
                not_checked: Some(why),
            }),
        }
    }
    flags.sort_by_key(|f| (f.row, f.rule));
    QcReport {
        rows: n,
        cutoff: settings.cutoff,
        duplicate_tolerance: settings.duplicate_tolerance,
        rules,
        flags,
    }
}

fn ran(rule: Rule, flagged: usize) -> RuleCheck {
    RuleCheck {
        rule,
        flagged,
        not_checked: None,
    }
}

/// Rule 1: the rows whose loss the rules cannot use.
fn non_finite(input: &QcInput, value: &[f64]) -> Vec<Flag> {
    (0..value.len())
        .filter(|&row| !value[row].is_finite())
        .map(|row| {
            let loss = input.loss[row];
            Flag {
                row: input.file_rows[row],
                rule: Rule::NonFinite,
                value: None,
                threshold: None,
                loss: loss.is_finite().then_some(loss),
                written: input.written.map(|cells| cells[row].clone()),
                expected: None,
                other_row: None,
                column: None,
            }
        })
        .collect()
}

/// Rule 3: checkpoints at step 0 and, with a warm-up length, before it.
fn early(
    input: &QcInput,
    settings: &QcSettings,
    rules: &mut Vec<RuleCheck>,
) -> (Vec<Flag>, Vec<Flag>) {
    let Some(step) = input.step else {
        let why = text!["no step column: give ", Setting::Step.text("COLUMN")];
        for rule in [Rule::Initialisation, Rule::Warmup] {
            rules.push(RuleCheck {
                rule,
                flagged: 0,
                not_checked: Some(why.clone()),
            });
        }
        return (Vec::new(), Vec::new());
    };
    let flag = |row: usize, rule: Rule, threshold: f64| Flag {
        row: input.file_rows[row],
        rule,
        value: Some(step[row]),
        threshold: Some(threshold),
        loss: input.loss[row].is_finite().then_some(input.loss[row]),
        written: None,
        expected: None,
        other_row: None,
        column: None,
    };
    let init: Vec<Flag> = (0..step.len())
        .filter(|&row| step[row] == 0.0)
        .map(|row| flag(row, Rule::Initialisation, 0.0))
        .collect();
    rules.push(ran(Rule::Initialisation, init.len()));
    let warm: Vec<Flag> = match settings.warmup {
        None => {
            rules.push(RuleCheck {
                rule: Rule::Warmup,
                flagged: 0,
                not_checked: Some(text![
                    "no warm-up length is given (none is assumed): give ",
                    Setting::Warmup.number("STEPS")
                ]),
            });
            Vec::new()
        }
        Some(length) => {
            let found: Vec<Flag> = (0..step.len())
                .filter(|&row| step[row] > 0.0 && step[row] < length)
                .map(|row| flag(row, Rule::Warmup, length))
                .collect();
            rules.push(ran(Rule::Warmup, found.len()));
            found
        }
    };
    (init, warm)
}

/// Rules 4-6, on the rows no earlier rule flagged.
struct Outliers<'a> {
    input: &'a QcInput<'a>,
    value: &'a [f64],
    clean: &'a [bool],
    cutoff: f64,
}

impl Outliers<'_> {
    fn flag(&self, row: usize, rule: Rule, z: f64, expected: f64, other: Option<usize>) -> Flag {
        let back = |v: f64| if self.input.log { v.exp() } else { v };
        Flag {
            row: self.input.file_rows[row],
            rule,
            value: Some(z),
            threshold: Some(self.cutoff),
            loss: Some(self.input.loss[row]),
            written: None,
            expected: Some(back(expected)),
            other_row: other.map(|o| self.input.file_rows[o]),
            column: None,
        }
    }

    /// Rule 4: the residual from the fitted law.
    fn law(&self) -> Result<Vec<Flag>, Text> {
        let Some(predicted) = self.input.predicted else {
            return Err(text![
                "no law: give ",
                Setting::Law.text("NAME"),
                " or ",
                Setting::Formula.text("TEXT")
            ]);
        };
        let fitted: Vec<f64> = predicted
            .iter()
            .map(|&p| match (p.is_finite(), self.input.log) {
                (true, true) if p > 0.0 => p.ln(),
                (true, false) => p,
                _ => f64::NAN,
            })
            .collect();
        let rows: Vec<usize> = (0..self.value.len())
            .filter(|&r| self.clean[r] && fitted[r].is_finite())
            .collect();
        let residual: Vec<f64> = rows.iter().map(|&r| self.value[r] - fitted[r]).collect();
        let Some(robust) = Robust::of(&residual) else {
            return Ok(Vec::new());
        };
        Ok(rows
            .iter()
            .zip(&residual)
            .filter_map(|(&row, &r)| {
                let z = robust.z(r)?;
                (z.abs() > self.cutoff)
                    .then(|| self.flag(row, Rule::LawOutlier, z, fitted[row], None))
            })
            .collect())
    }

    /// Rule 5: a row against the other runs at its scale (two-sided).
    fn neighbours(&self) -> Result<Vec<Flag>, Text> {
        let Some(scale) = self.input.scale else {
            return Err(text![
                "no scale columns: give ",
                Setting::Scale.text("COLUMN"),
                " (or a law, whose variables place each run)"
            ]);
        };
        self.within_cells(scale, Rule::NeighbourOutlier)
            .ok_or_else(|| text![format!("no scale has {MIN_CELL} runs or more")])
    }

    /// Rule 6: a run far above the curve of its budget's other runs (one-sided).
    fn frontier(&self) -> Result<Vec<Flag>, Text> {
        let Some(budget) = self.input.budget else {
            return Err(text![
                "no budget column: give ",
                Setting::Budget.text("COLUMN")
            ]);
        };
        let rule = frontier::Frontier {
            input: self.input,
            value: self.value,
            clean: self.clean,
            budget,
        };
        rule.flags().ok_or_else(|| {
            text![format!(
                "no budget has {} runs or more along a setting that varies within it",
                frontier::MIN_LINE
            )]
        })
    }

    /// Each row's deletion t against the other rows of its scale, in the scales of
    /// [`MIN_CELL`] rows or more (None: there is no such scale), flagged both ways beyond the
    /// t as rare as the cutoff (see [`neighbours`]).
    fn within_cells(&self, ids: &[usize], rule: Rule) -> Option<Vec<Flag>> {
        let cells: Vec<Vec<usize>> = clean_cells(ids, self.clean)
            .into_iter()
            .filter(|rows| rows.len() >= MIN_CELL)
            .collect();
        if cells.is_empty() {
            return None;
        }
        let mut flags = Vec::new();
        for rows in &cells {
            let values: Vec<f64> = rows.iter().map(|&r| self.value[r]).collect();
            for (&row, found) in rows.iter().zip(neighbours::deletions(&values, self.cutoff)) {
                let Some(d) = found.filter(|d| d.t.abs() > d.critical) else {
                    continue;
                };
                let mut flag = self.flag(row, rule, d.t, d.others_mean, None);
                flag.threshold = Some(d.critical);
                flags.push(flag);
            }
        }
        Some(flags)
    }
}

/// The clean rows of each cell of `ids` (one id per row), in order of first appearance.
fn clean_cells(ids: &[usize], clean: &[bool]) -> Vec<Vec<usize>> {
    let mut cells: Vec<Vec<usize>> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for (row, &id) in ids.iter().enumerate() {
        if !clean[row] {
            continue;
        }
        let at = *index.entry(id).or_insert_with(|| {
            cells.push(Vec::new());
            cells.len() - 1
        });
        cells[at].push(row);
    }
    cells
}

/// What a fit does with QC's flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QcMode {
    /// Flag and fit every row; the report and the JSON list the flags.
    #[default]
    Warn,
    /// Remove the flagged rows before the fit; the report and the JSON list them.
    Exclude,
    /// No QC.
    Off,
}

impl QcMode {
    pub const ALL: [QcMode; 3] = [QcMode::Warn, QcMode::Exclude, QcMode::Off];

    pub fn name(self) -> &'static str {
        match self {
            QcMode::Warn => "warn",
            QcMode::Exclude => "exclude",
            QcMode::Off => "off",
        }
    }

    /// The mode by name, or an error naming the setting and the modes.
    pub fn from_name(name: &str) -> Result<QcMode> {
        QcMode::ALL
            .into_iter()
            .find(|m| m.name() == name.trim())
            .ok_or_else(|| {
                Error::setting(
                    Setting::Qc,
                    text![
                        Setting::Qc.text(name),
                        ": use one of warn (flag, keep every row), exclude (remove the flagged \
                         rows) or off"
                    ],
                )
            })
    }
}

/// QC as a fit records it: the mode, every flag, and the rows removed (exclude).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FitQc {
    pub mode: QcMode,
    #[serde(flatten)]
    pub report: QcReport,
    /// The file's rows removed before the fit (exclude).
    pub removed: Vec<usize>,
}
