//! The learning-rate job: which columns hold N, D, lr (and B), and the analysis's settings;
//! `run` reads them from a table and runs the LR (and batch-size) analysis. The command line
//! and Python build this job.

use serde::{Deserialize, Serialize};

use crate::analysis::lr::{lr_analysis, LrAnalysis, LrData, LrSettings};
use crate::data::recipe::Table;
use crate::error::{Result, Setting};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LrJob {
    pub lr: String,
    pub size: String,
    pub tokens: String,
    #[serde(default)]
    pub batch: Option<String>,
    #[serde(default)]
    pub settings: LrSettings,
}

impl LrJob {
    /// The sweep of `table` (its loss in `target`) analysed; the warnings use the table's
    /// words for settings.
    pub fn run(&self, table: &Table, target: &str) -> Result<LrAnalysis> {
        let why = "the LR laws take its log";
        let positive = |column: &str, role: Setting| table.positive_values(column, role, why);
        let data = LrData {
            size: positive(&self.size, Setting::Size)?,
            tokens: positive(&self.tokens, Setting::Tokens)?,
            lr: positive(&self.lr, Setting::Lr)?,
            loss: table.values(target, Setting::Target)?,
            batch: self
                .batch
                .as_deref()
                .map(|b| positive(b, Setting::Batch))
                .transpose()?,
            ..LrData::default()
        };
        let mut used = vec![self.lr.as_str(), &self.size, &self.tokens, target];
        used.extend(self.batch.as_deref());
        let data = data.with_others(table, &used);
        lr_analysis(&data, &self.settings)
    }
}
