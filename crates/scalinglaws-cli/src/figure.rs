//! Where a picture goes: an SVG or PNG file by the output's extension, or SVG on stdout for
//! `-` (`plot`, and `schedule ... --plot`). A file is written whole, as every output is
//! (`output::write_file_with`: a PNG is drawn into the temporary file beside its destination),
//! and named on stderr; a failure says "cannot write PATH: reason".

use std::path::Path;

use anyhow::Result;
use scalinglaws_plot::Page;

use crate::input_error;
use crate::output::{self, Destination};

/// Where the picture goes and how large it is (None: the page's own size), and the option
/// that named it (`-o` for `plot`, `--plot` beside another output), for its errors.
#[derive(Debug, Clone)]
pub struct Output {
    pub destination: Destination,
    pub size: Option<(u32, u32)>,
    pub option: &'static str,
}

/// Draws `page` to `output`: SVG or PNG by the file's extension, SVG on stdout.
pub fn write(page: &Page, output: &Output) -> Result<()> {
    let size = output.size.unwrap_or_else(|| page.default_size());
    match &output.destination {
        Destination::Stdout => {
            output::write(&Destination::Stdout, &scalinglaws_plot::svg(page, size)?)
        }
        Destination::File(path) => match extension(path).as_deref() {
            // Either format says where it went (on stderr), as `report` does.
            Some("svg") => {
                output::write(&output.destination, &scalinglaws_plot::svg(page, size)?)?;
                eprintln!("wrote {}", path.display());
                Ok(())
            }
            Some("png") => {
                // Drawn straight into the temporary file beside the destination.
                output::write_file_with(path, |file| {
                    scalinglaws_plot::png(page, size, file)
                        .map_err(|error| anyhow::anyhow!(draw_reason(&error.0)))
                })?;
                eprintln!("wrote {}", path.display());
                Ok(())
            }
            _ => check_format(output),
        },
    }
}

/// Refuses a file whose extension names no picture format (before any work is done).
pub fn check_format(output: &Output) -> Result<()> {
    match &output.destination {
        Destination::File(path) if !matches!(extension(path).as_deref(), Some("svg" | "png")) => {
            Err(input_error(format!(
                "{} {}: the picture's format comes from the extension: .svg or .png (or - for SVG on stdout)",
                output.option,
                path.display()
            )))
        }
        _ => Ok(()),
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension().map(|e| e.to_string_lossy().to_lowercase())
}

/// What went wrong drawing a PNG, in words: the operating system's message when the drawing
/// backend's report (a debug dump) carries one, else a plain sentence.
fn draw_reason(report: &str) -> String {
    const MESSAGE: &str = "message: \"";
    if let Some(start) = report.find(MESSAGE).map(|at| at + MESSAGE.len()) {
        if let Some(length) = report[start..].find('"') {
            return report[start..start + length].to_string();
        }
    }
    "the PNG could not be drawn or saved".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draw_reasons_are_words_not_dumps() {
        let dump = "BackendError(DrawingError(ImageError(IoError(Os { code: 28, kind: StorageFull, message: \"No space left on device\" }))))";
        assert_eq!(draw_reason(dump), "No space left on device");
        assert_eq!(
            draw_reason("FontError"),
            "the PNG could not be drawn or saved"
        );
    }
}
