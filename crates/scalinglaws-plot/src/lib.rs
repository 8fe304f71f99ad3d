//! Pictures of scalinglaws results, from plain values only: what to draw (`inputs`: points,
//! curves, bands, frontiers that an analysis computed), a small picture model (`figure`), the
//! plots built from those values (`kinds`), and the embedded font (`font`). SVG for reports, PNG for slides; no system fonts needed. The crate
//! depends on no part of the library: it computes nothing a reader could check against a
//! report (`scalinglaws-report::plots` turns the library's results into its inputs). It knows
//! nothing of the lab, whose pages (`scalinglaws_lab::pages`) are drawn with its picture model.

pub mod figure;
pub mod font;
pub mod inputs;
pub mod kinds;

pub use figure::{png, svg, svg_scaled, Axis, DrawError, Figure, Layer, Legend, Page};
