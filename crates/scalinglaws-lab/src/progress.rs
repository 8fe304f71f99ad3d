//! How a long simulation tells its caller how far it has got, without knowing who listens: a
//! plain callback hearing `(done, total)` in units of work the simulator chooses (elements,
//! seeds or trials weighted by their cost), so that a front end can draw a progress bar (the
//! CLI's, after a second, on a terminal) and a simulation's results never depend on it.

use std::sync::Mutex;

/// Hears `(done, total)`: `done` units of about `total` are finished. It is called from any
/// thread (hence `Sync`), one call at a time, with `done` increasing from call to call and never
/// above `total`; `total` is fixed before the work starts except where the simulator can only
/// estimate it (the learning-rate search of [`crate::sgd::data_scaling_with_progress`]), and
/// the last call has `done == total`.
pub type Progress<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// The listener that ignores every report: what the functions without a progress argument pass.
pub fn silent(_done: usize, _total: usize) {}

/// Counts finished work and reports it to a [`Progress`], one report at a time.
pub(crate) struct Counter<'a> {
    progress: Progress<'a>,
    /// (done, total).
    state: Mutex<(usize, usize)>,
}

impl<'a> Counter<'a> {
    pub(crate) fn new(progress: Progress<'a>, total: usize) -> Counter<'a> {
        Counter {
            progress,
            state: Mutex::new((0, total.max(1))),
        }
    }

    /// `units` more are finished; an estimated total that fell short grows to what is done.
    pub(crate) fn add(&self, units: usize) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.0 = state.0.saturating_add(units);
        state.1 = state.1.max(state.0);
        (self.progress)(state.0, state.1);
    }

    /// The work is over: reports `done == total` (an estimate that overshot ends here).
    pub(crate) fn finish(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.1 = state.0.max(1);
        state.0 = state.1;
        (self.progress)(state.0, state.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_increase_and_end_at_the_total() {
        let heard = Mutex::new(Vec::new());
        let listen = |done: usize, total: usize| heard.lock().unwrap().push((done, total));
        let counter = Counter::new(&listen, 10);
        counter.add(4);
        counter.add(8); // past the estimate: the total grows
        counter.finish();
        assert_eq!(*heard.lock().unwrap(), vec![(4, 10), (12, 12), (12, 12)]);
        silent(1, 2);
    }
}
