#include "util/NumberText.h"

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

} // namespace kosmos
