#include "util/NumberText.h"

#include <charconv>
#include <cstdio>

namespace kosmos {

std::string numberText(const std::optional<double> &value, const char *format)
{
    if (!value)
        return "n/a";
    char text[64];
    const int n = std::snprintf(text, sizeof text, format, *value);
    return n < 0 ? std::string("n/a") : std::string(text);
}

std::string shortestText(double value)
{
    char text[64];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::string("nan");
}

} // namespace kosmos
