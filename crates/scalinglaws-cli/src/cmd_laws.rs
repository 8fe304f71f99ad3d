//! `scalinglaws laws`: the catalog of built-in laws, so that a user can pick a `--law` by its
//! formula and cite it, without reading the source.

use anyhow::Result;
use scalinglaws::law::catalog::{self, LawInfo};
use serde::Serialize;

use crate::output::{self, Destination};

#[derive(Serialize)]
struct Listing {
    laws: Vec<LawInfo>,
}

pub fn run(json: &Option<Destination>) -> Result<()> {
    let laws = catalog::listing()?;
    match json {
        Some(destination) => {
            let text = serde_json::to_string_pretty(&Listing { laws })?;
            output::write(destination, &text)
        }
        None => output::print(&render(&laws)),
    }
}

fn render(laws: &[LawInfo]) -> String {
    let mut out = String::new();
    for (index, law) in laws.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{}: {}\n", law.name, law.summary));
        let parts: Vec<&str> = law.formula.split(';').map(str::trim).collect();
        if let Some((body, definitions)) = parts.split_last() {
            out.push_str(&format!("    y = {body}\n"));
            for (i, definition) in definitions.iter().enumerate() {
                let lead = if i == 0 { "where" } else { "     " };
                out.push_str(&format!("      {lead} {definition}\n"));
            }
        }
        out.push_str(&format!(
            "    variables: {}; parameters: {}; residuals: {} space\n",
            law.variables.join(", "),
            law.parameters.join(", "),
            law.default_space
        ));
        out.push_str(&format!("    {}\n", law.citation));
    }
    out.push_str(
        "\n`bnsl:K` gives a broken power law with K breaks (1 to 4). \
         Fit any other law with --formula \"TEXT\".\n",
    );
    out
}
