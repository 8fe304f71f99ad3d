//! QC on a prepared table, for the `qc` workflow and the fit's QC stage: reads the columns the
//! rules of [`crate::data::qc`] compare (the loss as written, the columns that place a run,
//! the scale, the budget, the step), fits the law when one is given (on the rows the data rules
//! leave) and checks every row against it. What a fit does with the flags ([`QcMode`]) is
//! decided here once, for every face.

use crate::data::qc::{self, Flag, Key, QcInput, QcReport, QcSettings};
pub use crate::data::qc::{FitQc, QcMode};
use crate::data::recipe::Table;
use crate::data::Column;
use crate::error::{Error, Result, Setting};
use crate::fit::{FitSettings, Space};
use crate::law::Law;
use crate::text;

/// Which columns QC reads from the table.
#[derive(Debug, Clone, Default)]
pub struct QcColumns {
    /// The loss.
    pub target: String,
    /// Columns that, with the loss, make rows duplicates (the columns that place a run).
    pub keys: Vec<String>,
    /// Columns whose equal values make rows neighbours at one scale.
    pub scale: Vec<String>,
    /// The columns whose equal values make one budget (the frontier's cells): the compute
    /// budget, with the columns that tell configurations apart.
    pub budget: Vec<String>,
    /// The column of steps or tokens seen.
    pub step: Option<String>,
    /// Compare losses in log space.
    pub log: bool,
}

/// The columns read, owned, from which a [`QcInput`] borrows.
struct Read {
    loss: Vec<f64>,
    /// The loss cells as written: None for a numeric column whose every value is finite (a
    /// million rows' text is not copied when no flag would quote it).
    written: Option<Vec<String>>,
    file_rows: Vec<usize>,
    /// The compared columns: (name, numbers) and (name, label ids).
    numbers: Vec<(String, Vec<f64>)>,
    labels: Vec<(String, Vec<usize>)>,
    scale: Option<Vec<usize>>,
    budget: Option<Vec<usize>>,
    step: Option<Vec<f64>>,
    log: bool,
}

impl Read {
    fn of(table: &Table, columns: &QcColumns) -> Result<Read> {
        // The table's own complaint about a missing name (with its suggestion), then the column.
        let name = |c: &str, setting: Setting| -> Result<String> {
            let column = table.resolve(c).map(str::to_string);
            match column {
                Some(column) => Ok(column),
                None => Err(table.labels(c, setting.subject()).err().unwrap_or_else(|| {
                    Error::setting(
                        setting,
                        text![Setting::text(setting, c), ": no such column"],
                    )
                })),
            }
        };
        let target = name(&columns.target, Setting::Target)?;
        let (loss, written) = loss_of(table, &target)?;
        let (mut numbers, mut labels) = (Vec::new(), Vec::new());
        for key in &columns.keys {
            let column = name(key, Setting::Scale)?;
            match table.dataset.column(&column)? {
                Column::Numeric(values) => numbers.push((key.clone(), values.clone())),
                Column::Text(cells) => labels.push((key.clone(), crate::data::label_ids(cells).0)),
            }
        }
        let ids = |names: &[String], setting: Setting| -> Result<Vec<usize>> {
            let resolved: Vec<String> = names
                .iter()
                .map(|c| name(c, setting))
                .collect::<Result<_>>()?;
            if let Some(numeric) = numeric_columns(table, &resolved) {
                // Numbers are grouped by value, without a text copy of every cell (a fit of a
                // million rows groups its law's variables here).
                return Ok(numeric_ids(&numeric, table.dataset.n_rows()));
            }
            let cells: Vec<Vec<String>> = names
                .iter()
                .map(|c| table.dataset.text(&name(c, setting)?))
                .collect::<Result<_>>()?;
            let joined: Vec<String> = (0..table.dataset.n_rows())
                .map(|r| {
                    cells
                        .iter()
                        .map(|c| c[r].trim())
                        .collect::<Vec<_>>()
                        .join("\u{1f}")
                })
                .collect();
            Ok(crate::data::label_ids(&joined).0)
        };
        let scale = match columns.scale.is_empty() {
            true => None,
            false => Some(ids(&columns.scale, Setting::Scale)?),
        };
        let budget = match columns.budget.is_empty() {
            true => None,
            false => Some(ids(&columns.budget, Setting::Budget)?),
        };
        let step = match &columns.step {
            None => None,
            Some(s) => Some(table.dataset.numeric_or_missing(&name(s, Setting::Step)?)?),
        };
        let file_rows = (0..table.dataset.n_rows())
            .map(|r| table.file_row(r).unwrap_or(r + 1))
            .collect();
        Ok(Read {
            loss,
            written,
            file_rows,
            numbers,
            labels,
            scale,
            budget,
            step,
            log: columns.log,
        })
    }

    fn input<'a>(&'a self, predicted: Option<&'a [f64]>) -> QcInput<'a> {
        let keys = self
            .numbers
            .iter()
            .map(|(_, v)| Key::Number(v))
            .chain(self.labels.iter().map(|(_, v)| Key::Label(v)))
            .collect();
        let key_names = self
            .numbers
            .iter()
            .map(|(name, _)| name.as_str())
            .chain(self.labels.iter().map(|(name, _)| name.as_str()))
            .collect();
        QcInput {
            loss: &self.loss,
            written: self.written.as_deref(),
            file_rows: &self.file_rows,
            log: self.log,
            keys,
            key_names,
            scale: self.scale.as_deref(),
            budget: self.budget.as_deref(),
            step: self.step.as_deref(),
            predicted,
        }
    }
}

/// The loss column as numbers (a cell that is no number: NaN), and as written when a flag may
/// quote it: a text column, or a numeric one holding a value that is not finite.
fn loss_of(table: &Table, target: &str) -> Result<(Vec<f64>, Option<Vec<String>>)> {
    let loss: Vec<f64> = match table.dataset.column(target)? {
        Column::Numeric(values) => values.clone(),
        Column::Text(cells) => cells
            .iter()
            .map(|c| c.trim().parse::<f64>().unwrap_or(f64::NAN))
            .collect(),
    };
    let quoted = match table.dataset.column(target)? {
        Column::Numeric(_) => loss.iter().any(|v| !v.is_finite()),
        Column::Text(_) => true,
    };
    let written = quoted.then(|| table.dataset.text(target)).transpose()?;
    Ok((loss, written))
}

/// The columns' numbers, when every one is numeric.
fn numeric_columns<'t>(table: &'t Table, columns: &[String]) -> Option<Vec<&'t Vec<f64>>> {
    columns
        .iter()
        .map(|c| match table.dataset.column(c) {
            Ok(Column::Numeric(values)) => Some(values),
            _ => None,
        })
        .collect()
}

/// Ids of the rows by their values in `columns` (rows with the same values share an id), in
/// the order each value first appears, by a sort of the rows rather than a copy of each key.
fn numeric_ids(columns: &[&Vec<f64>], rows: usize) -> Vec<usize> {
    let key = |r: usize| columns.iter().map(move |c| c[r].to_bits());
    let mut order: Vec<usize> = (0..rows).collect();
    order.sort_by(|&a, &b| key(a).cmp(key(b)).then(a.cmp(&b)));
    // Each row's group, named by the first row holding its values.
    let mut first = vec![0usize; rows];
    for (at, &row) in order.iter().enumerate() {
        first[row] = if at > 0 && key(order[at - 1]).eq(key(row)) {
            first[order[at - 1]]
        } else {
            row
        };
    }
    let mut id_of_first = vec![usize::MAX; rows];
    let mut next = 0;
    (0..rows)
        .map(|r| {
            let head = first[r];
            if id_of_first[head] == usize::MAX {
                id_of_first[head] = next;
                next += 1;
            }
            id_of_first[head]
        })
        .collect()
}

/// The law and how to fit it, for the law rule.
pub struct QcLaw<'a> {
    pub law: &'a Law,
    pub settings: &'a FitSettings,
    pub recipe: &'a crate::data::recipe::Recipe,
}

/// QC of `table`. With a law, the law is fitted to the rows the data rules (non-finite,
/// duplicates, warm-up) leave, and every row is checked against it; `fitted` gives the
/// parameters instead when the fit is already done (a fit that only warns).
pub fn check_table(
    table: &Table,
    columns: &QcColumns,
    settings: &QcSettings,
    law: Option<&QcLaw>,
    fitted: Option<&[f64]>,
) -> Result<QcReport> {
    let read = Read::of(table, columns)?;
    let Some(with) = law else {
        return Ok(qc::check(&read.input(None), settings));
    };
    let params = match fitted {
        Some(params) => params.to_vec(),
        None => {
            let first = qc::check(&read.input(None), settings);
            let keep: Vec<bool> = first
                .flagged_rows(&read.file_rows)
                .iter()
                .map(|f| !f)
                .collect();
            let rest = table.keep_rows(&keep);
            let data = rest.fit_data(with.law, with.recipe, with.settings.space)?;
            crate::fit::fit(with.law, &data, with.settings)?.param_values()
        }
    };
    let predicted = predictions(table, with.law, &params)?;
    Ok(qc::check(&read.input(Some(&predicted)), settings))
}

/// The law's prediction for every row of `table` (NaN where a variable is not a number).
pub fn predictions(table: &Table, law: &Law, params: &[f64]) -> Result<Vec<f64>> {
    let columns: Vec<Vec<f64>> = law
        .variables
        .iter()
        .map(|v| {
            let column = table.resolve(v).unwrap_or(v);
            table.dataset.numeric_or_missing(column)
        })
        .collect::<Result<_>>()?;
    Ok((0..table.dataset.n_rows())
        .map(|r| {
            let point: Vec<f64> = columns.iter().map(|c| c[r]).collect();
            if point.iter().all(|x| x.is_finite()) {
                law.eval(params, &point)
            } else {
                f64::NAN
            }
        })
        .collect())
}

/// The columns a fit's QC reads: the law's variables place each run (and make its scale),
/// and a column `step` when the table has one. The frontier rule is left to the `qc`
/// workflow, where the caller names the budget whose runs trace one curve: a fit knows no
/// budget, and the runs of a law's grid are not one sweep.
pub fn fit_columns(table: &Table, law: &Law, target: &str, space: Space) -> QcColumns {
    let step = table.resolve("step").map(|_| "step".to_string());
    let mut keys = law.variables.clone();
    keys.extend(step.clone());
    QcColumns {
        target: target.to_string(),
        keys,
        scale: law.variables.clone(),
        budget: Vec::new(),
        step,
        log: space == Space::Log,
    }
}

/// The rows (0-based, of `table`) that no flag names.
pub fn kept(report: &QcReport, table: &Table) -> Vec<bool> {
    let rows: Vec<usize> = (0..table.dataset.n_rows())
        .map(|r| table.file_row(r).unwrap_or(r + 1))
        .collect();
    report.flagged_rows(&rows).iter().map(|f| !f).collect()
}

/// The file's rows of the flags, each once, in order.
pub fn flagged_file_rows(flags: &[Flag]) -> Vec<usize> {
    let mut rows: Vec<usize> = flags.iter().map(|f| f.row).collect();
    rows.sort_unstable();
    rows.dedup();
    rows
}
