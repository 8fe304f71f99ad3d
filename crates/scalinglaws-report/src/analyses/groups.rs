//! The outputs of a grouped fit (`fit --group`): one JSON Lines record per group (its labels,
//! rows, status, and the fit as `fit --json` writes it, or the reason it has none), and a CSV
//! table with a row per group (its labels, rows, status, objective, each parameter's value and
//! standard error, and its bootstrap interval when there is one), both written line by line so
//! that a hundred thousand groups never sit in memory as one text.

use std::io::Write;

use scalinglaws::error::short_number;
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
    for fit in fits {
        out.write_all(csv_line(&row(fit, &keys, &params, bootstrapped)).as_bytes())?;
    }
    Ok(())
}

fn row(fit: &GroupFit, keys: &[String], params: &[String], bootstrapped: bool) -> Vec<String> {
    let number = |v: Option<f64>| v.map_or(String::new(), short_number);
    let mut cells: Vec<String> = keys
        .iter()
        .map(|k| fit.group.get(k).cloned().unwrap_or_default())
        .collect();
    cells.push(fit.rows.to_string());
    cells.push(
        match fit.status {
            GroupStatus::Fitted => "fitted",
            GroupStatus::Failed => "failed",
        }
        .into(),
    );
    let record = fit.fit.as_ref().map(|r| &r.fit);
    cells.push(number(record.map(|r| r.objective)));
    cells.push(record.map_or(String::new(), |r| r.converged.to_string()));
    for p in params {
        let param = record.and_then(|r| r.params.iter().find(|(n, _)| n == p).map(|(_, v)| v));
        cells.push(number(param.map(|v| v.value)));
        cells.push(number(param.and_then(|v| v.stderr)));
        if bootstrapped {
            let ci = param.and_then(|v| v.ci);
            cells.push(number(ci.map(|c| c[0])));
            cells.push(number(ci.map(|c| c[1])));
        }
    }
    cells.push(fit.reason.clone().unwrap_or_default());
    cells
}
