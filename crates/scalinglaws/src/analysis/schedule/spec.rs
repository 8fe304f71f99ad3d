//! Learning-rate schedules as the curve laws need them: the learning rate at every optimizer
//! step, written out from a spec (`cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5`) or
//! rebuilt from a training log's LR column by linear interpolation between logged steps. A
//! spec's rates can also be computed on demand ([`parse_rates`], read through [`Rates`] in
//! ranges), so a prediction of a 1e8-step schedule or of many cooldown branches holds no
//! per-step array.
//!
//! Conventions follow the multi-power law's reference evaluation (Luo et al. 2025): a schedule
//! of `steps` entries covers steps 0..steps−1; the warmup is numpy's `linspace(0, peak, warmup)`
//! (step s gets s·peak/(warmup−1)); the area S1(t) sums the learning rate over steps 0..=t,
//! warmup included.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::text;

/// The learning rate at every step 0..len.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    pub lrs: Vec<f64>,
}

/// Defaults a spec falls back on: the training run's peak, warmup and length.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "ScheduleDefaults")]
pub struct SpecDefaults {
    /// The peak learning rate.
    pub peak: f64,
    /// Warmup steps.
    pub warmup: usize,
    /// Steps in all.
    pub steps: usize,
}

/// How a decay phase falls from the peak to its final value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decay {
    /// Geometric: peak^((T−s)/(T−d))·final^((s−d)/(T−d)) (the multi-power paper's WSD).
    Exp,
    Linear,
    Cosine,
}

impl Decay {
    pub fn name(self) -> &'static str {
        match self {
            Decay::Exp => "exp",
            Decay::Linear => "linear",
            Decay::Cosine => "cosine",
        }
    }

    pub fn parse(text: &str) -> Result<Decay> {
        match text {
            "exp" => Ok(Decay::Exp),
            "linear" => Ok(Decay::Linear),
            "cosine" => Ok(Decay::Cosine),
            other => Err(Error::settings(format!(
                "unknown decay '{other}'; use exp, linear or cosine"
            ))),
        }
    }

    /// The learning rate a fraction `x` ∈ [0, 1] of the way through the decay.
    pub fn at(self, x: f64, peak: f64, last: f64) -> f64 {
        match self {
            Decay::Exp => peak.powf(1.0 - x) * last.powf(x),
            Decay::Linear => peak * (1.0 - x) + last * x,
            Decay::Cosine => last + 0.5 * (peak - last) * (1.0 + (std::f64::consts::PI * x).cos()),
        }
    }
}

/// The kinds a spec names, with what each needs.
pub const SPEC_HELP: &str = "cosine:peak=P,warmup=W,steps=T,final=F | \
wsd:peak=P,warmup=W,steps=T,decay_start=D,final=F,decay=exp|linear|cosine | \
constant:peak=P,warmup=W,steps=T | step:peak=P,warmup=W,steps=T,at=S1/S2/...,factor=G | \
cooldowns:peak=P,warmup=W,steps=T,every=E,len=K,final=F,decay=linear (keys left out take the \
fit's training run values; final defaults to peak/10)";

/// A parsed spec: the main schedule plus, for `cooldowns`, the branches cooled down from it.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedSpec {
    pub text: String,
    pub main: Schedule,
    /// (start step, schedule) of each cooldown branch.
    pub branches: Vec<(usize, Schedule)>,
}

struct Keys {
    spec: String,
    pairs: Vec<(String, String)>,
    used: Vec<bool>,
}

impl Keys {
    fn parse(spec: &str, body: &str) -> Result<Keys> {
        let mut pairs = Vec::new();
        for item in body.split(',').filter(|s| !s.trim().is_empty()) {
            let Some((key, value)) = item.split_once('=') else {
                return Err(spec_error(spec, &format!("'{item}' is not key=value")));
            };
            let key = key.trim();
            if key.is_empty() {
                return Err(spec_error(spec, &format!("'{item}' has no key before '='")));
            }
            if pairs.iter().any(|(k, _): &(String, String)| k == key) {
                return Err(spec_error(
                    spec,
                    &format!("key '{key}' is given twice: give it once"),
                ));
            }
            pairs.push((key.to_string(), value.trim().to_string()));
        }
        let used = vec![false; pairs.len()];
        Ok(Keys {
            spec: spec.to_string(),
            pairs,
            used,
        })
    }

    fn text(&mut self, key: &str) -> Option<String> {
        let index = self.pairs.iter().position(|(k, _)| k == key)?;
        self.used[index] = true;
        Some(self.pairs[index].1.clone())
    }

    fn number(&mut self, key: &str) -> Result<Option<f64>> {
        let Some(text) = self.text(key) else {
            return Ok(None);
        };
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(Some(v)),
            _ => Err(spec_error(
                &self.spec,
                &format!("{key}={text} is not a non-negative number"),
            )),
        }
    }

    fn count(&mut self, key: &str) -> Result<Option<usize>> {
        let Some(v) = self.number(key)? else {
            return Ok(None);
        };
        if v.fract() != 0.0 {
            return Err(spec_error(
                &self.spec,
                &format!("{key}={v} is not a whole step count"),
            ));
        }
        Ok(Some(v as usize))
    }

    fn required_count(&mut self, key: &str) -> Result<usize> {
        self.count(key)?
            .ok_or_else(|| spec_error(&self.spec, &format!("'{key}' is required")))
    }

    fn finish(&self) -> Result<()> {
        match self.used.iter().position(|u| !u) {
            Some(i) => Err(spec_error(
                &self.spec,
                &format!("unknown key '{}'", self.pairs[i].0),
            )),
            None => Ok(()),
        }
    }
}

fn spec_error(spec: &str, message: &str) -> Error {
    Error::settings(format!(
        "schedule '{spec}': {message}; a schedule is one of {SPEC_HELP}"
    ))
}

/// The shared keys of every kind.
struct Base {
    peak: f64,
    warmup: usize,
    steps: usize,
}

impl Base {
    fn read(keys: &mut Keys, defaults: Option<SpecDefaults>) -> Result<Base> {
        let spec = keys.spec.clone();
        let missing = |key: &str| {
            spec_error(
                &spec,
                &format!("'{key}' is required (no fit to take it from)"),
            )
        };
        let peak = match (keys.number("peak")?, defaults) {
            (Some(v), _) => v,
            (None, Some(d)) => d.peak,
            (None, None) => return Err(missing("peak")),
        };
        let warmup = match (keys.count("warmup")?, defaults) {
            (Some(v), _) => v,
            (None, Some(d)) => d.warmup,
            (None, None) => 0,
        };
        let steps = match (keys.count("steps")?, defaults) {
            (Some(v), _) => v,
            (None, Some(d)) => d.steps,
            (None, None) => return Err(missing("steps")),
        };
        if peak <= 0.0 {
            return Err(spec_error(&keys.spec, "peak must be positive"));
        }
        if let Some(problem) = crate::limits::schedule_steps_problem(steps) {
            return Err(spec_error(&keys.spec, &format!("steps={steps}: {problem}")));
        }
        if steps < 2 || warmup >= steps {
            return Err(spec_error(
                &keys.spec,
                &format!("need warmup < steps and steps ≥ 2 (warmup {warmup}, steps {steps})"),
            ));
        }
        Ok(Base {
            peak,
            warmup,
            steps,
        })
    }

    /// The warmup ramp followed by `after(s)` for s ≥ warmup, computed on demand.
    fn build(&self, after: impl Fn(usize) -> f64 + Send + Sync + 'static) -> SpecRates {
        SpecRates {
            steps: self.steps,
            warmup: self.warmup,
            peak: self.peak,
            after: Box::new(after),
            stop: Interrupt::default(),
        }
    }

    fn final_lr(&self, keys: &mut Keys) -> Result<f64> {
        let last = keys.number("final")?.unwrap_or(self.peak / 10.0);
        if last > self.peak {
            return Err(spec_error(&keys.spec, "final must not exceed peak"));
        }
        Ok(last)
    }
}

/// numpy.linspace(0, peak, warmup)[s].
fn warmup_lr(s: usize, warmup: usize, peak: f64) -> f64 {
    if warmup <= 1 {
        return peak;
    }
    peak * s as f64 / (warmup - 1) as f64
}

/// Parses a spec; keys left out come from `defaults` (the fit's training run). Every learning
/// rate is written out: see [`parse_rates`] for a spec whose rates are computed on demand.
pub fn parse(spec: &str, defaults: Option<SpecDefaults>) -> Result<ParsedSpec> {
    let lazy = parse_rates(spec, defaults)?;
    Ok(ParsedSpec {
        main: lazy.main.schedule(),
        branches: lazy
            .branches
            .iter()
            .map(|b| (b.start, lazy.branch(b).schedule()))
            .collect(),
        text: lazy.text,
    })
}

/// Parses a spec into rates computed on demand (no per-step array): what a prediction of a
/// long schedule, or of many cooldown branches, reads step by step.
pub fn parse_rates(spec: &str, defaults: Option<SpecDefaults>) -> Result<LazySpec> {
    let (kind, body) = spec.split_once(':').unwrap_or((spec, ""));
    const KINDS: [&str; 5] = ["constant", "cosine", "wsd", "step", "cooldowns"];
    if !KINDS.contains(&kind.trim()) {
        // Named before its keys are read: their problems mean nothing for an unknown kind.
        return Err(spec_error(spec, &format!("unknown kind '{}'", kind.trim())));
    }
    let mut keys = Keys::parse(spec, body)?;
    let base = Base::read(&mut keys, defaults)?;
    let mut branches = Vec::new();
    let main = match kind.trim() {
        "constant" => {
            let peak = base.peak;
            base.build(move |_| peak)
        }
        "cosine" => {
            let last = base.final_lr(&mut keys)?;
            let (warmup, peak) = (base.warmup, base.peak);
            let span = (base.steps - base.warmup) as f64;
            base.build(move |s| Decay::Cosine.at((s - warmup) as f64 / span, peak, last))
        }
        "wsd" => wsd(&base, &mut keys)?,
        "step" => step(&base, &mut keys)?,
        "cooldowns" => {
            let (main, b) = cooldowns(&base, &mut keys)?;
            branches = b;
            main
        }
        other => return Err(spec_error(spec, &format!("unknown kind '{other}'"))),
    };
    keys.finish()?;
    Ok(LazySpec {
        text: spec.to_string(),
        main,
        branches,
    })
}

/// A learning rate for every step of a schedule, read in consecutive ranges: a written-out
/// array, or a spec's formula evaluated on demand (so a 1e8-step schedule need not be held).
pub trait Rates: Sync {
    /// The number of steps.
    fn len(&self) -> usize;

    /// The rates of steps `start..end`, in `buf` if they have to be computed.
    fn range<'a>(&'a self, start: usize, end: usize, buf: &'a mut Vec<f64>) -> &'a [f64];

    /// The rate at one step.
    fn at(&self, step: usize) -> f64 {
        let mut buf = Vec::new();
        self.range(step, step + 1, &mut buf)[0]
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True once the walks over these rates should end: [`for_each_range`] then visits no
    /// more ranges, so a pass stops part way and its result is meaningless (the job that set
    /// the token discards it). Rates written out never stop; a spec's stop on its token
    /// ([`LazySpec::stop_on`]).
    fn stopped(&self) -> bool {
        false
    }
}

impl Rates for [f64] {
    fn len(&self) -> usize {
        <[f64]>::len(self)
    }

    fn range<'a>(&'a self, start: usize, end: usize, _: &'a mut Vec<f64>) -> &'a [f64] {
        &self[start..end]
    }
}

impl Rates for Vec<f64> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }

    fn range<'a>(&'a self, start: usize, end: usize, _: &'a mut Vec<f64>) -> &'a [f64] {
        &self[start..end]
    }
}

/// Steps read at a time from [`Rates`] by a pass over a schedule: 128 KB of rates.
pub const CHUNK: usize = 1 << 14;

/// Calls `visit(start, rates)` on consecutive ranges of at most [`CHUNK`] steps of `rates`
/// from `from` up to (not including) `to`.
pub fn for_each_range<R: Rates + ?Sized>(
    rates: &R,
    from: usize,
    to: usize,
    mut visit: impl FnMut(usize, &[f64]),
) {
    let mut buf = Vec::new();
    let mut start = from;
    while start < to && !rates.stopped() {
        let end = (start + CHUNK).min(to);
        visit(start, rates.range(start, end, &mut buf));
        start = end;
    }
}

/// The largest rate of `rates` (0 for none).
pub fn peak_of<R: Rates + ?Sized>(rates: &R) -> f64 {
    let mut peak = 0.0f64;
    for_each_range(rates, 0, rates.len(), |_, lrs| {
        peak = lrs.iter().cloned().fold(peak, f64::max)
    });
    peak
}

/// A spec's rates: the warmup ramp, then its formula.
pub struct SpecRates {
    steps: usize,
    warmup: usize,
    peak: f64,
    after: Box<dyn Fn(usize) -> f64 + Send + Sync>,
    /// Ends the walks over these rates once set (see [`Rates::stopped`]).
    stop: Interrupt,
}

impl SpecRates {
    /// Every rate written out.
    pub fn schedule(&self) -> Schedule {
        Schedule {
            lrs: (0..self.steps).map(|s| self.rate(s)).collect(),
        }
    }

    fn rate(&self, s: usize) -> f64 {
        if s < self.warmup {
            warmup_lr(s, self.warmup, self.peak)
        } else {
            (self.after)(s)
        }
    }
}

impl Rates for SpecRates {
    fn len(&self) -> usize {
        self.steps
    }

    fn range<'a>(&'a self, start: usize, end: usize, buf: &'a mut Vec<f64>) -> &'a [f64] {
        buf.clear();
        buf.extend((start..end).map(|s| self.rate(s)));
        buf
    }

    fn stopped(&self) -> bool {
        self.stop.is_interrupted()
    }
}

/// A parsed spec whose rates are computed on demand: the main schedule and, for `cooldowns`,
/// each branch's start, length and decay (the branch follows the main schedule before it).
pub struct LazySpec {
    pub text: String,
    pub main: SpecRates,
    pub branches: Vec<BranchSpec>,
}

/// A cooldown branch: the main schedule up to `start`, then `len` steps of `decay` from the
/// main schedule's rate at `start` to `last` (as [`cooldown_branch`] writes it out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BranchSpec {
    pub start: usize,
    pub len: usize,
    pub decay: Decay,
    pub last: f64,
}

impl LazySpec {
    /// Every walk over the spec's rates (the main schedule's and its branches') ends once
    /// `interrupt` is set: a prediction then stops part way, and the caller checks the token.
    pub fn stop_on(&mut self, interrupt: &Interrupt) {
        self.main.stop = interrupt.clone();
    }

    /// One branch's rates, read on demand.
    pub fn branch(&self, b: &BranchSpec) -> BranchRates<'_> {
        BranchRates {
            main: &self.main,
            spec: *b,
            from: self.main.rate(b.start.min(self.main.steps - 1)),
        }
    }
}

/// The rates of one cooldown branch, read on demand.
pub struct BranchRates<'a> {
    main: &'a SpecRates,
    spec: BranchSpec,
    from: f64,
}

impl BranchRates<'_> {
    fn rate(&self, s: usize) -> f64 {
        let BranchSpec {
            start,
            len,
            decay,
            last,
        } = self.spec;
        if s < start {
            return self.main.rate(s);
        }
        decay.at((s - start + 1) as f64 / len as f64, self.from, last)
    }

    /// Every rate written out.
    pub fn schedule(&self) -> Schedule {
        Schedule {
            lrs: (0..self.len()).map(|s| self.rate(s)).collect(),
        }
    }
}

impl Rates for BranchRates<'_> {
    fn len(&self) -> usize {
        self.spec.start + self.spec.len
    }

    fn range<'a>(&'a self, start: usize, end: usize, buf: &'a mut Vec<f64>) -> &'a [f64] {
        buf.clear();
        buf.extend((start..end).map(|s| self.rate(s)));
        buf
    }

    fn stopped(&self) -> bool {
        self.main.stopped()
    }
}

fn wsd(base: &Base, keys: &mut Keys) -> Result<SpecRates> {
    let last = base.final_lr(keys)?;
    let start = keys.required_count("decay_start")?;
    let decay = Decay::parse(&keys.text("decay").unwrap_or_else(|| "exp".into()))?;
    if start < base.warmup || start >= base.steps {
        return Err(spec_error(
            &keys.spec,
            "decay_start must lie between warmup and steps",
        ));
    }
    if decay == Decay::Exp && last <= 0.0 {
        return Err(spec_error(
            &keys.spec,
            "an exp decay needs final > 0 (use decay=linear to reach 0)",
        ));
    }
    let span = (base.steps - start) as f64;
    let peak = base.peak;
    Ok(base.build(move |s| {
        if s < start {
            peak
        } else {
            decay.at((s - start) as f64 / span, peak, last)
        }
    }))
}

fn step(base: &Base, keys: &mut Keys) -> Result<SpecRates> {
    let at_text = keys.text("at").ok_or_else(|| {
        spec_error(
            &keys.spec,
            "'at' is required (steps of each drop, S1/S2/...)",
        )
    })?;
    let mut at = Vec::new();
    for part in at_text.split('/') {
        match part.trim().parse::<usize>() {
            Ok(v) if v > base.warmup && v < base.steps => at.push(v),
            _ => {
                return Err(spec_error(
                    &keys.spec,
                    &format!("at: '{part}' is not a step between warmup and steps"),
                ))
            }
        }
    }
    let factor = keys.number("factor")?.unwrap_or(0.1);
    if factor <= 0.0 || factor > 1.0 {
        return Err(spec_error(&keys.spec, "factor must lie in (0, 1]"));
    }
    let peak = base.peak;
    Ok(base.build(move |s| {
        let drops = at.iter().filter(|&&a| s >= a).count();
        peak * factor.powi(drops as i32)
    }))
}

/// A constant run at the peak with a cooldown branch every `every` steps, each `len` long.
fn cooldowns(base: &Base, keys: &mut Keys) -> Result<(SpecRates, Vec<BranchSpec>)> {
    let every = keys.required_count("every")?;
    let len = keys.required_count("len")?;
    let last = base.final_lr(keys)?;
    let decay = Decay::parse(&keys.text("decay").unwrap_or_else(|| "linear".into()))?;
    if every == 0 || len == 0 {
        return Err(spec_error(&keys.spec, "every and len must be positive"));
    }
    let peak = base.peak;
    let main = base.build(move |_| peak);
    let mut branches = Vec::new();
    let mut start = every;
    while start + len <= base.steps {
        branches.push(BranchSpec {
            start,
            len,
            decay,
            last,
        });
        start += every;
    }
    if branches.is_empty() {
        return Err(spec_error(&keys.spec, "no cooldown fits within steps"));
    }
    check_branch_work(&keys.spec, every, len, branches.len())?;
    Ok((main, branches))
}

/// Refuses a cooldown family whose table or whose branches' own steps pass their limits
/// ([`crate::limits::MAX_COOLDOWN_BRANCHES`], [`crate::limits::MAX_SCHEDULE_STEPS`]): each
/// branch is a row of the output and `len` steps of work beyond the shared constant run.
fn check_branch_work(spec: &str, every: usize, len: usize, branches: usize) -> Result<()> {
    use crate::limits::{thousands, MAX_COOLDOWN_BRANCHES, MAX_SCHEDULE_STEPS};
    let problem = if branches > MAX_COOLDOWN_BRANCHES {
        format!(
            "every={every} gives {} cooldown branches, more than the limit of {} (one row \
             each); raise every",
            thousands(branches),
            thousands(MAX_COOLDOWN_BRANCHES)
        )
    } else if branches.saturating_mul(len) > MAX_SCHEDULE_STEPS {
        format!(
            "{} branches × len={len} are {} steps of cooldowns, more than the limit of {} (each \
             branch's own steps are computed); raise every or shorten len",
            thousands(branches),
            thousands(branches.saturating_mul(len)),
            thousands(MAX_SCHEDULE_STEPS)
        )
    } else {
        return Ok(());
    };
    Err(Error::setting(
        Setting::Schedule,
        text![Setting::Schedule.text(spec), ": ", problem],
    ))
}

/// `main` up to `start`, then a decay of `len` steps to `last` (the branch ends at start+len).
pub fn cooldown_branch(
    main: &Schedule,
    start: usize,
    len: usize,
    decay: Decay,
    last: f64,
) -> Schedule {
    let from = main.lrs[start.min(main.lrs.len() - 1)];
    let mut lrs = main.lrs[..start].to_vec();
    lrs.extend((1..=len).map(|i| decay.at(i as f64 / len as f64, from, last)));
    Schedule { lrs }
}

impl Schedule {
    /// S1(t) = Σ_{τ ≤ t} lr_τ for every t.
    pub fn area(&self) -> Vec<f64> {
        let mut sum = 0.0;
        self.lrs
            .iter()
            .map(|&lr| {
                sum += lr;
                sum
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.lrs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lrs.is_empty()
    }

    pub fn peak(&self) -> f64 {
        self.lrs.iter().cloned().fold(0.0, f64::max)
    }

    /// The first step at the peak (the end of the warmup ramp, +1 in the linspace convention).
    pub fn warmup(&self) -> usize {
        let peak = self.peak();
        self.lrs
            .iter()
            .position(|&lr| lr >= peak)
            .map_or(0, |i| i + 1)
            .min(self.lrs.len())
    }

    /// Rebuilds a schedule from logged (step, lr) pairs, sorted by step with distinct steps:
    /// linear interpolation between logged steps; before the first logged step a linear warmup
    /// from 0 at step 0 to the first logged lr at step `warmup`−1 (numpy linspace), held until
    /// the first logged step (`warmup` 0: the first logged lr from step 0).
    pub fn from_log(steps: &[usize], lrs: &[f64], warmup: usize) -> Schedule {
        let first = steps[0];
        let last = *steps.last().unwrap_or(&first);
        let mut out = Vec::with_capacity(last + 1);
        for s in 0..first {
            out.push(if s < warmup {
                warmup_lr(s, warmup, lrs[0])
            } else {
                lrs[0]
            });
        }
        for w in 0..steps.len() {
            let (s0, v0) = (steps[w], lrs[w]);
            out.push(v0);
            if let Some(&s1) = steps.get(w + 1) {
                let v1 = lrs[w + 1];
                for s in s0 + 1..s1 {
                    let x = (s - s0) as f64 / (s1 - s0) as f64;
                    out.push(v0 + (v1 - v0) * x);
                }
            }
        }
        Schedule { lrs: out }
    }

    /// A short description of the shape: the lr at evenly spaced fractions of the run.
    pub fn shape(&self, points: usize) -> Vec<(usize, f64)> {
        let n = self.lrs.len();
        (0..points)
            .map(|i| {
                let s = ((n - 1) as f64 * i as f64 / (points - 1).max(1) as f64).round() as usize;
                (s, self.lrs[s])
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_matches_the_reference_formula() {
        let s = parse("cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5", None)
            .unwrap()
            .main;
        assert_eq!(s.len(), 24000);
        assert!((s.lrs[1] - 3e-4 / 2159.0).abs() < 1e-20);
        assert!((s.lrs[2159] - 3e-4).abs() < 1e-18);
        let at = |t: f64| {
            3e-5 + 0.5
                * (3e-4 - 3e-5)
                * (1.0 + (std::f64::consts::PI * (t - 2160.0) / 21840.0).cos())
        };
        for t in [2160usize, 5000, 23999] {
            assert!((s.lrs[t] - at(t as f64)).abs() < 1e-18);
        }
    }

    #[test]
    fn wsd_exp_and_step_follow_their_definitions() {
        let s = parse(
            "wsd:peak=3e-4,warmup=2160,steps=24000,decay_start=20000,final=3e-5",
            None,
        )
        .unwrap()
        .main;
        assert_eq!(s.lrs[19999], 3e-4);
        let x = (22000.0 - 20000.0) / 4000.0;
        assert!((s.lrs[22000] - 3e-4f64.powf(1.0 - x) * 3e-5f64.powf(x)).abs() < 1e-18);
        let s = parse(
            "step:peak=3e-4,warmup=2160,steps=16000,at=8000,factor=0.3",
            None,
        )
        .unwrap()
        .main;
        assert_eq!(s.lrs[7999], 3e-4);
        assert!((s.lrs[8000] - 9e-5).abs() < 1e-18);
    }

    #[test]
    fn defaults_fill_left_out_keys_and_errors_name_the_key() {
        let d = SpecDefaults {
            peak: 1e-3,
            warmup: 10,
            steps: 100,
        };
        let s = parse("constant", Some(d)).unwrap().main;
        assert_eq!(s.len(), 100);
        assert_eq!(s.lrs[50], 1e-3);
        let e = parse("cosine:peak=1e-3,stepz=10", Some(d))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown key 'stepz'"), "{e}");
        let e = parse("cosine:peak=1e-3,peak=2e-3", Some(d))
            .unwrap_err()
            .to_string();
        assert!(e.contains("key 'peak' is given twice"), "{e}");
        let e = parse("cosine:=,peak=1e-3", Some(d))
            .unwrap_err()
            .to_string();
        assert!(e.contains("'=' has no key before '='"), "{e}");
        let e = parse("wsd:peak=1e-3", Some(d)).unwrap_err().to_string();
        assert!(e.contains("'decay_start' is required"), "{e}");
        let e = parse("triangle", Some(d)).unwrap_err().to_string();
        assert!(e.contains("unknown kind 'triangle'"), "{e}");
        let e = parse("constant:peak=abc", Some(d)).unwrap_err().to_string();
        assert!(e.contains("peak=abc"), "{e}");
    }

    #[test]
    fn cooldowns_branch_off_the_constant_run() {
        let p = parse(
            "cooldowns:peak=1e-3,warmup=0,steps=1000,every=300,len=100,final=0",
            None,
        )
        .unwrap();
        assert_eq!(p.branches.len(), 3);
        let (start, b) = &p.branches[1];
        assert_eq!(*start, 600);
        assert_eq!(b.len(), 700);
        assert_eq!(b.lrs[599], 1e-3);
        assert!(b.lrs[699].abs() < 1e-18);
    }

    #[test]
    fn log_interpolation_fills_every_step() {
        let s = Schedule::from_log(&[4, 8], &[1.0, 0.5], 3);
        assert_eq!(
            s.lrs,
            vec![0.0, 0.5, 1.0, 1.0, 1.0, 0.875, 0.75, 0.625, 0.5]
        );
    }
}
