//! The lab speaks no command line, like the library (`crates/scalinglaws/tests/integration/no_flags.rs`):
//! its messages name a setting by its key (`dimensions`), which each front end words as its own
//! option (`--dimensions` in the CLI, `dimensions=` in Python). This test reads every source
//! file of the lab and fails when a string literal spells a command-line option.

use std::path::Path;

/// The string literals of Rust source (`"..."` with escapes; comments and char literals
/// skipped), with the line each starts on.
fn literals(source: &str) -> Vec<(usize, String)> {
    let chars: Vec<char> = source.chars().collect();
    let (mut i, mut line, mut found) = (0, 1, Vec::new());
    while i < chars.len() {
        match chars[i] {
            '\n' => line += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '\'' if chars.get(i + 2) == Some(&'\'') || chars.get(i + 1) == Some(&'\\') => {
                // A char literal ('"', '\n', '\''): step over it.
                let from = if chars[i + 1] == '\\' { i + 3 } else { i + 2 };
                let end = (from..chars.len()).find(|&j| chars[j] == '\'');
                i = end.map_or(i + 1, |e| e + 1);
                continue;
            }
            '"' => {
                let (start, mut text) = (line, String::new());
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        text.push(chars[i]);
                        i += 1;
                    }
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    text.push(chars[i]);
                    i += 1;
                }
                found.push((start, text));
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// `--x` at the start of a literal or after a space, bracket, quote or backtick.
fn names_a_flag(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    (0..chars.len().saturating_sub(2)).any(|i| {
        chars[i] == '-'
            && chars[i + 1] == '-'
            && chars[i + 2].is_ascii_lowercase()
            && (i == 0 || matches!(chars[i - 1], ' ' | '\n' | '(' | '[' | '`' | '\''))
    })
}

#[test]
fn no_string_literal_of_the_lab_names_a_command_line_option() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        files += 1;
        let source = std::fs::read_to_string(&path).unwrap();
        for (line, text) in literals(&source) {
            if names_a_flag(&text) {
                offenders.push(format!("{}:{line}: \"{text}\"", path.display()));
            }
        }
    }
    assert!(files >= 7, "found only {files} source files");
    assert!(
        offenders.is_empty(),
        "string literals name command-line options; name the setting by its key:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_scan_finds_flags_in_literals_only() {
    let source =
        "// \"--not\" in a comment\nlet a = \"use --dimension\";\nlet b = '\"';\nlet c = \"a--b\";";
    let found = literals(source);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0], (2, "use --dimension".to_string()));
    assert!(names_a_flag(&found[0].1));
    assert!(!names_a_flag(&found[1].1));
}
