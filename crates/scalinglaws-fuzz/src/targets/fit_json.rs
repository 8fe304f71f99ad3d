//! The fit-JSON target: the input is a saved fit as `fit --json` writes it. It is read back as
//! `predict FIT.json` reads it (`FitRecord::from_json`, then the law checked against the file's
//! parameters) and predicted at three points with intervals, as `predict` does; the same text
//! is also read as a schedule fit (`ScheduleFit::from_json`, what the other `schedule`
//! commands read), and the fit written back as JSON.

use scalinglaws::analysis::schedule::ScheduleFit;
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::workflow::predict::PredictJob;

use super::text;
use crate::Signature;

/// Each variable's values: a point inside the data, one beyond it, one far beyond.
const VALUES: [f64; 3] = [4e8, 7e10, 1e15];

pub fn run(input: &[u8]) -> Signature {
    let Some(text) = text(input) else {
        return Signature::tag("not utf-8");
    };
    let schedule = Signature::of_result("schedule fit", &ScheduleFit::from_json(text));
    let record = match FitRecord::from_json(text) {
        Ok(record) => record,
        Err(error) => return schedule.then(Signature::of_error("fit file", &error)),
    };
    let law = match record.law() {
        Ok(law) => law,
        Err(error) => return schedule.then(Signature::of_error("law", &error)),
    };
    let _written = record.to_json();
    let job = PredictJob {
        points: law
            .variables
            .iter()
            .map(|name| (name.clone(), VALUES.to_vec()))
            .collect(),
        level: 0.95,
    };
    let predicted = job.run(&record, &law);
    schedule.then(Signature::of_result("predict", &predicted))
}
