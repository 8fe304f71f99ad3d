"""Likelihood families against statsmodels, fitted in this environment on the same data.

Each law here is a GLM (or a t linear model) written as a scaling law: ``A*x^b`` with
``poisson`` or ``negative_binomial`` is the log-link count GLM on ``log x``,
``sigmoid(a + b*log(x))`` with ``binomial`` the logistic GLM, and ``c + s*x`` with
``student_t`` statsmodels' ``TLinearModel``. Parameters agree to 1e-6 (relative) and the
maximised log-likelihood to 1e-8 (relative), as the families' issue asks.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import scalinglaws as sl

sm = pytest.importorskip("statsmodels.api", reason="statsmodels is not installed")

PARAMS = 1e-6
LOGLIK = 1e-8


def close(a: float, b: float, tol: float) -> bool:
    return abs(a - b) <= tol * max(abs(a), abs(b))


def design(x: np.ndarray) -> np.ndarray:
    return sm.add_constant(np.log(x))


@pytest.fixture(scope="module")
def sizes() -> np.ndarray:
    return np.repeat(np.logspace(0, 3, 8), 4)


def test_poisson_matches_the_log_link_glm(sizes: np.ndarray) -> None:
    rng = np.random.default_rng(7)
    y = rng.poisson(2.0 * sizes**0.4)
    ref = sm.GLM(y, design(sizes), family=sm.families.Poisson()).fit(tol=1e-14)
    fit = sl.fit(pd.DataFrame({"x": sizes, "y": y}), formula="A*x^b", target="y",
                 family="poisson", calibrate=False)
    assert close(fit.params["A"], math.exp(ref.params[0]), PARAMS)
    assert close(fit.params["b"], ref.params[1], PARAMS)
    assert close(fit.stats["log_likelihood"], ref.llf, LOGLIK)
    # The observed information at the optimum is statsmodels' (canonical link).
    assert close(fit.stderr["b"], ref.bse[1], 1e-5)


def test_poisson_exposure_is_a_log_offset(sizes: np.ndarray) -> None:
    rng = np.random.default_rng(8)
    exposure = rng.uniform(0.5, 3.0, size=sizes.size)
    y = rng.poisson(exposure * 2.0 * sizes**0.4)
    ref = sm.GLM(y, design(sizes), family=sm.families.Poisson(),
                 exposure=exposure).fit(tol=1e-14)
    frame = pd.DataFrame({"x": sizes, "y": y, "E": exposure})
    fit = sl.fit(frame, formula="A*x^b", target="y", family="poisson", exposure="E",
                 calibrate=False)
    assert close(fit.params["b"], ref.params[1], PARAMS)
    assert close(fit.stats["log_likelihood"], ref.llf, LOGLIK)


def test_negative_binomial_matches_nb2_with_fitted_alpha(sizes: np.ndarray) -> None:
    rng = np.random.default_rng(7)
    mu, alpha = 2.0 * sizes**0.6, 0.4
    y = rng.negative_binomial(1 / alpha, 1 / (1 + alpha * mu))
    ref = sm.NegativeBinomial(y, design(sizes)).fit(method="newton", tol=1e-14,
                                                    maxiter=200, disp=0)
    fit = sl.fit(pd.DataFrame({"x": sizes, "y": y}), formula="A*x^b", target="y",
                 family="negative_binomial", calibrate=False)
    assert close(fit.params["A"], math.exp(ref.params[0]), PARAMS)
    assert close(fit.params["b"], ref.params[1], PARAMS)
    name, value = fit.family["dispersion"]
    assert name == "alpha" and close(value, ref.params[2], PARAMS)
    assert close(fit.stats["log_likelihood"], ref.llf, LOGLIK)


def test_binomial_matches_the_logistic_glm(sizes: np.ndarray) -> None:
    rng = np.random.default_rng(9)
    n = rng.integers(50, 500, size=sizes.size)
    p = 1 / (1 + np.exp(-(-2 + 0.7 * np.log(sizes))))
    k = rng.binomial(n, p)
    ref = sm.GLM(np.c_[k, n - k], design(sizes),
                 family=sm.families.Binomial()).fit(tol=1e-14)
    frame = pd.DataFrame({"x": sizes, "acc": k / n, "n": n})
    fit = sl.fit(frame, formula="sigmoid(a + b*log(x))", target="acc", family="binomial",
                 trials="n", calibrate=False)
    assert close(fit.params["a"], ref.params[0], PARAMS)
    assert close(fit.params["b"], ref.params[1], PARAMS)
    assert close(fit.stats["log_likelihood"], ref.llf, LOGLIK)


@pytest.mark.parametrize("nu", [4.0, None])
def test_student_t_matches_statsmodels_t_linear_model(nu: float) -> None:
    from statsmodels.miscmodels.tmodel import TLinearModel

    rng = np.random.default_rng(7)
    x = np.linspace(1, 10, 40)
    y = 1.5 + 0.8 * x + 0.3 * rng.standard_t(4, size=x.size)
    model = TLinearModel(y, sm.add_constant(x), **({} if nu is None else {"fix_df": nu}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = model.fit(method="nm", maxiter=20000, disp=0)
        ref = model.fit(start_params=start.params, method="bfgs", gtol=1e-13,
                        maxiter=5000, disp=0)
    fit = sl.fit(pd.DataFrame({"x": x, "y": y}), formula="c + s*x", target="y",
                 family="student_t", nu=nu, space="linear", calibrate=False)
    assert close(fit.params["c"], ref.params[0], PARAMS)
    assert close(fit.params["s"], ref.params[1], PARAMS)
    family = fit.family
    assert close(family["dispersion"][1], ref.params[-1], PARAMS)
    if nu is None:
        assert close(family["nu"], ref.params[2], PARAMS)
    assert close(fit.stats["log_likelihood"], ref.llf, LOGLIK)


def test_a_family_refuses_a_loss_and_needs_its_trials(sizes: np.ndarray) -> None:
    frame = pd.DataFrame({"x": sizes, "acc": np.full(sizes.size, 0.5)})
    with pytest.raises(sl.SettingsError, match="family"):
        sl.fit(frame, formula="sigmoid(a + b*log(x))", target="acc", family="binomial",
               trials=100, loss="linear", calibrate=False)
    with pytest.raises(sl.SettingsError, match="trials"):
        sl.fit(frame, formula="sigmoid(a + b*log(x))", target="acc", family="binomial",
               calibrate=False)
    with pytest.raises(sl.SettingsError, match="no such family"):
        sl.fit(frame, formula="sigmoid(a + b*log(x))", target="acc", family="binomal",
               calibrate=False)
