//! A flag given to a command that does not take it. clap's tip then guesses a flag of this
//! command that looks alike (`fit --budget` → "a similar argument exists: '--bound'") or says
//! to pass the flag as a value (`fit -o report.html` → "use '-- -o'"): both mislead when the flag
//! belongs to another command. When it does, the message says which commands take it.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::Command;

/// The commands a message names at most (then "and N other commands").
const SHOWN: usize = 4;

/// The message for `error` when it is a flag this command lacks and others take; None leaves
/// the error to clap.
pub fn explain(root: &Command, error: &clap::Error, argv: &[String]) -> Option<String> {
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(given)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = given.split('=').next().unwrap_or(given);
    let path = command_path(root, argv);
    let mut takers = Vec::new();
    collect_takers(root, &mut Vec::new(), flag, &mut takers);
    takers.retain(|t| *t != path);
    if takers.is_empty() {
        return None;
    }
    let mut named: Vec<String> = takers
        .iter()
        .take(SHOWN)
        .map(|t| format!("`{}`", t.join(" ")))
        .collect();
    if takers.len() > SHOWN {
        named.push(format!("{} other commands", takers.len() - SHOWN));
    }
    let this = path.join(" ");
    Some(format!(
        "unexpected argument '{flag}' for `scalinglaws {this}`: it is an option of {}; see \
         `scalinglaws {this} --help` for this command's options",
        join_words(&named)
    ))
}

/// The command line as text, for naming its subcommands (clap itself reads the raw arguments).
pub fn argv() -> Vec<String> {
    std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The subcommands named on the command line, in order (`["schedule", "fit"]`).
fn command_path(root: &Command, argv: &[String]) -> Vec<String> {
    let mut path = Vec::new();
    let mut current = root;
    for word in argv.iter().skip(1) {
        if let Some(sub) = current.find_subcommand(word) {
            path.push(sub.get_name().to_string());
            current = sub;
        }
    }
    path
}

/// Every leaf command under `command` (its path in `at`) that has an option spelt `flag`.
fn collect_takers(
    command: &Command,
    at: &mut Vec<String>,
    flag: &str,
    found: &mut Vec<Vec<String>>,
) {
    if command.has_subcommands() {
        for sub in command.get_subcommands() {
            at.push(sub.get_name().to_string());
            collect_takers(sub, at, flag, found);
            at.pop();
        }
        return;
    }
    let takes = command.get_arguments().any(|arg| {
        let long = arg.get_long().is_some_and(|l| flag == format!("--{l}"));
        let short = arg.get_short().is_some_and(|s| flag == format!("-{s}"));
        long || short
    });
    if takes {
        found.push(at.clone());
    }
}

/// "a", "a and b", "a, b and c".
fn join_words(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn message(words: &[&str]) -> Option<String> {
        let root = crate::args::Cli::command();
        let argv: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        let error = root.clone().try_get_matches_from(&argv).unwrap_err();
        explain(&root, &error, &argv)
    }

    #[test]
    fn a_flag_of_another_command_is_named_as_such() {
        let budget = message(&["scalinglaws", "fit", "runs.csv", "--budget", "1e23"]).unwrap();
        assert!(
            budget.contains("'--budget' for `scalinglaws fit`"),
            "{budget}"
        );
        assert!(budget.contains("`optimal`"), "{budget}");
        let output = message(&["scalinglaws", "fit", "runs.csv", "-o", "r.html"]).unwrap();
        assert!(
            output.contains("`plot fit`") && output.contains("other commands"),
            "{output}"
        );
        // A flag no command has is left to clap.
        assert!(message(&["scalinglaws", "fit", "runs.csv", "--nonsense"]).is_none());
    }
}
