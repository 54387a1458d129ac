"""The statistics of a comparison of repetitions: the mean with its 95%
confidence interval from Student's t distribution, and Welch's two-sided
t-test of two variants' means (unequal variances, Welch-Satterthwaite
degrees of freedom). Plain Python (no SciPy at run time): the t
distribution's CDF from the regularized incomplete beta function
(Numerical Recipes' continued fraction, Lentz's method), its quantile by
bisection on the CDF; tests/unit/test_exp.py holds them to SciPy's."""
import math

LEVEL = 0.95        # the confidence intervals' level
ALPHA = 0.05        # a difference is significant when p < ALPHA
CI_METHOD = ("95% confidence interval of the mean from Student's t "
             "distribution: mean +- t(0.975, n-1) * s / sqrt(n), s the "
             "sample standard deviation; none with fewer than 2 runs")
TEST_METHOD = ("Welch's two-sided t-test (unequal variances, "
               "Welch-Satterthwaite degrees of freedom), significant when "
               "p < 0.05, each variant against the first of its "
               "combination, metric by metric, with no correction for the "
               "number of tests")


def _betacf(a, b, x):
    """the continued fraction of the incomplete beta function"""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """the regularized incomplete beta function I_x(a, b)"""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
           a * math.log(x) + b * math.log(1.0 - x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_sf2(t, df):
    """P(|T| >= |t|) for Student's t with @df degrees of freedom (the
    two-sided p-value)"""
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_ppf(p, df):
    """the quantile of Student's t: P(T <= q) = @p (0.5 < p < 1)"""
    want = 2.0 * (1.0 - p)      # the two-sided tail at q
    lo, hi = 0.0, 1.0
    while t_sf2(hi, df) > want:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_sf2(mid, df) > want:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


def _mean_var(vals):
    n = len(vals)
    mean = sum(vals) / n
    var = sum((v - mean) ** 2 for v in vals) / (n - 1) if n > 1 else None
    return mean, var


def mean_ci(vals):
    """(mean, low, high) of @vals: the 95% interval from Student's t;
    low and high None with fewer than 2 values; (None, None, None) with
    none"""
    if not vals:
        return None, None, None
    mean, var = _mean_var(vals)
    if var is None:
        return mean, None, None
    half = t_ppf(0.5 + LEVEL / 2.0, len(vals) - 1) * \
        math.sqrt(var / len(vals))
    return mean, mean - half, mean + half


def welch(a, b):
    """Welch's test of mean(@b) - mean(@a): (difference, its 95% interval
    low, high, p) or None with fewer than 2 values on a side; when both
    sides have no spread, p is 0 if the means differ, else 1"""
    if len(a) < 2 or len(b) < 2:
        return None
    ma, va = _mean_var(a)
    mb, vb = _mean_var(b)
    diff = mb - ma
    sa, sb = va / len(a), vb / len(b)
    se2 = sa + sb
    if se2 == 0:
        return diff, diff, diff, (0.0 if diff else 1.0)
    df = se2 ** 2 / ((sa ** 2 / (len(a) - 1) if sa else 0.0) +
                     (sb ** 2 / (len(b) - 1) if sb else 0.0))
    se = math.sqrt(se2)
    half = t_ppf(0.5 + LEVEL / 2.0, df) * se
    return diff, diff - half, diff + half, t_sf2(diff / se, df)
