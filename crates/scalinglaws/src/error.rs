//! The library's one error type: every failure a caller can act on, each naming where it
//! happened (file, row, column, character position) and how to fix it.
//!
//! The library speaks no front end's language. A message that refers to one of the caller's
//! settings holds a [`Mention`] of a [`Setting`] key, not the words for it; each front end
//! words the keys through its [`Wording`] when it shows the message (the command line as
//! `--fix NAME=VALUE`, Python as `fix={"NAME": VALUE}`), by [`Error::worded`] or
//! [`Text::worded`]. `Display` uses the [`Neutral`] wording (the settings' snake_case names).

use thiserror::Error;

/// A setting of the caller that a message can refer to. Its [`name`](Setting::name) is the
/// neutral snake_case name, which is also the Python keyword; the command line words it as an
/// option (`--holdout-top`) by its own table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Setting {
    Batch,
    Bootstrap,
    Bounds,
    Budget,
    By,
    Cluster,
    Curvature,
    Delimiter,
    Derive,
    Fix,
    Floor,
    Grid,
    Heteroscedastic,
    HoldoutFrac,
    HoldoutTop,
    InferenceTokens,
    Law,
    Map,
    MaxActive,
    MaxParams,
    MaxRise,
    MaxTokens,
    MaxDecades,
    Fraction,
    Seed,
    Method,
    Noise,
    Peak,
    Profile,
    Rolling,
    Rollout,
    Run,
    Schedule,
    Set,
    Shared,
    Space,
    Steps,
    Target,
    TargetLoss,
    Train,
    Warmup,
    Weights,
    Where,
    Baseline,
    Compute,
    Flops,
    Formula,
    Group,
    Lr,
    Size,
    Step,
    Tokens,
    Track,
    Loss,
    TotalParams,
    Envelope,
    Final,
    Threads,
    Family,
    Trials,
    Exposure,
    Nu,
    Dispersion,
    Task,
    Model,
    Chance,
    Holdout,
    OwnUntil,
    At,
    Anchors,
    Unseen,
    Goal,
    Runs,
    Spend,
    Draws,
    Simulations,
    PerDecade,
    TokensPerParam,
    MaxCost,
    Sequential,
    Candidates,
    /// The candidate laws of `select` and `compare-laws` by name (one flag each on the
    /// command line, a list in Python).
    Laws,
    /// The candidate laws of `select` and `compare-laws` as formulas.
    Formulas,
    Cost,
    Prior,
    PriorSd,
    MaxWork,
    Every,
    Level,
    Window,
    CellTolerance,
    /// Cooldown lengths (the schedule cooldown workflow's lengths).
    Len,
    /// Quality control of the runs (`qc`: warn, exclude or off).
    Qc,
    /// The cutoff of QC's modified z-scores.
    Cutoff,
    /// QC's relative tolerance of near-duplicate rows.
    DuplicateTolerance,
    /// The columns that place a run at one scale (QC's neighbours).
    Scale,
    /// Swept columns: a fit reads each cell's frontier (`data::sweep`).
    Sweep,
    /// How a schedule prediction's intervals are made (`bootstrap` or `profile`).
    Interval,
    /// Targets of `lr`'s predictions, (N, D) pairs.
    Predict,
    /// Rolling origins of `select` (most of them).
    Origins,
    /// How close (relative) two runs' budgets must be to share one (`isoflop`).
    Tolerance,
    /// `isoflop`'s held-out largest budgets.
    Backtest,
    /// The local curve through each IsoFLOP budget's minimum.
    Shape,
    /// Whether intervals beyond the data are calibrated (the command line's
    /// `--no-calibration` turns it off).
    Calibrate,
    /// Whether an optimised schedule's document lists every step's learning rate (the
    /// command line asks for it with `--schedule-csv`).
    WholeSchedule,
    /// The runs an IsoFLOP picture keeps: those whose columns read the given labels.
    Select,
}

impl Setting {
    /// Every setting, in the order of the enum (for the front ends' tables and their tests).
    pub const ALL: [Setting; 106] = [
        Setting::Batch,
        Setting::Bootstrap,
        Setting::Bounds,
        Setting::Budget,
        Setting::By,
        Setting::Cluster,
        Setting::Curvature,
        Setting::Delimiter,
        Setting::Derive,
        Setting::Fix,
        Setting::Floor,
        Setting::Grid,
        Setting::Heteroscedastic,
        Setting::HoldoutFrac,
        Setting::HoldoutTop,
        Setting::InferenceTokens,
        Setting::Law,
        Setting::Map,
        Setting::MaxActive,
        Setting::MaxParams,
        Setting::MaxRise,
        Setting::MaxTokens,
        Setting::MaxDecades,
        Setting::Fraction,
        Setting::Seed,
        Setting::Method,
        Setting::Noise,
        Setting::Peak,
        Setting::Profile,
        Setting::Rolling,
        Setting::Rollout,
        Setting::Run,
        Setting::Schedule,
        Setting::Set,
        Setting::Shared,
        Setting::Space,
        Setting::Steps,
        Setting::Target,
        Setting::TargetLoss,
        Setting::Train,
        Setting::Warmup,
        Setting::Weights,
        Setting::Where,
        Setting::Baseline,
        Setting::Compute,
        Setting::Flops,
        Setting::Formula,
        Setting::Group,
        Setting::Lr,
        Setting::Size,
        Setting::Step,
        Setting::Tokens,
        Setting::Track,
        Setting::Loss,
        Setting::TotalParams,
        Setting::Envelope,
        Setting::Final,
        Setting::Threads,
        Setting::Family,
        Setting::Trials,
        Setting::Exposure,
        Setting::Nu,
        Setting::Dispersion,
        Setting::Task,
        Setting::Model,
        Setting::Chance,
        Setting::Holdout,
        Setting::OwnUntil,
        Setting::At,
        Setting::Anchors,
        Setting::Unseen,
        Setting::Goal,
        Setting::Runs,
        Setting::Spend,
        Setting::Draws,
        Setting::Simulations,
        Setting::PerDecade,
        Setting::TokensPerParam,
        Setting::MaxCost,
        Setting::Sequential,
        Setting::Candidates,
        Setting::Laws,
        Setting::Formulas,
        Setting::Cost,
        Setting::Prior,
        Setting::PriorSd,
        Setting::MaxWork,
        Setting::Every,
        Setting::Level,
        Setting::Window,
        Setting::CellTolerance,
        Setting::Len,
        Setting::Qc,
        Setting::Cutoff,
        Setting::DuplicateTolerance,
        Setting::Scale,
        Setting::Sweep,
        Setting::Interval,
        Setting::Predict,
        Setting::Origins,
        Setting::Tolerance,
        Setting::Backtest,
        Setting::Shape,
        Setting::Calibrate,
        Setting::WholeSchedule,
        Setting::Select,
    ];

    /// The neutral snake_case name (the Python keyword): `holdout_top`, `bounds`.
    pub fn name(self) -> &'static str {
        match self {
            Setting::Batch => "batch",
            Setting::Bootstrap => "bootstrap",
            Setting::Bounds => "bounds",
            Setting::Budget => "budget",
            Setting::By => "by",
            Setting::Cluster => "cluster",
            Setting::Curvature => "curvature",
            Setting::Delimiter => "delimiter",
            Setting::Derive => "derive",
            Setting::Fix => "fix",
            Setting::Floor => "floor",
            Setting::Grid => "grid",
            Setting::Heteroscedastic => "heteroscedastic",
            Setting::HoldoutFrac => "holdout_frac",
            Setting::HoldoutTop => "holdout_top",
            Setting::InferenceTokens => "inference_tokens",
            Setting::Law => "law",
            Setting::Map => "map",
            Setting::MaxActive => "max_active",
            Setting::MaxParams => "max_params",
            Setting::MaxRise => "max_rise",
            Setting::MaxTokens => "max_tokens",
            Setting::MaxDecades => "max_decades",
            Setting::Fraction => "fraction",
            Setting::Seed => "seed",
            Setting::Method => "method",
            Setting::Noise => "noise",
            Setting::Peak => "peak",
            Setting::Profile => "profile",
            Setting::Rolling => "rolling",
            Setting::Rollout => "rollout",
            Setting::Run => "run",
            Setting::Schedule => "schedule",
            Setting::Set => "set",
            Setting::Shared => "shared",
            Setting::Space => "space",
            Setting::Steps => "steps",
            Setting::Target => "target",
            Setting::TargetLoss => "target_loss",
            Setting::Train => "train",
            Setting::Warmup => "warmup",
            Setting::Weights => "weights",
            Setting::Where => "where",
            Setting::Baseline => "baseline",
            Setting::Compute => "compute",
            Setting::Flops => "flops",
            Setting::Formula => "formula",
            Setting::Group => "group",
            Setting::Lr => "lr",
            Setting::Size => "size",
            Setting::Step => "step",
            Setting::Tokens => "tokens",
            Setting::Track => "track",
            Setting::Loss => "loss",
            Setting::TotalParams => "total_params",
            Setting::Envelope => "envelope",
            Setting::Final => "final",
            Setting::Threads => "threads",
            Setting::Family => "family",
            Setting::Trials => "trials",
            Setting::Exposure => "exposure",
            Setting::Nu => "nu",
            Setting::Dispersion => "dispersion",
            Setting::Task => "task",
            Setting::Model => "model",
            Setting::Chance => "chance",
            Setting::Holdout => "holdout",
            Setting::OwnUntil => "own_until",
            Setting::At => "at",
            Setting::Anchors => "anchors",
            Setting::Unseen => "unseen",
            Setting::Goal => "goal",
            Setting::Runs => "runs",
            Setting::Spend => "spend",
            Setting::Draws => "draws",
            Setting::Simulations => "simulations",
            Setting::PerDecade => "per_decade",
            Setting::TokensPerParam => "tokens_per_param",
            Setting::MaxCost => "max_cost",
            Setting::Sequential => "sequential",
            Setting::Candidates => "candidates",
            Setting::Laws => "laws",
            Setting::Formulas => "formulas",
            Setting::Cost => "cost",
            Setting::Prior => "prior",
            Setting::PriorSd => "prior_sd",
            Setting::MaxWork => "max_work",
            Setting::Every => "every",
            Setting::Level => "level",
            Setting::Window => "window",
            Setting::CellTolerance => "cell_tolerance",
            Setting::Len => "len",
            Setting::Qc => "qc",
            Setting::Cutoff => "cutoff",
            Setting::DuplicateTolerance => "duplicate_tolerance",
            Setting::Scale => "scale",
            Setting::Sweep => "sweep",
            Setting::Interval => "interval",
            Setting::Predict => "predict",
            Setting::Origins => "origins",
            Setting::Tolerance => "tolerance",
            Setting::Backtest => "backtest",
            Setting::Shape => "shape",
            Setting::Calibrate => "calibrate",
            Setting::WholeSchedule => "whole_schedule",
            Setting::Select => "select",
        }
    }

    /// The setting as a whole: `--fix`, `fix=`.
    pub fn named(self) -> Mention {
        Mention::Name(self)
    }

    /// The setting as the subject or label of a sentence (`--fix names 'x'`, `where: ...`,
    /// `a map name`): `--fix`, `fix`.
    pub fn subject(self) -> Mention {
        Mention::Subject(self)
    }

    /// The setting given a text value (a column, a choice, a filter): `--space linear`,
    /// `space="linear"`.
    pub fn text(self, value: impl Into<String>) -> Mention {
        Mention::Value(self, Value::Text(value.into()))
    }

    /// The setting given a number (or a placeholder for one): `--holdout-top 3`,
    /// `holdout_top=3`.
    pub fn number(self, value: impl std::fmt::Display) -> Mention {
        Mention::Value(self, Value::Number(value.to_string()))
    }

    /// The switch turned off: `--no-calibration`, `calibrate=False`.
    pub fn off(self) -> Mention {
        Mention::Off(self)
    }

    /// The entry `key` of a keyed setting, on its own: `--bound alpha`, `bounds["alpha"]`.
    pub fn key(self, key: impl Into<String>) -> Mention {
        Mention::Key(self, key.into())
    }

    /// The entry `key` of a keyed setting with a text value: `--map N=COLUMN`,
    /// `map={"N": "COLUMN"}`.
    pub fn entry_text(self, key: impl Into<String>, value: impl Into<String>) -> Mention {
        Mention::Entry(self, key.into(), Value::Text(value.into()))
    }

    /// The entry `key` of a keyed setting with a number (or placeholder): `--fix NAME=VALUE`,
    /// `fix={"NAME": VALUE}`.
    pub fn entry_number(self, key: impl Into<String>, value: impl std::fmt::Display) -> Mention {
        Mention::Entry(self, key.into(), Value::Number(value.to_string()))
    }
}

/// The value a [`Mention`] gives a setting. A front end quotes text as its users type strings
/// and writes numbers (and placeholders for numbers such as `VALUE`) bare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    Number(String),
}

impl Value {
    /// The value as given, unquoted.
    pub fn raw(&self) -> &str {
        match self {
            Value::Text(text) | Value::Number(text) => text,
        }
    }
}

/// A reference, inside a message, to something the caller sets or runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mention {
    /// The setting itself: `--where`, `where=`.
    Name(Setting),
    /// The setting as the subject or label of a sentence: `--fix names 'x'`, `fix names 'x'`.
    Subject(Setting),
    /// The setting with a value: `--space linear`, `space="linear"`.
    Value(Setting, Value),
    /// One entry of a keyed setting, without its value: `--bound alpha`, `bounds["alpha"]`.
    Key(Setting, String),
    /// One entry of a keyed setting with its value: `--fix b=0.3`, `fix={"b": 0.3}`.
    Entry(Setting, String, Value),
    /// A switch turned off: `--no-calibration`, `calibrate=False`.
    Off(Setting),
    /// Where the catalog of laws is listed: `scalinglaws laws`, `scalinglaws.laws()`.
    LawList,
    /// What writes the JSON document of a workflow, by the workflow's snake_case name (`fit`,
    /// `compare_laws`, `schedule_fit`), for a sentence such as "the JSON written by ...": the
    /// command line's `scalinglaws fit --json`, Python's `Fit.save()`.
    Writer(&'static str),
}

/// How a front end words the [`Mention`]s in messages. The command line and the Python
/// package each have one table; [`Neutral`] is the library's own (used by `Display`).
pub trait Wording: Sync {
    fn word(&self, mention: &Mention) -> String;
}

/// The library's wording: settings by their snake_case names (`` `where` ``, `holdout_top=3`,
/// `fix["b"]=0.3`, `map["N"]="COLUMN"`; as a subject, `fix names 'x'`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Neutral;

impl Wording for Neutral {
    fn word(&self, mention: &Mention) -> String {
        let value = |value: &Value| match value {
            Value::Text(text) => format!("\"{text}\""),
            Value::Number(number) => number.clone(),
        };
        match mention {
            Mention::Name(setting) => format!("`{}`", setting.name()),
            Mention::Subject(setting) => setting.name().to_string(),
            Mention::Value(setting, v) => format!("{}={}", setting.name(), value(v)),
            Mention::Key(setting, key) => format!("{}[\"{key}\"]", setting.name()),
            Mention::Entry(setting, key, v) => {
                format!("{}[\"{key}\"]={}", setting.name(), value(v))
            }
            Mention::Off(setting) => format!("{}=false", setting.name()),
            Mention::LawList => "the catalog of laws".to_string(),
            Mention::Writer(workflow) => format!("the `{workflow}` workflow"),
        }
    }
}

/// One piece of a [`Text`]: words as they are, or a mention each front end words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Literal(String),
    Mention(Mention),
}

impl From<&str> for Part {
    fn from(text: &str) -> Self {
        Part::Literal(text.to_string())
    }
}

impl From<String> for Part {
    fn from(text: String) -> Self {
        Part::Literal(text)
    }
}

impl From<&String> for Part {
    fn from(text: &String) -> Self {
        Part::Literal(text.clone())
    }
}

impl From<Mention> for Part {
    fn from(mention: Mention) -> Self {
        Part::Mention(mention)
    }
}

impl From<Setting> for Part {
    fn from(setting: Setting) -> Self {
        Part::Mention(Mention::Name(setting))
    }
}

/// A message that may refer to settings: literal words and [`Mention`]s, worded by the front
/// end that shows it ([`Text::worded`]); `Display` words it [`Neutral`]ly. Build one with
/// [`text!`](crate::text) or from a string (a text without mentions).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    parts: Vec<Part>,
}

/// A [`Text`] from its pieces in order: strings are literal words, [`Setting`]s and
/// [`Mention`]s are worded by the front end, and [`Text`]s are spliced in.
/// `text!["bound the parameters with ", Setting::Bounds, " or give starts with ", Setting::Grid]`.
#[macro_export]
macro_rules! text {
    ($($piece:expr),* $(,)?) => {
        $crate::error::Text::concat(vec![$($crate::error::Text::from($piece)),*])
    };
}

impl Text {
    pub fn from_parts(parts: Vec<Part>) -> Self {
        Text { parts }
    }

    /// The texts one after the other.
    pub fn concat(texts: Vec<Text>) -> Self {
        Text {
            parts: texts.into_iter().flat_map(|text| text.parts).collect(),
        }
    }

    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// The text in the words of `wording`.
    pub fn worded(&self, wording: &dyn Wording) -> String {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Literal(text) => text.clone(),
                Part::Mention(mention) => wording.word(mention),
            })
            .collect()
    }

    /// This text after `before` and before `after` (literal words, or texts with mentions).
    pub fn around(self, before: impl Into<Text>, after: impl Into<Text>) -> Text {
        let mut parts = before.into().parts;
        parts.extend(self.parts);
        parts.extend(after.into().parts);
        Text { parts }
    }

    /// Whether the text, in the library's words, contains `needle`.
    pub fn contains(&self, needle: &str) -> bool {
        self.to_string().contains(needle)
    }

    /// Whether the text, in the library's words, starts with `prefix`.
    pub fn starts_with(&self, prefix: &str) -> bool {
        self.to_string().starts_with(prefix)
    }

    /// The texts one after the other with `separator` between them.
    pub fn join(texts: impl IntoIterator<Item = Text>, separator: &str) -> Text {
        let mut parts = Vec::new();
        for (i, text) in texts.into_iter().enumerate() {
            if i > 0 {
                parts.push(Part::from(separator));
            }
            parts.extend(text.parts);
        }
        Text { parts }
    }

    /// This text with `before` in front (`"track 'a': "`).
    pub fn after(self, before: impl Into<Text>) -> Text {
        self.around(before, Text::default())
    }

    /// This text with every literal part rewritten by `rewrite` (the mentions kept).
    pub fn map_literals(self, rewrite: impl Fn(&str) -> String) -> Text {
        let parts = self
            .parts
            .into_iter()
            .map(|part| match part {
                Part::Literal(text) => Part::Literal(rewrite(&text)),
                mention => mention,
            })
            .collect();
        Text { parts }
    }

    /// The first setting the text mentions.
    pub fn first_setting(&self) -> Option<Setting> {
        self.parts.iter().find_map(|part| match part {
            Part::Mention(
                Mention::Name(setting)
                | Mention::Subject(setting)
                | Mention::Value(setting, _)
                | Mention::Key(setting, _)
                | Mention::Entry(setting, _, _)
                | Mention::Off(setting),
            ) => Some(*setting),
            _ => None,
        })
    }

    pub fn is_empty(&self) -> bool {
        self.parts
            .iter()
            .all(|part| matches!(part, Part::Literal(text) if text.is_empty()))
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.worded(&Neutral))
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Text::from_parts(vec![Part::from(text)])
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Text::from_parts(vec![Part::from(text)])
    }
}

impl From<&String> for Text {
    fn from(text: &String) -> Self {
        Text::from_parts(vec![Part::from(text)])
    }
}

impl From<Mention> for Text {
    fn from(mention: Mention) -> Self {
        Text::from_parts(vec![Part::from(mention)])
    }
}

impl From<Setting> for Text {
    fn from(setting: Setting) -> Self {
        Text::from_parts(vec![Part::from(setting)])
    }
}

impl From<&Text> for Text {
    fn from(text: &Text) -> Self {
        text.clone()
    }
}

/// A text in a saved result is its [`Neutral`] wording, so that a document is the same
/// whichever front end wrote it; each front end words the text it shows from the result in
/// memory. Read back, it is literal words.
impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

/// In a document's schema a text is a string (its neutral wording).
impl schemars::JsonSchema for Text {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Text".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        String::deserialize(deserializer).map(Text::from)
    }
}

/// Where in a data file a problem sits. Rows are 1-based data rows (the header is not a row);
/// `line` is the 1-based line of the file when the reader knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub row: Option<usize>,
    pub line: Option<usize>,
    pub column: Option<String>,
}

/// 1,000,000.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Characters of a user's text (a cell, a column name) a message quotes whole; a longer one
/// is cut with its length stated, so that a 50 MB cell gives a readable line.
pub const MAX_QUOTED_CHARS: usize = 80;

/// `text` as a message quotes it: whole up to [`MAX_QUOTED_CHARS`] characters, else its
/// start, an ellipsis and its length (`"aaaa…" (5,000,000 characters)`, debug-quoted when
/// `debug`).
pub fn clipped(text: &str, debug: bool) -> String {
    let count = text.chars().count();
    if count <= MAX_QUOTED_CHARS {
        return match debug {
            true => format!("{text:?}"),
            false => text.to_string(),
        };
    }
    let start: String = text.chars().take(MAX_QUOTED_CHARS / 2).collect();
    let length = thousands(count);
    match debug {
        true => format!("{:?} ({length} characters)", format!("{start}…")),
        false => format!("{start}… ({length} characters)"),
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(row) = self.row {
            write!(f, ", row {row}")?;
            if let Some(line) = self.line {
                write!(f, " (line {line})")?;
            }
        }
        if let Some(column) = &self.column {
            write!(f, ", column '{}'", clipped(column, false))?;
        }
        Ok(())
    }
}

/// Every variant's `Display` is [`Error::worded`] in the [`Neutral`] wording; the front ends
/// call `worded` with theirs.
#[derive(Debug, Error)]
pub enum Error {
    /// A formula that does not parse, or uses an unknown function. `position` is the 0-based
    /// character offset into `formula`; the message shows it 1-based with a caret.
    #[error("{}", self.worded(&Neutral))]
    Formula {
        formula: String,
        position: usize,
        message: Text,
    },

    /// A law name not in the catalog (the message points to where the catalog is listed).
    #[error("{}", self.worded(&Neutral))]
    UnknownLaw {
        name: String,
        suggestion: Option<String>,
    },

    /// Bad data: the location names file/row/column and `fix` says what to do.
    #[error("{}", self.worded(&Neutral))]
    Data {
        location: Location,
        message: Text,
        fix: Text,
    },

    /// Settings that contradict the law or each other (an unknown parameter in `fix`, an
    /// empty bound). `key` is the setting at fault when one is.
    #[error("{}", self.worded(&Neutral))]
    Settings { key: Option<Setting>, message: Text },

    /// The fit could not be done (no start gave a finite objective, singular design, ...).
    #[error("{}", self.worded(&Neutral))]
    Fit { message: Text },

    /// An error inside one named setting (`derive`, `where`, ...), which leads the message.
    /// (Not a `source`: the message already holds the inner one.)
    #[error("{}", self.worded(&Neutral))]
    Within { setting: Text, inner: Box<Error> },

    /// The caller interrupted the work through its [`crate::Interrupt`] (Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,

    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Settings that contradict each other or the law, no one setting at fault.
    pub fn settings(message: impl Into<Text>) -> Self {
        Error::Settings {
            key: None,
            message: message.into(),
        }
    }

    /// The setting `key` is at fault; the message says how.
    pub fn setting(key: Setting, message: impl Into<Text>) -> Self {
        Error::Settings {
            key: Some(key),
            message: message.into(),
        }
    }

    pub fn fit(message: impl Into<Text>) -> Self {
        Error::Fit {
            message: message.into(),
        }
    }

    /// The message in the words of a front end (`--fix` for the command line, `fix=` for
    /// Python): what its users read.
    pub fn worded(&self, wording: &dyn Wording) -> String {
        self.text().worded(wording)
    }

    /// The message as a [`Text`], its mentions of settings kept for a front end to word: what
    /// a result stores when an error becomes part of it (a split that could not be fitted).
    pub fn text(&self) -> Text {
        match self {
            Error::Formula {
                formula,
                position,
                message,
            } => {
                let (shown, caret) = formula_excerpt(formula, *position);
                let at = format!("formula error at character {}: ", position + 1);
                let excerpt = format!("\n  {shown}\n  {}^", " ".repeat(caret));
                message.clone().around(at, excerpt)
            }
            Error::UnknownLaw { name, suggestion } => {
                let guess = suggestion
                    .as_ref()
                    .map(|s| format!(" (did you mean '{s}'?)"))
                    .unwrap_or_default();
                let head = format!("unknown law '{name}'{guess}; ");
                crate::text![head, Mention::LawList, " lists them"]
            }
            Error::Data {
                location,
                message,
                fix,
            } => crate::text![format!("{location}: "), message, "; ", fix],
            Error::Settings { message, .. } => message.clone(),
            Error::Fit { message } => message.clone().after("fit failed: "),
            Error::Within { setting, inner } => crate::text![setting, ": ", inner.text()],
            Error::Interrupted | Error::Io { .. } => Text::from(self.to_string()),
        }
    }

    /// The setting at fault: the key of a settings error, else the setting an error sits
    /// within, when it names one.
    pub fn key(&self) -> Option<Setting> {
        match self {
            Error::Settings { key, .. } => *key,
            Error::Within { setting, inner } => inner.key().or_else(|| setting.first_setting()),
            _ => None,
        }
    }

    /// True for errors caused by the caller's input (data, formula, settings), as opposed to a
    /// fit that could not be done. The CLI maps these to exit code 2.
    pub fn is_input_error(&self) -> bool {
        match self {
            Error::Fit { .. } | Error::Interrupted => false,
            Error::Within { inner, .. } => inner.is_input_error(),
            _ => true,
        }
    }

    /// True when the caller interrupted the work (see [`crate::Interrupt`]), also inside a
    /// setting.
    pub fn is_interrupted(&self) -> bool {
        match self {
            Error::Interrupted => true,
            Error::Within { inner, .. } => inner.is_interrupted(),
            _ => false,
        }
    }

    /// This error inside the named setting (a [`Setting`], a [`Mention`] such as
    /// `Setting::Map.entry_text("N", "params")`, or words).
    pub fn within(self, setting: impl Into<Text>) -> Self {
        Error::Within {
            setting: setting.into(),
            inner: Box::new(self),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A number as a message echoes it: the shortest digits that read back as the same value, in
/// scientific form when plain digits would be long (`1e300`, not 301 digits; `2.5e-7`), plain
/// otherwise (`0.001`, `24000`).
/// Characters of a formula a message shows on each side of the error's position: a long
/// formula is cut to this window (its length stated) rather than quoted whole.
const FORMULA_WINDOW: usize = 60;

/// The formula as a message shows it, and the caret's column in that text: the whole formula
/// when short, else the window around `position` with `…` at each cut and the length stated.
fn formula_excerpt(formula: &str, position: usize) -> (String, usize) {
    let chars: Vec<char> = formula.chars().collect();
    if chars.len() <= 2 * FORMULA_WINDOW {
        return (formula.to_string(), position);
    }
    let from = position.saturating_sub(FORMULA_WINDOW);
    let to = (position + FORMULA_WINDOW).min(chars.len());
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.extend(&chars[from..to]);
    if to < chars.len() {
        shown.push('…');
    }
    shown.push_str(&format!(" ({} characters in all)", chars.len()));
    (shown, position - from + usize::from(from > 0))
}

pub fn short_number(value: f64) -> String {
    let mut text = String::new();
    push_short_number(&mut text, value);
    text
}

/// [`short_number`] appended to `text` (no new string: for tables of many numbers).
pub fn push_short_number(text: &mut String, value: f64) {
    use std::fmt::Write;
    let magnitude = value.abs();
    // Writing to a String cannot fail.
    let _ = if magnitude == 0.0 || !magnitude.is_finite() || (1e-4..1e16).contains(&magnitude) {
        write!(text, "{value}")
    } else {
        write!(text, "{value:e}")
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wording that marks every mention, to see where the parts go.
    struct Marked;

    impl Wording for Marked {
        fn word(&self, mention: &Mention) -> String {
            match mention {
                Mention::Name(s) => format!("<{}>", s.name()),
                Mention::Subject(s) => format!("[{}]", s.name()),
                Mention::Value(s, v) => format!("<{} {}>", s.name(), v.raw()),
                Mention::Key(s, k) => format!("<{} {k}>", s.name()),
                Mention::Entry(s, k, v) => format!("<{} {k}={}>", s.name(), v.raw()),
                Mention::Off(s) => format!("<no {}>", s.name()),
                Mention::LawList => "<laws>".into(),
                Mention::Writer(workflow) => format!("<{workflow} json>"),
            }
        }
    }

    #[test]
    fn a_front_end_words_every_mention_and_display_is_neutral() {
        let error = Error::setting(
            Setting::Bounds,
            text![
                Setting::Bounds.key("b"),
                ": empty; see ",
                Setting::Where,
                " and ",
                Setting::HoldoutTop.number(3)
            ],
        );
        assert_eq!(
            error.worded(&Marked),
            "<bounds b>: empty; see <where> and <holdout_top 3>"
        );
        assert_eq!(
            error.to_string(),
            "bounds[\"b\"]: empty; see `where` and holdout_top=3"
        );
        assert_eq!(error.key(), Some(Setting::Bounds));
    }

    #[test]
    fn within_and_data_errors_word_their_parts() {
        let inner = Error::Data {
            location: Location {
                file: "runs.csv".into(),
                row: Some(2),
                line: None,
                column: Some("N".into()),
            },
            message: "not positive".into(),
            fix: text!["filter it out with ", Setting::Where],
        };
        let error = inner.within(Setting::Derive.subject());
        assert_eq!(
            error.worded(&Marked),
            "[derive]: runs.csv, row 2, column 'N': not positive; filter it out with <where>"
        );
        assert_eq!(error.key(), Some(Setting::Derive));
        assert!(error.is_input_error());
        let unknown = Error::UnknownLaw {
            name: "chinchila".into(),
            suggestion: Some("chinchilla".into()),
        };
        assert_eq!(
            unknown.worded(&Marked),
            "unknown law 'chinchila' (did you mean 'chinchilla'?); <laws> lists them"
        );
    }

    #[test]
    fn every_setting_has_a_distinct_snake_case_name() {
        let names: std::collections::BTreeSet<&str> =
            Setting::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), Setting::ALL.len());
        assert!(names
            .iter()
            .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
    }

    #[test]
    fn literal_rewrites_keep_the_mentions() {
        let text = text!["a_1 is off; use ", Setting::Fix].map_literals(|s| s.replace("a_1", "a"));
        assert_eq!(text.worded(&Marked), "a is off; use <fix>");
        assert_eq!(text.first_setting(), Some(Setting::Fix));
    }
}
