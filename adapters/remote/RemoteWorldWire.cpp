#include "RemoteWorldWire.h"

#include "util/Error.h"

#include <cmath>
#include <cstring>

namespace kosmos::remote {

namespace {

[[noreturn]] void bad(const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, "remote.world: " + what);
}

} // namespace

nlohmann::json worldJson(const MsgValue &v)
{
    return msgToJson(v, true);
}

MsgValue worldMsg(const nlohmann::json &j)
{
    MsgValue v;
    if (j.is_boolean()) {
        v.kind = MsgValue::Kind::Bool;
        v.b = j.get<bool>();
    } else if (j.is_number_integer()) {
        v.kind = MsgValue::Kind::Int;
        v.i = j.get<std::int64_t>();
    } else if (j.is_number()) {
        v.kind = MsgValue::Kind::Float;
        v.f = j.get<double>();
    } else if (j.is_string()) {
        v = MsgValue::str(j.get<std::string>());
    } else if (j.is_array()) {
        v.kind = MsgValue::Kind::Array;
        for (const auto &item : j)
            v.items.push_back(worldMsg(item));
    } else if (j.is_object()) {
        std::vector<std::pair<std::string, MsgValue>> entries;
        for (const auto &[key, value] : j.items())
            entries.emplace_back(key, worldMsg(value));
        v = MsgValue::object(std::move(entries));
    }
    return v;
}

namespace {

double number(const MsgValue *v, const std::string &where)
{
    if (v && v->kind == MsgValue::Kind::Int)
        return static_cast<double>(v->i);
    if (v && v->kind == MsgValue::Kind::Float && std::isfinite(v->f))
        return v->f;
    bad("server metadata: " + where + " is not a finite number");
}

std::vector<double> numbers(const MsgValue *v, const std::string &where)
{
    std::vector<double> out;
    if (v && v->kind == MsgValue::Kind::Array) {
        for (std::size_t i = 0; i < v->items.size(); ++i)
            out.push_back(number(&v->items[i], where + "[" + std::to_string(i) + "]"));
        return out;
    }
    if (v && v->kind == MsgValue::Kind::NdArray) {
        for (std::int64_t i = 0; i < v->array.count(); ++i)
            out.push_back(v->array.at(i));
        return out;
    }
    bad("server metadata: " + where + " is not a list of numbers");
}

std::vector<std::string> texts(const MsgValue *v, const std::string &where)
{
    if (!v || v->kind != MsgValue::Kind::Array)
        bad("server metadata: " + where + " is not a list of texts");
    std::vector<std::string> out;
    for (const MsgValue &item : v->items) {
        if (item.kind != MsgValue::Kind::Str)
            bad("server metadata: " + where + " is not a list of texts");
        out.push_back(item.s);
    }
    return out;
}

} // namespace

WorldDescription describeWorld(const std::string &bytes)
{
    const MsgValue m = unpackOpenPi(bytes, "metadata");
    if (m.kind != MsgValue::Kind::Map || !m.find("kosmos_world"))
        bad("the server's first message is not a Kosmos world's metadata (no kosmos_world): is "
            "this a world server (python -m kosmos_world)?");
    WorldDescription d;
    d.metadata = worldJson(m);
    const MsgValue *kind = m.find("kind");
    d.kind = kind && kind->kind == MsgValue::Kind::Str ? kind->s : "";
    if (d.kind != "simulator" && d.kind != "learned_model")
        bad("server metadata: kind must be simulator or learned_model");
    const MsgValue *name = m.find("name");
    d.name = name && name->kind == MsgValue::Kind::Str ? name->s : "";
    const MsgValue *action = m.find("action");
    if (!action || action->kind != MsgValue::Kind::Map)
        bad("server metadata: no action {names, min, max}");
    const auto names = texts(action->find("names"), "action.names");
    const auto lo = numbers(action->find("min"), "action.min");
    const auto hi = numbers(action->find("max"), "action.max");
    std::vector<std::string> units(names.size(), "1");
    if (const MsgValue *u = action->find("units"))
        units = texts(u, "action.units");
    if (names.empty() || lo.size() != names.size() || hi.size() != names.size() ||
        units.size() != names.size())
        bad("server metadata: action.names, min, max and units disagree in length");
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!(lo[i] <= hi[i]))
            bad("server metadata: action " + names[i] + " has min above max");
        d.action.dimensions.push_back({names[i], units[i], lo[i], hi[i]});
    }
    d.action.gripperIndex.reset();
    d.action.controlRateHz = number(m.find("control_rate_hz"), "control_rate_hz");
    if (!(d.action.controlRateHz > 0) || d.action.controlRateHz > 10000)
        bad("server metadata: control_rate_hz out of (0, 10000]");
    const MsgValue *frame = m.find("frame");
    if (!frame || frame->kind != MsgValue::Kind::Map)
        bad("server metadata: no frame {width, height}");
    d.frame.width = static_cast<int>(number(frame->find("width"), "frame.width"));
    d.frame.height = static_cast<int>(number(frame->find("height"), "frame.height"));
    if (d.frame.width < 8 || d.frame.height < 8 || d.frame.width > 8192 || d.frame.height > 8192)
        bad("server metadata: frame size " + std::to_string(d.frame.width) + "x" +
            std::to_string(d.frame.height) + " out of 8..8192");
    d.frame.channels = 3;
    d.frame.dtype = "uint8";
    d.frame.fps = d.action.controlRateHz;
    d.frame.conditioningFrames = 1;
    d.frame.framesPerAction = 1;
    d.frame.resultIncludesConditioning = true;
    if (const MsgValue *chunks = m.find("chunk_lengths"))
        for (double c : numbers(chunks, "chunk_lengths")) {
            if (c < 1 || c > 1000 || c != std::floor(c))
                bad("server metadata: chunk_lengths holds " + std::to_string(c));
            d.frame.certifiedChunkLengths.push_back(static_cast<int>(c));
        }
    d.action.chunkLength =
        d.frame.certifiedChunkLengths.empty() ? 1 : d.frame.certifiedChunkLengths.front();
    return d;
}

MsgValue seedValue(std::uint64_t seed)
{
    MsgValue v;
    v.kind = MsgValue::Kind::Int;
    v.i = static_cast<std::int64_t>(seed & 0x7fffffffffffffffULL);
    return v;
}

WorldReply parseWorldReply(const std::string &reply, const WorldDescription &described,
                           std::optional<std::size_t> count, const std::string &what,
                           const SharedBytes *shared)
{
    WorldReply out;
    const MsgValue r = unpackOpenPi(reply, std::string(what) + " reply");
    if (r.kind != MsgValue::Kind::Map)
        bad(std::string(what) + " reply: expected a map with \"frames\"");
    if (const MsgValue *timing = r.find("server_timing");
        timing && timing->kind == MsgValue::Kind::Map) {
        const auto milliseconds = [&](const char *key) -> std::optional<double> {
            const MsgValue *ms = timing->find(key);
            if (ms && ms->kind == MsgValue::Kind::Float && std::isfinite(ms->f))
                return ms->f;
            if (ms && ms->kind == MsgValue::Kind::Int)
                return static_cast<double>(ms->i);
            return std::nullopt;
        };
        out.serverCallMs = milliseconds("call_ms");
        out.serverWorldMs = milliseconds("world_ms");
    }
    const int h = described.frame.height, w = described.frame.width;
    const std::size_t size = static_cast<std::size_t>(h) * static_cast<std::size_t>(w) * 3;
    const auto shapeText = [](const std::vector<std::int64_t> &shape) {
        std::string text;
        for (std::int64_t s : shape)
            text += (text.empty() ? "" : ", ") + std::to_string(s);
        return "[" + text + "]";
    };
    const auto checkCount = [&](std::int64_t n, const char *field) {
        if (count && static_cast<std::size_t>(n) != *count)
            bad(std::string(what) + " reply." + field + ": " + std::to_string(n) + " frames for " +
                std::to_string(*count) + " actions");
    };
    const unsigned char *source = nullptr;
    std::int64_t n = 0;
    const MsgValue *frames = r.find("frames");
    if (const MsgValue *placed = r.find("frames_shared"); placed && !frames) {
        // {"offset", "shape": [N, H, W, 3]}: the bytes are in the client's segment.
        const std::string field = std::string(what) + " reply.frames_shared";
        if (!shared || !shared->data)
            bad(field + ": frames in shared memory, but none was offered to the server");
        if (placed->kind != MsgValue::Kind::Map)
            bad(field + ": expected a map {offset, shape}");
        const MsgValue *offset = placed->find("offset");
        const MsgValue *shape = placed->find("shape");
        if (!offset || offset->kind != MsgValue::Kind::Int || offset->i < 0)
            bad(field + ".offset: not a non-negative integer");
        std::vector<std::int64_t> dims;
        if (shape && shape->kind == MsgValue::Kind::Array)
            for (const MsgValue &d : shape->items)
                dims.push_back(d.kind == MsgValue::Kind::Int ? d.i : -1);
        if (dims.size() != 4 || dims[0] < 1 || dims[0] > 100000 || dims[1] != h || dims[2] != w ||
            dims[3] != 3)
            bad(field + ".shape: " + shapeText(dims) + ", expected [N, " + std::to_string(h) +
                ", " + std::to_string(w) + ", 3]");
        n = dims[0];
        const std::size_t at = static_cast<std::size_t>(offset->i);
        const std::size_t bytes = static_cast<std::size_t>(n) * size;
        if (at > shared->size || bytes > shared->size - at)
            bad(field + ": " + std::to_string(bytes) + " bytes at offset " + std::to_string(at) +
                " run past the segment's " + std::to_string(shared->size));
        checkCount(n, "frames_shared");
        source = shared->data + at;
        out.framesShared = true;
    } else {
        if (!frames || frames->kind != MsgValue::Kind::NdArray)
            bad(std::string(what) + " reply.frames: missing or not a numpy array");
        const NdArray &f = frames->array;
        if (f.dtype != "|u1" || f.shape.size() != 4 || f.shape[1] != h || f.shape[2] != w ||
            f.shape[3] != 3 || f.shape[0] < 1)
            bad(std::string(what) + " reply.frames: " + f.dtype + " " + shapeText(f.shape) +
                ", expected |u1 [N, " + std::to_string(h) + ", " + std::to_string(w) + ", 3]");
        n = f.shape[0];
        checkCount(n, "frames");
        source = reinterpret_cast<const unsigned char *>(f.data.data());
    }
    for (std::int64_t i = 0; i < n; ++i) {
        cv::Mat frame(h, w, CV_8UC3);
        std::memcpy(frame.data, source + static_cast<std::size_t>(i) * size, size);
        out.frames.push_back(std::move(frame));
    }
    const MsgValue *success = r.find("success");
    if (success && success->kind == MsgValue::Kind::Bool)
        out.success = success->b;
    else if (success && success->kind != MsgValue::Kind::Nil)
        bad(std::string(what) + " reply.success: not true, false or None");
    const MsgValue *reward = r.find("reward");
    out.reward = reward ? worldJson(*reward) : nlohmann::json();
    const MsgValue *done = r.find("done");
    out.done = done ? worldJson(*done) : nlohmann::json();
    const MsgValue *state = r.find("state");
    out.state = state ? worldJson(*state) : nlohmann::json();
    if (const MsgValue *p = r.find("proprio"); p && p->kind != MsgValue::Kind::Nil) {
        if (p->kind != MsgValue::Kind::NdArray || p->array.shape.size() != 1 ||
            p->array.count() > 256)
            bad(std::string(what) + " reply.proprio: not a 1-D numpy array of at most 256");
        for (std::int64_t i = 0; i < p->array.count(); ++i) {
            const double v = p->array.at(i);
            if (!std::isfinite(v))
                bad(std::string(what) + " reply.proprio[" + std::to_string(i) + "] is not finite");
            out.proprio.push_back(v);
        }
    }
    return out;
}

} // namespace kosmos::remote
