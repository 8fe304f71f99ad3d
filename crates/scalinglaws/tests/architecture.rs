//! The house rules of ARCHITECTURE.md, checked on the sources so they cannot rot: the library's
//! rooms import each other without a cycle, the lower rooms never reach up (a fit knows nothing
//! of intervals, analyses or jobs; `stats` is a leaf), the plot crate draws values it is given
//! and imports no fit, uncertainty or analysis code, and the CLI's command files stay small.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn crate_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments (line comments and doc comments), so prose naming a module is
/// not an import.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The room a library file belongs to: its first path component under src/ (`fit/solver.rs` →
/// `fit`), and for `analysis/` the analysis (`analysis/isoflop/mod.rs` → `analysis::isoflop`).
fn room_of(relative: &Path) -> String {
    let parts: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [first, second, ..] if first == "analysis" && second != "mod" => {
            format!("analysis::{second}")
        }
        [first, ..] => first.clone(),
        [] => unreachable!(),
    }
}

/// Every `crate::a::b` the code names, as the room it lands in.
fn rooms_named(code: &str) -> BTreeSet<String> {
    let mut rooms = BTreeSet::new();
    // `use crate::{fit::X, law::Y}` groups: expand the first level of braces after `crate::`.
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let paths: Vec<String> = if rest.starts_with('{') {
            let end = matching_brace(rest);
            split_top(&rest[1..end])
        } else {
            vec![rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect()]
        };
        for path in paths {
            let segments: Vec<&str> = path.trim().split("::").collect();
            let room = match segments.as_slice() {
                ["analysis", second, ..] if !second.is_empty() && !second.starts_with('{') => {
                    format!("analysis::{second}")
                }
                [first, ..] if !first.is_empty() => first.to_string(),
                _ => continue,
            };
            rooms.insert(room);
        }
    }
    rooms
}

fn matching_brace(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    text.len()
}

fn split_top(text: &str) -> Vec<String> {
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| {
            p.split(|c| c == '{')
                .next()
                .unwrap_or("")
                .trim_end_matches(':')
                .to_string()
        })
        .collect()
}

/// Room → the other rooms its files name.
fn library_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = crate_dir("scalinglaws").join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        if relative == Path::new("lib.rs") {
            continue;
        }
        let room = room_of(relative);
        let text = fs::read_to_string(&file).unwrap();
        let named = rooms_named(&code_of(&text));
        let edges = graph.entry(room.clone()).or_default();
        edges.extend(named.into_iter().filter(|r| *r != room && r != "analysis"));
    }
    graph
}

/// A cycle in the graph, if there is one, as the rooms along it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|n| n == next).unwrap();
                    let mut cycle = path[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, graph, state, path) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(cycle) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn the_library_rooms_import_each_other_without_a_cycle() {
    let graph = library_graph();
    assert!(
        graph.contains_key("fit") && graph.contains_key("law"),
        "{graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between library rooms: {}", cycle.join(" → "));
    }
}

#[test]
fn the_lower_rooms_never_reach_up() {
    let graph = library_graph();
    let forbidden: &[(&str, &[&str])] = &[
        (
            "stats",
            &["law", "fit", "data", "uncertainty", "job", "report"],
        ),
        ("law", &["fit", "data", "uncertainty", "job"]),
        ("fit", &["data", "uncertainty", "job"]),
        ("uncertainty", &["job"]),
        ("data", &["uncertainty", "job"]),
    ];
    for (room, above) in forbidden {
        let uses = graph.get(*room).cloned().unwrap_or_default();
        let reaching: Vec<&String> = uses
            .iter()
            .filter(|r| above.iter().any(|a| r == a || r.starts_with("analysis")))
            .collect();
        assert!(
            reaching.is_empty(),
            "`{room}` imports {reaching:?}, a room above it"
        );
    }
    for (room, uses) in &graph {
        if room.starts_with("analysis") {
            assert!(
                !uses.contains("job"),
                "`{room}` imports the job façade above it"
            );
        }
    }
}

#[test]
fn the_plot_crate_draws_what_it_is_given() {
    let mut files = Vec::new();
    rust_files(&crate_dir("scalinglaws-plot").join("src"), &mut files);
    for file in files {
        let code = code_of(&fs::read_to_string(&file).unwrap());
        for room in ["fit", "analysis", "uncertainty", "job"] {
            assert!(
                !code.contains(&format!("scalinglaws::{room}")),
                "{} imports scalinglaws::{room}: plots take computed values",
                file.display()
            );
        }
    }
}

#[test]
fn the_command_files_stay_small() {
    let src = crate_dir("scalinglaws-cli").join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("cmd_") {
            let lines = fs::read_to_string(&file).unwrap().lines().count();
            assert!(
                lines <= 300,
                "{name}: {lines} lines (dispatch and exporter choice only)"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Function length
// ---------------------------------------------------------------------------------------------

/// The most lines a function body may hold (the lines between its braces).
const MAX_BODY_LINES: usize = 80;

/// Functions allowed a longer body, as (path under `crates/`, fn name, reason). Each entry must
/// still name a function over the limit, so the list shrinks as functions are split.
const LONG_FUNCTIONS: &[(&str, &str, &str)] = &[
    (
        "scalinglaws/src/fit/solver.rs",
        "minimize_gated",
        "one damped Newton loop: point, model, damping and growth change together at each of its \
         exits; pieces would pass all four back and forth",
    ),
    (
        "scalinglaws/src/law/catalog.rs",
        "lookup",
        "one match arm per catalog law, each a table entry (formula, variables, parameter specs)",
    ),
    (
        "scalinglaws/src/error.rs",
        "name",
        "one match arm per setting: the table of the settings' neutral names",
    ),
];

/// The source with comments, string literals and char literals blanked to spaces (newlines
/// kept), so braces and `fn` in prose or strings are not code.
fn blank_non_code(source: &str) -> Vec<char> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = chars.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(chars.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let ident_before = |i: usize| i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let mut i = 0;
    while i < chars.len() {
        let (c, next) = (chars[i], chars.get(i + 1).copied());
        let start = i;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
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
        } else if matches!(c, 'r' | 'b')
            && !ident_before(i)
            && (next == Some('"')
                || (c == 'r' && next == Some('#'))
                || (c == 'b' && next == Some('r')))
        {
            // r"..", r#".."#, b"..", br"..": skip the prefix, then the quoted part.
            let mut j = i + 1;
            if c == 'b' && next == Some('r') {
                j += 1;
            }
            let raw = c == 'r' || (c == 'b' && next == Some('r'));
            let mut hashes = 0;
            while raw && chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                i += 1;
                continue;
            }
            j += 1;
            while j < chars.len() {
                if !raw && chars[j] == '\\' {
                    j += 2;
                    continue;
                }
                if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                    break;
                }
                j += 1;
            }
            i = j + 1 + hashes;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F}', '{') or a lifetime ('a).
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
            if i - start == 1 {
                continue;
            }
        } else {
            i += 1;
            continue;
        }
        blank(&mut out, start, i);
    }
    out
}

/// The index of the brace closing the one at `open`.
fn closing_brace(code: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn word_at(code: &[char], at: usize, word: &str) -> bool {
    let is_ident = |c: &char| c.is_alphanumeric() || *c == '_';
    let len = word.chars().count();
    code.get(at..at + len)
        .is_some_and(|s| s.iter().copied().eq(word.chars()))
        && (at == 0 || !is_ident(&code[at - 1]))
        && !code.get(at + len).is_some_and(is_ident)
}

/// Every function with a body, as (name, body lines), outside `#[cfg(test)]` modules.
fn function_lengths(source: &str) -> Vec<(String, usize)> {
    let mut code = blank_non_code(source);
    // Blank the test modules: `#[cfg(test)]` followed by `mod name {`.
    let text: String = code.iter().collect();
    let mut from = 0;
    while let Some(found) = text[from..].find("#[cfg(test)]") {
        let at = from + found;
        from = at + 1;
        let chars_at = text[..at].chars().count();
        let after = text[at + "#[cfg(test)]".len()..].trim_start();
        if !(after.starts_with("mod ") || after.starts_with("pub mod ")) {
            continue;
        }
        let Some(open) = code[chars_at..].iter().position(|c| *c == '{' || *c == ';') else {
            continue;
        };
        let open = chars_at + open;
        if code[open] == '{' {
            let close = closing_brace(&code, open);
            let end = (close + 1).min(code.len());
            for c in &mut code[chars_at..end] {
                if *c != '\n' {
                    *c = ' ';
                }
            }
        }
    }
    let line_of = |index: usize| code[..index].iter().filter(|c| **c == '\n').count();
    let mut found = Vec::new();
    for at in 0..code.len() {
        if !word_at(&code, at, "fn") {
            continue;
        }
        let mut i = at + 2;
        while code.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        let name: String = code[i..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        if name.is_empty() {
            continue; // a `fn(..)` pointer type
        }
        // The body opens at the first `{` outside parentheses and brackets; a `;` first means a
        // declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        for (j, c) in code.iter().enumerate().skip(i) {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '{' if depth == 0 => {
                    open = Some(j);
                    break;
                }
                ';' if depth == 0 => break,
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let close = closing_brace(&code, open);
        let lines = line_of(close).saturating_sub(line_of(open) + 1);
        found.push((name, lines));
    }
    found
}

#[test]
fn the_function_scan_measures_bodies_and_skips_strings_comments_and_tests() {
    let source = r##"
fn short() {
    let a = "}}}";
    let b = '{';
    // }
}
fn long<'a>(x: [u8; 3]) -> impl Fn() -> u8 where u8: Copy {
    /* { */
    let s = r#"{"#;
    let c = '}';
    1;
    2;
}
trait T { fn declared(&self); fn defaulted(&self) { } }
type F = fn(u8) -> u8;
#[cfg(test)]
mod tests {
    fn hidden() {
        1;
    }
}
fn after() {
    1;
}
"##;
    assert_eq!(
        function_lengths(source),
        vec![
            ("short".to_string(), 3),
            ("long".to_string(), 5),
            ("defaulted".to_string(), 0),
            ("after".to_string(), 1),
        ]
    );
}

/// The sources the length rule covers: every workspace crate's `src/`.
fn workspace_sources() -> Vec<(String, PathBuf)> {
    let crates = crate_dir("");
    let mut out = Vec::new();
    for name in [
        "scalinglaws",
        "scalinglaws-cli",
        "scalinglaws-report",
        "scalinglaws-plot",
        "scalinglaws-py",
        "scalinglaws-fuzz",
        "scalinglaws-lab",
    ] {
        let mut files = Vec::new();
        rust_files(&crate_dir(name).join("src"), &mut files);
        for file in files {
            let relative = file
                .strip_prefix(&crates)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((relative, file));
        }
    }
    out
}

#[test]
fn functions_stay_short() {
    let mut too_long = Vec::new();
    let mut listed_long: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut seen = 0;
    for (relative, file) in workspace_sources() {
        for (name, lines) in function_lengths(&fs::read_to_string(&file).unwrap()) {
            seen += 1;
            if lines <= MAX_BODY_LINES {
                continue;
            }
            match LONG_FUNCTIONS
                .iter()
                .find(|(path, fn_name, _)| *path == relative && *fn_name == name)
            {
                Some((path, fn_name, _)) => {
                    listed_long.insert((path, fn_name));
                }
                None => too_long.push(format!("{relative}: fn {name}: {lines} lines")),
            }
        }
    }
    assert!(seen > 500, "found only {seen} functions");
    assert!(
        too_long.is_empty(),
        "functions over {MAX_BODY_LINES} lines; split them into well-named pieces, or list them in \
         LONG_FUNCTIONS with the reason:\n{}",
        too_long.join("\n")
    );
    let stale: Vec<String> = LONG_FUNCTIONS
        .iter()
        .filter(|(path, name, _)| !listed_long.contains(&(*path, *name)))
        .map(|(path, name, _)| format!("{path}: fn {name}"))
        .collect();
    assert!(
        stale.is_empty(),
        "LONG_FUNCTIONS entries no longer over {MAX_BODY_LINES} lines (or gone); remove them:\n{}",
        stale.join("\n")
    );
}
