//! The lab's one error type: a setting of a simulation that cannot be run (out of range,
//! inconsistent, or beyond the caps that keep a run bounded). Like the engine's errors it names
//! the setting by a key (`dimension`, `seeds`, ...) that each front end words as its own option
//! (`--dimension` in the CLI, `dimension=` in Python), and says how to fix it.

/// Why a simulation cannot be run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LabError {
    /// A setting out of range: `key` names it, `message` says what is wrong and the fix.
    #[error("{key}: {message}")]
    Setting { key: &'static str, message: String },
}

impl LabError {
    pub fn setting(key: &'static str, message: impl Into<String>) -> Self {
        LabError::Setting {
            key,
            message: message.into(),
        }
    }
}

pub type Result<T> = std::result::Result<T, LabError>;

/// Refuses a list that names a value twice (`what` is one entry's name, e.g. "dimension").
pub fn refuse_repeats(key: &'static str, what: &str, values: &[usize]) -> Result<()> {
    match values
        .iter()
        .enumerate()
        .find(|(i, v)| values[..*i].contains(v))
    {
        Some((i, v)) => Err(LabError::setting(
            key,
            format!("{v} appears more than once (entry {i}); give each {what} once"),
        )),
        None => Ok(()),
    }
}
