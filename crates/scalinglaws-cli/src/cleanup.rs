//! Temporary files the command made and must not leave behind. Every output is written to a
//! temporary file beside its destination and renamed over it (`output.rs`); the temporary file
//! is made before the work starts (`preflight.rs`), so an interrupt during a long bootstrap or
//! the final write would leave it there. (On Linux it has no name until the instant before its
//! rename, so there is mostly nothing to remove; a PNG's, and every one where the system makes
//! no unnamed file, is named from the start.) Each named file is registered here: a [`TempFile`]
//! removes its file when dropped, [`remove_all`] removes every one still registered (at the
//! end of `main`, after an error, in the panic hook), and on Unix a handler for SIGINT,
//! SIGTERM and SIGHUP removes them and then lets the signal end the process as it would have
//! (so a shell still sees the command killed by Ctrl-C). The handler is written with `libc`
//! (already in the dependency tree) because removing a file from a signal handler must use
//! only async-signal-safe calls: it reads a fixed table of C strings and calls `unlink`, no
//! allocation and no lock.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Mutex;

/// How many temporary files the signal handler can know of at once (a command writes a few).
const SLOTS: usize = 64;

/// The paths the signal handler removes, as C strings; null for a free slot. A path is never
/// freed once published (a handler on another thread may be reading it): a few bytes a file.
static SIGNAL_PATHS: [AtomicPtr<libc::c_char>; SLOTS] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// The registered files, for [`remove_all`].
static REGISTERED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary file of this process: removed when dropped unless [`TempFile::persisted`] was
/// called (after it was renamed over its destination).
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
    slot: Option<usize>,
}

impl TempFile {
    /// Registers `path` before it is created, so that no moment exists when the file is there
    /// and an interrupt would not remove it.
    pub fn register(path: PathBuf) -> TempFile {
        let slot = publish(&path);
        lock_registered().push(path.clone());
        TempFile { path, slot }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file now lives on under another name: forget it without removing anything.
    pub fn persisted(mut self) {
        self.forget();
    }

    fn forget(&mut self) {
        if let Some(slot) = self.slot.take() {
            SIGNAL_PATHS[slot].store(std::ptr::null_mut(), Ordering::SeqCst);
        }
        let mut registered = lock_registered();
        if let Some(index) = registered.iter().position(|path| *path == self.path) {
            registered.swap_remove(index);
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let was_registered = self.slot.is_some() || lock_registered().contains(&self.path);
        self.forget();
        if was_registered {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Removes every registered temporary file (the command is ending).
pub fn remove_all() {
    let paths: Vec<PathBuf> = lock_registered().drain(..).collect();
    for path in paths {
        let _ = std::fs::remove_file(path);
    }
    for slot in &SIGNAL_PATHS {
        slot.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

fn lock_registered() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    REGISTERED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Puts the path in a free slot of the signal handler's table (None when the table is full:
/// the file is then still removed on every other way out).
fn publish(path: &Path) -> Option<usize> {
    let text = path_bytes(path)?;
    let raw = CString::new(text).ok()?.into_raw();
    for (index, slot) in SIGNAL_PATHS.iter().enumerate() {
        if slot
            .compare_exchange(
                std::ptr::null_mut(),
                raw,
                Ordering::SeqCst,
                Ordering::SeqCst,
            )
            .is_ok()
        {
            return Some(index);
        }
    }
    // SAFETY: `raw` came from `CString::into_raw` above and was never shared.
    drop(unsafe { CString::from_raw(raw) });
    None
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    Some(path.as_os_str().as_bytes().to_vec())
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Option<Vec<u8>> {
    path.to_str().map(|text| text.as_bytes().to_vec())
}

/// Installs the handler for SIGINT, SIGTERM and SIGHUP, and a panic hook that removes the
/// files before the default hook reports the panic.
pub fn install() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        remove_all();
        default_hook(info);
    }));
    install_signal_handlers();
}

#[cfg(unix)]
fn install_signal_handlers() {
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value; the handler
        // only calls async-signal-safe functions.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
fn install_signal_handlers() {}

/// Removes the published files, then ends the process by the same signal with its default
/// action (the signal is delivered again when the handler returns).
#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    for slot in &SIGNAL_PATHS {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: published paths are NUL-terminated and never freed.
            unsafe {
                libc::unlink(path);
            }
        }
    }
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_files_are_removed_and_persisted_ones_kept() {
        let directory =
            std::env::temp_dir().join(format!("scalinglaws-tmp-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let dropped = TempFile::register(directory.join("a.tmp"));
        std::fs::write(dropped.path(), "a").unwrap();
        let path = dropped.path().to_path_buf();
        drop(dropped);
        assert!(!path.exists());
        let kept = TempFile::register(directory.join("b.tmp"));
        std::fs::write(kept.path(), "b").unwrap();
        let path = kept.path().to_path_buf();
        kept.persisted();
        assert!(path.exists());
        std::fs::remove_dir_all(&directory).unwrap();
    }
}
