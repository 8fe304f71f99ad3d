//! A progress bar on stderr for long loops (bootstrap replicates, grouped fits, the lab's
//! simulations), drawn by `indicatif` and only when stderr is a terminal, so logs and pipes
//! stay clean.

use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// `label [#####     ] done/total` (or a percentage), cleared when finished.
pub struct Progress {
    bar: ProgressBar,
    /// For a delayed bar: when it was made, and set once it is shown.
    started: Option<Instant>,
    shown: OnceLock<()>,
}

/// How long a delayed bar stays hidden: work shorter than this shows none.
const DELAY: Duration = Duration::from_secs(1);

impl Progress {
    pub fn new(label: &'static str, total: usize) -> Progress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}") {
            bar.set_style(style.progress_chars("## "));
        }
        bar.set_message(label);
        Progress {
            bar,
            started: None,
            shown: OnceLock::new(),
        }
    }

    /// A bar of a total told with each update, drawn only once the work has run a second
    /// (and, as every bar, only on a terminal).
    pub fn delayed(label: &'static str) -> Progress {
        Progress::delayed_with(label, "{msg} [{bar:30}] {pos}/{len}")
    }

    /// A delayed bar that shows a percentage: for work counted in units that mean nothing to a
    /// reader (the lab's simulations weigh their seeds and trials by their cost).
    pub fn delayed_percent(label: &'static str) -> Progress {
        Progress::delayed_with(label, "{msg} [{bar:30}] {percent}%")
    }

    fn delayed_with(label: &'static str, template: &str) -> Progress {
        let bar = ProgressBar::hidden();
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("## "));
        }
        bar.set_message(label);
        Progress {
            bar,
            started: Some(Instant::now()),
            shown: OnceLock::new(),
        }
    }

    /// One more of `total` is finished (callable from any thread; `_done`, the caller's count,
    /// may arrive out of order, so the bar counts for itself).
    pub fn update_of(&self, _done: usize, total: usize) {
        let late = self.started.is_some_and(|s| s.elapsed() >= DELAY);
        if late && std::io::stderr().is_terminal() {
            self.shown.get_or_init(|| {
                self.bar.set_length(total as u64);
                self.bar.set_draw_target(ProgressDrawTarget::stderr());
            });
        }
        self.bar.inc(1);
    }

    /// `done` of `total` are finished, `done` increasing from call to call (callable from any
    /// thread, one call at a time: the lab's simulators count for themselves); a delayed bar is
    /// drawn once the work has run a second.
    pub fn update_to(&self, done: usize, total: usize) {
        let late = self.started.is_some_and(|s| s.elapsed() >= DELAY);
        if late && std::io::stderr().is_terminal() {
            self.shown
                .get_or_init(|| self.bar.set_draw_target(ProgressDrawTarget::stderr()));
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(done as u64);
    }

    /// `done` of the total are finished (callable from any thread).
    pub fn update(&self, done: usize) {
        self.bar.set_position(done as u64);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
