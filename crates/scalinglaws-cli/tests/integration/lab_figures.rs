//! The lab's figures in the book cannot drift: every `scalinglaws sim ... --plot NAME.svg`
//! command the book's lab page (`docs/guide/lab.md`) shows is run here as shown (its files in a
//! scratch folder), and what it draws must be, byte for byte, the committed `docs/lab/NAME.svg`
//! the page displays (which the page must reference), and the dataset it writes (`-o NAME.csv`)
//! the committed `bench/results/lab_NAME.csv`, the run the page's numbers come from. Every file
//! under `docs/lab/` must be drawn by one of these commands.
//!
//! After a deliberate change of a figure, `SCALINGLAWS_BLESS_FIGURES=1 cargo test --release
//! -p scalinglaws-cli --test integration lab_figures::` rewrites the figures (never the datasets: a default
//! run's output is not to change unnoticed). The default runs take about a minute on 2 cores.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::root;

/// The lab page of the book.
const PAGE: &str = "docs/guide/lab.md";

/// The lab page's `scalinglaws sim` commands that draw a figure, in order.
fn figure_commands() -> Vec<String> {
    let page = std::fs::read_to_string(root().join(PAGE)).unwrap();
    page.lines()
        .filter(|line| line.starts_with("scalinglaws sim ") && line.contains("--plot "))
        .map(str::to_string)
        .collect()
}

/// The value after `option` in a command's words.
fn value_of<'a>(words: &[&'a str], option: &str) -> &'a str {
    let at = words
        .iter()
        .position(|w| *w == option)
        .unwrap_or_else(|| panic!("`{}` has no {option}", words.join(" ")));
    words[at + 1]
}

/// Runs one command of the lab page in a scratch folder and compares its figure and dataset with the
/// committed ones (or rewrites the figure when blessing).
fn check(command: &str) {
    let words: Vec<&str> = command.split_whitespace().collect();
    let figure = value_of(&words, "--plot");
    let dataset = value_of(&words, "-o");
    let name = figure.strip_suffix(".svg").expect("a figure is an SVG");
    assert_eq!(
        dataset,
        format!("{name}.csv"),
        "`{command}`: name the dataset after the figure"
    );
    let scratch = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_scalinglaws"))
        .args(&words[1..])
        .current_dir(scratch.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "`{command}` failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let drawn = std::fs::read_to_string(scratch.path().join(figure)).unwrap();
    let committed = root().join("docs/lab").join(figure);
    if std::env::var("SCALINGLAWS_BLESS_FIGURES").as_deref() == Ok("1") {
        std::fs::write(&committed, &drawn).unwrap();
    }
    let shown = std::fs::read_to_string(&committed)
        .unwrap_or_else(|e| panic!("{}: {e}", committed.display()));
    assert!(
        drawn == shown,
        "`{command}` draws another figure than {}; if the change is meant, rerun with \
         SCALINGLAWS_BLESS_FIGURES=1",
        committed.display()
    );
    let written = std::fs::read_to_string(scratch.path().join(dataset)).unwrap();
    let results = root().join(format!("bench/results/lab_{dataset}"));
    let recorded =
        std::fs::read_to_string(&results).unwrap_or_else(|e| panic!("{}: {e}", results.display()));
    assert!(
        written == recorded,
        "`{command}` writes another dataset than {}: a default run's output changed",
        results.display()
    );
}

/// The lab page's commands that draw `figure` (a file name under docs/lab).
fn commands_drawing(figure: &str) -> Vec<String> {
    figure_commands()
        .into_iter()
        .filter(|c| c.contains(&format!("--plot {figure}")))
        .collect()
}

fn check_figure(figure: &str) {
    let commands = commands_drawing(figure);
    assert_eq!(
        commands.len(),
        1,
        "{PAGE} should show one command drawing {figure}: {commands:?}"
    );
    check(&commands[0]);
}

#[test]
fn the_lab_page_shows_every_figure_it_draws_and_draws_every_figure() {
    let page = std::fs::read_to_string(root().join(PAGE)).unwrap();
    let commands = figure_commands();
    assert!(commands.len() >= 6, "{commands:?}");
    let mut drawn: Vec<String> = Vec::new();
    for command in &commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        let figure = value_of(&words, "--plot");
        assert!(
            page.contains(&format!("(../lab/{figure})")),
            "{PAGE} shows `{command}` but not its figure docs/lab/{figure}"
        );
        drawn.push(figure.to_string());
    }
    let committed: Vec<PathBuf> = std::fs::read_dir(root().join("docs/lab"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    for path in committed {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            drawn.contains(&name),
            "docs/lab/{name} is drawn by no command {PAGE} shows"
        );
    }
}

#[test]
fn sgd_figure() {
    check_figure("sgd.svg");
}

#[test]
fn sgd_scaling_figures() {
    check_figure("sgd_scaling_hard.svg");
    check_figure("sgd_scaling_easy.svg");
}

#[test]
fn nvfp4_figures() {
    check_figure("nvfp4.svg");
    check_figure("nvfp4_no_tensor_scale.svg");
}

#[test]
fn editing_figure() {
    check_figure("editing.svg");
}

#[test]
fn recall_figure() {
    check_figure("recall.svg");
}

#[test]
fn multi_index_figure() {
    check_figure("multi_index.svg");
}
