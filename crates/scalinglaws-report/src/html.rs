//! The HTML exporter: self-contained pages (inline SVG and CSS, no scripts, no network).
//! Every report has one ([`plain_page`]: its text report in `<pre>`, the default of
//! [`Report::html`](crate::Report::html)); a fit's page ([`fit_page_html`], what `scalinglaws
//! report` and Python's `Fit.report_html` write) has the parameter table and intervals, the
//! warnings, the plots (data and curves, residuals, the compute-optimal frontier, bootstrap
//! distributions), the allocation at a few budgets, a backtest, the text report and the command
//! that reproduces the page. Every number comes computed ([`scalinglaws::job::FitPage`]): this
//! file only draws.
//! The page never scrolls sideways at 1280 px: plots are at most [`PLOT_WIDTH`] wide (so CSS
//! never shrinks their text below the plots' 11 px) and preformatted text wraps.

use std::fmt::Write as _;

use scalinglaws::analysis::allocation::Frontier;
use scalinglaws::analysis::backtest::{Backtest, BacktestPoint};
use scalinglaws::error::Wording;
use scalinglaws::fit::FitCaveat;
use scalinglaws::job::report::{BacktestScale, PageAllocation, PageBacktest};
use scalinglaws::job::FitPage;
use scalinglaws::uncertainty::FitRecord;
use scalinglaws_plot::{Layer, Page};

use crate::plots::{bootstrap_page, fit_page, frontier_page, residuals_page};
use crate::text::number;

/// A page holding a text report as it prints, for a report with no page of its own.
pub fn plain_page(title: &str, text: &str) -> String {
    document(
        title,
        &format!("<h1>{}</h1>\n<pre>{}</pre>\n", escape(title), escape(text)),
    )
}

fn document(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// The page of a fit ([`FitPageReport`](crate::analyses::fit::FitPageReport)'s HTML).
/// `report` is the fit's text report (with its QC and sweep sections), shown whole.
pub(crate) fn fit_page_html(
    page: &FitPage,
    command: &str,
    report: &str,
    wording: &dyn Wording,
) -> String {
    let (result, law, data) = (&page.outcome.result, &page.outcome.law, &page.outcome.data);
    let mut body = String::new();
    let title = format!(
        "{} fit to {}",
        result.law,
        result
            .data
            .as_ref()
            .map_or("the data", |d| d.source.as_str())
    );
    let _ = writeln!(body, "<h1>{}</h1>", escape(&title));
    let _ = writeln!(
        body,
        "<p class=\"formula\"><code>{} = {}</code></p>",
        escape(&result.target),
        escape(&result.formula)
    );
    body.push_str(&parameters(result));
    body.push_str(&warnings(result, wording));
    body.push_str(&section(
        "Data and fitted law",
        &picture(fit_page(law, result, data, 0, page.level)),
    ));
    body.push_str(&section(
        "Residuals",
        &picture(residuals_page(law, result, data)),
    ));
    if let Some(computed) = &page.allocation {
        body.push_str(&allocation(computed, &page.fit_caveats, wording));
    }
    if result
        .bootstrap
        .as_ref()
        .is_some_and(|b| !b.draws.is_empty())
    {
        body.push_str(&section(
            "Bootstrap distributions",
            &picture(bootstrap_page(result)),
        ));
    }
    body.push_str(&backtest_section(&page.backtest, wording));
    body.push_str(&section(
        "Fit report",
        &format!("<pre>{}</pre>", escape(report)),
    ));
    body.push_str(&section(
        "Reproduce",
        &format!("<pre>{}</pre>", escape(command)),
    ));
    document(&title, &body)
}

const STYLE: &str = "body{font-family:'DejaVu Sans',system-ui,sans-serif;max-width:1320px;\
margin:2em auto;padding:0 1em;color:#222}h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;\
border-bottom:1px solid #ddd}table{border-collapse:collapse;margin:1em 0}td,th{padding:.3em \
.8em;border-bottom:1px solid #eee;text-align:right}th{background:#f6f6f6}td:first-child,\
th:first-child{text-align:left}pre{background:#f8f8f8;padding:1em;overflow-x:auto;\
font-size:.85em;white-space:pre-wrap;overflow-wrap:anywhere}.warning{color:#a33}\
svg{max-width:100%;height:auto}";

/// The widest plot: inside the page's 1248-px column at a 1280-px window, scrollbar included.
pub const PLOT_WIDTH: u32 = 1200;
/// Plots are drawn this many times finer than shown (smooth curves; see `svg_scaled`).
const PLOT_SCALE: u32 = 2;

/// A plot's size in the page: panels of up to 640 × 440 pixels, as many columns as the page
/// has, at most [`PLOT_WIDTH`] wide.
fn plot_size(page: &Page) -> (u32, u32) {
    let columns = page.columns.max(1) as u32;
    let rows = page.panels.len().div_ceil(page.columns.max(1)).max(1) as u32;
    let width = (640 * columns).min(PLOT_WIDTH);
    let panel = if columns >= 3 { 400 } else { 440 };
    let title = if page.title.is_empty() { 0 } else { 40 };
    (width, panel * rows + title)
}

fn section(title: &str, content: &str) -> String {
    format!(
        "<section>\n<h2>{}</h2>\n{content}\n</section>\n",
        escape(title)
    )
}

fn svg(page: &Page) -> Result<String, String> {
    let text = scalinglaws_plot::svg_scaled(page, plot_size(page), PLOT_SCALE)
        .map_err(|e| e.to_string())?;
    // Inline: drop the XML declaration, keep the <svg> element.
    Ok(text
        .find("<svg")
        .map_or(text.clone(), |start| text[start..].to_string()))
}

/// A plot inline, or why it could not be drawn (the rest of the report stands).
fn picture<E: std::fmt::Display>(page: Result<Page, E>) -> String {
    match page.map_err(|e| e.to_string()).and_then(|p| svg(&p)) {
        Ok(svg) => svg,
        Err(error) => format!(
            "<p class=\"warning\">No plot: {}</p>",
            escape(&error.to_string())
        ),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn parameters(result: &FitRecord) -> String {
    let mut rows = String::new();
    for (name, p) in &result.params {
        let interval = p.ci.map_or(String::new(), |[lo, hi]| {
            format!("[{}, {}]", number(lo, 4), number(hi, 4))
        });
        let mut flags = Vec::new();
        if p.fixed {
            flags.push("fixed");
        }
        if p.at_bound {
            flags.push("at a bound");
        }
        let _ = writeln!(
            rows,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(name),
            number(p.value, 6),
            p.stderr.map_or("-".into(), |s| number(s, 3)),
            interval,
            flags.join(", ")
        );
    }
    let level = result.bootstrap.as_ref().map_or(String::new(), |b| {
        format!(" ({} bootstrap)", level_percent(b.level))
    });
    section(
        "Parameters",
        &format!(
            "<p>{} rows, objective {}, {}.</p>\n<table>\n<tr><th>parameter</th><th>value</th>\
             <th>standard error</th><th>interval{level}</th><th>flags</th></tr>\n{rows}</table>",
            result.n_obs,
            number(result.objective, 6),
            if result.converged {
                "converged"
            } else {
                "not converged"
            }
        ),
    )
}

fn warnings(result: &FitRecord, wording: &dyn Wording) -> String {
    if result.warnings.is_empty() {
        return section("Warnings", "<p>None.</p>");
    }
    let items: String = result
        .warnings
        .iter()
        .map(|w| {
            format!(
                "<li class=\"warning\">{}</li>\n",
                escape(&w.worded(wording))
            )
        })
        .collect();
    section("Warnings", &format!("<ul>\n{items}</ul>"))
}

fn allocation(computed: &PageAllocation, caveats: &[FitCaveat], wording: &dyn Wording) -> String {
    let top = computed.largest_compute;
    let title = "Compute-optimal allocation (FLOPs = 6·N·D)";
    let frontier = match &computed.table {
        Ok(frontier) => frontier,
        Err(error) => {
            let why = format!("No allocation: {}", escape(&error.worded(wording)));
            return section(title, &format!("<p class=\"warning\">{why}</p>"));
        }
    };
    let rows = allocation_rows(frontier);
    let frontier_plot = picture(computed.plot.as_ref().map(|plot| {
        let mut page = frontier_page(plot);
        // Shaded past the largest run, as the fit plot's extrapolation is.
        if let Some(panel) = page.panels.first_mut() {
            panel.layers.insert(
                0,
                Layer::Span {
                    from: top,
                    to: computed.plot_to,
                    label: format!("beyond the data (largest run C = {})", number(top, 2)),
                },
            );
        }
        page
    }));
    let warnings: String = caveats
        .iter()
        .map(|c| {
            let line = format!("warning: {}", crate::caveats::describe(c));
            format!("<p class=\"warning\">{}</p>\n", escape(&line))
        })
        .collect();
    section(
        title,
        &format!(
            "<p>At the largest compute in the data ({}) and 10× and 100× beyond it{}.</p>\n\
             {warnings}<table>\n<tr><th>budget C</th><th>N*</th><th>D*</th><th>D*/N*</th><th>loss</th></tr>\n\
             {rows}</table>\n{frontier_plot}",
            number(top, 3),
            if frontier.draws > 0 {
                format!(
                    ", with {} intervals from {} bootstrap draws",
                    level_percent(frontier.level.unwrap_or(scalinglaws::uncertainty::DEFAULT_LEVEL)),
                    frontier.draws
                )
            } else {
                String::new()
            }
        ),
    )
}

/// One table row per budget: N*, D*, D*/N* and the loss with their intervals.
fn allocation_rows(frontier: &Frontier) -> String {
    let mut rows = String::new();
    for a in &frontier.allocations {
        let cell = |value: f64, key: &str| match a.ci.get(key) {
            Some([lo, hi]) => format!(
                "{} [{}, {}]",
                number(value, 4),
                number(*lo, 3),
                number(*hi, 3)
            ),
            None => number(value, 4),
        };
        let _ = writeln!(
            rows,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            number(a.budget, 3),
            cell(a.n, "N"),
            cell(a.d, "D"),
            cell(a.tokens_per_param, "tokens_per_param"),
            cell(a.loss, "loss")
        );
    }
    rows
}

/// A level as the page names it: 0.95 is "95%", 0.975 "97.5%".
fn level_percent(level: f64) -> String {
    format!("{}%", (level * 1000.0).round() / 10.0)
}

fn percent(share: Option<f64>) -> String {
    share.map_or("-".into(), |c| format!("{}%", number(100.0 * c, 3)))
}

/// Coverage of the held-out runs against the distance of the extrapolation.
fn distance_table(b: &Backtest) -> String {
    let bins = [(0.0, 0.25), (0.25, 0.5), (0.5, 1.0), (1.0, f64::INFINITY)];
    let mut rows = format!(
        "<table>\n<tr><th>decades beyond the training data</th><th>runs</th>\
         <th>inside the {} interval</th><th>inside the fit's own</th></tr>\n",
        level_percent(b.level)
    );
    for (lo, hi) in bins {
        let points: Vec<_> = b
            .splits
            .iter()
            .flat_map(|s| &s.points)
            .filter(|p| p.distance_decades > lo && p.distance_decades <= hi)
            .collect();
        if points.is_empty() {
            continue;
        }
        let share = |f: &dyn Fn(&BacktestPoint) -> Option<[f64; 2]>| {
            let with: Vec<bool> = points
                .iter()
                .filter_map(|p| f(p).map(|[l, h]| l <= p.actual && p.actual <= h))
                .collect();
            (!with.is_empty())
                .then(|| with.iter().filter(|x| **x).count() as f64 / with.len() as f64)
        };
        let label = if hi.is_finite() {
            format!("{lo}–{hi}")
        } else {
            format!("over {lo}")
        };
        rows.push_str(&format!(
            "<tr><td>{label}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            points.len(),
            percent(share(&|p| p.pi)),
            percent(share(&|p| p.pi_fit)),
        ));
    }
    rows.push_str("</table>");
    rows
}

/// The page's backtest: rolling origins, calibrated, or the smaller 80 % against the rest.
fn backtest_section(
    outcome: &Result<PageBacktest, scalinglaws::Error>,
    wording: &dyn Wording,
) -> String {
    let content = match outcome {
        Err(error) => format!(
            "<p class=\"warning\">No backtest: {}</p>",
            escape(&error.worded(wording))
        ),
        Ok(PageBacktest {
            backtest: b,
            rolling,
            by,
        }) => match &b.metrics {
            None => "<p>No held-out run could be predicted.</p>".to_string(),
            Some(m) => {
                let by = match by {
                    BacktestScale::Compute => "compute 6·N·D",
                    BacktestScale::Variable(name) => name.as_str(),
                };
                let how = if *rolling {
                    format!(
                        "Fitted on the scale groups by {by} up to each of {} rolling origins, \
                         predicting every run beyond ({} predictions); each split's intervals \
                         are calibrated by backtests nested inside its own training runs.",
                        b.splits.len(),
                        m.points
                    )
                } else {
                    format!(
                        "Too few scale groups for rolling origins: fitted on the smallest 80% \
                         of runs by {by}, predicting the largest 20% ({} runs), with the fit's \
                         own (uncalibrated) intervals.",
                        m.points
                    )
                };
                let level = level_percent(b.level);
                format!(
                    "<p>{how}</p>\n<table>\n<tr><th>measure</th><th>value</th></tr>\n\
                     <tr><td>mean absolute relative error</td><td>{}%</td></tr>\n\
                     <tr><td>median absolute relative error</td><td>{}%</td></tr>\n\
                     <tr><td>largest absolute relative error</td><td>{}%</td></tr>\n\
                     <tr><td>bias (mean signed relative error)</td><td>{}%</td></tr>\n\
                     <tr><td>runs inside their {level} prediction interval</td><td>{}</td></tr>\n\
                     <tr><td>runs inside the fit's own {level} interval</td><td>{}</td></tr>\n</table>\n{}",
                    number(100.0 * m.are_mean, 3),
                    number(100.0 * m.are_median, 3),
                    number(100.0 * m.are_max, 3),
                    number(100.0 * m.bias, 3),
                    percent(m.pi_coverage),
                    percent(m.pi_fit_coverage),
                    distance_table(b),
                )
            }
        },
    };
    section("Backtest", &content)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_page_holds_the_text_escaped_and_stands_alone() {
        let page = plain_page("a <b> report", "x < 1 & y > \"2\"\n");
        assert!(page.starts_with("<!DOCTYPE html>\n"), "{page}");
        assert!(page.contains("<title>a &lt;b&gt; report</title>"), "{page}");
        assert!(
            page.contains("<pre>x &lt; 1 &amp; y &gt; &quot;2&quot;\n</pre>"),
            "{page}"
        );
        assert!(!page.contains("<script"), "{page}");
    }

    #[test]
    fn levels_are_named_as_percentages_without_spurious_digits() {
        assert_eq!(level_percent(0.95), "95%");
        assert_eq!(level_percent(0.975), "97.5%");
        assert_eq!(level_percent(0.8), "80%");
        assert_eq!(level_percent(0.999), "99.9%");
    }
}
