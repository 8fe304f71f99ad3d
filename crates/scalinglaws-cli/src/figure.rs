//! Where a picture goes: an SVG or PNG file by the output's extension, or SVG on stdout for
//! `-` (`plot`, and `schedule ... --plot`). A file is written whole, as every output is
//! (`output::write_file`), and named on stderr.

use std::path::Path;

use anyhow::{Context, Result};
use scalinglaws_plot::Page;

use crate::input_error;
use crate::output::{self, Destination};

/// Where the picture goes and how large it is (None: the page's own size).
#[derive(Debug, Clone)]
pub struct Output {
    pub destination: Destination,
    pub size: Option<(u32, u32)>,
}

/// Draws `page` to `output`: SVG or PNG by the file's extension, SVG on stdout.
pub fn write(page: &Page, output: &Output) -> Result<()> {
    let size = output.size.unwrap_or_else(|| page.default_size());
    match &output.destination {
        Destination::Stdout => output::write(&Destination::Stdout, &scalinglaws_plot::svg(page, size)?),
        Destination::File(path) => match extension(path).as_deref() {
            // Either format says where it went (on stderr), as `report` does.
            Some("svg") => {
                output::write(&output.destination, &scalinglaws_plot::svg(page, size)?)?;
                eprintln!("wrote {}", path.display());
                Ok(())
            }
            Some("png") => {
                let bytes = png_bytes(page, size)?;
                output::write_file(path, &bytes)?;
                eprintln!("wrote {}", path.display());
                Ok(())
            }
            _ => Err(input_error(format!(
                "-o {}: the picture's format comes from the extension: .svg or .png (or - for SVG on stdout)",
                path.display()
            ))),
        },
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension().map(|e| e.to_string_lossy().to_lowercase())
}

/// The PNG's bytes (drawn to a private temporary file, then written whole by the caller).
fn png_bytes(page: &Page, size: (u32, u32)) -> Result<Vec<u8>> {
    let temporary = std::env::temp_dir().join(format!(
        "scalinglaws-plot-{}-{}.png",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let drawn = scalinglaws_plot::png(page, size, &temporary);
    let bytes = drawn
        .map_err(anyhow::Error::from)
        .and_then(|()| std::fs::read(&temporary).context("reading the drawn PNG"));
    let _ = std::fs::remove_file(&temporary);
    bytes
}
