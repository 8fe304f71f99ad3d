//! `plot` and `report` end to end (issue 8): every plot kind writes SVG or PNG, the HTML report
//! is self-contained (inline SVG, no scripts, no external resources) and small, and in headless
//! Chromium (Debian's package, installed by .ci/run) it loads with no console messages and
//! shows every plot; a screenshot is taken.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fails, root, scalinglaws, stdout, with_chinchilla, CHINCHILLA};

/// Exit code 2, an error naming `needle`, no panic.
fn fails_with(command: &mut Command, needle: &str) {
    fails(command, &[needle]);
}

#[test]
fn every_plot_subcommand_has_help() {
    for kind in [
        "fit",
        "residuals",
        "frontier",
        "bootstrap",
        "isoflop",
        "tracks",
    ] {
        stdout(scalinglaws().args(["plot", kind, "--help"]));
    }
    stdout(scalinglaws().args(["report", "--help"]));
}

#[test]
fn fit_and_residual_plots_write_svg_and_png() {
    let dir = tempfile_dir();
    let svg = dir.join("fit.svg");
    stdout(with_chinchilla(&["plot", "fit"]).arg("-o").arg(&svg));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("extrapolation") && text.contains("1e9"));
    let png = dir.join("residuals.png");
    stdout(with_chinchilla(&["plot", "residuals"]).arg("-o").arg(&png));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let stdout = stdout(&mut with_chinchilla(&[
        "plot", "fit", "--x", "D", "-o", "-",
    ]));
    assert!(
        stdout.starts_with("<?xml") || stdout.starts_with("<svg"),
        "{}",
        &stdout[..40]
    );
}

#[test]
fn frontier_and_bootstrap_plots_come_from_a_saved_fit() {
    let dir = tempfile_dir();
    let fit = dir.join("fit.json");
    let mut command = scalinglaws();
    command
        .current_dir(root())
        .args(CHINCHILLA)
        .args(["--bootstrap", "40", "--json"])
        .arg(&fit);
    stdout(&mut command);
    let frontier = dir.join("frontier.svg");
    stdout(
        scalinglaws()
            .args(["plot", "frontier"])
            .arg(&fit)
            .arg("-o")
            .arg(&frontier),
    );
    let text = std::fs::read_to_string(&frontier).unwrap();
    assert!(text.contains("N*") && text.contains("D*") && text.contains("40 bootstrap draws"));
    // The picture's rules are the report crate's FrontierPicture's, worded with the flags.
    fails(
        scalinglaws()
            .args(["plot", "frontier"])
            .arg(&fit)
            .args(["--from", "1e24", "--to", "1e20", "-o", "-"]),
        &["--from 1e24 --to 1e20", "give budgets with 0 < from < to"],
    );
    fails_with(
        scalinglaws()
            .args(["plot", "frontier"])
            .arg(&fit)
            .args(["--flops", "6*N*T", "-o", "-"]),
        "--flops",
    );
    let bootstrap = dir.join("bootstrap.png");
    stdout(
        scalinglaws()
            .args(["plot", "bootstrap"])
            .arg(&fit)
            .arg("-o")
            .arg(&bootstrap),
    );
    assert!(std::fs::metadata(&bootstrap).unwrap().len() > 10_000);
}

#[test]
fn plot_input_errors_exit_2() {
    let dir = tempfile_dir();
    fails_with(
        &mut with_chinchilla(&["plot", "fit", "-o", "x.pdf"]),
        ".svg or .png",
    );
    fails_with(
        &mut with_chinchilla(&["plot", "fit", "--x", "T", "-o", "-"]),
        "--x T",
    );
    fails_with(
        &mut with_chinchilla(&["plot", "fit", "--pixels", "10x10", "-o", "-"]),
        "--pixels",
    );
    let fit = dir.join("plain.json");
    let mut command = scalinglaws();
    command
        .current_dir(root())
        .args(CHINCHILLA)
        .arg("--json")
        .arg(&fit);
    stdout(&mut command);
    fails_with(
        scalinglaws()
            .args(["plot", "bootstrap"])
            .arg(&fit)
            .args(["-o", "-"]),
        "no bootstrap replicates",
    );
}

#[test]
fn isoflop_plot_of_one_porian_configuration() {
    let data = root().join("testdata/porian2024/isoflop_points.csv");
    let out = stdout(scalinglaws().args(["plot", "isoflop"]).arg(&data).args([
        "--compute",
        "flops",
        "--size",
        "n",
        "--target",
        "loss",
        "--select",
        "dataset=rw",
        "--select",
        "hparams=tuned",
        "--select",
        "warmup=short",
        "--select",
        "decay=const",
        "--select",
        "param_count=standard",
        "--select",
        "val=val",
        "-o",
        "-",
    ]));
    assert!(
        out.contains("IsoFLOP profiles") && out.contains("minima: N* ∝ C^0.4"),
        "{}",
        &out[..200]
    );
    fails_with(
        scalinglaws().args(["plot", "isoflop"]).arg(&data).args([
            "--compute",
            "flops",
            "--size",
            "n",
            "--target",
            "loss",
            "--select",
            "dataset=xx",
            "-o",
            "-",
        ]),
        "no run matches",
    );
    // The tolerance is the library's rule, checked before the runs are read.
    fails_with(
        scalinglaws().args(["plot", "isoflop", "absent.csv"]).args([
            "--compute",
            "flops",
            "--size",
            "n",
            "--target",
            "loss",
            "--tolerance",
            "2",
            "-o",
            "-",
        ]),
        "--tolerance 2: give a relative tolerance in [0, 1)",
    );
}

/// `plot isoflop` draws the intervals on N* its --seed and --level ask for (it used to draw
/// seed 0 at 95% whatever was given).
#[test]
fn isoflop_plot_honours_seed_and_level() {
    let data = root().join("testdata/porian2024/isoflop_points.csv");
    let plot = |extra: &[&str]| {
        stdout(
            scalinglaws()
                .args(["plot", "isoflop"])
                .arg(&data)
                .args([
                    "--compute",
                    "flops",
                    "--size",
                    "n",
                    "--target",
                    "loss",
                    "--select",
                    "dataset=rw",
                    "--select",
                    "hparams=tuned",
                    "--select",
                    "warmup=short",
                    "--select",
                    "decay=const",
                    "--select",
                    "param_count=standard",
                    "--select",
                    "val=val",
                    "--bootstrap",
                    "30",
                    "-o",
                    "-",
                ])
                .args(extra),
        )
    };
    let default = plot(&[]);
    assert_eq!(default, plot(&["--seed", "0", "--level", "0.95"]));
    assert_ne!(default, plot(&["--seed", "7"]), "--seed changes the draws");
    assert_ne!(
        default,
        plot(&["--level", "0.5"]),
        "--level changes the intervals"
    );
    fails_with(
        scalinglaws()
            .args(["plot", "isoflop"])
            .arg(&data)
            .args([
                "--compute",
                "flops",
                "--size",
                "n",
                "--target",
                "loss",
                "--level",
                "1.5",
            ])
            .args(["-o", "-"]),
        "level",
    );
}

#[test]
fn tracks_plot_of_the_example() {
    let out = stdout(scalinglaws().current_dir(root()).args([
        "plot",
        "tracks",
        "examples/tracks/two_recipes.csv",
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--track",
        "recipe",
        "-o",
        "-",
    ]));
    assert!(
        out.contains("new vs baseline") && out.contains("beyond the data"),
        "{}",
        &out[..300]
    );
    // A law without N and D is refused by the picture's rule before the comparison's fits.
    fails_with(
        scalinglaws().current_dir(root()).args([
            "plot",
            "tracks",
            "examples/tracks/two_recipes.csv",
            "--law",
            "power",
            "--map",
            "x=N",
            "--target",
            "loss",
            "--track",
            "recipe",
            "-o",
            "-",
        ]),
        "the law needs variables N and D",
    );
}

fn tempfile_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "scalinglaws-plots-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The report on the bundled example, with a bootstrap (so every section is there).
fn report(dir: &Path) -> PathBuf {
    let path = dir.join("report.html");
    stdout(
        with_chinchilla(&["report"])
            .args(["--bootstrap", "50", "-o"])
            .arg(&path),
    );
    path
}

#[test]
fn the_report_is_self_contained_and_small() {
    let dir = tempfile_dir();
    let html = std::fs::read_to_string(report(&dir)).unwrap();
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
    assert_eq!(
        html.matches("<svg").count(),
        4,
        "fit, residuals, frontier, bootstrap"
    );
    for section in [
        "Parameters",
        "Warnings",
        "Compute-optimal allocation",
        "Backtest",
        "Reproduce",
    ] {
        assert!(html.contains(&format!("<h2>{section}")), "{section}");
    }
    // No scripts and nothing fetched (the SVG namespace URI is a name, not a resource).
    for fetch in ["<script", "<link", "src=", "href=", "url(", "@import"] {
        assert!(!html.contains(fetch), "{fetch}");
    }
    assert!(html.contains("scalinglaws report examples/chinchilla/chinchilla_epoch.csv"));
}

/// Debian's Chromium (`/usr/bin/chromium`, which scripts/test-all.sh and .ci/run install where
/// they can), or the one `SCALINGLAWS_CHROMIUM` names (a path that is not a file simulates a
/// machine without it). Without one the test skips, with the reason in the skip log, unless
/// `SCALINGLAWS_REQUIRE_BROWSER=1` (CI) makes that a failure; `SCALINGLAWS_SKIP_BROWSER=1` skips
/// it even where Chromium is present.
fn chromium() -> Option<PathBuf> {
    if std::env::var("SCALINGLAWS_SKIP_BROWSER").as_deref() == Ok("1") {
        common::skip::skip("SCALINGLAWS_SKIP_BROWSER=1");
        return None;
    }
    let candidates: Vec<PathBuf> = match std::env::var_os("SCALINGLAWS_CHROMIUM") {
        Some(path) => vec![PathBuf::from(path)],
        None => vec![
            "/usr/bin/chromium".into(),
            "/usr/bin/chromium-browser".into(),
        ],
    };
    let found = candidates.iter().find(|p| p.is_file()).cloned();
    if found.is_none() {
        let tried: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        let reason = format!(
            "no Chromium at {} (install Debian's chromium, or name it in SCALINGLAWS_CHROMIUM)",
            tried.join(" or ")
        );
        if std::env::var("SCALINGLAWS_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!("{reason}; SCALINGLAWS_REQUIRE_BROWSER=1 requires the browser test to run");
        }
        common::skip::skip(&reason);
    }
    found
}

fn headless(browser: &Path, profile: &Path) -> Command {
    let mut command = Command::new(browser);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

#[test]
fn the_report_loads_in_headless_chromium_with_every_plot() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile_dir();
    let page = report(&dir);
    let url = format!("file://{}", page.display());
    let dom = headless(&browser, &dir.join("profile-dom"))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("run chromium");
    let rendered = String::from_utf8_lossy(&dom.stdout);
    let log = String::from_utf8_lossy(&dom.stderr);
    assert_eq!(
        rendered.matches("<svg").count(),
        4,
        "plots in the rendered page"
    );
    assert!(!log.contains("CONSOLE"), "console messages: {log}");
    let screenshot = dir.join("report.png");
    let shot = headless(&browser, &dir.join("profile-shot"))
        .arg("--window-size=1360,4200")
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg(&url)
        .output()
        .expect("run chromium");
    let log = String::from_utf8_lossy(&shot.stderr);
    assert!(!log.contains("CONSOLE"), "console messages: {log}");
    let bytes = std::fs::read(&screenshot).expect("a screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(bytes.len() > 50_000, "a screenshot of a page with plots");
    eprintln!("screenshot: {}", screenshot.display());
    // Laid out at 1280 px: nothing scrolls sideways and every plot's text shows at >= 10 px.
    let layout = measure(&browser, &page, &dir);
    eprintln!("at 1280 px: {layout:?}");
    assert!(
        layout.scroll_width <= layout.client_width,
        "the page scrolls sideways at 1280 px: {layout:?}"
    );
    assert!(
        layout.scrolling.is_empty(),
        "elements scroll sideways at 1280 px: {layout:?}"
    );
    assert!(layout.texts > 100, "the plots' texts measured: {layout:?}");
    assert!(
        layout.smallest_text >= 10.0,
        "plot text under 10 px at 1280 px ({:?}): {layout:?}",
        layout.smallest
    );
}

/// What [`measure`] reads off the page laid out at 1280 px: the document's scroll and client
/// widths, the elements wider inside than their box, how many texts the plots have and the smallest of them as shown (CSS pixels).
#[derive(Debug)]
struct Layout {
    scroll_width: f64,
    client_width: f64,
    /// Elements that scroll sideways inside the page (a `pre` too wide for its box).
    scrolling: Vec<String>,
    texts: usize,
    smallest_text: f64,
    smallest: String,
}

/// Measures a copy of the report (the report itself has no scripts) with a script at the end
/// of its body: every `svg text`'s computed font size times its SVG's scale (shown width over
/// view-box width, as CSS `max-width` shrinks it), written into the DOM and read back from
/// Chromium's `--dump-dom` at a 1280-px window.
fn measure(browser: &Path, page: &Path, dir: &Path) -> Layout {
    const SCRIPT: &str = r#"<script>
(function () {
  var de = document.documentElement, least = Infinity, which = '', count = 0;
  document.querySelectorAll('svg').forEach(function (svg, i) {
    var box = svg.viewBox.baseVal;
    var scale = svg.getBoundingClientRect().width / (box && box.width ? box.width : svg.width.baseVal.value);
    svg.querySelectorAll('text').forEach(function (t) {
      if (!t.textContent.trim()) return;
      count += 1;
      var size = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (size < least) { least = size; which = 'plot ' + i + ': ' + t.textContent; }
    });
  });
  var scrolling = [];
  document.querySelectorAll('body *').forEach(function (e) {
    if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) scrolling.push(e.tagName.toLowerCase());
  });
  var out = document.createElement('pre');
  out.id = 'layout';
  out.textContent = [de.scrollWidth, de.clientWidth, scrolling.join(' '), count, least.toFixed(3), which].join('|');
  document.body.appendChild(out);
})();
</script>"#;
    let html = std::fs::read_to_string(page).expect("the report");
    let copy = dir.join("measured.html");
    std::fs::write(
        &copy,
        html.replacen("</body>", &format!("{SCRIPT}\n</body>"), 1),
    )
    .unwrap();
    let dom = headless(browser, &dir.join("profile-measure"))
        .args([
            "--window-size=1280,4000",
            "--virtual-time-budget=2000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", copy.display()))
        .output()
        .expect("run chromium");
    let rendered = String::from_utf8_lossy(&dom.stdout);
    let start = rendered
        .find("<pre id=\"layout\">")
        .map(|at| at + "<pre id=\"layout\">".len())
        .unwrap_or_else(|| {
            panic!(
                "no measurements in the DOM: {}",
                String::from_utf8_lossy(&dom.stderr)
            )
        });
    let text = &rendered[start..];
    let text = &text[..text.find("</pre>").expect("the end of the measurements")];
    let fields: Vec<&str> = text.splitn(6, '|').collect();
    assert_eq!(fields.len(), 6, "measurements: {text}");
    let number = |s: &str| s.parse::<f64>().unwrap_or(f64::NAN);
    Layout {
        scroll_width: number(fields[0]),
        client_width: number(fields[1]),
        scrolling: fields[2].split_whitespace().map(String::from).collect(),
        texts: fields[3].parse().unwrap_or(0),
        smallest_text: number(fields[4]),
        smallest: fields[5].to_string(),
    }
}

#[test]
fn a_plot_that_cannot_be_drawn_leaves_a_note_in_the_report() {
    let dir = tempfile_dir();
    let path = dir.join("negative.html");
    stdout(
        scalinglaws()
            .current_dir(root())
            .args([
                "report",
                "examples/chinchilla/chinchilla_epoch.csv",
                "--formula",
                "a + b*x",
                "--target",
                "loss",
                "--map",
                "C=Training FLOP",
                "--derive",
                "x=0-log(C)",
                "--space",
                "linear",
                "-o",
            ])
            .arg(&path),
    );
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(
        html.contains("No plot: plot: 'x' has no positive values"),
        "note"
    );
    assert_eq!(html.matches("<svg").count(), 1, "the residuals still drawn");
}
