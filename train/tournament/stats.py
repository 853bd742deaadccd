"""Confidence intervals for benchmark means: Student's t over independent samples.

The tournament treats each deal as one independent sample (see
:mod:`spar_train.tournament`); :func:`mean_ci` turns the per-deal values into a
mean and the half-width of its two-sided confidence interval.

The t quantile is SciPy's (``scipy.special.stdtrit``, the inverse of the t
distribution's CDF; the lighter import of what ``scipy.stats.t.ppf`` computes).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import stdtrit


def t_quantile(confidence: float, df: int) -> float:
    """The ``t`` with ``P(|T| <= t) = confidence`` for ``df`` degrees of freedom.

    Raises:
        ValueError: for a confidence outside (0, 1) or ``df < 1``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1; got {confidence}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1; got {df}")
    return float(stdtrit(df, 0.5 + confidence / 2))


def mean_ci(samples: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The mean of independent ``samples`` and the half-width of its confidence interval.

    The half-width is ``t * s / sqrt(n)`` with ``s`` the sample standard
    deviation; it is ``nan`` for fewer than two samples.

    Raises:
        ValueError: for an empty sample.
    """
    x = np.asarray(samples, dtype=np.float64)
    if x.size == 0:
        raise ValueError("mean_ci needs at least one sample; got none")
    mean = float(x.mean())
    if x.size < 2:
        return mean, math.nan
    sd = float(x.std(ddof=1))
    return mean, t_quantile(confidence, x.size - 1) * sd / math.sqrt(x.size)
