//! The Python face of the library's workflows, generated: for every workflow of
//! `scalinglaws::for_each_workflow!`, a function whose keywords, types, defaults and docs are
//! its spec's JSON Schema, and frozen result classes whose fields are its document's schema.
//! The file (`crates/scalinglaws-py/python/scalinglaws/_workflows.py`) is never edited by
//! hand: this test fails when it differs from what the schemas give, and
//! `SCALINGLAWS_BLESS=1 cargo test --release -p scalinglaws --test integration -- python_workflows::`
//! rewrites it. So a setting added to a spec reaches Python with no hand edit.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use scalinglaws::workflow::{Input, Workflow};
use schemars::schema_for;
use serde_json::Value;

/// What the generator reads of one workflow.
struct Entry {
    name: &'static str,
    summary: &'static str,
    /// What it reads: `table`, `optional_table`, `fit`, `schedule_fit` or `optional_fit`.
    input: &'static str,
    spec: Value,
    output: Value,
}

macro_rules! entries {
    ($($name:ident => $workflow:ty),* $(,)?) => {
        [$(Entry {
            name: <$workflow as Workflow>::NAME,
            summary: <$workflow as Workflow>::SUMMARY,
            input: <<$workflow as Workflow>::Input as Input>::KIND,
            spec: inlined(schema_for!(<$workflow as Workflow>::Request).to_value()),
            output: inlined(schema_for!(<$workflow as Workflow>::Output).to_value()),
        }),*]
    };
}

/// The schema with every reference to a definition that is not an object (a choice of
/// shapes, `where`'s text or texts), or that is a choice of tagged objects, replaced by the
/// definition: objects become classes, the rest are annotations (a choice of tagged objects a
/// `Union` of their classes).
fn inlined(mut schema: Value) -> Value {
    let defs = schema["$defs"].clone();
    inline(&mut schema, &defs);
    schema
}

fn inline(value: &mut Value, defs: &Value) {
    let target = value["$ref"]
        .as_str()
        .map(|r| r.rsplit('/').next().unwrap_or(r).to_string());
    let imported = target
        .as_deref()
        .is_some_and(|name| IMPORTED.contains(&name));
    if let Some(def) = target
        .map(|name| &defs[name.as_str()])
        .filter(|_| !imported)
    {
        if def["type"] != "object" || def["oneOf"].is_array() {
            // The definition's shape, with the reference's own description and default.
            let mut shape = def.clone();
            for (key, own) in value.as_object().into_iter().flatten() {
                if key != "$ref" {
                    shape[key] = own.clone();
                }
            }
            *value = shape;
        }
    }
    match value {
        Value::Object(map) => map.values_mut().for_each(|v| inline(v, defs)),
        Value::Array(items) => items.iter_mut().for_each(|v| inline(v, defs)),
        _ => {}
    }
}

const HEADER: &str = r#""""The library's workflows (``scalinglaws::workflow``), generated from their JSON Schemas by
``crates/scalinglaws/tests/integration/python_workflows.rs``: do not edit; regenerate with
``SCALINGLAWS_BLESS=1 cargo test --release -p scalinglaws --test integration -- python_workflows::``.

Each function takes the data (a path, a dict of columns or a DataFrame) and the workflow's
settings as keywords, checks each by its annotation, and returns the workflow's document as a
typed result: ``print(result)`` is the command's report, ``result.to_dict()`` the document that
``scalinglaws NAME --json`` writes."""

from __future__ import annotations

from dataclasses import dataclass
# Any and ClassVar: the base class's annotations are resolved in this module too.
from typing import Any, ClassVar, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from . import _scalinglaws
from ._data import DataLike, call_with_data
from ._fit import Fit, dump, warn_caveats, warn_threads
from ._keywords import Count, Rows, checked
from ._results import (
    BudgetsFrame,
    CandidatesFrame,
    CellsFrame,
    CooldownFrame,
    CurveFrame,
    DesignFrame,
    EnvelopePointsFrame,
    FitCaveat,
    FrontierFrame,
    ForecastsFrame,
    HeldOutBudgetsFrame,
    IsoflopGroupsFrame,
    LawsFrame,
    OptimizedScheduleFrame,
    PredictionsFrame,
    Result,
    ScheduleComparisonFrame,
    ScheduleFitFrame,
    SelectedPredictionsFrame,
    SplitsFrame,
    TracksFrame,
    _fit_json,
)
"#;

/// Hand-written methods a generated class takes from a base in `_results.py`, by class: a view
/// the schema cannot give (a DataFrame of a curve).
const BASES: &[(&str, &str)] = &[
    ("SchedulePrediction", "CurveFrame"),
    ("PredictedCurve", "CurveFrame"),
    ("ScheduleFit", "ScheduleFitFrame"),
    ("LrAnalysis", "CellsFrame"),
    ("DownstreamAnalysis", "ForecastsFrame"),
    ("Backtest", "SplitsFrame"),
    ("Isoflop", "BudgetsFrame"),
    ("Envelope", "EnvelopePointsFrame"),
    ("IsoflopBacktest", "HeldOutBudgetsFrame"),
    ("IsoflopAnalysis", "IsoflopGroupsFrame"),
    ("LawComparison", "LawsFrame"),
    ("Selection", "CandidatesFrame"),
    ("SelectionResult", "SelectedPredictionsFrame"),
    ("TrackComparison", "TracksFrame"),
    ("DesignAnalysis", "DesignFrame"),
    ("Frontier", "FrontierFrame"),
    ("CooldownTable", "CooldownFrame"),
    ("ScheduleComparison", "ScheduleComparisonFrame"),
    ("OptimizedSchedule", "OptimizedScheduleFrame"),
    ("Predictions", "PredictionsFrame"),
];

/// Result types written by hand in `_results.py` that generated classes refer to by name (a
/// fit's caveats, shared with `Fit.caveats`): imported, not generated.
const IMPORTED: &[&str] = &["FitCaveat"];

/// Documents whose class is written by hand, by title: `fit`'s `Fit` (`_fit.py`: prediction,
/// pictures and the page over the document, with the data fitted beside it). The function
/// returns it (`Fit._from_native`); no class is generated.
const HAND_WRITTEN: &[&str] = &["Fit"];

/// A generated class: the class it extends (a tagged variant's content), and its text.
#[derive(Clone, PartialEq)]
struct Class {
    base: Option<String>,
    text: String,
}

/// The whole generated module.
fn module(entries: &[Entry]) -> String {
    let mut classes = BTreeMap::new();
    let mut aliases = BTreeMap::new();
    let mut functions = String::new();
    for entry in entries {
        let result = title(&entry.output);
        if !HAND_WRITTEN.contains(&result.as_str()) {
            collect_classes(&entry.output, &mut classes);
            collect_aliases(&entry.output, &mut aliases);
        }
        functions += &function(entry, &result);
    }
    let mut names: Vec<String> = entries.iter().map(|e| e.name.to_string()).collect();
    names.extend(classes.keys().cloned());
    names.extend(aliases.keys().cloned());
    let mut out = String::from(HEADER);
    let listed: Vec<String> = names.iter().map(|n| format!("    \"{n}\",\n")).collect();
    let _ = write!(out, "\n__all__ = [\n{}]\n", listed.concat());
    let mut written = Vec::new();
    for name in classes.keys() {
        write_class(name, &classes, &mut written, &mut out);
    }
    for alias in aliases.values() {
        out += alias;
    }
    out + &functions
}

/// A choice of tagged objects by its name, as a `Union` of their classes (written after every
/// class): `IsoflopCandidate = Union[ProfilesCandidate, JointCandidate]`.
fn collect_aliases(schema: &Value, aliases: &mut BTreeMap<String, String>) {
    for (name, def) in schema["$defs"].as_object().into_iter().flatten() {
        if IMPORTED.contains(&name.as_str()) {
            continue;
        }
        let Some(variants) = def["oneOf"].as_array() else {
            continue;
        };
        let titles: Option<Vec<&str>> = variants
            .iter()
            .map(|v| v["title"].as_str().filter(|_| v["type"] == "object"))
            .collect();
        if let Some(titles) = titles {
            let about = quoted(def["description"].as_str().unwrap_or(""), "");
            let alias = format!("\n\n{name} = Union[{}]\n{about}\n", titles.join(", "));
            if let Some(before) = aliases.insert(name.clone(), alias.clone()) {
                assert!(
                    before == alias,
                    "two result types are named {name}: rename one"
                );
            }
        }
    }
}

/// The class `name`, after the class it extends (Python needs a base defined first).
fn write_class(
    name: &str,
    classes: &BTreeMap<String, Class>,
    written: &mut Vec<String>,
    out: &mut String,
) {
    if written.iter().any(|w| w == name) {
        return;
    }
    let class = &classes[name];
    if let Some(base) = &class.base {
        write_class(base, classes, written, out);
    }
    written.push(name.to_string());
    *out += &class.text;
}

fn title(schema: &Value) -> String {
    schema["title"]
        .as_str()
        .expect("a titled schema")
        .to_string()
}

/// The schema's object and every object it defines, as result classes by name; a choice of
/// tagged objects (a Rust enum with `#[serde(tag = "...")]`, flattened or not) gives a class
/// per variant, named by its title, extending the class of the variant's content.
/// Two workflows' types of one name must be one type: a second shape under a name is a
/// panic (give one a schema name of its own, `#[schemars(rename = "...")]`).
fn collect_classes(schema: &Value, classes: &mut BTreeMap<String, Class>) {
    let mut add = |name: &str, class: Class| {
        if let Some(before) = classes.insert(name.to_string(), class.clone()) {
            assert!(
                before == class,
                "two result types are named {name}: rename one"
            );
        }
    };
    add(&title(schema), class(&title(schema), schema, false));
    let Some(defs) = schema["$defs"].as_object() else {
        return;
    };
    for (name, def) in defs.iter().filter(|(n, _)| !IMPORTED.contains(&n.as_str())) {
        match def["oneOf"].as_array() {
            Some(variants) => {
                for variant in variants.iter().filter(|v| v["type"] == "object") {
                    let name = variant["title"]
                        .as_str()
                        .unwrap_or_else(|| panic!("a variant of {name} has no title"));
                    add(name, class(name, &with_shared_fields(variant, def), true));
                }
            }
            None if def["type"] == "object" => add(name, class(name, def, false)),
            None => {}
        }
    }
}

/// A tagged variant with the fields its enum's container holds beside the tag (a struct
/// that flattens the enum).
fn with_shared_fields(variant: &Value, container: &Value) -> Value {
    let mut merged = variant.clone();
    for (field, property) in container["properties"].as_object().into_iter().flatten() {
        merged["properties"][field] = property.clone();
    }
    let mut all = required(variant);
    all.extend(required(container));
    merged["required"] = serde_json::json!(all);
    merged
}

/// Python's keywords (`keyword.kwlist`) that a JSON key may be: the field is the key with `_`
/// after it.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// A frozen result class with the object's properties as fields; a tagged `variant` (an
/// object with a title, its tag a constant field and its content by reference) extends its
/// content's class and says its tag.
fn class(name: &str, schema: &Value, variant: bool) -> Class {
    let content = schema["$ref"]
        .as_str()
        .map(|r| hint(&serde_json::json!({"$ref": r}), Face::Output));
    let bases = match (&content, BASES.iter().find(|(class, _)| *class == name)) {
        (Some(content), _) => content.clone(),
        (None, Some((_, base))) => format!("{base}, Result"),
        (None, None) => "Result".to_string(),
    };
    let mut out = format!("\n\n@dataclass(frozen=True, repr=False)\nclass {name}({bases}):\n");
    let _ = writeln!(out, "    {}\n", docstring(schema, "    "));
    let fields = properties(schema);
    let tag = fields.iter().find(|(_, p)| p.get("const").is_some());
    if let (Some((key, property)), true) = (tag, variant) {
        let _ = writeln!(
            out,
            "    _tag: ClassVar[Tuple[str, str]] = (\"{key}\", {})\n",
            property["const"]
        );
    }
    let renamed: Vec<&String> = fields
        .iter()
        .map(|(key, _)| key)
        .filter(|key| KEYWORDS.contains(&key.as_str()))
        .collect();
    if !renamed.is_empty() {
        let mut pairs: Vec<String> = renamed
            .iter()
            .map(|k| format!("\"{k}_\": \"{k}\""))
            .collect();
        // A variant's content may rename fields of its own.
        if let Some(content) = &content {
            pairs.insert(0, format!("**{content}._key"));
        }
        let _ = writeln!(
            out,
            "    _key: ClassVar[Dict[str, str]] = {{{}}}\n",
            pairs.join(", ")
        );
    }
    for (key, property) in &fields {
        let field = match KEYWORDS.contains(&key.as_str()) {
            true => format!("{key}_"),
            false => key.clone(),
        };
        let _ = writeln!(out, "    {field}: {}", hint(property, Face::Output));
        if let Some(text) = property["description"].as_str() {
            let _ = writeln!(out, "    {}", quoted(text, "    "));
        }
    }
    Class {
        base: content,
        text: out,
    }
}

/// The object's properties in a stable order: the required ones first, each group by name.
fn properties(schema: &Value) -> Vec<(String, Value)> {
    let required = required(schema);
    let mut all: Vec<(String, Value)> = schema["properties"]
        .as_object()
        .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    all.sort_by_key(|(name, _)| (!required.contains(name), name.clone()));
    all
}

fn required(schema: &Value) -> Vec<String> {
    schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Which side of the call a type is on: keywords take any mapping or sequence; results hold
/// dicts and lists.
#[derive(Clone, Copy, PartialEq)]
enum Face {
    Input,
    Output,
}

/// The Python annotation of a schema.
fn hint(schema: &Value, face: Face) -> String {
    // A tagged variant is its own class, though it refers to its content's.
    if let (Some(title), "object") = (
        schema["title"].as_str(),
        schema["type"].as_str().unwrap_or(""),
    ) {
        return title.to_string();
    }
    if let Some(reference) = schema["$ref"].as_str() {
        return reference
            .rsplit('/')
            .next()
            .unwrap_or(reference)
            .to_string();
    }
    if schema["x-python"] == "rows" && face == Face::Input {
        // A list of runs, or a DataFrame's numeric columns as its rows (`_keywords.Rows`).
        return "Rows".to_string();
    }
    if let Some(value) = schema.get("const") {
        return format!("Literal[{value}]");
    }
    let choices = schema["anyOf"].as_array().or(schema["oneOf"].as_array());
    if let Some(choices) = choices {
        let (nulls, others): (Vec<&Value>, Vec<&Value>) =
            choices.iter().partition(|c| c["type"] == "null");
        let inner: Vec<String> = others.iter().map(|c| hint(c, face)).collect();
        let literals: Option<Vec<&str>> = inner
            .iter()
            .map(|h| h.strip_prefix("Literal[")?.strip_suffix(']'))
            .collect();
        let joined = match (literals, inner.len()) {
            (Some(values), _) => format!("Literal[{}]", values.join(", ")),
            (None, 1) => inner[0].clone(),
            (None, _) => format!("Union[{}]", inner.join(", ")),
        };
        return optional(joined, !nulls.is_empty());
    }
    match &schema["type"] {
        Value::Array(types) => {
            let kind = types.iter().find(|t| *t != "null").cloned();
            let mut one = schema.clone();
            one["type"] = kind.unwrap_or(Value::Null);
            optional(hint(&one, face), types.iter().any(|t| t == "null"))
        }
        Value::String(kind) => plain(kind, schema, face),
        _ => "object".to_string(),
    }
}

/// `hint` as `Optional[...]`, unless it is one already.
fn optional_once(hint: String) -> String {
    let nullable = !hint.starts_with("Optional[");
    optional(hint, nullable)
}

fn optional(hint: String, nullable: bool) -> String {
    if nullable {
        format!("Optional[{hint}]")
    } else {
        hint
    }
}

fn plain(kind: &str, schema: &Value, face: Face) -> String {
    match kind {
        "string" if schema["enum"].is_array() => {
            let choices: Vec<String> = schema["enum"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| format!("{c}"))
                .collect();
            format!("Literal[{}]", choices.join(", "))
        }
        "string" => "str".into(),
        "number" => "float".into(),
        // A count (Rust's usize: `minimum` 0) is checked as one where it is given.
        "integer" if face == Face::Input && schema["minimum"] == 0 => "Count".into(),
        "integer" => "int".into(),
        "boolean" => "bool".into(),
        "object" => {
            let value = hint(&schema["additionalProperties"], face);
            match face {
                Face::Input => format!("Mapping[str, {value}]"),
                Face::Output => format!("Dict[str, {value}]"),
            }
        }
        "array" => array(schema, face),
        other => panic!("no Python type for the schema type '{other}'"),
    }
}

fn array(schema: &Value, face: Face) -> String {
    if let Some(items) = schema["prefixItems"].as_array() {
        let inner: Vec<String> = items.iter().map(|i| hint(i, face)).collect();
        return format!("Tuple[{}]", inner.join(", "));
    }
    let item = hint(&schema["items"], face);
    let fixed = schema["minItems"]
        .as_u64()
        .filter(|n| Some(*n) == schema["maxItems"].as_u64());
    match (fixed, face) {
        (Some(n), _) if n <= 4 => format!("Tuple[{}]", vec![item; n as usize].join(", ")),
        (_, Face::Input) => format!("Sequence[{item}]"),
        (_, Face::Output) => format!("List[{item}]"),
    }
}

/// The workflow's function: the data, `schedule` (or `schedules`), `law` and `formula` (or the
/// candidates' `laws` and `formulas`) positional when the spec has them, then the spec's
/// keywords (required first), then `delimiter` for text data.
fn function(entry: &Entry, result: &str) -> String {
    let spec = &entry.spec;
    let keywords = properties(spec);
    // `law` is positional as the other of `formula` (a law's name, not lr's form).
    let has_formula = keywords.iter().any(|(n, _)| n == "formula");
    let positional: Vec<&str> = [
        "schedule",
        "schedules",
        "law",
        "formula",
        "laws",
        "formulas",
    ]
    .into_iter()
    .filter(|name| *name != "law" || has_formula)
    .collect();
    let table = matches!(entry.input, "table" | "optional_table" | "log_tables");
    let mut out = match entry.input {
        "optional_fit" => format!(
            "\n\n@checked\ndef {}(\n    fit: Optional[Fit] = None,\n",
            entry.name
        ),
        "fit" => format!("\n\n@checked\ndef {}(\n    fit: Fit,\n", entry.name),
        "table" | "log_tables" => {
            format!("\n\n@checked\ndef {}(\n    data: DataLike,\n", entry.name)
        }
        "optional_table" => format!(
            "\n\n@checked\ndef {}(\n    data: Optional[DataLike] = None,\n",
            entry.name
        ),
        "schedule_fit" => format!(
            "\n\n@checked\ndef {}(\n    fit: Union[ScheduleFit, Mapping[str, Any]],\n",
            entry.name
        ),
        other => panic!(
            "{}: no Python face for the input kind '{other}'",
            entry.name
        ),
    };
    let required = required(spec);
    for name in positional.iter().copied() {
        if let Some((_, property)) = keywords.iter().find(|(n, _)| n == name) {
            let hinted = hint(property, Face::Input);
            let _ = match required.iter().any(|r| r == name) {
                true => writeln!(out, "    {name}: {hinted},"),
                false => writeln!(out, "    {name}: {} = None,", optional_once(hinted)),
            };
        }
    }
    out += "    *,\n";
    for (name, property) in keywords
        .iter()
        .filter(|(n, _)| !positional.contains(&n.as_str()))
    {
        let _ = writeln!(
            out,
            "    {}",
            keyword(name, property, required.contains(name))
        );
    }
    if table {
        out += "    delimiter: Optional[str] = None,\n";
    }
    let _ = writeln!(out, ") -> {result}:");
    let _ = writeln!(out, "    {}", function_doc(entry, &keywords));
    out += "    spec = {\n";
    for (name, _) in &keywords {
        let _ = writeln!(out, "        \"{name}\": {name},");
    }
    out += "    }\n";
    if keywords.iter().any(|(name, _)| name == "threads") {
        // The library's warning of a count above its cap, at the user's line (past `@checked`).
        out += "    warn_threads(threads, 4)\n";
    }
    if entry.input == "schedule_fit" {
        let _ = write!(
            out,
            "    return {result}._from_native(\n        _scalinglaws.run_workflow(\n            _fit_json(fit),\n            \"{}\",\n            dump({{k: v for k, v in spec.items() if v is not None}}),\n        )\n    )\n",
            entry.name
        );
        return out;
    }
    let caveats = entry.output["properties"]["fit_caveats"].is_object();
    if matches!(entry.input, "table" | "log_tables") && !caveats {
        let _ = write!(
            out,
            "    return {result}._from_native(\n        call_with_data(\n            _scalinglaws.run_workflow,\n            data,\n            delimiter,\n            \"{}\",\n            dump({{k: v for k, v in spec.items() if v is not None}}),\n        )\n    )\n",
            entry.name
        );
        return out;
    }
    out += "    spec_json = dump({k: v for k, v in spec.items() if v is not None})\n";
    let native = match entry.input {
        // A fit, or none (the spec names its own law).
        "optional_fit" => format!(
            "_scalinglaws.run_workflow(None if fit is None else fit.to_json(), \"{}\", spec_json)",
            entry.name
        ),
        "fit" => format!(
            "_scalinglaws.run_workflow(fit.to_json(), \"{}\", spec_json)",
            entry.name
        ),
        _ => format!(
            "call_with_data(_scalinglaws.run_workflow, data, delimiter, \"{}\", spec_json)",
            entry.name
        ),
    };
    match entry.input {
        // No data and no delimiter: the workflow runs on none (a delimiter alone is refused).
        "optional_table" => {
            let _ = write!(
                out,
                "    if data is None and delimiter is None:\n        native = _scalinglaws.run_workflow(None, \"{}\", spec_json)\n    else:\n        native = {native}\n",
                entry.name
            );
        }
        _ => {
            let _ = writeln!(out, "    native = {native}");
        }
    }
    let _ = writeln!(out, "    result = {result}._from_native(native)");
    if caveats {
        // Each caveat of the fit it rests on, as a FitCaveatWarning at the user's line.
        out += "    warn_caveats([caveat.to_dict() for caveat in result.fit_caveats])\n";
    }
    out + "    return result\n"
}

/// One keyword: its annotation, and its default (None where the default is empty or none).
fn keyword(name: &str, property: &Value, required: bool) -> String {
    let annotation = hint(property, Face::Input);
    if required {
        return format!("{name}: {annotation},");
    }
    let default = match &property["default"] {
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{s:?}"),
        _ => "None".to_string(),
    };
    let annotation = match default.as_str() {
        "None" if !annotation.starts_with("Optional[") => format!("Optional[{annotation}]"),
        _ => annotation,
    };
    format!("{name}: {annotation} = {default},")
}

/// The function's docstring: the workflow's summary, then each keyword's description.
fn function_doc(entry: &Entry, keywords: &[(String, Value)]) -> String {
    let mut text = format!(
        "{}. The same document as the command line's ``--json``. It runs with the GIL released, \
         on a worker thread that Ctrl-C stops (KeyboardInterrupt; nothing else changes).\n\n",
        entry.summary
    );
    // What the first argument is, by the input kind.
    text += match entry.input {
        "table" => "- ``data``: The runs: a file path (.csv, .tsv, .jsonl, .parquet), a dict of columns or a pandas or polars DataFrame.\n",
        "log_tables" => "- ``data``: The training logs, one row per logged step: a file path, a dict of columns or a DataFrame.\n",
        "optional_table" => "- ``data``: The runs, if any: a file path, a dict of columns or a DataFrame (None: none, where the settings allow it).\n",
        "optional_fit" => "- ``fit``: A :class:`Fit` (None: the settings name a law of their own).\n",
        "fit" => "- ``fit``: A :class:`Fit`.\n",
        _ => "- ``fit``: A :class:`ScheduleFit`, or its document as a dict.\n",
    };
    for (name, property) in keywords {
        let about = property["description"].as_str().unwrap_or("");
        let _ = writeln!(text, "- ``{name}``: {}", about.replace('\n', " "));
    }
    if matches!(entry.input, "table" | "optional_table" | "log_tables") {
        text += "- ``delimiter``: The delimiter of a text file of runs (None: by its extension).";
    }
    quoted(&text, "    ")
}

/// A schema's description as a docstring.
fn docstring(schema: &Value, indent: &str) -> String {
    quoted(schema["description"].as_str().unwrap_or(""), indent)
}

/// A Python docstring of `text` (Rust's `code` as ``code``), wrapped, its lines after
/// `indent`.
fn quoted(text: &str, indent: &str) -> String {
    let text = text
        .replace("``", "`")
        .replace('`', "``")
        .replace("\"\"\"", "'''");
    let text = single_quoted_roles(&text);
    let lines: Vec<String> = text
        .lines()
        .flat_map(|line| wrapped(line, 96 - indent.len()))
        .collect();
    let body = lines
        .iter()
        .map(|line| match line.is_empty() {
            true => String::new(),
            false => format!("{indent}{line}"),
        })
        .collect::<Vec<_>>()
        .join("\n");
    let body = body.strip_prefix(indent).unwrap_or(&body);
    if lines.len() > 1 {
        format!("\"\"\"{body}\n{indent}\"\"\"")
    } else {
        format!("\"\"\"{body}\"\"\"")
    }
}

/// `text` with each role's target in reST's one quote (`:class:``Fit``` is `:class:`Fit``):
/// the doubling of Rust's code quotes above doubles a role's too.
fn single_quoted_roles(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(":class:``") {
        let target = &rest[at + ":class:``".len()..];
        let Some(end) = target.find("``") else { break };
        out += &rest[..at];
        out += &format!(":class:`{}`", &target[..end]);
        rest = &target[end + 2..];
    }
    out + rest
}

/// `line` broken at spaces into lines of at most `width` characters (a list item's later
/// lines indented under its text).
fn wrapped(line: &str, width: usize) -> Vec<String> {
    let hang = if line.starts_with("- ") { "  " } else { "" };
    let mut lines = vec![String::new()];
    for word in line.split(' ') {
        let last = lines.last_mut().expect("a line");
        if !last.trim().is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            lines.push(format!("{hang}{word}"));
        } else if last.is_empty() {
            last.push_str(word);
        } else {
            last.push(' ');
            last.push_str(word);
        }
    }
    lines
}

fn target() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scalinglaws-py/python/scalinglaws/_workflows.py")
}

#[test]
fn the_python_module_is_what_the_schemas_give() {
    let generated = module(&scalinglaws::for_each_workflow!(entries));
    let path = target();
    if std::env::var_os("SCALINGLAWS_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write _workflows.py");
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == generated,
        "{} is not what the workflows' schemas give: run SCALINGLAWS_BLESS=1 cargo test --release \
         -p scalinglaws --test integration -- python_workflows:: and commit it",
        path.display()
    );
}

#[test]
fn every_schema_type_has_a_python_annotation() {
    let int_or_null = serde_json::json!({"type": ["integer", "null"]});
    assert_eq!(hint(&int_or_null, Face::Input), "Optional[int]");
    let pair = serde_json::json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2});
    assert_eq!(hint(&pair, Face::Output), "Tuple[float, float]");
    let names = serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}});
    assert_eq!(hint(&names, Face::Input), "Mapping[str, str]");
    assert_eq!(hint(&names, Face::Output), "Dict[str, str]");
    let one_or_many = serde_json::json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]});
    assert_eq!(hint(&one_or_many, Face::Input), "Union[str, Sequence[str]]");
}

/// A generated class must not share its name with a hand-written one: `from ._workflows import *`
/// would shadow the package's own (the sweep's frontier once hid `optimal`'s `Frontier`).
#[test]
fn no_generated_class_shadows_a_hand_written_one() {
    let generated = module(&scalinglaws::for_each_workflow!(entries));
    // Classes, and type aliases (`IsoflopCandidate = Union[...]`, `Interval = Tuple[...]`).
    let classes = |text: &str| -> Vec<String> {
        let class = |line: &str| {
            let rest = line.strip_prefix("class ")?;
            Some(rest.split(['(', ':']).next().unwrap_or(rest).to_string())
        };
        let alias = |line: &str| {
            let (name, _) = line.split_once(" = ")?;
            let named = name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            named.then(|| name.to_string())
        };
        text.lines()
            .filter_map(|line| class(line).or_else(|| alias(line)))
            .collect()
    };
    let ours = classes(&generated);
    let package = target().parent().expect("the package folder").to_path_buf();
    for entry in std::fs::read_dir(&package).expect("the package folder") {
        let path = entry.expect("an entry").path();
        let is_hand_written = path.extension().is_some_and(|e| e == "py") && path != target();
        if !is_hand_written {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a module");
        for name in classes(&text) {
            assert!(
                !ours.contains(&name),
                "{} defines {name}, and so does a generated class: give the Rust type another \
                 schema name (#[schemars(rename = \"...\")])",
                path.display()
            );
        }
    }
}
