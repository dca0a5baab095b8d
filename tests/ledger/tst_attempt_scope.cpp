// The one attempt lifecycle (AttemptScope) that the engine, the importer and re-judging share.
#include "ledger/AttemptScope.h"
#include "util/Error.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace kosmos;
using kosmos::test::TempDir;

namespace {

class AttemptScopeTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_ledger = std::make_unique<Ledger>(Ledger::create(m_dir / "s.kosmos"));
        const auto protocol = m_ledger->freezeProtocol("p", test::testProtocol());
        m_runId = m_ledger->submitRun(test::testRunSpec(protocol, 0)).runId;
    }
    std::unique_ptr<AttemptScope> claim()
    {
        return AttemptScope::claim(*m_ledger, {"scope-test", 30000, 5000}, m_runId);
    }
    AttemptRecord lastAttempt() { return m_ledger->attempts(m_runId).back(); }
    std::vector<std::string> eventTypes()
    {
        std::vector<std::string> types;
        for (const auto &e : m_ledger->events(m_runId))
            types.push_back(e.type);
        return types;
    }
    void expectVerifies()
    {
        for (const auto &p : verifyLedger(*m_ledger).problems)
            ADD_FAILURE() << p.check << ": " << p.message;
    }

    TempDir m_dir;
    std::unique_ptr<Ledger> m_ledger;
    std::int64_t m_runId = 0;
};

} // namespace

TEST_F(AttemptScopeTest, CompleteWritesTheBufferedEventsThenSeals)
{
    auto scope = claim();
    ASSERT_TRUE(scope);
    scope->bufferEvent("step", {{"step", 0}});
    scope->bufferEvent("step", {{"step", 1}});
    EXPECT_EQ(scope->bufferedEvents(), 2u);
    EXPECT_EQ(scope->complete(), AttemptResult::Completed);
    EXPECT_TRUE(scope->ended());
    EXPECT_EQ(m_ledger->run(m_runId)->status, "completed");
    const auto types = eventTypes();
    EXPECT_EQ(std::count(types.begin(), types.end(), "step"), 2);
    try {
        scope->fail("x", "y");
        ADD_FAILURE() << "an attempt ended twice";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
    }
    expectVerifies();
}

TEST_F(AttemptScopeTest, AnExceptionThroughTheScopeRecordsAFailureAndKeepsWhatWasWritten)
{
    try {
        auto scope = claim();
        ASSERT_TRUE(scope);
        scope->bufferEvent("stage", {{"stage", "world_model"}});
        scope->flush();
        scope->bufferEvent("step", {{"step", 0}}); // buffered when the exception comes
        throw std::runtime_error("a plugin threw");
    } catch (const std::runtime_error &) {
    }
    const auto attempt = lastAttempt();
    EXPECT_EQ(attempt.state, "failed");
    EXPECT_EQ(attempt.errorCode, "internal");
    EXPECT_NE(attempt.errorMessage.value_or("").find("stopped with an exception"),
              std::string::npos);
    EXPECT_EQ(m_ledger->run(m_runId)->status, "failed") << "never a leaked running attempt";
    const auto types = eventTypes();
    EXPECT_NE(std::find(types.begin(), types.end(), "stage"), types.end());
    EXPECT_NE(std::find(types.begin(), types.end(), "step"), types.end())
        << "buffered events are kept too";
    expectVerifies();
}

TEST_F(AttemptScopeTest, LeavingWithoutAnEndIsRecordedAsSuch)
{
    {
        auto scope = claim();
        ASSERT_TRUE(scope);
    }
    const auto attempt = lastAttempt();
    EXPECT_EQ(attempt.state, "failed");
    EXPECT_NE(attempt.errorMessage.value_or("").find("returned without ending"), std::string::npos);
}

TEST_F(AttemptScopeTest, CancelAndFailRecordTheirReasons)
{
    {
        auto scope = claim();
        EXPECT_EQ(scope->cancel("the batch was stopped"), AttemptResult::Cancelled);
    }
    EXPECT_EQ(lastAttempt().state, "cancelled");
    const auto protocol = m_ledger->freezeProtocol("p", test::testProtocol());
    m_runId = m_ledger->submitRun(test::testRunSpec(protocol, 1)).runId;
    {
        auto scope = claim();
        ASSERT_TRUE(scope);
        EXPECT_EQ(scope->fail("remote_timeout", "no reply within 500 ms"), AttemptResult::Failed);
    }
    EXPECT_EQ(lastAttempt().errorCode, "remote_timeout");
    expectVerifies();
}

TEST_F(AttemptScopeTest, ARunHeldByALiveHolderCannotBeClaimedAndALostLeaseIsSaid)
{
    auto scope = claim();
    ASSERT_TRUE(scope);
    EXPECT_FALSE(claim()) << "held by a live holder (this process)";
    // Another process ends the attempt (a supervisor that thinks the worker died).
    Ledger other = Ledger::open(m_dir / "s.kosmos");
    other.failAttemptsOfDeadWorker("scope-test", AttemptOutcome::failed("worker_died", "test"));
    scope->bufferEvent("step", {{"step", 0}});
    EXPECT_EQ(scope->complete(), AttemptResult::LeaseLost) << "nothing more is written";
    EXPECT_EQ(lastAttempt().errorCode, "worker_died");
    expectVerifies();
}
