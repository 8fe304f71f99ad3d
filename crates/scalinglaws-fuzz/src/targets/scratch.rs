//! Input files for the targets whose library entry point reads a path (the data reader): one
//! private directory per process (created new, readable by its owner only), one file per
//! input, removed when the input is done. Another process's files are never touched.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

static DIRECTORY: OnceLock<Option<PathBuf>> = OnceLock::new();
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The process's directory, created on first use (None when it cannot be).
pub fn directory() -> Option<&'static Path> {
    DIRECTORY.get_or_init(create).as_deref()
}

fn create() -> Option<PathBuf> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for attempt in 0..16u32 {
        let name = format!("scalinglaws-fuzz-{}-{nanos}-{attempt}", std::process::id());
        let path = std::env::temp_dir().join(name);
        if make_private(&path).is_ok() {
            return Some(path);
        }
    }
    None
}

#[cfg(unix)]
fn make_private(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().mode(0o700).create(path)
}

#[cfg(not(unix))]
fn make_private(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new().create(path)
}

/// Removes the directory and what is left in it (call once, at the end of the process).
pub fn remove_directory() {
    if let Some(Some(path)) = DIRECTORY.get() {
        let _ = fs::remove_dir_all(path);
    }
}

/// One input written to a file of its own, removed on drop.
pub struct InputFile {
    path: PathBuf,
}

impl InputFile {
    /// `bytes` in a new file named `input-K.EXTENSION`.
    pub fn write(extension: &str, bytes: &[u8]) -> io::Result<InputFile> {
        let directory = directory().ok_or_else(|| io::Error::other("no temporary directory"))?;
        let index = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = directory.join(format!("input-{index}.{extension}"));
        fs::write(&path, bytes)?;
        Ok(InputFile { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for InputFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}
