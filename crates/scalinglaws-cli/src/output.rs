//! Where results go: stdout, or a file written whole. A file is written to a temporary file in
//! the same directory and renamed over the destination, so a reader (or a crash) never sees a
//! half-written result: the file is complete or not there at all. A symbolic link is followed
//! (the file it points to is replaced, the link kept); a destination that is not a regular
//! file (`/dev/null`, a named pipe) is written in place, since it cannot be replaced. `-` means
//! stdout. A closed stdout (as in `scalinglaws laws | head -1`) ends the output quietly.
//! What is written comes from the report crate's exporters: JSON for `--json`, the report in
//! the format `--format` chose (text or markdown) for the terminal.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, Result};
use scalinglaws_report::{export, Format, Report};

use crate::InputError;

/// A `--json` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

impl Destination {
    pub fn parse(text: &str) -> Destination {
        if text == "-" {
            Destination::Stdout
        } else {
            Destination::File(PathBuf::from(text))
        }
    }
}

/// Writes `text` (a newline is added if missing) to the destination.
pub fn write(destination: &Destination, text: &str) -> Result<()> {
    let text = with_newline(text);
    match destination {
        Destination::Stdout => print(&text),
        Destination::File(path) => write_file(path, text.as_bytes()),
    }
}

/// The format of the printed reports (`--format`), chosen once before a command runs.
static REPORT_FORMAT: OnceLock<Format> = OnceLock::new();

/// Sets the format of the printed reports (the first call wins; text when never called).
pub fn set_report_format(format: Format) {
    let _ = REPORT_FORMAT.set(format);
}

/// The format the printed reports are in.
pub fn report_format() -> Format {
    REPORT_FORMAT.get().copied().unwrap_or_default()
}

/// What a command with a report and a `--json` option prints: the report alone; with
/// `--json PATH` the JSON written to PATH and the report printed; with `--json -` the JSON alone
/// on stdout.
pub fn emit<R: Report + ?Sized>(json: Option<&Destination>, report: &R) -> Result<()> {
    match json {
        Some(Destination::Stdout) => write(&Destination::Stdout, &export(report, Format::Json)?),
        Some(file) => {
            write(file, &export(report, Format::Json)?)?;
            print_report(report)
        }
        None => print_report(report),
    }
}

/// Prints the report in the chosen format.
pub fn print_report<R: Report + ?Sized>(report: &R) -> Result<()> {
    print(&export(report, report_format())?)
}

/// Prints to stdout; a closed pipe is not an error.
pub fn print(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() != ErrorKind::BrokenPipe => {
            Err(error).context("cannot write to stdout")
        }
        _ => Ok(()),
    }
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// Writes the whole file or nothing: temp file in the same directory, then rename.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let shown = path.display().to_string();
    // Follow a link to the file it names, so the link survives.
    let resolved = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path).ok(),
        _ => None,
    };
    let path = resolved.as_deref().unwrap_or(path);
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() && !meta.is_dir() {
            // A device or a pipe: not replaceable, written as a stream.
            return std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|mut file| file.write_all(bytes))
                .map_err(|error| anyhow::anyhow!("cannot write '{shown}': {error}"));
        }
    }
    let file_name = path
        .file_name()
        .ok_or_else(|| InputError(format!("cannot write '{shown}': it names no file")))?;
    if path.is_dir() {
        return Err(InputError(format!("cannot write '{shown}': it is a directory")).into());
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let temporary = directory.join(format!(
        ".{}.{}.tmp",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    let result = write_then_rename(&temporary, path, bytes);
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result.map_err(|error| {
        let message = format!("cannot write '{shown}': {error}");
        match error.kind() {
            // A path the user gave that cannot be written: their input to fix.
            ErrorKind::NotFound | ErrorKind::PermissionDenied => {
                anyhow::Error::new(InputError(message))
            }
            _ => anyhow::anyhow!(message),
        }
    })
}

fn write_then_rename(temporary: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(temporary)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_is_stdout() {
        assert_eq!(Destination::parse("-"), Destination::Stdout);
        assert_eq!(
            Destination::parse("fit.json"),
            Destination::File(PathBuf::from("fit.json"))
        );
    }

    #[test]
    fn writes_whole_files_and_replaces_old_ones() {
        let directory =
            std::env::temp_dir().join(format!("scalinglaws-out-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let path = directory.join("fit.json");
        write(&Destination::File(path.clone()), "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        write(&Destination::File(path.clone()), "{\"a\": 1}\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\": 1}\n");
        let leftovers: Vec<_> = std::fs::read_dir(&directory)
            .unwrap()
            .filter_map(|entry| entry.ok())
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        let error = write(&Destination::File(directory.join("missing/fit.json")), "{}")
            .expect_err("missing directory");
        assert!(error.to_string().contains("missing"), "{error}");
        std::fs::remove_dir_all(&directory).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_devices_written_in_place() {
        let directory =
            std::env::temp_dir().join(format!("scalinglaws-link-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let real = directory.join("real.json");
        let link = directory.join("link.json");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&Destination::File(link.clone()), "new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new\n");
        std::fs::remove_dir_all(&directory).unwrap();
        write(&Destination::File(PathBuf::from("/dev/null")), "{}").unwrap();
        let null = std::fs::metadata("/dev/null").unwrap();
        assert!(!null.is_file(), "/dev/null must stay a device");
    }
}
