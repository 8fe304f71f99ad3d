//! The records a downstream analysis reads, in long format (one row per model, checkpoint and
//! task, as an lm-eval or W&B export gives), and the lookups every method needs: a model's
//! accuracy on a task at a token count, interpolated between its checkpoints in log tokens.

use serde::{Deserialize, Serialize};

use crate::error::{Result, Setting};

/// One model (a run whose checkpoints are evaluated): its name and parameter count N.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub name: String,
    pub params: f64,
}

/// One task: its name, the accuracy of guessing (its chance level) and the number of
/// questions its accuracies are proportions of, when known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskInfo {
    pub name: String,
    pub chance: f64,
    pub questions: Option<f64>,
}

/// One evaluation: model `model` at `tokens` training tokens scored `accuracy` on task `task`
/// (indices into [`DownstreamData`]'s lists); `loss` is that checkpoint's loss, when known.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub model: usize,
    pub task: usize,
    pub tokens: f64,
    pub accuracy: f64,
    pub loss: Option<f64>,
}

/// Every evaluation, with its models and tasks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DownstreamData {
    pub models: Vec<ModelInfo>,
    pub tasks: Vec<TaskInfo>,
    pub evaluations: Vec<Evaluation>,
}

/// One model's accuracies on one task, sorted by tokens.
#[derive(Debug, Clone, Default)]
pub struct Series {
    pub tokens: Vec<f64>,
    pub accuracy: Vec<f64>,
}

impl Series {
    /// The accuracy at `tokens`, interpolated linearly in log tokens between the two
    /// checkpoints around it; None outside the checkpoints (relative slack 1e-9).
    pub fn at(&self, tokens: f64) -> Option<f64> {
        let (first, last) = (*self.tokens.first()?, *self.tokens.last()?);
        if tokens < first * (1.0 - 1e-9) || tokens > last * (1.0 + 1e-9) {
            return None;
        }
        let upper = self.tokens.partition_point(|&t| t < tokens * (1.0 - 1e-9));
        if upper >= self.tokens.len() || self.tokens[upper] <= tokens * (1.0 + 1e-9) {
            return Some(self.accuracy[upper.min(self.tokens.len() - 1)]);
        }
        let lower = upper - 1;
        let (t0, t1) = (self.tokens[lower].ln(), self.tokens[upper].ln());
        let w = (tokens.ln() - t0) / (t1 - t0);
        Some(self.accuracy[lower] * (1.0 - w) + self.accuracy[upper] * w)
    }

    /// The last checkpoint at or below `tokens`, as (tokens, accuracy).
    pub fn last_until(&self, tokens: f64) -> Option<(f64, f64)> {
        let end = self.tokens.partition_point(|&t| t <= tokens * (1.0 + 1e-9));
        (end > 0).then(|| (self.tokens[end - 1], self.accuracy[end - 1]))
    }
}

impl DownstreamData {
    /// Checks what every method relies on: positive parameters and tokens, accuracies and
    /// chance levels in [0, 1], question counts of at least one, a finite loss, and one
    /// evaluation per model, task and token count. Errors name the evaluation's index
    /// (the job maps it to the file's row).
    pub fn validate(&self) -> Result<()> {
        if let Some(m) = self
            .models
            .iter()
            .find(|m| !(m.params > 0.0 && m.params.is_finite()))
        {
            return Err(super::refuse(
                Setting::Size,
                format!(
                    "model '{}' has {} parameters; it needs a positive count",
                    m.name, m.params
                ),
            ));
        }
        if let Some(t) = self.tasks.iter().find(|t| !(0.0..1.0).contains(&t.chance)) {
            return Err(super::refuse(
                Setting::Chance,
                format!(
                    "task '{}' has chance level {}; it must lie in [0, 1)",
                    t.name, t.chance
                ),
            ));
        }
        if let Some(t) = self
            .tasks
            .iter()
            .find(|t| t.questions.is_some_and(|n| !(n >= 1.0 && n.is_finite())))
        {
            return Err(super::refuse(
                Setting::Trials,
                format!(
                    "task '{}' has {:?} questions; it needs at least one",
                    t.name, t.questions
                ),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for e in &self.evaluations {
            if !(e.tokens > 0.0 && e.tokens.is_finite()) {
                return Err(super::refuse(Setting::Tokens, format!(
                    "model '{}' has a checkpoint at {} tokens; tokens must be positive (compute and the laws take logs); drop it with a filter",
                    self.models[e.model].name, e.tokens
                )));
            }
            if !(0.0..=1.0).contains(&e.accuracy) {
                return Err(super::refuse(Setting::Target, format!(
                    "model '{}' scored {} on '{}'; an accuracy lies in [0, 1] (a percentage? divide it by 100)",
                    self.models[e.model].name, e.accuracy, self.tasks[e.task].name
                )));
            }
            if e.loss.is_some_and(|l| !l.is_finite()) {
                return Err(super::refuse(
                    Setting::Loss,
                    "a loss must be a finite number",
                ));
            }
            if !seen.insert((e.model, e.task, e.tokens.to_bits())) {
                return Err(super::refuse(Setting::Task, format!(
                    "model '{}' has two evaluations of '{}' at {} tokens; keep one (filter by shots or metric)",
                    self.models[e.model].name, self.tasks[e.task].name, e.tokens
                )));
            }
        }
        Ok(())
    }

    /// Every (model, task) series, indexed `[model][task]`, sorted by tokens.
    pub fn series(&self) -> Vec<Vec<Series>> {
        let mut all = vec![vec![Series::default(); self.tasks.len()]; self.models.len()];
        let mut order: Vec<&Evaluation> = self.evaluations.iter().collect();
        order.sort_by(|a, b| a.tokens.total_cmp(&b.tokens));
        for e in order {
            let s = &mut all[e.model][e.task];
            s.tokens.push(e.tokens);
            s.accuracy.push(e.accuracy);
        }
        all
    }

    /// The model's name's index.
    pub fn model_index(&self, name: &str) -> Option<usize> {
        self.models.iter().position(|m| m.name == name)
    }

    /// The evaluations kept by `keep`, with the same models and tasks.
    pub fn filtered(&self, keep: impl Fn(&Evaluation) -> bool) -> DownstreamData {
        DownstreamData {
            models: self.models.clone(),
            tasks: self.tasks.clone(),
            evaluations: self
                .evaluations
                .iter()
                .copied()
                .filter(|e| keep(e))
                .collect(),
        }
    }
}

/// The binomial variance of an accuracy measured on `questions` questions (clamped half a
/// question from 0 and 1 so a perfect score still has some); None without a count.
pub fn binomial_variance(accuracy: f64, questions: Option<f64>) -> Option<f64> {
    questions.map(|n| {
        let a = accuracy.clamp(0.5 / n, 1.0 - 0.5 / n);
        a * (1.0 - a) / n
    })
}

/// Training compute 6·N·D, in FLOPs (Kaplan et al. 2020).
pub fn compute(params: f64, tokens: f64) -> f64 {
    6.0 * params * tokens
}
