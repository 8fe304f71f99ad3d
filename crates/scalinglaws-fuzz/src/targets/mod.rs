//! The fuzz targets, one file per kind of input, and [`Target`], which names them for the
//! driver, the corpus directories and the tests.

mod fit_json;
mod formula;
mod recipe;
mod schedule;
pub mod scratch;
mod selftest;
mod table;
mod work;

use crate::Signature;

/// One kind of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A CSV/TSV/JSONL file, read and prepared as `fit` reads its data.
    Table,
    /// A `formula`: parsed, compiled and evaluated with exact derivatives.
    Formula,
    /// `where`/`derive`/`map` lines applied to a small table.
    Recipe,
    /// Learning-rate schedule specs, parsed and evaluated against a saved schedule fit.
    Schedule,
    /// A saved fit's JSON (what `predict FIT.json` reads) and a prediction from it.
    FitJson,
    /// Option combinations of fit, grouped fits, compare and isoflop on a synthetic table: a
    /// run the work budget allows stays within it.
    Work,
    /// The driver's own check: panics, hangs, allocates or overflows its stack on command.
    Selftest,
}

impl Target {
    /// Every target a fuzz run covers (the self test is run only when named).
    pub const ALL: [Target; 6] = [
        Target::Table,
        Target::Formula,
        Target::Recipe,
        Target::Schedule,
        Target::FitJson,
        Target::Work,
    ];

    /// The name on the command line and of the corpus directory.
    pub fn name(self) -> &'static str {
        match self {
            Target::Table => "table",
            Target::Formula => "formula",
            Target::Recipe => "recipe",
            Target::Schedule => "schedule",
            Target::FitJson => "fit_json",
            Target::Work => "work",
            Target::Selftest => "selftest",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL
            .into_iter()
            .chain([Target::Selftest])
            .find(|t| t.name() == name)
    }

    /// Runs the target on one input: any answer but a panic (or a hang, or an allocation
    /// past the driver's limit) is a pass.
    pub fn run(self, input: &[u8]) -> Signature {
        match self {
            Target::Table => table::run(input),
            Target::Formula => formula::run(input),
            Target::Recipe => recipe::run(input),
            Target::Schedule => schedule::run(input),
            Target::FitJson => fit_json::run(input),
            Target::Work => work::run(input),
            Target::Selftest => selftest::run(input),
        }
    }

    /// Words and numbers worth splicing into this target's inputs, besides the generic ones.
    pub fn dictionary(self) -> &'static [&'static str] {
        match self {
            Target::Table => &[
                "%%csv\n",
                "%%tsv\n",
                "%%jsonl\n",
                "%%delim=;\n",
                "\"",
                ",",
                "\t",
                "\r\n",
                "{\"loss\":",
                "null",
                "true",
                "[1]",
            ],
            Target::Formula | Target::Recipe => &[
                "^",
                "*",
                "/",
                "(",
                ")",
                "exp(",
                "log(",
                "log10(",
                "sqrt(",
                "min(",
                "max(",
                "sigmoid(",
                "softplus(",
                "m4root(",
                ",",
                "where ",
                "derive ",
                "map ",
                " < ",
                " == ",
                "=",
                ";",
                "N",
                "D",
                "x",
            ],
            Target::Schedule => &[
                "cosine:",
                "wsd:",
                "constant:",
                "step:",
                "cooldowns:",
                "peak=",
                "warmup=",
                "steps=",
                "final=",
                "decay_start=",
                "decay=exp",
                "at=",
                "factor=",
                "every=",
                "len=",
                "/",
                ",",
            ],
            Target::FitJson => &[
                "{",
                "}",
                "[",
                "]",
                "\"params\"",
                "\"law\"",
                "\"formula\"",
                "\"schema_version\"",
                "\"residual_scale\"",
                "\"bootstrap\"",
                "null",
                "true",
                "\"kind\"",
            ],
            Target::Work => work::DICTIONARY,
            Target::Selftest => &[],
        }
    }
}

/// The input as text, or None when it is not UTF-8 (the command line reads text files).
pub(crate) fn text(input: &[u8]) -> Option<&str> {
    std::str::from_utf8(input).ok()
}
