#pragma once

#include "artifacts/ArtifactStore.h"
#include "validation/RolloutValidator.h"

#include <opencv2/core/mat.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace kosmos {

// A rollout's frames encoded, hashed, stored and measured off the engine's critical path
// (docs/pipeline.md, "The rollout engine"). Threads per rollout:
//  - up to `storeThreads` store threads (two by default: encoding is the costliest part; the
//    second starts the first time frames queue up, and works only while they do: with a slow
//    policy one keeps up) each take the next queued frame, encode it as PNG, take the pixel digest
//    from the raw pixels it already has (no decode), and write the object without an fsync of its
//    own; objects become durable in batches, one syncfs of the store's file system per batch (every
//    `syncEvery` objects, and whenever the engine asks for what is durable so far), one batch at a
//    time;
//  - the measure thread takes the validator's pixel measurements (grey statistics, differences,
//    optical flow) frame by frame, so validation at the end only combines them.
// Only durable objects are handed back (takeDurable, finish) for the ledger to record: a row never
// names an object a power loss could take back. A bounded queue gives back-pressure: submit()
// blocks while `capacity` frames wait for either thread. One producer thread.
class FramePipeline
{
public:
    struct Options
    {
        int capacity = 16;
        int syncEvery = 16;
        int storeThreads = 2;
        ValidationThresholds thresholds;
    };
    struct StoredFrame
    {
        int index = 0;
        StoredObject object;
    };
    // Time spent, in milliseconds: on the producer's side (handing frames over, blocked by
    // back-pressure, waiting in finish) and on the background threads.
    struct Timings
    {
        double handoffMs = 0; // submit(), blocked time included
        double blockedMs = 0; // of which waiting for room in the queue
        double finishMs = 0;  // finish(): the work still queued when the rollout ended
        double encodeMs = 0;
        double writeMs = 0;
        double syncMs = 0;
        int syncs = 0;
        double measureMs = 0;
        int storeThreads = 0; // started so far (the second when frames queued up)
    };

    FramePipeline(const std::filesystem::path &objectsDir, const Options &options);
    // Stops both threads; frames not yet stored are dropped (an object written but not handed
    // back is never recorded: it is an unreferenced file in the store, harmless).
    ~FramePipeline();
    FramePipeline(const FramePipeline &) = delete;
    FramePipeline &operator=(const FramePipeline &) = delete;

    // Queues the next frame (indices 0, 1, 2, ... in order). Its pixels are shared, never
    // written; the caller must not modify them either. Rethrows a background failure.
    void submit(const cv::Mat &frame);
    // The frames stored and durable since the last call, in index order and without gaps (a
    // frame durable before one of a lower index waits for it), asking the store threads to make
    // what they have written durable (does not wait for that). Rethrows a failure.
    std::vector<StoredFrame> takeDurable();
    // Waits for every queued frame, makes them durable and returns those not yet taken.
    // Rethrows a failure. Nothing may be submitted afterwards.
    std::vector<StoredFrame> finish();
    // After finish(): the measurements of every frame, in order.
    const FrameMeasurements &measurements() const { return m_measurements; }
    Timings timings() const;

private:
    void startStoreThread();
    void storeLoop(int rank);
    void measureLoop();
    void syncWritten(std::unique_lock<std::mutex> &lock);
    std::vector<StoredFrame> takeContiguous();
    void rethrowFailure();
    void keepFirstFailure(std::exception_ptr failure);

    ArtifactStore m_store;
    Options m_options;
    FrameMeasurements m_measurements;

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::pair<int, cv::Mat>> m_toStore;
    std::deque<cv::Mat> m_toMeasure;
    std::vector<StoredFrame> m_written; // stored, not yet durable
    std::vector<StoredFrame> m_durable; // durable, not yet taken, in index order
    int m_next = 0;
    int m_nextTaken = 0; // the index of the next frame takeDurable hands back
    int m_storing = 0;   // frames taken by a store thread and not yet written
    bool m_measuring = false;
    bool m_syncing = false; // a batch taken from m_written is being synced
    bool m_syncRequested = false;
    bool m_stop = false;
    bool m_finished = false;
    std::exception_ptr m_failure;
    Timings m_timings;

    std::vector<std::thread> m_storeThreads; // started and joined by the producer's thread
    std::thread m_measureThread;
};

} // namespace kosmos
