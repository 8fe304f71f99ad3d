//! Where results go: stdout, or a file written whole. A file is written to a temporary file in
//! the same directory and renamed over the destination, so a reader (or a crash) never sees a
//! half-written result: the file is complete or not there at all. The temporary file is made
//! before the work ([`claim`], from `preflight.rs`), so a destination that cannot be written
//! is refused at once, and removed on an interrupt (`cleanup.rs`). A replaced file keeps its
//! mode and, where permitted, its owner. A symbolic link is followed, a dangling one too
//! (the file it points to is replaced or made, the link kept); a destination that is not a regular
//! file (`/dev/null`, a named pipe) is written in place, since it cannot be replaced. `-` means
//! stdout. A closed stdout (as in `scalinglaws laws | head -1`) ends the output quietly.
//! What is written comes from the report crate's exporters: JSON for `--json`, the report in
//! the format `--format` chose (text or markdown) for the terminal.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use anyhow::{Context, Result};
use scalinglaws_report::{export, Format, Report};

use crate::cleanup::TempFile;
use crate::input_error;

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

/// Writes `text` (a newline is added if missing) to the destination. A document written to
/// stdout (a picture, a CSV, the JSON) takes it: the report is then not printed beside it
/// ([`emit`]), so stdout holds one document a program can read.
pub fn write(destination: &Destination, text: &str) -> Result<()> {
    let text = with_newline(text);
    match destination {
        Destination::Stdout => {
            STDOUT_TAKEN.store(true, Ordering::Relaxed);
            print(&text)
        }
        Destination::File(path) => write_file(path, text.as_bytes()),
    }
}

/// Whether a document went to stdout ([`write`]).
static STDOUT_TAKEN: AtomicBool = AtomicBool::new(false);

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
            print_report_unless_taken(report)
        }
        None => print_report_unless_taken(report),
    }
}

/// Prints the report, unless a document already took stdout (`--plot -`, `--csv -`): then
/// stderr says where the report is not.
fn print_report_unless_taken<R: Report + ?Sized>(report: &R) -> Result<()> {
    if STDOUT_TAKEN.load(Ordering::Relaxed) {
        eprintln!("the report is not printed: stdout carries the picture or table asked for with -");
        return Ok(());
    }
    print_report(report)
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
    write_file_with(path, |file| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(file)?;
        file.write_all(bytes)?;
        Ok(())
    })
}

/// Writes the whole file or nothing, the bytes written by `fill` to the path it is given (the
/// temporary file, or a device written in place). A replaced file keeps its mode and, where
/// permitted, its owner; a link is followed, a dangling one to the file it names (made).
pub fn write_file_with(path: &Path, fill: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let shown = path.display().to_string();
    match target(path)? {
        Target::InPlace(device) => fill(&device).map_err(|error| write_error(&shown, &error)),
        Target::Replace { file, temporary } => {
            let temporary = match take_claim(&temporary) {
                Some(claimed) => claimed,
                None => create_temporary(&shown, temporary)?,
            };
            fill(temporary.path())
                .and_then(|()| finish_replacement(temporary.path(), &file))
                .map_err(|error| write_error(&shown, &error))?;
            temporary.persisted();
            Ok(())
        }
    }
}

/// Checks before any work that `path` can be written: the file a link names, not a
/// directory, in a directory that exists and takes a new file. The temporary file it will be
/// written to is made now (and removed if the command ends without writing it).
pub fn claim(path: &Path) -> Result<()> {
    let shown = path.display().to_string();
    if let Target::Replace { temporary, .. } = target(path)? {
        if lock_claims()
            .iter()
            .any(|claimed| claimed.path() == temporary)
        {
            return Ok(());
        }
        let claimed = create_temporary(&shown, temporary)?;
        lock_claims().push(claimed);
    }
    Ok(())
}

/// Removes the temporary files of earlier writes to the same destination whose process is gone
/// (a `kill -9` leaves `.NAME.PID.tmp` beside the destination; the next write to it cleans
/// up). Only on Linux, where `/proc` says whether a process lives; elsewhere nothing is removed.
fn remove_stale_temporaries(temporary: &Path) {
    if !cfg!(target_os = "linux") {
        return;
    }
    let Some(own) = temporary
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
    else {
        return;
    };
    let own_pid = std::process::id().to_string();
    // `.NAME.PID.tmp[.png]`: everything before and after this process's id.
    let Some((head, tail)) = own.rsplit_once(&format!(".{own_pid}.")) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(directory_of(temporary)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(&format!("{head}."))
            .and_then(|rest| rest.strip_suffix(&format!(".{tail}")));
        let stale = pid.is_some_and(|pid| {
            !pid.is_empty()
                && pid.bytes().all(|b| b.is_ascii_digit())
                && pid != own_pid
                && !Path::new("/proc").join(pid).exists()
        });
        if stale {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The temporary files made by [`claim`], each taken by the write of its destination.
static CLAIMS: Mutex<Vec<TempFile>> = Mutex::new(Vec::new());

fn lock_claims() -> std::sync::MutexGuard<'static, Vec<TempFile>> {
    CLAIMS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn take_claim(temporary: &Path) -> Option<TempFile> {
    let mut claims = lock_claims();
    let index = claims
        .iter()
        .position(|claimed| claimed.path() == temporary)?;
    Some(claims.swap_remove(index))
}

/// How a destination is written.
enum Target {
    /// A device or a pipe: not replaceable, written as a stream.
    InPlace(PathBuf),
    /// A regular file (or none yet): written to `temporary` beside it, then renamed.
    Replace { file: PathBuf, temporary: PathBuf },
}

/// The file `path` names (links followed) and how it is written.
fn target(path: &Path) -> Result<Target> {
    let shown = path.display().to_string();
    let file = follow_links(path).map_err(|error| write_error(&shown, &error.into()))?;
    match std::fs::metadata(&file) {
        Ok(meta) if meta.is_dir() => {
            return Err(input_error(format!(
                "cannot write '{shown}': it is a directory"
            )))
        }
        Ok(meta) if !meta.is_file() => return Ok(Target::InPlace(file)),
        _ => {}
    }
    let Some(file_name) = file.file_name() else {
        return Err(input_error(format!(
            "cannot write '{shown}': it names no file"
        )));
    };
    // A PNG's keeps the extension: the encoder chooses the format by the file's name.
    let suffix = match file.extension() {
        Some(extension) if extension.eq_ignore_ascii_case("png") => ".png",
        _ => "",
    };
    let temporary = directory_of(&file).join(format!(
        ".{}.{}.tmp{suffix}",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    Ok(Target::Replace { file, temporary })
}

/// The directory a file is (or will be) in; "." for a bare name.
fn directory_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path` with every symbolic link followed, also a dangling one (to the file it would name).
pub fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    const MOST_LINKS: usize = 40;
    let mut current = path.to_path_buf();
    for _ in 0..MOST_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let named = std::fs::read_link(&current)?;
                current = directory_of(&current).join(named);
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other(format!(
        "more than {MOST_LINKS} symbolic links in a row"
    )))
}

/// Makes the (empty) temporary file, registered first so an interrupt removes it.
fn create_temporary(shown: &str, temporary: PathBuf) -> Result<TempFile> {
    remove_stale_temporaries(&temporary);
    let file = TempFile::register(temporary);
    let create = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(file.path())
    };
    let created = match create() {
        // Left by an earlier process that had this process's id: not ours to keep.
        Err(error) if error.kind() == ErrorKind::AlreadyExists => {
            std::fs::remove_file(file.path()).and_then(|()| create())
        }
        other => other,
    };
    match created {
        Ok(_) => Ok(file),
        Err(error) => Err(directory_error(shown, file.path(), error)),
    }
}

/// Why the directory of a destination takes no new file, naming it.
fn directory_error(shown: &str, temporary: &Path, error: std::io::Error) -> anyhow::Error {
    let directory = directory_of(temporary);
    let place = directory.display();
    let reason = match error.kind() {
        ErrorKind::NotFound => format!("the directory '{place}' does not exist"),
        ErrorKind::PermissionDenied => format!("the directory '{place}' is not writable"),
        ErrorKind::NotADirectory => format!("'{place}' is not a directory"),
        _ => error.to_string(),
    };
    write_error(shown, &anyhow::Error::new(error).context(reason))
}

/// Gives the temporary file the replaced file's owner and mode, syncs it, renames it over.
fn finish_replacement(temporary: &Path, file: &Path) -> Result<()> {
    if let Ok(meta) = std::fs::metadata(file) {
        keep_owner(temporary, &meta);
        std::fs::set_permissions(temporary, meta.permissions())?;
    }
    std::fs::File::open(temporary)?.sync_all()?;
    std::fs::rename(temporary, file)?;
    Ok(())
}

/// The replaced file's owner and group, where this process may give them (root may; others
/// keep their own, as any program that replaces a file must).
#[cfg(unix)]
fn keep_owner(temporary: &Path, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let _ = std::os::unix::fs::chown(temporary, Some(meta.uid()), Some(meta.gid()));
}

#[cfg(not(unix))]
fn keep_owner(_: &Path, _: &std::fs::Metadata) {}

/// "cannot write 'PATH': reason" (the innermost message when it already says it all); a path
/// the user can fix (missing, not permitted, read-only) is their input to fix, exit 2.
fn write_error(shown: &str, error: &anyhow::Error) -> anyhow::Error {
    let reason = error.to_string();
    let message = format!("cannot write '{shown}': {reason}");
    let io_kind = error
        .chain()
        .find_map(|cause| cause.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind);
    match io_kind {
        Some(
            ErrorKind::NotFound
            | ErrorKind::PermissionDenied
            | ErrorKind::ReadOnlyFilesystem
            | ErrorKind::NotADirectory
            | ErrorKind::IsADirectory
            | ErrorKind::AlreadyExists,
        ) => input_error(message),
        _ => anyhow::anyhow!(message),
    }
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

    /// A `kill -9` leaves `.NAME.PID.tmp`; the next write to NAME removes it when its process
    /// is gone (issue 50), and leaves another destination's and a live process's alone.
    #[cfg(target_os = "linux")]
    #[test]
    fn stale_temporaries_of_dead_processes_are_removed() {
        let directory =
            std::env::temp_dir().join(format!("scalinglaws-stale-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        let dead = directory.join(".fit.json.999999999.tmp");
        let alive = directory.join(".fit.json.1.tmp");
        let other = directory.join(".other.json.999999999.tmp");
        for path in [&dead, &alive, &other] {
            std::fs::write(path, "partial").unwrap();
        }
        write(&Destination::File(directory.join("fit.json")), "{}").unwrap();
        assert!(!dead.exists());
        assert!(alive.exists(), "process 1 lives");
        assert!(other.exists());
        std::fs::remove_dir_all(&directory).unwrap();
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
