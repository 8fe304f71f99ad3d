//! Which result is which kind of document (`crate::document`): the one list, here above every
//! result type so that the leaf that writes and reads the kinds imports none of them.

use crate::analysis::schedule::cooldown::CooldownStudy;
use crate::analysis::schedule::ScheduleFit;
use crate::document::Document;
use crate::fit::FitResult;
use crate::job::FitOutcome;
use crate::uncertainty::FitRecord;

impl Document for FitRecord {
    const KIND: &'static str = "fit";
    const OWN_VERSION: bool = true;
}

/// The fit workflow's output: its record is the document.
impl Document for FitOutcome {
    const KIND: &'static str = "fit";
    const OWN_VERSION: bool = true;
}

impl Document for FitResult {
    const KIND: &'static str = "fit";
    const OWN_VERSION: bool = true;
}

impl Document for ScheduleFit {
    const KIND: &'static str = "schedule_fit";
    const OWN_KIND: bool = true;
}

/// The other documents, by the type that holds each.
macro_rules! documents {
    ($($type:ty => $kind:literal),* $(,)?) => {
        $(impl Document for $type {
            const KIND: &'static str = $kind;
        })*
        /// Every kind this list gives a type.
        #[cfg(test)]
        const LISTED: &[&str] = &["fit", "schedule_fit", $($kind),*];
    };
}

documents! {
    CooldownStudy => "cooldown_study",
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind a type is given is one readers know, and every kind readers know but
    /// `laws` (the report crate's listing) is given to a type here.
    #[test]
    fn the_list_and_the_known_kinds_agree() {
        for kind in LISTED {
            assert!(crate::document::known_kind(kind).is_some(), "{kind}");
        }
        for kind in crate::document::KINDS {
            assert!(LISTED.contains(kind) || *kind == "laws", "{kind}");
        }
    }
}
