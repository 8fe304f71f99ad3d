//! The report of `lr`: where the runs came from, each (N, D) cell's optimal learning rate
//! with its flags, the law lr* = c·N^a·D^b (and the curved alternative) with the curvature
//! test, the batch-size law, predictions, and the backtest of extrapolating in D against N.

use scalinglaws::error::{Setting, Wording};
use std::fmt::Write as _;

use scalinglaws::analysis::lr::{
    BatchAnalysis, Cell, CellStatus, LrAnalysis, LrLaw, NoiseSource, Split,
};
use scalinglaws::workflow::lr::LrResult;

use crate::text::{columns, level_percent, number};

impl crate::Report for LrResult {
    type Json = LrResult;
    fn json_value(&self) -> &LrResult {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        let mut text = header(self, wording);
        text.push_str(&render(&self.analysis, wording));
        text
    }
}

fn header(result: &LrResult, wording: &dyn Wording) -> String {
    let (analysis, data, read) = (&result.analysis, &result.data, &result.columns);
    let mut out = String::from("[[Learning rate]]\n");
    let _ = writeln!(
        out,
        "    data      {}: {} runs in {} cells ({})",
        data.source,
        analysis.runs,
        analysis.counts.cells,
        if read.b.is_some() {
            "N × D × B"
        } else {
            "N × D"
        }
    );
    if data.rows_filtered > 0 {
        let filters: Vec<String> = data
            .filters
            .iter()
            .map(|f| wording.word(&Setting::Where.text(f.as_str())))
            .collect();
        let _ = writeln!(
            out,
            "    rows      {} used of {} read; {} removed by {}",
            data.rows_read - data.rows_filtered,
            data.rows_read,
            data.rows_filtered,
            filters.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "    columns   N = {}, D = {}, lr = {}, loss = {}{}",
        read.n,
        read.d,
        read.lr,
        read.loss,
        read.b
            .as_deref()
            .map(|b| format!(", B = {b}"))
            .unwrap_or_default()
    );
    out
}

fn render(analysis: &LrAnalysis, wording: &dyn Wording) -> String {
    let mut out = String::new();
    summary(&mut out, analysis);
    cells(&mut out, &analysis.cells, analysis.level);
    if let Some(law) = &analysis.law {
        law_section(&mut out, "Law", law, analysis.level);
    }
    if let Some(law) = &analysis.alternative {
        law_section(&mut out, "Alternative", law, analysis.level);
    }
    curvature(&mut out, analysis);
    if let Some(batch) = &analysis.batch {
        batch_section(&mut out, batch, analysis.level);
    }
    predictions(&mut out, analysis);
    backtest(&mut out, analysis);
    if !analysis.warnings.is_empty() {
        let _ = writeln!(out, "\n[[Warnings]]");
        for warning in &analysis.warnings {
            let _ = writeln!(out, "    - {}", warning.worded(wording));
        }
    }
    out
}

fn summary(out: &mut String, analysis: &LrAnalysis) {
    let c = &analysis.counts;
    let mut parts = vec![format!("{} used by the law over cells", c.used)];
    if c.edge > 0 {
        parts.push(format!("{} at the sweep's edge", c.edge));
    }
    if c.few_lrs > 0 {
        parts.push(format!("{} with fewer than 3 LRs", c.few_lrs));
    }
    if c.no_minimum > 0 {
        parts.push(format!("{} without a minimum", c.no_minimum));
    }
    if c.other_batch > 0 {
        parts.push(format!(
            "{} at a batch size other than the best",
            c.other_batch
        ));
    }
    parts.push(format!("{} in the joint fit", c.joint));
    let _ = writeln!(out, "    cells     {}", parts.join(", "));
    let noise = match &analysis.noise {
        None => "unknown (no intervals per cell)".to_string(),
        Some(noise) => {
            let source = match noise.source {
                NoiseSource::Given => "given".to_string(),
                NoiseSource::Cells => format!(
                    "pooled over the cells' parabolas, {} dof",
                    noise.dof.unwrap_or(0)
                ),
                NoiseSource::Joint => {
                    format!("the joint fit's residuals, {} dof", noise.dof.unwrap_or(0))
                }
            };
            format!("σ = {} in loss ({source})", number(noise.sigma, 3))
        }
    };
    let _ = writeln!(out, "    noise     {noise}");
}

fn status(cell: &Cell) -> String {
    let text = match cell.status {
        CellStatus::Ok if !cell.used => "ok (not the best batch)".into(),
        status => status.describe().to_string(),
    };
    match cell.far {
        0 => text,
        count => format!("{text}; {count} far above best"),
    }
}

fn interval(ci: Option<[f64; 2]>) -> String {
    ci.map_or("-".to_string(), |[lo, hi]| {
        format!("[{}, {}]", number(lo, 3), number(hi, 3))
    })
}

fn cells(out: &mut String, cells: &[Cell], level: f64) {
    let with_batch = cells.iter().any(|c| c.b.is_some());
    let mut header = vec!["N", "D"];
    if with_batch {
        header.push("B");
    }
    let ci = format!("{}% CI", level_percent(level));
    header.extend(["runs", "LRs", "swept", "best LR", "lr*", &ci, "k", "status"]);
    let mut rows = vec![header.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
    for cell in cells {
        let mut row = vec![number(cell.n, 3), number(cell.d, 3)];
        if with_batch {
            row.push(cell.b.map_or("-".into(), |b| number(b, 3)));
        }
        row.extend([
            cell.runs.to_string(),
            cell.lrs.to_string(),
            format!(
                "{}–{}",
                number(cell.lr_range[0], 2),
                number(cell.lr_range[1], 2)
            ),
            number(cell.lr_best, 3),
            cell.lr_opt.map_or("-".into(), |v| number(v, 3)),
            interval(cell.ci),
            cell.curvature.map_or("-".into(), |k| number(k, 3)),
            status(cell),
        ]);
        rows.push(row);
    }
    let status_column = rows[0].len() - 1;
    let _ = writeln!(out, "\n[[Cells]]");
    out.push_str(&columns(&rows, &[status_column], "    "));
}

fn law_section(out: &mut String, title: &str, law: &LrLaw, level: f64) {
    let _ = writeln!(
        out,
        "\n[[{title}]] {} fit, {}",
        law.method.name(),
        law.form.name()
    );
    formula_line(out, law);
    power_line(out, law);
    profiles_line(out, law);
    let fitted = match law.runs {
        Some(runs) => format!(
            "{} cells, {runs} runs, {} dof, σ = {}",
            law.cells,
            law.dof,
            number(law.scale, 3)
        ),
        None => format!(
            "{} cells, {} dof, scale s = {} (1 when the cells' errors explain the scatter)",
            law.cells,
            law.dof,
            number(law.scale, 3)
        ),
    };
    let _ = writeln!(out, "    fitted to {fitted}");
    let ci = format!("{}% CI", level_percent(level));
    let mut rows = vec![vec!["param".to_string(), "value".into(), "se".into(), ci]];
    for p in &law.params {
        rows.push(vec![
            p.name.clone(),
            number(p.value, 5),
            number(p.se, 3),
            format!("[{}, {}]", number(p.ci[0], 4), number(p.ci[1], 4)),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
}

/// The law's formula, with the reference sizes it is centred on.
fn formula_line(out: &mut String, law: &LrLaw) {
    let mut centre = Vec::new();
    if law.formula.contains("N/N0") {
        centre.push(format!("N0 = {}", number(law.reference.n, 4)));
    }
    if law.formula.contains("D/D0") {
        centre.push(format!("D0 = {}", number(law.reference.d, 4)));
    }
    let _ = writeln!(
        out,
        "    formula   {}",
        [law.formula.clone()]
            .into_iter()
            .chain(centre)
            .collect::<Vec<_>>()
            .join(", ")
    );
}

/// The law as a power of N and D (`lr* = c · N^a · D^b`), when it has one.
fn power_line(out: &mut String, law: &LrLaw) {
    let (Some(coef), Some(ci)) = (law.coef, law.coef_ci) else {
        return;
    };
    // lr* or B*.
    let symbol = law
        .formula
        .trim_start_matches("ln ")
        .split(' ')
        .next()
        .unwrap_or("lr*");
    let mut power = format!("{symbol} = {}", number(coef, 4));
    if let Some(a) = law.param("a") {
        power.push_str(&format!(" · N^{}", number(a.value, 4)));
    }
    if let Some(b) = law.param("b") {
        power.push_str(&format!(" · D^{}", number(b.value, 4)));
    }
    let _ = writeln!(out, "    as power  {power}  (coef {})", interval(Some(ci)));
}

/// The joint fit's law for the profiles' curvature, when it has one.
fn profiles_line(out: &mut String, law: &LrLaw) {
    if law.curvature_law.is_empty() {
        return;
    }
    let terms: Vec<String> = law
        .curvature_law
        .iter()
        .map(|p| {
            format!(
                "{} = {} [{}, {}]",
                p.name,
                number(p.value, 4),
                number(p.ci[0], 3),
                number(p.ci[1], 3)
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "    profiles  L = m(N, D) + k·(ln lr − ln lr*)², ln k = k0 + kN·ln(N/N0) + kD·ln(D/D0): {}",
        terms.join(", ")
    );
}

fn curvature(out: &mut String, analysis: &LrAnalysis) {
    let Some(test) = &analysis.curvature else {
        return;
    };
    let verdict = if test.significant {
        "the straight law is rejected: the optimal LR bends"
    } else {
        "the straight law is not rejected"
    };
    let _ = writeln!(out, "\n[[Curvature test]] {} fit", test.method.name());
    let _ = writeln!(
        out,
        "    terms {}: F = {} on ({}, {}) dof, p = {}: {verdict}",
        test.terms.join(", "),
        number(test.f, 4),
        test.df[0],
        test.df[1],
        number(test.p_value, 3)
    );
    if let Some(check) = &analysis.curvature_law_check {
        let _ = writeln!(
            out,
            "    profile curvatures against their power law: F = {} on ({}, {}) dof, p = {} \
             (σ = {} with the law, {} with one per cell)",
            number(check.f, 4),
            check.df[0],
            check.df[1],
            number(check.p_value, 3),
            number(check.sigma_law, 3),
            number(check.sigma_cell, 3)
        );
    }
}

fn batch_section(out: &mut String, batch: &BatchAnalysis, level: f64) {
    let ci = format!("{}% CI", level_percent(level));
    let mut rows = vec![["N", "D", "sizes", "best B", "B*", &ci, "status"]
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()];
    for cell in &batch.cells {
        let status = match cell.status {
            CellStatus::FewLrs => "fewer than 3 batch sizes".to_string(),
            CellStatus::EdgeLow => "edge: best at the smallest B".into(),
            CellStatus::EdgeHigh => "edge: best at the largest B".into(),
            other => other.describe().to_string(),
        };
        rows.push(vec![
            number(cell.n, 3),
            number(cell.d, 3),
            cell.batches.to_string(),
            number(cell.b_best, 3),
            cell.b_opt.map_or("-".into(), |v| number(v, 3)),
            interval(cell.ci),
            status,
        ]);
    }
    let _ = writeln!(out, "\n[[Batch size]]");
    out.push_str(&columns(&rows, &[6], "    "));
    match &batch.law {
        Some(law) => law_section(out, "Batch law", law, level),
        None => {
            let _ = writeln!(
                out,
                "    no batch law: too few (N, D) cells with an interior optimal batch size"
            );
        }
    }
}

fn predictions(out: &mut String, analysis: &LrAnalysis) {
    if analysis.predictions.is_empty() {
        return;
    }
    let ci = format!("{}% CI", level_percent(analysis.level));
    let with_batch = analysis.predictions.iter().any(|p| p.b.is_some());
    let mut header = vec!["N".to_string(), "D".into(), "lr*".into(), ci.clone()];
    if with_batch {
        header.extend(["B*".to_string(), ci]);
    }
    let mut rows = vec![header];
    for p in &analysis.predictions {
        let mut row = vec![
            number(p.n, 4),
            number(p.d, 4),
            number(p.lr_opt, 4),
            interval(Some(p.ci)),
        ];
        if with_batch {
            row.extend([p.b.map_or("-".into(), |b| number(b, 4)), interval(p.b_ci)]);
        }
        rows.push(row);
    }
    let _ = writeln!(out, "\n[[Predictions]]");
    out.push_str(&columns(&rows, &[], "    "));
}

fn backtest(out: &mut String, analysis: &LrAnalysis) {
    let b = &analysis.backtest;
    let _ = writeln!(
        out,
        "\n[[Backtest]] {} fit, {}: held-out cells' optima against the refitted law",
        b.method.name(),
        b.form.name()
    );
    let mut rows = vec![[
        "extrapolating",
        "train",
        "held out",
        "scored",
        "mean |log2 err|",
        "bias (log2)",
        "PI coverage",
        "loss penalty",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<_>>()];
    let opt = |v: Option<f64>, digits| v.map_or("-".to_string(), |v| number(v, digits));
    for (name, split) in [("in D", &b.d_extrapolation), ("in N", &b.n_extrapolation)] {
        rows.push(vec![
            name.to_string(),
            split.train_cells.to_string(),
            split.held_out_cells.to_string(),
            split.scored.len().to_string(),
            opt(split.mean_abs_log2_error, 3),
            opt(split.bias_log2, 3),
            split
                .coverage
                .map_or("-".into(), |c| format!("{}%", number(100.0 * c, 3))),
            opt(split.mean_loss_penalty, 3),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    for (name, split) in [("in D", &b.d_extrapolation), ("in N", &b.n_extrapolation)] {
        describe_split(out, name, split);
    }
}

fn describe_split(out: &mut String, name: &str, split: &Split) {
    let _ = writeln!(out, "    {name}: {}", split.description);
    if let Some(note) = &split.note {
        let _ = writeln!(out, "      ({note})");
    }
}
