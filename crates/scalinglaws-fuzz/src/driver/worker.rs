//! The worker process: reads inputs from stdin (a 4-byte little-endian length, then the
//! bytes), runs the target on each under `catch_unwind` on its main thread (as the command
//! line runs, with the same stack), and answers one line per input on stdout: `ok HEX` with the
//! outcome's signature, or `panic MESSAGE` with the panic's message and place. A hang, an
//! abort or an allocation past the limit ends it; the supervisor notices.

use std::io::{Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use scalinglaws_fuzz::targets::scratch;
use scalinglaws_fuzz::Target;

static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Records each panic's message and place instead of printing it.
fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic with no message".to_string());
        let place = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let from = project_frame()
            .map(|f| format!(" (from {f})"))
            .unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{message}{from} at {place}"));
        }
    }));
}

/// The innermost frame of the project's own code (not the standard library's, not this
/// crate's), so a panic inside `Vec` still names the library function that caused it, with its
/// line when the build has one. `SCALINGLAWS_FUZZ_TRACE=1` prints the whole backtrace too.
fn project_frame() -> Option<String> {
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    if std::env::var_os("SCALINGLAWS_FUZZ_TRACE").is_some() {
        eprintln!("{trace}");
    }
    let lines: Vec<&str> = trace.lines().map(str::trim).collect();
    lines.iter().enumerate().find_map(|(i, line)| {
        let (_, name) = line.split_once(": ")?;
        if !name.starts_with("scalinglaws") || name.starts_with("scalinglaws_fuzz") {
            return None;
        }
        let place = lines.get(i + 1).and_then(|next| next.strip_prefix("at "));
        Some(match place {
            Some(place) => format!("{name} at {}", place.trim_start_matches("./")),
            None => name.to_string(),
        })
    })
}

fn read_input(stdin: &mut impl Read) -> Option<Vec<u8>> {
    let mut length = [0u8; 4];
    stdin.read_exact(&mut length).ok()?;
    let mut input = vec![0u8; u32::from_le_bytes(length) as usize];
    stdin.read_exact(&mut input).ok()?;
    Some(input)
}

/// Serves inputs until stdin closes.
pub fn serve(target: Target) {
    install_panic_hook();
    let mut stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    while let Some(input) = read_input(&mut stdin) {
        let answer = match panic::catch_unwind(AssertUnwindSafe(|| target.run(&input))) {
            Ok(signature) => format!("ok {:x}", signature.0),
            Err(_) => {
                let message = LAST_PANIC.lock().ok().and_then(|mut m| m.take());
                let message = message.unwrap_or_else(|| "a panic".to_string());
                format!("panic {}", message.replace(['\n', '\r'], " "))
            }
        };
        if writeln!(stdout, "{answer}")
            .and_then(|_| stdout.flush())
            .is_err()
        {
            break;
        }
    }
    scratch::remove_directory();
}
