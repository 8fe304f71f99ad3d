//! Pictures of scalinglaws results, from the library's result types only: a small picture
//! model (`figure`), the plots built from fits, frontiers and bootstrap draws (`kinds`), and
//! the embedded font (`font`). SVG for reports, PNG for slides; no system fonts needed.

#![allow(clippy::result_large_err)] // the library's Error, as in the library: rare and cold.

pub mod figure;
pub mod font;
pub mod kinds;

pub use figure::{png, svg, svg_scaled, Axis, DrawError, Figure, Layer, Legend, Page};
