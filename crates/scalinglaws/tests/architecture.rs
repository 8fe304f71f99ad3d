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
        .map(|p| p.split(|c| c == '{').next().unwrap_or("").trim_end_matches(':').to_string())
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
    assert!(graph.contains_key("fit") && graph.contains_key("law"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between library rooms: {}", cycle.join(" → "));
    }
}

#[test]
fn the_lower_rooms_never_reach_up() {
    let graph = library_graph();
    let forbidden: &[(&str, &[&str])] = &[
        ("stats", &["law", "fit", "data", "uncertainty", "job", "report"]),
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
        assert!(reaching.is_empty(), "`{room}` imports {reaching:?}, a room above it");
    }
    for (room, uses) in &graph {
        if room.starts_with("analysis") {
            assert!(!uses.contains("job"), "`{room}` imports the job façade above it");
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
            assert!(lines <= 300, "{name}: {lines} lines (dispatch and exporter choice only)");
        }
    }
}
