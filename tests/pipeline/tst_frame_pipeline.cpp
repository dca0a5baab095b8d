// The frame pipeline (frames encoded, hashed, stored and measured beside the rollout) and the
// ledger's batched writes it is recorded with.
#include "artifacts/ArtifactStore.h"
#include "artifacts/ImageCodecs.h"
#include "artifacts/PixelDigest.h"
#include "ledger/Ledger.h"
#include "pipeline/FramePipeline.h"
#include "util/Error.h"
#include "validation/RolloutValidator.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Frames of a scene with a moving square and per-frame noise (no two frames alike).
std::vector<cv::Mat> scene(int count, int width = 96, int height = 80)
{
    std::vector<cv::Mat> frames;
    cv::RNG rng(7);
    for (int i = 0; i < count; ++i) {
        cv::Mat f(height, width, CV_8UC3);
        rng.fill(f, cv::RNG::UNIFORM, 40, 90);
        cv::rectangle(f, cv::Rect(5 + i * 2, 20, 16, 16), cv::Scalar(240, 30, 30), cv::FILLED);
        frames.push_back(f);
    }
    return frames;
}

fs::path objectsDir(const TempDir &dir)
{
    const fs::path objects = dir / "objects";
    ArtifactStore::initialize(objects);
    return objects;
}

} // namespace

TEST(FramePipeline, StoresEveryFrameInOrderWithThePixelDigestADecodeGives)
{
    TempDir dir;
    const fs::path objects = objectsDir(dir);
    const auto frames = scene(30);
    FramePipeline pipeline(objects, {});
    std::vector<FramePipeline::StoredFrame> stored;
    for (std::size_t i = 0; i < frames.size(); ++i) {
        pipeline.submit(frames[i]);
        if (i % 7 == 6)
            for (auto &f : pipeline.takeDurable())
                stored.push_back(std::move(f));
    }
    for (auto &f : pipeline.finish())
        stored.push_back(std::move(f));

    ASSERT_EQ(stored.size(), frames.size());
    ArtifactStore store(objects);
    for (std::size_t i = 0; i < stored.size(); ++i) {
        EXPECT_EQ(stored[i].index, static_cast<int>(i)) << "out of order";
        const StoredObject &o = stored[i].object;
        EXPECT_EQ(o.mediaType, "image/png");
        const auto bytes = store.read(o.sha256); // hash-checked
        EXPECT_EQ(static_cast<std::int64_t>(bytes.size()), o.sizeBytes);
        ASSERT_TRUE(o.pixels);
        // The digest taken from the raw pixels is the one a decode of the stored PNG gives.
        EXPECT_EQ(o.pixels->sha256, pixelDigestOfEncoded(bytes).sha256);
        EXPECT_EQ(o.pixels->width, 96);
        EXPECT_EQ(o.pixels->channels, 3);
        // And the PNG holds exactly the frame (RGB in, RGB out).
        const cv::Mat back = store.readRgb(o.sha256);
        EXPECT_EQ(cv::norm(back, frames[i], cv::NORM_INF), 0.0);
        EXPECT_TRUE(store.check(o.sha256, o.sizeBytes, o.pixels->sha256).ok());
    }
    const auto t = pipeline.timings();
    EXPECT_GE(t.syncs, 1) << "objects were handed back without being made durable";
    EXPECT_GT(t.encodeMs, 0.0);
    EXPECT_GT(t.measureMs, 0.0);
    EXPECT_TRUE(store.temporaries().empty());
}

TEST(FramePipeline, MeasuresBesideTheRolloutWhatValidationWouldMeasure)
{
    TempDir dir;
    const auto frames = scene(12);
    FramePipeline pipeline(objectsDir(dir), {});
    for (const auto &f : frames)
        pipeline.submit(f);
    pipeline.finish();
    FrameMeasurements alone;
    for (const auto &f : frames)
        alone.add(f);
    const auto &beside = pipeline.measurements();
    ASSERT_EQ(beside.frameStats().size(), frames.size());
    ASSERT_EQ(beside.transitionStats().size(), frames.size() - 1);
    for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
        EXPECT_EQ(beside.transitionStats()[i].diff, alone.transitionStats()[i].diff);
        EXPECT_EQ(beside.transitionStats()[i].motion, alone.transitionStats()[i].motion);
    }
}

TEST(FramePipeline, BackPressureBoundsTheQueueAndLosesNothing)
{
    TempDir dir;
    const auto frames = scene(40, 64, 48);
    FramePipeline::Options options;
    options.capacity = 1; // every submit waits for the threads to take the previous frame
    options.syncEvery = 3;
    FramePipeline pipeline(objectsDir(dir), options);
    std::size_t taken = 0;
    for (const auto &f : frames) {
        pipeline.submit(f);
        taken += pipeline.takeDurable().size();
    }
    taken += pipeline.finish().size();
    EXPECT_EQ(taken, frames.size());
    EXPECT_THROW(pipeline.submit(frames[0]), Error) << "a frame after finish()";
}

TEST(FramePipeline, EveryFrameIsHandedBackWhenFinishMeetsASyncInFlight)
{
    // finish() while the store thread syncs a batch: that batch is waited for, never lost.
    TempDir dir;
    const fs::path objects = objectsDir(dir);
    const auto frames = scene(10, 24, 16);
    for (int round = 0; round < 40; ++round) {
        FramePipeline::Options options;
        options.syncEvery = 1 + round % 4;
        FramePipeline pipeline(objects, options);
        std::size_t taken = 0;
        for (std::size_t i = 0; i < frames.size(); ++i) {
            pipeline.submit(frames[i]);
            if (round % 2 == 0)
                taken += pipeline.takeDurable().size();
        }
        taken += pipeline.finish().size();
        ASSERT_EQ(taken, frames.size()) << "round " << round;
    }
}

TEST(FramePipeline, SeveralStoreThreadsHandFramesBackInOrderWithoutGaps)
{
    // Frames submitted faster than one thread stores them start the helpers; they write in any
    // order, and what is handed back is always the next frames in index order, each once.
    TempDir dir;
    const fs::path objects = objectsDir(dir);
    const auto frames = scene(60, 160, 128);
    int mostStarted = 0;
    for (int threads : {1, 2, 3}) {
        for (int round = 0; round < 6; ++round) {
            FramePipeline::Options options;
            options.storeThreads = threads;
            options.syncEvery = 1 + round;
            FramePipeline pipeline(objects, options);
            std::vector<int> indices;
            for (std::size_t i = 0; i < frames.size(); ++i) {
                pipeline.submit(frames[i]);
                if (static_cast<int>(i % 3) == round % 3)
                    for (const auto &f : pipeline.takeDurable())
                        indices.push_back(f.index);
            }
            for (const auto &f : pipeline.finish())
                indices.push_back(f.index);
            const int started = pipeline.timings().storeThreads;
            EXPECT_GE(started, 1);
            EXPECT_LE(started, threads);
            mostStarted = std::max(mostStarted, started);
            ASSERT_EQ(indices.size(), frames.size()) << threads << " threads, round " << round;
            for (std::size_t i = 0; i < indices.size(); ++i)
                ASSERT_EQ(indices[i], static_cast<int>(i))
                    << threads << " threads, round " << round << ": out of order or a gap";
        }
    }
    EXPECT_GE(mostStarted, 2) << "frames submitted at once never started a helper";
    FramePipeline::Options none;
    none.storeThreads = 0;
    try {
        FramePipeline pipeline(objects, none);
        FAIL() << "0 store threads accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("storeThreads"), std::string::npos) << e.what();
    }
}

TEST(FramePipeline, AStoreFailureSurfacesWithItsCauseAndNothingHangs)
{
    TempDir dir;
    const fs::path objects = objectsDir(dir);
    fs::remove_all(objects / "tmp"); // nowhere to write a temporary
    const auto frames = scene(8, 32, 32);
    FramePipeline pipeline(objects, {});
    try {
        for (const auto &f : frames)
            pipeline.submit(f);
        pipeline.finish();
        FAIL() << "the failure was never reported";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::Io);
        EXPECT_NE(std::string(e.what()).find("temporary"), std::string::npos) << e.what();
    }
}

TEST(FramePipeline, DestroyedMidRolloutStopsAtOnce)
{
    TempDir dir;
    const auto frames = scene(20);
    const fs::path objects = objectsDir(dir);
    {
        FramePipeline pipeline(objects, {});
        for (const auto &f : frames)
            pipeline.submit(f);
    } // a failed or cancelled rollout: queued frames are dropped, the threads end
    // A write under way when it stopped was finished, not left half-done.
    EXPECT_TRUE(ArtifactStore(objects).temporaries().empty());
}

TEST(LedgerBatch, WritesShareOneTransactionAndAFailedInnerWriteUndoesOnlyItself)
{
    TempDir dir;
    Ledger ledger = Ledger::create(dir / "batch.kosmos");
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    const auto run = ledger.submitRun(test::testRunSpec(protocol, 0));
    const auto lease = ledger.claim("w", 60000);
    ASSERT_TRUE(lease);
    const auto eventsOf = [&] {
        int n = 0;
        for (const auto &e : ledger.events(run.runId))
            n += e.type == "probe";
        return n;
    };

    {
        Ledger::Batch batch(ledger, Ledger::Durability::AtNextSeal);
        ledger.appendEvent(*lease, "probe");
        Lease stale = *lease;
        stale.token = "not-the-token";
        EXPECT_THROW(ledger.appendEvent(stale, "probe"), Error); // rolled back alone
        ledger.appendEvent(*lease, "probe");
        batch.commit();
    }
    EXPECT_EQ(eventsOf(), 2);
    {
        Ledger::Batch batch(ledger);
        ledger.appendEvent(*lease, "probe");
    } // not committed: rolled back
    EXPECT_EQ(eventsOf(), 2);

    // Attached in one call, linked in another, inside one batch.
    const auto frames = scene(3, 16, 16);
    std::vector<Ledger::Attachment> attachments;
    for (int i = 0; i < 3; ++i) {
        const auto png = encodeFramePng(frames[static_cast<std::size_t>(i)]);
        attachments.push_back({"frame", "frame-" + std::to_string(i) + ".png",
                               ledger.artifacts().putBytes(png, "image/png")});
    }
    Ledger::Batch batch(ledger, Ledger::Durability::AtNextSeal);
    const auto ids = ledger.attachArtifacts(*lease, attachments);
    ASSERT_EQ(ids.size(), 3u);
    ledger.addProvenanceLinks(*lease, {{ids[0], ids[1], "predicted_from", {{"step", 1}}},
                                       {ids[1], ids[2], "predicted_from", nullptr}});
    batch.commit();

    // Refused before anything is written: an object the store does not hold.
    StoredObject missing = attachments[0].object;
    missing.sha256 = std::string(64, 'a');
    EXPECT_THROW(ledger.attachArtifacts(*lease, {{"frame", "x.png", missing}}), Error);
    ledger.finishAttempt(*lease, AttemptOutcome::completed());
    const VerifyReport report = verifyLedger(ledger);
    EXPECT_TRUE(report.clean());
    EXPECT_EQ(report.artifactsChecked, 3);
}
