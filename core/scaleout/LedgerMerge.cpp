#include "scaleout/LedgerMerge.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerTransfer.h"
#include "util/BoundedJson.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>

namespace kosmos {

namespace fs = std::filesystem;

int MergeReport::runsUnfinished() const
{
    int n = 0;
    for (const auto &s : sources)
        n += s.runsUnfinished;
    return n;
}

namespace {

// A refusal of one run: its savepoint is rolled back, the merge goes on.
struct RunConflict
{
    std::string message;
};

class SourceMerge
{
public:
    SourceMerge(Ledger &target, const fs::path &sourceBundle, MergeSourceReport &report,
                std::vector<MergeConflict> &conflicts, const MergeOptions &options)
        : m_target(target), m_import(target), m_here(target), m_source(sourceBundle),
          m_srcObjects(sourceBundle / "objects"), m_report(report), m_conflicts(conflicts),
          m_options(options)
    {
    }

    void run(const std::function<void(std::int64_t, std::int64_t)> &progress)
    {
        openSource();
        mergeAll(progress);
    }

private:
    // Opens the source read-only: a clear error for a missing, foreign, newer or unmigrated
    // ledger before anything is written.
    void openSource()
    {
        m_sourceLedger.emplace(Ledger::open(m_source, {OpenMode::ReadOnly}));
        Ledger &source = *m_sourceLedger;
        const auto id = source.meta("ledger_id");
        std::error_code ec;
        if ((id && id == m_target.meta("ledger_id")) ||
            fs::equivalent(source.databasePath(), m_target.databasePath(), ec))
            throw Error(ErrorCode::InvalidInput,
                        m_source.string() + " is the target ledger itself; nothing was merged");
        m_sourceUuid = id ? *id : "path:" + fs::weakly_canonical(m_source).string();
        m_shardJson = source.meta("shard");
        if (m_shardJson)
            m_report.shard = ShardSpec::fromMetaJson(*m_shardJson);
        m_src = std::make_unique<TransferReader>(source);
    }

    void mergeAll(const std::function<void(std::int64_t, std::int64_t)> &progress)
    {
        m_import.transaction([&] {
            m_src->snapshot([&] {
                registerSource();
                copyProtocols();
                copyComponents();
            });
        });
        const std::vector<std::int64_t> runs = m_src->runIds();
        const auto total = static_cast<std::int64_t>(runs.size());
        m_report.runs = static_cast<int>(total);
        std::size_t next = 0;
        while (next < runs.size()) {
            const std::size_t end = std::min(
                runs.size(),
                next + static_cast<std::size_t>(std::max(1, m_options.runsPerTransaction)));
            m_import.transaction([&] {
                m_src->snapshot([&] {
                    for (std::size_t i = next; i < end; ++i)
                        mergeRunGuarded(runs[i]);
                });
                // The objects copied for these runs are durable before a row names them.
                m_target.artifacts().syncFilesystem();
            });
            next = end;
            if (progress)
                progress(static_cast<std::int64_t>(next), total);
        }
    }

    void registerSource()
    {
        if (const auto known = m_here.mergeSource(m_sourceUuid)) {
            m_sourceId = *known;
            return;
        }
        m_sourceId = m_import.addMergeSource(
            m_sourceUuid, fs::absolute(m_source).lexically_normal().string(), m_shardJson);
    }

    // Protocols and component identities: content-addressed; each is re-hashed before it is
    // taken, and one the target holds under the same hash must be the same text.
    std::optional<std::string> checkFrozen(const char *table, std::int64_t id,
                                           const std::string &hash, const std::string &content,
                                           const std::optional<std::string> &have)
    {
        std::string actual;
        try {
            actual = canonicalHash(json::parseBounded(content, table));
        } catch (const std::exception &e) {
            throw Error(ErrorCode::Corrupt, m_source.string() + ": " + table + " row " +
                                                std::to_string(id) + " is unreadable: " + e.what());
        }
        if (actual != hash)
            throw Error(ErrorCode::Corrupt, m_source.string() + ": " + table + " row " +
                                                std::to_string(id) + " hashes to " + actual +
                                                ", recorded " + hash +
                                                "; nothing was merged from it");
        if (have && *have != content)
            throw Error(ErrorCode::Corrupt, std::string("the target's ") + table + " row " + hash +
                                                " differs from " + m_source.string() +
                                                "'s; run kosmos-cli verify on both");
        return have;
    }

    void copyProtocols()
    {
        for (const transfer::ProtocolRow &p : m_src->protocols())
            if (!checkFrozen("protocols", p.id, p.sha256, p.canonicalJson,
                             m_here.protocolText(p.sha256)))
                m_import.addProtocol(p);
    }

    void copyComponents()
    {
        for (const transfer::ComponentRow &c : m_src->components())
            if (!checkFrozen("components", c.id, c.identitySha256, c.identityJson,
                             m_here.componentText(c.identitySha256)))
                m_import.addComponent(c);
    }

    // One run, all or nothing: a refusal (a conflict of this run's records, or a rule of the
    // target refusing one of its rows) rolls back what was taken of it and the merge goes on.
    void mergeRunGuarded(std::int64_t srcRun)
    {
        const MergeSourceReport before = m_report;
        try {
            m_import.transaction([&] { mergeRun(srcRun); });
        } catch (const RunConflict &c) {
            m_report = before;
            refuse(srcRun, c.message);
        } catch (const Error &e) {
            // A rule of the target refused a row (a trigger, a CHECK or UNIQUE constraint): that
            // run's records do not fit; anything else (I/O, a full disk) stops the merge.
            const bool refusal =
                e.code() == ErrorCode::Immutable || e.code() == ErrorCode::Corrupt ||
                e.code() == ErrorCode::NotFound ||
                (e.code() == ErrorCode::Database &&
                 std::string_view(e.what()).find("constraint failed") != std::string_view::npos);
            m_report = before;
            if (!refusal)
                throw; // I/O, a full disk, a locked database: the whole merge stops
            refuse(srcRun, e.what());
        }
    }

    void refuse(std::int64_t srcRun, const std::string &message)
    {
        const auto run = m_src->run(srcRun);
        m_conflicts.push_back({m_source.string(), run ? run->runKey : std::string(), message});
        ++m_report.conflicts;
    }

    struct PlacedRun
    {
        std::int64_t outRun = 0;
        std::string outStatus; // in the target, before this merge
        transfer::RunRow source;
    };

    // The run itself, by run key: checked against its key JSON and the shard, found in the target
    // or added there as queued.
    PlacedRun placeRun(std::int64_t srcRun)
    {
        auto src = m_src->run(srcRun);
        if (!src)
            throw RunConflict{"the run vanished from the source"};
        const std::string &runKey = src->runKey;
        if (m_report.shard && !m_report.shard->contains(runKey))
            throw RunConflict{
                "the run belongs to shard " +
                ShardSpec{shardOf(runKey, m_report.shard->count), m_report.shard->count}.text() +
                ", not to this ledger's shard " + m_report.shard->text() +
                " (its shard record or its runs were changed)"};
        std::string keyHash;
        try {
            keyHash = canonicalHash(json::parseBounded(src->keyJson, "key_json"));
        } catch (const Error &e) {
            throw RunConflict{std::string("the source's key JSON is unreadable: ") + e.what()};
        }
        if (keyHash != runKey)
            throw RunConflict{"the source's run key does not match its key JSON (run " +
                              std::to_string(srcRun) + "); verify the source"};

        PlacedRun placed{0, {}, *src};
        if (const auto out = m_here.runByKey(runKey)) {
            if (out->protocolSha256 != src->protocolSha256)
                throw RunConflict{"the same run key under another protocol (target " +
                                  out->protocolSha256.substr(0, 16) + "..., source " +
                                  src->protocolSha256.substr(0, 16) + "...)"};
            if (out->keyJson != src->keyJson)
                throw RunConflict{"the same run key with another key JSON"};
            placed.outRun = out->id;
            placed.outStatus = out->status;
        } else {
            placed.outRun = m_import.addQueuedRun(*src);
            placed.outStatus = "queued";
            ++m_report.runsAdded;
        }
        return placed;
    }

    // The source's attempts the target lacks, up to one still running (always the last): it is
    // taken once it has ended there, and its events (from limitSeq on) with it.
    struct NewAttempts
    {
        std::vector<transfer::AttemptRow> fresh;
        std::map<std::int64_t, std::int64_t> ids; // the source's attempt ids of fresh: the target's
        bool unfinished = false;
        std::int64_t limitSeq = std::numeric_limits<std::int64_t>::max();
    };

    // The target's attempts must be the source's first ones, unchanged; returns the source's
    // attempts to add.
    NewAttempts matchAttempts(std::int64_t srcRun, std::int64_t outRun)
    {
        const auto srcAttempts = m_src->attempts(srcRun);
        const auto outAttempts = m_here.attempts(outRun);
        for (const transfer::AttemptRow &o : outAttempts) {
            const auto s = std::find_if(
                srcAttempts.begin(), srcAttempts.end(),
                [&](const transfer::AttemptRow &a) { return a.attemptNo == o.attemptNo; });
            if (s == srcAttempts.end() || s->leaseToken != o.leaseToken)
                throw RunConflict{"attempt " + std::to_string(o.attemptNo) +
                                  " in the target was not made by this source (another shard "
                                  "or process ran the same run)"};
            if (s->sealSha256 != o.sealSha256)
                throw RunConflict{"attempt " + std::to_string(o.attemptNo) +
                                  " is sealed differently in the target and the source"};
            ++m_report.attemptsPresent;
        }
        NewAttempts out;
        for (const transfer::AttemptRow &s : srcAttempts) {
            if (!outAttempts.empty() && s.attemptNo <= outAttempts.back().attemptNo)
                continue;
            if (s.state == "running" || !s.sealSha256) {
                out.unfinished = true;
                if (const auto first = m_src->firstEventSeq(s.id))
                    out.limitSeq = *first;
                break;
            }
            out.fresh.push_back(s);
        }
        return out;
    }

    // The events: the target's must be a prefix of the source's; the new attempts are added
    // (running, until their records are copied) and the source's further events copied.
    void copyEvents(std::int64_t srcRun, std::int64_t outRun, NewAttempts &attempts)
    {
        const auto outEvents = m_here.events(outRun);
        const std::int64_t outSeq = outEvents.empty() ? 0 : outEvents.back().seq;
        if (outSeq > 0) {
            const auto srcEvents = m_src->events(srcRun, 0, outSeq + 1);
            const bool same =
                srcEvents.size() == outEvents.size() &&
                std::equal(srcEvents.begin(), srcEvents.end(), outEvents.begin(),
                           [](const auto &a, const auto &b) { return a.sameRecord(b); });
            if (!same)
                throw RunConflict{"the target's events of this run differ from the source's"};
        }
        for (const transfer::AttemptRow &a : attempts.fresh)
            attempts.ids[a.id] = m_import.openAttempt(outRun, a);
        const auto further = m_src->events(srcRun, outSeq, attempts.limitSeq);
        for (const transfer::EventRow &e : further)
            if (e.attemptId && !attempts.ids.count(*e.attemptId))
                throw RunConflict{"the source has events after the target's for attempts the "
                                  "target already closed"};
        m_import.addEvents(outRun, further, attempts.ids);
    }

    void mergeRun(std::int64_t srcRun)
    {
        const PlacedRun placed = placeRun(srcRun);
        NewAttempts attempts = matchAttempts(srcRun, placed.outRun);
        copyEvents(srcRun, placed.outRun, attempts);
        for (const transfer::AttemptRow &a : attempts.fresh)
            copyAttempt(srcRun, a, attempts.ids.at(a.id));

        // ---- the run's status: the source's once every attempt of it is here ----
        const std::string &srcStatus = placed.source.status;
        const std::string target = attempts.unfinished ? "queued" : srcStatus;
        updateRunStatus(placed, target == "running" ? "queued" : target);
        if (attempts.unfinished || srcStatus == "queued" || srcStatus == "running")
            ++m_report.runsUnfinished;

        copyLabels(srcRun, placed.outRun);
    }

    // Everything one new attempt recorded, then its end and seal, checked against the source.
    void copyAttempt(std::int64_t srcRun, const transfer::AttemptRow &src, std::int64_t outAttempt)
    {
        const transfer::AttemptRows rows = m_src->attemptRows(src.id);
        copyArtifacts(rows);
        m_import.addAttemptRows(outAttempt, rows);
        const transfer::AttemptOrigin origin = m_src->attemptOrigin(src.id);
        m_import.closeAttempt(outAttempt, src, m_sourceId, origin.sealRunId.value_or(srcRun),
                              origin);
        const std::string expected = src.sealSha256.value_or(std::string());
        const std::string actual = m_target.computeSeal(outAttempt);
        if (actual != expected)
            throw RunConflict{"attempt " + std::to_string(src.id) +
                              " of the source does not match its seal (recorded " +
                              expected.substr(0, 16) + "..., its content hashes to " +
                              actual.substr(0, 16) +
                              "...): it was changed after it was sealed; verify the source"};
        ++m_report.attemptsCopied;
    }

    // Objects the attempt refers to (attached, in provenance, judge requests) that the target
    // lacks: copied from the source's store, hashed while copied; a mismatch refuses the run (the
    // copy, stored under its actual hash, is never referenced).
    void copyArtifacts(const transfer::AttemptRows &rows)
    {
        ArtifactStore &store = m_target.artifacts();
        for (const std::string &sha : rows.artifactHashes()) {
            if (m_import.hasArtifact(sha))
                continue;
            const auto row = m_src->artifact(sha);
            if (!row)
                continue; // a judge request the source never stored: nothing to copy
            // Absent, or left by a merge stopped before its transaction committed and not whole
            // (a machine that lost power before the sync): copied from the source.
            const bool whole =
                store.contains(sha) && store.check(sha, row->sizeBytes, std::nullopt).ok();
            if (!whole)
                copyObject(store, sha);
            m_import.addArtifact(*row);
        }
    }

    // One object from the source's store, hashed while it is copied (as opaque bytes: the row,
    // with its media type and pixel digest, is the source's; verify re-checks pixels). A
    // mismatch refuses the run; the copy, stored under its actual hash, is never referenced.
    void copyObject(ArtifactStore &store, const std::string &sha)
    {
        const fs::path from = m_srcObjects.objectPath(sha);
        if (!fs::exists(from))
            throw RunConflict{"artifact " + sha + " is missing from the source's store"};
        std::error_code ec;
        fs::remove(store.objectPath(sha), ec); // a partial copy is replaced, never trusted
        const StoredObject stored = store.putFile(from, "application/octet-stream");
        if (stored.sha256 != sha)
            throw RunConflict{"artifact " + sha + " in the source's store hashes to " +
                              stored.sha256 + ": it is corrupt; verify the source"};
        ++m_report.artifactsCopied;
        m_report.bytesCopied += stored.sizeBytes;
    }

    void updateRunStatus(const PlacedRun &placed, const std::string &target)
    {
        const std::string &current = placed.outStatus;
        auto set = [&](const std::string &status, bool finished) {
            m_import.setRunStatus(placed.outRun, status, placed.source, finished);
        };
        const bool finished = target == "completed" || target == "failed" || target == "cancelled";
        if (current == target) {
            if (!finished)
                set(target, false); // a cancel request may have arrived since
            return;
        }
        if (current == "completed" || current == "cancelled")
            throw RunConflict{"the run is " + current + " in the target but " + target +
                              " in the source"};
        if (current == "failed" && target != "queued")
            set("queued", false); // a failed run goes back to the queue before it ends again
        set(target, finished);
    }

    void copyLabels(std::int64_t srcRun, std::int64_t outRun)
    {
        for (const transfer::LabelRow &label : m_src->labels(srcRun)) {
            if (m_here.mergedLabel(m_sourceId, label.id))
                continue; // taken by an earlier merge
            std::optional<std::int64_t> supersedes;
            if (label.supersedesLabelId) {
                supersedes = m_here.mergedLabel(m_sourceId, *label.supersedesLabelId);
                if (!supersedes)
                    throw RunConflict{"label " + std::to_string(label.id) + " corrects label " +
                                      std::to_string(*label.supersedesLabelId) +
                                      ", which is not in the target"};
            }
            m_import.addMergedLabel(outRun, label, supersedes, m_sourceId);
            ++m_report.labelsCopied;
        }
    }

    Ledger &m_target;
    LedgerImport m_import;
    TransferReader m_here; // the target's rows
    fs::path m_source;
    std::optional<Ledger> m_sourceLedger;
    std::unique_ptr<TransferReader> m_src; // the source's rows
    ArtifactStore m_srcObjects;
    MergeSourceReport &m_report;
    std::vector<MergeConflict> &m_conflicts;
    const MergeOptions &m_options;
    std::string m_sourceUuid;
    std::optional<std::string> m_shardJson;
    std::int64_t m_sourceId = 0;
};

} // namespace

MergeReport mergeLedgers(const fs::path &target, const std::vector<fs::path> &sources,
                         const MergeOptions &options, const MergeProgress &progress)
{
    MergeReport report;
    // A bundle folder without its database (a creation that was killed) is created again.
    const fs::path bundle = target.filename() == "ledger.sqlite" ? target.parent_path() : target;
    std::error_code ec;
    Ledger out =
        fs::exists(bundle / "ledger.sqlite", ec) ? Ledger::open(bundle) : Ledger::create(bundle);
    report.target = out.bundle().string();
    out.artifacts().setDeferredSync(true); // one syncfs per transaction (SourceMerge)
    for (std::size_t i = 0; i < sources.size(); ++i) {
        report.sources.push_back({});
        report.sources.back().path = sources[i].string();
        SourceMerge merge(out, Ledger::bundleDirectory(sources[i]), report.sources.back(),
                          report.conflicts, options);
        merge.run([&](std::int64_t done, std::int64_t total) {
            if (progress)
                progress(i, done, total);
        });
    }
    return report;
}

} // namespace kosmos
