//! Every JSON document the tool writes says what it is: `kind`, the workflow that wrote it
//! (`fit`, `optimal`, `schedule_fit`, ...), and `schema_version`, the layout it follows. A
//! reader then knows a document by its first keys instead of guessing from the rest, and every
//! face (the command line's JSON output, Python's results and saved files) writes the same two keys
//! through [`envelope`]. A leaf: which type is which kind is said in `job/documents.rs`, above
//! every result type.

use serde::{Serialize, Serializer};

/// The layout every document follows; a reader refuses another.
pub const SCHEMA_VERSION: u32 = 1;

/// A result written as a document of its own.
pub trait Document: Serialize {
    /// The workflow that writes it, as messages name it (`Mention::Writer`).
    const KIND: &'static str;
    /// Whether the type's own fields already hold `kind` (a schedule fit's) or
    /// `schema_version` (a fit's): the envelope then leaves them to it.
    const OWN_KIND: bool = false;
    const OWN_VERSION: bool = false;
}

/// `body` with `kind` and `schema_version` first, as every document is written.
pub struct Envelope<'a, T: ?Sized>(pub &'a T);

impl<T: Document + ?Sized> Serialize for Envelope<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Written<'a, T: ?Sized + Serialize> {
            #[serde(skip_serializing_if = "Option::is_none")]
            kind: Option<&'static str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            schema_version: Option<u32>,
            #[serde(flatten)]
            body: &'a T,
        }
        Written {
            kind: (!T::OWN_KIND).then_some(T::KIND),
            schema_version: (!T::OWN_VERSION).then_some(SCHEMA_VERSION),
            body: self.0,
        }
        .serialize(serializer)
    }
}

/// Every kind of document the tool writes (`job/documents.rs` checks that each type's kind is
/// here).
pub const KINDS: &[&str] = &["laws", "cooldown_study"];

macro_rules! workflow_kinds {
    ($($name:ident => $workflow:ty),* $(,)?) => {
        /// The kinds of the workflows of `crate::workflow`, each its workflow's name.
        const WORKFLOW_KINDS: &[&str] = &[$(stringify!($name)),*];
    };
}
crate::for_each_workflow!(workflow_kinds);

/// The kind a document's `kind` names, when it is one the tool writes.
pub fn known_kind(kind: &str) -> Option<&'static str> {
    KINDS
        .iter()
        .chain(WORKFLOW_KINDS)
        .copied()
        .find(|k| *k == kind)
}

/// `value` as the document it is.
pub fn envelope<T: Document + ?Sized>(value: &T) -> Envelope<'_, T> {
    Envelope(value)
}

/// A document held inside another (a group's fit) written as the document it is, so that it
/// can be cut out and read on its own: for `#[serde(serialize_with)]`.
pub fn nested<T: Document, S: Serializer>(
    value: &Option<T>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serializer.serialize_some(&envelope(value)),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Plain {
        a: u8,
    }

    impl Document for Plain {
        const KIND: &'static str = "plain";
    }

    #[test]
    fn the_kind_and_version_come_first() {
        let text = serde_json::to_string(&envelope(&Plain { a: 1 })).unwrap();
        assert_eq!(text, r#"{"kind":"plain","schema_version":1,"a":1}"#);
        assert_eq!(known_kind("optimal"), Some("optimal"));
        assert_eq!(known_kind("plain"), None);
    }
}
