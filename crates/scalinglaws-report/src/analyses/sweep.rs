//! The sweep section of a fit's report: how each cell's frontier was found (the curve's
//! minimum or the best run, and why), the swept settings at the frontier, and the runs the
//! frontier set aside. The rule is the library's (`scalinglaws::data::sweep`); this words it.

use std::fmt::Write as _;

use scalinglaws::data::sweep::{Axis, BestReason, Frontier, FrontierMethod};
use scalinglaws::error::{Setting, Wording};

use crate::text::{columns, number, shortest};

/// Cells listed in a report before the rest are counted (the JSON holds every one).
const SHOWN: usize = 40;

/// The section, empty without a sweep; `widens` says whether the choice sd widens the
/// analysis's prediction intervals (a fit's do; IsoFLOP profiles' bootstrap does not add it).
pub fn section(frontier: Option<&Frontier>, widens: bool, wording: &dyn Wording) -> String {
    let Some(frontier) = frontier else {
        return String::new();
    };
    let mut out = String::new();
    let swept: Vec<String> = frontier
        .columns
        .iter()
        .map(|c| wording.word(&Setting::Sweep.text(c.as_str())))
        .collect();
    let _ = writeln!(
        out,
        "[[Sweep frontier]] each cell's frontier stands for its runs ({})",
        swept.join(" ")
    );
    let curves = frontier.curve_cells();
    let cells = frontier.cells.len();
    let _ = writeln!(
        out,
        "    {cells} cells (one per value of {}) from {} runs: {curves} by the minimum of a \
         parabola in the log setting through the best run and its two neighbours, {} by their \
         best run",
        frontier.variables.join(", "),
        frontier.runs,
        cells - curves
    );
    if frontier.at_edge > 0 {
        let _ = writeln!(
            out,
            "    {} cells have their best run at an end of their sweep: their optimum may lie \
             beyond it, so their frontier is an upper bound",
            frontier.at_edge
        );
    }
    if let Some(sd) = frontier.choice_sd {
        let use_of = match widens {
            true => "added to the residual scatter of prediction intervals",
            false => "not added to the intervals here",
        };
        let _ = writeln!(
            out,
            "    choice sd {} (best run minus curve, root mean square in the fitted space), {use_of}",
            number(sd, 3)
        );
    }
    out.push_str(&cell_table(frontier));
    if cells > SHOWN {
        let _ = writeln!(out, "    ... {} more cells in the JSON", cells - SHOWN);
    }
    let discarded = frontier.discarded_rows();
    let _ = match discarded.is_empty() {
        true => writeln!(out, "    set aside: none (every cell has one run)"),
        false => writeln!(
            out,
            "    set aside: {} runs (rows {})",
            discarded.len(),
            row_ranges(&discarded)
        ),
    };
    out
}

/// One line per cell (the first [`SHOWN`]): its values, runs, best row, best and frontier
/// target, the swept settings at the frontier and how it was found.
fn cell_table(frontier: &Frontier) -> String {
    let mut header: Vec<String> = frontier.variables.clone();
    header.extend(["runs", "row", "best", "frontier"].map(String::from));
    header.extend(frontier.columns.iter().map(|c| format!("{c} at frontier")));
    header.push("method".into());
    let mut rows = vec![header];
    for cell in frontier.cells.iter().take(SHOWN) {
        let mut row: Vec<String> = cell.values.iter().map(|v| shortest(*v)).collect();
        row.push(cell.rows.len().to_string());
        row.push(cell.best_row.to_string());
        row.push(number(cell.best, 6));
        row.push(number(cell.frontier, 6));
        row.extend(cell.optimum.iter().map(|v| number(*v, 4)));
        row.push(
            match cell.axis {
                Some(Axis::Linear) => "curve (in the setting: one is not positive)",
                _ => method(cell.method, cell.reason),
            }
            .into(),
        );
        rows.push(row);
    }
    let left = [rows[0].len() - 1];
    columns(&rows, &left, "    ")
}

fn method(method: FrontierMethod, reason: Option<BestReason>) -> &'static str {
    match (method, reason) {
        (FrontierMethod::Curve, _) => "curve",
        (FrontierMethod::Best, Some(BestReason::OneSetting)) => "best (one setting)",
        (FrontierMethod::Best, Some(BestReason::TwoSettings)) => "best (two settings)",
        (FrontierMethod::Best, Some(BestReason::Edge)) => "best (at an end of the sweep)",
        (FrontierMethod::Best, Some(BestReason::SeveralColumns)) => {
            "best (several swept columns vary)"
        }
        (FrontierMethod::Best, Some(BestReason::Flat)) => "best (flat)",
        (FrontierMethod::Best, None) => "best",
    }
}

/// Sorted rows as ranges: 1-3, 5, 8-9.
fn row_ranges(rows: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i;
        while j + 1 < rows.len() && rows[j + 1] == rows[j] + 1 {
            j += 1;
        }
        parts.push(match j > i {
            true => format!("{}-{}", rows[i], rows[j]),
            false => rows[i].to_string(),
        });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn rows_read_as_ranges() {
        assert_eq!(super::row_ranges(&[1, 2, 3, 5, 8, 9]), "1-3, 5, 8-9");
        assert_eq!(super::row_ranges(&[]), "");
    }
}
