#include "stats/Proportion.h"

#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kosmos {

void checkCounts(const char *what, int successes, int n)
{
    if (n < 0 || successes < 0 || successes > n)
        throw Error(ErrorCode::InvalidInput,
                    std::string(what) +
                        ": successes must lie within 0..n and n must not be "
                        "negative, not " +
                        std::to_string(successes) + " of " + std::to_string(n));
}

Proportion wilson(int successes, int n, double z)
{
    checkCounts("wilson", successes, n);
    if (!(z > 0) || !std::isfinite(z))
        throw Error(ErrorCode::InvalidInput, "wilson: z must be a positive number");
    Proportion p;
    p.successes = successes;
    p.n = n;
    if (n == 0)
        return p;
    const double nn = n;
    const double phat = successes / nn;
    const double z2 = z * z;
    const double centre = (phat + z2 / (2 * nn)) / (1 + z2 / nn);
    const double half = z * std::sqrt(phat * (1 - phat) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);
    p.rate = phat;
    p.lower = std::max(0.0, centre - half);
    p.upper = std::min(1.0, centre + half);
    return p;
}

std::string intervalText(const Proportion &p)
{
    if (!p.rate)
        return "n = 0 (no rate)";
    char text[96];
    std::snprintf(text, sizeof text, "%d/%d = %.0f%% [95%% CI %.0f-%.0f%%]", p.successes, p.n,
                  *p.rate * 100, *p.lower * 100, *p.upper * 100);
    return text;
}

} // namespace kosmos
