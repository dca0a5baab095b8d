#include "ledger/Ledger.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

class VerifyTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_bundle = m_dir / "v.kosmos";
        Ledger ledger = Ledger::create(m_bundle);
        const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
        for (int episode = 0; episode < 3; ++episode) {
            ledger.submitRun(test::testRunSpec(protocol, episode));
            auto lease = ledger.claim("w", 30000);
            m_artifacts.push_back(ledger.artifacts().putBytes(
                test::randomBytes(4096, static_cast<std::uint32_t>(episode)),
                "application/octet-stream"));
            ledger.attachArtifact(*lease, "blob", "data.bin", m_artifacts.back());
            m_images.push_back(
                ledger.artifacts().putBytes(test::testImage(16, 16, episode), "image/png"));
            ledger.attachArtifact(*lease, "frame", "f0.png", m_images.back());
            ledger.recordJudgment(*lease, test::testJudgment());
            ledger.finishAttempt(*lease, AttemptOutcome::completed());
        }
    }

    VerifyReport verify()
    {
        Ledger ledger = Ledger::open(m_bundle, {OpenMode::ReadOnly});
        return verifyLedger(ledger);
    }
    static bool has(const VerifyReport &r, const std::string &check, const std::string &where = {})
    {
        for (const auto &p : r.problems) {
            if (p.check == check && p.where.find(where) != std::string::npos)
                return true;
        }
        return false;
    }
    static std::string dump(const VerifyReport &r)
    {
        std::string out;
        for (const auto &p : r.problems)
            out += p.check + " | " + p.where + " | " + p.message + "\n";
        return out;
    }
    fs::path objectPath(const StoredObject &o)
    {
        return m_bundle / "objects" / o.sha256.substr(0, 2) / o.sha256.substr(2);
    }
    void rawSql(const std::string &statement)
    {
        sqlite3 *db = nullptr;
        sqlite3_open((m_bundle / "ledger.sqlite").c_str(), &db);
        char *error = nullptr;
        const int rc = sqlite3_exec(db, statement.c_str(), nullptr, nullptr, &error);
        ASSERT_EQ(rc, SQLITE_OK) << (error ? error : "");
        sqlite3_close(db);
    }

    TempDir m_dir;
    fs::path m_bundle;
    std::vector<StoredObject> m_artifacts;
    std::vector<StoredObject> m_images;
};

TEST_F(VerifyTest, AnUntouchedLedgerIsClean)
{
    const auto r = verify();
    EXPECT_TRUE(r.clean()) << dump(r);
    EXPECT_EQ(r.runsChecked, 3);
    EXPECT_EQ(r.attemptsChecked, 3);
    EXPECT_EQ(r.artifactsChecked, 6);
    EXPECT_EQ(r.judgeSamplesChecked, 15);
}

TEST_F(VerifyTest, ReportsATamperedArtifact)
{
    {
        std::fstream f(objectPath(m_artifacts[0]), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(100);
        f.put('\x42');
        f.put('\x43');
    }
    const auto r = verify();
    EXPECT_TRUE(has(r, "artifact_hash", m_artifacts[0].sha256.substr(2, 20))) << dump(r);
    EXPECT_EQ(r.problems.size(), 1u) << dump(r);
}

TEST_F(VerifyTest, ReportsATruncatedArtifact)
{
    fs::resize_file(objectPath(m_artifacts[1]), 100);
    const auto r = verify();
    EXPECT_TRUE(has(r, "artifact_size")) << dump(r);
}

TEST_F(VerifyTest, ReportsADeletedArtifact)
{
    fs::remove(objectPath(m_artifacts[2]));
    const auto r = verify();
    EXPECT_TRUE(has(r, "artifact_missing")) << dump(r);
}

TEST_F(VerifyTest, ReportsAnImageWhosePixelsChanged)
{
    // Replace the PNG by a different PNG of the same size in bytes is unlikely; instead forge
    // the object with a different image and check both hash and pixel disagreements appear.
    const auto forged = test::testImage(16, 16, 99);
    {
        std::ofstream out(objectPath(m_images[0]), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(forged.data()),
                  static_cast<std::streamsize>(forged.size()));
    }
    fs::resize_file(objectPath(m_images[0]), static_cast<std::uintmax_t>(m_images[0].sizeBytes));
    const auto r = verify();
    EXPECT_FALSE(r.clean());
    EXPECT_TRUE(has(r, "artifact_hash") || has(r, "artifact_pixels")) << dump(r);
}

TEST_F(VerifyTest, ReportsAHandEditedJudgeSample)
{
    // Someone drops the guarding trigger and edits a raw judge answer.
    rawSql("DROP TRIGGER judge_samples_no_update; "
           "UPDATE judge_samples SET raw_text = '{\"completion_evidence\": \"not_met\"}' "
           "WHERE sample_id = 2;");
    const auto r = verify();
    EXPECT_TRUE(has(r, "judge_sample_hash", "judge sample 2")) << dump(r);
    EXPECT_TRUE(has(r, "schema_trigger", "judge_samples_no_update")) << dump(r);
}

TEST_F(VerifyTest, RecheckCatchesAForgedJudgmentSummary)
{
    EXPECT_EQ(verify().judgmentsRechecked, 3);
    rawSql("DROP TRIGGER judgments_no_update; "
           "UPDATE judgments SET outcome = 'failure', progress = 2 WHERE judgment_id = 2;");
    const auto r = verify();
    EXPECT_TRUE(has(r, "judgment_recheck", "judgment 2")) << dump(r);
    bool named = false;
    for (const auto &p : r.problems)
        named |= p.message.find("forged or corrupted summary") != std::string::npos;
    EXPECT_TRUE(named) << dump(r);
}

TEST_F(VerifyTest, RecheckCatchesARawAnswerThatNoLongerParsesAsStored)
{
    rawSql("DROP TRIGGER judge_samples_no_update; "
           "UPDATE judge_samples SET raw_text = 'I cannot judge this.' WHERE sample_id = 4;");
    const auto r = verify();
    EXPECT_TRUE(has(r, "judgment_recheck", "judgment 1")) << dump(r);
}

TEST_F(VerifyTest, ReportsAnEditedAttemptThroughItsSeal)
{
    rawSql("DROP TRIGGER attempts_finished_frozen; "
           "UPDATE attempts SET error_message = 'rewritten history' WHERE attempt_id = 1;");
    const auto r = verify();
    EXPECT_TRUE(has(r, "attempt_seal", "attempt 1")) << dump(r);
}

TEST_F(VerifyTest, ReportsDanglingReferencesAndContradictoryStates)
{
    rawSql(
        "PRAGMA foreign_keys = OFF; DROP TRIGGER attempt_artifacts_attempt_open; "
        "INSERT INTO attempt_artifacts (attempt_id, artifact_id, role, name, created_at_ms) "
        "VALUES (2, 999, 'ghost', 'g', 0); "
        "DROP TRIGGER runs_finished_frozen; UPDATE runs SET status = 'failed' WHERE run_id = 3;");
    const auto r = verify();
    EXPECT_TRUE(has(r, "dangling_reference", "attempt_artifacts")) << dump(r);
    EXPECT_TRUE(has(r, "run_status", "run 3")) << dump(r);
    EXPECT_TRUE(has(r, "attempt_seal", "attempt 2"))
        << dump(r) << "the ghost link changes attempt 2's record";
}

TEST_F(VerifyTest, ReportsAForgedRunKey)
{
    rawSql("DROP TRIGGER runs_identity_frozen; DROP TRIGGER runs_finished_frozen; "
           "UPDATE runs SET key_json = replace(key_json, '\"episode_index\":1', "
           "'\"episode_index\":7') WHERE run_id = 2;");
    const auto r = verify();
    EXPECT_TRUE(has(r, "run_key", "run 2")) << dump(r);
}

TEST_F(VerifyTest, ReportsAnEditedProtocolAndComponent)
{
    rawSql("DROP TRIGGER protocols_no_update; DROP TRIGGER components_no_update; "
           "UPDATE protocols SET canonical_json = replace(canonical_json, '60', '61'); "
           "UPDATE components SET identity_json = replace(identity_json, '1.0.0', '1.0.1') "
           "WHERE component_id = 1;");
    const auto r = verify();
    EXPECT_TRUE(has(r, "protocol_hash", "protocol 1")) << dump(r);
    EXPECT_TRUE(has(r, "component_hash", "component 1")) << dump(r);
}

TEST_F(VerifyTest, TemporaryLeftoversAreANoteNotAProblem)
{
    std::ofstream(m_bundle / "objects" / "tmp" / "put-abc123") << "partial";
    const auto r = verify();
    EXPECT_TRUE(r.clean()) << dump(r);
    ASSERT_EQ(r.notes.size(), 1u);
}
