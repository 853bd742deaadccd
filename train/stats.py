"""Confidence intervals for benchmark means: Student's t over independent samples.

The tournament treats each deal as one independent sample (see
:mod:`train.tournament`); :func:`mean_ci` turns the per-deal values into a
mean and the half-width of its two-sided confidence interval.

The t quantile is computed without SciPy: the exact finite-sum form of the
t distribution's CDF for integer degrees of freedom (Abramowitz & Stegun
26.7.3 and 26.7.4) inverted by bisection, and for many degrees of freedom
the Cornish-Fisher expansion around the normal quantile (A&S 26.7.5), whose
error there is far below the sampling error it describes.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

_EXACT_UP_TO = 200  # degrees of freedom summed exactly; above, the expansion


def t_cdf_two_sided(t: float, df: int) -> float:
    """``P(|T| <= t)`` for Student's t with ``df`` degrees of freedom (``t >= 0``)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 1:  # (2/pi) [theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ...)]
        term, total = 1.0, 0.0
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 0.0  # sin [1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...]
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return math.sin(theta) * total


def t_quantile(confidence: float, df: int) -> float:
    """The ``t`` with ``P(|T| <= t) = confidence`` for ``df`` degrees of freedom.

    Raises:
        ValueError: for a confidence outside (0, 1) or ``df < 1``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1; got {confidence}")
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1; got {df}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    if df > _EXACT_UP_TO:
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        return z + g1 / df + g2 / df**2 + g3 / df**3
    lo, hi = z, 2 * z
    while t_cdf_two_sided(hi, df) < confidence:
        lo, hi = hi, 2 * hi
    for _ in range(100):
        mid = (lo + hi) / 2
        if t_cdf_two_sided(mid, df) < confidence:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


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
