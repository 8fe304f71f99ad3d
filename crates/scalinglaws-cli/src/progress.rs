//! A progress bar on stderr for long loops (bootstrap replicates), drawn by `indicatif` and
//! only when stderr is a terminal, so logs and pipes stay clean.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// `label [#####     ] done/total`, cleared when finished.
pub struct Progress {
    bar: ProgressBar,
}

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
        Progress { bar }
    }

    /// `done` of the total are finished (callable from any thread).
    pub fn update(&self, done: usize) {
        self.bar.set_position(done as u64);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
