// Immutability is enforced by the database itself: these tests bypass the C++ API and issue
// SQL through a separate, plain SQLite connection, as any other program could.
#include "ledger/Ledger.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

using namespace kosmos;
using kosmos::test::TempDir;

class ImmutabilityTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        Ledger ledger = Ledger::create(m_dir / "imm.kosmos");
        const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
        ledger.submitRun(test::testRunSpec(protocol, 0));
        ledger.submitRun(test::testRunSpec(protocol, 1));
        auto lease = ledger.claim("w", 30000);
        ledger.appendEvent(*lease, "progress", {{"step", 1}});
        ledger.putArtifact(*lease, "frame", "f.png", test::testImage(8, 8, 1), "image/png");
        ledger.recordValidation(*lease, {"stage_a", "1", "valid", {}, nullptr});
        ledger.recordJudgment(*lease, test::testJudgment());
        ledger.finishAttempt(*lease, AttemptOutcome::completed());
        m_live = *ledger.claim("w", 30000); // a second, still running attempt
        HumanLabelRecord label;
        label.runId = 1;
        label.annotatorId = "a";
        label.completion = "met";
        ledger.addHumanLabel(label);
        ledger.addBookmark(1, 3, "note", "me");
        sqlite3_open((m_dir / "imm.kosmos" / "ledger.sqlite").c_str(), &m_db);
    }
    void TearDown() override { sqlite3_close(m_db); }

    // Runs SQL on the raw connection; returns SQLite's error message or "" on success.
    std::string sql(const std::string &statement)
    {
        char *error = nullptr;
        const int rc = sqlite3_exec(m_db, statement.c_str(), nullptr, nullptr, &error);
        std::string message = error ? error : "";
        sqlite3_free(error);
        return rc == SQLITE_OK ? std::string() : (message.empty() ? "error" : message);
    }
    void expectRefused(const std::string &statement)
    {
        const std::string message = sql(statement);
        EXPECT_NE(message.find("kosmos:"), std::string::npos)
            << statement << " -> " << (message.empty() ? "ACCEPTED" : message);
    }

    TempDir m_dir;
    sqlite3 *m_db = nullptr;
    Lease m_live;
};

TEST_F(ImmutabilityTest, FinishedAttemptsCannotBeChangedOrDeleted)
{
    expectRefused("UPDATE attempts SET state = 'failed' WHERE attempt_no = 1 AND run_id = 1");
    expectRefused("UPDATE attempts SET error_message = 'edited' WHERE run_id = 1");
    expectRefused("DELETE FROM attempts WHERE run_id = 1");
    expectRefused("UPDATE attempts SET lease_token = 'x' WHERE run_id = 2");
}

TEST_F(ImmutabilityTest, EventsAreAppendOnly)
{
    expectRefused("UPDATE events SET payload_json = '{}' WHERE run_id = 1");
    expectRefused("DELETE FROM events");
    expectRefused("INSERT INTO events (run_id, attempt_id, seq, type, payload_json, created_at_ms) "
                  "VALUES (1, 1, 99, 'forged', '{}', 0)");
    // Nothing may be added to the finished attempt, even with the right sequence number.
    expectRefused("INSERT INTO events (run_id, attempt_id, seq, type, payload_json, created_at_ms) "
                  "SELECT 1, 1, MAX(seq) + 1, 'forged', '{}', 0 FROM events WHERE run_id = 1");
}

TEST_F(ImmutabilityTest, EvidenceTablesRefuseUpdatesAndDeletes)
{
    for (const char *table :
         {"protocols", "components", "artifacts", "attempt_artifacts", "validation_results",
          "judgments", "judge_samples", "human_labels", "runs"}) {
        expectRefused(std::string("DELETE FROM ") + table);
    }
    expectRefused("UPDATE protocols SET name = 'x'");
    expectRefused("UPDATE components SET adapter_version = '9'");
    expectRefused("UPDATE artifacts SET size_bytes = 1");
    expectRefused("UPDATE judge_samples SET raw_text = 'forged'");
    expectRefused("UPDATE judgments SET outcome = 'failure'");
    expectRefused("UPDATE validation_results SET verdict = 'invalid'");
    expectRefused("UPDATE human_labels SET completion = 'not_met'");
    expectRefused("UPDATE runs SET run_key = '" + std::string(64, 'a') + "'");
    expectRefused("UPDATE runs SET status = 'queued' WHERE run_id = 1");
    expectRefused("INSERT INTO judge_samples (judgment_id, sample_index, try_index, format_class, "
                  "row_sha256, created_at_ms) VALUES (1, 7, 0, 'invalid', 'x', 0)");
    expectRefused("INSERT INTO attempt_artifacts (attempt_id, artifact_id, role, name, "
                  "created_at_ms) VALUES (1, 1, 'extra', 'x', 0)");
}

TEST_F(ImmutabilityTest, AnnotationsRemainEditable)
{
    EXPECT_EQ(sql("UPDATE annotations SET text = 'edited'"), "");
    EXPECT_EQ(sql("DELETE FROM annotations"), "");
}

TEST_F(ImmutabilityTest, NothingChangedAndTheLedgerStillVerifies)
{
    expectRefused("UPDATE judge_samples SET raw_text = 'forged'");
    Ledger ledger = Ledger::open(m_dir / "imm.kosmos");
    const auto report = verifyLedger(ledger);
    EXPECT_TRUE(report.clean());
    for (const auto &p : report.problems)
        ADD_FAILURE() << p.check << " " << p.where << ": " << p.message;
}
