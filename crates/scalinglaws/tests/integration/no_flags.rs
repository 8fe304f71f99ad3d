//! The library speaks no command line: a message that refers to a setting mentions it by key
//! (`scalinglaws::error::Setting`) and each front end words it (`--fix` in the CLI, `fix=` in
//! Python). This test reads every source file of the library and fails when a string literal
//! spells a command-line option (`"--fix ..."`, `` "... `--where` ..." ``) or the CLI's
//! `scalinglaws laws`, and when a doc comment (`///`, `//!`) does: the library's documentation
//! names a setting by its key too (the `bootstrap` setting). Plain `//` comments are exempt.

use std::path::{Path, PathBuf};

/// Files whose literals another change of issue 20 converts; each must still hold a flag (so
/// that the entry is removed once it is converted), and the list is to end empty.
const PENDING: &[&str] = &[];

/// Files whose doc comments may show a flag: `error.rs` defines how each front end words a
/// setting, and its docs give the command line's wording beside Python's as the example (paths
/// under `src/`, a folder ending in `/`).
const COMMENTS_PENDING: &[&str] = &["error.rs"];

/// A string literal of a source file, with the line it starts on.
#[derive(Debug)]
struct Literal {
    line: usize,
    text: String,
}

/// The string literals of Rust source, comments skipped: `"..."` (with escapes), `r"..."` and
/// `r#"..."#`, `b"..."`; char literals (`'"'`) and lifetimes are stepped over.
fn literals(source: &str) -> Vec<Literal> {
    let chars: Vec<char> = source.chars().collect();
    let mut found = Vec::new();
    let (mut i, mut line) = (0, 1);
    let newlines = |from: usize, to: usize| chars[from..to].iter().filter(|c| **c == '\n').count();
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = i;
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            line += newlines(start, i);
        } else if c == 'r' && matches!(next, Some('"') | Some('#')) && !ident_before(&chars, i) {
            let mut hashes = 0;
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                i += 1;
                continue;
            }
            let start = j + 1;
            let mut end = start;
            while end < chars.len()
                && !(chars[end] == '"' && (1..=hashes).all(|k| chars.get(end + k) == Some(&'#')))
            {
                end += 1;
            }
            found.push(Literal {
                line: line + newlines(i, start),
                text: chars[start..end.min(chars.len())].iter().collect(),
            });
            line += newlines(i, end.min(chars.len()));
            i = end + 1 + hashes;
        } else if c == '"' {
            let start = i + 1;
            let mut end = start;
            while end < chars.len() && chars[end] != '"' {
                end += if chars[end] == '\\' { 2 } else { 1 };
            }
            let end = end.min(chars.len());
            found.push(Literal {
                line,
                text: chars[start..end].iter().collect(),
            });
            line += newlines(i, end);
            i = end + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F}') or a lifetime ('a).
            i += match (next, chars.get(i + 2)) {
                (Some('\\'), _) => {
                    let mut j = i + 2;
                    while j < chars.len() && chars[j] != '\'' {
                        j += 1;
                    }
                    j + 1 - i
                }
                (Some(_), Some('\'')) => 3,
                _ => 1,
            };
        } else {
            if c == '\n' {
                line += 1;
            }
            i += 1;
        }
    }
    found
}

/// The doc comments of Rust source (`///` and `//!` lines, without the marker), with their
/// line; rustfmt keeps each on a line of its own.
fn doc_comments(source: &str) -> Vec<Literal> {
    source
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let line = line.trim_start();
            let text = line
                .strip_prefix("///")
                .or_else(|| line.strip_prefix("//!"))?;
            Some(Literal {
                line: index + 1,
                text: text.to_string(),
            })
        })
        .collect()
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// Whether a literal spells an option: `--x` at the start, after a space, bracket, quote or
/// backtick (so that `a--b` in a formula is not one), or the CLI's `scalinglaws laws`.
fn names_a_flag(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let flag = (0..chars.len().saturating_sub(2)).any(|i| {
        chars[i] == '-'
            && chars[i + 1] == '-'
            && chars[i + 2].is_ascii_lowercase()
            && (i == 0
                || matches!(
                    chars[i - 1],
                    ' ' | '\n' | '\t' | '(' | '[' | '`' | '\'' | '"'
                ))
    });
    flag || text.contains("scalinglaws laws")
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source folder reads") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_string_literal_of_the_library_names_a_command_line_option() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 20, "found only {} source files", files.len());
    let mut offenders = Vec::new();
    let mut pending_with_flags = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let source = std::fs::read_to_string(file).expect("a source file reads");
        let flagged: Vec<String> = literals(&source)
            .into_iter()
            .filter(|literal| names_a_flag(&literal.text))
            .map(|literal| format!("{relative}:{}: \"{}\"", literal.line, literal.text))
            .collect();
        if PENDING.contains(&relative.as_str()) {
            if !flagged.is_empty() {
                pending_with_flags.push(relative.clone());
            }
        } else {
            offenders.extend(flagged);
        }
    }
    assert!(
        offenders.is_empty(),
        "string literals name command-line options; mention the setting by key \
         (scalinglaws::error::Setting, text![...]) instead:\n{}",
        offenders.join("\n")
    );
    let converted: Vec<&&str> = PENDING
        .iter()
        .filter(|p| !pending_with_flags.iter().any(|f| f == *p))
        .collect();
    assert!(
        converted.is_empty(),
        "{converted:?} no longer spell options: remove them from PENDING"
    );
}

#[test]
fn no_doc_comment_of_the_library_names_a_command_line_option() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 20, "found only {} source files", files.len());
    let mut offenders = Vec::new();
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if COMMENTS_PENDING.iter().any(|pending| {
            relative == *pending || (pending.ends_with('/') && relative.starts_with(pending))
        }) {
            continue;
        }
        let source = std::fs::read_to_string(file).expect("a source file reads");
        offenders.extend(
            doc_comments(&source)
                .into_iter()
                .filter(|comment| names_a_flag(&comment.text))
                .map(|comment| format!("{relative}:{}: {}", comment.line, comment.text.trim())),
        );
    }
    assert!(
        offenders.is_empty(),
        "doc comments name command-line options; name the setting by its key (the `fix` \
         setting) or describe it:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_doc_comment_scan_reads_doc_lines_only() {
    let source = "//! the `--fix` option\n// plain --fix\n    /// see `--where`\nlet a = 1; // --x\n/// a--b\n";
    let found: Vec<(usize, String)> = doc_comments(source)
        .into_iter()
        .filter(|c| names_a_flag(&c.text))
        .map(|c| (c.line, c.text))
        .collect();
    assert_eq!(
        found,
        vec![
            (1, " the `--fix` option".to_string()),
            (3, " see `--where`".to_string()),
        ]
    );
}

#[test]
fn the_scan_finds_literals_and_skips_comments() {
    let source = r##"
        // "--fix in a comment"
        /// `--where` in a doc comment
        /* "--bound" in a block comment */
        let a = "give --fix NAME=VALUE";
        let b = r#"quoted "--space linear""#;
        let c = '"';
        fn f<'a>(x: &'a str) {}
        let d = "a formula a--b";
        let e = "see `scalinglaws laws`";
        let f = "use `--grid`";
    "##;
    let found: Vec<(usize, String)> = literals(source)
        .into_iter()
        .filter(|l| names_a_flag(&l.text))
        .map(|l| (l.line, l.text))
        .collect();
    assert_eq!(
        found,
        vec![
            (5, "give --fix NAME=VALUE".to_string()),
            (6, "quoted \"--space linear\"".to_string()),
            (10, "see `scalinglaws laws`".to_string()),
            (11, "use `--grid`".to_string()),
        ]
    );
}
