//! The files a command will read and write, checked before any work, before its configuration
//! is built or its data read: a destination that cannot be written (a directory, a path ending
//! in `/`, its directory missing or not writable) is refused at once naming the option, not
//! after a long bootstrap with the printed report lost (issue 50: a directory was let through
//! here as "not a regular file" and refused only by the write); a destination that is one of the
//! command's input files (the same file, also through a link or another spelling of its path)
//! or another destination of the same command is refused, so `--json` never overwrites the
//! data. The files are found from the parsed command line by their value names (`DATA`,
//! `FIT.json` read; `PATH`, `FILE...` written), so a new command's options are covered
//! without a list to keep.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{ArgMatches, Command};

use crate::input_error;
use crate::output;

/// One file named on the command line, with the option (or argument) that named it.
#[derive(Debug, Clone)]
struct Named {
    option: String,
    path: PathBuf,
}

/// Checks the command's inputs and outputs and claims every output file (see
/// [`output::claim`]).
pub fn check(command: &Command, matches: &ArgMatches) -> Result<()> {
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    collect(command, matches, &mut inputs, &mut outputs);
    for (index, output) in outputs.iter().enumerate() {
        let Some(target) = existing_file(&output.path) else {
            continue;
        };
        let earlier = outputs[..index]
            .iter()
            .map(|other| (other, "also written by"));
        let read = inputs.iter().map(|input| (input, "read by"));
        for (other, role) in read.chain(earlier) {
            if existing_file(&other.path).is_some_and(|file| same_file(&file, &target)) {
                return Err(same_file_error(output, other, role));
            }
        }
    }
    let mut claimed: Vec<(PathBuf, &Named)> = Vec::new();
    for output in outputs.iter().filter(|output| !is_special(&output.path)) {
        let target = planned_file(&output.path);
        if let Some((_, first)) = claimed.iter().find(|(path, _)| *path == target) {
            return Err(same_file_error(output, first, "also written by"));
        }
        output::claim(&output.option, &output.path)?;
        claimed.push((target, output));
    }
    Ok(())
}

fn same_file_error(output: &Named, other: &Named, role: &str) -> anyhow::Error {
    let what = if role == "read by" {
        "writing there would overwrite what the command reads"
    } else {
        "one output would replace the other"
    };
    input_error(format!(
        "{} '{}' is the file {role} {} '{}': {what}; choose another path",
        output.option,
        output.path.display(),
        other.option,
        other.path.display()
    ))
}

/// The files named in `matches` (and its subcommand's, recursively), inputs and outputs.
fn collect(
    command: &Command,
    matches: &ArgMatches,
    inputs: &mut Vec<Named>,
    outputs: &mut Vec<Named>,
) {
    for arg in command.get_arguments() {
        let Some(kind) = arg.get_value_names().and_then(|names| names.first()) else {
            continue;
        };
        let list = match Role::of(kind.as_str()) {
            Some(Role::Input) => &mut *inputs,
            Some(Role::Output) => &mut *outputs,
            None => continue,
        };
        let option = match arg.get_long() {
            Some(long) => format!("--{long}"),
            None => kind.to_string(),
        };
        let Ok(Some(values)) = matches.try_get_raw(arg.get_id().as_str()) else {
            continue;
        };
        for value in values.filter(|value| !is_stream(value)) {
            list.push(Named {
                option: option.clone(),
                path: PathBuf::from(trimmed(value)),
            });
        }
    }
    if let Some((name, sub_matches)) = matches.subcommand() {
        if let Some(sub) = command.find_subcommand(name) {
            collect(sub, sub_matches, inputs, outputs);
        }
    }
}

enum Role {
    Input,
    Output,
}

impl Role {
    /// Read: `DATA`, `FIT.json`; written: `PATH|-`, `FILE`, `FILE|-`, `FILE.svg|...`.
    fn of(value_name: &str) -> Option<Role> {
        if value_name == "DATA" || value_name.starts_with("FIT.") {
            Some(Role::Input)
        } else if value_name.starts_with("PATH") || value_name.starts_with("FILE") {
            Some(Role::Output)
        } else {
            None
        }
    }
}

/// `-`: stdin or stdout, not a file.
fn is_stream(value: &OsStr) -> bool {
    trimmed(value) == OsStr::new("-")
}

/// The value as the commands read it (outputs are trimmed of surrounding blanks).
fn trimmed(value: &OsStr) -> &OsStr {
    match value.to_str() {
        Some(text) => OsStr::new(text.trim()),
        None => value,
    }
}

/// The existing regular file a path names (links followed), if any: devices and pipes
/// (`/dev/null`) are no file to protect.
fn existing_file(path: &Path) -> Option<std::fs::Metadata> {
    std::fs::metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
}

/// True when the path names something that exists and is neither a regular file nor a
/// directory (a device, written in place); a directory goes on to [`output::claim`], which
/// refuses it.
fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| !meta.is_file() && !meta.is_dir())
}

/// The file a destination will be, canonical where its directory exists (so `out.json` and
/// `./dir/../out.json` are one file even before it exists).
fn planned_file(path: &Path) -> PathBuf {
    let followed = output::follow_links(path).unwrap_or_else(|_| path.to_path_buf());
    let directory = match followed.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match (std::fs::canonicalize(&directory), followed.file_name()) {
        (Ok(directory), Some(name)) => directory.join(name),
        _ => followed,
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}
