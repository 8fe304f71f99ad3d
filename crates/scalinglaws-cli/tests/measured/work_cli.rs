//! The work model holds (issue 50): random option combinations of the workflows whose work
//! multiplies (rows × starts × replicates × profiles × tracks × budgets × simulations) are
//! run through the release binary under a small budget. Each is either refused before any
//! work (exit 2, naming the budget) or runs, and then its measured CPU time and peak memory
//! (the child's own, from `wait4`) stay within the estimate it was refused with under a
//! budget of nothing. The estimate is an upper estimate: the test also prints how loose it is.
//! Linux and release builds only (elsewhere the test skips, said in the skip log).

use crate::common;

use std::fmt::Write as _;
use std::path::Path;

use common::child::measured;
use common::scalinglaws_in_root;
use common::skip::skip;

/// The budget the combinations run under: big enough that most of them run, small enough
/// that the test stays within about a minute on 2 cores.
const BUDGET: f64 = 3.0;

/// Combinations drawn.
const CASES: u64 = 24;

/// CPU time a run takes before any work (starting, reading a small file, writing).
const START_SECONDS: f64 = 0.15;

/// Resident memory of a run that holds nothing (the binary, its libraries, its threads).
const BASE_MB: f64 = 40.0;

#[test]
fn the_estimate_bounds_the_measured_time_and_memory_or_the_run_is_refused() {
    if cfg!(debug_assertions) {
        skip("the work model is checked on the release binary (cargo test --release)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_data(dir.path());
    let mut rng = Lcg(0x5eed);
    let (mut ran, mut refused, mut looseness) = (0, 0, Vec::new());
    for case in 0..CASES {
        let args = draw(&mut rng, dir.path(), case);
        let Some(estimate) = estimate_of(&args, dir.path()) else {
            skip("the CPU time and peak memory of a child are read with wait4 on Linux only");
            return;
        };
        let mut command = scalinglaws_in_root();
        command
            .args(&args)
            .args(["--max-work", &BUDGET.to_string()]);
        let usage = measured(&mut command, &dir.path().join("stderr.txt")).unwrap();
        if usage.code == Some(2) && usage.stderr.contains("budget of 3") {
            assert!(
                estimate.seconds > BUDGET || estimate.bytes > BUDGET * 8e6,
                "{args:?} refused though estimated within the budget: {estimate:?}\n{}",
                usage.stderr
            );
            refused += 1;
            continue;
        }
        assert_eq!(usage.code, Some(0), "{args:?}: {}", usage.stderr);
        assert!(
            usage.cpu_seconds <= estimate.seconds + START_SECONDS,
            "{args:?} took {:.2} CPU seconds, more than its estimate of {:.3}",
            usage.cpu_seconds,
            estimate.seconds
        );
        let bound_mb = BASE_MB + estimate.bytes / 1e6;
        assert!(
            usage.peak_mb() <= bound_mb,
            "{args:?} peaked at {:.1} MB, more than its estimate of {:.1} MB",
            usage.peak_mb(),
            bound_mb
        );
        ran += 1;
        if usage.cpu_seconds > START_SECONDS {
            looseness.push(estimate.seconds / usage.cpu_seconds);
        }
    }
    looseness.sort_by(f64::total_cmp);
    eprintln!(
        "{ran} combinations ran within their estimates, {refused} refused; estimate / measured \
         CPU (runs over {START_SECONDS} s): min {:.1}, median {:.1}, max {:.1}",
        looseness.first().unwrap_or(&f64::NAN),
        looseness.get(looseness.len() / 2).unwrap_or(&f64::NAN),
        looseness.last().unwrap_or(&f64::NAN)
    );
    assert!(
        ran >= CASES / 4 && refused >= 1,
        "{ran} ran, {refused} refused"
    );
}

/// An estimate as a refusal states it.
#[derive(Debug)]
struct Estimate {
    seconds: f64,
    bytes: f64,
}

/// The estimate of `args`, from its refusal under a budget of nothing (both the work and the
/// memory are then over it, so the message states both).
fn estimate_of(args: &[String], dir: &Path) -> Option<Estimate> {
    let mut command = scalinglaws_in_root();
    command.args(args).args(["--max-work", "1e-12"]);
    let usage = measured(&mut command, &dir.join("estimate.txt"))?;
    let message = usage.stderr;
    assert_eq!(usage.code, Some(2), "{args:?}: {message}");
    let after = |marker: &str| -> &str {
        let start = message
            .find(marker)
            .unwrap_or_else(|| panic!("{args:?}: {message}"));
        &message[start + marker.len()..]
    };
    let seconds = number(after("estimated at ").split(' ').next().unwrap());
    let mut memory = after(" of work holding ").split(' ');
    let (value, unit) = (number(memory.next().unwrap()), memory.next().unwrap());
    let scale = match unit {
        "GB" => 1e9,
        "MB" => 1e6,
        _ => 1e3,
    };
    Some(Estimate {
        seconds,
        bytes: value * scale,
    })
}

fn number(text: &str) -> f64 {
    text.replace(',', "").parse().unwrap()
}

/// One random combination: a workflow and its multiplying options.
fn draw(rng: &mut Lcg, dir: &Path, case: u64) -> Vec<String> {
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let mut args: Vec<String> = match case % 4 {
        0 => {
            let rows = [20, 200, 2000, 20000][rng.below(4)];
            let mut a = words(&["fit", &path(&format!("chinchilla_{rows}.csv"))]);
            a.extend(words(&["--law", "chinchilla", "--target", "loss"]));
            if rng.below(2) == 0 {
                a.extend(words(&["--profile", "alpha"]));
            }
            a
        }
        1 => fit_power_sum(dir, 1 + rng.below(5)),
        2 => {
            let tracks = 2 + rng.below(14);
            let mut a = words(&["compare", &path(&format!("tracks_{tracks}.csv"))]);
            a.extend(words(&[
                "--target",
                "loss",
                "--track",
                "recipe",
                "--law",
                "chinchilla",
            ]));
            a.extend(words(&["--shared", "E,alpha,beta"]));
            a
        }
        _ => {
            let budgets = [100, 1000, 20000, 200000][rng.below(4)];
            grid_envelope(budgets)
        }
    };
    if rng.below(2) == 0 {
        let replicates = [20, 100, 400][rng.below(3)];
        args.extend(words(&["--bootstrap", &replicates.to_string()]));
    }
    if args[0] != "isoflop" {
        args.extend(words(&["--threads", "2"]));
    }
    args
}

/// `fit` of the learning curve with a sum of `exponents` power laws (4 start values each, so
/// 4^exponents starts).
fn fit_power_sum(dir: &Path, exponents: usize) -> Vec<String> {
    let mut formula = String::from("c");
    for k in 1..=exponents {
        let _ = write!(formula, " + a{k}*x^-b{k}");
    }
    let data = dir.join("curve.csv").to_string_lossy().into_owned();
    words(&["fit", &data, "--target", "y", "--formula", &formula])
}

/// `isoflop` on the bundled runs with the grid envelope at `budgets` budgets.
fn grid_envelope(budgets: usize) -> Vec<String> {
    words(&[
        "isoflop",
        "examples/isoflop/runs.csv",
        "--target",
        "loss",
        "--compute",
        "C",
        "--size",
        "N",
        "--run",
        "N",
        "--envelope",
        &format!("grid:{budgets}"),
    ])
}

fn words(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// The tables the combinations read: Chinchilla runs at four sizes, a learning curve, and
/// recipe tracks of 10 runs each.
fn write_data(dir: &Path) {
    let mut rng = Lcg(7);
    let loss = |n: f64, d: f64| 1.69 + 406.4 / n.powf(0.34) + 410.7 / d.powf(0.28);
    for rows in [20, 200, 2000, 20000] {
        let mut text = String::from("N,D,loss\n");
        for _ in 0..rows {
            let n = 10f64.powf(7.0 + 3.0 * rng.unit());
            let d = 10f64.powf(9.0 + 3.0 * rng.unit());
            let y = loss(n, d) * (0.01 * rng.gauss()).exp();
            let _ = writeln!(text, "{n:.6e},{d:.6e},{y:.6}");
        }
        std::fs::write(dir.join(format!("chinchilla_{rows}.csv")), text).unwrap();
    }
    let mut text = String::from("x,y\n");
    for i in 0..20 {
        let x = 10f64.powf(i as f64 / 5.0);
        let _ = writeln!(text, "{x},{}", 2.0 + 3.0 * x.powf(-0.3) + x.powf(-0.1));
    }
    std::fs::write(dir.join("curve.csv"), text).unwrap();
    for tracks in 2..16 {
        let mut text = String::from("recipe,N,D,loss\n");
        for t in 0..tracks {
            for i in 0..10 {
                let n = 10f64.powf(7.0 + 0.3 * i as f64);
                let d = 20.0 * n * (1.0 + 0.5 * (i % 3) as f64);
                let y = loss(n, d) * (0.01 * rng.gauss()).exp() * (1.0 + 0.01 * t as f64);
                let _ = writeln!(text, "r{t},{n:.4e},{d:.4e},{y:.6}");
            }
        }
        std::fs::write(dir.join(format!("tracks_{tracks}.csv")), text).unwrap();
    }
}

/// A small seeded generator (the draws only need to differ, not to be good).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n
    }

    fn gauss(&mut self) -> f64 {
        let (u, v) = (self.unit().max(1e-12), self.unit());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// The products of allowed values a hostile pass found running for minutes are refused before
/// any work, each naming the factors and the option that shrinks the largest.
#[test]
fn products_of_allowed_values_are_refused_up_front() {
    // The loops of fits too: backtest splits, compare-laws' likelihood refits, select's
    // origins (nested with --check).
    let dir = tempfile::tempdir().unwrap();
    write_data(dir.path());
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let cases: Vec<(Vec<String>, &[&str])> = vec![
        (
            fit_power_sum(dir.path(), 9),
            &["262,144 starts", "shrink it with --grid", "--max-work"],
        ),
        (
            [grid_envelope(1_000_000), words(&["--bootstrap", "1000"])].concat(),
            &[
                "1,000,000 budgets",
                "--envelope or --bootstrap",
                "of memory",
            ],
        ),
        (
            words(&[
                "compare",
                &path("tracks_15.csv"),
                "--target",
                "loss",
                "--track",
                "recipe",
                "--law",
                "chinchilla",
                "--shared",
                "E,alpha,beta",
                "--bootstrap",
                "100000",
            ]),
            &["100,000 bootstrap replicates", "--bootstrap"],
        ),
        (
            words(&[
                "fit",
                &path("curve.csv"),
                "--target",
                "y",
                "--formula",
                "c + a*x^-b",
                "--max-work",
                "0",
            ]),
            &["--max-work 0", "above 0"],
        ),
        (
            chinchilla_example(&[
                "backtest",
                "--by",
                "C",
                "--rolling",
                "--origins",
                "40",
                "--bootstrap",
                "10000",
            ]),
            &[
                "10,000 bootstrap replicates × 40 backtest splits",
                "--bootstrap or --rolling",
            ],
        ),
        (
            chinchilla_example(&[
                "compare-laws",
                "--formula",
                "E + A*N^-alpha",
                "--max-work",
                "1",
            ]),
            &["2 candidate laws × 52 fits of each law", "or --law"],
        ),
        (
            chinchilla_example(&[
                "select",
                "--formula",
                "E + A*N^-alpha",
                "--check",
                "--max-work",
                "1",
            ]),
            &["2 candidate laws", "fits at rolling origins", "or --law"],
        ),
    ];
    for (args, expected) in cases {
        common::fails(scalinglaws_in_root().args(&args), expected);
    }
}

/// `args[0]` (a command) on the bundled Chinchilla example under Epoch AI's protocol (the
/// README's first command, `common::CHINCHILLA`, its law included), then `args[1..]`.
fn chinchilla_example(args: &[&str]) -> Vec<String> {
    [&args[..1], &common::CHINCHILLA[1..], &args[1..]]
        .concat()
        .iter()
        .map(|a| a.to_string())
        .collect()
}
