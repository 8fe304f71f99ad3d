//! The weight of own backtests each study alone would choose (a diagnostic of the corpus).
use scalinglaws::uncertainty::prior::fit_evidence_weight;
use scalinglaws_corpus::corpus::Unit;
use scalinglaws_corpus::loso::{fit_prior, own_and_held_out};

fn main() {
    let text = std::fs::read_to_string("target/corpus/corpus.json").unwrap();
    let units: Vec<Unit> = serde_json::from_str(&text).unwrap();
    let fitted = fit_prior(&units, None, None).unwrap();
    let (model, all) = (fitted.model, fitted.evidence_weight);
    println!("all studies: {all:.4}");
    let studies: std::collections::BTreeSet<&str> = units.iter().map(|u| u.study.as_str()).collect();
    for study in studies {
        let mine: Vec<Unit> = units.iter().filter(|u| u.study == study).cloned().collect();
        let evidence = own_and_held_out(&mine, None);
        if evidence.is_empty() { continue; }
        let k = fit_evidence_weight(&model, &evidence);
        let score = |w: f64| -> f64 { evidence.iter().map(|u| u.weight * model.posterior(&u.own, w).log_predictive(&model, &u.held_out)).sum() };
        println!("{study:<28} units {:>3} weight {k:.4}  score(0) {:.2} score(0.1) {:.2} score(0.5) {:.2} score(1) {:.2}", evidence.len(), score(0.0), score(0.1), score(0.5), score(1.0));
    }
}
