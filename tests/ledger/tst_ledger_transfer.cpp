// The typed rows a merge moves between ledgers (ledger/LedgerTransfer.h): read as recorded, written
// under every rule of the target's schema, and refused with a clear error (nothing written) where
// they do not fit. The merge itself is tested in tests/scaleout.
#include "ledger/Ledger.h"
#include "ledger/LedgerTransfer.h"
#include "util/Error.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace kosmos;
using kosmos::test::TempDir;

namespace {

// One finished run with everything an attempt can record: events, two artifacts with a
// provenance edge, a validation, a judgment with samples.
struct Recorded
{
    std::int64_t runId = 0;
    std::int64_t attemptId = 0;
    std::string seal;
};

Recorded recordOneRun(Ledger &ledger, const std::string &protocol)
{
    const auto r = ledger.submitRun(test::testRunSpec(protocol, 0));
    auto lease = ledger.claim("worker-1", 30000);
    ledger.appendEvent(*lease, "stage", {{"stage", "policy"}});
    const auto frame = ledger.putArtifact(*lease, "frame", "frame_0000.png",
                                          test::testImage(16, 16, 3), "image/png");
    const auto blob = ledger.putArtifact(*lease, "video", "rollout.bin", test::randomBytes(300, 2),
                                         "application/octet-stream");
    ledger.addProvenance(*lease, frame, blob, "conditioned_on", {{"frame_index", 0}});
    ledger.recordValidation(*lease, {"stage_a", "1", "valid", {}, nullptr});
    ledger.recordJudgment(*lease, test::testJudgment());
    ledger.finishAttempt(*lease, AttemptOutcome::completed());
    const auto attempt = ledger.attempts(r.runId).at(0);
    return {r.runId, attempt.attemptId, *attempt.sealSha256};
}

} // namespace

TEST(LedgerTransfer, RowsReadAsRecordedAndImportedKeepTheAttemptsSeal)
{
    TempDir dir;
    Ledger source = Ledger::create(dir / "source.kosmos");
    const std::string protocol = source.freezeProtocol("transfer", test::testProtocol());
    const Recorded rec = recordOneRun(source, protocol);

    Ledger target = Ledger::create(dir / "target.kosmos");
    TransferReader from(source);
    LedgerImport into(target);
    const auto run = from.run(rec.runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->protocolSha256, protocol);
    EXPECT_TRUE(run->policySha256 && run->worldModelSha256);
    EXPECT_EQ(from.runByKey(run->runKey)->id, rec.runId);
    const auto attempts = from.attempts(rec.runId);
    ASSERT_EQ(attempts.size(), 1u);
    const auto rows = from.attemptRows(rec.attemptId);
    EXPECT_EQ(rows.artifacts.size(), 2u);
    EXPECT_EQ(rows.provenance.size(), 1u);
    EXPECT_EQ(rows.validations.size(), 1u);
    ASSERT_EQ(rows.judgments.size(), 1u);
    EXPECT_FALSE(rows.judgments[0].samples.empty());
    EXPECT_EQ(rows.judgments[0].sealJudgmentId, rows.judgments[0].id);

    std::int64_t outAttempt = 0;
    into.transaction([&] {
        const auto sourceId = into.addMergeSource("source-uuid", "source.kosmos", std::nullopt);
        for (const auto &p : from.protocols())
            into.addProtocol(p);
        for (const auto &c : from.components())
            into.addComponent(c);
        const std::int64_t outRun = into.addQueuedRun(*run);
        outAttempt = into.openAttempt(outRun, attempts[0]);
        into.addEvents(outRun, from.events(rec.runId), {{rec.attemptId, outAttempt}});
        for (const auto &sha : rows.artifactHashes()) {
            target.artifacts().putFile(source.artifacts().objectPath(sha),
                                       "application/octet-stream");
            into.addArtifact(*from.artifact(sha));
        }
        into.addAttemptRows(outAttempt, rows);
        into.closeAttempt(outAttempt, attempts[0], sourceId, rec.runId,
                          from.attemptOrigin(rec.attemptId));
        into.setRunStatus(outRun, "completed", *run, true);
    });
    EXPECT_EQ(target.computeSeal(outAttempt), rec.seal)
        << "an imported attempt hashes to the seal its own ledger gave it";
    const auto report = verifyLedger(target);
    for (const auto &p : report.problems)
        ADD_FAILURE() << p.check << " " << p.where << ": " << p.message;
    EXPECT_EQ(TransferReader(target).events(target.run(1)->runId).size(),
              from.events(rec.runId).size());
}

TEST(LedgerTransfer, RowsThatDoNotFitAreRefusedByNameAndNothingOfThemIsWritten)
{
    TempDir dir;
    Ledger source = Ledger::create(dir / "source.kosmos");
    const std::string protocol = source.freezeProtocol("transfer", test::testProtocol());
    const Recorded rec = recordOneRun(source, protocol);
    TransferReader from(source);
    const auto run = *from.run(rec.runId);

    Ledger target = Ledger::create(dir / "target.kosmos");
    LedgerImport into(target);
    // A run whose protocol the target lacks: NotFound naming the protocol.
    try {
        into.transaction([&] { into.addQueuedRun(run); });
        ADD_FAILURE() << "a run without its protocol was imported";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::NotFound);
        EXPECT_NE(std::string(e.what()).find(protocol), std::string::npos) << e.what();
    }
    EXPECT_EQ(target.info().runs, 0);

    // Events of an attempt that was not imported: refused, and the whole transaction with them.
    into.transaction([&] {
        for (const auto &p : from.protocols())
            into.addProtocol(p);
        for (const auto &c : from.components())
            into.addComponent(c);
    });
    try {
        into.transaction([&] {
            const auto outRun = into.addQueuedRun(run);
            into.addEvents(outRun, from.events(rec.runId), {});
        });
        ADD_FAILURE() << "events of an attempt that is not here were imported";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
        EXPECT_NE(std::string(e.what()).find("not imported"), std::string::npos) << e.what();
    }
    EXPECT_EQ(target.info().runs, 0) << "a refused transaction left its run behind";
    EXPECT_EQ(target.info().protocols, 1) << "the earlier transaction was undone";

    // A record for a closed attempt: the schema's own rule refuses it (Immutable).
    const Recorded here = recordOneRun(target, protocol);
    EXPECT_THROW(into.transaction(
                     [&] { into.addAttemptRows(here.attemptId, from.attemptRows(rec.attemptId)); }),
                 Error);
    EXPECT_EQ(target.computeSeal(here.attemptId), here.seal);

    // A nested transaction that throws undoes only its own writes.
    into.transaction([&] {
        into.addMergeSource("outer", "outer.kosmos", std::nullopt);
        EXPECT_THROW(into.transaction([&] {
            into.addMergeSource("inner", "inner.kosmos", std::nullopt);
            throw Error(ErrorCode::InvalidInput, "refused");
        }),
                     Error);
    });
    TransferReader read(target);
    EXPECT_TRUE(read.mergeSource("outer"));
    EXPECT_FALSE(read.mergeSource("inner"));

    // A read-only ledger cannot be imported into.
    Ledger readOnly = Ledger::open(dir / "source.kosmos", {OpenMode::ReadOnly});
    try {
        LedgerImport refused(readOnly);
        ADD_FAILURE() << "an import into a read-only ledger was allowed";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::ReadOnly);
        EXPECT_NE(std::string(e.what()).find("source.kosmos"), std::string::npos) << e.what();
    }
}
