#include "stats/Proportion.h"

#include <algorithm>
#include <cmath>

namespace kosmos {

Proportion wilson(int successes, int n, double z)
{
    Proportion p;
    p.successes = successes;
    p.n = n;
    if (n <= 0)
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

} // namespace kosmos
