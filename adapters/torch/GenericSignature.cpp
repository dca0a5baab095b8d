#include "GenericSignature.h"

#include "util/Error.h"
#include "util/JsonFields.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace kosmos::torchadapters {

namespace {

struct SourceName
{
    IoSource source;
    const char *name;
};
constexpr SourceName kSources[] = {
    {IoSource::Image, "image"},     {IoSource::History, "history"},
    {IoSource::Frames, "frames"},   {IoSource::InstructionId, "instruction_id"},
    {IoSource::Proprio, "proprio"}, {IoSource::Actions, "actions"},
};

std::vector<IoSource> allowedSources(const std::string &kind)
{
    if (kind == "policy")
        return {IoSource::Image, IoSource::History, IoSource::InstructionId, IoSource::Proprio};
    if (kind == "world_model")
        return {IoSource::Image, IoSource::Frames, IoSource::Actions, IoSource::InstructionId,
                IoSource::Proprio};
    return {IoSource::Frames, IoSource::InstructionId}; // judge
}

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::vector<std::int64_t> readShape(const nlohmann::json &j, const std::string &key,
                                    const std::string &where)
{
    std::vector<std::int64_t> shape;
    for (const auto &v : json::requireArray(j, key, where)) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 1 ||
            v.get<std::int64_t>() > (1 << 16))
            json::fail(where + "." + key, "every size must be an integer 1..65536");
        shape.push_back(v.get<std::int64_t>());
    }
    if (shape.empty() || shape.size() > 6)
        json::fail(where + "." + key, "a shape has 1 to 6 sizes");
    if (shape[0] != 1)
        json::fail(where + "." + key, "the first size is the batch and must be 1");
    return shape;
}

void expectInputShape(const IoInput &in, const std::string &where, std::size_t rank,
                      const std::string &layout)
{
    if (in.shape.size() != rank)
        json::fail(where + ".shape", ioSourceName(in.source) + " inputs are " + layout + ", not " +
                                         shapeText(in.shape));
}

} // namespace

std::string ioSourceName(IoSource source)
{
    for (const auto &s : kSources)
        if (s.source == source)
            return s.name;
    return "?";
}

int IoInput::imageHeight() const
{
    return static_cast<int>(shape[shape.size() - 2]);
}

int IoInput::imageWidth() const
{
    return static_cast<int>(shape.back());
}

int IoInput::count() const
{
    return shape.size() == 5 ? static_cast<int>(shape[1]) : 1;
}

std::vector<float> PixelScale::chw(const cv::Mat &rgb, int width, int height) const
{
    cv::Mat sized = rgb;
    if (rgb.cols != width || rgb.rows != height)
        cv::resize(rgb, sized, cv::Size(width, height), 0, 0,
                   width < rgb.cols ? cv::INTER_AREA : cv::INTER_LINEAR);
    const std::size_t plane = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    std::vector<float> out(plane * 3);
    for (int y = 0; y < height; ++y) {
        const auto *row = sized.ptr<cv::Vec3b>(y);
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c)
                out[static_cast<std::size_t>(c) * plane + static_cast<std::size_t>(y * width + x)] =
                    (static_cast<float>(row[x][c]) / 255.f - mean[static_cast<std::size_t>(c)]) /
                    std[static_cast<std::size_t>(c)];
    }
    return out;
}

cv::Mat PixelScale::image(const float *chw, int width, int height) const
{
    cv::Mat out(height, width, CV_8UC3);
    const std::size_t plane = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    for (int y = 0; y < height; ++y) {
        auto *row = out.ptr<cv::Vec3b>(y);
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c) {
                const float v = chw[static_cast<std::size_t>(c) * plane +
                                    static_cast<std::size_t>(y * width + x)];
                const float unit =
                    v * std[static_cast<std::size_t>(c)] + mean[static_cast<std::size_t>(c)];
                const float byte = std::isfinite(unit) ? std::round(unit * 255.f) : 0.f;
                row[x][c] = static_cast<std::uint8_t>(std::clamp(byte, 0.f, 255.f));
            }
    }
    return out;
}

std::int64_t GenericIo::instructionId(const std::string &instruction) const
{
    const auto it = std::find(vocabulary.begin(), vocabulary.end(), instruction);
    if (it == vocabulary.end())
        throw Error(ErrorCode::InvalidInput, "the model was not trained on the instruction \"" +
                                                 instruction +
                                                 "\" (kosmos-model.json io.vocabulary lists the " +
                                                 std::to_string(vocabulary.size()) + " it knows)");
    return it - vocabulary.begin();
}

const IoInput *GenericIo::find(IoSource source) const
{
    for (const auto &in : inputs)
        if (in.source == source)
            return &in;
    return nullptr;
}

void ProprioModel::apply(std::vector<double> &state, const std::vector<double> &action) const
{
    for (const Integrate &i : integrate)
        state[static_cast<std::size_t>(i.state)] = std::clamp(
            state[static_cast<std::size_t>(i.state)] + action[static_cast<std::size_t>(i.action)],
            i.min, i.max);
    for (const Copy &c : copy)
        state[static_cast<std::size_t>(c.state)] = action[static_cast<std::size_t>(c.action)];
}

namespace {

int readIndex(const nlohmann::json &entry, const char *key, const std::string &at, int size,
              const char *what)
{
    if (!entry.contains(key) || !entry[key].is_number_integer() ||
        entry[key].get<std::int64_t>() < 0 || entry[key].get<std::int64_t>() >= size)
        json::fail(at + "." + key, std::string("an index into the ") + what + " (0 to " +
                                       std::to_string(size - 1) + ")");
    return entry[key].get<int>();
}

ProprioModel parseProprio(const nlohmann::json &io, const std::string &where, int actionDims)
{
    const std::string at = where + ".proprio";
    const auto &p = json::requireObject(io, "proprio", where);
    ProprioModel model;
    const auto &start = json::requireArray(p, "start", at);
    if (start.empty() || start.size() > 64)
        json::fail(at + ".start", "the state at reset: 1 to 64 numbers");
    for (const auto &v : start) {
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            json::fail(at + ".start", "every value must be a finite number");
        model.start.push_back(v.get<double>());
    }
    const int size = static_cast<int>(model.start.size());
    for (const char *key : {"integrate", "copy"})
        if (p.contains(key) && json::requireArray(p, key, at).size() > 64)
            json::fail(at + "." + key, "at most 64 entries");
    if (p.contains("integrate"))
        for (const auto &e : json::requireArray(p, "integrate", at)) {
            const std::string entry = at + ".integrate";
            if (!e.is_object())
                json::fail(entry, "entries are {\"state\", \"action\", \"min\", \"max\"}");
            ProprioModel::Integrate i;
            i.state = readIndex(e, "state", entry, size, "state");
            i.action = readIndex(e, "action", entry, actionDims, "action");
            for (const char *key : {"min", "max"})
                if (!e.contains(key) || !e[key].is_number() || !std::isfinite(e[key].get<double>()))
                    json::fail(entry + "." + key, "a finite bound of the state value");
            i.min = e["min"].get<double>();
            i.max = e["max"].get<double>();
            if (!(i.min < i.max))
                json::fail(entry, "min must be below max");
            model.integrate.push_back(i);
        }
    if (p.contains("copy"))
        for (const auto &e : json::requireArray(p, "copy", at)) {
            const std::string entry = at + ".copy";
            if (!e.is_object())
                json::fail(entry, "entries are {\"state\", \"action\"}");
            model.copy.push_back({readIndex(e, "state", entry, size, "state"),
                                  readIndex(e, "action", entry, actionDims, "action")});
        }
    return model;
}

} // namespace

namespace {

// The instructions an instruction_id input indexes, and the pixel normalisation.
void readVocabularyAndPixels(const nlohmann::json &io, const std::string &where, GenericIo &out)
{
    if (io.contains("vocabulary"))
        for (const auto &v : json::requireArray(io, "vocabulary", where)) {
            if (!v.is_string() || v.get<std::string>().empty())
                json::fail(where + ".vocabulary", "every entry must be a non-empty instruction");
            out.vocabulary.push_back(v.get<std::string>());
        }
    if (io.contains("pixels")) {
        const auto &p = json::requireObject(io, "pixels", where);
        for (const char *key : {"mean", "std"}) {
            if (!p.contains(key))
                continue;
            const auto &values = json::requireArray(p, key, where + ".pixels");
            if (values.size() != 3 || !std::all_of(values.begin(), values.end(), [](auto &v) {
                    return v.is_number() && std::isfinite(v.template get<double>());
                }))
                json::fail(where + ".pixels." + key, "three finite numbers (R, G, B)");
            auto &target = std::string(key) == "mean" ? out.pixels.mean : out.pixels.std;
            for (std::size_t c = 0; c < 3; ++c)
                target[c] = values[c].get<float>();
        }
        for (float s : out.pixels.std)
            if (s <= 0.f)
                json::fail(where + ".pixels.std", "every std must be positive");
    }
}

// An input's shape against its source and the contracts (action chunk, frame size).
void checkInputShape(const IoInput &in, const std::string &at, const std::string &kind,
                     const GenericIo &out, int actionDims, int chunk, int frameHeight,
                     int frameWidth)
{
    switch (in.source) {
    case IoSource::Image:
        expectInputShape(in, at, 4, "[1, 3, H, W]");
        break;
    case IoSource::History:
    case IoSource::Frames:
        expectInputShape(in, at, 5, "[1, K, 3, H, W]");
        if (kind == "judge" && in.shape[1] > 16)
            json::fail(at + ".shape", "a judge sees at most its 16 frames");
        break;
    case IoSource::Proprio:
        if (kind == "world_model") {
            // The commanded state after each action of the chunk (io.proprio).
            if (!out.proprio)
                json::fail(at + ".source", "a world model's proprio input is the state it "
                                           "keeps: declare io.proprio");
            const std::vector<std::int64_t> expected = {
                1, chunk, static_cast<std::int64_t>(out.proprio->start.size())};
            if (in.shape != expected)
                json::fail(at + ".shape", "the state after each action of the chunk: " +
                                              shapeText(expected) + ", not " + shapeText(in.shape));
        } else {
            expectInputShape(in, at, 2, "[1, D]");
        }
        break;
    case IoSource::Actions:
        if (in.shape != std::vector<std::int64_t>{1, chunk, actionDims})
            json::fail(at + ".shape",
                       "the action contract says chunks of " + std::to_string(chunk) +
                           " actions of " + std::to_string(actionDims) + " values: [1, " +
                           std::to_string(chunk) + ", " + std::to_string(actionDims) + "], not " +
                           shapeText(in.shape));
        break;
    case IoSource::InstructionId:
        break;
    }
    if ((in.source == IoSource::Image || in.source == IoSource::History ||
         in.source == IoSource::Frames) &&
        in.shape[in.shape.size() - 3] != 3)
        json::fail(at + ".shape", "images have 3 channels (RGB) before H and W");
    if (kind == "world_model" && (in.source == IoSource::Image || in.source == IoSource::Frames) &&
        (in.imageHeight() != frameHeight || in.imageWidth() != frameWidth))
        json::fail(at + ".shape", "a world model conditions on frames of its own size (the "
                                  "frame contract says " +
                                      std::to_string(frameHeight) + "x" +
                                      std::to_string(frameWidth) + " HxW)");
}

} // namespace

GenericIo parseGenericIo(const nlohmann::json &io, const std::string &kind,
                         const std::string &where, int actionDims, int chunk, int frameHeight,
                         int frameWidth)
{
    if (!io.is_object())
        json::fail(where, "a generic package declares its module's inputs and output here "
                          "({\"inputs\": [...], \"output\": [...]})");
    GenericIo out;
    out.kind = kind;
    readVocabularyAndPixels(io, where, out);
    if (io.contains("proprio")) {
        if (kind != "world_model")
            json::fail(where + ".proprio", "only a world model reports a proprio state");
        out.proprio = parseProprio(io, where, actionDims);
    }
    const auto allowed = allowedSources(kind);
    std::set<std::string> names;
    std::set<IoSource> seen;
    const auto &inputs = json::requireArray(io, "inputs", where);
    if (inputs.empty() || inputs.size() > 8)
        json::fail(where + ".inputs", "1 to 8 inputs, in the order forward() takes them");
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string at = where + ".inputs[" + std::to_string(i) + "]";
        if (!inputs[i].is_object())
            json::fail(at, "expected {\"name\", \"source\", \"shape\"}");
        IoInput in;
        in.name = json::requireString(inputs[i], "name", at);
        if (!names.insert(in.name).second)
            json::fail(at + ".name", "'" + in.name + "' is declared twice");
        const std::string source = json::requireString(inputs[i], "source", at);
        const auto known = std::find_if(std::begin(kSources), std::end(kSources),
                                        [&](const SourceName &s) { return source == s.name; });
        if (known == std::end(kSources) ||
            std::find(allowed.begin(), allowed.end(), known->source) == allowed.end()) {
            std::string list;
            for (IoSource s : allowed)
                list += (list.empty() ? "" : ", ") + ioSourceName(s);
            json::fail(at + ".source", "'" + source + "' is not an input a " + kind +
                                           " module can take (" + list + ")");
        }
        in.source = known->source;
        if (!seen.insert(in.source).second)
            json::fail(at + ".source", "only one input may take " + source);
        if (in.source == IoSource::InstructionId) {
            in.shape = {1};
            if (out.vocabulary.empty())
                json::fail(where + ".vocabulary",
                           "an instruction_id input needs the list of instructions it indexes");
        } else {
            in.shape = readShape(inputs[i], "shape", at);
        }
        checkInputShape(in, at, kind, out, actionDims, chunk, frameHeight, frameWidth);
        out.inputs.push_back(in);
    }
    if (kind == "policy" && !out.find(IoSource::Image) && !out.find(IoSource::History))
        json::fail(where + ".inputs", "a policy must see the image (image or history)");
    if (kind == "world_model" && (!out.find(IoSource::Actions) ||
                                  (!out.find(IoSource::Image) && !out.find(IoSource::Frames))))
        json::fail(where + ".inputs",
                   "a world model takes the actions and the last frame (image or frames)");
    if (kind == "judge" && !out.find(IoSource::Frames))
        json::fail(where + ".inputs", "a judge takes frames");

    out.output = readShape(io, "output", where);
    std::vector<std::int64_t> expected;
    if (kind == "policy")
        expected = {1, chunk, actionDims};
    else if (kind == "world_model")
        expected = {1, chunk, 3, frameHeight, frameWidth};
    else
        expected = {1, GenericIo::kJudgeClasses};
    if (out.output != expected)
        json::fail(where + ".output",
                   shapeText(out.output) + " does not match the contracts: a " + kind +
                       " returns " + shapeText(expected) +
                       (kind == "judge" ? " (logits of progress 0..5; 5 = task complete)" : ""));
    return out;
}

} // namespace kosmos::torchadapters
