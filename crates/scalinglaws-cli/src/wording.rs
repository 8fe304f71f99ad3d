//! The command line's words for the settings the library's messages mention: the library
//! names a [`Setting`] by its key, and this one table words it as the option a user types
//! (`--fix NAME=VALUE`, `--space linear`, `--bound alpha`). Every message the command prints
//! from the library goes through [`describe`].

use scalinglaws::data::recipe::is_identifier;
use scalinglaws::error::{Mention, Setting, Value, Wording};

/// The command line's wording of the library's mentions.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommandLine;

/// The option of a setting: `--holdout-top`, `--bound`.
pub fn option(setting: Setting) -> String {
    match setting {
        Setting::Bounds => "--bound".to_string(),
        // A candidate law per flag.
        Setting::Laws => "--law".to_string(),
        Setting::Formulas => "--formula".to_string(),
        // Calibration is on unless this flag is given.
        Setting::Calibrate => "--no-calibration".to_string(),
        // The whole schedule is asked for by the file it is written to.
        Setting::WholeSchedule => "--schedule-csv".to_string(),
        other => format!("--{}", other.name().replace('_', "-")),
    }
}

/// A value as typed after an option: numbers and plain words bare, other text in quotes.
fn value(value: &Value) -> String {
    match value {
        Value::Text(text) if !is_identifier(text) => format!("\"{text}\""),
        other => other.raw().to_string(),
    }
}

/// The command that runs a workflow named in snake_case: `compare-laws`, `schedule fit`.
fn command(workflow: &str) -> String {
    match workflow {
        "cooldown_study" => "schedule cooldown-study".to_string(),
        other => match other.strip_prefix("schedule_") {
            Some(command) => format!("schedule {command}"),
            None => other.replace('_', "-"),
        },
    }
}

impl Wording for CommandLine {
    fn word(&self, mention: &Mention) -> String {
        match mention {
            Mention::Name(setting) | Mention::Subject(setting) => option(*setting),
            // `--rolling` is a flag; its count of origins is typed after `--origins`.
            Mention::Value(Setting::Rolling, v) => format!("--rolling --origins {}", value(v)),
            // `--rollout` too; its count of groups is typed after `--steps`.
            Mention::Value(Setting::Rollout, v) => format!("--rollout --steps {}", value(v)),
            Mention::Value(setting, v) => format!("{} {}", option(*setting), value(v)),
            Mention::Key(setting, key) => format!("{} {key}", option(*setting)),
            Mention::Entry(setting, key, v) => format!("{} {key}={}", option(*setting), value(v)),
            // A switch is turned off by its own flag (`--no-calibration`).
            Mention::Off(setting) => option(*setting),
            Mention::LawList => "`scalinglaws laws`".to_string(),
            Mention::Writer(workflow) => format!("`scalinglaws {} --json`", command(workflow)),
        }
    }
}

/// An error as the command prints it after "error: ": each cause of the chain in turn (as
/// `{:#}` joins them), the library's own errors worded for the command line.
pub fn describe(error: &anyhow::Error) -> String {
    let mut parts = Vec::new();
    for cause in error.chain() {
        let part = match cause.downcast_ref::<scalinglaws::Error>() {
            Some(library) => library.worded(&CommandLine),
            None => cause.to_string(),
        };
        // A cause its error already quotes (a file's "path: reason") is said once.
        if !parts
            .last()
            .is_some_and(|last: &String| last.ends_with(&part))
        {
            parts.push(part);
        }
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use scalinglaws::text;

    #[test]
    fn options_are_the_clap_long_names() {
        assert_eq!(option(Setting::HoldoutTop), "--holdout-top");
        assert_eq!(option(Setting::Bounds), "--bound");
        assert_eq!(option(Setting::Where), "--where");
        let origins = Mention::Value(Setting::Rolling, Value::Number("5".into()));
        assert_eq!(CommandLine.word(&origins), "--rolling --origins 5");
    }

    #[test]
    fn mentions_read_as_typed() {
        let message = text![
            "fix some with ",
            Setting::Fix.entry_number("NAME", "VALUE"),
            ", or ",
            Setting::Space.text("linear"),
            "; ",
            Setting::Map.entry_text("VAR", "a column"),
            "; ",
            Setting::Bounds.key("b"),
        ];
        assert_eq!(
            message.worded(&CommandLine),
            "fix some with --fix NAME=VALUE, or --space linear; --map VAR=\"a column\"; --bound b"
        );
    }

    #[test]
    fn every_option_is_an_option_of_the_command_line() {
        use clap::CommandFactory;
        let command = crate::Cli::command();
        let mut longs = std::collections::BTreeSet::new();
        for sub in command.get_subcommands() {
            collect_longs(sub, &mut longs);
        }
        for setting in Setting::ALL {
            let long = option(setting);
            assert!(
                longs.contains(&long[2..]),
                "{long} is not an option of any command"
            );
        }
    }

    fn collect_longs(command: &clap::Command, longs: &mut std::collections::BTreeSet<String>) {
        for arg in command.get_arguments() {
            if let Some(long) = arg.get_long() {
                longs.insert(long.to_string());
            }
        }
        for sub in command.get_subcommands() {
            collect_longs(sub, longs);
        }
    }
}
