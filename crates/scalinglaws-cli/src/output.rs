//! Where results go: stdout, or a file written whole. A file is written to a temporary file in
//! the same directory and renamed over the destination, so a reader (or a crash) never sees a
//! half-written result: the file is complete or not there at all. The temporary file is made
//! before the work ([`claim`], from `preflight.rs`), so a destination that cannot be written
//! (a directory, a path ending in `/`, a directory that is missing or not writable) is refused
//! at once, naming the option, not after minutes of fitting. A replaced file keeps its mode and,
//! where permitted, its owner. A symbolic link is followed, a dangling one too (the file it
//! points to is replaced or made, the link kept); a destination that is not a regular file
//! (`/dev/null`, a named pipe) is written in place, since it cannot be replaced. `-` means
//! stdout. A closed stdout (as in `scalinglaws laws | head -1`) ends the output quietly.
//!
//! What a killed process leaves (issue 50). A signal that can be caught (Ctrl-C, SIGTERM,
//! SIGHUP) removes the temporary files (`cleanup.rs`); `kill -9` cannot be caught. So on Linux
//! the temporary file has no name while the work runs and while it is written: it is an
//! `O_TMPFILE` file in the destination's directory (made there so the rename stays on one file
//! system and the claim proves the directory takes a file), linked as `.NAME.PID.tmp` through
//! `/proc/self/fd` only once it is whole and synced, and renamed over the destination at once.
//! A `kill -9` during the work or the write then leaves nothing: the kernel frees an unlinked
//! file with its last descriptor. Only the instant between the link and the rename, a PNG
//! (whose encoder picks the format by the file's name, so it is drawn into the named
//! `.NAME.PID.tmp.png`, made just before the drawing), and file systems or systems without
//! `O_TMPFILE` (the named file, made at the claim) leave a `.NAME.PID.tmp`; for those, every
//! write sweeps the temporary files of the same destination whose process is gone. The sweep
//! alone would not do: a file left by a killed run of 67 MB stays until the next write to the
//! same name, which may never come.
//!
//! What is written comes from the report crate's exporters: JSON for `--json`, the report in
//! the format `--format` chose (text or markdown) for the terminal.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use anyhow::{Context, Result};
use scalinglaws_report::{export, Format, Report};

use crate::cleanup::TempFile;
use crate::{input_error, InputError};

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
        Some(Destination::Stdout) => write(
            &Destination::Stdout,
            &export(report, Format::Json, &crate::wording::CommandLine)?,
        ),
        Some(file) => {
            write(
                file,
                &export(report, Format::Json, &crate::wording::CommandLine)?,
            )?;
            print_report_unless_taken(report)
        }
        None => print_report_unless_taken(report),
    }
}

/// Prints the report, unless a document already took stdout (`--plot -`, `--csv -`): then
/// stderr says where the report is not.
fn print_report_unless_taken<R: Report + ?Sized>(report: &R) -> Result<()> {
    if STDOUT_TAKEN.load(Ordering::Relaxed) {
        eprintln!(
            "the report is not printed: stdout carries the picture or table asked for with -"
        );
        return Ok(());
    }
    print_report(report)
}

/// Prints the report in the chosen format.
pub fn print_report<R: Report + ?Sized>(report: &R) -> Result<()> {
    print(&export(
        report,
        report_format(),
        &crate::wording::CommandLine,
    )?)
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
            // A PNG is drawn into a file named like its destination (the module's note).
            let named_only = needs_name(&temporary);
            let claimed = take_claim(&temporary)
                .filter(|claimed| !(named_only && matches!(claimed, Temporary::Unnamed { .. })));
            let temporary = match claimed {
                Some(claimed) => claimed,
                None => create_temporary(&shown, temporary, !named_only)?,
            };
            fill(&temporary.fill_path())
                .and_then(|()| temporary.replace(&file))
                .map_err(|error| write_error(&shown, &error))
        }
    }
}

/// Checks before any work that `path`, named by `option`, can be written: the file a link
/// names, not a directory, in a directory that exists and takes a new file; the refusal names
/// the option, the path and the fix. The temporary file it will be written to is made now
/// (unnamed where the system allows, else removed if the command ends without writing it).
pub fn claim(option: &str, path: &Path) -> Result<()> {
    claim_file(path).map_err(|error| match error.downcast_ref::<InputError>() {
        Some(refusal) => input_error(format!("{option}: {refusal}")),
        None => anyhow::anyhow!("{option}: {error}"),
    })
}

fn claim_file(path: &Path) -> Result<()> {
    let shown = path.display().to_string();
    if let Target::Replace { temporary, .. } = target(path)? {
        if lock_claims()
            .iter()
            .any(|claimed| claimed.named() == temporary)
        {
            return Ok(());
        }
        let claimed = create_temporary(&shown, temporary, true)?;
        lock_claims().push(claimed);
    }
    Ok(())
}

/// Removes the temporary files of earlier writes to the same destination whose process is gone
/// (a `kill -9` can leave `.NAME.PID.tmp` beside the destination: the module's note; the next
/// write to it cleans up). Only on Linux, where `/proc` says whether a process lives; elsewhere
/// nothing is removed.
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
static CLAIMS: Mutex<Vec<Temporary>> = Mutex::new(Vec::new());

fn lock_claims() -> std::sync::MutexGuard<'static, Vec<Temporary>> {
    CLAIMS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn take_claim(temporary: &Path) -> Option<Temporary> {
    let mut claims = lock_claims();
    let index = claims
        .iter()
        .position(|claimed| claimed.named() == temporary)?;
    Some(claims.swap_remove(index))
}

/// A destination's temporary file.
#[derive(Debug)]
enum Temporary {
    /// `.NAME.PID.tmp` itself, registered so an interrupt removes it.
    Named(TempFile),
    /// An unnamed file in the destination's directory (Linux's `O_TMPFILE`), to be named
    /// `named` only for the instant before its rename; a killed process leaves nothing.
    Unnamed { file: std::fs::File, named: PathBuf },
}

impl Temporary {
    /// `.NAME.PID.tmp`: the file's name, now or once it is whole.
    fn named(&self) -> &Path {
        match self {
            Temporary::Named(file) => file.path(),
            Temporary::Unnamed { named, .. } => named,
        }
    }

    /// The path the content is written to (an unnamed file's through `/proc/self/fd`).
    fn fill_path(&self) -> PathBuf {
        match self {
            Temporary::Named(file) => file.path().to_path_buf(),
            Temporary::Unnamed { file, .. } => unnamed::path(file),
        }
    }

    /// Gives the written file the replaced file's owner and mode, syncs it and renames it over
    /// `file` (an unnamed file first linked as its temporary name, registered so an interrupt
    /// between the two removes it).
    fn replace(self, file: &Path) -> Result<()> {
        match self {
            Temporary::Named(temporary) => {
                keep_attributes(&std::fs::File::open(temporary.path())?, file)?;
                std::fs::rename(temporary.path(), file)?;
                temporary.persisted();
            }
            Temporary::Unnamed {
                file: written,
                named,
            } => {
                keep_attributes(&written, file)?;
                let linked = TempFile::register(named);
                unnamed::link(&written, linked.path())?;
                std::fs::rename(linked.path(), file)?;
                linked.persisted();
            }
        }
        Ok(())
    }
}

/// True for a temporary file whose name must end like its destination's (a PNG's: the encoder
/// picks the format by the name), which an unnamed file cannot be written through.
fn needs_name(temporary: &Path) -> bool {
    temporary
        .extension()
        .is_some_and(|extension| extension == "png")
}

/// Unnamed temporary files (`O_TMPFILE`, named later through `/proc/self/fd`): Linux only.
#[cfg(target_os = "linux")]
mod unnamed {
    use std::ffi::CString;
    use std::fs::File;
    use std::io::ErrorKind;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    use std::path::{Path, PathBuf};

    /// An unnamed file in `directory`; None where the file system or kernel makes none (the
    /// named file is made instead) or `/proc/self/fd` is not there to name it later.
    pub fn open(directory: &Path) -> std::io::Result<Option<File>> {
        if !Path::new("/proc/self/fd").is_dir() {
            return Ok(None);
        }
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_TMPFILE)
            .open(directory);
        match opened {
            Ok(file) => Ok(Some(file)),
            // No O_TMPFILE on this file system (EOPNOTSUPP) or kernel (EISDIR, EINVAL).
            Err(error)
                if matches!(
                    error.raw_os_error(),
                    Some(libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL)
                ) =>
            {
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }

    /// The unnamed file as a path others can open.
    pub fn path(file: &File) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()))
    }

    /// Gives the unnamed file the name `named` (a file left there by an earlier process with
    /// this process's id is not ours to keep).
    pub fn link(file: &File, named: &Path) -> std::io::Result<()> {
        let source = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))?;
        let target = CString::new(named.as_os_str().as_bytes())?;
        let link = || {
            // SAFETY: two NUL-terminated paths that outlive the call.
            let linked = unsafe {
                libc::linkat(
                    libc::AT_FDCWD,
                    source.as_ptr(),
                    libc::AT_FDCWD,
                    target.as_ptr(),
                    libc::AT_SYMLINK_FOLLOW,
                )
            };
            match linked {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        };
        match link() {
            Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                std::fs::remove_file(named)?;
                link()
            }
            other => other,
        }
    }
}

/// Elsewhere every temporary file is named.
#[cfg(not(target_os = "linux"))]
mod unnamed {
    use std::fs::File;
    use std::path::{Path, PathBuf};

    pub fn open(_: &Path) -> std::io::Result<Option<File>> {
        Ok(None)
    }

    pub fn path(_: &File) -> PathBuf {
        unreachable!("no unnamed temporary file is made outside Linux")
    }

    pub fn link(_: &File, _: &Path) -> std::io::Result<()> {
        Err(std::io::ErrorKind::Unsupported.into())
    }
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
    let refuse = |reason: &str| {
        Err(input_error(format!(
            "cannot write '{shown}': {reason}; give a file path"
        )))
    };
    match std::fs::metadata(&file) {
        Ok(meta) if meta.is_dir() => return refuse("it is a directory"),
        Ok(meta) if !meta.is_file() => return Ok(Target::InPlace(file)),
        _ => {}
    }
    if names_a_directory(&file) {
        return refuse("a path ending in '/' (or '/.') names a directory");
    }
    let Some(file_name) = file.file_name() else {
        return refuse("it names no file");
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

/// True for a path written as a directory's (`out/`, `out/.`), which the file system would
/// take as the directory `out`, not a file of that name.
fn names_a_directory(path: &Path) -> bool {
    let text = path.as_os_str().as_encoded_bytes();
    let separator = |byte: &u8| *byte == b'/' || (cfg!(windows) && *byte == b'\\');
    text.last().is_some_and(separator)
        || (text.ends_with(b".") && text.len() >= 2 && separator(&text[text.len() - 2]))
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

/// Makes the (empty) temporary file: an unnamed one when `unnamed` allows it and the system
/// has them, else the named file, registered first so an interrupt removes it.
fn create_temporary(shown: &str, temporary: PathBuf, unnamed: bool) -> Result<Temporary> {
    remove_stale_temporaries(&temporary);
    if unnamed {
        match unnamed::open(&directory_of(&temporary)) {
            Ok(Some(file)) => {
                return Ok(Temporary::Unnamed {
                    file,
                    named: temporary,
                })
            }
            Ok(None) => {}
            Err(error) => return Err(directory_error(shown, &temporary, error)),
        }
    }
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
        Ok(_) => Ok(Temporary::Named(file)),
        Err(error) => Err(directory_error(shown, file.path(), error)),
    }
}

/// Why the directory of a destination takes no new file, naming it, and what to do.
fn directory_error(shown: &str, temporary: &Path, error: std::io::Error) -> anyhow::Error {
    let directory = directory_of(temporary);
    let place = directory.display();
    let reason = match error.kind() {
        ErrorKind::NotFound if !directory.is_dir() => format!(
            "the directory '{place}' does not exist; create it or give a path in an existing \
             directory"
        ),
        // `/proc` and the like: there, but no file can be made in it.
        ErrorKind::NotFound | ErrorKind::PermissionDenied => format!(
            "the directory '{place}' is not writable; give a path in a directory you can write to"
        ),
        ErrorKind::ReadOnlyFilesystem => format!(
            "the directory '{place}' is on a read-only file system; give a path in a writable \
             directory"
        ),
        ErrorKind::NotADirectory => {
            format!("'{place}' is not a directory; give a path in a directory")
        }
        _ => error.to_string(),
    };
    write_error(shown, &anyhow::Error::new(error).context(reason))
}

/// Gives the written file the replaced file's owner and mode (when it replaces one) and syncs
/// it.
fn keep_attributes(written: &std::fs::File, file: &Path) -> Result<()> {
    if let Ok(meta) = std::fs::metadata(file) {
        keep_owner(written, &meta);
        written.set_permissions(meta.permissions())?;
    }
    written.sync_all()?;
    Ok(())
}

/// The replaced file's owner and group, where this process may give them (root may; others
/// keep their own, as any program that replaces a file must).
#[cfg(unix)]
fn keep_owner(written: &std::fs::File, meta: &std::fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let _ = std::os::unix::fs::fchown(written, Some(meta.uid()), Some(meta.gid()));
}

#[cfg(not(unix))]
fn keep_owner(_: &std::fs::File, _: &std::fs::Metadata) {}

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

    /// The names in `directory` that are temporary files.
    fn temporaries(directory: &Path) -> Vec<String> {
        std::fs::read_dir(directory)
            .unwrap()
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".tmp"))
            .collect()
    }

    fn scratch(name: &str) -> PathBuf {
        let directory =
            std::env::temp_dir().join(format!("scalinglaws-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&directory).unwrap();
        directory
    }

    /// Issue 50: on Linux a claimed destination's temporary file has no name while the work
    /// runs (a `kill -9` then leaves nothing), and none after the write.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_claimed_temporary_file_has_no_name_until_it_is_whole() {
        let directory = scratch("unnamed");
        let path = directory.join("fit.json");
        if unnamed::open(&directory).unwrap().is_none() {
            eprintln!("no O_TMPFILE on this file system: the named file is made instead");
            std::fs::remove_dir_all(&directory).unwrap();
            return;
        }
        claim("--json", &path).unwrap();
        assert_eq!(temporaries(&directory), Vec::<String>::new());
        assert_eq!(std::fs::read_dir(&directory).unwrap().count(), 0);
        write(&Destination::File(path.clone()), "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
        assert_eq!(temporaries(&directory), Vec::<String>::new());
        std::fs::remove_dir_all(&directory).unwrap();
    }

    /// Issue 50: a write that fails leaves the old file whole (or none) and no temporary file,
    /// unnamed (JSON) or named (PNG).
    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let directory = scratch("failed");
        for name in ["fit.json", "fit.png"] {
            let path = directory.join(name);
            let failing = |file: &Path| -> Result<()> {
                std::fs::write(file, "half")?;
                Err(anyhow::anyhow!("the drawing failed"))
            };
            claim("--json", &path).unwrap();
            let error = write_file_with(&path, failing).expect_err("the fill fails");
            assert!(error.to_string().contains("the drawing failed"), "{error}");
            assert!(!path.exists(), "{name}");
            std::fs::write(&path, "old").unwrap();
            write_file_with(&path, failing).expect_err("the fill fails");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "old", "{name}");
            assert_eq!(temporaries(&directory), Vec::<String>::new(), "{name}");
        }
        std::fs::remove_dir_all(&directory).unwrap();
    }

    /// Issue 50: a directory, a path written as a directory's, a missing directory and a file
    /// used as a directory are refused by the claim, naming the option, the path and the fix.
    #[test]
    fn unwritable_destinations_are_refused_naming_the_option() {
        let directory = scratch("refused");
        std::fs::write(directory.join("data.csv"), "x\n").unwrap();
        let shown = directory.display();
        let cases = [
            ("", "it is a directory; give a file path"),
            (
                "new/",
                "a path ending in '/' (or '/.') names a directory; give a file path",
            ),
            ("new/.", "names a directory; give a file path"),
            (
                "missing/fit.json",
                "does not exist; create it or give a path in an existing",
            ),
            (
                "data.csv/fit.json",
                "is not a directory; give a path in a directory",
            ),
        ];
        for (name, reason) in cases {
            let path = PathBuf::from(format!("{shown}/{name}"));
            let error = claim("--json", &path).expect_err(name).to_string();
            let start = format!("--json: cannot write '{}': ", path.display());
            assert!(error.starts_with(&start), "{error}");
            assert!(error.contains(reason), "{error}");
        }
        assert!(!directory.join("new").exists());
        assert_eq!(temporaries(&directory), Vec::<String>::new());
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
