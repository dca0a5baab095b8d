// The ledger: human and reference labels, bookmarks.
#include "ledger/Ledger.h"

#include "ledger/LedgerInternal.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/TextRules.h"

namespace kosmos {
namespace fs = std::filesystem;
using namespace ledger_internal;
using sqlite::Statement;
using sqlite::Transaction;

// ---- labels and annotations -------------------------------------------------------------------

std::int64_t Ledger::addHumanLabel(const HumanLabelRecord &label)
{
    checkLabel(label);
    Transaction tx(m_db);
    if (!run(label.runId))
        throw Error(ErrorCode::NotFound, "run " + std::to_string(label.runId) + " does not exist");
    const std::int64_t id = insertLabel(label);
    tx.commit();
    return id;
}

std::vector<std::int64_t> Ledger::addHumanLabelsOnce(const std::vector<HumanLabelRecord> &labels)
{
    for (const HumanLabelRecord &label : labels)
        checkLabel(label);
    Transaction tx(m_db); // BEGIN IMMEDIATE: a second importer waits, then finds these labels
    Statement existing(m_db, "SELECT label_id FROM human_labels WHERE run_id = ? AND source = ? "
                             "AND annotator_id = ? AND notes IS ? LIMIT 1");
    for (const HumanLabelRecord &label : labels) {
        if (!run(label.runId))
            throw Error(ErrorCode::NotFound,
                        "run " + std::to_string(label.runId) + " does not exist");
        existing.reset();
        existing.bind(1, label.runId)
            .bind(2, label.source)
            .bind(3, ledgerText(label.annotatorId))
            .bind(4, storedTextOpt(label.notes));
        if (existing.step())
            throw Error(ErrorCode::InvalidInput,
                        "run " + std::to_string(label.runId) + " already holds label " +
                            std::to_string(existing.int64(0)) + " by " +
                            ledgerText(label.annotatorId) +
                            (label.notes ? " (" + ledgerText(*label.notes) + ")" : std::string()) +
                            "; nothing was written");
    }
    std::vector<std::int64_t> ids;
    ids.reserve(labels.size());
    for (const HumanLabelRecord &label : labels)
        ids.push_back(insertLabel(label));
    tx.commit();
    return ids;
}

void Ledger::checkLabel(const HumanLabelRecord &label)
{
    requireNonEmpty(label.annotatorId, "annotator id");
    if (label.progress && (*label.progress < 0 || *label.progress > 5))
        throw Error(ErrorCode::InvalidInput,
                    "label progress must be 0-5, not " + std::to_string(*label.progress));
    if (label.completion == "met" && label.progress && *label.progress != 5)
        throw Error(ErrorCode::InvalidInput, "a label with completion 'met' needs progress 5");
    if (label.completion == "not_met" && label.progress && *label.progress == 5)
        throw Error(ErrorCode::InvalidInput,
                    "a label with completion 'not_met' needs progress 0-4");
}

std::int64_t Ledger::insertLabel(const HumanLabelRecord &label)
{
    Statement s(m_db, "INSERT INTO human_labels (run_id, annotator_id, source, split, integrity, "
                      "collision, progress, completion, notes, labeled_at_ms, supersedes_label_id) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, label.runId)
        .bind(2, ledgerText(label.annotatorId))
        .bind(3, label.source)
        .bind(4, label.split)
        .bind(5, label.integrity)
        .bind(6, label.collision)
        .bind(7, label.progress)
        .bind(8, label.completion)
        .bind(9, storedTextOpt(label.notes))
        .bind(10, nowMs())
        .bind(11, label.supersedesLabelId)
        .run();
    return m_db.lastInsertRowId();
}

std::int64_t Ledger::addBookmark(std::int64_t runId, std::optional<std::int64_t> frameIndex,
                                 std::string_view text, std::string_view author)
{
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    Statement s(m_db, "INSERT INTO annotations (run_id, frame_index, kind, text, author, "
                      "created_at_ms, updated_at_ms) VALUES (?, ?, 'bookmark', ?, ?, ?, ?)");
    s.bind(1, runId).bind(2, frameIndex).bind(3, ledgerText(text));
    if (author.empty())
        s.bindNull(4);
    else
        s.bind(4, ledgerText(author));
    s.bind(5, now).bind(6, now).run();
    const std::int64_t id = m_db.lastInsertRowId();
    tx.commit();
    return id;
}

std::vector<HumanLabelRecord> Ledger::labels(std::int64_t runId)
{
    Statement s(
        m_db,
        "SELECT label_id, annotator_id, source, split, integrity, collision, progress, completion, "
        "notes, supersedes_label_id FROM human_labels WHERE run_id = ? ORDER BY label_id");
    s.bind(1, runId);
    std::vector<HumanLabelRecord> out;
    while (s.step()) {
        HumanLabelRecord l;
        l.labelId = s.int64(0);
        l.runId = runId;
        l.annotatorId = s.text(1);
        l.source = s.text(2);
        l.split = s.optText(3);
        l.integrity = s.optText(4);
        l.collision = s.optText(5);
        if (auto p = s.optInt64(6))
            l.progress = static_cast<int>(*p);
        l.completion = s.optText(7);
        l.notes = s.optText(8);
        l.supersedesLabelId = s.optInt64(9);
        out.push_back(std::move(l));
    }
    return out;
}

std::vector<BookmarkRecord> Ledger::bookmarks(std::int64_t runId)
{
    Statement s(
        m_db,
        "SELECT annotation_id, run_id, frame_index, text, author, created_at_ms FROM annotations "
        "WHERE run_id = ? AND kind = 'bookmark' ORDER BY frame_index, annotation_id");
    s.bind(1, runId);
    std::vector<BookmarkRecord> out;
    while (s.step())
        out.push_back({s.int64(0), s.int64(1), s.optInt64(2), s.text(3), s.optText(4), s.int64(5)});
    return out;
}

void Ledger::removeBookmark(std::int64_t annotationId)
{
    Transaction tx(m_db);
    Statement s(m_db, "DELETE FROM annotations WHERE annotation_id = ? AND kind = 'bookmark'");
    s.bind(1, annotationId).run();
    if (m_db.changes() == 0)
        throw Error(ErrorCode::NotFound,
                    "bookmark " + std::to_string(annotationId) + " does not exist");
    tx.commit();
}

} // namespace kosmos
