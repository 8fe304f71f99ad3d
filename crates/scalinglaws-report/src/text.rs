//! The human report of a fit, in the spirit of lmfit's `fit_report`: what was fitted to what,
//! how well the search went, the parameters with their uncertainty, the correlations worth
//! knowing and the library's warnings. It is rendered from the `FitRecord` alone, so a fit read
//! back from JSON prints the same report.

use std::fmt::Write as _;

use scalinglaws::error::{Setting, Wording};
use scalinglaws::uncertainty::calibration::{regime_name, Calibration, Regime};
use scalinglaws::uncertainty::FitRecord;

/// Correlations with a larger magnitude are listed.
const CORRELATION_SHOWN: f64 = 0.5;

/// The report of a fit, the settings it mentions worded for a front end (`--where` or
/// `where=`).
pub fn render(result: &FitRecord, wording: &dyn Wording) -> String {
    let mut out = String::new();
    header(&mut out, result, wording);
    statistics(&mut out, result);
    parameters(&mut out, result);
    intervals(&mut out, result);
    residual_scale(&mut out, result);
    extrapolation(&mut out, result);
    correlations(&mut out, result);
    warnings(&mut out, result, wording);
    out
}

fn header(out: &mut String, result: &FitRecord, wording: &dyn Wording) {
    let _ = writeln!(out, "[[Fit]]");
    aligned(out, &header_rows(result, wording));
}

/// What was fitted to what: law, formula, data, rows, variables, target, objective.
pub(crate) fn header_rows(
    result: &FitRecord,
    wording: &dyn Wording,
) -> Vec<(&'static str, String)> {
    let mut rows: Vec<(&str, String)> = Vec::new();
    rows.push(("law", result.law.clone()));
    // A derived target reads "y=log(loss)": the formula shows its name, the target row its
    // definition.
    let target_name = result.target.split('=').next().unwrap_or(&result.target);
    rows.push(("formula", formula_lines(target_name, &result.formula)));
    if let Some(citation) = &result.citation {
        rows.push(("citation", citation.clone()));
    }
    if let Some(data) = &result.data {
        rows.push(("data", data.source.clone()));
        let mut rows_line = format!("{} used of {} read", result.n_obs, data.rows_read);
        if data.rows_filtered > 0 || !data.filters.is_empty() {
            rows_line.push_str(&format!(
                "; {} removed by {} {}",
                data.rows_filtered,
                wording.word(&Setting::Where.named()),
                data.filters
                    .iter()
                    .map(|f| format!("\"{f}\""))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
        }
        if let Some(qc) = result.qc.as_ref().filter(|qc| !qc.removed.is_empty()) {
            rows_line.push_str(&format!(
                "; {} removed by {}",
                qc.removed.len(),
                wording.word(&Setting::Qc.text("exclude"))
            ));
        }
        rows.push(("rows", rows_line));
    } else {
        rows.push(("rows", result.n_obs.to_string()));
    }
    let variables: Vec<String> = result
        .variables
        .iter()
        .map(|(variable, source)| {
            if source == variable {
                variable.clone()
            } else if source.starts_with(&format!("{variable}=")) {
                source.clone()
            } else {
                format!("{variable} = '{source}'")
            }
        })
        .collect();
    rows.push(("variables", variables.join(", ")));
    rows.push(("target", result.target.clone()));
    let settings = &result.settings;
    let f_scale = if settings.loss.name() == "linear" {
        String::new()
    } else {
        format!(" (f_scale {})", shortest(settings.f_scale))
    };
    match &result.family {
        Some(family) => rows.extend(family_rows(family, settings)),
        None => rows.push((
            "objective",
            format!(
                "sum of {} loss{f_scale} on {} residuals",
                settings.loss.name(),
                settings.space.name()
            ),
        )),
    }
    rows
}

/// The header rows of a likelihood fit: its objective, dispersion and ν.
fn family_rows(
    family: &scalinglaws::fit::family::FamilyFit,
    settings: &scalinglaws::fit::FitSettings,
) -> Vec<(&'static str, String)> {
    let mut rows = vec![("objective", family_objective(family))];
    if let Some((name, value)) = &family.dispersion {
        let held = settings.family.is_some_and(|f| f.dispersion.is_some());
        let how = if !held { "fitted" } else { "held" };
        rows.push((
            "dispersion",
            format!("{name} = {} ({how})", shortest(*value)),
        ));
        if let Some((adjusted, se)) = family.adjusted_dispersion {
            let scale = if name == "rho" { "logit" } else { "ln" };
            rows.push((
                "new runs",
                format!(
                    "{name} = {} (Cox-Reid adjusted, se {} on {scale} {name}): prediction intervals draw at it",
                    shortest(adjusted),
                    number(se, 3)
                ),
            ));
        }
    }
    if let Some(nu) = family.nu {
        rows.push(("nu", shortest(nu)));
    }
    rows
}

/// The objective line of a likelihood fit: which family, of what.
fn family_objective(family: &scalinglaws::fit::family::FamilyFit) -> String {
    let of = match family.name.as_str() {
        "poisson" | "negative_binomial" => "counts".to_string(),
        "binomial" | "beta_binomial" => "successes out of trials".to_string(),
        _ if family.space == scalinglaws::fit::Space::Log => "ln y".to_string(),
        _ => "y".to_string(),
    };
    format!("negative log-likelihood, {} family of {of}", family.name)
}

fn statistics(out: &mut String, result: &FitRecord) {
    let _ = writeln!(out, "[[Fit statistics]]");
    aligned(out, &statistics_rows(result));
}

/// How well the search went and how well the law fits.
pub(crate) fn statistics_rows(result: &FitRecord) -> Vec<(&'static str, String)> {
    let optima = &result.optima;
    let mut search = format!(
        "{} start{}, {} distinct optim{}, best reached by {}",
        optima.starts,
        if optima.starts == 1 { "" } else { "s" },
        optima.distinct,
        if optima.distinct == 1 { "um" } else { "a" },
        optima.best_starts
    );
    if optima.diverged > 0 {
        search.push_str(&format!(", {} diverged", optima.diverged));
    }
    if optima.unconverged > 0 {
        search.push_str(&format!(", {} unconverged", optima.unconverged));
    }
    if optima.stalled > 0 {
        search.push_str(&format!(", {} stalled", optima.stalled));
    }
    if optima.screened > 0 {
        search.push_str(&format!(", {} screened", optima.screened));
    }
    if optima.failed > 0 {
        search.push_str(&format!(", {} failed", optima.failed));
    }
    let gap = match (optima.gap, optima.relative_gap) {
        (Some(gap), Some(relative)) => {
            format!(
                "{} ({} of the best objective)",
                number(gap, 3),
                percent(relative)
            )
        }
        (Some(gap), None) => number(gap, 3),
        _ => "none (one optimum)".to_string(),
    };
    let converged = if result.converged { "yes" } else { "NO" };
    let stats = &result.stats;
    let rows: Vec<(&str, String)> = vec![
        ("objective", number(result.objective, 6)),
        (
            "converged",
            format!(
                "{converged} ({}, {} iterations)",
                result.termination, result.iterations
            ),
        ),
        ("search", search),
        ("gap to next", gap),
        ("data points", result.n_obs.to_string()),
        (
            "free params",
            format!("{} ({} degrees of freedom)", stats.n_params, stats.dof),
        ),
        ("R²", optional(stats.r2, 6)),
        ("RMSE", optional(stats.rmse, 4)),
        ("residual σ", optional(stats.residual_scale, 4)),
        ("log-lik.", optional(stats.log_likelihood, 6)),
        ("AIC", optional(stats.aic, 6)),
        ("BIC", optional(stats.bic, 6)),
        (
            "condition",
            result
                .condition_number
                .map_or("-".to_string(), |c| format!("{c:.2e} (scaled Hessian)")),
        ),
    ];
    rows
}

fn parameters(out: &mut String, result: &FitRecord) {
    let _ = writeln!(
        out,
        "[[Parameters]] (standard errors: {})",
        result.covariance_kind
    );
    out.push_str(&columns(&parameter_table(result), &[0, 4, 5], "    "));
}

/// The parameters' table: name, value, stderr, relative, bounds, flags.
pub(crate) fn parameter_table(result: &FitRecord) -> Vec<[String; 6]> {
    let mut table: Vec<[String; 6]> = vec![[
        "name".into(),
        "value".into(),
        "stderr".into(),
        "relative".into(),
        "bounds".into(),
        "flags".into(),
    ]];
    for (name, param) in &result.params {
        let mut flags = Vec::new();
        if param.fixed {
            flags.push("fixed".to_string());
        }
        if param.at_bound {
            flags.push("at bound".to_string());
        }
        if param.linear && !param.fixed {
            flags.push("linear".to_string());
        }
        let bounds = match (param.lower, param.upper) {
            (None, None) => "-".to_string(),
            (lower, upper) => format!(
                "[{}, {}]",
                lower.map_or("-inf".to_string(), |v| format!("{v}")),
                upper.map_or("inf".to_string(), |v| format!("{v}"))
            ),
        };
        table.push([
            name.clone(),
            number(param.value, 7),
            param.stderr.map_or("-".into(), |s| number(s, 4)),
            param.rel_stderr.map_or("-".into(), percent),
            bounds,
            flags.join(", "),
        ]);
    }
    table
}

/// Bootstrap and profile intervals, when the fit has them.
fn intervals(out: &mut String, result: &FitRecord) {
    let Some(heading) = interval_heading(result) else {
        return;
    };
    let _ = writeln!(out, "{heading}");
    out.push_str(&columns(&interval_table(result), &[0, 2, 3], "    "));
}

/// "[[Intervals]] (95% level; sources)", when the fit has bootstrap or profile intervals.
pub(crate) fn interval_heading(result: &FitRecord) -> Option<String> {
    let bootstrap = result.bootstrap.as_ref();
    if bootstrap.is_none() && result.profiles.is_empty() {
        return None;
    }
    let level = bootstrap
        .map(|b| b.level)
        .or_else(|| result.profiles.first().map(|p| p.level))
        .unwrap_or(scalinglaws::uncertainty::DEFAULT_LEVEL);
    let mut sources = Vec::new();
    if let Some(b) = bootstrap {
        let unit = match (&b.cluster, b.clusters) {
            (Some(column), Some(count)) => format!("{count} runs of '{column}' resampled whole"),
            (Some(column), None) => format!("runs of '{column}' resampled whole"),
            _ => "rows resampled".to_string(),
        };
        sources.push(format!(
            "bootstrap: {} of {} replicates, {unit}, seed {}",
            b.draws.len(),
            b.replicates,
            b.seed
        ));
    }
    if !result.profiles.is_empty() {
        // A family's objective is −ℓ itself: its profile is the likelihood ratio; a loss's is
        // scaled by the sandwich (robust).
        let kind = if result.family.is_some() {
            "likelihood ratio"
        } else {
            "robust likelihood ratio"
        };
        sources.push(format!("profile: {kind}"));
    }
    Some(format!(
        "[[Intervals]] ({}% level; {})",
        level_percent(level),
        sources.join("; ")
    ))
}

/// Each free parameter's bootstrap stderr, bootstrap interval and profile interval.
pub(crate) fn interval_table(result: &FitRecord) -> Vec<[String; 4]> {
    let interval = |pair: Option<[f64; 2]>| {
        pair.map_or("-".to_string(), |[lo, hi]| {
            format!("[{}, {}]", number(lo, 5), number(hi, 5))
        })
    };
    let mut table: Vec<[String; 4]> = vec![[
        "name".into(),
        "boot stderr".into(),
        "bootstrap interval".into(),
        "profile interval".into(),
    ]];
    for (name, param) in result.params.iter().filter(|(_, p)| !p.fixed) {
        let profile =
            result
                .profiles
                .iter()
                .find(|p| &p.param == name)
                .map_or("-".to_string(), |p| {
                    let end =
                        |v: Option<f64>, open: &str| v.map_or(open.to_string(), |v| number(v, 5));
                    format!("[{}, {}]", end(p.ci[0], "open"), end(p.ci[1], "open"))
                });
        table.push([
            name.clone(),
            param.boot_stderr.map_or("-".into(), |s| number(s, 4)),
            interval(param.ci),
            profile,
        ]);
    }
    table
}

/// The fitted variance model of a heteroscedastic fit: σ0, s ± se, x0 and the LR test of s = 0.
pub(crate) fn residual_scale(out: &mut String, result: &FitRecord) {
    let Some(v) = &result.variance else {
        return;
    };
    let _ = writeln!(
        out,
        "[[Residual scale]] (heteroscedastic: σ(x) = σ0·(x/x0)^s, x = {})",
        scale_rule(&v.by, &v.rule)
    );
    let verdict = if v.lr_p_value < 0.05 {
        "s = 0 rejected at the 5% level"
    } else {
        "s = 0 not rejected at the 5% level"
    };
    aligned(
        out,
        &[
            (
                "σ0",
                format!("{} (at x0, fitted space)", number(v.sigma0, 4)),
            ),
            (
                "s",
                format!(
                    "{} ± {}{}",
                    number(v.s, 4),
                    v.s_stderr.map_or("-".into(), |se| number(se, 3)),
                    if v.at_limit {
                        " (at the limit tried)"
                    } else {
                        ""
                    }
                ),
            ),
            (
                "x0",
                format!("{} (weighted geometric mean of {})", number(v.x0, 4), v.by),
            ),
            (
                "LR test s = 0",
                format!(
                    "χ²₁ = {}, p = {}: {verdict}",
                    number(v.lr_statistic, 4),
                    number(v.lr_p_value, 3)
                ),
            ),
        ],
    );
}

/// How x is computed at a new point: `C` or `C = 6·N·D`.
fn scale_rule(by: &str, rule: &scalinglaws::uncertainty::ScaleRule) -> String {
    use scalinglaws::uncertainty::ScaleRule;
    match rule {
        ScaleRule::Variable { name } if name == by => by.to_string(),
        ScaleRule::Variable { name } => format!("{by} = {name}"),
        ScaleRule::Product { factor, of } => {
            let factor = (factor * 1e6).round() / 1e6;
            format!("{by} = {factor}·{}·{}", of[0], of[1])
        }
    }
}

/// How prediction intervals beyond the data are calibrated, or why they are not.
pub(crate) fn extrapolation(out: &mut String, result: &FitRecord) {
    let Some(c) = &result.calibration else {
        return;
    };
    let _ = writeln!(
        out,
        "[[Extrapolation]] (prediction intervals beyond the data)"
    );
    if !c.calibrated {
        let _ = writeln!(
            out,
            "    not calibrated: {}",
            c.reason.as_deref().unwrap_or("unknown reason")
        );
        return;
    }
    let scored = c.origins.iter().filter(|o| o.error.is_none()).count();
    let Some(update) = &c.prior else {
        legacy_extrapolation(out, c, scored);
        return;
    };
    let below = c
        .smallest_scale
        .map_or(String::new(), |s| format!(" or below {}", number(s, 4)));
    aligned(
        out,
        &[
            (
                "method",
                format!(
                    "cross-study prior {} updated by {scored} rolling-origin backtests by {} ({} scale groups)",
                    update.version, c.by, c.scale_groups
                ),
            ),
            (
                "scored",
                format!(
                    "{} held-out runs in {} (origin, scale group) units, up to {} decades out",
                    c.held_out,
                    c.units,
                    number(c.max_distance_decades, 3)
                ),
            ),
            (
                "form error",
                format!(
                    "sd {} one decade out, growing as d^{}, d = decades beyond {}{below}",
                    number(c.tau_per_decade, 4),
                    number(c.growth, 3),
                    number(c.largest_scale, 4)
                ),
            ),
            (
                "regime",
                format!(
                    "{}: the backtests removed {} of the prior's uncertainty",
                    regime_name(Regime::of(update.posterior.own_weight)),
                    percent(update.posterior.own_weight)
                ),
            ),
            (
                "coverage",
                format!(
                    "{} of the held-out runs inside the fit's own {}% pi, {} inside the prior's (each scale group once)",
                    c.coverage_fit.map_or("-".into(), percent),
                    level_percent(c.level),
                    c.coverage_calibrated.map_or("-".into(), percent)
                ),
            ),
        ],
    );
}

/// The extrapolation section of a fit file written before the cross-study prior.
fn legacy_extrapolation(out: &mut String, c: &Calibration, scored: usize) {
    aligned(
        out,
        &[
            (
                "method",
                format!(
                    "{scored} rolling-origin backtests by {} ({} scale groups)",
                    c.by, c.scale_groups
                ),
            ),
            (
                "widening",
                format!(
                    "sd² = sd_fit² + ({}·d^{})², d = decades beyond {}",
                    number(c.tau_per_decade, 4),
                    c.growth,
                    number(c.largest_scale, 4)
                ),
            ),
        ],
    );
}

pub(crate) fn correlations(out: &mut String, result: &FitRecord) {
    let Some(matrix) = &result.correlation else {
        return;
    };
    let mut pairs: Vec<(String, f64)> = Vec::new();
    for (i, row) in matrix.values.iter().enumerate() {
        for (j, value) in row.iter().enumerate().take(i) {
            if value.abs() > CORRELATION_SHOWN {
                pairs.push((
                    format!("C({}, {})", matrix.names[j], matrix.names[i]),
                    *value,
                ));
            }
        }
    }
    if pairs.is_empty() {
        return;
    }
    pairs.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()));
    let _ = writeln!(
        out,
        "[[Correlations]] (|rho| > {CORRELATION_SHOWN}, strongest first)"
    );
    let width = pairs
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    for (label, value) in pairs {
        let _ = writeln!(out, "    {} = {value:+.4}", pad_left(&label, width));
    }
}

fn warnings(out: &mut String, result: &FitRecord, wording: &dyn Wording) {
    if result.warnings.is_empty() {
        return;
    }
    let _ = writeln!(out, "[[Warnings]]");
    for warning in &result.warnings {
        let _ = writeln!(out, "    - {}", warning.worded(wording));
    }
}

/// Rows of cells as aligned columns (widths in characters), two spaces apart, each line after
/// `indent` and without trailing spaces: columns listed in `left` are left-aligned, the others
/// right-aligned. Every table the CLI prints goes through here.
pub fn columns<R: AsRef<[String]>>(rows: &[R], left: &[usize], indent: &str) -> String {
    let count = rows.first().map_or(0, |r| r.as_ref().len());
    let widths: Vec<usize> = (0..count)
        .map(|c| {
            rows.iter()
                .map(|r| r.as_ref()[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .as_ref()
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (cell, w))| {
                if left.contains(&c) {
                    pad_left(cell, *w)
                } else {
                    pad_right(cell, *w)
                }
            })
            .collect();
        let _ = writeln!(out, "{indent}{}", cells.join("  ").trim_end());
    }
    out
}

/// `cell` left-aligned in `width` characters. By hand, not `{:<width$}`: the formatter's
/// widths stop at 65,535 and panic above, and a cell (a track value, a run name, a formula)
/// may be longer.
pub fn pad_left(cell: &str, width: usize) -> String {
    let fill = width.saturating_sub(cell.chars().count());
    let mut out = String::with_capacity(cell.len() + fill);
    out.push_str(cell);
    out.extend(std::iter::repeat_n(' ', fill));
    out
}

/// `cell` right-aligned in `width` characters (by hand, as [`pad_left`]).
pub fn pad_right(cell: &str, width: usize) -> String {
    let fill = width.saturating_sub(cell.chars().count());
    let mut out = String::with_capacity(cell.len() + fill);
    out.extend(std::iter::repeat_n(' ', fill));
    out.push_str(cell);
    out
}

fn aligned(out: &mut String, rows: &[(&str, String)]) {
    let width = rows
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    for (label, value) in rows {
        let mut lines = value.lines();
        let _ = writeln!(
            out,
            "    {}  {}",
            pad_left(label, width),
            lines.next().unwrap_or("")
        );
        for line in lines {
            let _ = writeln!(out, "    {}  {line}", " ".repeat(width));
        }
    }
}

/// "y = body", then one "where NAME = ..." line per local definition; whitespace runs
/// collapsed.
fn formula_lines(target: &str, formula: &str) -> String {
    let parts: Vec<String> = formula
        .split(';')
        .map(|part| part.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|part| !part.is_empty())
        .collect();
    let Some((body, definitions)) = parts.split_last() else {
        return format!("{target} = {formula}");
    };
    let mut lines = vec![format!("{target} = {body}")];
    lines.extend(definitions.iter().enumerate().map(|(i, definition)| {
        let lead = if i == 0 { "  where" } else { "       " };
        format!("{lead} {definition}")
    }));
    lines.join("\n")
}

/// A confidence level as a percentage: 0.95 -> "95", 0.995 -> "99.5".
pub fn level_percent(level: f64) -> String {
    let text = format!("{:.4}", level * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// 0.0127 -> "1.27%", with three significant digits.
fn percent(fraction: f64) -> String {
    format!("{}%", number(fraction * 100.0, 3))
}

fn optional(value: Option<f64>, significant: usize) -> String {
    value.map_or("-".to_string(), |v| number(v, significant))
}

/// A setting as the user typed it: the shortest digits that read back as `value` (Rust's
/// round trip), in fixed notation from 1e-4 to 1e16 and in scientific notation outside, as
/// Python's `repr` does: 0.001 is "0.001", 3e-6 is "3e-6" (not "0.000003"). A value with more
/// than 12 significant digits is the noise of a computation (0.1*3e-5 =
/// 3.0000000000000004e-6): it is shown to 6, as `%g` would.
pub fn shortest(value: f64) -> String {
    let digits = |v: f64| {
        let scientific = format!("{v:e}");
        let mantissa = scientific.split('e').next().unwrap_or("");
        mantissa.chars().filter(char::is_ascii_digit).count()
    };
    let value = if value.is_finite() && digits(value) > 12 {
        format!("{value:.5e}").parse().unwrap_or(value)
    } else {
        value
    };
    if value == 0.0 || !value.is_finite() || (1e-4..1e16).contains(&value.abs()) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// `significant` digits, in fixed notation for magnitudes from 1e-3 to 1e6 and in scientific
/// notation outside.
pub fn number(value: f64, significant: usize) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    if !value.is_finite() {
        return format!("{value}");
    }
    let significant = significant.max(1);
    let exponent = value.abs().log10().floor() as i32;
    if !(-3..6).contains(&exponent) {
        return format!("{:.*e}", significant - 1, value);
    }
    let decimals = (significant as i32 - 1 - exponent).max(0) as usize;
    format!("{value:.decimals$}")
}

/// One CSV line: the cells joined by commas, a cell with a comma, a quote or a line break
/// quoted (RFC 4180), ending in a newline.
pub fn csv_line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells
        .iter()
        .map(|c| {
            if c.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        })
        .collect();
    format!("{}\n", quoted.join(","))
}

#[cfg(test)]
mod tests {
    use scalinglaws::error::Neutral;
    use scalinglaws::uncertainty::FitRecord;

    use super::{number, render, shortest};

    #[test]
    fn shortest_round_trips_without_runs_of_zeros() {
        assert_eq!(shortest(1e-3), "0.001");
        assert_eq!(shortest(3e-6), "3e-6");
        assert_eq!(shortest(0.1 * 3e-5), "3e-6");
        assert_eq!(shortest(3e-6 * (1.0 - 1e-16)), "3e-6");
        assert_eq!(shortest(0.5), "0.5");
        assert_eq!(shortest(1e22), "1e22");
        assert_eq!(shortest(1e-4), "0.0001");
        assert_eq!(shortest(250.0), "250");
        assert_eq!(shortest(1.2345e-7), "1.2345e-7");
        for v in [123.456, 1e-300, 0.123456789012] {
            assert_eq!(shortest(v).parse::<f64>().unwrap(), v);
        }
    }

    /// The report of a saved fit (fixed parameters, a parameter at a bound, no standard errors,
    /// local definitions in the formula, warnings), from a fixture so that solver changes do not
    /// move it.
    #[test]
    fn report_of_a_saved_fit() {
        let text = include_str!("../tests/fixtures/data_constrained_fit.json");
        let result = FitRecord::from_json(text).expect("the fixture reads");
        result
            .law()
            .expect("the fixture's parameters match its law");
        insta::with_settings!({
            snapshot_path => "../tests/snapshots",
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!("report_of_a_saved_fit", render(&result, &Neutral));
        });
    }

    #[test]
    fn numbers_are_readable() {
        assert_eq!(number(0.0, 4), "0");
        assert_eq!(number(1.81721, 5), "1.8172");
        assert_eq!(number(477.86, 4), "477.9");
        assert_eq!(number(0.0010182740, 6), "0.00101827");
        assert_eq!(number(2142.56, 4), "2143");
        assert_eq!(number(1.2e-5, 3), "1.20e-5");
        assert_eq!(number(7e10, 3), "7.00e10");
        assert_eq!(number(-0.5, 2), "-0.50");
        assert_eq!(number(f64::NAN, 2), "NaN");
    }
}
