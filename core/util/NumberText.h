#pragma once

#include <optional>
#include <string>

namespace kosmos {

// A figure as text with a printf format ("%.3f", "%+.3f", "%.2f"), or "n/a" when there is none:
// the one formatter the reports, the CLI and the audit tables share, so a missing kappa or
// correlation reads the same everywhere.
std::string numberText(const std::optional<double> &value, const char *format = "%.3f");

// The shortest text that reads back as exactly `value` (std::to_chars): -0.04, not
// -0.040000000000000001. For data files (CSV exports).
std::string shortestText(double value);

} // namespace kosmos
