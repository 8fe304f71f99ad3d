//! The documentation book's command-line reference, `docs/reference/cli.md`, written from the
//! clap definitions (`args/`) so that it cannot drift from `--help`: a test regenerates the
//! page and fails when the committed one differs (`SCALINGLAWS_BLESS=1` rewrites it).
//!
//! The page is written here rather than by the `clap-markdown` crate (0.1.5; it compiles in
//! under 2 s, so cost was not the reason): rendered by MkDocs, its page for this command line
//! made `6*N*D` into "6<em>N</em>D" and `N*, D*` into "N<em>, D</em>" (help text is copied
//! unescaped), gave every command a `##` heading (`schedule fit` at the level of `schedule`),
//! showed usage as inline code, ran the `after_help` example into the line "Example:", and
//! added 60 `######` headings ("Options:", "Arguments:"); its source also lists hidden
//! positionals and shows defaults marked `hide_default_value`. The tests below pin each of
//! these. Compiled for tests only: the shipped binary carries none of it.

use std::fmt::Write;
use std::path::PathBuf;

use clap::{Arg, ArgAction, Command};

/// Where the page lives, from the repository root.
const PAGE: &str = "docs/reference/cli.md";

/// The command that rewrites the page.
const REGENERATE: &str =
    "SCALINGLAWS_BLESS=1 cargo test --release -p scalinglaws-cli --bin scalinglaws cli_reference";

/// The reference page for a command line (`Cli::command()`): a section per visible command,
/// depth first, in `--help` order.
pub fn page(mut cli: Command) -> String {
    let name = cli.get_name().to_owned();
    cli.set_bin_name(name.clone());
    cli.build();
    let mut out = String::new();
    out.push_str("# Command-line reference\n\n");
    let _ = writeln!(
        out,
        "This page is generated from the clap definitions of `{name}` \
         (`crates/scalinglaws-cli/src/args/`) and shows what `{name} COMMAND --help` prints; \
         edit the doc comments there, not this page, then regenerate it with:\n\n\
         ```text\n{REGENERATE}\n```\n"
    );
    write_command(&mut out, &cli, &name, 0);
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// One command's section, then its subcommands'. `--format`-like global options and the
/// generated `--help`/`--version` are described once, at the root.
fn write_command(out: &mut String, command: &Command, path: &str, depth: usize) {
    let level = (depth + 1).clamp(2, 6);
    let _ = writeln!(out, "{} {}\n", "#".repeat(level), path);
    let about = command.get_long_about().or(command.get_about());
    write_prose(out, &about.map(ToString::to_string).unwrap_or_default());
    if let Some(before) = command.get_before_long_help().or(command.get_before_help()) {
        write_prose(out, &before.to_string());
    }
    let usage = command.clone().render_usage().to_string();
    let _ = writeln!(out, "```text\n{}\n```\n", usage.trim_end());
    let aliases: Vec<String> = command
        .get_visible_aliases()
        .map(|a| format!("`{a}`"))
        .collect();
    if !aliases.is_empty() {
        let _ = writeln!(out, "Aliases: {}\n", aliases.join(", "));
    }
    write_subcommand_list(out, command, path);
    let positionals: Vec<&Arg> = command
        .get_positionals()
        .filter(|a| !a.is_hide_set())
        .collect();
    write_args(out, "Arguments", &positionals);
    for (heading, options) in option_groups(command, depth == 0) {
        write_args(out, &heading, &options);
    }
    if depth == 0 {
        write_shared_options(out, command);
    }
    if let Some(after) = command.get_after_long_help().or(command.get_after_help()) {
        write_prose(out, &after.to_string());
    }
    for sub in visible_subcommands(command) {
        write_command(out, sub, &format!("{path} {}", sub.get_name()), depth + 1);
    }
}

/// Says which of the root's options every command accepts (global ones, `--help`), since the
/// sections below leave them out.
fn write_shared_options(out: &mut String, root: &Command) {
    let shared: Vec<String> = root
        .get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .filter(|a| {
            visible_subcommands(root)
                .iter()
                .all(|s| accepts(s, a.get_id()))
        })
        .map(|a| format!("`{}`", term(a)))
        .collect();
    if !shared.is_empty() && !visible_subcommands(root).is_empty() {
        let _ = writeln!(
            out,
            "Every command below also accepts {}; its section lists only its own options.\n",
            shared.join(", ")
        );
    }
}

/// Whether a command and all its subcommands take an argument.
fn accepts(command: &Command, id: &clap::Id) -> bool {
    command.get_arguments().any(|a| a.get_id() == id)
        && visible_subcommands(command).iter().all(|s| accepts(s, id))
}

/// The subcommands a reader can run, in `--help` order: clap's generated `help` command
/// (already described by `-h, --help`) and hidden ones left out.
fn visible_subcommands(command: &Command) -> Vec<&Command> {
    let mut subs: Vec<&Command> = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect();
    subs.sort_by_key(|s| (s.get_display_order(), s.get_name()));
    subs
}

/// A list of the subcommands, each linked to its section (MkDocs' anchor of the heading).
fn write_subcommand_list(out: &mut String, command: &Command, path: &str) {
    let subs = visible_subcommands(command);
    if subs.is_empty() {
        return;
    }
    out.push_str("**Subcommands:**\n\n");
    for sub in subs {
        let full = format!("{path} {}", sub.get_name());
        let anchor = full.replace(' ', "-").to_lowercase();
        let about = sub.get_about().map(|a| escape(&a.to_string()));
        let _ = writeln!(
            out,
            "- [`{}`](#{anchor}): {}",
            sub.get_name(),
            about.unwrap_or_default()
        );
    }
    out.push('\n');
}

/// The options of a command by help heading ("Options" first), in `--help` order. Below the
/// root, global options and the generated help and version flags are left out.
fn option_groups(command: &Command, root: bool) -> Vec<(String, Vec<&Arg>)> {
    let mut options: Vec<&Arg> = command
        .get_arguments()
        .filter(|a| !a.is_positional() && !a.is_hide_set())
        .filter(|a| root || !(a.is_global_set() || is_generated(a)))
        .collect();
    options.sort_by_key(|a| (a.get_display_order(), sort_name(a)));
    let mut groups: Vec<(String, Vec<&Arg>)> = vec![("Options".to_owned(), Vec::new())];
    for option in options {
        let heading = option.get_help_heading().unwrap_or("Options");
        match groups.iter_mut().find(|(h, _)| h == heading) {
            Some((_, members)) => members.push(option),
            None => groups.push((heading.to_owned(), vec![option])),
        }
    }
    groups
}

/// clap's own `--help` and `--version` flags.
fn is_generated(arg: &Arg) -> bool {
    matches!(
        arg.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong | ArgAction::Version
    )
}

/// The key clap sorts options by within one display order: the short flag, else the long one.
fn sort_name(arg: &Arg) -> String {
    match (arg.get_short(), arg.get_long()) {
        (Some(short), _) => format!("{}{}", short.to_ascii_lowercase(), short.is_uppercase()),
        (None, Some(long)) => long.to_owned(),
        (None, None) => format!("{{{}", arg.get_id()),
    }
}

/// A definition list (MkDocs' `def_list`): each argument as `--name <VALUE>`, then its help,
/// default and possible values.
fn write_args(out: &mut String, title: &str, args: &[&Arg]) {
    if args.is_empty() {
        return;
    }
    let _ = writeln!(out, "**{}:**\n", escape(title));
    for arg in args {
        let _ = writeln!(out, "`{}`", term(arg));
        let mut blocks = Vec::new();
        let help = arg.get_long_help().or(arg.get_help());
        if let Some(help) = help.map(|h| h.to_string()).filter(|h| !h.trim().is_empty()) {
            blocks.extend(prose_blocks(&help));
        } else {
            blocks.push("*No help text.*".to_owned());
        }
        blocks.extend(value_blocks(arg));
        for (i, block) in blocks.iter().enumerate() {
            let lead = if i == 0 { ":   " } else { "    " };
            let _ = writeln!(out, "{lead}{}\n", indent(block, "    "));
        }
    }
}

/// How `--help` names an argument: `-o, --output <PATH|->`, `--no-calibration`, `<DATA>...`.
fn term(arg: &Arg) -> String {
    // `Arg`'s Display is the long form (or the short one) with its values, as in the usage.
    let shown = arg.to_string();
    let mut term = match (arg.get_short(), arg.get_long()) {
        (Some(short), Some(_)) => format!("-{short}, {shown}"),
        _ => shown,
    };
    let aliases: Vec<String> = arg
        .get_visible_aliases()
        .unwrap_or_default()
        .into_iter()
        .map(|a| format!("--{a}"))
        .chain(
            arg.get_visible_short_aliases()
                .unwrap_or_default()
                .into_iter()
                .map(|a| format!("-{a}")),
        )
        .collect();
    if !aliases.is_empty() {
        term = format!("{term} (alias: {})", aliases.join(", "));
    }
    term
}

/// The default and the possible values, as `--help` shows them (a flag's default `false` is
/// not shown; `hide_default_value` and `hide_possible_values` are honoured).
fn value_blocks(arg: &Arg) -> Vec<String> {
    let mut blocks = Vec::new();
    let takes_values = arg.get_action().takes_values();
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if takes_values && !arg.is_hide_default_value_set() && !defaults.is_empty() {
        blocks.push(format!("Default: {}", code(&defaults.join(" "))));
    }
    let values: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    if !takes_values || arg.is_hide_possible_values_set() || values.is_empty() {
        return blocks;
    }
    if values.iter().any(|v| v.get_help().is_some()) {
        let items: Vec<String> = values
            .iter()
            .map(|v| match v.get_help() {
                Some(help) => format!("- {}: {}", code(v.get_name()), escape(&help.to_string())),
                None => format!("- {}", code(v.get_name())),
            })
            .collect();
        blocks.push(format!("Possible values:\n\n{}", items.join("\n")));
    } else {
        let names: Vec<String> = values.iter().map(|v| code(v.get_name())).collect();
        blocks.push(format!("Possible values: {}", names.join(", ")));
    }
    blocks
}

/// Help text as markdown blocks, each followed by a blank line.
fn write_prose(out: &mut String, text: &str) {
    for block in prose_blocks(text) {
        let _ = writeln!(out, "{block}\n");
    }
}

/// Help text as markdown blocks: paragraphs (split at blank lines) escaped, and runs of
/// indented lines (an example command in `after_help`) as a `text` code block, dedented.
fn prose_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    for paragraph in text.split("\n\n") {
        let mut prose: Vec<String> = Vec::new();
        let mut verbatim: Vec<&str> = Vec::new();
        for line in paragraph.lines() {
            if line.starts_with([' ', '\t']) {
                flush(&mut blocks, &mut prose, |p| p.join("\n"));
                verbatim.push(line);
            } else if !line.trim().is_empty() {
                flush(&mut blocks, &mut verbatim, fence);
                prose.push(escape_line(line));
            }
        }
        flush(&mut blocks, &mut prose, |p| p.join("\n"));
        flush(&mut blocks, &mut verbatim, fence);
    }
    blocks
}

/// Moves the lines gathered so far into one block.
fn flush<T>(blocks: &mut Vec<String>, lines: &mut Vec<T>, join: impl Fn(&[T]) -> String) {
    if !lines.is_empty() {
        blocks.push(join(lines));
        lines.clear();
    }
}

/// Indented lines as a `text` code block, their common indentation removed.
fn fence(lines: &[&str]) -> String {
    let margin = lines
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let body: Vec<&str> = lines.iter().map(|l| l[margin..].trim_end()).collect();
    format!("```text\n{}\n```", body.join("\n"))
}

/// A line of prose: escaped, and kept from starting a list or a numbered list.
fn escape_line(line: &str) -> String {
    let escaped = escape(line.trim());
    let digits = escaped.chars().take_while(char::is_ascii_digit).count();
    if escaped.starts_with(['-', '+']) {
        format!("\\{escaped}")
    } else if digits > 0 && escaped[digits..].starts_with(". ") {
        format!("{}\\{}", &escaped[..digits], &escaped[digits..])
    } else {
        escaped
    }
}

/// Help text made safe for markdown: the characters markdown would read as markup (`*`, `_`,
/// brackets, `<`, `>`, `|`, `&`, `#`) escaped, and `` `code` `` spans kept as code.
fn escape(text: &str) -> String {
    let pieces: Vec<&str> = text.split('`').collect();
    // An unpaired backtick is text like any other.
    if pieces.len().is_multiple_of(2) {
        return escape_text(text);
    }
    pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            if i % 2 == 1 {
                code(piece)
            } else {
                escape_text(piece)
            }
        })
        .collect()
}

/// Plain text with every markup character escaped.
fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' => out.push_str("&#124;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A code span for any text (a longer fence when the text holds backticks).
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// Indents every line but the first (the continuation of a definition).
fn indent(block: &str, by: &str) -> String {
    block
        .lines()
        .enumerate()
        .map(|(i, line)| match (i, line.is_empty()) {
            (0, _) | (_, true) => line.to_owned(),
            _ => format!("{by}{line}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The repository's root, from the CLI crate's manifest.
fn repository_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[cfg(test)]
mod tests {
    use clap::builder::PossibleValue;
    use clap::{Arg, ArgAction, Command, CommandFactory};

    use super::*;

    /// The first line where two texts differ, for a message a reader can act on.
    fn first_difference(expected: &str, found: &str) -> String {
        let (mut a, mut b) = (expected.lines(), found.lines());
        for number in 1.. {
            match (a.next(), b.next()) {
                (None, None) => break,
                (x, y) if x == y => continue,
                (x, y) => {
                    return format!(
                        "line {number}:\n  generated: {}\n  committed: {}",
                        x.unwrap_or("(end of page)"),
                        y.unwrap_or("(end of page)")
                    )
                }
            }
        }
        "only in the final newline".to_owned()
    }

    #[test]
    fn the_committed_cli_reference_is_what_the_clap_definitions_generate() {
        let generated = page(crate::args::Cli::command());
        let path = repository_root().join(PAGE);
        if std::env::var("SCALINGLAWS_BLESS").as_deref() == Ok("1") {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &generated).unwrap();
        }
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{PAGE}: {e}; generate it with\n  {REGENERATE}"));
        assert!(
            generated == committed,
            "{PAGE} is not what the command line's clap definitions generate (first difference \
             at {}). The page is generated: change the doc comments and attributes under \
             crates/scalinglaws-cli/src/args/, not the page, then regenerate it with\n  \
             {REGENERATE}\nand commit both",
            first_difference(&generated, &committed)
        );
    }

    #[test]
    fn every_visible_command_of_the_real_cli_has_its_section() {
        let text = page(crate::args::Cli::command());
        let mut cli = crate::args::Cli::command();
        cli.build();
        let mut expected = 1; // the root
        for sub in visible_subcommands(&cli) {
            expected += 1 + visible_subcommands(sub).len();
            assert!(text.contains(&format!("\n## scalinglaws {}\n", sub.get_name())));
            for leaf in visible_subcommands(sub) {
                let heading = format!("\n### scalinglaws {} {}\n", sub.get_name(), leaf.get_name());
                assert!(text.contains(&heading), "no {heading:?}");
            }
        }
        let headings = text
            .lines()
            .filter(|l| l.starts_with("## ") || l.starts_with("### "));
        assert_eq!(headings.count(), expected);
        assert!(!text.contains("```sh"), "code blocks are `text`");
        assert!(text.contains("### scalinglaws schedule fit\n"));
    }

    /// A small command line with each case the page must get right.
    fn sample() -> Command {
        Command::new("tool")
            .about("Fits 6*N*D <budget> | more")
            .after_help("Example:\n  tool run --x 1 \\\n      --y 2")
            .arg(
                Arg::new("verbose")
                    .long("verbose")
                    .action(ArgAction::SetTrue),
            )
            .subcommand(
                Command::new("run")
                    .about("Run it")
                    .arg(
                        Arg::new("data")
                            .value_name("DATA")
                            .help("The runs; see `tool help`"),
                    )
                    .arg(Arg::new("secret").value_name("S").hide(true))
                    .arg(Arg::new("ghost").long("ghost").hide(true))
                    .arg(
                        Arg::new("json")
                            .long("json")
                            .value_name("PATH|-")
                            .default_value("-")
                            .hide_default_value(true),
                    )
                    .arg(
                        Arg::new("loss")
                            .long("loss")
                            .default_value("huber")
                            .value_parser([
                                PossibleValue::new("huber").help("robust"),
                                PossibleValue::new("linear"),
                                PossibleValue::new("old").hide(true),
                            ]),
                    )
                    .subcommand(Command::new("deep").about("Nested")),
            )
            .subcommand(Command::new("internal").hide(true))
    }

    #[test]
    fn headings_nest_with_the_commands() {
        // clap-markdown: "## `tool run deep`", at the level of `tool run`.
        let text = page(sample());
        assert!(text.contains("\n## tool\n"));
        assert!(text.contains("\n## tool run\n"));
        assert!(text.contains("\n### tool run deep\n"));
        assert!(!text.contains("######"), "no heading per list");
        assert!(text.contains("- [`deep`](#tool-run-deep): Nested"));
    }

    #[test]
    fn usage_is_a_text_code_block() {
        // clap-markdown: "**Usage:** `tool run [OPTIONS] [DATA] [COMMAND]`", inline.
        let text = page(sample());
        assert!(text.contains("```text\nUsage: tool run [OPTIONS] [DATA] [COMMAND]\n```"));
    }

    #[test]
    fn help_text_is_escaped_outside_code_spans() {
        // clap-markdown copies help text as it is: `6*N*D` reads as emphasis, `<budget>` as HTML.
        let text = page(sample());
        assert!(text.contains("Fits 6\\*N\\*D &lt;budget&gt; &#124; more"));
        assert!(text.contains("The runs; see `tool help`"));
        assert!(
            text.contains("`--json <PATH|->`"),
            "terms are code, unescaped"
        );
    }

    #[test]
    fn indented_help_lines_are_a_code_block() {
        // clap-markdown: the example's lines join the paragraph "Example:".
        let text = page(sample());
        assert!(text.contains("Example:\n\n```text\ntool run --x 1 \\\n    --y 2\n```"));
    }

    #[test]
    fn hidden_things_stay_hidden() {
        // clap-markdown lists hidden positionals and shows `hide_default_value` defaults.
        let text = page(sample());
        for hidden in ["internal", "<S>", "--ghost", "`old`", "Default: `-`"] {
            assert!(!text.contains(hidden), "{hidden} is shown");
        }
        assert!(text.contains("Default: `huber`"));
        assert!(text.contains("- `huber`: robust\n    - `linear`"));
        assert!(text.contains("`--verbose`\n:   *No help text.*"));
        assert!(
            !text.contains("Default: `false`"),
            "a flag's default is not shown"
        );
    }

    #[test]
    fn prose_cannot_start_a_list() {
        assert_eq!(escape_line("- reads stdin"), "\\- reads stdin");
        assert_eq!(escape_line("12. twelve"), "12\\. twelve");
        assert_eq!(escape("a `b*c` d*e"), "a `b*c` d\\*e");
        assert_eq!(escape("one ` tick"), "one \\` tick");
    }
}
