//! One target's fuzz run: the corpus replayed, then mutated inputs until the time or the run
//! count is spent. An input that reaches a new kind of answer joins the in-memory corpus; an
//! input that fails is written to the crash directory (the smallest one per distinct failure),
//! named by its kind and a hash of its bytes.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use scalinglaws_fuzz::mutate::Mutator;
use scalinglaws_fuzz::{Signature, Target};

use super::supervisor::{Limits, Supervisor, Verdict};

/// The in-memory corpus stops growing here.
const MAX_CORPUS: usize = 4096;

pub struct Plan {
    pub target: Target,
    pub corpus: Vec<PathBuf>,
    pub crashes: PathBuf,
    pub seconds: f64,
    pub runs: Option<u64>,
    pub seed: u64,
    pub limits: Limits,
}

/// What a run found.
pub struct Summary {
    pub executions: u64,
    pub elapsed: Duration,
    pub corpus_start: usize,
    pub corpus_end: usize,
    /// Distinct failures: reason → (smallest input, its file).
    pub failures: BTreeMap<String, (Vec<u8>, PathBuf)>,
}

/// Every file of every directory (sorted, so the order is the same on every machine).
pub fn load_corpus(directories: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = directories
        .iter()
        .filter_map(|d| fs::read_dir(d).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files.iter().filter_map(|p| fs::read(p).ok()).collect()
}

/// FNV-1a of the bytes, for file names.
fn hash(bytes: &[u8]) -> String {
    format!("{:016x}", Signature::tag("").mix(bytes).0)
}

/// The failure's key: its kind and, for a panic, its message and place without numbers that
/// depend on the input.
fn failure_key(verdict: &Verdict) -> String {
    let reason = verdict.reason();
    match verdict {
        Verdict::Panic(message) => match message.rsplit_once(" at ") {
            Some((_, place)) => format!("panic at {place}"),
            None => reason,
        },
        Verdict::Memory(_) => "memory".into(),
        _ => verdict.kind().unwrap_or("pass").to_string(),
    }
}

struct Run<'a> {
    plan: &'a Plan,
    supervisor: Supervisor,
    corpus: Vec<Vec<u8>>,
    seen: HashSet<Signature>,
    summary: Summary,
}

impl Run<'_> {
    fn try_input(&mut self, input: Vec<u8>, keep_new: bool) {
        let verdict = match self.supervisor.run(&input) {
            Ok(verdict) => verdict,
            Err(error) => Verdict::Died(format!("cannot start the worker: {error}")),
        };
        self.summary.executions += 1;
        match verdict {
            Verdict::Pass(signature) => {
                if self.seen.insert(signature) && keep_new && self.corpus.len() < MAX_CORPUS {
                    self.corpus.push(input);
                }
            }
            failure => self.record(input, &failure),
        }
    }

    fn record(&mut self, input: Vec<u8>, verdict: &Verdict) {
        let key = failure_key(verdict);
        let smaller = match self.summary.failures.get(&key) {
            Some((known, _)) => input.len() < known.len(),
            None => true,
        };
        if !smaller {
            return;
        }
        let kind = verdict.kind().unwrap_or("fail");
        let path = self.plan.crashes.join(format!("{kind}-{}", hash(&input)));
        if let Some((_, old)) = self.summary.failures.get(&key) {
            let _ = fs::remove_file(old);
        }
        let written = fs::create_dir_all(&self.plan.crashes).and_then(|_| fs::write(&path, &input));
        let note = match written {
            Ok(()) => path.display().to_string(),
            Err(error) => format!("(not written: {error})"),
        };
        println!(
            "{}: {} ({} bytes) -> {note}",
            self.plan.target.name(),
            verdict.reason(),
            input.len()
        );
        self.summary.failures.insert(key, (input, path));
    }
}

pub fn run(plan: &Plan) -> Summary {
    let corpus = load_corpus(&plan.corpus);
    let mut run = Run {
        plan,
        supervisor: Supervisor::new(plan.target, plan.limits),
        corpus: Vec::new(),
        seen: HashSet::new(),
        summary: Summary {
            executions: 0,
            elapsed: Duration::ZERO,
            corpus_start: corpus.len(),
            corpus_end: 0,
            failures: BTreeMap::new(),
        },
    };
    let start = Instant::now();
    for input in corpus {
        run.corpus.push(input.clone());
        run.try_input(input, false);
    }
    if run.corpus.is_empty() {
        run.corpus.push(Vec::new());
    }
    let seed = plan.seed ^ Signature::tag(plan.target.name()).0;
    let mut mutator = Mutator::new(seed, plan.target.dictionary());
    let deadline = start + Duration::from_secs_f64(plan.seconds.max(0.0));
    let mut picks = Mutator::new(seed.rotate_left(17), &[]);
    while plan
        .runs
        .map_or(Instant::now() < deadline, |n| run.summary.executions < n)
    {
        let base = picks.pick(run.corpus.len());
        let other = picks.pick(run.corpus.len());
        let input = mutator.mutate(&run.corpus[base], &run.corpus[other]);
        run.try_input(input, true);
    }
    run.summary.elapsed = start.elapsed();
    run.summary.corpus_end = run.corpus.len();
    run.summary
}

/// Shrinks a failing input: removes chunks, halving their size, while the input still fails
/// the same way; writes `FILE.min` and returns its path.
pub fn minimize(target: Target, limits: Limits, file: &Path) -> std::io::Result<PathBuf> {
    let mut input = fs::read(file)?;
    let mut supervisor = Supervisor::new(target, limits);
    let original = supervisor.run(&input)?;
    if original.kind().is_none() {
        return Err(std::io::Error::other("the input does not fail"));
    }
    let key = failure_key(&original);
    let mut chunk = input.len().div_ceil(2).max(1);
    loop {
        let mut at = 0;
        while at < input.len() {
            let mut candidate = input.clone();
            candidate.drain(at..(at + chunk).min(input.len()));
            if failure_key(&supervisor.run(&candidate)?) == key {
                input = candidate;
            } else {
                at += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    let out = file.with_extension("min");
    fs::write(&out, &input)?;
    println!(
        "{}: {} ({} bytes) -> {}",
        target.name(),
        original.reason(),
        input.len(),
        out.display()
    );
    Ok(out)
}
