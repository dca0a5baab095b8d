#include "pipeline/FramePipeline.h"

#include "artifacts/ImageCodecs.h"
#include "artifacts/PixelDigest.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <pthread.h>
#include <sched.h>

namespace kosmos {

namespace {

using Steady = std::chrono::steady_clock;

// The background threads run as SCHED_BATCH (Linux): the scheduler does not let them preempt the
// rollout's thread when a frame wakes them, so handing a frame over costs the rollout
// microseconds, not the next time slice. Their throughput is unchanged; back-pressure still
// bounds how far they may fall behind. Best effort: where the policy cannot be set, they run
// as any thread.
void yieldToTheRollout()
{
#ifdef SCHED_BATCH
    sched_param param{};
    param.sched_priority = 0;
    (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
#endif
}

} // namespace

FramePipeline::FramePipeline(const std::filesystem::path &objectsDir, const Options &options)
    : m_store(objectsDir), m_options(options), m_measurements(options.thresholds)
{
    if (m_options.capacity < 1 || m_options.syncEvery < 1 || m_options.storeThreads < 1)
        throw Error(ErrorCode::InvalidInput,
                    "frame pipeline: capacity, syncEvery and storeThreads must be >= 1");
    m_store.setDeferredSync(true);
    prepareImageCodecs(); // before the store threads' first encode
    startStoreThread();   // the others when frames queue up (submit)
    m_measureThread = std::thread([this] {
        yieldToTheRollout();
        measureLoop();
    });
}

FramePipeline::~FramePipeline()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_changed.notify_all();
    for (auto &t : m_storeThreads)
        t.join();
    m_measureThread.join();
}

void FramePipeline::startStoreThread()
{
    const int rank = static_cast<int>(m_storeThreads.size());
    m_storeThreads.emplace_back([this, rank] {
        yieldToTheRollout();
        storeLoop(rank);
    });
}

void FramePipeline::rethrowFailure()
{
    if (m_failure)
        std::rethrow_exception(m_failure);
}

// Called with the lock held: the first background failure is the one reported.
void FramePipeline::keepFirstFailure(std::exception_ptr failure)
{
    if (!m_failure)
        m_failure = std::move(failure);
}

void FramePipeline::submit(const cv::Mat &frame)
{
    const auto start = Steady::now();
    std::unique_lock lock(m_mutex);
    if (m_finished)
        throw Error(ErrorCode::InvalidInput, "frame pipeline: submit after finish");
    const auto room = [this] {
        return m_failure || (static_cast<int>(m_toStore.size()) < m_options.capacity &&
                             static_cast<int>(m_toMeasure.size()) < m_options.capacity);
    };
    if (!room()) {
        const auto blocked = Steady::now();
        m_changed.wait(lock, room);
        m_timings.blockedMs += msSince(blocked);
    }
    rethrowFailure();
    m_toStore.emplace_back(m_next++, frame);
    m_toMeasure.push_back(frame);
    // Frames queue up: the policy and world are faster than one store thread. Another starts
    // (with a slow policy it never does: an idle thread's wake-ups cost the rollout).
    if (static_cast<int>(m_storeThreads.size()) < m_options.storeThreads &&
        static_cast<int>(m_toStore.size()) > static_cast<int>(m_storeThreads.size()))
        startStoreThread();
    m_timings.handoffMs += msSince(start);
    lock.unlock();
    m_changed.notify_all();
}

std::vector<FramePipeline::StoredFrame> FramePipeline::takeDurable()
{
    std::vector<StoredFrame> out;
    {
        std::lock_guard lock(m_mutex);
        rethrowFailure();
        out = takeContiguous();
        if (!m_written.empty())
            m_syncRequested = true;
    }
    m_changed.notify_all();
    return out;
}

// Called with the lock held: the durable frames from m_nextTaken on, up to the first gap.
std::vector<FramePipeline::StoredFrame> FramePipeline::takeContiguous()
{
    std::size_t n = 0;
    while (n < m_durable.size() && m_durable[n].index == m_nextTaken + static_cast<int>(n))
        ++n;
    std::vector<StoredFrame> out(std::make_move_iterator(m_durable.begin()),
                                 std::make_move_iterator(m_durable.begin() + static_cast<long>(n)));
    m_durable.erase(m_durable.begin(), m_durable.begin() + static_cast<long>(n));
    m_nextTaken += static_cast<int>(n);
    return out;
}

std::vector<FramePipeline::StoredFrame> FramePipeline::finish()
{
    const auto start = Steady::now();
    std::unique_lock lock(m_mutex);
    m_finished = true;
    m_syncRequested = true;
    m_changed.notify_all();
    m_changed.wait(lock, [this] {
        return m_failure || (m_toStore.empty() && m_storing == 0 && m_written.empty() &&
                             !m_syncing && m_toMeasure.empty() && !m_measuring);
    });
    rethrowFailure();
    std::vector<StoredFrame> out = takeContiguous(); // every frame: no gap is left
    m_timings.finishMs += msSince(start);
    return out;
}

FramePipeline::Timings FramePipeline::timings() const
{
    std::lock_guard lock(m_mutex);
    Timings t = m_timings;
    t.storeThreads = static_cast<int>(m_storeThreads.size());
    return t;
}

// Called with the lock held; releases it during the syncfs.
void FramePipeline::syncWritten(std::unique_lock<std::mutex> &lock)
{
    std::vector<StoredFrame> batch;
    batch.swap(m_written);
    m_syncRequested = false;
    m_syncing = true; // finish() waits for this batch too
    lock.unlock();
    const auto start = Steady::now();
    std::exception_ptr failure;
    try {
        m_store.syncFilesystem();
    } catch (...) {
        failure = std::current_exception();
    }
    const double ms = msSince(start);
    lock.lock();
    m_syncing = false;
    m_timings.syncMs += ms;
    ++m_timings.syncs;
    if (failure) {
        keepFirstFailure(failure);
        return;
    }
    // Frames are written in any order by the store threads: the durable list is kept sorted.
    for (auto &f : batch)
        m_durable.push_back(std::move(f));
    std::sort(m_durable.begin(), m_durable.end(),
              [](const StoredFrame &a, const StoredFrame &b) { return a.index < b.index; });
}

void FramePipeline::storeLoop(int rank)
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        // Thread `rank` takes a frame only while more than `rank` wait, so that the threads
        // started when frames queued up sleep while one keeps up. One batch is synced at a time
        // (m_syncing); meanwhile the other threads store frames.
        const auto work = [this, rank] { return static_cast<int>(m_toStore.size()) > rank; };
        m_changed.wait(lock, [this, &work] {
            return m_stop || m_failure || work() ||
                   (!m_syncing && (m_syncRequested || m_finished) && !m_written.empty());
        });
        if (m_stop || m_failure)
            return;
        const bool idle = !work();
        if (!m_syncing && !m_written.empty() &&
            (idle || static_cast<int>(m_written.size()) >= m_options.syncEvery)) {
            syncWritten(lock);
            m_changed.notify_all();
            continue;
        }
        if (idle)
            continue;
        auto [index, frame] = std::move(m_toStore.front());
        m_toStore.pop_front();
        ++m_storing;
        lock.unlock();
        m_changed.notify_all(); // room for the producer
        std::exception_ptr failure;
        StoredFrame stored{index, {}};
        double encodeMs = 0, writeMs = 0;
        try {
            auto t = Steady::now();
            const std::vector<std::uint8_t> png = encodeFramePng(frame);
            encodeMs = msSince(t);
            t = Steady::now();
            if (frame.depth() == CV_8U && (frame.channels() == 3 || frame.channels() == 1)) {
                // The PNG holds exactly these pixels: their digest needs no decode.
                const cv::Mat packed = frame.isContinuous() ? frame : frame.clone();
                const PixelDigest pixels =
                    pixelDigestOfRaw(std::span(packed.data, packed.total() * packed.elemSize()),
                                     packed.cols, packed.rows, packed.channels());
                stored.object = m_store.putEncodedImage(png, "image/png", pixels);
            } else {
                stored.object = m_store.putBytes(png, "image/png");
            }
            writeMs = msSince(t);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        --m_storing;
        m_timings.encodeMs += encodeMs;
        m_timings.writeMs += writeMs;
        if (failure) {
            keepFirstFailure(failure);
            m_changed.notify_all();
            return;
        }
        m_written.push_back(std::move(stored));
        // The last queued frame written while a sync is wanted (finish, takeDurable): sync now
        // (or, while another thread syncs, when it is done: the wait above).
        if (m_toStore.empty() && !m_syncing && (m_syncRequested || m_finished))
            syncWritten(lock);
        m_changed.notify_all();
    }
}

void FramePipeline::measureLoop()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [this] { return m_stop || m_failure || !m_toMeasure.empty(); });
        if (m_stop || m_failure)
            return;
        cv::Mat frame = std::move(m_toMeasure.front());
        m_toMeasure.pop_front();
        m_measuring = true;
        lock.unlock();
        m_changed.notify_all();
        std::exception_ptr failure;
        const auto t = Steady::now();
        try {
            m_measurements.add(frame);
        } catch (...) {
            failure = std::current_exception();
        }
        const double ms = msSince(t);
        lock.lock();
        m_measuring = false;
        m_timings.measureMs += ms;
        if (failure)
            keepFirstFailure(failure);
        m_changed.notify_all();
    }
}

} // namespace kosmos
