//! Where a fit takes its residuals (log or linear space). Its own file, below problem.rs and
//! family.rs, because both name it (the problem computes the residuals, a family reads them
//! back) and the problem names the family's row terms: here neither names the other for it.

use serde::{Deserialize, Serialize};

/// Where residuals are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Space {
    Log,
    Linear,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Log => "log",
            Space::Linear => "linear",
        }
    }
}
