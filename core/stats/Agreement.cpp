#include "stats/Agreement.h"

#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace kosmos {

namespace {

// Continued fraction for the regularised incomplete beta function (modified Lentz).
double betaContinuedFraction(double a, double b, double x)
{
    constexpr double tiny = 1e-300;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    d = 1.0 / (std::abs(d) < tiny ? tiny : d);
    double h = d;
    for (int m = 1; m <= 400; ++m) {
        const double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + aa * d;
        d = 1.0 / (std::abs(d) < tiny ? tiny : d);
        c = 1.0 + aa / c;
        c = std::abs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + aa * d;
        d = 1.0 / (std::abs(d) < tiny ? tiny : d);
        c = 1.0 + aa / c;
        c = std::abs(c) < tiny ? tiny : c;
        const double delta = d * c;
        h *= delta;
        if (std::abs(delta - 1.0) < 1e-15)
            break;
    }
    return h;
}

// I_x(a, b).
double regularizedBeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double logFront =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0))
        return std::exp(logFront) * betaContinuedFraction(a, b, x) / a;
    return 1.0 - std::exp(logFront) * betaContinuedFraction(b, a, 1.0 - x) / b;
}

// The p-quantile of Beta(a, b), by bisection on I_x(a, b) (monotone in x).
double betaQuantile(double p, double a, double b)
{
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; ++i) {
        const double mid = (lo + hi) / 2;
        (regularizedBeta(a, b, mid) < p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

std::vector<double> averageRanks(const std::vector<double> &v)
{
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto i, auto j) { return v[i] < v[j]; });
    std::vector<double> ranks(v.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
            ++j;
        const double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
        for (std::size_t k = i; k <= j; ++k)
            ranks[order[k]] = rank;
        i = j + 1;
    }
    return ranks;
}

void requireSameLength(std::size_t a, std::size_t b, const char *what)
{
    if (a != b)
        throw Error(ErrorCode::InvalidInput,
                    std::string(what) + ": the two lists differ in length (" + std::to_string(a) +
                        " vs " + std::to_string(b) + ")");
}

} // namespace

Proportion clopperPearson(int successes, int n, double alpha)
{
    checkCounts("clopperPearson", successes, n);
    if (!(alpha > 0 && alpha < 1))
        throw Error(ErrorCode::InvalidInput,
                    "clopperPearson: alpha must lie strictly between 0 and 1");
    Proportion p;
    p.successes = successes;
    p.n = n;
    if (n == 0)
        return p;
    p.rate = static_cast<double>(successes) / n;
    p.lower = successes == 0 ? 0.0 : betaQuantile(alpha / 2, successes, n - successes + 1);
    p.upper = successes == n ? 1.0 : betaQuantile(1 - alpha / 2, successes + 1, n - successes);
    return p;
}

McNemarResult mcnemarExact(int b, int c)
{
    if (b < 0 || c < 0)
        throw Error(ErrorCode::InvalidInput, "mcnemarExact: counts must not be negative");
    McNemarResult r;
    r.b = b;
    r.c = c;
    r.discordant = b + c;
    if (r.discordant == 0)
        return r;
    const int n = r.discordant;
    double tail = 0;
    for (int i = 0; i <= std::min(b, c); ++i)
        tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) -
                         n * std::log(2.0));
    r.pValue = std::min(1.0, 2.0 * tail);
    return r;
}

double fisherExactTwoSided(int a, int b, int c, int d)
{
    if (a < 0 || b < 0 || c < 0 || d < 0)
        throw Error(ErrorCode::InvalidInput, "fisherExactTwoSided: counts must not be negative");
    const int row1 = a + b;
    const int col1 = a + c;
    const int n = a + b + c + d;
    if (n == 0)
        return 1.0;
    auto logChoose = [](int k, int r) {
        return std::lgamma(k + 1.0) - std::lgamma(r + 1.0) - std::lgamma(k - r + 1.0);
    };
    // P(X = x) for the top-left cell, X hypergeometric with the margins fixed.
    auto probability = [&](int x) {
        return std::exp(logChoose(col1, x) + logChoose(n - col1, row1 - x) - logChoose(n, row1));
    };
    const double observed = probability(a);
    double p = 0;
    for (int x = std::max(0, row1 + col1 - n); x <= std::min(row1, col1); ++x) {
        const double px = probability(x);
        if (px <= observed * (1 + 1e-7))
            p += px;
    }
    return std::min(1.0, p);
}

std::vector<double> holmAdjusted(const std::vector<double> &pValues)
{
    const std::size_t m = pValues.size();
    std::vector<std::size_t> order(m);
    for (std::size_t i = 0; i < m; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return pValues[x] < pValues[y]; });
    std::vector<double> adjusted(m);
    double running = 0;
    for (std::size_t rank = 0; rank < m; ++rank) {
        const double p = pValues[order[rank]];
        if (!(p >= 0 && p <= 1))
            throw Error(ErrorCode::InvalidInput, "holmAdjusted: a p-value outside 0..1");
        running = std::max(running, std::min(1.0, static_cast<double>(m - rank) * p));
        adjusted[order[rank]] = running;
    }
    return adjusted;
}

KappaResult cohensKappa(const std::vector<std::string> &a, const std::vector<std::string> &b)
{
    requireSameLength(a.size(), b.size(), "cohensKappa");
    KappaResult r;
    r.n = static_cast<int>(a.size());
    if (r.n == 0)
        return r;
    std::map<std::string, int> ma, mb;
    int agree = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        ++ma[a[i]];
        ++mb[b[i]];
        agree += a[i] == b[i];
    }
    r.observedAgreement = static_cast<double>(agree) / r.n;
    for (const auto &[category, count] : ma)
        r.expectedAgreement += (static_cast<double>(count) / r.n) *
                               (static_cast<double>(mb.count(category) ? mb[category] : 0) / r.n);
    if (r.expectedAgreement < 1.0)
        r.kappa = (r.observedAgreement - r.expectedAgreement) / (1.0 - r.expectedAgreement);
    return r;
}

KappaResult weightedKappa(const std::vector<int> &a, const std::vector<int> &b, int minValue,
                          int maxValue)
{
    requireSameLength(a.size(), b.size(), "weightedKappa");
    if (maxValue <= minValue)
        throw Error(ErrorCode::InvalidInput, "weightedKappa: the scale needs two values or more");
    KappaResult r;
    r.n = static_cast<int>(a.size());
    if (r.n == 0)
        return r;
    const int k = maxValue - minValue + 1;
    std::vector<double> observed(static_cast<std::size_t>(k * k), 0), rowA(k, 0), colB(k, 0);
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] < minValue || a[i] > maxValue || b[i] < minValue || b[i] > maxValue)
            throw Error(ErrorCode::InvalidInput, "weightedKappa: item " + std::to_string(i) +
                                                     " is outside " + std::to_string(minValue) +
                                                     ".." + std::to_string(maxValue));
        const int x = a[i] - minValue, y = b[i] - minValue;
        observed[static_cast<std::size_t>(x) * static_cast<std::size_t>(k) +
                 static_cast<std::size_t>(y)] += 1;
        rowA[x] += 1;
        colB[y] += 1;
    }
    double weightedObserved = 0, weightedExpected = 0;
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
            const double w = static_cast<double>((i - j) * (i - j)) / ((k - 1) * (k - 1));
            weightedObserved +=
                w * observed[static_cast<std::size_t>(i) * static_cast<std::size_t>(k) +
                             static_cast<std::size_t>(j)];
            weightedExpected += w * rowA[i] * colB[j] / r.n;
        }
    }
    r.observedAgreement = 1.0 - weightedObserved / r.n;
    r.expectedAgreement = 1.0 - weightedExpected / r.n;
    if (weightedExpected > 0)
        r.kappa = 1.0 - weightedObserved / weightedExpected;
    return r;
}

BinaryAgreement binaryAgreement(const std::vector<std::optional<bool>> &judge,
                                const std::vector<std::optional<bool>> &reference)
{
    requireSameLength(judge.size(), reference.size(), "binaryAgreement");
    BinaryAgreement r;
    std::vector<std::string> ja, rb;
    int judgeYes = 0, referenceYes = 0;
    for (std::size_t i = 0; i < judge.size(); ++i) {
        if (!judge[i] || !reference[i]) {
            ++r.indecisive;
            continue;
        }
        ++r.pairs;
        const bool j = *judge[i], h = *reference[i];
        judgeYes += j;
        referenceYes += h;
        (j && h ? r.truePositive : j ? r.falsePositive : h ? r.falseNegative : r.trueNegative)++;
        ja.push_back(j ? "success" : "failure");
        rb.push_back(h ? "success" : "failure");
    }
    r.agreement = wilson(r.truePositive + r.trueNegative, r.pairs);
    r.sensitivity = wilson(r.truePositive, r.truePositive + r.falseNegative);
    r.specificity = wilson(r.trueNegative, r.trueNegative + r.falsePositive);
    r.kappa = cohensKappa(ja, rb);
    if (r.pairs > 0)
        r.leniencyOffset = static_cast<double>(judgeYes - referenceYes) / r.pairs;
    return r;
}

std::optional<double> pearson(const std::vector<double> &x, const std::vector<double> &y)
{
    requireSameLength(x.size(), y.size(), "pearson");
    if (x.size() < 2)
        return std::nullopt;
    const double n = static_cast<double>(x.size());
    const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n;
    const double my = std::accumulate(y.begin(), y.end(), 0.0) / n;
    double sxy = 0, sxx = 0, syy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0 || syy <= 0)
        return std::nullopt;
    return sxy / std::sqrt(sxx * syy);
}

std::optional<double> spearman(const std::vector<double> &x, const std::vector<double> &y)
{
    requireSameLength(x.size(), y.size(), "spearman");
    return pearson(averageRanks(x), averageRanks(y));
}

std::optional<double> mmrv(const std::vector<double> &sim, const std::vector<double> &real)
{
    requireSameLength(sim.size(), real.size(), "mmrv");
    if (sim.empty())
        return std::nullopt;
    double total = 0;
    for (std::size_t i = 0; i < sim.size(); ++i) {
        double violation = 0;
        for (std::size_t j = 0; j < sim.size(); ++j)
            if ((sim[i] > sim[j]) != (real[i] > real[j]))
                violation = std::max(violation, std::abs(real[i] - real[j]));
        total += violation;
    }
    return total / static_cast<double>(sim.size());
}

} // namespace kosmos
