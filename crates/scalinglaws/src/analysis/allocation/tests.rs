//! The allocation search against closed forms, caps, inference and held choices.

use super::frontier::problem;
use super::search::chinchilla_closed_form;
use super::*;
use crate::law::catalog;

fn settings(budgets: Vec<f64>) -> AllocationSettings {
    AllocationSettings::at_budgets(budgets)
}

/// Caps on size and tokens hold the optimum at the bound, in the closed form and in the
/// numerical search alike.
#[test]
fn caps_hold_the_optimum_at_their_bound() {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
    let mut s = settings(vec![5.88e23]);
    s.max_params = Some(3e10);
    let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    assert!((a.n / 3e10 - 1.0).abs() < 1e-9 && a.binding.as_deref() == Some("max_params"));
    s.max_params = None;
    s.max_tokens = Some(1e12);
    let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    assert!((a.d / 1e12 - 1.0).abs() < 1e-6, "D = {:e}", a.d);
    assert_eq!(a.binding.as_deref(), Some("max_tokens"));
    // The same through the numerical search (a formula law has no closed form).
    let formula =
        Law::from_formula("E + A*N^-alpha + B*D^-beta", &|v| v == "N" || v == "D").unwrap();
    let a = optimal(&formula, &params, &s).unwrap().allocations[0].clone();
    assert!((a.d / 1e12 - 1.0).abs() < 1e-6, "numerical D = {:e}", a.d);
    // Caps that leave nothing are an error.
    s.max_params = Some(1e9);
    assert!(optimal(&law, &params, &s)
        .unwrap_err()
        .to_string()
        .contains("caps"));
}

/// Epoch AI's published parameters at Chinchilla's budget: N* ≈ 7.312e10, D*/N* ≈ 18.33.
#[test]
fn epochs_parameters_give_chinchillas_allocation() {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
    let frontier = optimal(&law, &params, &settings(vec![5.88e23])).unwrap();
    let a = &frontier.allocations[0];
    assert_eq!(frontier.method, "closed form");
    println!("Epoch: N* = {:e}, D*/N* = {}", a.n, a.tokens_per_param);
    assert!((a.n / 7.312e10 - 1.0).abs() < 0.01, "N* = {:e}", a.n);
    assert!(
        (a.tokens_per_param / 18.33 - 1.0).abs() < 0.01,
        "D*/N* = {}",
        a.tokens_per_param
    );
    // The numerical search agrees with the closed form.
    let one_budget = settings(vec![5.88e23]);
    let problem = problem(&law, &one_budget).unwrap();
    let roles = problem.roles(&[]);
    let numerical = allocation_at(&roles, &params, Goal::Budget(5.88e23), false).unwrap();
    assert!(
        (numerical.n / a.n - 1.0).abs() < 1e-6,
        "{:e} vs {:e}",
        numerical.n,
        a.n
    );
}

/// Datablations' published parameters (Muennighoff et al. 2023) at C = 1e22 with 25e9
/// unique tokens: D* ≈ 237.34e9, N* ≈ 7.02e9.
#[test]
fn datablations_parameters_give_the_papers_allocation() {
    let law = catalog::lookup("data_constrained").unwrap();
    let by_name = [
        ("E", 0.6254804f64.exp()),
        ("A", 6.255414f64.exp()),
        ("alpha", 0.3526596),
        ("B", 7.3049974f64.exp()),
        ("beta", 0.3526596),
        ("RN_star", 5.309743),
        ("RD_star", 15.387756),
    ];
    let params: Vec<f64> = law
        .params
        .iter()
        .map(|p| by_name.iter().find(|(n, _)| *n == p.name).unwrap().1)
        .collect();
    let mut s = settings(vec![1e22]);
    s.held.insert("U".into(), vec![25e9]);
    let frontier = optimal(&law, &params, &s).unwrap();
    let a = &frontier.allocations[0];
    assert_eq!(frontier.method, "numerical");
    println!("datablations: N* = {:e}, D* = {:e}", a.n, a.d);
    assert!((a.d / 237.34e9 - 1.0).abs() < 0.01, "D* = {:e}", a.d);
    assert!((a.n / 7.02e9 - 1.0).abs() < 0.01, "N* = {:e}", a.n);
}

/// Ludziejewski et al. 2025, Table 1: with their Table 3 fit, a dense model (E = 1) at
/// 1e20 FLOPs is best at N = 1.7B active parameters trained on 9.7B tokens.
#[test]
fn moe_published_fit_gives_the_papers_dense_optimum() {
    let law = catalog::lookup("moe").unwrap();
    let params = crate::law::catalog::tests::moe_published(&law);
    let mut s = settings(vec![1e20]);
    s.held.insert("E".into(), vec![1.0]);
    let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    println!("moe E=1 at 1e20: N = {:e}, D = {:e}", a.n, a.d);
    assert!((a.n / 1.7e9 - 1.0).abs() < 0.03, "N = {:e}", a.n);
    assert!((a.d / 9.7e9 - 1.0).abs() < 0.03, "D = {:e}", a.d);
}

/// Several expert counts are a choice: without a memory cap more experts win; a cap on
/// total parameters (Switch-style MoE without embeddings: N·(4+9E)/13) makes the search
/// trade experts for active size, and never breaks the cap.
#[test]
fn expert_counts_are_chosen_under_a_memory_cap() {
    let law = catalog::lookup("moe").unwrap();
    let params = crate::law::catalog::tests::moe_published(&law);
    let mut s = settings(vec![1e21]);
    s.held
        .insert("E".into(), vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
    s.total_params = Some(Formula::parse("N*(4+9*E)/13", &["N", "E"], "total").unwrap());
    let free = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    assert_eq!(free.chosen["E"], 64.0);
    s.max_params = Some(5e9);
    let capped = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    println!(
        "moe at 1e21: free E = {}, N = {:e}, total {:e}; capped at 5e9 total: E = {}, N = {:e}, total {:e}, loss {} vs {}",
        free.chosen["E"], free.n, free.total_params.unwrap(),
        capped.chosen["E"], capped.n, capped.total_params.unwrap(), capped.loss, free.loss
    );
    assert!(capped.total_params.unwrap() <= 5e9 * (1.0 + 1e-9));
    assert!(capped.loss >= free.loss);
    // An active-parameter cap binds N itself.
    s.max_params = None;
    s.max_active = Some(1e9);
    let active = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    assert!(active.n <= 1e9 * (1.0 + 1e-9), "N = {:e}", active.n);
}

/// Sardana et al. 2024 (Beyond Chinchilla-Optimal), with their Chinchilla constants
/// (E 1.69, A 406.4, B 410.7, alpha 0.336, beta 0.283): a model of the quality of a
/// Chinchilla-optimal 13B, served for 2e12 tokens, is best at about 7B trained longer,
/// saving 1.7e22 FLOPs (17 %); one of 30B quality served for 1e13 tokens, 13.6B trained on
/// 2.84× the data, saving 28 %.
#[test]
fn inference_tokens_reproduce_sardanas_examples() {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.69, 406.4, 0.336, 410.7, 0.283];
    for (n0, t, n_expected, d_ratio, saved) in [
        (13e9, 2e12, 6.97e9, None, 0.174),
        (30e9, 1e13, 13.61e9, Some(2.84), 0.280),
    ] {
        // The Chinchilla-optimal budget and loss for n0 (closed form inverted).
        let (_, d_at_unit) = chinchilla_closed_form(&params, 6.0, 6.0);
        let (alpha, beta) = (params[2], params[4]);
        let g = 1.0 / d_at_unit;
        let c = 6.0 * (n0 / g).powf((alpha + beta) / beta);
        let d0 = c / (6.0 * n0);
        let loss = law.eval(&params, &[n0, d0]);
        let mut s = settings(Vec::new());
        s.target_losses = vec![loss];
        s.inference_tokens = t;
        let frontier = optimal(&law, &params, &s).unwrap();
        let a = &frontier.allocations[0];
        let r = a.reference.as_ref().unwrap();
        println!(
            "Sardana {n0:e} quality (loss {loss:.4}, D0 {d0:e}), T = {t:e}: N = {:e}, D = {:e} ({:.3}x D0), saves {:.1}% ({:e} FLOPs)",
            a.n, a.d, a.d / d0, 100.0 * r.savings, r.budget - a.budget
        );
        assert!((r.n / n0 - 1.0).abs() < 1e-4, "reference N = {:e}", r.n);
        assert!((a.n / n_expected - 1.0).abs() < 0.01, "N = {:e}", a.n);
        assert!((r.savings - saved).abs() < 0.005, "savings {}", r.savings);
        if let Some(ratio) = d_ratio {
            assert!((a.d / d0 / ratio - 1.0).abs() < 0.01, "D/D0 = {}", a.d / d0);
        }
        assert!((law.eval(&params, &[a.n, a.d]) / loss - 1.0).abs() < 1e-9);
    }
}

/// With no inference, the cheapest way to a loss is the compute-optimal allocation of the
/// budget that reaches it (the two problems are dual).
#[test]
fn a_target_loss_without_inference_is_the_dual_of_a_budget() {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
    let at_budget = optimal(&law, &params, &settings(vec![1e22]))
        .unwrap()
        .allocations[0]
        .clone();
    let mut s = settings(Vec::new());
    s.target_losses = vec![at_budget.loss];
    let at_loss = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    assert!(
        (at_loss.budget / 1e22 - 1.0).abs() < 1e-6,
        "{:e}",
        at_loss.budget
    );
    assert!((at_loss.n / at_budget.n - 1.0).abs() < 1e-4);
    // A loss below the law's floor E is unreachable.
    s.target_losses = vec![1.5];
    assert!(optimal(&law, &params, &s)
        .unwrap_err()
        .to_string()
        .contains("loss"));
    // Inference tokens at a budget leave less for training: a smaller model.
    let mut s = settings(vec![1e22]);
    s.inference_tokens = 1e12;
    let served = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    assert!(served.n < at_budget.n);
    let total = served.training_flops.unwrap() + served.inference_flops.unwrap();
    assert!((total / 1e22 - 1.0).abs() < 1e-9);
}

#[test]
fn the_frontier_exponents_follow_the_closed_form() {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
    let frontier = optimal(&law, &params, &settings(vec![1e20, 1e22, 1e24])).unwrap();
    let e = frontier.exponents.unwrap();
    let (alpha, beta) = (params[2], params[4]);
    assert!((e.a - beta / (alpha + beta)).abs() < 1e-9, "a = {}", e.a);
    assert!((e.b - alpha / (alpha + beta)).abs() < 1e-9, "b = {}", e.b);
}

/// Hoffmann et al. 2022's eq. 4, written out: N* = G·(C/6)^(β/(α+β)), and the loss there.
fn hoffmann_eq4(p: &[f64], c: f64) -> (f64, f64) {
    let [e, a, alpha, b, beta] = [p[0], p[1], p[2], p[3], p[4]];
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let n = g * (c / 6.0).powf(beta / (alpha + beta));
    let d = c / (6.0 * n);
    (n, e + a * n.powf(-alpha) + b * d.powf(-beta))
}

const ISSUE_18: [f64; 5] = [1.69, 406.4, 0.1, 410.7, 0.5];
const HOFFMANN: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];

fn formula_chinchilla() -> Law {
    Law::from_formula("E + A*N^-alpha + B*D^-beta", &|v| v == "N" || v == "D").unwrap()
}

/// Issue 18: N* beyond 1e16 (α = 0.1, β = 0.5 at 1e22 and 1e24 FLOPs; Hoffmann's fit at
/// 1e36 and 1e40) is the closed form's, not the edge of a search range, and so are the
/// losses and the frontier's exponents.
#[test]
fn the_closed_form_is_never_clamped() {
    let law = catalog::lookup("chinchilla").unwrap();
    for (params, budgets) in [(ISSUE_18, vec![1e22, 1e24]), (HOFFMANN, vec![1e36, 1e40])] {
        let frontier = optimal(&law, &params, &settings(budgets.clone())).unwrap();
        assert_eq!(frontier.method, "closed form");
        for (a, &c) in frontier.allocations.iter().zip(&budgets) {
            let (n, loss) = hoffmann_eq4(&params, c);
            println!(
                "{params:?} at {c:e}: N* = {:e} (eq. 4: {n:e}), loss {}",
                a.n, a.loss
            );
            assert!((a.n / n - 1.0).abs() < 1e-12, "N* = {:e} vs {n:e}", a.n);
            assert!((a.loss / loss - 1.0).abs() < 1e-12, "{} vs {loss}", a.loss);
            assert!(a.binding.is_none());
        }
        let e = frontier.exponents.unwrap();
        let (alpha, beta) = (params[2], params[4]);
        assert!((e.a - beta / (alpha + beta)).abs() < 1e-9, "a = {}", e.a);
        assert!((e.b - alpha / (alpha + beta)).abs() < 1e-9, "b = {}", e.b);
    }
    // The issue's numbers.
    let frontier = optimal(&law, &ISSUE_18, &settings(vec![1e22, 1e24])).unwrap();
    let [low, high] = [&frontier.allocations[0], &frontier.allocations[1]];
    assert!((low.n / 3.25e16 - 1.0).abs() < 0.005 && (high.n / 1.51e18 - 1.0).abs() < 0.005);
    assert!((low.loss - 12.58).abs() < 0.005 && (high.loss - 9.11).abs() < 0.005);
}

/// A target loss in the closed form inverts it exactly, at any distance: the budget
/// reaching the loss of 1e40 FLOPs is 1e40.
#[test]
fn a_target_loss_inverts_the_closed_form_at_any_budget() {
    let law = catalog::lookup("chinchilla").unwrap();
    for c in [1e20, 1e40, 1e60] {
        let (n, loss) = hoffmann_eq4(&HOFFMANN, c);
        let mut s = settings(Vec::new());
        s.target_losses = vec![loss];
        let a = optimal(&law, &HOFFMANN, &s).unwrap().allocations[0].clone();
        assert!((a.budget / c - 1.0).abs() < 1e-6, "{:e} vs {c:e}", a.budget);
        assert!((a.n / n - 1.0).abs() < 1e-6, "{:e} vs {n:e}", a.n);
    }
}

/// The numerical search (a formula law has no closed form) widens its range of N until
/// the optimum lies inside: it agrees with eq. 4 at 1e24 and 1e40 FLOPs, in the issue's
/// case and with Hoffmann's fit, to 1e-4 in N* and 1e-9 in the loss.
#[test]
fn the_numerical_search_reaches_the_closed_form_far_out() {
    let formula = formula_chinchilla();
    for params in [ISSUE_18, HOFFMANN] {
        let budgets = vec![1e24, 1e40];
        let frontier = optimal(&formula, &params, &settings(budgets.clone())).unwrap();
        assert_eq!(frontier.method, "numerical");
        for (a, &c) in frontier.allocations.iter().zip(&budgets) {
            let (n, loss) = hoffmann_eq4(&params, c);
            println!(
                "numerical {params:?} at {c:e}: N* = {:e} (eq. 4: {n:e})",
                a.n
            );
            assert!((a.n / n - 1.0).abs() < 1e-4, "N* = {:e} vs {n:e}", a.n);
            assert!((a.loss / loss - 1.0).abs() < 1e-9, "{} vs {loss}", a.loss);
        }
        let e = frontier.exponents.unwrap();
        let (alpha, beta) = (params[2], params[4]);
        assert!((e.a - beta / (alpha + beta)).abs() < 1e-5, "a = {}", e.a);
        // A target loss far out, too.
        let (n, loss) = hoffmann_eq4(&params, 1e40);
        let mut s = settings(Vec::new());
        s.target_losses = vec![loss];
        let a = optimal(&formula, &params, &s).unwrap().allocations[0].clone();
        assert!((a.budget / 1e40 - 1.0).abs() < 1e-4, "{:e}", a.budget);
        assert!((a.n / n - 1.0).abs() < 1e-3, "{:e} vs {n:e}", a.n);
    }
}

/// A law whose loss keeps falling as N grows along the budget has no optimum: the search
/// says so, naming the budget and the range, rather than reporting the edge.
#[test]
fn an_optimum_beyond_the_widest_range_is_an_error() {
    let law = Law::from_formula("E + A*N^-alpha + 0*D", &|v| v == "N" || v == "D").unwrap();
    let error = optimal(&law, &[1.69, 406.4, 0.34], &settings(vec![1e22])).unwrap_err();
    let message = error.to_string();
    println!("{message}");
    assert!(error.is_input_error(), "{message}");
    for needle in [
        "budget 1e22",
        "no longer changes with N",
        "cap the model size",
    ] {
        assert!(message.contains(needle), "{needle:?} in {message}");
    }
    // Falling without going flat (E = 0: the loss stays resolved): the end of the range.
    let error = optimal(&law, &[0.0, 406.4, 0.34], &settings(vec![1e22])).unwrap_err();
    let message = error.to_string();
    println!("{message}");
    for needle in [
        "budget 1e22",
        "N from 1.000e-10 to 1.000e100",
        "still falls",
    ] {
        assert!(message.contains(needle), "{needle:?} in {message}");
    }
    // With a cap on N the same law is held at the cap, as a cap should.
    let mut s = settings(vec![1e22]);
    s.max_active = Some(1e12);
    let a = optimal(&law, &[1.69, 406.4, 0.34], &s).unwrap().allocations[0].clone();
    assert!((a.n / 1e12 - 1.0).abs() < 1e-9 && a.binding.as_deref() == Some("max_active"));
}

#[test]
fn other_flops_formulas_and_missing_variables_are_handled() {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
    let mut s = settings(vec![5.88e23]);
    s.flops = Flops::parse("6*N*D + 2*N*1e3").unwrap();
    let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
    assert!((s.flops.at(a.n, a.d) / 5.88e23 - 1.0).abs() < 1e-9);
    assert!(Flops::parse("6*N*T").is_err());
    let constrained = catalog::lookup("data_constrained").unwrap();
    let error = optimal(&constrained, &[1.0; 7], &settings(vec![1e22])).unwrap_err();
    assert!(error.to_string().contains("set[\"U\"]=VALUE"), "{error}");
    assert_eq!(error.key(), Some(Setting::Set));
}

/// A set token stops the solves (the point's and every draw's) with `Error::Interrupted`.
#[test]
fn an_interrupt_stops_the_solves() {
    let law = catalog::lookup("chinchilla").unwrap();
    let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
    let mut s = settings(vec![1e21, 1e23, 1e25]);
    s.draws = vec![params.to_vec(); 50];
    assert!(optimal(&law, &params, &s).is_ok());
    s.interrupt.interrupt();
    assert!(matches!(
        optimal(&law, &params, &s),
        Err(crate::Error::Interrupted)
    ));
}
