#include "NumpyMsgpack.h"

#include <cmath>

#include "util/Error.h"

#define MSGPACK_NO_BOOST
#include <msgpack.hpp>

#include <algorithm>
#include <cstring>

namespace kosmos::remote {

namespace {

[[noreturn]] void bad(const std::string &where, const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, where + ": " + what);
}

template<typename T>
T read(const std::string &data, std::int64_t i)
{
    T v;
    std::memcpy(&v, data.data() + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    return v;
}

void pack(msgpack::packer<msgpack::sbuffer> &pk, const MsgValue &v)
{
    auto bin = [&](const std::string &bytes) {
        pk.pack_bin(static_cast<std::uint32_t>(bytes.size()));
        pk.pack_bin_body(bytes.data(), static_cast<std::uint32_t>(bytes.size()));
    };
    auto str = [&](const std::string &text) {
        pk.pack_str(static_cast<std::uint32_t>(text.size()));
        pk.pack_str_body(text.data(), static_cast<std::uint32_t>(text.size()));
    };
    switch (v.kind) {
    case MsgValue::Kind::Nil:
        pk.pack_nil();
        break;
    case MsgValue::Kind::Bool:
        v.b ? pk.pack_true() : pk.pack_false();
        break;
    case MsgValue::Kind::Int:
        pk.pack(v.i);
        break;
    case MsgValue::Kind::Float:
        pk.pack_double(v.f);
        break;
    case MsgValue::Kind::Str:
        str(v.s);
        break;
    case MsgValue::Kind::Bin:
        bin(v.s);
        break;
    case MsgValue::Kind::Array:
        pk.pack_array(static_cast<std::uint32_t>(v.items.size()));
        for (const auto &item : v.items)
            pack(pk, item);
        break;
    case MsgValue::Kind::Map:
        pk.pack_map(static_cast<std::uint32_t>(v.map.size()));
        for (const auto &[key, value] : v.map) {
            str(key);
            pack(pk, value);
        }
        break;
    case MsgValue::Kind::NdArray:
        // openpi's pack_array: {b"__ndarray__": True, b"data": bytes, b"dtype": str,
        // b"shape": tuple}, in this order.
        pk.pack_map(4);
        bin("__ndarray__");
        pk.pack_true();
        bin("data");
        bin(v.array.data);
        bin("dtype");
        str(v.array.dtype);
        bin("shape");
        pk.pack_array(static_cast<std::uint32_t>(v.array.shape.size()));
        for (const std::int64_t d : v.array.shape)
            pk.pack(d);
        break;
    }
}

std::string text(const msgpack::object &o)
{
    return std::string(o.via.str.ptr, o.via.str.size);
}

MsgValue convert(const msgpack::object &o, const std::string &where, int depth)
{
    if (depth > 32)
        bad(where, "nested too deep");
    MsgValue v;
    switch (o.type) {
    case msgpack::type::NIL:
        return v;
    case msgpack::type::BOOLEAN:
        v.kind = MsgValue::Kind::Bool;
        v.b = o.via.boolean;
        return v;
    case msgpack::type::POSITIVE_INTEGER:
        v.kind = MsgValue::Kind::Int;
        v.i = static_cast<std::int64_t>(o.via.u64);
        return v;
    case msgpack::type::NEGATIVE_INTEGER:
        v.kind = MsgValue::Kind::Int;
        v.i = o.via.i64;
        return v;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64:
        v.kind = MsgValue::Kind::Float;
        v.f = o.via.f64;
        return v;
    case msgpack::type::STR:
        v.kind = MsgValue::Kind::Str;
        v.s = text(o);
        return v;
    case msgpack::type::BIN:
        v.kind = MsgValue::Kind::Bin;
        v.s = std::string(o.via.bin.ptr, o.via.bin.size);
        return v;
    case msgpack::type::ARRAY:
        v.kind = MsgValue::Kind::Array;
        for (std::uint32_t k = 0; k < o.via.array.size; ++k)
            v.items.push_back(
                convert(o.via.array.ptr[k], where + "[" + std::to_string(k) + "]", depth + 1));
        return v;
    case msgpack::type::MAP: {
        const auto &m = o.via.map;
        std::map<std::string, const msgpack::object *> binKeys, strKeys;
        for (std::uint32_t k = 0; k < m.size; ++k) {
            const auto &key = m.ptr[k].key;
            if (key.type == msgpack::type::BIN)
                binKeys[std::string(key.via.bin.ptr, key.via.bin.size)] = &m.ptr[k].val;
            else if (key.type == msgpack::type::STR)
                strKeys[text(key)] = &m.ptr[k].val;
            else
                bad(where, "a map key that is neither str nor bin");
        }
        if (strKeys.count("__ndarray__") || strKeys.count("__npgeneric__"))
            bad(where, "an array map with str keys (\"__ndarray__\" must be a msgpack bin key, "
                       "as openpi's msgpack_numpy writes it; the server would not decode this "
                       "as an array)");
        if (binKeys.count("__ndarray__")) {
            for (const char *key : {"data", "dtype", "shape"})
                if (!binKeys.count(key))
                    bad(where, std::string("array without its b\"") + key + "\" entry");
            const auto *data = binKeys["data"];
            const auto *dtype = binKeys["dtype"];
            const auto *shape = binKeys["shape"];
            if (data->type != msgpack::type::BIN)
                bad(where + ".data", "expected bin (raw C-order bytes)");
            if (dtype->type != msgpack::type::STR && dtype->type != msgpack::type::BIN)
                bad(where + ".dtype", "expected a numpy dtype string");
            if (shape->type != msgpack::type::ARRAY)
                bad(where + ".shape", "expected an array of sizes");
            v.kind = MsgValue::Kind::NdArray;
            v.array.dtype = dtype->type == msgpack::type::STR
                                ? text(*dtype)
                                : std::string(dtype->via.bin.ptr, dtype->via.bin.size);
            const int size = itemSize(v.array.dtype);
            if (size == 0)
                bad(where + ".dtype", "unsupported dtype '" + v.array.dtype +
                                          "' (|u1 |i1 |b1 <i2 <i4 <i8 <u2 <u4 <u8 <f4 <f8)");
            for (std::uint32_t k = 0; k < shape->via.array.size; ++k) {
                const auto &d = shape->via.array.ptr[k];
                if (d.type != msgpack::type::POSITIVE_INTEGER ||
                    d.via.u64 > static_cast<std::uint64_t>(kMaxArrayElements))
                    bad(where + ".shape",
                        "sizes must be integers from 0 to " + std::to_string(kMaxArrayElements));
                v.array.shape.push_back(static_cast<std::int64_t>(d.via.u64));
            }
            v.array.data = std::string(data->via.bin.ptr, data->via.bin.size);
            const std::int64_t expected = v.array.count() * size;
            if (static_cast<std::int64_t>(v.array.data.size()) != expected)
                bad(
                    where + ".data", std::to_string(v.array.data.size()) + " bytes for shape " +
                                         [&] {
                                             std::string s = "(";
                                             for (auto d : v.array.shape)
                                                 s += std::to_string(d) + ",";
                                             return s + ")";
                                         }() +
                                         " of " + v.array.dtype + " (" + std::to_string(expected) +
                                         " expected): truncated?");
            return v;
        }
        if (binKeys.count("__npgeneric__")) {
            if (!binKeys.count("data") || !binKeys.count("dtype"))
                bad(where, "numpy scalar without b\"data\" or b\"dtype\"");
            return convert(*binKeys["data"], where, depth + 1);
        }
        if (!binKeys.empty())
            bad(where, "a map with bin keys that is not a numpy array");
        v.kind = MsgValue::Kind::Map;
        for (std::uint32_t k = 0; k < m.size; ++k) {
            const std::string key = text(m.ptr[k].key);
            v.map.emplace_back(key, convert(m.ptr[k].val, where + "." + key, depth + 1));
        }
        return v;
    }
    default:
        bad(where, "an unsupported msgpack type (ext)");
    }
}

} // namespace

MsgValue::MsgValue() = default;
MsgValue::~MsgValue() = default;
MsgValue::MsgValue(const MsgValue &) = default;
MsgValue::MsgValue(MsgValue &&) noexcept = default;
MsgValue &MsgValue::operator=(const MsgValue &) = default;
MsgValue &MsgValue::operator=(MsgValue &&) noexcept = default;

int itemSize(const std::string &dtype)
{
    static const std::map<std::string, int> sizes = {{"|u1", 1}, {"|i1", 1}, {"|b1", 1}, {"<i2", 2},
                                                     {"<u2", 2}, {"<i4", 4}, {"<u4", 4}, {"<i8", 8},
                                                     {"<u8", 8}, {"<f4", 4}, {"<f8", 8}};
    const auto it = sizes.find(dtype);
    return it == sizes.end() ? 0 : it->second;
}

std::int64_t NdArray::count() const
{
    // Shapes come from servers: every product is checked (a wrapped count would let a short
    // buffer pass for a huge array).
    std::int64_t n = 1;
    for (const std::int64_t d : shape) {
        if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > kMaxArrayElements)
            throw Error(ErrorCode::InvalidInput,
                        "array shape with more than " + std::to_string(kMaxArrayElements) +
                            " elements (or a negative or overflowing size)");
    }
    return n;
}

double NdArray::at(std::int64_t i) const
{
    if (i < 0 || i >= count())
        throw Error(ErrorCode::InvalidInput, "array index " + std::to_string(i) + " out of range");
    if (dtype == "|u1" || dtype == "|b1")
        return static_cast<unsigned char>(data[static_cast<std::size_t>(i)]);
    if (dtype == "|i1")
        return static_cast<signed char>(data[static_cast<std::size_t>(i)]);
    if (dtype == "<i2")
        return read<std::int16_t>(data, i);
    if (dtype == "<u2")
        return read<std::uint16_t>(data, i);
    if (dtype == "<i4")
        return read<std::int32_t>(data, i);
    if (dtype == "<u4")
        return read<std::uint32_t>(data, i);
    if (dtype == "<i8")
        return static_cast<double>(read<std::int64_t>(data, i));
    if (dtype == "<u8")
        return static_cast<double>(read<std::uint64_t>(data, i));
    if (dtype == "<f4")
        return read<float>(data, i);
    if (dtype == "<f8")
        return read<double>(data, i);
    throw Error(ErrorCode::InvalidInput, "unsupported dtype '" + dtype + "'");
}

NdArray NdArray::uint8(const std::vector<std::int64_t> &shape, std::string bytes)
{
    return {"|u1", shape, std::move(bytes)};
}

NdArray NdArray::float32(const std::vector<std::int64_t> &shape, const std::vector<float> &v)
{
    return {"<f4", shape,
            std::string(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float))};
}

MsgValue MsgValue::str(std::string v)
{
    MsgValue m;
    m.kind = Kind::Str;
    m.s = std::move(v);
    return m;
}

MsgValue MsgValue::number(double v)
{
    MsgValue m;
    m.kind = Kind::Float;
    m.f = v;
    return m;
}

MsgValue MsgValue::ndarray(NdArray a)
{
    MsgValue m;
    m.kind = Kind::NdArray;
    m.array = std::move(a);
    return m;
}

MsgValue MsgValue::object(std::vector<std::pair<std::string, MsgValue>> entries)
{
    MsgValue m;
    m.kind = Kind::Map;
    m.map = std::move(entries);
    return m;
}

const MsgValue *MsgValue::find(const std::string &key) const
{
    for (const auto &[k, v] : map)
        if (k == key)
            return &v;
    return nullptr;
}

std::string packOpenPi(const MsgValue &value)
{
    msgpack::sbuffer buffer;
    msgpack::packer<msgpack::sbuffer> pk(&buffer);
    pack(pk, value);
    return std::string(buffer.data(), buffer.size());
}

MsgValue unpackOpenPi(const std::string &bytes, const std::string &where)
{
    msgpack::object_handle handle;
    std::size_t offset = 0;
    try {
        // msgpack-cxx allocates a container for its declared count before reading it: every
        // count is capped by what the bytes can hold (each element takes at least one byte).
        const std::size_t elements = std::min<std::size_t>(bytes.size(), 1u << 20);
        const msgpack::unpack_limit limit(elements, elements, bytes.size(), bytes.size(), 0, 32);
        // Bin payloads (a frame is megabytes) are referenced in `bytes`, not copied into
        // msgpack's zone: convert() below copies each once, while `bytes` is alive.
        const auto referenceBin = [](msgpack::type::object_type type, std::size_t, void *) {
            return type == msgpack::type::BIN;
        };
        handle = msgpack::unpack(bytes.data(), bytes.size(), offset, referenceBin, nullptr, limit);
    } catch (const std::exception &e) {
        bad(where, std::string("not msgpack (") + e.what() + ")");
    }
    if (offset != bytes.size())
        bad(where, std::to_string(bytes.size() - offset) + " bytes after the msgpack value");
    return convert(handle.get(), where, 0);
}

namespace {

// A string from a server as valid UTF-8: every invalid byte becomes U+FFFD, so the JSON it goes
// into can always be written (an identity, the ledger, an error message).
std::string validUtf8(const std::string &s)
{
    const std::string quoted =
        nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return nlohmann::json::parse(quoted).get<std::string>();
}

} // namespace

nlohmann::json msgToJson(const MsgValue &v, bool expandSmallArrays)
{
    switch (v.kind) {
    case MsgValue::Kind::Nil:
        return nullptr;
    case MsgValue::Kind::Bool:
        return v.b;
    case MsgValue::Kind::Int:
        return v.i;
    case MsgValue::Kind::Float:
        return std::isfinite(v.f) ? nlohmann::json(v.f) : nlohmann::json(nullptr);
    case MsgValue::Kind::Str:
        return validUtf8(v.s);
    case MsgValue::Kind::Bin:
        return {{"bin_bytes", v.s.size()}};
    case MsgValue::Kind::Array: {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &item : v.items)
            out.push_back(msgToJson(item, expandSmallArrays));
        return out;
    }
    case MsgValue::Kind::Map: {
        nlohmann::json out = nlohmann::json::object();
        for (const auto &[key, value] : v.map)
            out[validUtf8(key)] = msgToJson(value, expandSmallArrays);
        return out;
    }
    case MsgValue::Kind::NdArray: {
        if (expandSmallArrays && v.array.shape.size() <= 1 && v.array.count() <= 4096) {
            nlohmann::json out = nlohmann::json::array();
            for (std::int64_t i = 0; i < v.array.count(); ++i)
                out.push_back(v.array.at(i));
            return out;
        }
        return {{"ndarray", {{"dtype", v.array.dtype}, {"shape", v.array.shape}}}};
    }
    }
    return nullptr;
}

} // namespace kosmos::remote
