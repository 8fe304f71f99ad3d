//! The corpus of extrapolation errors behind the library's cross-study prior
//! (`scalinglaws::uncertainty::prior`): every public study in `../shared/data` fitted at
//! several cut-offs of its own scale, every held-out run's error recorded with its distance
//! beyond (or below) the fitted range and what the fit itself could see; the prior fitted to
//! it; and the leave-one-study-out check that the prior's intervals hold on a study it has never
//! seen. It is a crate of its own (not published) because it reads study files with their own
//! quirks, which the library must not know about.

pub mod corpus;
pub mod loso;
pub mod prior_file;
pub mod report;
pub mod studies;
