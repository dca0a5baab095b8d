#include "JsonNumpy.h"

#include "NumpyMsgpack.h"
#include "util/BoundedJson.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <openssl/evp.h>

#include <algorithm>

namespace kosmos::remote {

namespace {

// Strict standard base64 (what numpy's json_numpy writes); throws on anything else.
std::string decodeBase64(const std::string &text, const std::string &where)
{
    std::string compact;
    compact.reserve(text.size());
    for (const char c : text)
        if (c != '\n' && c != '\r')
            compact.push_back(c);
    if (compact.size() % 4 != 0)
        throw Error(ErrorCode::InvalidInput, where + ": base64 of " +
                                                 std::to_string(compact.size()) +
                                                 " characters (not a multiple of 4)");
    std::string out(compact.size() / 4 * 3, '\0');
    const int n = compact.empty()
                      ? 0
                      : EVP_DecodeBlock(reinterpret_cast<unsigned char *>(out.data()),
                                        reinterpret_cast<const unsigned char *>(compact.data()),
                                        static_cast<int>(compact.size()));
    if (n < 0)
        throw Error(ErrorCode::InvalidInput, where + ": not valid base64");
    std::size_t padding = 0;
    for (std::size_t i = compact.size(); i > 0 && compact[i - 1] == '=' && padding < 2; --i)
        ++padding;
    out.resize(static_cast<std::size_t>(n) - padding);
    return out;
}

Action numpyVector(const nlohmann::json &j, const std::string &where)
{
    if (!j.is_object() || !j.contains("__numpy__") || !j["__numpy__"].is_string())
        throw Error(ErrorCode::InvalidInput, where + ": not a json_numpy array");
    const std::string dtype =
        j.contains("dtype") && j["dtype"].is_string() ? j["dtype"].get<std::string>() : "";
    const int size = itemSize(dtype);
    if (dtype != "<f8" && dtype != "<f4")
        throw Error(ErrorCode::InvalidInput,
                    where + ": dtype '" + dtype + "' (actions are <f8 or <f4)");
    NdArray a{dtype, {}, decodeBase64(j["__numpy__"].get<std::string>(), where + ".__numpy__")};
    const auto shape = j.contains("shape") ? j["shape"] : nlohmann::json::array();
    if (!shape.is_array() || shape.empty() || shape.size() > 2)
        throw Error(ErrorCode::InvalidInput,
                    where + ": shape must be [D] or [N, D], got " + shape.dump().substr(0, 100));
    for (const auto &d : shape) {
        if (!d.is_number_unsigned() || d.get<std::uint64_t>() == 0 ||
            d.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxArrayElements))
            throw Error(ErrorCode::InvalidInput, where + ": shape " + shape.dump().substr(0, 100) +
                                                     " (each size an integer from 1 to " +
                                                     std::to_string(kMaxArrayElements) + ")");
        a.shape.push_back(d.get<std::int64_t>());
    }
    const std::int64_t count = a.count(); // checked: throws on overflow
    if (count * size != static_cast<std::int64_t>(a.data.size()))
        throw Error(ErrorCode::InvalidInput, where + ": " + std::to_string(a.data.size()) +
                                                 " bytes do not fill its shape (truncated?)");
    Action out;
    out.reserve(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
        out.push_back(a.at(i));
    return out;
}

} // namespace

ActionChunk parseActReply(const std::string &body)
{
    json::Limits limits;
    limits.maxBytes = kMaxActReplyBytes;
    limits.maxDepth = 8;
    nlohmann::json j;
    try {
        j = json::parseBounded(body, "OpenVLA reply", limits);
    } catch (const Error &e) {
        throw Error(ErrorCode::InvalidInput, std::string(e.what()) + ": " + body.substr(0, 200));
    }
    if (j.is_string())
        throw Error(ErrorCode::RemoteError,
                    "OpenVLA server answered \"" + j.get<std::string>().substr(0, 500) +
                        "\" instead of an action (its model failed; see the server's log)");
    if (j.is_object()) {
        const Action flat = numpyVector(j, "reply");
        const auto &shape = j["shape"];
        if (shape.size() == 2) { // [N, D]: the product was checked against the bytes
            const std::size_t d = shape[1].get<std::size_t>();
            ActionChunk chunk;
            for (std::size_t i = 0; i + d <= flat.size(); i += d)
                chunk.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(i),
                                   flat.begin() + static_cast<std::ptrdiff_t>(i + d));
            return chunk;
        }
        return {flat};
    }
    if (j.is_array()) { // OpenVLA-OFT: a list of chunk actions
        ActionChunk chunk;
        for (std::size_t i = 0; i < j.size(); ++i) {
            const std::string at = "reply[" + std::to_string(i) + "]";
            if (j[i].is_object()) {
                chunk.push_back(numpyVector(j[i], at));
            } else if (j[i].is_array()) {
                Action a;
                for (const auto &v : j[i]) {
                    if (!v.is_number())
                        throw Error(ErrorCode::InvalidInput, at + ": not a number");
                    a.push_back(v.get<double>());
                }
                chunk.push_back(a);
            } else {
                const bool flat = std::all_of(
                    j.begin(), j.end(), [](const nlohmann::json &v) { return v.is_number(); });
                throw Error(ErrorCode::InvalidInput,
                            "OpenVLA reply: " +
                                (flat ? "a flat list of " + std::to_string(j.size()) + " numbers"
                                      : at + " is " + std::string(j[i].type_name())) +
                                "; expected a json_numpy array (one action, or [N, D]) or a list "
                                "of actions, each a list of numbers or a json_numpy array");
            }
        }
        return chunk;
    }
    throw Error(ErrorCode::InvalidInput, "OpenVLA reply: neither a json_numpy array nor a list");
}

} // namespace kosmos::remote
