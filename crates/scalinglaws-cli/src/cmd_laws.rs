//! `scalinglaws laws`: the catalog of built-in laws, so that a user can pick a `--law` by its
//! formula and cite it, without reading the source.

use anyhow::Result;
use scalinglaws::law::catalog;
use scalinglaws_report::analyses::laws::Listing;
use scalinglaws_report::{export, Format};

use crate::output::{self, Destination};

pub fn run(json: &Option<Destination>) -> Result<()> {
    let laws = catalog::listing()?;
    let listing = Listing { laws };
    match json {
        Some(destination) => output::write(
            destination,
            &export(&listing, Format::Json, &crate::wording::CommandLine)?,
        ),
        None => output::print_report(&listing),
    }
}
