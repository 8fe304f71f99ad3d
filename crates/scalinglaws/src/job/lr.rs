//! The learning-rate job: which columns hold N, D, lr (and B), and the analysis's settings;
//! `run` reads them from a table and runs the LR (and batch-size) analysis. The command line
//! and Python build this job.

use serde::{Deserialize, Serialize};

use crate::analysis::lr::{lr_analysis, LrAnalysis, LrData, LrSettings};
use crate::data::recipe::Table;
use crate::error::Result;

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
        let dialect = table.dialect();
        let why = "the LR laws take its log";
        let positive =
            |column: &str, role: &str| table.positive_values(column, &dialect.option(role), why);
        let data = LrData {
            size: positive(&self.size, "size")?,
            tokens: positive(&self.tokens, "tokens")?,
            lr: positive(&self.lr, "lr")?,
            loss: table.values(target, &dialect.option("target"))?,
            batch: self
                .batch
                .as_deref()
                .map(|b| positive(b, "batch"))
                .transpose()?,
            ..LrData::default()
        };
        let mut used = vec![self.lr.as_str(), &self.size, &self.tokens, target];
        used.extend(self.batch.as_deref());
        let data = data.with_others(table, &used);
        let settings = LrSettings {
            dialect,
            ..self.settings.clone()
        };
        lr_analysis(&data, &settings)
    }
}
