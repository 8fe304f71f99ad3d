//! The report of `laws`: the catalog of built-in laws with formula, variables, parameters and
//! citation.

use scalinglaws::error::Wording;
use scalinglaws::law::catalog::LawInfo;
use serde::Serialize;

/// The catalog as `laws --json` writes it.
#[derive(Serialize)]
pub struct Listing {
    pub laws: Vec<LawInfo>,
}

impl scalinglaws::document::Document for Listing {
    const KIND: &'static str = "laws";
}

impl crate::Report for Listing {
    type Json = Listing;
    fn json_value(&self) -> &Listing {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        render(&self.laws)
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
        "\n`bnsl:K` gives a broken power law with K breaks (1 to 4); `mixing:K` and \
         `mixture_additive:K` take K training domains (2 to 6). \
         Fit any other law with --formula \"TEXT\".\n",
    );
    out
}
