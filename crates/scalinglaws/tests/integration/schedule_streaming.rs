//! Schedules read step by step (issue 50): a spec's rates computed on demand give the values of
//! its written-out schedule, each cooldown branch evaluated off the shared constant run gives the
//! value of the branch evaluated alone, for every curve law, and the work a cooldown family asks
//! for is refused past its limits (the error names the schedule).

use scalinglaws::analysis::schedule::spec::{parse, parse_rates, Rates};
use scalinglaws::analysis::schedule::CurveLaw;
use scalinglaws::error::Setting;

/// Parameters of each law near a fit of the 400M curves.
fn params(law: CurveLaw) -> Vec<f64> {
    match law {
        CurveLaw::MultiPower => vec![2.36, 0.65, 0.43, 580.0, 0.00135, 0.84, 1.21],
        CurveLaw::LrAnnealing => vec![2.3, 0.6, 0.45, 300.0, 0.999],
        CurveLaw::PowerArea => vec![2.3, 0.6, 0.45],
        CurveLaw::Fsl => vec![2.3, 0.6, 0.45, 300.0, 100.0, 1.5],
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs())
}

#[test]
fn rates_on_demand_give_the_written_out_schedules_values() {
    let spec = "wsd:peak=3e-4,warmup=300,steps=40000,decay_start=30000,final=3e-5,decay=linear";
    let written = parse(spec, None).unwrap().main;
    let lazy = parse_rates(spec, None).unwrap();
    assert_eq!(lazy.main.len(), written.len());
    let steps = [1, 2, 299, 300, 17000, 29999, 30000, 39999];
    for law in CurveLaw::ALL {
        let p = params(law);
        let full = law.evaluate(&p, &written.lrs, &steps, false).values;
        let streamed = law.values_of(&p, &lazy.main, &steps);
        for (a, b) in full.iter().zip(&streamed) {
            assert!(close(*a, *b), "{}: {a} vs {b}", law.name());
        }
    }
}

#[test]
fn branches_off_the_shared_run_give_each_branch_alone() {
    let spec = "cooldowns:peak=3e-4,warmup=500,steps=30000,every=2500,len=1500,final=3e-6";
    let written = parse(spec, None).unwrap();
    let lazy = parse_rates(spec, None).unwrap();
    let rates: Vec<_> = lazy.branches.iter().map(|b| lazy.branch(b)).collect();
    let family: Vec<(usize, usize, &dyn Rates)> = lazy
        .branches
        .iter()
        .zip(&rates)
        .map(|(b, r)| (b.start, b.start + b.len - 1, r as &dyn Rates))
        .collect();
    assert_eq!(family.len(), written.branches.len());
    for law in CurveLaw::ALL {
        let p = params(law);
        let shared = law.branch_ends(&p, &lazy.main, &family);
        for ((start, branch), value) in written.branches.iter().zip(&shared) {
            let end = branch.len() - 1;
            let alone = law.evaluate(&p, &branch.lrs, &[end], false).values[0];
            assert!(
                close(alone, *value),
                "{} at {start}: {alone} vs {value}",
                law.name()
            );
        }
    }
}

#[test]
fn cooldown_families_past_their_limits_are_refused() {
    for (spec, needle) in [
        (
            "cooldowns:peak=3e-4,warmup=10,steps=1000000,every=1,len=1",
            "cooldown branches, more than the limit of 100,000",
        ),
        (
            "cooldowns:peak=3e-4,warmup=10,steps=100000000,every=1000,len=50000000",
            "steps of cooldowns, more than the limit of 100,000,000",
        ),
    ] {
        let error = parse_rates(spec, None).err().expect("refused");
        assert_eq!(error.key(), Some(Setting::Schedule), "{error}");
        assert!(error.to_string().contains(needle), "{error}");
    }
}
