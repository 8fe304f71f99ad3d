//! The README's checked blocks are true: every fenced block preceded by the marker
//! `<!-- checked: tests/readme_blocks.rs -->` is run as a shell session (commands with `\`
//! continuations; `scalinglaws` is this build's binary) in a scratch folder that sees the
//! repository's `examples/`, and every output line it shows (`# ...`, with `# ...` alone for
//! lines left out) must appear, exactly, in what its command printed. Blocks run in README
//! order in one folder, after the tour's `fit ... --json chinchilla.json` (whose block also
//! pipes to jq, which a machine may lack).

use std::path::{Path, PathBuf};
use std::process::Command;

const MARKER: &str = "<!-- checked: tests/readme_blocks.rs -->";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A command of a block and the output lines shown under it.
struct Step {
    command: String,
    shown: Vec<String>,
}

fn checked_blocks(readme: &str) -> Vec<Vec<Step>> {
    let mut blocks = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim() != MARKER {
            continue;
        }
        assert!(lines.next().is_some_and(|l| l.starts_with("```")));
        let mut steps: Vec<Step> = Vec::new();
        let mut continued = false;
        for line in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            if let Some(shown) = line.strip_prefix("# ").or((line == "#").then_some("")) {
                if shown != "..." {
                    steps.last_mut().unwrap().shown.push(shown.to_string());
                }
                continue;
            }
            let text = line.trim_end_matches('\\').trim_end();
            if continued {
                let step = steps.last_mut().unwrap();
                step.command.push(' ');
                step.command.push_str(text.trim_start());
            } else {
                steps.push(Step {
                    command: text.to_string(),
                    shown: Vec::new(),
                });
            }
            continued = line.ends_with('\\');
        }
        blocks.push(steps);
    }
    blocks
}

#[test]
fn the_readmes_checked_blocks_show_what_the_commands_print() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let blocks = checked_blocks(&readme);
    assert!(
        blocks.len() >= 2,
        "the README has {} checked blocks",
        blocks.len()
    );
    let scratch = std::env::temp_dir().join(format!("scalinglaws-readme-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let examples = scratch.join("examples");
    if !examples.exists() {
        std::os::unix::fs::symlink(root().join("examples").canonicalize().unwrap(), &examples)
            .unwrap();
    }
    let binary = env!("CARGO_BIN_EXE_scalinglaws");
    let setup = Command::new(binary)
        .args([
            "fit",
            "examples/chinchilla/chinchilla_epoch.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--map",
            "N=Model Size",
            "--map",
            "C=Training FLOP",
            "--derive",
            "D=C/(6*N)",
            "--where",
            "loss < 3.44",
            "--json",
            "chinchilla.json",
        ])
        .current_dir(&scratch)
        .output()
        .unwrap();
    assert!(setup.status.success());
    for steps in blocks {
        for step in steps {
            let command = step
                .command
                .replacen("scalinglaws ", &format!("{binary} "), 1);
            let output = Command::new("sh")
                .arg("-c")
                .arg(&command)
                .current_dir(&scratch)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success(),
                "{}: {}",
                step.command,
                String::from_utf8_lossy(&output.stderr)
            );
            let printed: Vec<&str> = stdout.lines().map(str::trim_end).collect();
            for shown in &step.shown {
                assert!(
                    printed.contains(&shown.trim_end()),
                    "the README shows a line that `{}` does not print:\n{shown}\nit printed:\n{stdout}",
                    step.command
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
