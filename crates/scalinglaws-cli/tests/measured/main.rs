//! The tests that measure a child's peak memory, in a test binary of their own. Linux's `wait4`
//! reports the larger of the child's own peak and its parent's peak resident memory at the
//! moment the child was started (the kernel keeps the old memory's high-water mark across
//! `exec`), so these tests need a small parent: beside the other integration tests the
//! parent's peak would count as the child's. Run one with
//! `cargo test --release -p scalinglaws-cli --test measured -- NAME::`.

#[path = "../integration/common/mod.rs"]
mod common;
mod memory_cli;
mod schedule_memory_cli;
mod work_cli;
