//! The report of `sensitivity`: the prediction of the fit of every run at the point, then the
//! prediction without each scale group, its change and whether it stays inside the full fit's
//! prediction interval. The document carries everything the report names (law, data, scale
//! column), so the document is its own report.

use std::fmt::Write as _;

use scalinglaws::error::Wording;
use scalinglaws::workflow::sensitivity::{DroppedGroup, SensitivityResult};

use crate::text::{columns, level_percent, number};

impl crate::Report for SensitivityResult {
    type Json = SensitivityResult;
    fn json_value(&self) -> &SensitivityResult {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        render(self, wording)
    }
}

fn render(result: &SensitivityResult, wording: &dyn Wording) -> String {
    let mut out = String::new();
    let at: Vec<String> = result
        .at
        .iter()
        .map(|(name, value)| format!("{name} = {}", number(*value, 4)))
        .collect();
    let full = &result.full;
    let pi = full.pi.map_or(String::from("no interval"), |[lo, hi]| {
        format!(
            "{}% prediction interval [{}, {}]",
            level_percent(result.level),
            number(lo, 4),
            number(hi, 4)
        )
    });
    let _ = writeln!(out, "[[Sensitivity]]");
    let _ = writeln!(out, "    law        {}", result.law);
    let _ = writeln!(out, "    data       {}", result.data);
    let _ = writeln!(out, "    at         {}", at.join(", "));
    let _ = writeln!(out, "    all runs   {} ({pi})", number(full.value, 6));
    let _ = writeln!(
        out,
        "[[Without one scale group]] of '{}', {} groups",
        result.by,
        result.groups.len()
    );
    let _ = write!(out, "{}", table(&result.groups, &result.by, wording));
    let _ = writeln!(out, "{}", summary(result));
    out
}

/// One line per dropped group: its scale range, runs, the refit's prediction and change.
fn table(groups: &[DroppedGroup], by: &str, wording: &dyn Wording) -> String {
    let mut rows = vec![vec![
        format!("{by} from"),
        "to".to_string(),
        "runs".to_string(),
        "prediction".to_string(),
        "change".to_string(),
        "within pi".to_string(),
    ]];
    let mut failures = String::new();
    for group in groups {
        let yes_no = |b: Option<bool>| match b {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "-",
        };
        rows.push(vec![
            number(group.scale_low, 3),
            number(group.scale_high, 3),
            group.rows.to_string(),
            group.value.map_or("failed".into(), |v| number(v, 6)),
            group
                .change
                .map_or("-".into(), |c| format!("{:+.2}%", 100.0 * c)),
            yes_no(group.within_pi).to_string(),
        ]);
        if let Some(error) = &group.error {
            let _ = writeln!(
                failures,
                "    without {by} {}..{}: {}",
                number(group.scale_low, 3),
                number(group.scale_high, 3),
                error.worded(wording)
            );
        }
    }
    columns(&rows, &[], "    ") + &failures
}

/// The largest change, and how it compares with the interval's own width.
fn summary(result: &SensitivityResult) -> String {
    let (Some(index), Some(change)) = (result.most_influential, result.max_change) else {
        return "    no refit succeeded".to_string();
    };
    let group = &result.groups[index];
    let mut line = format!(
        "    largest change {:.2}%, without {} {}..{}",
        100.0 * change,
        result.by,
        number(group.scale_low, 3),
        number(group.scale_high, 3)
    );
    if let Some([lo, hi]) = result.full.pi {
        let half = (hi - lo) / 2.0 / result.full.value.abs();
        let _ = write!(
            line,
            "; the prediction interval's half-width is {:.2}%",
            100.0 * half
        );
    }
    line
}
