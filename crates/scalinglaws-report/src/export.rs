//! One exporter trait over "a thing that can be reported", with one exporter per format
//! (after hyperfine's `export` module: one file per format, one trait): text for a terminal,
//! markdown for a pull request or a wiki, JSON for a program, HTML for a browser (a fit's rich
//! page, or any report's text in a self-contained page). A front end picks a [`Format`]
//! and calls [`export`]; it never formats a result itself, so the CLI and Python cannot drift.

use scalinglaws::document::{envelope, Document};
use scalinglaws::error::Wording;

/// A result that can be written in every format.
pub trait Report {
    /// What the JSON export serialises (the result itself, without the report's context), as
    /// the document it is (its `kind` and `schema_version` first).
    type Json: Document + ?Sized;

    /// The value the JSON export writes.
    fn json_value(&self) -> &Self::Json;

    /// The text report, as the CLI prints it, its mentions of settings in `wording` (the
    /// command line's `--where`, Python's `where=`).
    fn text(&self, wording: &dyn Wording) -> String;

    /// The markdown report; by default the text report with its `[[Section]]` lines as
    /// headings and the rest in fenced blocks (alignment kept).
    fn markdown(&self, wording: &dyn Wording) -> String {
        crate::markdown::from_text(&self.text(wording))
    }

    /// The HTML page; by default a self-contained page holding the text report as it prints.
    fn html(&self, wording: &dyn Wording) -> String {
        crate::html::plain_page("scalinglaws report", &self.text(wording))
    }
}

/// A format a report can be exported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Markdown,
    Json,
    Html,
}

impl Format {
    /// `text`, `markdown` (or `md`), `json`, `html`.
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "text" => Some(Format::Text),
            "markdown" | "md" => Some(Format::Markdown),
            "json" => Some(Format::Json),
            "html" => Some(Format::Html),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Markdown => "markdown",
            Format::Json => "json",
            Format::Html => "html",
        }
    }
}

/// Writes a report in one format, worded for a front end (the JSON is the same for all).
pub trait Exporter {
    fn export<R: Report + ?Sized>(
        &self,
        report: &R,
        wording: &dyn Wording,
    ) -> Result<String, serde_json::Error>;
}

/// The text report.
pub struct TextExporter;
/// The markdown report.
pub struct MarkdownExporter;
/// The JSON of the result (pretty-printed, as every `--json` writes it).
pub struct JsonExporter;
/// The self-contained HTML page (`html.rs`).
pub struct HtmlExporter;

impl Exporter for TextExporter {
    fn export<R: Report + ?Sized>(
        &self,
        report: &R,
        wording: &dyn Wording,
    ) -> Result<String, serde_json::Error> {
        Ok(report.text(wording))
    }
}

impl Exporter for MarkdownExporter {
    fn export<R: Report + ?Sized>(
        &self,
        report: &R,
        wording: &dyn Wording,
    ) -> Result<String, serde_json::Error> {
        Ok(report.markdown(wording))
    }
}

impl Exporter for JsonExporter {
    fn export<R: Report + ?Sized>(
        &self,
        report: &R,
        _wording: &dyn Wording,
    ) -> Result<String, serde_json::Error> {
        crate::json::pretty(&envelope(report.json_value()))
    }
}

impl Exporter for HtmlExporter {
    fn export<R: Report + ?Sized>(
        &self,
        report: &R,
        wording: &dyn Wording,
    ) -> Result<String, serde_json::Error> {
        Ok(report.html(wording))
    }
}

/// The report in `format`, its words in `wording`.
pub fn export<R: Report + ?Sized>(
    report: &R,
    format: Format,
    wording: &dyn Wording,
) -> Result<String, serde_json::Error> {
    match format {
        Format::Text => TextExporter.export(report, wording),
        Format::Markdown => MarkdownExporter.export(report, wording),
        Format::Json => JsonExporter.export(report, wording),
        Format::Html => HtmlExporter.export(report, wording),
    }
}
