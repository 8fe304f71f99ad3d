//! The report of `schedule cooldown-study`: constant learning rate with a cooldown against a
//! cosine at each training length, under a fitted curve law (issue 26; Hägele et al. 2024,
//! arXiv:2405.18392, on cooldowns), with percentile intervals when replicates were given.

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use scalinglaws::analysis::schedule::cooldown::CooldownStudy;

use crate::text::{columns, number};

/// The study is its own report: it holds the law and every setting the report names.
impl crate::Report for CooldownStudy {
    type Json = CooldownStudy;
    fn json_value(&self) -> &CooldownStudy {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        render(self)
    }
}

fn interval(i: Option<[f64; 2]>, digits: usize) -> String {
    i.map_or(String::new(), |[lo, hi]| {
        format!("[{}, {}]", number(lo, digits), number(hi, digits))
    })
}

fn render(study: &CooldownStudy) -> String {
    let s = &study.settings;
    let mut out = String::from("[[Cooldown study]]\n");
    let _ = writeln!(
        out,
        "    law       {}\n    schedules constant at {} (warmup {}) with a {} cooldown over the last {} % to {}, against a cosine from {} to {}",
        study.law.name(),
        number(s.peak, 4),
        s.warmup,
        s.decay.name(),
        number(s.fraction * 100.0, 4),
        number(s.last, 4),
        number(s.peak, 4),
        number(s.last, 4)
    );
    let intervals = study.replicates > 0;
    if intervals {
        let _ = writeln!(
            out,
            "    intervals {} % percentile intervals over {} replicates of the fit ({} left out: no finite loss): the spread of refits to resampled training curves, not the error of the law's form",
            number(s.level * 100.0, 4),
            study.replicates,
            study.dropped
        );
    } else {
        out.push_str("    intervals none (no replicates)\n");
    }
    let mut head = vec![
        "steps".to_string(),
        "cooldown from".into(),
        "constant".into(),
        "constant+cooldown".into(),
        "cosine".into(),
        "difference".into(),
    ];
    if intervals {
        head.insert(4, "interval".into());
        head.insert(6, "interval".into());
        head.push("interval".into());
    }
    let mut table = vec![head];
    for r in &study.rows {
        let mut row = vec![
            r.steps.to_string(),
            r.cooldown_start.to_string(),
            number(r.constant_loss, 6),
            number(r.cooldown_loss, 6),
            number(r.cosine_loss, 6),
            format!("{:+.4}", r.difference),
        ];
        if intervals {
            row.insert(4, interval(r.cooldown_interval, 6));
            row.insert(6, interval(r.cosine_interval, 6));
            row.push(interval(r.difference_interval, 3));
        }
        table.push(row);
    }
    out.push('\n');
    out.push_str(&columns(&table, &[], "    "));
    out.push_str(
        "\n    difference = constant+cooldown − cosine final loss: negative where the cooldown does better\n",
    );
    out
}
