//! Python's words for the settings the library's messages mention: the library names a
//! [`Setting`] by its key, whose snake_case name is the keyword of the Python functions, and
//! this one table words a mention as a user writes it in a call (`fix={"NAME": VALUE}`,
//! `space="linear"`, `bounds["alpha"]`). Every library error raised in Python is worded here,
//! the lab's too ([`lab_keyword`]).

use scalinglaws::error::{Mention, Setting, Value, Wording};

/// The Python package's wording of the library's mentions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Python;

/// A value as written in Python: text as a string literal, numbers bare.
fn value(value: &Value) -> String {
    match value {
        Value::Text(text) => format!("\"{text}\""),
        Value::Number(number) => number.clone(),
    }
}

/// What writes a workflow's JSON in Python (the command is named where Python writes none;
/// never with an option, which `speak_python` would reword as a keyword).
fn writer(workflow: &str) -> String {
    match workflow {
        "fit" => "`Fit.save()` (or the command `scalinglaws fit`)".to_string(),
        "predict" => "the command `scalinglaws predict`".to_string(),
        other => format!("`scalinglaws.{other}()`"),
    }
}

impl Wording for Python {
    fn word(&self, mention: &Mention) -> String {
        match mention {
            // The budget is the process's, not a keyword of each call.
            Mention::Value(Setting::MaxWork, v) => {
                format!("scalinglaws.set_max_work({})", value(v))
            }
            Mention::Name(Setting::MaxWork) | Mention::Subject(Setting::MaxWork) => {
                "scalinglaws.set_max_work()".to_string()
            }
            Mention::Name(setting) => format!("{}=", setting.name()),
            Mention::Subject(setting) => setting.name().to_string(),
            Mention::Value(setting, v) => format!("{}={}", setting.name(), value(v)),
            Mention::Key(setting, key) => format!("{}[\"{key}\"]", setting.name()),
            Mention::Entry(setting, key, v) => {
                format!("{}={{\"{key}\": {}}}", setting.name(), value(v))
            }
            Mention::Off(setting) => format!("{}=False", setting.name()),
            Mention::LawList => "scalinglaws.laws()".to_string(),
            Mention::Writer(workflow) => writer(workflow),
        }
    }
}

/// The keyword of `scalinglaws.lab` that sets the lab's setting `key` (the key of
/// `scalinglaws-lab`'s `LabError::Setting`), as a message names it: `seeds=`, `dimensions=`.
/// Three settings are made from keywords of other names (`lrs` from `lr=` and `steps=`,
/// `log_steps` from `per_decade=`, `decay_fraction` from `decay=`), and the learning-rate grids
/// of `sgd_scaling` are the lab's own, set by no keyword, so they are named as what they are.
/// (The command line's `sim` words the same keys as its options.)
pub(crate) fn lab_keyword(key: &str) -> String {
    match key {
        "lrs" => "lr=/steps=".to_string(),
        "log_steps" => "per_decade=".to_string(),
        "decay_fraction" => "decay=".to_string(),
        "sgd_lrs" | "signsgd_lrs" => format!("the learning-rate grid ({key})"),
        key => format!("{key}="),
    }
}
