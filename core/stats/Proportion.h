#pragma once

#include <optional>
#include <string>

namespace kosmos {

// A rate with its n and interval: never shown without both. A rate over n = 0 has no value.
struct Proportion
{
    int successes = 0;
    int n = 0;
    std::optional<double> rate;  // successes / n; nullopt when n == 0
    std::optional<double> lower; // Wilson score interval
    std::optional<double> upper;
};

// Throws Error(InvalidInput) naming `what` and the counts unless 0 <= successes <= n: every
// interval function checks its counts (a rate of 5/3 has no interval).
void checkCounts(const char *what, int successes, int n);

// Wilson score interval for successes out of n at the given z (1.96: 95 %). Throws
// Error(InvalidInput) for counts outside 0 <= successes <= n or a z that is not positive.
Proportion wilson(int successes, int n, double z = 1.959963984540054);

// "k/n = r% [95% CI l-u%]", or "n = 0 (no rate)": how every rate is written in text.
std::string intervalText(const Proportion &p);

} // namespace kosmos
