//! The report of `fit` (and of Python's `Fit.report()`): the lmfit-style text report of
//! [`text::render`](crate::text::render), its markdown with pipe tables, and the fit's JSON;
//! and a fit's page (`scalinglaws report`, Python's `Fit.report_html`), drawn by `html.rs`.

use scalinglaws::error::Wording;
use scalinglaws::job::{FitOutcome, FitPage};
use scalinglaws::uncertainty::FitRecord;

use crate::markdown;
use crate::text;

/// A fit; its hints are worded for the front end that exports it (`--where` or `where=`).
pub struct FitReport<'a> {
    pub result: &'a FitRecord,
}

impl crate::Report for FitReport<'_> {
    type Json = FitRecord;
    fn json_value(&self) -> &FitRecord {
        self.result
    }
    fn text(&self, wording: &dyn Wording) -> String {
        text::render(self.result, wording)
            + &quality(self.result, wording)
            + &super::sweep::section(self.result.sweep.as_ref(), true, wording)
    }
    fn markdown(&self, wording: &dyn Wording) -> String {
        let qc = quality(self.result, wording)
            + &super::sweep::section(self.result.sweep.as_ref(), true, wording);
        let qc = match qc.is_empty() {
            true => qc,
            false => format!("\n```text\n{qc}```\n"),
        };
        render_markdown(self.result, wording) + &qc
    }
}

/// The fit workflow's output: its record's report.
impl crate::Report for FitOutcome {
    type Json = FitOutcome;
    fn json_value(&self) -> &FitOutcome {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        FitReport {
            result: &self.result,
        }
        .text(wording)
    }
    fn markdown(&self, wording: &dyn Wording) -> String {
        FitReport {
            result: &self.result,
        }
        .markdown(wording)
    }
}

/// The QC section of a fit that flagged rows: the flags (warn) or the rows removed (exclude).
fn quality(result: &FitRecord, wording: &dyn Wording) -> String {
    let Some(qc) = &result.qc else {
        return String::new();
    };
    let title = match qc.mode {
        scalinglaws::job::qc::QcMode::Exclude => {
            "[[Quality control]] flagged rows removed before the fit\n".to_string()
        }
        _ => format!(
            "[[Quality control]] flagged rows, all fitted ({} removes them)\n",
            wording.word(&scalinglaws::error::Setting::Qc.text("exclude"))
        ),
    };
    // After a sweep QC judges the frontier rows: a cell's best run, its loss the cell's
    // frontier.
    let swept = match result.sweep.is_some() {
        true => {
            "    each row is a cell's best run, its loss the cell's frontier (see Sweep frontier)\n"
        }
        false => "",
    };
    title + swept + &super::qc::section(&qc.report, Some(&qc.removed), wording)
}

/// The page of a fit: `command` is the line that reproduces the page (shown as typed).
pub struct FitPageReport<'a> {
    pub page: &'a FitPage,
    pub command: &'a str,
}

impl FitPageReport<'_> {
    fn fit(&self) -> FitReport<'_> {
        FitReport {
            result: &self.page.outcome.result,
        }
    }
}

impl crate::Report for FitPageReport<'_> {
    type Json = FitRecord;
    fn json_value(&self) -> &FitRecord {
        &self.page.outcome.result
    }
    fn text(&self, wording: &dyn Wording) -> String {
        self.fit().text(wording)
    }
    fn markdown(&self, wording: &dyn Wording) -> String {
        self.fit().markdown(wording)
    }
    fn html(&self, wording: &dyn Wording) -> String {
        let report = self.fit().text(wording);
        crate::html::fit_page_html(self.page, self.command, &report, wording)
    }
}

/// The fit report as markdown: the header and statistics as bullet lists, parameters and
/// intervals as pipe tables, the other sections as in the text report.
fn render_markdown(result: &FitRecord, wording: &dyn Wording) -> String {
    let mut out = markdown::heading(&format!("Fit: {}", result.law));
    // The formula as code: its `*` and `^` are not emphasis.
    let header: Vec<(&str, String)> = text::header_rows(result, wording)
        .into_iter()
        .map(|(label, value)| match label {
            "formula" => {
                let lines: Vec<&str> = value.lines().map(str::trim).collect();
                (label, format!("`{}`", lines.join("; ")))
            }
            _ => (label, value),
        })
        .collect();
    out.push_str(&markdown::bullets(&header));
    out.push_str(&markdown::heading("Fit statistics"));
    out.push_str(&markdown::bullets(&text::statistics_rows(result)));
    out.push_str(&markdown::heading(&format!(
        "Parameters (standard errors: {})",
        result.covariance_kind
    )));
    out.push_str(&markdown::table(&text::parameter_table(result), &[0, 4, 5]));
    out.push('\n');
    if let Some(heading) = text::interval_heading(result) {
        out.push_str(&markdown::from_text(&heading));
        out.push('\n');
        out.push_str(&markdown::table(&text::interval_table(result), &[0, 2, 3]));
        out.push('\n');
    }
    let mut rest = String::new();
    text::residual_scale(&mut rest, result);
    text::extrapolation(&mut rest, result);
    text::correlations(&mut rest, result);
    if !rest.is_empty() {
        out.push_str(&markdown::from_text(&rest));
        out.push('\n');
    }
    if !result.warnings.is_empty() {
        out.push_str(&markdown::heading("Warnings"));
        for warning in &result.warnings {
            out.push_str(&format!("- {}\n", warning.worded(wording)));
        }
    }
    out.trim_end().to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use scalinglaws::error::Neutral;
    use scalinglaws::uncertainty::FitRecord;

    use super::FitReport;
    use crate::{export, Format};

    /// The markdown of the saved fit whose text report is `report_of_a_saved_fit`: headings,
    /// bullet lists, pipe tables with one row per parameter, the warnings as a list.
    #[test]
    fn markdown_of_a_saved_fit() {
        let text = include_str!("../../tests/fixtures/data_constrained_fit.json");
        let result = FitRecord::from_json(text).expect("the fixture reads");
        let report = FitReport { result: &result };
        let markdown = export(&report, Format::Markdown, &Neutral).unwrap();
        let table_rows = markdown
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| name") && !l.starts_with("| :"))
            .count();
        assert!(table_rows >= result.params.len(), "{markdown}");
        insta::with_settings!({
            snapshot_path => "../../tests/snapshots",
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!("markdown_of_a_saved_fit", markdown);
        });
    }
}
