//! `scalinglaws-fuzz`: fuzzing on stable Rust. `scalinglaws-fuzz TARGET|all --seconds S
//! [--seed N] [--corpus DIR] [--runs N] [--crashes DIR] [--timeout-ms MS] [--memory-mb MB]`
//! mutates the committed corpus of each target and runs every input in a worker process that
//! catches panics, with a time limit (a hang) and a memory limit (a counting allocator); each
//! failing input is written under `crashes/TARGET/` and the exit code is 1 when any failed.
//! `--minimize FILE` shrinks a failing input. See the crate's README for the targets.

mod driver;

fn main() -> std::process::ExitCode {
    driver::main()
}
