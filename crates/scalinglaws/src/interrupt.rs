//! Cancelling long work from outside: an [`Interrupt`] is a shared flag that a front end sets
//! (Python on Ctrl-C) while the library runs on another thread. The library checks it between
//! units of work (bootstrap replicates, the starts' rounds of a search, backtest splits and
//! the other loops of fits, all of which go through one search; the IsoFLOP and envelope
//! replicates and budgets, the allocations' draws, blocks of predicted points and their
//! intervals, the chunks of a schedule's passes, the evaluations of a curve law's search and
//! the replicates of a schedule fit's bootstrap)
//! and then stops with [`Error::Interrupted`], discarding what the loop left part done. A run
//! that is never interrupted computes exactly what it would without a token: the checks read
//! the flag and change nothing else.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};

/// A cancellation token: clones share one flag. The default token is never set by anyone but
/// its holder. Tokens compare equal whatever their state: a token is not part of a setting's
/// value (and is not serialized).
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// A fresh token, not set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every holder of the token to stop as soon as it can.
    pub fn interrupt(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once [`Interrupt::interrupt`] has been called on any clone.
    pub fn is_interrupted(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(Error::Interrupted)` once the token is set.
    pub fn check(&self) -> Result<()> {
        if self.is_interrupted() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }
}

impl PartialEq for Interrupt {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let token = Interrupt::new();
        let clone = token.clone();
        assert!(token.check().is_ok());
        clone.interrupt();
        assert!(token.is_interrupted());
        assert!(matches!(token.check(), Err(Error::Interrupted)));
        assert_eq!(token, Interrupt::new());
    }
}
