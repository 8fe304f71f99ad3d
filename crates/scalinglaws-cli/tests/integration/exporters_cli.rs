//! The CLI prints what the report crate's exporters write, byte for byte, so that the CLI and
//! Python (which call the same exporters) cannot drift: the fit report in text and markdown
//! against the exporters run on the fit's own JSON, that JSON against the JSON exporter, the
//! frontier of `optimal`, and the catalog of `laws`; `--format html`'s page of a fit's text.
//! The markdown of a fit is a snapshot.

use crate::common;

use common::{stdout_of, CHINCHILLA};
use scalinglaws::error::{Mention, Wording};
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::workflow::optimal::OptimalDocument;
use scalinglaws_report::analyses::fit::FitReport;
use scalinglaws_report::analyses::laws::Listing;
use scalinglaws_report::{export, Format};

/// The README's fit, its JSON written to a temporary file: (stdout, the file's text).
fn fit_with_json(extra: &[&str]) -> (String, String) {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("fit.json");
    let mut args: Vec<&str> = CHINCHILLA.to_vec();
    args.extend(extra);
    let shown = path.display().to_string();
    args.extend(["--json", &shown]);
    let stdout = stdout_of(&args);
    (stdout, std::fs::read_to_string(&path).unwrap())
}

/// The command line's words for the mentions a fit report and a frontier's make (`--where`,
/// `--max-params`, `--bootstrap K`), so the exporters' output can be compared with what the
/// command printed.
struct Options;

impl Wording for Options {
    fn word(&self, mention: &Mention) -> String {
        let option = |setting: &scalinglaws::error::Setting| {
            format!("--{}", setting.name().replace('_', "-"))
        };
        match mention {
            Mention::Name(setting) | Mention::Subject(setting) => option(setting),
            Mention::Value(setting, value) => format!("{} {}", option(setting), value.raw()),
            other => panic!("a fit or frontier report does not mention {other:?}"),
        }
    }
}

#[test]
fn the_fit_report_is_the_exporters_in_both_formats() {
    let (text, json) = fit_with_json(&[]);
    let result = FitRecord::from_json(&json).unwrap();
    let report = FitReport { result: &result };
    assert_eq!(text, export(&report, Format::Text, &Options).unwrap());
    assert_eq!(
        json,
        export(&report, Format::Json, &Options).unwrap() + "\n"
    );
    let (markdown, _) = fit_with_json(&["--format", "markdown"]);
    assert_eq!(
        markdown,
        export(&report, Format::Markdown, &Options).unwrap()
    );
    assert!(markdown.starts_with("### Fit: chinchilla\n"), "{markdown}");
    assert!(
        markdown.contains("| name | value | stderr | relative | bounds | flags |"),
        "{markdown}"
    );
}

#[test]
fn format_html_prints_the_text_report_in_a_self_contained_page() {
    let (text, json) = fit_with_json(&[]);
    let (html, _) = fit_with_json(&["--format", "html"]);
    let result = FitRecord::from_json(&json).unwrap();
    let report = FitReport { result: &result };
    assert_eq!(html, export(&report, Format::Html, &Options).unwrap());
    assert!(html.starts_with("<!DOCTYPE html>\n"), "{html}");
    assert!(html.ends_with("</html>\n"), "{html}");
    assert!(
        !html.contains("<script") && !html.contains("http"),
        "{html}"
    );
    // The text report whole, inside <pre>, with the README's `loss < 3.44` escaped.
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let escaped = escaped.replace('"', "&quot;");
    assert!(text.contains('<'), "{text}");
    assert!(html.contains(&format!("<pre>{escaped}</pre>")), "{html}");
}

#[test]
fn optimal_prints_the_exporters_report_of_its_json() {
    let directory = tempfile::tempdir().unwrap();
    let fit = directory.path().join("fit.json");
    let frontier_json = directory.path().join("frontier.json");
    let mut args: Vec<&str> = CHINCHILLA.to_vec();
    let fit_shown = fit.display().to_string();
    args.extend(["--json", &fit_shown]);
    stdout_of(&args);
    let shown = frontier_json.display().to_string();
    let optimal = |format: &str| {
        stdout_of(&[
            "optimal",
            &fit_shown,
            "--budget",
            "1e22,1e24",
            "--json",
            &shown,
            "--format",
            format,
        ])
    };
    let text = optimal("text");
    let written = std::fs::read_to_string(&frontier_json).unwrap();
    // The document is the report's whole input: read back, it renders as the command did.
    let report: OptimalDocument = serde_json::from_str(&written).unwrap();
    assert_eq!(text, export(&report, Format::Text, &Options).unwrap());
    assert_eq!(
        written,
        export(&report, Format::Json, &Options).unwrap() + "\n"
    );
    let markdown = optimal("markdown");
    assert_eq!(
        markdown,
        export(&report, Format::Markdown, &Options).unwrap()
    );
    assert!(
        markdown.contains("| budget C | N* | D* | D*/N* | loss |"),
        "{markdown}"
    );
}

#[test]
fn laws_prints_the_exporters_catalog() {
    let listing = Listing {
        laws: scalinglaws::law::catalog::listing().unwrap(),
    };
    assert_eq!(
        stdout_of(&["laws"]),
        export(&listing, Format::Text, &Options).unwrap()
    );
    assert_eq!(
        stdout_of(&["laws", "--json", "-"]),
        export(&listing, Format::Json, &Options).unwrap() + "\n"
    );
}
