//! Every committed corpus file and every regression input (a crash once found and fixed) runs
//! through its target without a panic, on a thread with the command line's 8 MiB main-thread
//! stack. The fuzz runs start from these files, so a corpus that crashed would hide everything
//! behind it; a regression input that crashes again is a fix undone.

use std::fs;
use std::path::{Path, PathBuf};

use scalinglaws_fuzz::Target;

fn inputs(directory: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(directory)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file());
    files.sort();
    files
}

/// The files of `kind/TARGET/` that made the target panic, with the panic's message.
fn failures(kind: &str, target: Target) -> (usize, Vec<String>) {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(kind)
        .join(target.name());
    let files = inputs(&directory);
    let mut failed = Vec::new();
    for file in &files {
        let input = fs::read(file).unwrap();
        let outcome = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || target.run(&input))
            .unwrap()
            .join();
        if let Err(panic) = outcome {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failed.push(format!("{}: {message}", file.display()));
        }
    }
    (files.len(), failed)
}

#[test]
fn every_target_accepts_its_whole_corpus() {
    for target in Target::ALL {
        let (count, failed) = failures("corpus", target);
        assert!(count >= 5, "{}: only {count} corpus files", target.name());
        assert!(
            failed.is_empty(),
            "{} panicked on:\n{}",
            target.name(),
            failed.join("\n")
        );
    }
}

#[test]
fn every_fixed_crash_stays_fixed() {
    for target in Target::ALL {
        let (_, failed) = failures("regressions", target);
        assert!(
            failed.is_empty(),
            "{} panicked again on:\n{}",
            target.name(),
            failed.join("\n")
        );
    }
}

#[test]
fn the_corpus_reaches_more_than_one_kind_of_answer() {
    for target in Target::ALL {
        let directory = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("corpus")
            .join(target.name());
        let mut kinds: Vec<u64> = inputs(&directory)
            .iter()
            .map(|file| target.run(&fs::read(file).unwrap()).0)
            .collect();
        kinds.sort();
        kinds.dedup();
        assert!(
            kinds.len() >= 3,
            "{}: {} kinds of answer",
            target.name(),
            kinds.len()
        );
    }
}
