//! Tao et al. 2024, "Scaling Laws with Vocabulary: Larger Models Deserve Larger Vocabularies"
//! (NeurIPS 2024, arXiv:2407.13623; data sail-sg/scaling-with-vocab `exp_data.csv`, no licence):
//! Llama-style models on SlimPajama, 6 non-vocabulary sizes × 10 vocabularies × 20 evaluations.
//!
//! Read: `exp_data.csv`, its `Lossu` column checked. Not usable as a corpus set, so the loader
//! returns `Err` with the counts: the only loss is the unigram-normalised loss
//! L_u = L − H_uni(V) (nats/token; the model's loss minus the unigram entropy of the text under
//! vocabulary V), negative on every row. The target must be a positive loss:
//! - the raw loss L (or L per character) needs H_uni(V) for each of the 10 vocabularies, which no
//!   column carries (nor the repository), so it cannot be recovered;
//! - exp(L_u) = PPL / PPL_unigram (Roh et al. 2020's unigram-normalised perplexity) is positive,
//!   but the paper's law is additive in L_u (Approach 3: L_u = −E + A1/N^α1 + A2/(Vd)^α2 + B/D^β),
//!   so on exp(L_u) the catalog's Chinchilla law is the wrong form (the power terms multiply):
//!   its extrapolation errors would measure the transform, not the law;
//! - a constant shift L_u + c is exactly Chinchilla-form but c is arbitrary, and every relative
//!   error of the corpus would depend on it.
//!
//! The study is therefore left out of the corpus with that reason. (Had H_uni(V) been given, the
//! sets would be one per vocabulary, N = `Non_vocab_parameters`, D = characters.)

use std::path::Path;

use super::{file, read, StudySet};

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "exp_data.csv")?)?;
    let loss = table
        .numeric_or_missing("Lossu")
        .map_err(|e| e.to_string())?;
    let negative = loss.iter().filter(|l| **l < 0.0).count();
    Err(format!(
        "the only loss, Lossu (unigram-normalised: loss minus the vocabulary's unigram entropy), is \
         negative on {negative} of {} rows; the raw loss needs each vocabulary's unigram entropy, \
         which the data do not give, and no positive transform keeps the Chinchilla form \
         (exp(Lossu) multiplies the power terms; a shift is arbitrary)",
        loss.len()
    ))
}
