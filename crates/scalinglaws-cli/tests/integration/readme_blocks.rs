//! The README and the book are true, and stay so.
//!
//! **Documents.** `README.md`, then the book's pages (`docs/`) in the order of `mkdocs.yml`'s
//! `nav`, read as one text: blocks run in that order, and the numbers rule covers every page. A
//! page whose first line is `<!-- generated` (the command-line and Python references, written
//! from the code) is neither run nor read for numbers.
//!
//! **Blocks.** Every fenced block that shows program output is marked, on the line before it:
//! - `<!-- checked: tests/integration/readme_blocks.rs -->`: a shell session (commands with `\`
//!   continuations; `scalinglaws` is this build's binary), run in document order in one scratch
//!   folder that sees the repository's `examples/` and `testdata/`; every output line it shows
//!   (`# ...`, with `# ...` alone for lines left out) must appear, exactly, in what its command
//!   printed, and the command must succeed;
//! - `<!-- checked: tests/integration/readme_blocks.rs; errors -->`: the same, but each `scalinglaws`
//!   command must fail with exit code 2 and its shown lines appear in its stderr;
//! - `<!-- checked: tests/integration/readme_blocks.rs; output of: COMMAND -->`: the block is COMMAND's
//!   output (lines `...` stand for lines left out).
//!
//! A block that shows no output is either a Python snippet (```` ```python ````, checked by the
//! package's own tests), a shell block with no `#` line, or marked `<!-- not output: WHY -->`.
//! An unmarked block of any other kind fails the test. A command piped to `jq` runs without the
//! pipe where `jq` is missing.
//!
//! **Numbers in prose.** Every number a document states outside its blocks, from its first
//! line to its last, must be printed by a checked block (or be an input of its command), or be listed in
//! `tests/readme_claims.txt` with the file that establishes it, which must contain it. Exempt by
//! rule: years (1900–2099), equation, figure, table and issue numbers, numbers inside inline
//! code (options and values a user types) or link targets, ISO dates, and digits that are part of a name
//! (x0, R², log10, H200). A time or a size (`2.9 s`, `154 KB`) must be listed (timings in
//! `bench/results/readme_timings.txt`, written by `bench/readme_timings.sh`). Editing a number in a document without the tool printing it, or
//! without the establishing file stating it, fails here. An entry whose third field is
//! `unrecorded` names the test or benchmark that measures the number but writes it nowhere yet:
//! the number is then only registered (an edit still fails until the register is edited too),
//! not established; such entries are the README's remaining debt.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::root;

const CHECKED: &str = "<!-- checked: tests/integration/readme_blocks.rs";
const NOT_OUTPUT: &str = "<!-- not output:";
/// The key of a readme_claims.txt entry whose number its file measures but does not state.
const UNRECORDED: &str = "unrecorded";

/// A command of a block and the output lines shown under it.
struct Step {
    command: String,
    shown: Vec<String>,
}

#[derive(PartialEq)]
enum Kind {
    Session,
    Errors,
    OutputOf(String),
}

struct Block {
    file: String,
    line: usize,
    kind: Kind,
    steps: Vec<Step>,
}

fn marker_kind(marker: &str) -> Kind {
    let rest = marker
        .trim()
        .strip_prefix(CHECKED)
        .unwrap()
        .strip_suffix("-->")
        .unwrap()
        .trim();
    if rest.is_empty() {
        Kind::Session
    } else if rest == "; errors" {
        Kind::Errors
    } else if let Some(command) = rest.strip_prefix("; output of:") {
        Kind::OutputOf(command.trim().to_string())
    } else {
        panic!("unknown README marker: {marker}")
    }
}

/// The README, then the book's pages in `mkdocs.yml`'s nav order (generated pages left out):
/// (path from the repository's root, text).
fn documents() -> Vec<(String, String)> {
    let read = |path: &str| {
        std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let config = read("mkdocs.yml");
    let nav = config
        .split("\nnav:\n")
        .nth(1)
        .expect("mkdocs.yml has a nav");
    let pages = nav
        .lines()
        .take_while(|l| l.starts_with(' '))
        .filter_map(|l| {
            l.trim()
                .strip_suffix(".md")
                .map(|p| p.rsplit(' ').next().unwrap())
        })
        .map(|p| format!("docs/{p}.md"));
    std::iter::once("README.md".to_string())
        .chain(pages)
        .map(|path| {
            let text = read(&path);
            (path, text)
        })
        .filter(|(_, text)| !text.starts_with("<!-- generated"))
        .collect()
}

/// The checked blocks of one document, in order; panics naming any unmarked block that shows
/// output.
fn checked_blocks(file: &str, readme: &str) -> Vec<Block> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut unmarked = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !lines[i].starts_with("```") {
            i += 1;
            continue;
        }
        let open = i;
        let lang = lines[i].trim_start_matches('`').trim();
        let end = (i + 1..lines.len())
            .find(|&j| lines[j].starts_with("```"))
            .expect("an unclosed fence");
        let body = &lines[i + 1..end];
        i = end + 1;
        let before = open.checked_sub(1).map(|j| lines[j].trim()).unwrap_or("");
        if before.starts_with(NOT_OUTPUT) {
            continue;
        }
        if !before.starts_with(CHECKED) {
            let shows_output = match lang {
                "python" => false,
                "sh" => body.iter().any(|l| l.starts_with('#')),
                _ => true,
            };
            if shows_output {
                unmarked.push(format!("{file} line {}: {}", open + 1, lines[open]));
            }
            continue;
        }
        let kind = marker_kind(before);
        let mut steps: Vec<Step> = Vec::new();
        if let Kind::OutputOf(command) = &kind {
            steps.push(Step {
                command: command.clone(),
                shown: body
                    .iter()
                    .filter(|l| l.trim() != "...")
                    .map(|l| l.to_string())
                    .collect(),
            });
        } else {
            let mut continued = false;
            for line in body {
                if let Some(shown) = line.strip_prefix("# ").or((*line == "#").then_some("")) {
                    if shown != "..." {
                        steps.last_mut().unwrap().shown.push(shown.to_string());
                    }
                    continue;
                }
                let text = line.trim_end_matches('\\').trim_end();
                if continued {
                    let step = steps.last_mut().unwrap();
                    step.command.push(' ');
                    step.command.push_str(text.trim_start());
                } else {
                    steps.push(Step {
                        command: text.to_string(),
                        shown: Vec::new(),
                    });
                }
                continued = line.ends_with('\\');
            }
        }
        blocks.push(Block {
            file: file.to_string(),
            line: open + 1,
            kind,
            steps,
        });
    }
    assert!(
        unmarked.is_empty(),
        "blocks that show output but are not checked (mark them `{CHECKED} -->` or `{NOT_OUTPUT} WHY -->`):\n{}",
        unmarked.join("\n")
    );
    blocks
}

fn link(scratch: &Path, name: &str) {
    let target = scratch.join(name);
    if !target.exists() {
        std::os::unix::fs::symlink(root().join(name).canonicalize().unwrap(), &target).unwrap();
    }
}

/// Runs every checked block; returns everything the commands printed, and the commands.
fn run_blocks(blocks: &[Block]) -> String {
    let scratch = std::env::temp_dir().join(format!("scalinglaws-readme-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    link(&scratch, "examples");
    link(&scratch, "testdata");
    let binary = env!("CARGO_BIN_EXE_scalinglaws");
    let has_jq = Command::new("sh")
        .args(["-c", "command -v jq"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut corpus = String::new();
    for block in blocks {
        for step in &block.steps {
            let mut command = step.command.replace("scalinglaws ", &format!("{binary} "));
            if !has_jq {
                if let Some(at) = command.find("| jq") {
                    command.truncate(at);
                }
            }
            let output = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .current_dir(&scratch)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            let stderr = String::from_utf8_lossy(&output.stderr);
            let expects_error =
                block.kind == Kind::Errors && step.command.starts_with("scalinglaws ");
            let printed = if expects_error {
                assert_eq!(
                    output.status.code(),
                    Some(2),
                    "{} line {}: `{}` should fail with exit code 2; it printed:\n{stdout}{stderr}",
                    block.file,
                    block.line,
                    step.command
                );
                stderr.to_string()
            } else {
                assert!(
                    output.status.success(),
                    "{} line {}: `{}` failed: {stderr}",
                    block.file,
                    block.line,
                    step.command
                );
                stdout.to_string()
            };
            let lines: Vec<&str> = printed.lines().map(str::trim_end).collect();
            for shown in &step.shown {
                assert!(
                    lines.contains(&shown.trim_end()),
                    "{} line {}: it shows a line that `{}` does not print:\n{shown}\nit printed:\n{printed}",
                    block.file,
                    block.line,
                    step.command
                );
            }
            corpus.push_str(&step.command);
            corpus.push('\n');
            corpus.push_str(&stdout);
            corpus.push_str(&stderr);
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    corpus
}

/// A number stated in a document's prose, with its file and line.
#[derive(Debug)]
struct Stated {
    file: String,
    line: usize,
    number: String,
    measurement: bool,
    text: String,
}

fn is_superscript(c: char) -> bool {
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁻".contains(c)
}

/// Whether a number followed by `rest` is a time or a size (`2.9 s`, `8 ms`, `154 KB`): those
/// are measurements of the machine, never taken from a command's output.
fn is_measurement(rest: &str) -> bool {
    let Some(rest) = rest.strip_prefix(' ') else {
        return false;
    };
    ["s", "ms", "µs", "KB", "MB", "minutes"].iter().any(|unit| {
        rest.strip_prefix(unit)
            .is_some_and(|after| !after.starts_with(|c: char| c.is_alphanumeric()))
    })
}

/// The numbers of one line of prose, by the rules in the module's documentation.
fn numbers_of(line: &str) -> Vec<String> {
    numbers_and_kinds(line)
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}

/// The numbers of one line of prose, each with whether it is a measurement.
fn numbers_and_kinds(line: &str) -> Vec<(String, bool)> {
    // Inline code and link targets are not claims.
    let mut prose = String::new();
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            prose.push(' ');
        } else if !in_code {
            prose.push(c);
        }
    }
    while let Some(at) = prose.find("](") {
        let end = prose[at..].find(')').map_or(prose.len(), |e| at + e + 1);
        prose.replace_range(at + 1..end, "");
    }
    let chars: Vec<char> = prose.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev = i.checked_sub(1).map(|j| chars[j]);
        if !c.is_ascii_digit() || prev.is_some_and(|p| p.is_alphanumeric() || p == '_' || p == '.')
        {
            i += 1;
            continue;
        }
        let start = i;
        // An ISO date (2026-12-01) is one exempt token.
        let date: String = chars[i..chars.len().min(i + 10)].iter().collect();
        if date.len() == 10
            && date.char_indices().all(|(k, c)| {
                if k == 4 || k == 7 {
                    c == '-'
                } else {
                    c.is_ascii_digit()
                }
            })
        {
            i += 10;
            continue;
        }
        while i < chars.len()
            && (chars[i].is_ascii_digit()
                || ((chars[i] == '.' || chars[i] == ',')
                    && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
        {
            // A comma is a thousands separator only before exactly three digits.
            if chars[i] == ',' {
                let group = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                if group != 3 {
                    break;
                }
            }
            i += 1;
        }
        if i < chars.len()
            && chars[i] == 'e'
            && chars
                .get(i + 1)
                .is_some_and(|c| c.is_ascii_digit() || *c == '-' || *c == '+')
        {
            i += 2;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
        }
        let number: String = chars[start..i].iter().filter(|c| **c != ',').collect();
        let next = chars.get(i).copied();
        // Part of a name (x0 is caught above; 2x2, 1D, bnsl:K aside) or a power (10⁶).
        if next.is_some_and(|n| is_superscript(n) || n == '_') {
            continue;
        }
        let before: String = chars[..start].iter().collect();
        let referenced = ["eq. ", "Fig. ", "Table ", "issue ", "issues ", "section "]
            .iter()
            .any(|r| before.ends_with(r));
        let year = number.len() == 4
            && !number.contains('.')
            && (1900..2100).contains(&number.parse::<u32>().unwrap_or(0));
        if !(referenced || year) {
            let rest: String = chars[i..].iter().collect();
            out.push((number, is_measurement(&rest)));
        }
    }
    out
}

/// The prose numbers of one document.
fn stated_numbers(file: &str, readme: &str) -> Vec<Stated> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (i, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.trim_start().starts_with("<!--") {
            continue;
        }
        for (number, measurement) in numbers_and_kinds(line) {
            out.push(Stated {
                file: file.to_string(),
                line: i + 1,
                number,
                measurement,
                text: line.to_string(),
            });
        }
    }
    out
}

/// Whether `hay` states `number` (not as a part of a longer number).
fn states(hay: &str, number: &str) -> bool {
    let grouped = number.parse::<u64>().ok().filter(|n| *n >= 1000).map(|n| {
        let digits = n.to_string();
        let mut out = String::new();
        for (k, c) in digits.chars().enumerate() {
            if k > 0 && (digits.len() - k) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    });
    std::iter::once(number.to_string())
        .chain(grouped)
        .any(|form| {
            hay.match_indices(&form).any(|(at, _)| {
                let before = hay[..at].chars().next_back();
                let after: Vec<char> = hay[at + form.len()..].chars().take(2).collect();
                let digit_before = before.is_some_and(|c| c.is_ascii_digit() || c == '.');
                let digit_after = after.first().is_some_and(char::is_ascii_digit)
                    || (after.first() == Some(&'.')
                        && after.get(1).is_some_and(char::is_ascii_digit));
                !digit_before && !digit_after
            })
        })
}

/// `tests/readme_claims.txt`: (number, file, key) per line.
fn allowed() -> Vec<(String, String, Option<String>)> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/readme_claims.txt"),
    )
    .unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut fields = l.split('\t');
            let number = fields.next().unwrap().trim().to_string();
            let file = fields
                .next()
                .unwrap_or_else(|| panic!("readme_claims.txt: `{l}` names no file"))
                .trim()
                .to_string();
            let key = fields.next().map(|k| k.trim().to_string());
            (number, file, key)
        })
        .collect()
}

fn check_numbers(documents: &[(String, String)], corpus: &str) {
    let mut allowed = allowed();
    // `TABLE<TAB>FILE`: a README table row that FILE holds (a table a program wrote) is
    // established as a whole.
    let unescape = |row: &str| row.replace("\\*", "*").trim_end().to_string();
    let mut rows = BTreeSet::new();
    allowed.retain(|(number, file, _)| {
        if number != "TABLE" {
            return true;
        }
        let text = std::fs::read_to_string(root().join(file))
            .unwrap_or_else(|e| panic!("readme_claims.txt: {file}: {e}"));
        rows.extend(text.lines().filter(|l| l.starts_with('|')).map(unescape));
        false
    });
    let mut unestablished = Vec::new();
    let mut used = BTreeSet::new();
    let stated_all = documents
        .iter()
        .flat_map(|(file, text)| stated_numbers(file, text));
    for stated in stated_all {
        // A number with an entry is checked against its entry's file, not taken as established
        // by whatever command happens to print the same digits.
        let listed = allowed.iter().any(|(n, _, _)| *n == stated.number);
        if !stated.measurement && !listed && states(corpus, &stated.number) {
            continue;
        }
        if stated.text.starts_with('|') && rows.contains(&unescape(&stated.text)) {
            continue;
        }
        let sources: Vec<&(String, String, Option<String>)> = allowed
            .iter()
            .filter(|(n, _, _)| *n == stated.number)
            .collect();
        if sources.is_empty() {
            unestablished.push(format!(
                "{} line {}: {} (no checked block prints it and tests/readme_claims.txt does not list it)\n    {}",
                stated.file,
                stated.line, stated.number, stated.text
            ));
            continue;
        }
        for (number, file, key) in sources {
            used.insert(number.clone());
            let text = std::fs::read_to_string(root().join(file))
                .unwrap_or_else(|e| panic!("readme_claims.txt: {file}: {e}"));
            if key.as_deref() == Some(UNRECORDED) {
                // Measured by that test or benchmark, whose result is not yet written to a
                // file: listed, so that editing the number still fails here.
                continue;
            }
            let hay: String = match key {
                Some(key) => text
                    .lines()
                    .filter(|l| l.starts_with(key.as_str()))
                    .collect::<Vec<_>>()
                    .join("\n"),
                None => text,
            };
            if !states(&hay, number) {
                unestablished.push(format!(
                    "{} line {}: {number}: readme_claims.txt names {file}{}, which does not state it\n    {}",
                    stated.file,
                    stated.line,
                    key.as_ref().map(|k| format!(" (line '{k}')")).unwrap_or_default(),
                    stated.text
                ));
            }
        }
    }
    assert!(
        unestablished.is_empty(),
        "{} numbers in the prose of the README and the book are not established:\n{}",
        unestablished.len(),
        unestablished.join("\n")
    );
    let stale: Vec<&String> = allowed
        .iter()
        .map(|(n, _, _)| n)
        .filter(|n| !used.contains(*n))
        .collect();
    assert!(
        stale.is_empty(),
        "readme_claims.txt lists numbers the README and the book no longer need it for: {stale:?}"
    );
}

#[test]
fn the_readme_and_the_book_show_what_the_commands_print_and_state_only_established_numbers() {
    let documents = documents();
    let blocks: Vec<Block> = documents
        .iter()
        .flat_map(|(file, text)| checked_blocks(file, text))
        .collect();
    assert!(
        blocks.len() >= 20,
        "the README and the book have {} checked blocks",
        blocks.len()
    );
    let corpus = run_blocks(&blocks);
    for internal in ["track__", "__1", "__2"] {
        assert!(
            !corpus.contains(internal),
            "a command of the README or the book prints an internal name ({internal}):\n{corpus}"
        );
    }
    check_numbers(&documents, &corpus);
}

#[test]
fn prose_numbers_are_read_by_the_rules() {
    assert_eq!(
        numbers_of("in 2.9 s (1,000 replicates, Hoffmann et al. 2022, eq. 2) `--bootstrap 200`"),
        ["2.9", "1000"]
    );
    assert_eq!(
        numbers_of("x0 and R² and 10⁶× and log10 at 1.3–1.5×, 5e-3 (2026-12-01)"),
        ["1.3", "1.5", "5e-3"]
    );
    assert_eq!(
        numbers_and_kinds("4.3 s, 8 ms and 154 KB, 5 starts"),
        [
            ("4.3".to_string(), true),
            ("8".to_string(), true),
            ("154".to_string(), true),
            ("5".to_string(), false)
        ]
    );
    assert!(states("a = 0.4994 [0.47", "0.4994"));
    assert!(!states("a = 0.49945", "0.4994"));
    assert!(states("1,000 of 1000", "1000"));
    assert!(!states("21000", "1000"));
}

#[test]
fn the_books_law_table_lists_every_catalog_law() {
    let page = std::fs::read_to_string(root().join("docs/reference/laws.md")).unwrap();
    let table: Vec<&str> = page
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    let output = Command::new(env!("CARGO_BIN_EXE_scalinglaws"))
        .args(["laws", "--json", "-"])
        .output()
        .unwrap();
    let listing: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for law in listing["laws"].as_array().unwrap() {
        let name = law["name"].as_str().unwrap();
        assert!(
            table
                .iter()
                .any(|row| row.starts_with(&format!("| `{name}`"))),
            "`scalinglaws laws` lists '{name}', which the book's table of built-in laws (docs/reference/laws.md) lacks"
        );
    }
}
