//! The one font of every plot, embedded in the binary (DejaVu Sans; see fonts/README.md), so
//! that PNGs render identically with no system fonts and SVG text is measured the same way.

use std::sync::Once;

use plotters::style::FontStyle;

/// The family name every plot asks for.
pub const FAMILY: &str = "sans-serif";

static DEJAVU_SANS: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

/// Registers the embedded font with plotters (once per process).
pub fn register() {
    REGISTER.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            plotters::style::register_font(FAMILY, style, DEJAVU_SANS)
                .unwrap_or_else(|_| panic!("the embedded DejaVu Sans font does not parse"));
        }
    });
}
