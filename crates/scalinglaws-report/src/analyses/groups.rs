//! The outputs of a grouped fit (`fit --group`): one JSON Lines record per group (its labels,
//! rows, status, and the fit as `fit --json` writes it, or the reason it has none), and a CSV
//! table with a row per group (its labels, rows, status, objective, each parameter's value and
//! standard error, and its bootstrap interval when there is one), both written line by line so
//! that a hundred thousand groups never sit in memory as one text.

use std::io::Write;

use scalinglaws::error::push_short_number;
use scalinglaws::job::{GroupFit, GroupStatus};

use crate::text::csv_line;

/// Writes each group as one line of JSON.
pub fn write_json_lines(fits: &[GroupFit], out: &mut dyn Write) -> std::io::Result<()> {
    for fit in fits {
        serde_json::to_writer(&mut *out, fit)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes the table: a header, then a row per group; the grouping columns come first, in the
/// order of `columns` (as the grouping was asked for).
pub fn write_table(
    fits: &[GroupFit],
    columns: &[String],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let keys = columns.to_vec();
    let params: Vec<String> = fits
        .iter()
        .find_map(|f| f.fit.as_ref())
        .map(|r| r.fit.params.iter().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default();
    let bootstrapped = fits
        .iter()
        .any(|f| f.fit.as_ref().is_some_and(|r| r.bootstrap.is_some()));
    let mut head = keys.clone();
    head.extend(["rows", "status", "objective", "converged"].map(String::from));
    for p in &params {
        head.push(p.clone());
        head.push(format!("{p}_stderr"));
        if bootstrapped {
            head.push(format!("{p}_low"));
            head.push(format!("{p}_high"));
        }
    }
    head.push("reason".into());
    out.write_all(csv_line(&head).as_bytes())?;
    let mut line = String::new();
    for fit in fits {
        line.clear();
        push_row(&mut line, fit, &keys, &params, bootstrapped);
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Appends one group's row to `line`, cell by cell (a hundred thousand rows: no string per
/// cell).
fn push_row(
    line: &mut String,
    fit: &GroupFit,
    keys: &[String],
    params: &[String],
    bootstrapped: bool,
) {
    let mut cells = Cells { line, first: true };
    for key in keys {
        cells.text(fit.group.get(key).map_or("", String::as_str));
    }
    cells.text(&fit.rows.to_string());
    cells.text(match fit.status {
        GroupStatus::Fitted => "fitted",
        GroupStatus::Unconverged => "unconverged",
        GroupStatus::Failed => "failed",
    });
    let record = fit.fit.as_ref().map(|r| &r.fit);
    cells.number(record.map(|r| r.objective));
    cells.text(record.map_or("", |r| if r.converged { "true" } else { "false" }));
    for p in params {
        let param = record.and_then(|r| r.params.iter().find(|(n, _)| n == p).map(|(_, v)| v));
        cells.number(param.map(|v| v.value));
        cells.number(param.and_then(|v| v.stderr));
        if bootstrapped {
            let ci = param.and_then(|v| v.ci);
            cells.number(ci.map(|c| c[0]));
            cells.number(ci.map(|c| c[1]));
        }
    }
    cells.text(fit.reason.as_deref().unwrap_or(""));
    cells.line.push('\n');
}

/// A CSV row being written: cells separated by commas, quoted as [`csv_line`] quotes them.
struct Cells<'a> {
    line: &'a mut String,
    first: bool,
}

impl Cells<'_> {
    fn separate(&mut self) {
        if !self.first {
            self.line.push(',');
        }
        self.first = false;
    }

    fn text(&mut self, cell: &str) {
        self.separate();
        if cell.contains([',', '"', '\n', '\r']) {
            self.line.push('"');
            self.line.push_str(&cell.replace('"', "\"\""));
            self.line.push('"');
        } else {
            self.line.push_str(cell);
        }
    }

    /// A number as `short_number` writes it (never quoted: it holds no comma), or empty.
    fn number(&mut self, value: Option<f64>) {
        self.separate();
        if let Some(value) = value {
            push_short_number(self.line, value);
        }
    }
}
