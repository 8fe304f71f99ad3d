//! What does a cooldown buy? The loss after a cooldown of each length started at each step,
//! off a constant run, under a saved schedule fit (`analysis::schedule::optimize::
//! cooldown_table`; Hägele et al. 2024, arXiv:2405.18392, on the constant-plus-cooldowns
//! regime). Every default of its settings is here, once: the command line's `schedule
//! cooldown` and Python's `schedule_cooldown` only build this spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::schedule::optimize::{cooldown_table, CooldownRow};
use crate::analysis::schedule::spec::Decay;
use crate::analysis::schedule::ScheduleFit;
use crate::document::Document;
use crate::error::Result;

/// The workflow.
pub struct ScheduleCooldown;

/// The default shape of a cooldown (`schedule cooldown` and the cooldown study).
pub const COOLDOWN_DECAY: Decay = Decay::Linear;

fn cooldown_decay() -> Decay {
    COOLDOWN_DECAY
}

/// The cooldowns asked for; what is left out is the fit's training run's.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct ScheduleCooldownSpec {
    /// Steps where a cooldown starts.
    pub at: Vec<usize>,
    /// Cooldown lengths in steps.
    pub lengths: Vec<usize>,
    /// The constant learning rate (None: the fit's training run's peak).
    #[serde(default)]
    pub peak: Option<f64>,
    /// Warmup steps (None: the fit's training run's).
    #[serde(default)]
    pub warmup: Option<usize>,
    /// The learning rate at the end of a cooldown (None: peak/100).
    #[serde(default, rename = "final")]
    pub last: Option<f64>,
    /// The shape of each cooldown.
    #[serde(default = "cooldown_decay")]
    pub decay: Decay,
}

/// The cooldown table with the values it used.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "CooldownTable")]
pub struct Cooldowns {
    /// The constant learning rate the cooldowns start from.
    pub peak: f64,
    /// The learning rate at the end of each cooldown.
    #[serde(rename = "final")]
    pub last: f64,
    /// The shape of each cooldown.
    pub decay: Decay,
    /// One row per (start, length).
    pub rows: Vec<CooldownRow>,
}

impl Document for Cooldowns {
    const KIND: &'static str = "schedule_cooldown";
}

impl Workflow for ScheduleCooldown {
    const NAME: &'static str = "schedule_cooldown";
    const SUMMARY: &'static str =
        "The loss after a cooldown of each length started at each step, off a constant run, under a saved schedule fit: each row's loss, the constant run's at the same step, and the gain";
    type Request = ScheduleCooldownSpec;
    type Spec = ScheduleCooldownSpec;
    type Output = Cooldowns;
    type Input = ScheduleFit;

    fn spec(request: ScheduleCooldownSpec) -> Result<ScheduleCooldownSpec> {
        Ok(request)
    }

    fn run(spec: &ScheduleCooldownSpec, fit: &ScheduleFit, ctx: &Ctx) -> Result<Cooldowns> {
        ctx.interrupt.check()?;
        let peak = spec.peak.unwrap_or(fit.defaults.peak);
        let warmup = spec.warmup.unwrap_or(fit.defaults.warmup);
        let last = spec.last.unwrap_or(peak / 100.0);
        let rows = cooldown_table(fit, peak, warmup, &spec.at, &spec.lengths, spec.decay, last)?;
        Ok(Cooldowns {
            peak,
            last,
            decay: spec.decay,
            rows,
        })
    }
}
