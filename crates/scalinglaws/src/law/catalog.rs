//! The built-in laws: each a formula of the law language with its citation, variables,
//! parameter bounds, default start grid and linear parameters. `bnsl:K` gives a broken power
//! law with K breaks; `mixing:K` and `mixture_additive:K` take K training domains.

use super::{Grid, Law, ParamSpec};
use crate::error::{Error, Result};

const INF: f64 = f64::INFINITY;

/// How residuals of a law are best measured by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultSpace {
    Log,
    Linear,
}

/// One catalog entry as the list of laws shows it.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: &'static str,
    pub summary: &'static str,
    pub citation: &'static str,
    pub default_space: DefaultSpace,
}

pub const ENTRIES: &[Entry] = &[
    Entry {
        name: "power",
        summary: "pure power law",
        citation: "Kaplan et al. 2020, Scaling Laws for Neural Language Models",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "power_offset",
        summary: "saturating power law with an irreducible term",
        citation: "Hestness et al. 2017; Kaplan et al. 2020",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "chinchilla",
        summary: "loss in parameters N and tokens D",
        citation: "Hoffmann et al. 2022 (Chinchilla), eq. 2; Besiroglu et al. 2024 (Epoch replication)",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "overtraining",
        summary: "Chinchilla with tied exponents in parameters N and the token multiplier M = D/N",
        citation: "Gadre et al. 2024, Language models scale reliably with over-training and on downstream tasks, eq. 3",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "data_constrained",
        summary: "Chinchilla with effective N' and D' under repeated data (U unique tokens)",
        citation: "Muennighoff et al. 2023, Scaling Data-Constrained Language Models, eq. 5",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "looped",
        summary: "looped transformer: r recurrences of N_rec shared parameters are worth r^phi unique ones",
        citation: "a 2026 study of looped (depth-recurrent) transformers: the recurrence-equivalence exponent phi (0.46 in its iso-depth sweep)",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "moe",
        summary: "mixture of experts: loss in active parameters N, tokens D and number of experts E (E = 1: dense)",
        citation: "Ludziejewski et al. 2025, Joint MoE Scaling Laws: Mixture of Experts Can Be Memory Efficient, eq. 6 with Clark et al. 2022's saturating E-hat (eq. 4); published fit in Table 3",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "vocab",
        summary: "unigram-normalised loss (negative, hence -E) in non-vocabulary parameters N_nv, vocabulary parameters N_v = V*d and tokens D",
        citation: "Tao et al. 2024, Scaling Laws with Vocabulary: Larger Models Deserve Larger Vocabularies (NeurIPS 2024), Approach 3 (parametric fit of the loss), with alpha1 = beta as the authors fit it (approach3_isoloss.py); published fit A1 = 1.831, A2 = 0.1958, B = 2.124, E = 5.533, alpha1 = beta = 0.4466, alpha2 = 0.6707 (optimal_Nv_predict.py), with N_nv and N_v in millions and D in billions of tokens converted from characters at V/1000 (the authors' code evaluates its characters-to-tokens fit at the normalised V; the coefficients fit the data only that way)",
        default_space: DefaultSpace::Linear,
    },
    Entry {
        name: "parscale",
        summary: "parallel scaling: P parallel streams of a model with N parameters are worth N*(k*log(P) + 1) parameters",
        citation: "Chen et al. 2025, Parallel Scaling Law for Language Models (ParScale), the parallel scaling law L = (A/(N (k log P + 1)))^alpha + E; the authors' parametric_fit.py on their 24 runs per corpus gives E = 0.6912, A = 1.131e7, alpha = 0.1894, k = 0.3935 on Stack-V2-Python",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "precision",
        summary: "Chinchilla in effective parameters: training weights, activations and KV cache in P_w, P_a, P_kv bits shrink N to N*(1 - exp(-P/gamma)) per part",
        citation: "Kumar et al. 2024, Scaling Laws for Precision (ICLR 2025), eq. 4's effective parameter count in eq. 1's Chinchilla form, without the post-training quantization term delta_PTQ of eq. 2; published coefficients not reproduced here (synthetic recovery test)",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "farseer",
        summary: "loss in parameters N and tokens D whose floor, data coefficient and data exponent each vary with N as exp(a*N^b + c)",
        citation: "Li et al. 2025, Predictable Scale: Part II, Farseer: A Refined Scaling Law in Large Language Models (arXiv 2506.10972), L = exp(a3 N^gamma + b3) + exp(a2 N^beta + b2) D^-exp(a1 N^alpha + b1), written with A3 = exp(b3) and A2 = exp(b2) (linear); its fit a3 = -0.062465, gamma = 0.13, b3 = 0.128488, a2 = 230.734, beta = -0.1729, b2 = -1.544210, a1 = -1.665631, alpha = 0.0459, b1 = 3.133347 (N and D in raw counts, L in bits per character) is second-hand, from the benchmark of PlanarG/active-sl (farseer_scaling_law/laws.py), not checked against the paper",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "distillation",
        summary: "student's loss distilled from a teacher of loss L_T: the teacher's loss plus a gap in student parameters N_S and distillation tokens D_S that a teacher much stronger than the student's supervised loss L_sup narrows less",
        citation: "Busbridge et al. 2025, Distillation Scaling Laws (ICML 2025), eq. 8: L_S = L_T + L_T^-c0 (1 + (L_T/(L_sup d1))^(1/f1))^(-c1 f1) (A N_S^-alpha + B D_S^-beta)^gamma, with L_sup the student's supervised loss at (N_S, D_S) given as a column (their eq. 1, E + (A N^-alpha + B D^-beta)^gamma, whose fit E = 1.220, A = 3355, alpha = 0.408, B = 18186, beta = 0.431, gamma = 0.452 is second-hand, from the benchmark of PlanarG/active-sl); the form is transcribed from that benchmark, not checked against the paper; its fitted c0, c1, d1, f1 were not found (synthetic recovery test)",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "mixing",
        summary: "data mixing law: loss against the mixture proportions of 2 training domains (mixing:K for K), exponential in a linear combination of them",
        citation: "Ye et al. 2024, Data Mixing Laws: Optimizing Data Mixtures by Predicting Language Modeling Performance (ICLR 2025), L_i = c_i + k_i exp(sum_j t_ij r_j); the first domain's proportion is left out (the proportions sum to 1, so its t folds into k)",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "mixture_additive",
        summary: "loss in parameters N, tokens D and the proportions h1..hK of K = 2 training domains (mixture_additive:K for K); the mixture moves only the floor, so the best mixture is the same at every scale",
        citation: "Shukor et al. 2025, Scaling Laws for Optimal Data Mixtures (arXiv 2507.09404), the additive law L = E + 1/(sum_i C_i h_i^gamma_i) + A/N^alpha + B/D^beta, written with g_i for gamma_i; the form is second-hand (a summary of the paper), not checked against it, and no published coefficients were found (synthetic recovery test); the form of the paper's joint law (whose A and B also depend on the mixture) was not found, so it is not in the catalog",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "m4",
        summary: "learning curve that leaves a plateau eps_0 = eps_inf + d (chance) and becomes a power law in x towards eps_inf; at x = x0 the root u solves u = (1 - u)^alpha (half way for alpha = 1), alpha sets how long the plateau holds",
        citation: "Alabdulmohsin, Neyshabur & Zhai 2022, Revisiting Neural Scaling Laws in Language and Vision (NeurIPS), the M4 estimator (eps - eps_inf)/(eps_0 - eps)^alpha = beta x^c, written with d = eps_0 - eps_inf and (x0/x)^c = beta x^-c d^(alpha-1) (so beta = x0^c d^(1-alpha) and the paper's c is minus this one), solved exactly by m4root",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "bnsl",
        summary: "broken neural scaling law, one break (bnsl:K for K breaks)",
        citation: "Caballero et al. 2022, Broken Neural Scaling Laws, eq. 1",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "logistic",
        summary: "bounded accuracy from lo to lo + span against x (loss or log-compute); span >= 0, the sign of k orients it",
        citation: "downstream-accuracy baseline (e.g. Gadre et al. 2024; the logistic baseline that Neural Neural Scaling Laws (NeuNeu), 2026, compares against)",
        default_space: DefaultSpace::Linear,
    },
    Entry {
        name: "exp_growth",
        summary: "exponential growth in t",
        citation: "a 2026 study of norm-feedback loops in sequential locate-and-edit model editing (approximately exponential norm growth)",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "power_cutoff",
        summary: "power law with an exponential upper cut-off x_c",
        citation: "Clauset, Shalizi & Newman 2009, Power-law distributions in empirical data, SIAM Review 51:661, eq. (1) with Table 1's exponential cut-off",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "power_smooth_cutoff",
        summary: "power law x^beta that bends down past x_c with sharpness k",
        citation: "the one-break smoothly broken power law of Caballero et al. 2022, Broken Neural Scaling Laws, eq. 1, with the segment beyond the break falling as x^(beta-k)",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "memorisation_rate",
        summary: "rate A*t^beta with an upper cut-off that moves with model size: x_c = c*N^gamma",
        citation: "a 2026 study of meta-memorisation in transformers: r(t) ~ t^beta with a fixed beta and an upper cut-off that grows with model scale",
        default_space: DefaultSpace::Log,
    },
    Entry {
        name: "bounded_sigmoid",
        summary: "accuracy between a chance floor and a ceiling, sigmoid in log compute",
        citation: "the bounded sigmoid of downstream-accuracy forecasts (Ruan et al. 2024, Observational Scaling Laws, whose accuracies are a sigmoid between a floor and a ceiling; Gadre et al. 2024)",
        default_space: DefaultSpace::Linear,
    },
    Entry {
        name: "error_from_loss",
        summary: "top-1 error from loss: Err = eps - k*exp(-gamma*L)",
        citation: "Gadre et al. 2024, Language models scale reliably with over-training and on downstream tasks, eq. 4",
        default_space: DefaultSpace::Linear,
    },
    Entry {
        name: "count_power",
        summary: "a count growing as a power of model size, a*N^b (sublinear when b < 1)",
        citation: "a 2026 study of Rosetta Neurons: their number follows a sublinear power law in model size",
        default_space: DefaultSpace::Log,
    },
];

fn spec(name: &str, lower: f64, upper: f64, grid: &[f64], linear: bool) -> ParamSpec {
    ParamSpec {
        name: name.to_string(),
        lower,
        upper,
        grid: Grid::Values(grid.to_vec()),
        linear,
    }
}

fn linear(name: &str) -> ParamSpec {
    spec(name, 0.0, INF, &[], true)
}

fn quantiles(name: &str, lower: f64, variable: &str, probabilities: &[f64]) -> ParamSpec {
    ParamSpec {
        name: name.to_string(),
        lower,
        upper: INF,
        grid: Grid::Quantiles {
            variable: variable.to_string(),
            probabilities: probabilities.to_vec(),
        },
        linear: false,
    }
}

const EXPONENT_GRID: &[f64] = &[0.1, 0.25, 0.4, 0.6, 1.0];

pub const CHINCHILLA_FORMULA: &str = "E + A*N^-alpha + B*D^-beta";

pub const DATA_CONSTRAINED_FORMULA: &str = "G = (alpha*A/(beta*B))^(1/(alpha+beta)); \
UN = min(N, G*(U*G)^(beta/alpha)); \
Np = UN + UN*RN_star*(1 - exp(-max(N/UN - 1, 0)/RN_star)); \
Dp = U + U*RD_star*(1 - exp(-max(D/U - 1, 0)/RD_star)); \
E + A*Np^-alpha + B*Dp^-beta";

/// Ludziejewski et al. 2025 (arXiv 2502.05172), eq. 6, with the saturating transform of the
/// number of experts of their eq. 4 (after Clark et al. 2022). Their exponents are negative as
/// printed: alpha, beta < 0. At E = 1, E-hat = E_start and the law is Chinchilla's in N and D.
pub const MOE_FORMULA: &str = "Eh = 1/(1/(E - 1 + 1/(1/E_start - 1/E_max)) + 1/E_max); \
a*Eh^delta*N^(alpha + gamma*log(Eh)) + b*Eh^omega*D^(beta + zeta*log(Eh)) + c";

/// Alabdulmohsin et al. 2022's M4 with the loss explicit: ε = ε∞ + d·u where u solves
/// u = (x0/x)^c·(1 − u)^α (`m4root`). ε∞ and d enter linearly; at α = 0 it is ε∞ + d·(x0/x)^c
/// (their M2) until it reaches the plateau ε∞ + d.
pub const M4_FORMULA: &str = "eps_inf + d*m4root((x0/x)^c, alpha)";

/// Li et al. 2025's Farseer law, with exp(b3) and exp(b2) as the linear A3 and A2.
pub const FARSEER_FORMULA: &str = "A3*exp(a3*N^gamma) + A2*exp(a2*N^beta)*D^-exp(a1*N^alpha + b1)";

/// Busbridge et al. 2025's distillation law (eq. 8), the teacher-student factor in a stable form.
pub const DISTILLATION_FORMULA: &str =
    "L_T + L_T^-c0*exp(-c1*f1*softplus(log(L_T/(L_sup*d1))/f1))*(A*N_S^-alpha + B*D_S^-beta)^gamma";

/// One catalog law as listed to users (by the command line and `scalinglaws.laws()`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct LawInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub formula: String,
    pub variables: Vec<String>,
    pub parameters: Vec<String>,
    pub default_space: &'static str,
    pub citation: &'static str,
}

/// Every catalog law with its formula, variables, parameters, residual space and citation.
pub fn listing() -> Result<Vec<LawInfo>> {
    ENTRIES
        .iter()
        .map(|entry| {
            let law = lookup(entry.name)?;
            Ok(LawInfo {
                name: entry.name,
                summary: entry.summary,
                formula: law.formula.clone(),
                variables: law.variables.clone(),
                parameters: law.param_names().iter().map(|p| p.to_string()).collect(),
                default_space: match entry.default_space {
                    DefaultSpace::Log => "log",
                    DefaultSpace::Linear => "linear",
                },
                citation: entry.citation,
            })
        })
        .collect()
}

/// Names for `laws` and for "did you mean".
pub fn names() -> Vec<&'static str> {
    ENTRIES.iter().map(|e| e.name).collect()
}

pub fn entry(name: &str) -> Option<&'static Entry> {
    let base = name.split(':').next().unwrap_or(name);
    ENTRIES.iter().find(|e| e.name == base)
}

/// `NAME[P=V,...]` where a law's name alone goes (a fit's law): the values are held with the
/// `fix` setting there (only `optimal`, `compare-laws` and `select` read values in the name).
fn held_in_the_name(law: &str, values: &str) -> Error {
    Error::setting(
        crate::error::Setting::Law,
        crate::text![
            format!(
                "'{law}[{values}]': give the law's name alone ('{law}') and hold parameters with "
            ),
            crate::error::Setting::Fix.text(values.to_string())
        ],
    )
}

/// The catalog law called `name` (`bnsl:K` for K breaks, `mixing:K` and `mixture_additive:K`
/// for K domains).
pub fn lookup(name: &str) -> Result<Law> {
    if let Some((law, values)) = name.split_once('[') {
        return Err(held_in_the_name(law.trim(), values.trim_end_matches(']')));
    }
    let unknown = || Error::UnknownLaw {
        name: name.to_string(),
        suggestion: crate::suggest::closest(name, names()),
    };
    let entry = entry(name).ok_or_else(unknown)?;
    let law = match name {
        "power" => Law::with_specs(
            "power",
            "A*x^-alpha",
            entry.citation,
            &["x"],
            vec![
                linear("A"),
                spec("alpha", -INF, INF, &[-0.5, 0.05, 0.1, 0.3, 0.6, 1.0], false),
            ],
        ),
        "power_offset" => Law::with_specs(
            "power_offset",
            "E + A*x^-alpha",
            entry.citation,
            &["x"],
            vec![
                linear("E"),
                linear("A"),
                spec(
                    "alpha",
                    0.0,
                    INF,
                    &[0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5],
                    false,
                ),
            ],
        ),
        "chinchilla" => Law::with_specs(
            "chinchilla",
            CHINCHILLA_FORMULA,
            entry.citation,
            &["N", "D"],
            vec![
                linear("E"),
                linear("A"),
                spec("alpha", 0.0, INF, EXPONENT_GRID, false),
                linear("B"),
                spec("beta", 0.0, INF, EXPONENT_GRID, false),
            ],
        ),
        // Gadre et al.'s L(C, M) = E + (a·M^η + b·M^−η)·C^−η with C = 6ND, M = D/N is this law
        // with a = A·6^η and b = B·6^η: the exponents of N and D tied to η.
        "overtraining" => Law::with_specs(
            "overtraining",
            "E + A*N^-eta + B*(M*N)^-eta",
            entry.citation,
            &["N", "M"],
            vec![
                linear("E"),
                linear("A"),
                spec("eta", 0.0, INF, EXPONENT_GRID, false),
                linear("B"),
            ],
        ),
        "data_constrained" => data_constrained(entry.citation),
        "looped" => Law::with_specs(
            "looped",
            "E + A*(N_once + r^phi*N_rec)^-alpha + B*D^-beta",
            entry.citation,
            &["N_once", "r", "N_rec", "D"],
            vec![
                linear("E"),
                linear("A"),
                spec("phi", -INF, INF, &[0.2, 0.5, 0.8], false),
                spec("alpha", 0.0, INF, EXPONENT_GRID, false),
                linear("B"),
                spec("beta", 0.0, INF, EXPONENT_GRID, false),
            ],
        ),
        "moe" => moe(entry.citation),
        "m4" => Law::with_specs(
            "m4",
            M4_FORMULA,
            entry.citation,
            &["x"],
            vec![
                linear("eps_inf"),
                linear("d"),
                quantiles("x0", 0.0, "x", &[0.0, 0.1, 0.5, 1.0]),
                spec("c", 0.0, INF, &[0.1, 0.3, 0.6, 1.0], false),
                spec("alpha", 0.0, INF, &[0.25, 1.0, 2.0], false),
            ],
        ),
        "vocab" | "parscale" | "precision" | "farseer" | "distillation" => {
            recent(name, entry.citation)
        }
        "logistic" => Law::with_specs(
            "logistic",
            "lo + span*sigmoid(k*(x - x0))",
            entry.citation,
            &["x"],
            vec![
                spec("lo", -INF, INF, &[], true),
                linear("span"),
                spec(
                    "k",
                    -INF,
                    INF,
                    &[-10.0, -3.0, -1.0, -0.3, 0.3, 1.0, 3.0, 10.0],
                    false,
                ),
                quantiles("x0", -INF, "x", &[0.1, 0.3, 0.5, 0.7, 0.9]),
            ],
        ),
        "exp_growth" => Law::with_specs(
            "exp_growth",
            "y0*exp(k*t)",
            entry.citation,
            &["t"],
            vec![
                linear("y0"),
                spec("k", -INF, INF, &[-1.0, -0.1, -0.01, 0.01, 0.1, 1.0], false),
            ],
        ),
        "power_cutoff" | "power_smooth_cutoff" | "memorisation_rate" => {
            cutoff(name, entry.citation)
        }
        "bounded_sigmoid" | "error_from_loss" | "count_power" => bounded(name, entry.citation),
        _ if entry.name == "bnsl" => bnsl(name, entry.citation),
        _ if entry.name == "mixing" => mixing(name, entry.citation),
        _ if entry.name == "mixture_additive" => mixture_additive(name, entry.citation),
        _ => Err(unknown()),
    }?;
    Ok(law)
}

/// Power laws with an upper cut-off. The cut-off's starts are quantiles of the data and
/// beyond (a cut-off past the data is unidentified: the at-bound and runaway warnings say so).
fn cutoff(name: &str, citation: &str) -> Result<Law> {
    let beta = || spec("beta", -INF, INF, &[-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], false);
    let x_c = || quantiles("x_c", 0.0, "x", &[0.25, 0.5, 0.75, 1.0]);
    match name {
        "power_cutoff" => Law::with_specs(
            name,
            "A*x^beta*exp(-x/x_c)",
            citation,
            &["x"],
            vec![linear("A"), beta(), x_c()],
        ),
        "power_smooth_cutoff" => Law::with_specs(
            name,
            "A*x^beta/(1 + (x/x_c)^k)",
            citation,
            &["x"],
            vec![
                linear("A"),
                beta(),
                x_c(),
                spec("k", 0.0, INF, &[1.0, 2.0, 4.0], false),
            ],
        ),
        _ => Law::with_specs(
            name,
            "A*t^beta*exp(-t/(c*N^gamma))",
            citation,
            &["t", "N"],
            vec![
                linear("A"),
                spec("beta", -INF, INF, &[-0.5, 0.0, 0.5, 1.0, 2.0], false),
                quantiles("c", 0.0, "t", &[0.25, 0.5, 1.0]),
                spec("gamma", -INF, INF, &[0.0, 0.25, 0.5, 1.0], false),
            ],
        ),
    }
}

/// Bounded accuracy and error laws, and the count power law.
fn bounded(name: &str, citation: &str) -> Result<Law> {
    match name {
        "bounded_sigmoid" => Law::with_specs(
            name,
            "floor + (ceil - floor)*sigmoid(k*(log(C) - m))",
            citation,
            &["C"],
            vec![
                // Unbounded: a bound of [0, 1] freezes a level that the start's projection
                // puts on it (the transform's slope vanishes there); the proportion families
                // refuse predictions outside (0, 1) themselves.
                spec("floor", -INF, INF, &[], true),
                spec("ceil", -INF, INF, &[], true),
                spec("k", 0.0, INF, &[0.1, 0.3, 1.0, 3.0], false),
                spec("m", -INF, INF, &[10.0, 20.0, 30.0, 40.0, 50.0, 60.0], false),
            ],
        ),
        "error_from_loss" => Law::with_specs(
            name,
            "eps - k*exp(-gamma*L)",
            citation,
            &["L"],
            vec![
                spec("eps", -INF, INF, &[], true),
                spec("k", -INF, INF, &[], true),
                spec("gamma", 0.0, INF, &[0.1, 0.3, 1.0, 3.0, 10.0], false),
            ],
        ),
        _ => Law::with_specs(
            name,
            "a*N^b",
            citation,
            &["N"],
            vec![
                linear("a"),
                spec("b", -INF, INF, &[0.25, 0.5, 0.75, 1.0], false),
            ],
        ),
    }
}

/// Laws of 2024-25 papers that scale one more axis than Chinchilla's.
///
/// `vocab`: Tao et al. 2024, Approach 3: L_u = -E + A1/N_nv^alpha1 + A2/N_v^alpha2 + B/D^beta
/// with beta = alpha1, as `approach3_isoloss.py` fits it (its Huber delta 1e-3 on the linear
/// residual of the unigram-normalised loss, which is negative). `parscale`: Chen et al. 2025,
/// L = (A/(N*(k*log(P) + 1)))^alpha + E, fitted by the authors with Huber delta 1e-3 on log
/// residuals (this library's default protocol).
fn recent(name: &str, citation: &str) -> Result<Law> {
    match name {
        "vocab" => Law::with_specs(
            name,
            "A1*N_nv^-alpha1 + A2*N_v^-alpha2 + B*D^-alpha1 - E",
            citation,
            &["N_nv", "N_v", "D"],
            vec![
                linear("E"),
                linear("A1"),
                spec("alpha1", 0.0, INF, EXPONENT_GRID, false),
                linear("A2"),
                spec("alpha2", 0.0, INF, EXPONENT_GRID, false),
                linear("B"),
            ],
        ),
        "precision" => precision(citation),
        "farseer" => farseer(citation),
        "distillation" => distillation(citation),
        _ => Law::with_specs(
            name,
            "E + (A/(N*(k*log(P) + 1)))^alpha",
            citation,
            &["N", "P"],
            vec![
                linear("E"),
                spec("A", 0.0, INF, &[1e5, 1e7, 1e9], false),
                spec("alpha", 0.0, INF, &[0.1, 0.2, 0.4, 0.8], false),
                spec("k", 0.0, INF, &[0.2, 0.5, 1.0], false),
            ],
        ),
    }
}

/// Kumar et al. 2024: N_eff = N (1 - e^(-P_w/gamma_w)) (1 - e^(-P_a/gamma_a))
/// (1 - e^(-P_kv/gamma_kv)) in place of N in Chinchilla's law (their eqs. 1 and 4).
fn precision(citation: &str) -> Result<Law> {
    let gamma = |name: &str, grid: &[f64]| spec(name, 0.0, INF, grid, false);
    Law::with_specs(
        "precision",
        "Neff = N*(1 - exp(-P_w/gamma_w))*(1 - exp(-P_a/gamma_a))*(1 - exp(-P_kv/gamma_kv)); \
         E + A*Neff^-alpha + B*D^-beta",
        citation,
        &["N", "D", "P_w", "P_a", "P_kv"],
        vec![
            linear("E"),
            linear("A"),
            spec("alpha", 0.0, INF, EXPONENT_GRID, false),
            linear("B"),
            spec("beta", 0.0, INF, EXPONENT_GRID, false),
            gamma("gamma_w", &[1.0, 3.0]),
            gamma("gamma_a", &[2.0]),
            gamma("gamma_kv", &[2.0]),
        ],
    )
}

/// Li et al. 2025 (Farseer): each of Chinchilla's D-term coefficient, D exponent and floor
/// becomes a function exp(a·N^b + c) of N. The floor's and the D term's factors exp(b3) and
/// exp(b2) are fitted as the linear A3 and A2; the other seven are searched from starts around
/// the published fit, in raw N and D (the law is not scale-free: a3·N^gamma changes meaning
/// with N's unit).
fn farseer(citation: &str) -> Result<Law> {
    let free = |name: &str, grid: &[f64]| spec(name, -INF, INF, grid, false);
    Law::with_specs(
        "farseer",
        FARSEER_FORMULA,
        citation,
        &["N", "D"],
        vec![
            linear("A3"),
            free("a3", &[-0.3, -0.06]),
            spec("gamma", 0.0, INF, &[0.13, 0.3], false),
            linear("A2"),
            free("a2", &[10.0, 230.0]),
            free("beta", &[-0.17, -0.05]),
            free("a1", &[-1.7, -0.5]),
            free("alpha", &[0.05, 0.15]),
            free("b1", &[0.5, 3.1]),
        ],
    )
}

/// Busbridge et al. 2025, eq. 8. The broken-power-law factor (1 + z^(1/f1))^(-c1·f1) of
/// z = L_T/(L_sup·d1) is written as exp(-c1·f1·softplus(log(z)/f1)), finite for sharp transitions
/// (as `bnsl`). Every parameter is nonlinear; the starts span the supervised fit's scale.
fn distillation(citation: &str) -> Result<Law> {
    let positive = |name: &str, grid: &[f64]| spec(name, 0.0, INF, grid, false);
    Law::with_specs(
        "distillation",
        DISTILLATION_FORMULA,
        citation,
        &["L_T", "L_sup", "N_S", "D_S"],
        vec![
            spec("c0", -INF, INF, &[0.0, 1.0], false),
            positive("c1", &[0.5, 2.0]),
            positive("d1", &[1.0]),
            positive("f1", &[1.0]),
            positive("A", &[300.0, 3000.0]),
            positive("alpha", &[0.3, 0.5]),
            positive("B", &[2000.0, 20000.0]),
            positive("beta", &[0.3, 0.5]),
            positive("gamma", &[0.5]),
        ],
    )
}

/// Ye et al. 2024's data mixing law for one validation domain over `k` training domains:
/// L = c + k·exp(Σ_j t_j r_j). The proportions sum to 1, so one t is redundant (adding a
/// constant to every t_j multiplies k by its exponential): the first domain's term is folded
/// into k, leaving t_2..t_K, each the paper's t_j − t_1, and the variables r_2..r_K.
fn mixing(name: &str, citation: &str) -> Result<Law> {
    let domains = count_in_name(name, "domains", 2, 2..=6)?;
    let terms: Vec<String> = (2..=domains).map(|j| format!("t{j}*r{j}")).collect();
    let formula = format!("c + k*exp({})", terms.join(" + "));
    let variables: Vec<String> = (2..=domains).map(|j| format!("r{j}")).collect();
    let variables: Vec<&str> = variables.iter().map(String::as_str).collect();
    let mut params = vec![spec("c", -INF, INF, &[], true), linear("k")];
    for j in 2..=domains {
        params.push(spec(&format!("t{j}"), -INF, INF, &[-1.0, 1.0], false));
    }
    let law = Law::with_specs("mixing", &formula, citation, &variables, params)?;
    Ok(Law {
        name: Some(name.to_string()),
        ..law
    })
}

/// The K of a name `LAW:K` (`default` without a colon), refused outside `range`.
fn count_in_name(
    name: &str,
    noun: &str,
    default: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<usize> {
    let Some((base, k)) = name.split_once(':') else {
        return Ok(default);
    };
    k.parse::<usize>()
        .ok()
        .filter(|k| range.contains(k))
        .ok_or_else(|| {
            Error::settings(format!(
                "'{name}': the number of {noun} after '{base}:' must be {} to {}",
                range.start(),
                range.end()
            ))
        })
}

/// Shukor et al. 2025's additive law over `k` training domains with proportions h1..hK:
/// L = E + 1/(Σ_j C_j·h_j^g_j) + A·N^−α + B·D^−β. E, A and B are linear; each domain has a
/// weight C_j ≥ 0 started at 1 and an exponent g_j started at 0.2 and 1 (free: a domain that
/// hurts the target has g_j < 0), so the grid has 4·2^K starts (256 for six domains). Every
/// proportion is kept (unlike `mixing`): the C_j are not redundant, as Ye et al.'s t_j are.
fn mixture_additive(name: &str, citation: &str) -> Result<Law> {
    let domains = count_in_name(name, "domains", 2, 2..=6)?;
    let terms: Vec<String> = (1..=domains).map(|j| format!("C{j}*h{j}^g{j}")).collect();
    let formula = format!("E + 1/({}) + A*N^-alpha + B*D^-beta", terms.join(" + "));
    let mut variables: Vec<String> = (1..=domains).map(|j| format!("h{j}")).collect();
    variables.extend(["N".to_string(), "D".to_string()]);
    let variables: Vec<&str> = variables.iter().map(String::as_str).collect();
    let mut params = vec![linear("E")];
    for j in 1..=domains {
        params.push(spec(&format!("C{j}"), 0.0, INF, &[1.0], false));
        params.push(spec(&format!("g{j}"), -INF, INF, &[0.2, 1.0], false));
    }
    params.extend([
        linear("A"),
        spec("alpha", 0.0, INF, &[0.25, 0.5], false),
        linear("B"),
        spec("beta", 0.0, INF, &[0.25, 0.5], false),
    ]);
    let law = Law::with_specs("mixture_additive", &formula, citation, &variables, params)?;
    Ok(Law {
        name: Some(name.to_string()),
        ..law
    })
}

fn data_constrained(citation: &str) -> Result<Law> {
    Law::with_specs(
        "data_constrained",
        DATA_CONSTRAINED_FORMULA,
        citation,
        &["N", "D", "U"],
        vec![
            spec("alpha", 0.0, INF, &[0.25, 0.4], false),
            spec("A", 0.0, INF, &[100.0, 1000.0], false),
            spec("beta", 0.0, INF, &[0.25, 0.4], false),
            spec("B", 0.0, INF, &[100.0, 1000.0], false),
            linear("E"),
            spec("RN_star", 0.0, INF, &[2.0, 10.0], false),
            spec("RD_star", 0.0, INF, &[5.0, 30.0], false),
        ],
    )
}

fn moe(citation: &str) -> Result<Law> {
    let small = &[0.0];
    Law::with_specs(
        "moe",
        MOE_FORMULA,
        citation,
        &["N", "D", "E"],
        vec![
            linear("a"),
            spec("alpha", -INF, 0.0, &[-0.35, -0.2], false),
            spec("delta", -INF, INF, small, false),
            spec("gamma", -INF, INF, small, false),
            linear("b"),
            spec("beta", -INF, 0.0, &[-0.35, -0.2], false),
            spec("omega", -INF, INF, small, false),
            spec("zeta", -INF, INF, small, false),
            linear("c"),
            spec("E_start", 1.0, INF, &[2.0], false),
            spec("E_max", 1.0, INF, &[300.0], false),
        ],
    )
}

/// Broken power law with `k` breaks (Caballero et al. 2022, eq. 1):
/// y = a + b x^-c0 prod_i (1 + (x/d_i)^(1/f_i))^(-c_i f_i),
/// written as the same function a + b x^-c0 exp(-sum_i c_i f_i softplus(log(x/d_i)/f_i)),
/// since (1 + u)^(-c f) = exp(-c f log(1 + u)) and log(1 + (x/d)^(1/f)) = softplus(log(x/d)/f).
/// As printed, (x/d)^(1/f) overflows f64 once x/d > 10^(308 f): for a sharp break (f = 0.004)
/// already at x = 17 d, inside the data of a typical fit, where the factor becomes 0 or ∞ and
/// its gradient NaN. Here the exponent is of the size of log y, so value and gradient stay
/// finite a million times beyond the data (tests/integration/overflow.rs).
fn bnsl(name: &str, citation: &str) -> Result<Law> {
    let breaks = count_in_name(name, "breaks", 1, 1..=4)?;
    let mut formula = "a + b*x^-c0".to_string();
    let mut params = vec![
        linear("a"),
        linear("b"),
        spec("c0", -INF, INF, &[0.0, 0.3], false),
    ];
    let mut breaks_exponent = Vec::new();
    for i in 1..=breaks {
        breaks_exponent.push(format!("c{i}*f{i}*softplus(log(x/d{i})/f{i})"));
        let slopes: &[f64] = if breaks == 1 {
            &[-0.3, 0.3, 1.0]
        } else {
            &[-0.3, 0.0, 0.3, 1.0]
        };
        params.push(spec(&format!("c{i}"), -INF, INF, slopes, false));
        if breaks == 1 {
            params.push(quantiles("d1", 0.0, "x", &[0.25, 0.5, 0.75]));
            params.push(spec("f1", 0.0, INF, &[0.3, 1.0], false));
        } else {
            // Several breaks: one ordered location each (quantile i/(K+1)) and one sharpness,
            // so the grid grows as 2·4^K rather than 2·18^K. A zero slope lets a break vanish,
            // so K breaks can always do what fewer do.
            params.push(quantiles(
                &format!("d{i}"),
                0.0,
                "x",
                &[i as f64 / (breaks + 1) as f64],
            ));
            params.push(spec(&format!("f{i}"), 0.0, INF, &[0.5], false));
        }
    }
    formula.push_str(&format!(" * exp(-{})", breaks_exponent.join(" - ")));
    let law = Law::with_specs("bnsl", &formula, citation, &["x"], params)?;
    Ok(Law {
        name: Some(name.to_string()),
        ..law
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn every_entry_builds_and_its_linear_parameters_are_affine() {
        for name in names().into_iter().chain([
            "bnsl:2",
            "bnsl:3",
            "mixing:3",
            "mixing:6",
            "mixture_additive:6",
        ]) {
            let law = lookup(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let linear: Vec<&str> = law
                .params
                .iter()
                .filter(|p| p.linear)
                .map(|p| p.name.as_str())
                .collect();
            assert!(law.is_affine_in(&linear), "{name}: {linear:?} not affine");
        }
    }

    #[test]
    fn unknown_law_suggests() {
        match lookup("chinchila") {
            Err(Error::UnknownLaw { suggestion, .. }) => {
                assert_eq!(suggestion.as_deref(), Some("chinchilla"))
            }
            other => panic!("{other:?}"),
        }
        assert!(lookup("bnsl:9").is_err());
        assert!(lookup("mixing:1").is_err());
        assert!(lookup("mixing:7").is_err());
        let refused = lookup("mixture_additive:7").unwrap_err().to_string();
        assert!(
            refused.contains("number of domains after 'mixture_additive:' must be 2 to 6"),
            "{refused}"
        );
    }

    /// Ludziejewski et al. 2025, Table 3's fit: at E = 1 the law is m·N^μ + n·D^ν + c with
    /// their Table 4's dense coefficients (m = 30.40, μ = −0.1818, n = 53.84, ν = −0.1964).
    #[test]
    fn moe_reduces_to_the_published_dense_law_at_one_expert() {
        let law = lookup("moe").unwrap();
        let params = moe_published(&law);
        for (n, d) in [(1e8, 1e10), (2e9, 4e10), (7e10, 1.4e12)] {
            let dense = 30.40 * f64::powf(n, -0.1818) + 53.84 * f64::powf(d, -0.1964) + 1.3637;
            let moe = law.eval(&params, &[n, d, 1.0]);
            assert!((moe / dense - 1.0).abs() < 2e-3, "{moe} vs {dense}");
        }
        // More experts at the same active size and data: lower loss.
        let (one, many) = (
            law.eval(&params, &[1e9, 2e10, 1.0]),
            law.eval(&params, &[1e9, 2e10, 32.0]),
        );
        assert!(many < one, "{many} >= {one}");
    }

    /// The constants of Ludziejewski et al. 2025, Table 3, in the law's parameter order.
    pub(crate) fn moe_published(law: &Law) -> Vec<f64> {
        let value = |name: &str| match name {
            "a" => 35.91,
            "alpha" => -0.1889,
            "delta" => -0.2285,
            "gamma" => 0.0098,
            "b" => 35.98,
            "beta" => -0.1775,
            "omega" => 0.5529,
            "zeta" => -0.0259,
            "c" => 1.3637,
            "E_start" => 2.0732,
            "E_max" => 290.4521,
            _ => f64::NAN,
        };
        law.params.iter().map(|p| value(&p.name)).collect()
    }

    #[test]
    fn data_constrained_reproduces_the_published_prediction() {
        // Muennighoff et al. 2023 README: L(N=6.34e9, D=242e9, U=25e9) with the published fit.
        let law = lookup("data_constrained").unwrap();
        let value = |name: &str| match name {
            "alpha" | "beta" => 0.3526596,
            "A" => 6.255414f64.exp(),
            "B" => 7.3049974f64.exp(),
            "E" => 0.6254804f64.exp(),
            "RN_star" => 5.309743,
            "RD_star" => 15.387756,
            _ => f64::NAN,
        };
        let params: Vec<f64> = law.params.iter().map(|p| value(&p.name)).collect();
        let prediction = law.eval(&params, &[6.34e9, 242e9, 25e9]);
        let expected = 2.2256440889984477;
        assert!(
            ((prediction - expected) / expected).abs() < 1e-12,
            "{prediction:.17}"
        );
    }
}
