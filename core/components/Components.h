#pragma once

#include "contracts/ActionContract.h"
#include "contracts/FrameContract.h"

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kosmos {

// The run-time faces of the three component families. Plugins (adapters/) create them; the
// rollout engine (core/pipeline) drives them. Frames are RGB, 8 bits per channel, unless a
// frame contract says otherwise.

// Whether a component can run here, and if not, why (no weights configured, no CUDA, endpoint
// unset ...). Never faked: an unavailable adapter is shown as unavailable.
struct Availability
{
    bool available = true;
    std::string reason;
    static Availability yes() { return {}; }
    static Availability no(std::string why) { return {false, std::move(why)}; }
};

struct Observation
{
    cv::Mat image; // what the policy sees (closed loop: the latest predicted frame)
    std::string instruction;
    int step = 0;
    std::vector<double> proprio; // end-effector state when the world model reports one
    // The world's own state (WorldModel::state) for policies that are allowed to read it: the
    // scripted physics policies (privileged; never a learned policy's input). Null otherwise.
    nlohmann::json state;
    // True once the run is to stop (cancel requested, batch interrupted): a policy that waits on
    // a server polls it and abandons the request. Empty: never.
    std::function<bool()> cancelled;
};

class Policy
{
public:
    virtual ~Policy() = default;
    virtual ActionContract actionContract() const = 0;
    virtual void reset(std::uint64_t seed, const std::string &instruction) = 0;
    // One chunk of physical actions in the policy's own contract.
    virtual ActionChunk act(const Observation &observation) = 0;
    // The component's own account of its last act() (e.g. {"call_ms", "peak_rss_bytes"}), added
    // to the step's event in the ledger; null when it keeps none.
    virtual nlohmann::json lastCallStats() const { return nullptr; }
    // Images the policy made on the way (e.g. SuSIE's subgoals), taken once: (name, RGB image).
    // Stored as artifacts of the attempt and shown in the player.
    virtual std::vector<std::pair<std::string, cv::Mat>> takeImages() { return {}; }

    // A batch dimension (`kosmos-cli run --batch N`, docs/pipeline.md "Batched episodes"): how
    // many episodes one call may serve; 1 (the default): none, called per episode.
    virtual int maxBatch() const { return 1; }
    // One call for several episodes, made on episodes[0]: each episode is an instance of this
    // plugin with the same settings, reset for its own run and holding its own state;
    // observations[i] is episodes[i]'s. Returns each episode's chunk, as act() would have, and
    // leaves each instance's lastCallStats about the shared call; an episode's own failure goes
    // into failures[i] (its chunk is then ignored) and ends that episode only. Throwing instead
    // says the batched call itself failed: then no episode's state may have changed, and the
    // engine calls each episode's act() on its own. The default calls act() on each.
    virtual std::vector<ActionChunk> actBatch(std::span<Policy *const> episodes,
                                              std::span<const Observation> observations,
                                              std::span<std::exception_ptr> failures)
    {
        std::vector<ActionChunk> out(episodes.size());
        for (std::size_t i = 0; i < episodes.size(); ++i) {
            try {
                out[i] = episodes[i]->act(observations[i]);
            } catch (...) {
                failures[i] = std::current_exception();
            }
        }
        return out;
    }
};

// Where an episode starts: a start state (for simulators) and/or a start frame.
struct WorldStart
{
    nlohmann::json startState = nlohmann::json::object();
    cv::Mat startFrame;
    std::uint64_t seed = 0;
    std::string instruction;
    // True once the run is to stop (cancel requested, batch interrupted), for the whole episode
    // this reset starts: a world whose calls wait on something else (a server: remote.world)
    // polls it during reset() and step() and abandons the call. Empty: never.
    std::function<bool()> cancelled;
};

// What a world that knows its true state can report (the synthetic tabletop, a physics
// simulator). Recorded as a label of its own source, never mixed with judge output or human
// labels: "synthetic_reference" (a procedural world's own truth) or "physics" (read from a
// simulator's state).
struct GroundTruth
{
    bool success = false;
    int progress = 0; // 0-5, the judge's scale
    nlohmann::json details = nlohmann::json::object();
    std::string source = "synthetic_reference";
};

class WorldModel
{
public:
    virtual ~WorldModel() = default;
    virtual ActionContract actionContract() const = 0;
    virtual FrameContract frameContract() const = 0;
    // Starts an episode; returns the conditioning frames. Every frame returned (here and by
    // step) must own its pixels or share them with nothing the world model writes again: the
    // engine keeps the cv::Mat headers for the frame pipeline's threads and for validation and
    // the judge at the end, without copying.
    virtual std::vector<cv::Mat> reset(const WorldStart &start) = 0;
    // Advances by a chunk of actions in the world model's own space; returns the new frames
    // (framesPerAction per action, without the conditioning frames).
    virtual std::vector<cv::Mat> step(const ActionChunk &actions) = 0;
    virtual std::vector<double> proprio() const { return {}; }
    // As Policy::lastCallStats, for the last step().
    virtual nlohmann::json lastCallStats() const { return nullptr; }
    virtual std::optional<GroundTruth> groundTruth() const { return std::nullopt; }
    // The world's state after reset() or the last step() when it has one (a simulator: object
    // poses, the gripper): recorded per step as the run's "world_states" artifact. Null: none.
    virtual nlohmann::json state() const { return nullptr; }

    // A batch dimension, as Policy::maxBatch: how many episodes one step call may serve.
    virtual int maxBatch() const { return 1; }
    // One step for several episodes, made on episodes[0] (instances of this plugin with the same
    // settings, each with its own episode); actions[i] is episodes[i]'s chunk. Returns each
    // episode's new frames, as step() would have; failures and throwing as Policy::actBatch. The
    // default calls step() on each.
    virtual std::vector<std::vector<cv::Mat>> stepBatch(std::span<WorldModel *const> episodes,
                                                        std::span<const ActionChunk> actions,
                                                        std::span<std::exception_ptr> failures)
    {
        std::vector<std::vector<cv::Mat>> out(episodes.size());
        for (std::size_t i = 0; i < episodes.size(); ++i) {
            try {
                out[i] = episodes[i]->step(actions[i]);
            } catch (...) {
                failures[i] = std::current_exception();
            }
        }
        return out;
    }
};

// One sampled judgment request. The judge is blinded: no policy, no actions, no world model.
struct JudgeRequest
{
    std::vector<cv::Mat> frames; // exactly 16
    std::vector<int> frameIndices;
    std::string taskId;
    std::string instruction;
    std::string prompt;
    int sampleIndex = 0;
    int sampleCount = 1; // the frozen number of samples of this judgment
    int tryIndex = 0;
    std::int64_t seed = 0;
    double temperature = 0.7;
    double topP = 1.0;
    int maxNewTokens = 512;
    // The frames as the PNGs to send (encodeJudgeFramePng), one per frame: an adapter that
    // sends images sends these bytes, so the ledger's copies are exactly what the judge saw.
    std::vector<std::vector<std::uint8_t>> framePngs;
    // Their data URLs (data:image/png;base64,...), computed once per judgment by the runner; an
    // adapter that sends images sends these strings rather than encoding again per call.
    std::vector<std::string> frameDataUrls;
};

struct JudgeAnswer
{
    std::optional<std::string> rawText; // nullopt: the request failed
    std::string error;                  // why it failed
    std::optional<std::int64_t> generatedTokens;
    std::optional<std::int64_t> decodeMs;
    std::optional<std::int64_t> seedUsed;    // when the adapter sent another seed than asked
    std::optional<std::string> finishReason; // e.g. "stop", "length"
    // Provenance of a call over the wire (empty for an in-process judge): the exact request
    // body bytes sent and where, and what the server said about itself in its reply.
    std::string wireBody;
    std::string wireUrl;
    std::optional<std::string> serverModel;       // the reply's `model`
    std::optional<std::string> systemFingerprint; // the reply's `system_fingerprint`
};

class Judge
{
public:
    virtual ~Judge() = default;
    virtual JudgeAnswer sample(const JudgeRequest &request) = 0;
    // Batching (plugin API 4): how many requests one sampleBatch call may answer. The runner
    // sends a judgment's samples together (the same frames and prompt, each sample with its own
    // seed), at most maxBatch() a call.
    virtual int maxBatch() const { return 1; }
    // Answers each request as sample() would have, in order, one answer per request; a request
    // that fails is an answer with its error (never a throw for one request). Throwing fails the
    // whole call: the runner then asks each request on its own. The default calls sample().
    virtual std::vector<JudgeAnswer> sampleBatch(std::span<const JudgeRequest> requests)
    {
        std::vector<JudgeAnswer> answers;
        answers.reserve(requests.size());
        for (const JudgeRequest &request : requests)
            answers.push_back(sample(request));
        return answers;
    }
};

} // namespace kosmos
