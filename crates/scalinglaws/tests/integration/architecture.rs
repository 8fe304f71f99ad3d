//! The house rules of ARCHITECTURE.md, checked on the sources so they cannot rot: the library's
//! rooms import each other without a cycle, the lower rooms never reach up (a fit knows nothing
//! of intervals, analyses or jobs; `stats` is a leaf), the plot crate draws values it is given
//! and imports no fit, uncertainty or analysis code, the CLI's command files stay small, and
//! the files of one directory never name each other's items in a circle.

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
            p.split('{')
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

/// The lab is a wing of its own: it depends on the engine, and no engine crate (the library,
/// its reports, its plots) names the lab in its manifest or its code, or holds a lab module
/// (its pages are the lab's `pages.rs`), so the engine builds, tests and ships without it.
#[test]
fn the_engine_knows_nothing_of_the_lab() {
    for name in ["scalinglaws", "scalinglaws-report", "scalinglaws-plot"] {
        let manifest = fs::read_to_string(crate_dir(name).join("Cargo.toml")).unwrap();
        let depends = manifest
            .lines()
            .map(|line| line.split('#').next().unwrap_or("").trim())
            .any(|line| line.starts_with("scalinglaws-lab"));
        assert!(!depends, "{name}/Cargo.toml depends on scalinglaws-lab");
        let mut files = Vec::new();
        rust_files(&crate_dir(name).join("src"), &mut files);
        for file in files {
            let code = code_of(&fs::read_to_string(&file).unwrap());
            assert!(
                !code.contains("scalinglaws_lab"),
                "{} names the lab: the lab's code lives in scalinglaws-lab",
                file.display()
            );
            let words: Vec<&str> = code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            let lab_module = words.windows(2).any(|w| w == ["mod", "lab"]);
            assert!(
                file.file_stem().is_some_and(|stem| stem != "lab") && !lab_module,
                "{} is a lab module in an engine crate: it belongs in scalinglaws-lab",
                file.display()
            );
        }
    }
    let lab = fs::read_to_string(crate_dir("scalinglaws-lab").join("Cargo.toml")).unwrap();
    assert!(
        lab.lines().any(|l| l.trim().starts_with("scalinglaws ")),
        "the lab depends on the engine"
    );
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

// ---------------------------------------------------------------------------------------------
// File circles
// ---------------------------------------------------------------------------------------------

/// Circles of sibling files known to exist, as (directory under `crates/`, sorted file names,
/// reason). Each entry must still be exactly a circle the scan finds, so the list only shrinks
/// and stays true.
const KNOWN_CIRCLES: &[(&str, &[&str], &str)] = &[];

/// A token of code whose comments and literals are already blanked: its text, its line and the
/// index of its first char (to read a `#[path = ".."]` literal back from the source).
struct Token {
    text: String,
    line: usize,
    at: usize,
}

/// Words, `::`, `!=` and single punctuation chars; `!=` is one token so `a != b` is no macro.
fn tokens_of(code: &[char]) -> Vec<Token> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let (mut out, mut i, mut line) = (Vec::new(), 0, 1);
    while i < code.len() {
        let (c, start) = (code[i], i);
        if c.is_whitespace() {
            line += usize::from(c == '\n');
            i += 1;
            continue;
        }
        if word(c) {
            while i < code.len() && word(code[i]) {
                i += 1;
            }
        } else if matches!((c, code.get(i + 1)), (':', Some(':')) | ('!', Some('='))) {
            i += 2;
        } else {
            i += 1;
        }
        let text = code[start..i].iter().collect();
        out.push(Token {
            text,
            line,
            at: start,
        });
    }
    out
}

fn is_ident(text: &str) -> bool {
    text.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

/// The index of the bracket closing the one at `open` (any of `(`, `[`, `{`).
fn closing_token(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// One item at the top of a module: its attributes (token ranges inside `#[..]`), whether it is
/// `pub`, its keyword (`fn`, `use`, `mod`, `impl`, .. or `#!` for an inner attribute), its name,
/// and the tokens from the keyword to its end.
struct Item {
    attrs: Vec<(usize, usize)>,
    public: bool,
    kind: String,
    name: String,
    keyword: usize,
    end: usize,
}

/// The items between tokens `from` and `to` (a file, or the inside of an inline module).
fn items_in(tokens: &[Token], from: usize, to: usize) -> Vec<Item> {
    let (mut items, mut attrs, mut i) = (Vec::new(), Vec::new(), from);
    while i < to {
        let text = tokens[i].text.as_str();
        if text == "#" {
            let inner = tokens.get(i + 1).is_some_and(|t| t.text == "!");
            let open = if inner { i + 2 } else { i + 1 };
            let close = closing_token(tokens, open);
            attrs.push((open + 1, close));
            if inner {
                let kind = "#!".to_string();
                let attrs = std::mem::take(&mut attrs);
                let (name, public) = (String::new(), false);
                items.push(Item {
                    attrs,
                    public,
                    kind,
                    name,
                    keyword: i,
                    end: close + 1,
                });
            }
            i = close + 1;
            continue;
        }
        if text == ";" {
            i += 1;
            continue;
        }
        let (public, keyword) = item_keyword(tokens, i, to);
        let kind = tokens
            .get(keyword)
            .map_or(String::new(), |t| t.text.clone());
        let name = item_name(tokens, keyword, &kind);
        let end = item_end(tokens, keyword, to, kind == "use");
        let attrs = std::mem::take(&mut attrs);
        items.push(Item {
            attrs,
            public,
            kind,
            name,
            keyword,
            end,
        });
        i = end;
    }
    items
}

/// Skips visibility and qualifiers (`pub(crate)`, `unsafe`, `const fn`, `extern "C"`) to the
/// item's keyword; says whether the item is `pub`.
fn item_keyword(tokens: &[Token], mut k: usize, to: usize) -> (bool, usize) {
    let mut public = false;
    while k < to {
        let next = tokens.get(k + 1).map_or("", |t| t.text.as_str());
        match tokens[k].text.as_str() {
            "pub" => {
                public = true;
                k = if next == "(" {
                    closing_token(tokens, k + 1) + 1
                } else {
                    k + 1
                };
            }
            "unsafe" | "async" | "default" | "auto" => k += 1,
            "extern" if next != "crate" => k += 1,
            "const" if matches!(next, "fn" | "unsafe" | "async" | "extern") => k += 1,
            _ => break,
        }
    }
    (public, k)
}

fn item_name(tokens: &[Token], keyword: usize, kind: &str) -> String {
    let word = |k: usize| tokens.get(k).map_or(String::new(), |t| t.text.clone());
    match kind {
        "fn" | "struct" | "enum" | "trait" | "type" | "const" | "union" | "mod" => {
            word(keyword + 1)
        }
        "static" if word(keyword + 1) == "mut" => word(keyword + 2),
        "static" => word(keyword + 1),
        _ => String::new(),
    }
}

/// The token after the item: past its `;` or the `}` closing its body (a `use` tree's braces
/// are not a body).
fn item_end(tokens: &[Token], keyword: usize, to: usize, is_use: bool) -> usize {
    let mut depth = 0;
    for (j, token) in tokens.iter().enumerate().take(to).skip(keyword) {
        match token.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" => depth -= 1,
            "}" => {
                depth -= 1;
                if depth == 0 && !is_use {
                    return j + 1;
                }
            }
            ";" if depth == 0 => return j + 1,
            _ => {}
        }
    }
    to
}

/// `#[cfg(test)]`, `#[cfg(all(test, ..))]`, but not `#[cfg(not(test))]`.
fn is_test_attr(attr: &[Token]) -> bool {
    attr.first().is_some_and(|t| t.text == "cfg")
        && attr.iter().any(|t| t.text == "test")
        && !attr.iter().any(|t| t.text == "not")
}

/// The `(path, alias)` pairs of a `use` tree (`a::{b, c::d as e, f::*}`; a glob's alias is
/// `*`), from word `k` on; returns the word after the subtree.
fn use_tree(
    words: &[&str],
    mut k: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, String)>,
) -> usize {
    let mut path = prefix.to_vec();
    if words.get(k) == Some(&"::") {
        path.push("::".to_string());
        k += 1;
    }
    while k < words.len() {
        match words[k] {
            "*" => {
                out.push((path, "*".to_string()));
                return k + 1;
            }
            "{" => {
                k += 1;
                while k < words.len() && words[k] != "}" {
                    k = use_tree(words, k, &path, out);
                    k += usize::from(words.get(k) == Some(&","));
                }
                return k + 1;
            }
            word if words.get(k + 1) == Some(&"::") => {
                path.push(word.to_string());
                k += 2;
            }
            word => {
                let renamed = words.get(k + 1) == Some(&"as");
                let alias = if renamed {
                    words.get(k + 2).copied()
                } else {
                    None
                };
                if word == "self" {
                    let alias = alias.or(path.last().map(String::as_str)).unwrap_or("");
                    out.push((path.clone(), alias.to_string()));
                } else {
                    let alias = alias.unwrap_or(word).to_string();
                    out.push((
                        path.iter().cloned().chain([word.to_string()]).collect(),
                        alias,
                    ));
                }
                return k + if renamed { 3 } else { 1 };
            }
        }
    }
    k
}

/// A source file of a crate: its path, its chars (for `#[path]` literals) and its code tokens.
struct SourceFile {
    path: PathBuf,
    source: Vec<char>,
    tokens: std::rc::Rc<Vec<Token>>,
}

/// A name a `use` brings in (`*` for a glob), the path it names, whether it is `pub` (a
/// re-export) and its line.
struct Import {
    alias: String,
    path: Vec<String>,
    public: bool,
    line: usize,
}

/// A module (a file, or an inline `mod x { .. }` in one): its child modules, the items it
/// defines (name → keyword), its imports, and the token ranges of its code items.
#[derive(Default)]
struct Module {
    file: usize,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    defs: BTreeMap<String, String>,
    imports: Vec<Import>,
    code: Vec<(usize, usize)>,
}

/// The modules of one crate root (lib.rs or main.rs); the root module is the first.
#[derive(Default)]
struct ModuleTree {
    files: Vec<SourceFile>,
    modules: Vec<Module>,
}

/// Reads a source file, or None when there is none (the tests scan files held in memory).
type Reader<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// File → file: the first item (and its line) the first file's code names in the second.
type Edges = BTreeMap<(PathBuf, PathBuf), (String, usize)>;

fn new_module(tree: &mut ModuleTree, file: usize, parent: Option<usize>) -> usize {
    tree.modules.push(Module {
        file,
        parent,
        ..Module::default()
    });
    tree.modules.len() - 1
}

/// Loads a file as a module and, through its `mod x;` lines, the files below it.
fn load_file(
    tree: &mut ModuleTree,
    path: &Path,
    parent: Option<usize>,
    read: Reader,
) -> Option<usize> {
    let text = read(path)?;
    let tokens = std::rc::Rc::new(tokens_of(&blank_non_code(&text)));
    let end = tokens.len();
    let source = text.chars().collect();
    tree.files.push(SourceFile {
        path: path.to_path_buf(),
        source,
        tokens,
    });
    let module = new_module(tree, tree.files.len() - 1, parent);
    let dir = path.parent().unwrap_or(Path::new(""));
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    let child_dir = match name.as_str() {
        "lib.rs" | "main.rs" | "mod.rs" => dir.to_path_buf(),
        _ => dir.join(path.file_stem().unwrap_or_default()),
    };
    fill_module(tree, module, (0, end), &child_dir, read);
    Some(module)
}

/// Records the items between the tokens `span` as the module's definitions, imports, child
/// modules and code, skipping `#[cfg(test)]` items (and the whole file under `#![cfg(test)]`).
fn fill_module(
    tree: &mut ModuleTree,
    module: usize,
    span: (usize, usize),
    child_dir: &Path,
    read: Reader,
) {
    let file = tree.modules[module].file;
    let tokens = std::rc::Rc::clone(&tree.files[file].tokens);
    for item in items_in(&tokens, span.0, span.1) {
        if item
            .attrs
            .iter()
            .any(|&(from, to)| is_test_attr(&tokens[from..to]))
        {
            if item.kind == "#!" {
                return;
            }
            continue;
        }
        match item.kind.as_str() {
            "#!" => {}
            "use" => {
                let words: Vec<&str> = tokens[item.keyword + 1..item.end - 1]
                    .iter()
                    .map(|t| t.text.as_str())
                    .collect();
                let mut found = Vec::new();
                use_tree(&words, 0, &[], &mut found);
                let (public, line) = (item.public, tokens[item.keyword].line);
                let imports = found.into_iter().map(|(path, alias)| Import {
                    alias,
                    path,
                    public,
                    line,
                });
                tree.modules[module].imports.extend(imports);
            }
            "mod" => declare_child(tree, module, &item, child_dir, read),
            kind => {
                let defines = [
                    "fn", "struct", "enum", "trait", "type", "const", "static", "union",
                ];
                let m = &mut tree.modules[module];
                if defines.contains(&kind) && is_ident(&item.name) && item.name != "_" {
                    m.defs
                        .entry(item.name.clone())
                        .or_insert_with(|| kind.to_string());
                }
                m.code.push((item.keyword, item.end));
            }
        }
    }
}

/// A `mod x;` (its file found as rustc does, `#[path]` included) or an inline `mod x { .. }`.
fn declare_child(
    tree: &mut ModuleTree,
    module: usize,
    item: &Item,
    child_dir: &Path,
    read: Reader,
) {
    let file = tree.modules[module].file;
    let tokens = std::rc::Rc::clone(&tree.files[file].tokens);
    let name = item.name.clone();
    let child = if tokens[item.end - 1].text == ";" {
        let file_dir = tree.files[file]
            .path
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let candidates = match path_attr(&tree.files[file], &item.attrs) {
            Some(path) => vec![file_dir.join(path)],
            None => vec![
                child_dir.join(format!("{name}.rs")),
                child_dir.join(&name).join("mod.rs"),
            ],
        };
        candidates
            .iter()
            .find_map(|path| load_file(tree, path, Some(module), read))
    } else {
        let open = (item.keyword..item.end).find(|&i| tokens[i].text == "{");
        open.map(|open| {
            let child = new_module(tree, file, Some(module));
            fill_module(
                tree,
                child,
                (open + 1, item.end - 1),
                &child_dir.join(&name),
                read,
            );
            child
        })
    };
    if let Some(child) = child {
        tree.modules[module].children.insert(name, child);
    }
}

/// The literal of a `#[path = ".."]` among the attributes, read back from the source (the
/// tokens have it blanked).
fn path_attr(file: &SourceFile, attrs: &[(usize, usize)]) -> Option<String> {
    let (from, to) = attrs
        .iter()
        .find(|(from, _)| file.tokens[*from].text == "path")?;
    let text: String = file.source[file.tokens[*from].at..file.tokens[*to].at]
        .iter()
        .collect();
    text.split('"').nth(1).map(str::to_string)
}

/// What a path leads to: a module, or an item (name and keyword) defined in a module.
enum Target {
    Module(usize),
    Item {
        module: usize,
        name: String,
        kind: String,
    },
}

/// A name in a module's scope: a child module, an item it defines, an explicit import, then a
/// glob import. `want_module` prefers a module when a path continues after the name.
fn lookup(
    tree: &ModuleTree,
    module: usize,
    name: &str,
    want_module: bool,
    depth: usize,
) -> Option<Target> {
    let m = &tree.modules[module];
    if depth > 16 {
        return None;
    }
    let child = m.children.get(name).map(|&c| Target::Module(c));
    let def = m.defs.get(name).map(|kind| Target::Item {
        module,
        name: name.to_string(),
        kind: kind.clone(),
    });
    let own = if want_module {
        child.or(def)
    } else {
        def.or(child)
    };
    if own.is_some() {
        return own;
    }
    let explicit: Vec<&Import> = m.imports.iter().filter(|i| i.alias == name).collect();
    if !explicit.is_empty() {
        return explicit
            .iter()
            .find_map(|i| resolve(tree, module, &i.path, want_module, depth + 1));
    }
    m.imports
        .iter()
        .filter(|i| i.alias == "*")
        .find_map(
            |glob| match resolve(tree, module, &glob.path, true, depth + 1)? {
                Target::Module(from) => lookup(tree, from, name, want_module, depth + 1),
                Target::Item { .. } => None,
            },
        )
}

/// A path (`crate::a::B`, `super::b::C`, `D::new`, `e`) as seen from a module; a path into
/// another crate or `std` leads nowhere. A path through an item (`Enum::Variant`) stops at it.
fn resolve(
    tree: &ModuleTree,
    module: usize,
    path: &[String],
    want_module: bool,
    depth: usize,
) -> Option<Target> {
    let mut rest = path;
    let mut current = match path.first().map(String::as_str) {
        None | Some("::") => return None,
        Some("crate") => {
            rest = &path[1..];
            Target::Module(0)
        }
        Some("super") | Some("self") => {
            let mut at = module;
            while let Some(step) = rest.first().filter(|s| *s == "super" || *s == "self") {
                if step == "super" {
                    at = tree.modules[at].parent.unwrap_or(at);
                }
                rest = &rest[1..];
            }
            Target::Module(at)
        }
        Some(first) => {
            rest = &path[1..];
            lookup(tree, module, first, path.len() > 1 || want_module, depth)?
        }
    };
    // A module reached by its name (not `crate`, `super`, `self`) may lack an item a macro
    // makes (`names! { Loss => .. }`): the path still names the module's file.
    let mut named = !matches!(path[0].as_str(), "crate" | "super" | "self");
    for (k, segment) in rest.iter().enumerate() {
        let Target::Module(at) = current else {
            return Some(current);
        };
        let last = k + 1 == rest.len();
        let imported = tree.modules[at].imports.iter().any(|i| i.alias == *segment);
        current = match lookup(tree, at, segment, !last || want_module, depth + 1) {
            Some(target) => target,
            None if named && !imported => Target::Item {
                module: at,
                name: format!("{segment} (made by a macro?)"),
                kind: "macro-made".to_string(),
            },
            None => return None,
        };
        named = true;
    }
    Some(current)
}

/// The path starting at token `i` (`a::b::C`) if it starts with a word, and the token after it.
fn path_at(tokens: &[Token], i: usize, to: usize) -> (Vec<String>, usize) {
    if !is_ident(&tokens[i].text) {
        return (Vec::new(), i + 1);
    }
    let mut path = vec![tokens[i].text.clone()];
    let mut j = i;
    while j + 2 < to && tokens[j + 1].text == "::" && is_ident(&tokens[j + 2].text) {
        path.push(tokens[j + 2].text.clone());
        j += 2;
    }
    (path, j + 1)
}

/// Whether the path from token `i` to `next` may name an item: not a method or field after `.`,
/// not a macro, not the name being defined or bound, not a field before `:`.
fn may_name_an_item(tokens: &[Token], i: usize, next: usize, segments: usize) -> bool {
    let text = |k: Option<usize>| {
        k.and_then(|k| tokens.get(k))
            .map_or("", |t| t.text.as_str())
    };
    let (before, after) = (text(i.checked_sub(1)), text(Some(next)));
    if matches!(before, "." | "::" | "'") || after == "!" {
        return false;
    }
    let defining = [
        "fn", "struct", "enum", "trait", "type", "mod", "const", "static", "union", "let",
    ];
    // `let mut x`, `mut x: T` bind a name; `&mut T` and `*mut T` name a type.
    let binding_mut = before == "mut" && !matches!(text(i.checked_sub(2)), "&" | "*");
    segments > 1 || !(after == ":" || defining.contains(&before) || binding_mut)
}

/// Every item of another file that the module's code names, as (file, item, line), and every
/// trait it imports privately (for the trait's methods, which name nothing).
fn references(tree: &ModuleTree, module: usize) -> Vec<(usize, String, usize)> {
    let m = &tree.modules[module];
    let tokens = &tree.files[m.file].tokens;
    let file_of = |module: usize| tree.modules[module].file;
    let mut found = Vec::new();
    for &(from, to) in &m.code {
        let mut i = from;
        while i < to {
            let (path, next) = path_at(tokens, i, to);
            if !path.is_empty() && may_name_an_item(tokens, i, next, path.len()) {
                if let Some(Target::Item {
                    module: owner,
                    name,
                    ..
                }) = resolve(tree, module, &path, false, 0)
                {
                    if file_of(owner) != m.file {
                        found.push((file_of(owner), name, tokens[i].line));
                    }
                }
            }
            i = next;
        }
    }
    for import in m.imports.iter().filter(|i| !i.public && i.alias != "*") {
        if let Some(Target::Item {
            module: owner,
            name,
            kind,
        }) = resolve(tree, module, &import.path, false, 0)
        {
            if kind == "trait" && file_of(owner) != m.file {
                found.push((
                    file_of(owner),
                    format!("{name} (trait import)"),
                    import.line,
                ));
            }
        }
    }
    found
}

/// The file → file edges of one crate root (lib.rs or main.rs) and the files below it.
fn file_edges(root: &Path, read: Reader) -> Edges {
    let mut tree = ModuleTree::default();
    let mut edges = Edges::new();
    if load_file(&mut tree, root, None, read).is_none() {
        return edges;
    }
    for module in 0..tree.modules.len() {
        let from = &tree.files[tree.modules[module].file].path;
        for (file, item, line) in references(&tree, module) {
            let key = (from.clone(), tree.files[file].path.clone());
            let first = edges.entry(key).or_insert((item.clone(), line));
            if line < first.1 {
                *first = (item, line);
            }
        }
    }
    edges
}

/// A circle of sibling files: their directory (relative to the scanned base), their sorted
/// names, and one item named along each edge inside the circle.
#[derive(Debug, PartialEq)]
struct Circle {
    dir: String,
    files: Vec<String>,
    edges: Vec<String>,
}

/// File name → file name → the example item, for the files of one directory.
type FileGraph = BTreeMap<String, BTreeMap<String, String>>;

/// The circles among sibling files, per directory; `mod.rs`, `lib.rs` and `main.rs` are left
/// out (they declare and re-export their siblings, so they would join every circle).
fn file_circles(edges: &Edges, base: &Path) -> Vec<Circle> {
    let roots = ["mod.rs", "lib.rs", "main.rs"];
    let name_of = |p: &Path| {
        p.file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned())
    };
    let mut graphs: BTreeMap<String, FileGraph> = BTreeMap::new();
    for ((from, to), (item, line)) in edges {
        let (a, b) = (name_of(from), name_of(to));
        if from == to
            || from.parent() != to.parent()
            || roots.contains(&a.as_str())
            || roots.contains(&b.as_str())
        {
            continue;
        }
        let dir = from.parent().unwrap_or(Path::new(""));
        let dir = dir
            .strip_prefix(base)
            .unwrap_or(dir)
            .to_string_lossy()
            .replace('\\', "/");
        let example = format!("{item} (line {line})");
        graphs
            .entry(dir)
            .or_default()
            .entry(a)
            .or_default()
            .insert(b, example);
    }
    let mut circles = Vec::new();
    for (dir, graph) in &graphs {
        for files in strongly_connected(graph) {
            let mut edges = Vec::new();
            for from in &files {
                for (to, example) in &graph[from] {
                    if files.contains(to) {
                        edges.push(format!("{from} → {to}: {example}"));
                    }
                }
            }
            circles.push(Circle {
                dir: dir.clone(),
                files,
                edges,
            });
        }
    }
    circles
}

/// The nodes reachable from `from` in one step or more.
fn reachable(graph: &FileGraph, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(node) = stack.pop() {
        for next in graph.get(&node).into_iter().flat_map(|edges| edges.keys()) {
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    seen
}

/// The strongly connected components of more than one node, each sorted: the nodes that reach
/// a node and are reached from it (by repeated search; a directory holds few files).
fn strongly_connected(graph: &FileGraph) -> Vec<Vec<String>> {
    let reach: BTreeMap<&String, BTreeSet<String>> = graph
        .keys()
        .map(|node| (node, reachable(graph, node)))
        .collect();
    let mut placed = BTreeSet::new();
    let mut components = Vec::new();
    for (node, from_node) in &reach {
        if placed.contains(*node) {
            continue;
        }
        let component: Vec<String> = from_node
            .iter()
            .filter(|other| reach.get(other).is_some_and(|r| r.contains(*node)))
            .cloned()
            .collect();
        if component.len() > 1 {
            placed.extend(component.iter().cloned());
            components.push(component);
        }
    }
    components
}

/// Every crate under `crates/` with a `src/`, from each of its roots; also the number of file →
/// file edges seen, so a blind scan cannot pass.
fn workspace_file_circles() -> (Vec<Circle>, usize) {
    let crates = crate_dir("");
    let read = |path: &Path| fs::read_to_string(path).ok();
    let mut dirs: Vec<PathBuf> = fs::read_dir(&crates)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    dirs.sort();
    let mut edges = Edges::new();
    for dir in dirs {
        for root in ["lib.rs", "main.rs"] {
            let root = dir.join("src").join(root);
            if root.is_file() {
                edges.extend(file_edges(&root, &read));
            }
        }
    }
    (file_circles(&edges, &crates), edges.len())
}

#[test]
fn the_circle_scan_finds_files_naming_each_other_and_skips_one_way_edges() {
    let sources: BTreeMap<PathBuf, &str> = [
        ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;"),
        ("src/a.rs", "use crate::b::Bee;\npub struct Ay;\npub fn make() -> Bee { Bee }"),
        ("src/b.rs", "pub struct Bee;\nfn back() -> super::a::Ay {\n    crate::a::Ay\n}"),
        (
            "src/c.rs",
            "use crate::a::Ay;\npub struct Sea(Ay); // crate::d::Dee\nconst S: &str = \"d::Dee\";\n\
             #[cfg(test)]\nmod tests { fn t(_: crate::d::Dee) {} }",
        ),
        ("src/d.rs", "pub struct Dee(crate::c::Sea);"),
        ("src/e/mod.rs", "mod f;\nmod g;\npub use f::Eff;\npub use g::Gee;\nfn h(_: Eff, _: Gee) {}"),
        ("src/e/f.rs", "pub struct Eff(super::Gee);"),
        ("src/e/g.rs", "pub struct Gee;\nimpl Gee { fn f(_: super::Eff) {} }"),
    ]
    .into_iter()
    .map(|(path, text)| (PathBuf::from(path), text))
    .collect();
    let read = |path: &Path| sources.get(path).map(|text| text.to_string());
    let edges = file_edges(Path::new("src/lib.rs"), &read);
    let circle = |dir: &str, files: [&str; 2], edges: [&str; 2]| Circle {
        dir: dir.to_string(),
        files: files.map(String::from).to_vec(),
        edges: edges.map(String::from).to_vec(),
    };
    assert_eq!(
        file_circles(&edges, Path::new("")),
        vec![
            circle(
                "src",
                ["a.rs", "b.rs"],
                ["a.rs → b.rs: Bee (line 3)", "b.rs → a.rs: Ay (line 2)"]
            ),
            circle(
                "src/e",
                ["f.rs", "g.rs"],
                ["f.rs → g.rs: Gee (line 1)", "g.rs → f.rs: Eff (line 2)"]
            ),
        ]
    );
}

#[test]
fn no_file_circles_within_a_module() {
    let (circles, edges) = workspace_file_circles();
    assert!(edges > 300, "found only {edges} file → file edges");
    let same = |dir: &str, files: &[&str], circle: &Circle| {
        circle.dir == dir
            && files
                .iter()
                .copied()
                .eq(circle.files.iter().map(String::as_str))
    };
    let new: Vec<String> = circles
        .iter()
        .filter(|c| {
            !KNOWN_CIRCLES
                .iter()
                .any(|(dir, files, _)| same(dir, files, c))
        })
        .map(|c| {
            format!(
                "{}: {{{}}}\n    {}",
                c.dir,
                c.files.join(", "),
                c.edges.join("\n    ")
            )
        })
        .collect();
    let stale: Vec<String> = KNOWN_CIRCLES
        .iter()
        .filter(|(dir, files, _)| !circles.iter().any(|c| same(dir, files, c)))
        .map(|(dir, files, _)| format!("{dir}: {{{}}}", files.join(", ")))
        .collect();
    let mut problems = String::new();
    if !new.is_empty() {
        problems += &format!(
            "files naming each other in a circle (each names an item of the next); move the shared \
             items into one file or a lower one, or list the circle in KNOWN_CIRCLES with the \
             reason:\n{}\n",
            new.join("\n")
        );
    }
    if !stale.is_empty() {
        problems += &format!(
            "KNOWN_CIRCLES entries no longer found as they are listed (untangled, or their files \
             changed); remove the entry, or update it to the circle above:\n{}\n",
            stale.join("\n")
        );
    }
    assert!(problems.is_empty(), "{problems}");
}
