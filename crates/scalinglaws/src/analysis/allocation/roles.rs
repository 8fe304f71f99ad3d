//! How a law's variables map onto an allocation (N, D and the held values) for one goal, and
//! the quantities the search needs along the goal's constraint: tokens, losses, caps.

use super::*;

/// The widest range of ln N the search may reach (N from 1e-10 to 1e100) and of ln D along a
/// constraint (the same decades): wide enough for any budget a float holds a loss for; an
/// optimum beyond it is an error, never its edge.
pub(super) const WIDEST_LOG_N: (f64, f64) = (
    -10.0 * std::f64::consts::LN_10,
    100.0 * std::f64::consts::LN_10,
);
pub(super) const LOG_D_RANGE: (f64, f64) = WIDEST_LOG_N;

/// The range of ln N the caps allow, and which of its ends a cap (or the inference tokens)
/// sets; the other ends are those of the widest range.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) lo_is_cap: bool,
    pub(super) hi_is_cap: bool,
}

/// One budget or one target loss.
#[derive(Debug, Clone, Copy)]
pub(super) enum Goal {
    Budget(f64),
    Loss(f64),
}

/// How the law's variables map onto an allocation, for one value of every held variable.
pub(super) struct Roles<'a> {
    pub(super) law: &'a Law,
    pub(super) n: usize,
    pub(super) d: usize,
    pub(super) held: Vec<(usize, f64)>,
    pub(super) settings: &'a AllocationSettings,
}

impl Roles<'_> {
    pub(super) fn inference_flops(&self, n: f64) -> f64 {
        2.0 * n * self.settings.inference_tokens
    }

    pub(super) fn total_params(&self, n: f64) -> f64 {
        match &self.settings.total_params {
            None => n,
            Some(formula) => formula.eval(&|name: &str| {
                if name == "N" {
                    return Some(n);
                }
                let i = self.law.variable_index(name)?;
                self.held.iter().find(|h| h.0 == i).map(|h| h.1)
            }),
        }
    }

    /// D along the goal's constraint at N: the tokens the budget left after inference buys,
    /// or the tokens that reach the target loss.
    pub(super) fn tokens(&self, params: &[f64], n: f64, goal: Goal) -> Option<f64> {
        match goal {
            Goal::Budget(c) => self
                .settings
                .flops
                .tokens_for(n, c - self.inference_flops(n)),
            Goal::Loss(target) => self.tokens_for_loss(params, n, target),
        }
    }

    /// The D at which the law reaches `target` at N (loss falls with D), by bisection in ln D.
    pub(super) fn tokens_for_loss(&self, params: &[f64], n: f64, target: f64) -> Option<f64> {
        self.tokens_for_loss_columns(params, &[n], target)[0]
    }

    /// `tokens_for_loss` at every N of `ns` at once: one bisection over the whole column, each
    /// step one sweep of the bound tape.
    pub(super) fn tokens_for_loss_columns(
        &self,
        params: &[f64],
        ns: &[f64],
        target: f64,
    ) -> Vec<Option<f64>> {
        let above = |log_d: &[f64]| -> Vec<bool> {
            let ds: Vec<f64> = log_d.iter().map(|x| x.exp()).collect();
            self.losses(params, ns, &ds)
                .iter()
                .map(|loss| loss.is_nan() || *loss > target)
                .collect()
        };
        let (lo_end, hi_end) = LOG_D_RANGE;
        let reachable: Vec<bool> = above(&vec![hi_end; ns.len()]).iter().map(|a| !a).collect();
        let already: Vec<bool> = above(&vec![lo_end; ns.len()]).iter().map(|a| !a).collect();
        let (mut lo, mut hi) = (vec![lo_end; ns.len()], vec![hi_end; ns.len()]);
        for _ in 0..BISECTION_STEPS {
            let mid: Vec<f64> = lo.iter().zip(&hi).map(|(a, b)| 0.5 * (a + b)).collect();
            for (i, is_above) in above(&mid).into_iter().enumerate() {
                if is_above {
                    lo[i] = mid[i];
                } else {
                    hi[i] = mid[i];
                }
            }
        }
        (0..ns.len())
            .map(|i| match (reachable[i], already[i]) {
                (false, _) => None,
                (true, true) => Some(lo_end.exp()),
                (true, false) => Some((0.5 * (lo[i] + hi[i])).exp()),
            })
            .collect()
    }

    /// The law at every (N, D) pair, in one bound tape.
    pub(super) fn losses(&self, params: &[f64], ns: &[f64], ds: &[f64]) -> Vec<f64> {
        let mut columns = vec![Vec::with_capacity(ns.len()); self.law.variables.len()];
        for (&n, &d) in ns.iter().zip(ds) {
            for (column, value) in columns.iter_mut().zip(self.point(n, d)) {
                column.push(value);
            }
        }
        let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let tape = self.law.bind(&slices);
        let mut scratch = tape.scratch();
        tape.forward_columns(params, &mut scratch).to_vec()
    }

    /// The range of ln N the caps allow for the goal, within the widest range searched:
    /// N ≤ max_active, total(N) ≤ max_params, D(N) ≤ max_tokens (D falls as N grows along a
    /// budget or a loss), and with inference tokens a budget must leave some training compute.
    /// None when the caps leave nothing.
    pub(super) fn log_n_range(&self, params: &[f64], goal: Goal) -> Option<Limits> {
        let (lo, mut hi) = WIDEST_LOG_N;
        let settings = self.settings;
        if let Some(p) = settings.max_active {
            hi = hi.min(p.ln());
        }
        if let Some(p) = settings.max_params {
            let fits = |log_n: f64| self.total_params(log_n.exp()) <= p;
            if !fits(lo) {
                return None;
            }
            if !fits(hi) {
                hi = bisect(lo, hi, BISECTION_STEPS, fits);
            }
        }
        if let (Goal::Budget(c), true) = (goal, settings.inference_tokens > 0.0) {
            hi = hi.min((c / (2.0 * settings.inference_tokens)).ln() - 1e-9);
        }
        let lo = self.tokens_cap_floor(params, goal, lo, hi)?;
        (lo <= hi).then_some(Limits {
            lo,
            hi,
            lo_is_cap: lo > WIDEST_LOG_N.0,
            hi_is_cap: hi < WIDEST_LOG_N.1,
        })
    }

    /// The least ln N in [lo, hi] whose D stays within max_tokens (lo without that cap); None
    /// when even N at `hi` needs more tokens.
    pub(super) fn tokens_cap_floor(
        &self,
        params: &[f64],
        goal: Goal,
        lo: f64,
        hi: f64,
    ) -> Option<f64> {
        let Some(u) = self.settings.max_tokens else {
            return Some(lo);
        };
        let too_many = |log_n: f64| self.tokens(params, log_n.exp(), goal).is_none_or(|d| d > u);
        if lo > hi || too_many(hi) {
            return None;
        }
        Some(if too_many(lo) {
            bisect(lo, hi, BISECTION_STEPS, too_many)
        } else {
            lo
        })
    }

    pub(super) fn binding(&self, n: f64, d: f64) -> Option<String> {
        let near = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-6;
        let settings = self.settings;
        if settings.max_active.is_some_and(|p| near(n, p)) {
            return Some("max_active".into());
        }
        if settings
            .max_params
            .is_some_and(|p| near(self.total_params(n), p))
        {
            return Some("max_params".into());
        }
        settings
            .max_tokens
            .filter(|u| near(d, *u))
            .map(|_| "max_tokens".into())
    }

    pub(super) fn point(&self, n: f64, d: f64) -> Vec<f64> {
        let mut point = vec![0.0; self.law.variables.len()];
        point[self.n] = n;
        point[self.d] = d;
        for &(i, v) in &self.held {
            point[i] = v;
        }
        point
    }

    pub(super) fn loss(&self, params: &[f64], n: f64, d: f64) -> f64 {
        self.law.eval(params, &self.point(n, d))
    }

    /// What the search minimises at each log N of `grid`: the loss along a budget, or the
    /// lifetime compute along a target loss.
    pub(super) fn scan(&self, params: &[f64], goal: Goal, grid: &[f64]) -> Vec<f64> {
        let ns: Vec<f64> = grid.iter().map(|x| x.exp()).collect();
        let ds: Vec<Option<f64>> = match goal {
            Goal::Budget(_) => ns.iter().map(|&n| self.tokens(params, n, goal)).collect(),
            Goal::Loss(target) => self.tokens_for_loss_columns(params, &ns, target),
        };
        let values: Vec<f64> = match goal {
            Goal::Loss(_) => ns
                .iter()
                .zip(&ds)
                .map(|(&n, d)| d.map_or(f64::INFINITY, |d| self.lifetime_flops(n, d)))
                .collect(),
            Goal::Budget(_) => {
                let filled: Vec<f64> = ds.iter().map(|d| d.unwrap_or(1.0)).collect();
                self.losses(params, &ns, &filled)
            }
        };
        values
            .into_iter()
            .zip(&ds)
            .map(|(v, d)| {
                if d.is_some() && v.is_finite() {
                    v
                } else {
                    f64::INFINITY
                }
            })
            .collect()
    }

    pub(super) fn lifetime_flops(&self, n: f64, d: f64) -> f64 {
        self.settings.flops.at(n, d) + self.inference_flops(n)
    }
}
