#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "ledger/Schema.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

void expectError(ErrorCode code, const std::function<void()> &fn, const std::string &mentions = {})
{
    try {
        fn();
        FAIL() << "no error thrown";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), code) << e.what();
        if (!mentions.empty()) {
            EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
        }
    }
}

std::string fileBytes(const fs::path &p)
{
    return test::readFile(p);
}

} // namespace

TEST(LedgerOpen, CreateMakesABundleWithDatabaseAndObjects)
{
    TempDir dir;
    const fs::path bundle = dir / "demo.kosmos";
    Ledger ledger = Ledger::create(bundle);
    EXPECT_TRUE(fs::is_regular_file(bundle / "ledger.sqlite"));
    EXPECT_TRUE(fs::is_directory(bundle / "objects"));
    EXPECT_TRUE(fs::is_directory(bundle / "objects" / "tmp"));
    EXPECT_EQ(ledger.schemaVersion(), currentSchema().version);
    auto &db = LedgerSql::of(ledger);
    sqlite::Statement mode(db, "PRAGMA journal_mode");
    ASSERT_TRUE(mode.step());
    EXPECT_EQ(mode.text(0), "wal");
    EXPECT_EQ(db.pragmaInt("synchronous"), 2) << "synchronous must be FULL";
    EXPECT_EQ(db.pragmaInt("foreign_keys"), 1);
    EXPECT_EQ(db.pragmaInt("application_id"), kLedgerApplicationId);
}

TEST(LedgerOpen, ACreationKilledHalfWayLeavesNoDatabaseAndCreatingAgainWorks)
{
    TempDir dir;
    const fs::path bundle = dir / "half.kosmos";
    // What a creation killed before its database was complete leaves: the folder, objects/, a
    // temporary database under another name (never ledger.sqlite).
    fs::create_directories(bundle / "objects" / "tmp");
    std::ofstream(bundle / "ledger.sqlite.creating-0123") << "partial";
    expectError(ErrorCode::NoLedger, [&] { Ledger::open(bundle); });
    Ledger ledger = Ledger::create(bundle);
    EXPECT_EQ(ledger.schemaVersion(), currentSchema().version);
    EXPECT_TRUE(ledger.meta("ledger_id").has_value());
    EXPECT_EQ(ledger.meta("ledger_id")->size(), 32u);
    // The new ledger's own temporary database is gone (file, WAL, shared memory).
    for (const auto &entry : fs::directory_iterator(bundle)) {
        const std::string name = entry.path().filename().string();
        EXPECT_TRUE(name.find(".creating-") == std::string::npos ||
                    name == "ledger.sqlite.creating-0123")
            << name;
    }
}

TEST(LedgerOpen, BundleAndDatabasePathOpenTheSameLedger)
{
    TempDir dir;
    const fs::path bundle = dir / "same.kosmos";
    {
        Ledger ledger = Ledger::create(bundle);
        ledger.freezeProtocol("p", test::testProtocol());
    }
    Ledger byBundle = Ledger::open(bundle);
    Ledger byFile = Ledger::open(bundle / "ledger.sqlite");
    EXPECT_EQ(byBundle.bundle(), byFile.bundle());
    EXPECT_EQ(byBundle.info().protocols, 1);
    EXPECT_EQ(byFile.info().protocols, 1);
}

TEST(LedgerOpen, CreateRefusesAnExistingLedgerAndABadName)
{
    TempDir dir;
    const fs::path bundle = dir / "x.kosmos";
    {
        Ledger::create(bundle);
    }
    const std::string before = fileBytes(bundle / "ledger.sqlite");
    expectError(
        ErrorCode::InvalidInput, [&] { Ledger::create(bundle); }, "already exists");
    EXPECT_EQ(fileBytes(bundle / "ledger.sqlite"), before);
    expectError(
        ErrorCode::InvalidInput, [&] { Ledger::create(dir / "noext"); }, ".kosmos");
}

TEST(LedgerOpen, MissingLedgerAndForeignFilesGetClearErrors)
{
    TempDir dir;
    expectError(
        ErrorCode::NoLedger, [&] { Ledger::open(dir / "nothing.kosmos/ledger.sqlite"); },
        "kosmos-cli init");
    fs::create_directories(dir / "empty.kosmos");
    expectError(
        ErrorCode::NoLedger, [&] { Ledger::open(dir / "empty.kosmos"); }, "no ledger");

    fs::create_directories(dir / "junk.kosmos");
    {
        std::ofstream out(dir / "junk.kosmos" / "ledger.sqlite");
        out << "this is not a database at all, just some text that is long enough......";
    }
    expectError(
        ErrorCode::NotALedger, [&] { Ledger::open(dir / "junk.kosmos"); }, "not a Kosmos ledger");

    // A real SQLite database that some other program made.
    fs::create_directories(dir / "other.kosmos");
    sqlite3 *db = nullptr;
    sqlite3_open((dir / "other.kosmos" / "ledger.sqlite").c_str(), &db);
    sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    expectError(
        ErrorCode::NotALedger, [&] { Ledger::open(dir / "other.kosmos"); }, "application_id");
}

TEST(LedgerOpen, NewerSchemaIsRefusedAndLeftUntouched)
{
    TempDir dir;
    const fs::path bundle = dir / "future.kosmos";
    const SchemaSpec &current = currentSchema();
    const std::string newerSql = std::string(current.createSql) + "\nCREATE TABLE future (x);\n"
                                                                  "PRAGMA user_version = 99;\n";
    const SchemaSpec newer{99, newerSql, {}};
    {
        Ledger::create(bundle, {OpenMode::ReadWrite, &newer});
    }
    const std::string before = fileBytes(bundle / "ledger.sqlite");
    expectError(
        ErrorCode::NewerSchema, [&] { Ledger::open(bundle); }, "newer Kosmos");
    EXPECT_EQ(fileBytes(bundle / "ledger.sqlite"), before);
}

TEST(LedgerOpen, OlderSchemaIsMigratedAfterABackup)
{
    TempDir dir;
    const fs::path bundle = dir / "old.kosmos";
    std::int64_t runId = 0;
    {
        Ledger ledger = Ledger::create(bundle); // current schema plays "the old version"
        const auto sha = ledger.freezeProtocol("p", test::testProtocol());
        runId = ledger.submitRun(test::testRunSpec(sha, 0)).runId;
    }
    const int from = currentSchema().version;
    const SchemaSpec next{from + 1,
                          currentSchema().createSql,
                          {{from + 1, "ALTER TABLE runs ADD COLUMN priority INTEGER;"}}};
    Ledger migrated = Ledger::open(bundle, {OpenMode::ReadWrite, &next});
    EXPECT_EQ(migrated.schemaVersion(), from + 1);
    EXPECT_EQ(LedgerSql::of(migrated).pragmaInt("user_version"), from + 1);
    ASSERT_TRUE(migrated.migrationBackup().has_value());
    EXPECT_TRUE(fs::exists(*migrated.migrationBackup()));
    EXPECT_TRUE(migrated.run(runId).has_value()) << "the run survived the migration";
    sqlite::Statement column(LedgerSql::of(migrated), "SELECT priority FROM runs WHERE run_id = ?");
    column.bind(1, runId);
    ASSERT_TRUE(column.step());
    EXPECT_TRUE(column.isNull(0)) << "the new column is NULL (unknown), never 0";

    // The backup is the old ledger, openable by the old schema.
    fs::create_directories(dir / "backup.kosmos");
    fs::copy_file(*migrated.migrationBackup(), dir / "backup.kosmos" / "ledger.sqlite");
    Ledger backup = Ledger::open(dir / "backup.kosmos", {OpenMode::ReadOnly});
    EXPECT_EQ(backup.schemaVersion(), from);
    EXPECT_TRUE(backup.run(runId).has_value());
}

TEST(LedgerOpen, FailedMigrationLeavesTheLedgerAsItWas)
{
    TempDir dir;
    const fs::path bundle = dir / "old.kosmos";
    {
        Ledger::create(bundle);
    }
    const int from = currentSchema().version;
    const SchemaSpec broken{
        from + 1,
        currentSchema().createSql,
        {{from + 1, "ALTER TABLE runs ADD COLUMN a INTEGER; THIS IS NOT SQL;"}}};
    expectError(
        ErrorCode::MigrationFailed,
        [&] {
            Ledger::open(bundle, {OpenMode::ReadWrite, &broken});
        },
        "unchanged");
    Ledger again = Ledger::open(bundle);
    EXPECT_EQ(again.schemaVersion(), from);
    sqlite::Statement s(LedgerSql::of(again),
                        "SELECT COUNT(*) FROM pragma_table_info('runs') WHERE name = 'a'");
    s.step();
    EXPECT_EQ(s.int64(0), 0) << "half a migration was left behind";
}

TEST(LedgerOpen, ReadOnlyOpenRefusesWrites)
{
    TempDir dir;
    const fs::path bundle = dir / "ro.kosmos";
    {
        Ledger::create(bundle);
    }
    Ledger ro = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_TRUE(ro.isReadOnly());
    expectError(ErrorCode::ReadOnly, [&] { ro.freezeProtocol("p", test::testProtocol()); });
    EXPECT_EQ(ro.info().protocols, 0);
}

namespace {

// This build's schema as an older version created it: the columns later versions added removed.
SchemaSpec olderSchema(int version)
{
    std::string sql = std::string(currentSchema().createSql);
    auto eraseLines = [&](const std::string &from, const std::string &through) {
        const auto begin = sql.find(from);
        ASSERT_NE(begin, std::string::npos) << from;
        const auto last = sql.find(through, begin);
        ASSERT_NE(last, std::string::npos) << through;
        sql.erase(begin, sql.find('\n', last) + 1 - begin);
    };
    if (version < 6) // the views that define what runs mean
        eraseLines("-- ---- Views (schema version 6)", "-- ---- end of views");
    if (version < 5) // the scale-out tables
        eraseLines("-- ---- Scale-out (schema version 5)", "-- ---- end of scale-out");
    if (version < 4) { // the label source 'physics'
        const std::string added =
            "'imported_reference',\n                                          'physics')";
        const auto at = sql.find(added);
        EXPECT_NE(at, std::string::npos);
        sql.replace(at, added.size(), "'imported_reference')");
    }
    if (version < 3) // answer_form, request_sha256, server_model, system_fingerprint
        eraseLines("    -- How the answer was written", "    system_fingerprint TEXT,");
    if (version < 2)
        eraseLines("    finish_reason    TEXT,", "    finish_reason    TEXT,");
    const std::string pragma = "PRAGMA user_version = " + std::to_string(currentSchema().version);
    const auto at = sql.find(pragma);
    EXPECT_NE(at, std::string::npos);
    sql.replace(at, pragma.size(), "PRAGMA user_version = " + std::to_string(version));
    // The spec's text must outlive the ledger calls that read it.
    static std::vector<std::unique_ptr<std::string>> keep;
    keep.push_back(std::make_unique<std::string>(std::move(sql)));
    return SchemaSpec{version, *keep.back(), {}};
}

} // namespace

TEST(LedgerOpen, RealVersion1LedgersAreMigratedToTheCurrentSchema)
{
    const SchemaSpec version1 = olderSchema(1);

    TempDir dir;
    const fs::path bundle = dir / "v1.kosmos";
    {
        Ledger old = Ledger::create(bundle, {OpenMode::ReadWrite, &version1});
        const auto protocol = old.freezeProtocol("p", test::testProtocol());
        old.submitRun(test::testRunSpec(protocol, 0));
        auto lease = old.claim("w", 30000);
        old.putArtifact(*lease, "frame", "f.png", test::testImage(8, 8, 1), "image/png");
        old.finishAttempt(*lease, AttemptOutcome::completed());
    }
    Ledger migrated = Ledger::open(bundle);
    EXPECT_EQ(migrated.schemaVersion(), currentSchema().version);
    ASSERT_TRUE(migrated.migrationBackup());
    EXPECT_TRUE(fs::exists(*migrated.migrationBackup()));
    sqlite::Statement s(
        LedgerSql::of(migrated),
        "SELECT COUNT(*) FROM pragma_table_info('judge_samples') WHERE name = 'finish_reason'");
    s.step();
    EXPECT_EQ(s.int64(0), 1);
    EXPECT_EQ(migrated.attempts(1).at(0).state, "completed") << "nothing recorded was lost";
    EXPECT_EQ(*migrated.attempts(1).at(0).sealSha256, migrated.computeSeal(1))
        << "seals still verify";
    // The migrated ledger accepts the new field.
    const auto protocol = migrated.freezeProtocol("p", test::testProtocol());
    migrated.submitRun(test::testRunSpec(protocol, 1));
    auto lease = migrated.claim("w", 30000);
    auto judgment = test::testJudgment();
    judgment.samples[0].finishReason = "stop";
    judgment.samples[0].answerForm = "bare_json";
    migrated.recordJudgment(*lease, judgment);
    migrated.finishAttempt(*lease, AttemptOutcome::completed());
    EXPECT_TRUE(verifyLedger(migrated).problems.empty());
}

TEST(LedgerOpen, Version3LabelsSurviveTheTableRebuildAndPhysicsLabelsAreAcceptedAfter)
{
    const SchemaSpec version3 = olderSchema(3);
    TempDir dir;
    const fs::path bundle = dir / "v3.kosmos";
    std::int64_t first = 0;
    std::int64_t correction = 0;
    {
        Ledger old = Ledger::create(bundle, {OpenMode::ReadWrite, &version3});
        const auto protocol = old.freezeProtocol("p", test::testProtocol());
        old.submitRun(test::testRunSpec(protocol, 0));
        auto lease = old.claim("w", 30000);
        old.finishAttempt(*lease, AttemptOutcome::completed());
        HumanLabelRecord label;
        label.runId = lease->runId;
        label.annotatorId = "ann";
        label.completion = "met";
        first = old.addHumanLabel(label);
        label.completion = "not_met";
        label.supersedesLabelId = first;
        correction = old.addHumanLabel(label);
        label.source = "synthetic_reference";
        label.supersedesLabelId.reset();
        old.addHumanLabel(label);
        label.source = "physics";
        EXPECT_THROW(old.addHumanLabel(label), Error) << "version 3 has no physics source";
    }
    Ledger migrated = Ledger::open(bundle);
    EXPECT_EQ(migrated.schemaVersion(), currentSchema().version);
    sqlite::Statement rows(LedgerSql::of(migrated),
                           "SELECT label_id, source, completion, supersedes_label_id FROM "
                           "human_labels ORDER BY label_id");
    std::vector<std::string> seen;
    while (rows.step())
        seen.push_back(std::to_string(rows.int64(0)) + " " + rows.text(1) + " " + rows.text(2) +
                       " " + rows.optText(3).value_or("-"));
    EXPECT_EQ(seen, (std::vector<std::string>{
                        std::to_string(first) + " human met -",
                        std::to_string(correction) + " human not_met " + std::to_string(first),
                        std::to_string(correction + 1) + " synthetic_reference not_met -"}));
    HumanLabelRecord physics;
    physics.runId = 1;
    physics.annotatorId = "physics.tabletop";
    physics.source = "physics";
    physics.completion = "met";
    EXPECT_NO_THROW(migrated.addHumanLabel(physics));
    // Still append-only, and the old table is gone.
    EXPECT_THROW(LedgerSql::of(migrated).exec("UPDATE human_labels SET completion = 'met'"), Error);
    EXPECT_THROW(LedgerSql::of(migrated).exec("DELETE FROM human_labels"), Error);
    sqlite::Statement old(LedgerSql::of(migrated),
                          "SELECT COUNT(*) FROM sqlite_master WHERE name = 'human_labels_v3'");
    old.step();
    EXPECT_EQ(old.int64(0), 0);
    EXPECT_TRUE(verifyLedger(migrated).problems.empty());
}

TEST(LedgerOpen, Version2JudgmentsKeepTheirVerdictsAndVerifyAfterMigrating)
{
    // A version 2 ledger holds answers classified under answer rule 1, with no answer_form: a
    // BOM before bare JSON was "invalid" then. Migrating must not turn that into a forgery.
    const SchemaSpec version2 = olderSchema(2);
    TempDir dir;
    const fs::path bundle = dir / "v2.kosmos";
    const std::string bom = "\xEF\xBB\xBF";
    {
        Ledger old = Ledger::create(bundle, {OpenMode::ReadWrite, &version2});
        const auto protocol = old.freezeProtocol("p", test::testProtocol());
        old.submitRun(test::testRunSpec(protocol, 0));
        auto lease = old.claim("w", 30000);
        auto judgment = test::testJudgment();
        judgment.samples[0].rawText = bom + *judgment.samples[0].rawText;
        judgment.samples[0].formatClass = "invalid";
        judgment.samples[0].parseError = "neither bare JSON nor one fenced JSON block";
        judgment.samples[0].parsed = nullptr;
        judgment.decisiveVotes = 4;
        // Written as the version 2 binary wrote it: no answer_form, nor the request columns.
        sqlite::Statement j(LedgerSql::of(old),
                            "INSERT INTO judgments (attempt_id, settings_json, outcome, progress, "
                            "decisive_votes, created_at_ms) VALUES (?, ?, 'success', 5, 4, 0)");
        j.bind(1, lease->attemptId).bind(2, judgment.settings.dump()).run();
        const std::int64_t judgmentId = LedgerSql::of(old).lastInsertRowId();
        sqlite::Statement sample(LedgerSql::of(old),
                                 "INSERT INTO judge_samples (judgment_id, sample_index, seed, "
                                 "raw_text, format_class, parse_error, parsed_json, row_sha256, "
                                 "generated_tokens, decode_ms, created_at_ms) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)");
        for (const auto &js : judgment.samples) {
            sample.reset();
            sample.bind(1, judgmentId)
                .bind(2, js.sampleIndex)
                .bind(3, js.seed)
                .bind(4, js.rawText)
                .bind(5, js.formatClass)
                .bind(6, js.parseError);
            if (js.parsed.is_null())
                sample.bindNull(7);
            else
                sample.bind(7, canonicalJson(js.parsed));
            sample.bind(8, js.rowSha256(judgmentId))
                .bind(9, js.generatedTokens)
                .bind(10, js.decodeMs)
                .run();
        }
        old.finishAttempt(*lease, AttemptOutcome::completed());
    }
    Ledger migrated = Ledger::open(bundle);
    EXPECT_EQ(migrated.schemaVersion(), currentSchema().version);
    const VerifyReport report = verifyLedger(migrated);
    std::string problems;
    for (const auto &p : report.problems)
        problems += p.check + ": " + p.message + "\n";
    EXPECT_TRUE(report.problems.empty()) << problems;
    sqlite::Statement form(LedgerSql::of(migrated),
                           "SELECT COUNT(*) FROM judge_samples WHERE answer_form IS NULL");
    form.step();
    EXPECT_EQ(form.int64(0), 5) << "old rows are not rewritten";
}
