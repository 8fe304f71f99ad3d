//! End-to-end tests of `scalinglaws sensitivity` on the bundled Chinchilla data: the report and
//! document of leaving each scale group out, and its input errors (exit code 2, the option
//! named, never a panic).

use crate::common;

use common::{chinchilla, fails, stdout, stdout_json};

#[test]
fn every_scale_group_is_left_out_once_and_the_largest_change_is_named() {
    let report =
        stdout(chinchilla("sensitivity").args(["--by", "C", "--at", "N=7e10", "--at", "D=1.4e12"]));
    assert!(report.starts_with("[[Sensitivity]]"), "{report}");
    assert!(
        report.contains("[[Without one scale group]] of 'C'"),
        "{report}"
    );
    assert!(report.contains("largest change"), "{report}");
    let document = stdout_json(chinchilla("sensitivity").args([
        "--by", "C", "--at", "N=7e10", "--at", "D=1.4e12", "--json", "-",
    ]));
    assert_eq!(document["kind"], "sensitivity");
    let groups = document["groups"].as_array().unwrap();
    assert!(groups.len() >= 3, "{document}");
    let rows: u64 = groups.iter().map(|g| g["rows"].as_u64().unwrap()).sum();
    let fit = stdout_json(chinchilla("fit").args(["--json", "-"]));
    assert_eq!(
        rows,
        fit["n_obs"].as_u64().unwrap(),
        "each row is left out exactly once"
    );
    let most = document["most_influential"].as_u64().unwrap() as usize;
    let largest = document["max_change"].as_f64().unwrap();
    let change = groups[most]["change"].as_f64().unwrap();
    assert!((change.abs() - largest).abs() < 1e-12);
}

#[test]
fn a_bad_point_or_scale_is_refused_naming_the_option() {
    fails(
        chinchilla("sensitivity").args(["--by", "C", "--at", "N:7e10"]),
        &["--at 'N:7e10'", "NAME=VALUE"],
    );
    fails(
        chinchilla("sensitivity").args(["--by", "C", "--at", "N=7e10", "--at", "N=8e10"]),
        &["--at N is given twice"],
    );
    fails(
        chinchilla("sensitivity").args(["--by", "C", "--at", "N=7e10", "--at", "Dx=1e12"]),
        &["'Dx'", "did you mean 'D'"],
    );
    fails(
        chinchilla("sensitivity").args(["--by", "nosuch", "--at", "N=7e10", "--at", "D=1e12"]),
        &["nosuch"],
    );
}

#[test]
fn a_point_beyond_max_decades_is_refused() {
    let point = ["--by", "C", "--at", "N=7e10", "--at", "D=1.4e12"];
    fails(
        chinchilla("sensitivity")
            .args(point)
            .args(["--max-decades", "1"]),
        &["decades beyond the largest run, more than --max-decades 1"],
    );
    fails(
        chinchilla("sensitivity")
            .args(point)
            .args(["--max-decades", "0"]),
        &["--max-decades 0: give a positive number of decades"],
    );
    fails(
        chinchilla("sensitivity")
            .args(point)
            .args(["--max-decades", "3", "--no-calibration"]),
        &["--max-decades needs the calibration"],
    );
    let within = stdout(
        chinchilla("sensitivity")
            .args(point)
            .args(["--max-decades", "3"]),
    );
    assert!(within.starts_with("[[Sensitivity]]"), "{within}");
}
