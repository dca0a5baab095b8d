#include "util/TextRules.h"

#include "util/Secrets.h"

namespace kosmos {

namespace {

// The length of the well-formed UTF-8 sequence at text[i], or 0 (RFC 3629, Table 3-7 of the
// Unicode standard).
std::size_t sequenceAt(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80)
        return 1;
    std::size_t length = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        length = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        length = 3;
        if (b0 == 0xE0)
            lo = 0xA0; // no overlong forms
        else if (b0 == 0xED)
            hi = 0x9F; // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        length = 4;
        if (b0 == 0xF0)
            lo = 0x90;
        else if (b0 == 0xF4)
            hi = 0x8F; // nothing above U+10FFFF
    } else {
        return 0;
    }
    if (i + length > text.size())
        return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
            return 0;
    return length;
}

nlohmann::json repaired(const nlohmann::json &value, int depth)
{
    if (depth > 64)
        return value;
    if (value.is_string())
        return validUtf8(value.get_ref<const std::string &>());
    if (value.is_array()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &item : value)
            out.push_back(repaired(item, depth + 1));
        return out;
    }
    if (value.is_object()) {
        nlohmann::json out = nlohmann::json::object();
        for (auto it = value.begin(); it != value.end(); ++it)
            out[validUtf8(it.key())] = repaired(*it, depth + 1);
        return out;
    }
    return value;
}

} // namespace

std::string validUtf8(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t length = sequenceAt(text, i);
        if (length == 0) {
            out += "\xEF\xBF\xBD"; // U+FFFD
            ++i;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

std::string ledgerText(std::string_view text)
{
    return validUtf8(redactSecrets(text));
}

nlohmann::json withValidUtf8(const nlohmann::json &value)
{
    return repaired(value, 0);
}

} // namespace kosmos
