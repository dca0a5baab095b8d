// The generic libtorch families: a policy, a world model and a success judge whose module
// signature is declared in the package's kosmos-model.json ("io"; GenericSignature.h), so a
// user's own exported model runs without a new plugin. Includes libtorch (TorchRuntime.h); no Qt.
#include "TorchRuntime.h"

#include <opencv2/imgproc.hpp>

#include <deque>
#include <random>

namespace kosmos::torchadapters {

using namespace detail;

namespace {

// An image input as the module takes it: [1, 3, H, W] or, for several, [1, K, 3, H, W].
torch::Tensor pixelsTensor(const std::vector<cv::Mat> &images, const IoInput &in,
                           const PixelScale &scale, const Runtime &rt)
{
    const int w = in.imageWidth();
    const int h = in.imageHeight();
    std::vector<float> all;
    all.reserve(images.size() * static_cast<std::size_t>(3 * w * h));
    for (const cv::Mat &image : images) {
        const std::vector<float> chw = scale.chw(image, w, h);
        all.insert(all.end(), chw.begin(), chw.end());
    }
    std::vector<std::int64_t> shape = in.shape;
    return torch::from_blob(all.data(), shape, torch::kFloat).clone().to(rt.device, rt.dtype);
}

torch::Tensor instructionTensor(std::int64_t id, const Runtime &rt)
{
    return torch::tensor({id}, torch::kLong).to(rt.device);
}

// The last `count` images of a sequence, the first repeated in front when there are fewer.
std::vector<cv::Mat> lastFrames(const std::deque<cv::Mat> &frames, int count)
{
    std::vector<cv::Mat> out;
    for (int i = count; i > 0; --i) {
        const int index = static_cast<int>(frames.size()) - i;
        out.push_back(frames[static_cast<std::size_t>(std::max(index, 0))]);
    }
    return out;
}

// The episodes of a batched call as instances of one adapter type with one model package (the
// engine batches only calls of the same plugin and settings; anything else is refused).
template<typename Adapter, typename Base>
std::vector<Adapter *> batchPeers(std::span<Base *const> episodes,
                                  const std::string &manifestSha256, const char *what)
{
    std::vector<Adapter *> peers;
    peers.reserve(episodes.size());
    for (Base *episode : episodes) {
        auto *peer = dynamic_cast<Adapter *>(episode);
        if (!peer || peer->packageSha256() != manifestSha256)
            throw Error(ErrorCode::InvalidInput,
                        std::string("a batch of ") + what + " must share one model package");
        peers.push_back(peer);
    }
    return peers;
}

class GenericPolicy final : public Policy
{
public:
    explicit GenericPolicy(const nlohmann::json &settings)
        : m_package(loadModelPackage(requirePackageSetting(settings), ModelFamily::GenericPolicy)),
          m_runtime(Runtime::make(runtimeOptions(settings, m_package))), m_io(*m_package.io)
    {
        m_module = loadModule(m_package, "module", m_runtime);
        const int chunk = m_package.action.chunkLength;
        m_execute = settings.value("execute", chunk);
        if (m_execute < 1 || m_execute > chunk)
            throw Error(ErrorCode::InvalidInput,
                        "settings.execute must be 1.." + std::to_string(chunk) +
                            " (the package predicts chunks of " + std::to_string(chunk) + ")");
        m_contract = m_package.action;
        m_contract.normalization = NormalizationScheme::None;
        m_contract.chunkLength = m_execute;
        m_module.warmUp(m_runtime.options.warmup, [&] {
            Observation placeholder;
            placeholder.image = cv::Mat(64, 64, CV_8UC3, cv::Scalar::all(127));
            if (const IoInput *proprio = m_io.find(IoSource::Proprio))
                placeholder.proprio.assign(static_cast<std::size_t>(proprio->shape[1]), 0.0);
            m_instruction = 0;
            run(placeholder);
            m_history.clear();
        });
    }

    ActionContract actionContract() const override { return m_contract; }
    nlohmann::json lastCallStats() const override { return m_clock.stats(m_runtime); }

    void reset(std::uint64_t, const std::string &instruction) override
    {
        if (m_io.find(IoSource::InstructionId))
            m_instruction = m_io.instructionId(instruction);
        m_history.clear();
    }

    ActionChunk act(const Observation &observation) override
    {
        return m_clock.time([&] { return run(observation); });
    }

    // A batch dimension: the module's inputs of every episode stacked ([N, ...]), one forward
    // pass. A module that refuses a batch (its export fixed batch 1) makes the call throw: the
    // engine then calls each episode alone, and this instance declares no batch from then on.
    int maxBatch() const override { return m_batchRefused ? 1 : kMaxBatch; }
    const std::string &packageSha256() const { return m_package.manifestSha256; }
    std::vector<ActionChunk> actBatch(std::span<Policy *const> episodes,
                                      std::span<const Observation> observations,
                                      std::span<std::exception_ptr>) override
    {
        const std::vector<GenericPolicy *> peers =
            batchPeers<GenericPolicy>(episodes, m_package.manifestSha256, "generic policies");
        try {
            auto chunks = m_clock.time([&] {
                torch::InferenceMode guard;
                std::vector<std::vector<torch::Tensor>> each;
                for (std::size_t i = 0; i < peers.size(); ++i)
                    each.push_back(peers[i]->inputsFor(observations[i]));
                const torch::Tensor out =
                    forward(m_module, stackInputs(each), "the generic policy module (a batch)");
                expectShape(out, batchedShape(m_io.output, peers.size()),
                            "the generic policy module (a batch of " +
                                std::to_string(peers.size()) + ")");
                std::vector<ActionChunk> perEpisode;
                for (std::size_t i = 0; i < peers.size(); ++i)
                    perEpisode.push_back(
                        peers[i]->chunkOf(out.narrow(0, static_cast<int64_t>(i), 1)));
                return perEpisode;
            });
            for (GenericPolicy *peer : peers)
                if (peer != this)
                    peer->m_clock.shareLast(m_clock);
            return chunks;
        } catch (...) {
            // Each episode is called alone next (its history is taken again then).
            for (std::size_t i = 0; i < peers.size(); ++i) {
                peers[i]->forgetLast(observations[i]);
                peers[i]->m_batchRefused = true; // one package: none of them batches any more
            }
            throw;
        }
    }

private:
    static constexpr int kMaxBatch = 256;

    ActionChunk run(const Observation &observation)
    {
        torch::InferenceMode guard;
        const torch::Tensor out =
            forward(m_module, inputsFor(observation), "the generic policy module");
        expectShape(out, m_io.output, "the generic policy module");
        return chunkOf(out);
    }

    // A failed batch: the observation inputsFor added to the history is taken back.
    void forgetLast(const Observation &observation)
    {
        if (!m_history.empty() && m_history.back().data == observation.image.data)
            m_history.pop_back();
    }

    // The module's inputs for one observation ([1, ...] each); the image joins the history.
    std::vector<torch::Tensor> inputsFor(const Observation &observation)
    {
        m_history.push_back(observation.image);
        if (const IoInput *h = m_io.find(IoSource::History);
            static_cast<int>(m_history.size()) > (h ? h->count() : 1))
            m_history.pop_front();
        std::vector<torch::Tensor> inputs;
        for (const IoInput &in : m_io.inputs) {
            switch (in.source) {
            case IoSource::Image:
                inputs.emplace_back(pixelsTensor({observation.image}, in, m_io.pixels, m_runtime));
                break;
            case IoSource::History:
                inputs.emplace_back(
                    pixelsTensor(lastFrames(m_history, in.count()), in, m_io.pixels, m_runtime));
                break;
            case IoSource::InstructionId:
                inputs.emplace_back(instructionTensor(m_instruction, m_runtime));
                break;
            case IoSource::Proprio: {
                const auto dims = static_cast<std::size_t>(in.shape[1]);
                if (observation.proprio.size() != dims)
                    throw Error(ErrorCode::InvalidInput,
                                "input '" + in.name + "' takes " + std::to_string(dims) +
                                    " proprio values; the world reports " +
                                    std::to_string(observation.proprio.size()));
                std::vector<float> values(observation.proprio.begin(), observation.proprio.end());
                inputs.emplace_back(torch::tensor(values)
                                        .view({1, static_cast<std::int64_t>(dims)})
                                        .to(m_runtime.device, m_runtime.dtype));
                break;
            }
            default:
                break; // parseGenericIo admits no other source for a policy
            }
        }
        return inputs;
    }

    // One episode's output ([1, chunk, dims]) as physical actions, checked.
    ActionChunk chunkOf(const torch::Tensor &out) const
    {
        ActionChunk chunk;
        for (const auto &normalized : tensorChunk(out)) {
            if (static_cast<int>(chunk.size()) == m_execute)
                break;
            Action a = m_package.action.unnormalize(normalized);
            for (std::size_t d = 0; d < a.size(); ++d) {
                if (!std::isfinite(a[d]))
                    throw Error(ErrorCode::InvalidInput, "the model produced a non-finite action");
                // A module that clamps to the bounds in normalized float32 units lands on them
                // only up to round-off after unnormalizing: snap that (at most 1e-6 of the
                // dimension's range) onto the bound. Anything further out stays and fails the
                // contract.
                const auto &dim = m_package.action.dimensions[d];
                const double slack = 1e-6 * (dim.max - dim.min);
                if (a[d] > dim.max && a[d] - dim.max <= slack)
                    a[d] = dim.max;
                if (a[d] < dim.min && dim.min - a[d] <= slack)
                    a[d] = dim.min;
            }
            chunk.push_back(std::move(a));
        }
        return chunk;
    }

    ModelPackage m_package;
    Runtime m_runtime;
    GenericIo m_io;
    Module m_module;
    ActionContract m_contract;
    int m_execute = 1;
    std::int64_t m_instruction = 0;
    std::deque<cv::Mat> m_history;
    CallClock m_clock;
    bool m_batchRefused = false;
};

// Autoregressive: each chunk is predicted from the frames so far (the start frame, then its
// own predictions), at the frame contract's size; the actions are normalized by the package's
// action contract before the module sees them.
class GenericWorldModel final : public WorldModel
{
public:
    explicit GenericWorldModel(const nlohmann::json &settings)
        : m_package(
              loadModelPackage(requirePackageSetting(settings), ModelFamily::GenericWorldModel)),
          m_runtime(Runtime::make(runtimeOptions(settings, m_package))), m_io(*m_package.io),
          m_frame(*m_package.frame)
    {
        m_module = loadModule(m_package, "module", m_runtime);
        m_frame.certifiedChunkLengths = {m_package.action.chunkLength};
        m_module.warmUp(m_runtime.options.warmup, [&] {
            m_frames = {cv::Mat(m_frame.height, m_frame.width, CV_8UC3, cv::Scalar::all(127))};
            generate(
                ActionChunk(static_cast<std::size_t>(m_package.action.chunkLength),
                            Action(static_cast<std::size_t>(m_package.action.dimension()), 0.0)));
        });
    }

    ActionContract actionContract() const override
    {
        ActionContract c = m_package.action;
        c.normalization = NormalizationScheme::None; // physical actions in, normalized here
        return c;
    }
    FrameContract frameContract() const override { return m_frame; }
    nlohmann::json lastCallStats() const override { return m_clock.stats(m_runtime); }
    // The commanded end-effector state the package declares (io.proprio), none otherwise.
    std::vector<double> proprio() const override { return m_proprio; }

    std::vector<cv::Mat> reset(const WorldStart &start) override
    {
        m_proprio = m_io.proprio ? m_io.proprio->start : std::vector<double>{};
        cv::Mat frame;
        cv::resize(startFrameOf(start, "the generic world model"), frame,
                   cv::Size(m_frame.width, m_frame.height), 0, 0, cv::INTER_AREA);
        if (m_io.find(IoSource::InstructionId))
            m_instruction = m_io.instructionId(start.instruction);
        m_frames = {frame};
        return {frame};
    }

    std::vector<cv::Mat> step(const ActionChunk &actions) override
    {
        return m_clock.time([&] { return generate(actions); });
    }

    // A batch dimension, as GenericPolicy's: every episode's inputs stacked, one forward pass,
    // each episode's frames and commanded state taken from its slice of the output.
    int maxBatch() const override { return m_batchRefused ? 1 : kMaxBatch; }
    const std::string &packageSha256() const { return m_package.manifestSha256; }
    std::vector<std::vector<cv::Mat>> stepBatch(std::span<WorldModel *const> episodes,
                                                std::span<const ActionChunk> actions,
                                                std::span<std::exception_ptr>) override
    {
        const std::vector<GenericWorldModel *> peers = batchPeers<GenericWorldModel>(
            episodes, m_package.manifestSha256, "generic world models");
        try {
            auto frames = m_clock.time([&] {
                torch::InferenceMode guard;
                std::vector<Prepared> prepared;
                std::vector<std::vector<torch::Tensor>> each;
                for (std::size_t i = 0; i < peers.size(); ++i) {
                    prepared.push_back(peers[i]->prepare(actions[i]));
                    each.push_back(std::move(prepared.back().inputs));
                }
                const torch::Tensor out =
                    forward(m_module, stackInputs(each), "the generic world model module (a batch)")
                        .to(torch::kCPU, torch::kFloat)
                        .contiguous();
                expectShape(out, batchedShape(m_io.output, peers.size()),
                            "the generic world model module (a batch of " +
                                std::to_string(peers.size()) + ")");
                std::vector<std::vector<cv::Mat>> perEpisode;
                for (std::size_t i = 0; i < peers.size(); ++i)
                    perEpisode.push_back(
                        peers[i]->commit(out.narrow(0, static_cast<int64_t>(i), 1).contiguous(),
                                         std::move(prepared[i].state)));
                return perEpisode;
            });
            for (GenericWorldModel *peer : peers)
                if (peer != this)
                    peer->m_clock.shareLast(m_clock);
            return frames;
        } catch (...) {
            // Nothing was committed: each episode is called alone next, and none batches again.
            for (GenericWorldModel *peer : peers)
                peer->m_batchRefused = true;
            throw;
        }
    }

private:
    static constexpr int kMaxBatch = 256;

    // One episode's inputs for a chunk ([1, ...] each) and the commanded state after it, not yet
    // taken: commit() takes it with the frames.
    struct Prepared
    {
        std::vector<torch::Tensor> inputs;
        std::vector<double> state;
    };

    std::vector<cv::Mat> generate(const ActionChunk &actions)
    {
        torch::InferenceMode guard;
        Prepared prepared = prepare(actions);
        const torch::Tensor out =
            forward(m_module, std::move(prepared.inputs), "the generic world model module")
                .to(torch::kCPU, torch::kFloat)
                .contiguous();
        expectShape(out, m_io.output, "the generic world model module");
        return commit(out, std::move(prepared.state));
    }

    Prepared prepare(const ActionChunk &actions) const
    {
        const int n = m_package.action.chunkLength;
        const int dims = m_package.action.dimension();
        if (static_cast<int>(actions.size()) != n)
            throw Error(ErrorCode::InvalidInput, "the generic world model takes chunks of " +
                                                     std::to_string(n) + " actions, got " +
                                                     std::to_string(actions.size()));
        std::vector<float> flat;
        for (const auto &a : actions) {
            if (static_cast<int>(a.size()) != dims)
                throw Error(ErrorCode::InvalidInput, "an action of " + std::to_string(a.size()) +
                                                         " values; the package's contract has " +
                                                         std::to_string(dims));
            for (double v : m_package.action.normalize(a))
                flat.push_back(static_cast<float>(v));
        }
        // The commanded state after each action of this chunk (io.proprio), from the current one
        // (the declared start before any reset, as in the warm-up).
        std::vector<double> state =
            m_proprio.empty() && m_io.proprio ? m_io.proprio->start : m_proprio;
        std::vector<float> trajectory;
        if (m_io.proprio)
            for (const auto &a : actions) {
                m_io.proprio->apply(state, a);
                trajectory.insert(trajectory.end(), state.begin(), state.end());
            }
        std::vector<torch::Tensor> inputs;
        for (const IoInput &in : m_io.inputs) {
            switch (in.source) {
            case IoSource::Image:
                inputs.emplace_back(pixelsTensor({m_frames.back()}, in, m_io.pixels, m_runtime));
                break;
            case IoSource::Frames:
                inputs.emplace_back(
                    pixelsTensor(lastFrames(m_frames, in.count()), in, m_io.pixels, m_runtime));
                break;
            case IoSource::Actions:
                inputs.emplace_back(
                    torch::tensor(flat).view({1, n, dims}).to(m_runtime.device, m_runtime.dtype));
                break;
            case IoSource::InstructionId:
                inputs.emplace_back(instructionTensor(m_instruction, m_runtime));
                break;
            case IoSource::Proprio: // parseGenericIo admits it only with io.proprio
                inputs.emplace_back(torch::tensor(trajectory)
                                        .view({1, n, static_cast<std::int64_t>(state.size())})
                                        .to(m_runtime.device, m_runtime.dtype));
                break;
            default:
                break;
            }
        }
        return {std::move(inputs), std::move(state)};
    }

    // One episode's output ([1, n, 3, H, W], float, contiguous on the CPU) as frames; the frames
    // and the commanded state become the episode's.
    std::vector<cv::Mat> commit(const torch::Tensor &out, std::vector<double> state)
    {
        const int n = m_package.action.chunkLength;
        std::vector<cv::Mat> frames;
        const std::size_t plane = std::size_t{3} * static_cast<std::size_t>(m_frame.width) *
                                  static_cast<std::size_t>(m_frame.height);
        for (int i = 0; i < n; ++i)
            frames.push_back(
                m_io.pixels.image(out.data_ptr<float>() + plane * static_cast<std::size_t>(i),
                                  m_frame.width, m_frame.height));
        if (!m_proprio.empty()) // after a reset (the warm-up keeps none)
            m_proprio = std::move(state);
        for (const cv::Mat &f : frames)
            m_frames.push_back(f);
        while (m_frames.size() > 16)
            m_frames.pop_front();
        return frames;
    }

    ModelPackage m_package;
    Runtime m_runtime;
    GenericIo m_io;
    FrameContract m_frame;
    Module m_module;
    std::int64_t m_instruction = 0;
    std::deque<cv::Mat> m_frames;
    std::vector<double> m_proprio;
    CallClock m_clock;
    bool m_batchRefused = false;
};

// A learned success classifier as a judge: the module gives logits over progress 0..5 (5: the
// task is complete) from the last K of the judge's 16 frames; each sample draws its progress
// from softmax(logits / temperature) with the sample's seed, so samples and quorum work as for
// any judge, and the answer is the judge schema's JSON. The model sees no collisions: it says
// "uncertain" for them.
class GenericJudge final : public Judge
{
public:
    explicit GenericJudge(const nlohmann::json &settings)
        : m_package(loadModelPackage(requirePackageSetting(settings), ModelFamily::GenericJudge)),
          m_runtime(Runtime::make(runtimeOptions(settings, m_package))), m_io(*m_package.io)
    {
        m_module = loadModule(m_package, "module", m_runtime);
    }

    JudgeAnswer sample(const JudgeRequest &request) override
    {
        return sampleBatch(std::span<const JudgeRequest>(&request, 1)).front();
    }

    // A judgment's samples in one call: the classifier's probabilities depend on the frames, the
    // instruction and the temperature alone, so each distinct input is one row of one forward
    // pass (a judgment's samples share theirs), and each sample draws from them with its own
    // seed and try, exactly as one at a time.
    int maxBatch() const override { return 64; }

    std::vector<JudgeAnswer> sampleBatch(std::span<const JudgeRequest> requests) override
    {
        const auto start = std::chrono::steady_clock::now();
        std::vector<JudgeAnswer> answers(requests.size());
        std::vector<std::size_t> rowOf(requests.size());
        std::vector<const JudgeRequest *> rows;
        for (std::size_t i = 0; i < requests.size(); ++i) {
            std::size_t row = 0;
            while (row < rows.size() && !sameInput(*rows[row], requests[i]))
                ++row;
            if (row == rows.size())
                rows.push_back(&requests[i]);
            rowOf[i] = row;
        }
        std::vector<std::vector<double>> p;
        std::string error;
        try {
            p = probabilities(rows);
        } catch (const Error &e) {
            if (rows.size() > 1)
                throw; // a module exported for one input refuses a stack: asked one at a time
            error = e.what();
        }
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count();
        for (std::size_t i = 0; i < requests.size(); ++i) {
            JudgeAnswer &answer = answers[i];
            if (error.empty()) {
                answer.rawText = verdict(requests[i], p[rowOf[i]]);
                answer.finishReason = "stop";
            } else {
                answer.error = error;
            }
            // The call's time, shared by the samples it answered.
            answer.decodeMs = ms / static_cast<std::int64_t>(requests.size());
        }
        return answers;
    }

private:
    static bool sameInput(const JudgeRequest &a, const JudgeRequest &b)
    {
        if (a.instruction != b.instruction || a.temperature != b.temperature ||
            a.frames.size() != b.frames.size())
            return false;
        if (!a.framePngs.empty() && a.framePngs.size() == b.framePngs.size())
            return a.framePngs == b.framePngs; // what the judge is shown, byte for byte
        for (std::size_t i = 0; i < a.frames.size(); ++i)
            if (a.frames[i].data != b.frames[i].data) // the same image, not an equal one
                return false;
        return true;
    }

    std::string verdict(const JudgeRequest &request, const std::vector<double> &p) const
    {
        std::seed_seq seq{
            static_cast<std::uint32_t>(request.seed),
            static_cast<std::uint32_t>(static_cast<std::uint64_t>(request.seed) >> 32),
            static_cast<std::uint32_t>(request.tryIndex)};
        std::mt19937_64 rng(seq);
        const int progress = std::discrete_distribution<int>(p.begin(), p.end())(rng);
        const IoInput *frames = m_io.find(IoSource::Frames);
        nlohmann::json evidence = nlohmann::json::array();
        for (int i = 16 - frames->count(); i < 16; ++i)
            evidence.push_back(i);
        std::string reasons = "learned success classifier; P(progress 0..5) =";
        for (double v : p)
            reasons += " " + std::to_string(std::round(v * 1000) / 1000.0).substr(0, 5);
        reasons += "; drew " + std::to_string(progress);
        const nlohmann::json j = {{"integrity", "intact"},
                                  {"collision", "uncertain"},
                                  {"progress", progress},
                                  {"completion_evidence", progress == 5 ? "met" : "not_met"},
                                  {"evidence_frame_indices", evidence},
                                  {"observable_reasons", reasons}};
        return j.dump();
    }

    // One forward pass for every row (a distinct request), stacked along dimension 0.
    std::vector<std::vector<double>> probabilities(const std::vector<const JudgeRequest *> &rows)
    {
        torch::InferenceMode guard;
        std::vector<std::vector<torch::Tensor>> each;
        for (const JudgeRequest *request : rows) {
            std::vector<torch::Tensor> inputs;
            for (const IoInput &in : m_io.inputs) {
                if (in.source == IoSource::Frames) {
                    if (request->frames.size() < static_cast<std::size_t>(in.count()))
                        throw Error(ErrorCode::InvalidInput,
                                    "the judge module takes " + std::to_string(in.count()) +
                                        " frames; the request has " +
                                        std::to_string(request->frames.size()));
                    const std::vector<cv::Mat> last(request->frames.end() - in.count(),
                                                    request->frames.end());
                    inputs.emplace_back(pixelsTensor(last, in, m_io.pixels, m_runtime));
                } else if (in.source == IoSource::InstructionId) {
                    inputs.emplace_back(
                        instructionTensor(m_io.instructionId(request->instruction), m_runtime));
                }
            }
            each.push_back(std::move(inputs));
        }
        const torch::Tensor logits =
            forward(m_module, rows.size() == 1 ? std::move(each.front()) : stackInputs(each),
                    "the generic judge module");
        expectShape(logits, batchedShape(m_io.output, rows.size()), "the generic judge module");
        std::vector<std::vector<double>> out;
        const torch::Tensor all = logits.to(torch::kCPU, torch::kDouble);
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const double temperature = std::max(rows[r]->temperature, 1e-3);
            const torch::Tensor p =
                torch::softmax(all[static_cast<int64_t>(r)] / temperature, 0).contiguous();
            std::vector<double> v(p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
            for (double x : v)
                if (!std::isfinite(x))
                    throw Error(ErrorCode::InvalidInput,
                                "the judge module produced non-finite logits");
            out.push_back(std::move(v));
        }
        return out;
    }

    ModelPackage m_package;
    Runtime m_runtime;
    GenericIo m_io;
    Module m_module;
};

} // namespace

std::unique_ptr<Policy> createGenericPolicy(const nlohmann::json &settings)
{
    return std::make_unique<GenericPolicy>(settings);
}

std::unique_ptr<WorldModel> createGenericWorldModel(const nlohmann::json &settings)
{
    return std::make_unique<GenericWorldModel>(settings);
}

std::unique_ptr<Judge> createTorchJudge(ModelFamily family, const nlohmann::json &settings)
{
    if (family != ModelFamily::GenericJudge)
        throw Error(ErrorCode::InvalidInput, familySpec(family).name + " is not a judge family");
    return std::make_unique<GenericJudge>(settings);
}

} // namespace kosmos::torchadapters
