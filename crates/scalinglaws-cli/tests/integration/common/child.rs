//! A command run in a fresh child process with what it cost: its exit code, its own peak
//! resident memory and CPU time (from `wait4` on its pid, so no other child's usage mixes in),
//! and its stderr. Linux only; None elsewhere (the callers skip with the reason).

use std::path::Path;
use std::process::{Command, Stdio};

/// What a child run cost and said.
#[derive(Debug, Clone)]
pub struct Usage {
    /// The exit code (None: killed by a signal).
    pub code: Option<i32>,
    pub peak_kb: u64,
    /// User plus system CPU time.
    pub cpu_seconds: f64,
    pub stderr: String,
}

impl Usage {
    pub fn peak_mb(&self) -> f64 {
        self.peak_kb as f64 / 1024.0
    }
}

/// Runs `command` (stdin empty, stdout discarded, stderr into `stderr_file`) to its end.
#[cfg(target_os = "linux")]
// The child is reaped by wait4, not Child::wait: wait4 also gives its resource usage.
#[allow(clippy::zombie_processes)]
pub fn measured(command: &mut Command, stderr_file: &Path) -> Option<Usage> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(stderr_file).unwrap());
    let child = command.spawn().expect("run scalinglaws");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child, with valid pointers to the status and the usage.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if waited == pid {
            break;
        }
        let error = std::io::Error::last_os_error();
        assert_eq!(
            error.kind(),
            std::io::ErrorKind::Interrupted,
            "wait4: {error}"
        );
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Some(Usage {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        // Linux gives ru_maxrss in kilobytes.
        peak_kb: usage.ru_maxrss as u64,
        cpu_seconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        stderr: std::fs::read_to_string(stderr_file).unwrap_or_default(),
    })
}

#[cfg(not(target_os = "linux"))]
pub fn measured(_command: &mut Command, _stderr_file: &Path) -> Option<Usage> {
    None
}
