//! Markdown for a reader who pastes a report into a pull request or a wiki: `[[Section]]`s
//! become headings, tables become pipe tables (GitHub-flavoured), and what has no markdown
//! shape (aligned notes) stays in fenced blocks so that its columns survive.

use std::fmt::Write as _;

/// A GitHub-flavoured pipe table: the first row is the header; columns listed in `left` are
/// left-aligned, the others right-aligned (as the text tables are).
pub fn table<R: AsRef<[String]>>(rows: &[R], left: &[usize]) -> String {
    let Some((header, body)) = rows.split_first() else {
        return String::new();
    };
    let mut out = String::new();
    let line = |cells: &[String]| {
        let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    out.push_str(&line(header.as_ref()));
    let rule: Vec<&str> = (0..header.as_ref().len())
        .map(|c| if left.contains(&c) { ":---" } else { "---:" })
        .collect();
    let _ = writeln!(out, "| {} |", rule.join(" | "));
    for row in body {
        out.push_str(&line(row.as_ref()));
    }
    out
}

/// A table cell: pipes escaped, an empty cell kept visible.
fn cell(text: &str) -> String {
    let text = text.trim().replace('|', "\\|");
    if text.is_empty() {
        " ".to_string()
    } else {
        text
    }
}

/// A level-3 heading.
pub fn heading(title: &str) -> String {
    format!("### {}\n\n", title.trim())
}

/// Text kept as typed (columns aligned) in a fenced block; nothing for empty text.
pub fn fenced(text: &str) -> String {
    let text = text.trim_matches('\n');
    if text.trim().is_empty() {
        return String::new();
    }
    format!("```text\n{text}\n```\n\n")
}

/// `label: value` rows as a bullet list (values of several lines joined by "; ").
pub fn bullets(rows: &[(&str, String)]) -> String {
    let mut out = String::new();
    for (label, value) in rows {
        let value: Vec<&str> = value.lines().map(str::trim).collect();
        let _ = writeln!(out, "- **{label}**: {}", value.join("; "));
    }
    out.push('\n');
    out
}

/// A text report in markdown: each `[[Section]] rest` line becomes a heading (and the rest a
/// paragraph), the lines between sections a fenced block.
pub fn from_text(text: &str) -> String {
    let mut out = String::new();
    let mut block = String::new();
    for line in text.lines() {
        match section(line) {
            Some((title, rest)) => {
                out.push_str(&fenced(&block));
                block.clear();
                out.push_str(&heading(title));
                if !rest.is_empty() {
                    let _ = writeln!(out, "{rest}\n");
                }
            }
            None => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    out.push_str(&fenced(&block));
    out.trim_end().to_string() + "\n"
}

/// "[[Title]] rest" as (Title, rest).
fn section(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix("[[")?;
    let (title, rest) = rest.split_once("]]")?;
    Some((title, rest.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_like_the_text_tables() {
        let rows = vec![
            vec!["name".to_string(), "value".to_string()],
            vec!["E".to_string(), "1.8|2".to_string()],
        ];
        assert_eq!(
            table(&rows, &[0]),
            "| name | value |\n| :--- | ---: |\n| E | 1.8\\|2 |\n"
        );
    }

    #[test]
    fn sections_become_headings() {
        let text = "[[Backtest]] by C\n    ARE  1%\n[[Split 1]]\n    x\n";
        assert_eq!(
            from_text(text),
            "### Backtest\n\nby C\n\n```text\n    ARE  1%\n```\n\n### Split 1\n\n```text\n    x\n```\n"
        );
    }
}
