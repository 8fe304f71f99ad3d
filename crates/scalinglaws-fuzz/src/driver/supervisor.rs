//! The supervisor's side of a worker process: it starts the worker (this binary with
//! `--worker TARGET`), sends it one input at a time and waits, at most the time limit, for
//! the answer. A panic comes back as an answer; a worker that does not answer in time is
//! killed (a hang); a worker that dies is an abort, a stack overflow or an allocation past the
//! memory limit, told apart by what it wrote on stderr. A new worker replaces a dead one.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use scalinglaws_fuzz::targets::scratch;
use scalinglaws_fuzz::{Signature, Target};

use super::limits::OVER_LIMIT;

/// What one input did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Pass(Signature),
    Panic(String),
    Hang,
    Memory(String),
    StackOverflow(String),
    Died(String),
}

impl Verdict {
    /// `panic`, `hang`, `memory` or `abort` (None for a pass): the crash file's prefix.
    pub fn kind(&self) -> Option<&'static str> {
        match self {
            Verdict::Pass(_) => None,
            Verdict::Panic(_) => Some("panic"),
            Verdict::Hang => Some("hang"),
            Verdict::Memory(_) => Some("memory"),
            Verdict::StackOverflow(_) => Some("stack"),
            Verdict::Died(_) => Some("abort"),
        }
    }

    /// The failure in words (the panic's message and place, or why the worker died).
    pub fn reason(&self) -> String {
        match self {
            Verdict::Pass(_) => "pass".into(),
            Verdict::Panic(message) => format!("panic: {message}"),
            Verdict::Hang => "no answer within the time limit, twice (a hang)".into(),
            Verdict::Memory(message) | Verdict::StackOverflow(message) | Verdict::Died(message) => {
                message.clone()
            }
        }
    }
}

/// The limits a worker runs under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    pub memory_bytes: usize,
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<String>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_reader: JoinHandle<()>,
}

pub struct Supervisor {
    target: Target,
    limits: Limits,
    process: Option<Process>,
}

impl Supervisor {
    pub fn new(target: Target, limits: Limits) -> Supervisor {
        Supervisor {
            target,
            limits,
            process: None,
        }
    }

    fn spawn(&self) -> std::io::Result<Process> {
        let mut command = Command::new(std::env::current_exe()?);
        command
            .args(["--worker", self.target.name()])
            .args(["--memory-bytes", &self.limits.memory_bytes.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // The worker's temporary files go into this process's private directory.
        if let Some(directory) = scratch::directory() {
            command.env("TMPDIR", directory);
        }
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr_pipe = child.stderr.take().expect("piped stderr");
        let (sender, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        let stderr_reader = std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut buffer) {
                if let Ok(mut kept) = sink.lock() {
                    kept.extend_from_slice(&buffer[..n]);
                    let excess = kept.len().saturating_sub(8192);
                    kept.drain(..excess);
                }
            }
        });
        Ok(Process {
            child,
            stdin,
            answers,
            stderr,
            stderr_reader,
        })
    }

    /// Runs one input in the worker (starting one if needed). An input with no answer in time
    /// is tried again, in a new worker, with five times the time: on a loaded machine a worker
    /// can wait seconds for a core, and only an input slow twice is called a hang.
    pub fn run(&mut self, input: &[u8]) -> std::io::Result<Verdict> {
        match self.run_within(input, self.limits.timeout)? {
            Verdict::Hang => self.run_within(input, self.limits.timeout * 5),
            verdict => Ok(verdict),
        }
    }

    fn run_within(&mut self, input: &[u8], timeout: Duration) -> std::io::Result<Verdict> {
        if self.process.is_none() {
            self.process = Some(self.spawn()?);
        }
        let process = self.process.as_mut().expect("a worker");
        let mut message = (input.len() as u32).to_le_bytes().to_vec();
        message.extend_from_slice(input);
        // A worker that died on the previous input shows up here or in the answer.
        let sent = process
            .stdin
            .write_all(&message)
            .and_then(|_| process.stdin.flush());
        let answer = match sent {
            Ok(()) => process.answers.recv_timeout(timeout),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        Ok(match answer {
            Ok(line) => parse_answer(&line),
            Err(RecvTimeoutError::Timeout) => {
                self.stop();
                Verdict::Hang
            }
            Err(RecvTimeoutError::Disconnected) => self.death(),
        })
    }

    /// The verdict on a worker that died, from its exit status and stderr.
    fn death(&mut self) -> Verdict {
        let Some(mut process) = self.process.take() else {
            return Verdict::Died("no worker".into());
        };
        let status = process.child.wait();
        let _ = process.stderr_reader.join();
        let stderr = process
            .stderr
            .lock()
            .map(|s| String::from_utf8_lossy(&s).into_owned())
            .unwrap_or_default();
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        if let Some(line) = stderr.lines().find(|l| l.starts_with(OVER_LIMIT)) {
            return Verdict::Memory(line.to_string());
        }
        let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
        if stderr.contains("overflowed its stack") {
            return Verdict::StackOverflow(format!("stack overflow ({status})"));
        }
        Verdict::Died(format!("the worker died ({status}): {}", last.trim()))
    }

    /// Kills the worker, if one runs.
    pub fn stop(&mut self) {
        if let Some(mut process) = self.process.take() {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.stop();
    }
}

fn parse_answer(line: &str) -> Verdict {
    if let Some(hex) = line.strip_prefix("ok ") {
        return Verdict::Pass(Signature(u64::from_str_radix(hex.trim(), 16).unwrap_or(0)));
    }
    if let Some(message) = line.strip_prefix("panic ") {
        return Verdict::Panic(message.to_string());
    }
    Verdict::Died(format!("the worker answered '{line}'"))
}
