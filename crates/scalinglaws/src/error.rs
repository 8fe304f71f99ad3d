//! The library's one error type: every failure a caller can act on, each naming where it
//! happened (file, row, column, character position) and how to fix it.

use thiserror::Error;

/// Where in a data file a problem sits. Rows are 1-based data rows (the header is not a row);
/// `line` is the 1-based line of the file when the reader knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub row: Option<usize>,
    pub line: Option<usize>,
    pub column: Option<String>,
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
            write!(f, ", column '{column}'")?;
        }
        Ok(())
    }
}

#[derive(Debug, Error)]
pub enum Error {
    /// A formula that does not parse, or uses an unknown function. `position` is the 0-based
    /// character offset into `formula`; the message shows it 1-based with a caret.
    #[error("formula error at character {}: {message}\n  {formula}\n  {caret}^", position + 1, caret = " ".repeat(*position))]
    Formula {
        formula: String,
        position: usize,
        message: String,
    },

    /// A law name not in the catalog.
    #[error("unknown law '{name}'{}; `scalinglaws laws` lists them", suggestion.as_ref().map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default())]
    UnknownLaw {
        name: String,
        suggestion: Option<String>,
    },

    /// Bad data: the location names file/row/column and `fix` says what to do.
    #[error("{location}: {message}; {fix}")]
    Data {
        location: Location,
        message: String,
        fix: String,
    },

    /// Settings that contradict the law or each other (unknown parameter in --fix, empty bound).
    #[error("{message}")]
    Settings { message: String },

    /// The fit could not be done (no start gave a finite objective, singular design, ...).
    #[error("fit failed: {message}")]
    Fit { message: String },

    /// An error inside one named setting (`--derive`, `where`, ...), which leads the message.
    /// (Not a `source`: the message already holds the inner one.)
    #[error("{setting}: {inner}")]
    Within { setting: String, inner: Box<Error> },

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
    pub fn settings(message: impl Into<String>) -> Self {
        Error::Settings {
            message: message.into(),
        }
    }

    pub fn fit(message: impl Into<String>) -> Self {
        Error::Fit {
            message: message.into(),
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

    /// This error inside the named setting.
    pub fn within(self, setting: impl Into<String>) -> Self {
        Error::Within {
            setting: setting.into(),
            inner: Box::new(self),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
