//! (to be written)

use std::path::Path;

use super::StudySet;

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    Err(format!("{}: no loader yet", folder.display()))
}
