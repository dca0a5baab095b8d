#pragma once

// openpi's wire format (openpi-client msgpack_numpy): msgpack where a numpy array is a map whose
// keys are msgpack *bin* values b"__ndarray__" (true), b"data" (bin: raw C-order bytes),
// b"dtype" (a numpy dtype string such as "|u1", "<f4") and b"shape" (array of ints); a numpy
// scalar is {b"__npgeneric__": true, b"data": value, b"dtype": str}. Ordinary dict keys are str.
// Encoding and decoding here follow that byte for byte (msgpack-cxx does the msgpack itself);
// decoding is strict and names what is wrong and where.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kosmos::remote {

// The most elements an array from a server may have (a 4K RGB video of 60 frames is ~1.5e9).
constexpr std::int64_t kMaxArrayElements = std::int64_t{1} << 31;

struct NdArray
{
    std::string dtype; // "|u1", "<f4", "<f8", "<i8", "|b1" ...
    std::vector<std::int64_t> shape;
    std::string data; // raw C-order bytes

    // Elements; throws Error(InvalidInput) when the shape overflows or exceeds kMaxArrayElements.
    std::int64_t count() const;
    // Element i as a double (any supported dtype); throws on a bad index.
    double at(std::int64_t i) const;
    static NdArray uint8(const std::vector<std::int64_t> &shape, std::string bytes);
    static NdArray float32(const std::vector<std::int64_t> &shape, const std::vector<float> &v);
};

// Bytes per element of a supported dtype string; 0 when unsupported.
int itemSize(const std::string &dtype);

// A msgpack value as openpi uses it.
struct MsgValue
{
    enum class Kind
    {
        Nil,
        Bool,
        Int,
        Float,
        Str,
        Bin,
        Array,
        Map,
        NdArray,
    } kind = Kind::Nil;
    bool b = false;
    std::int64_t i = 0;
    double f = 0;
    std::string s; // Str or Bin
    std::vector<MsgValue> items;
    std::vector<std::pair<std::string, MsgValue>> map; // insertion order (str keys)
    NdArray array;

    // Special members out of line: `map` holds MsgValue itself, which clang (with libstdc++)
    // requires to be complete where they are defined.
    MsgValue();
    ~MsgValue();
    MsgValue(const MsgValue &);
    MsgValue(MsgValue &&) noexcept;
    MsgValue &operator=(const MsgValue &);
    MsgValue &operator=(MsgValue &&) noexcept;

    static MsgValue str(std::string v);
    static MsgValue number(double v);
    static MsgValue ndarray(NdArray a);
    static MsgValue object(std::vector<std::pair<std::string, MsgValue>> entries);
    const MsgValue *find(const std::string &key) const; // Map only
};

// msgpack bytes of a value; maps keep their order, ndarrays are packed as openpi packs them.
std::string packOpenPi(const MsgValue &value);
// Decodes openpi msgpack. Throws kosmos::Error(InvalidInput) naming the path (e.g.
// "reply.actions") for: bytes that are not msgpack or have trailing data, an array map whose
// keys are str instead of bin, an unsupported dtype, data whose length does not match shape x
// item size.
MsgValue unpackOpenPi(const std::string &bytes, const std::string &where = "reply");

// A value as JSON (for identities and the ledger): bin as its size, an ndarray as its dtype and
// shape, or, with `expandSmallArrays`, a 1-D one of up to 4096 values as a list of numbers;
// a non-finite float as null; strings and keys as valid UTF-8 (an invalid byte becomes U+FFFD).
nlohmann::json msgToJson(const MsgValue &value, bool expandSmallArrays = false);

} // namespace kosmos::remote
