#include "panels/VerdictPanel.h"

#include "Vocabulary.h"
#include "ledger/Ledger.h"
#include "queries/JudgmentQuery.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace kosmos::ui {

VerdictPanel::VerdictPanel(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_evidence(new QListWidget(this)),
      m_labels(new QLabel(this)), m_tree(new QTreeWidget(this)), m_raw(new QPlainTextEdit(this))
{
    m_tree->setHeaderLabels({tr("Judgment / sample"), tr("Outcome / format"), tr("Progress"),
                             tr("Tokens"), tr("Decode ms"), tr("Evidence frames"), tr("Raw text")});
    // Tokens, decode time and the raw text are in each sample's tooltip and the raw pane: the
    // columns that remain fit a side panel without scrolling sideways.
    m_tree->header()->hideSection(3);
    m_tree->header()->hideSection(4);
    m_tree->header()->hideSection(6);
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setColumnWidth(0, 150);
    m_tree->setColumnWidth(1, 110);
    m_tree->setColumnWidth(2, 60);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setObjectName(QStringLiteral("verdictSummary"));
    m_evidence->setViewMode(QListView::IconMode);
    m_evidence->setFlow(QListView::LeftToRight);
    m_evidence->setWrapping(false);
    m_evidence->setIconSize(QSize(64, 48));
    m_evidence->setFixedHeight(84);
    m_evidence->setMovement(QListView::Static);
    m_evidence->setToolTip(tr("The judge's evidence frames: click to show one in the player"));
    m_labels->setWordWrap(true);
    m_labels->setTextFormat(Qt::RichText);
    m_raw->setReadOnly(true);
    m_raw->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_raw->setPlaceholderText(tr("Select a sample to read the judge's raw answer"));
    m_raw->setObjectName(QStringLiteral("judgeRawText"));
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_raw);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_summary);
    layout->addWidget(m_evidence);
    layout->addWidget(m_labels);
    layout->addWidget(split, 1);
    connect(m_evidence, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        emit seekRequested(item->data(Qt::UserRole).toInt());
    });
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        m_raw->setPlainText(item ? item->data(6, Qt::UserRole).toString() : QString());
    });
    connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem *item) {
        // The judge's evidence indices (0-15) map to rollout frames through the stored selection.
        const QVariant evidence = item->data(5, Qt::UserRole);
        const QVariant frames = item->data(5, Qt::UserRole + 1);
        if (evidence.isValid() && frames.isValid()) {
            const auto indices = frames.toList();
            const int first = evidence.toList().value(0).toInt();
            if (first >= 0 && first < indices.size())
                emit seekRequested(indices.at(first).toInt());
        }
    });
    clear();
}

void VerdictPanel::clear()
{
    m_tree->clear();
    m_raw->clear();
    m_evidence->clear();
    m_evidence->hide();
    m_summary->setText(tr("No run selected."));
    m_labels->clear();
}

void VerdictPanel::showLabels(Ledger &ledger, qint64 runId)
{
    QStringList labels;
    for (const HumanLabelRecord &l : ledger.labels(runId)) {
        const bool human = l.source == "human";
        const QString kind = human ? tr("Human label")
                             : l.source == "physics"
                                 ? tr("Physics ground truth (simulator state, not a human)")
                             : l.source == "imported_reference"
                                 ? tr("Imported reference label (not a human of this ledger)")
                                 : tr("Reference label (synthetic ground truth, not a human)");
        const QString line =
            tr("<b>%1</b> (%2): %3, progress %4")
                .arg(kind, QString::fromStdString(l.annotatorId).toHtmlEscaped(),
                     valueText(QString::fromStdString(l.completion.value_or("—"))),
                     l.progress ? QString::number(*l.progress) : QStringLiteral("—"));
        labels << QStringLiteral("<span style='color:%1'>%2</span>")
                      .arg(human ? QStringLiteral("#1a5fb4") : QStringLiteral("#8a5a00"), line);
    }
    m_labels->setText(labels.isEmpty() ? tr("No reference or human label.")
                                       : labels.join(QStringLiteral("<br>")));
}

void VerdictPanel::addSample(QTreeWidgetItem *top, const JudgeSampleRecord &sample,
                             const QVariantList &frames)
{
    auto *item = new QTreeWidgetItem(top);
    item->setText(0, tr("sample %1%2 (seed %3)")
                         .arg(sample.sampleIndex)
                         .arg(sample.tryIndex ? tr(" retry") : QString())
                         .arg(sample.seed ? QString::number(*sample.seed) : QStringLiteral("?")));
    // Whether it was valid, and how it was written when that says more.
    item->setText(1, sample.answerForm.value_or(sample.formatClass) == sample.formatClass
                         ? QString::fromStdString(sample.formatClass)
                         : tr("%1 (written %2)")
                               .arg(QString::fromStdString(sample.formatClass),
                                    QString::fromStdString(sample.answerForm.value_or(""))));
    QStringList provenance;
    if (sample.serverModel)
        provenance << tr("server model: %1").arg(QString::fromStdString(*sample.serverModel));
    if (sample.systemFingerprint)
        provenance
            << tr("system fingerprint: %1").arg(QString::fromStdString(*sample.systemFingerprint));
    provenance << (sample.requestSha256
                       ? tr("request: %1").arg(QString::fromStdString(*sample.requestSha256))
                       : tr("request: not recorded"));
    item->setToolTip(1, provenance.join(QLatin1Char('\n')));
    item->setText(3, sample.generatedTokens ? QString::number(*sample.generatedTokens)
                                            : QStringLiteral("—"));
    item->setText(4, sample.decodeMs ? QString::number(*sample.decodeMs) : QStringLiteral("—"));
    QString raw = QString::fromStdString(sample.rawText.value_or("(no answer)")).simplified();
    item->setText(6, raw.left(160));
    const QString full =
        QString::fromStdString(sample.rawText.value_or(sample.parseError.value_or("")));
    item->setData(
        6, Qt::UserRole,
        sample.parseError
            ? full + tr("\n\n(not parsed: %1)").arg(QString::fromStdString(*sample.parseError))
            : full);
    item->setToolTip(0, tr("%1 tokens, decoded in %2 ms").arg(item->text(3), item->text(4)));
    if (sample.parsed.is_object()) { // stored by core; unparsed answers show their format only
        const auto &parsed = sample.parsed;
        item->setText(2, parsed["progress"].is_number()
                             ? QString::number(parsed["progress"].get<int>())
                             : QStringLiteral("—"));
        // Shown as the rollout's frames (as the evidence thumbnails are); the judge's own
        // indices into its 16 frames in the tooltip.
        QVariantList evidence;
        QStringList shown, own;
        for (const auto &e : parsed["evidence_frame_indices"]) {
            if (!e.is_number_integer())
                continue;
            const int index = e.get<int>();
            evidence << index;
            own << QString::number(index);
            shown << (index >= 0 && index < frames.size()
                          ? QString::number(frames.at(index).toInt())
                          : tr("%1 (not one of the judge's frames)").arg(index));
        }
        item->setText(5, shown.join(QStringLiteral(", ")));
        item->setToolTip(5, tr("rollout frames; the judge named its frames %1 of %2")
                                .arg(own.join(QStringLiteral(", ")))
                                .arg(frames.size()));
        item->setData(5, Qt::UserRole, evidence);
        item->setData(5, Qt::UserRole + 1, frames);
    }
}

void VerdictPanel::addJudgment(const StoredJudgment &j)
{
    auto *top = new QTreeWidgetItem(m_tree);
    top->setText(0, tr("Judgment %1 - %2%3")
                        .arg(j.judgmentId)
                        .arg(QString::fromStdString(j.judge))
                        .arg(j.rejudged ? tr(" (re-judged)") : QString()));
    top->setText(1, valueText(QString::fromStdString(j.outcome)) +
                        (j.unknownReason
                             ? QStringLiteral(" (%1)").arg(QString::fromStdString(*j.unknownReason))
                             : QString()));
    top->setText(2, j.progress ? QString::number(*j.progress) : QStringLiteral("—"));
    top->setToolTip(0, QString::fromStdString(j.settings.dump()));
    QVariantList frames;
    if (j.frameIndices.is_array())
        for (const auto &f : j.frameIndices)
            frames << f.get<int>();
    for (const auto &sample : j.samples)
        addSample(top, sample, frames);
    top->setExpanded(true);
}

void VerdictPanel::showSummary(const std::vector<StoredJudgment> &judgments)
{
    const StoredJudgment &j = judgments.back();
    int valid = 0;
    for (const auto &sample : j.samples)
        valid += sample.parsed.is_object() ? 1 : 0;
    const int quorum = j.settings.is_object() && j.settings.contains("quorum") &&
                               j.settings["quorum"].is_number_integer()
                           ? j.settings["quorum"].get<int>()
                           : 0;
    const QString colour = j.outcome == "success"   ? QStringLiteral("#1c7c2c")
                           : j.outcome == "failure" ? QStringLiteral("#b01c1c")
                                                    : QStringLiteral("#8a5a00");
    QString summary =
        tr("<span style='font-size:large; color:%1'><b>%2</b></span>%3<br>")
            .arg(colour, valueText(QString::fromStdString(j.outcome)).toHtmlEscaped(),
                 j.unknownReason
                     ? QStringLiteral(" (%1)").arg(QString::fromStdString(*j.unknownReason))
                     : QString());
    summary += tr("quorum: %1 decisive of %2 samples (%3 parsed; %4 needed)")
                   .arg(j.decisiveVotes ? QString::number(*j.decisiveVotes) : QStringLiteral("—"))
                   .arg(j.samples.size())
                   .arg(valid)
                   .arg(quorum > 0 ? QString::number(quorum) : QStringLiteral("?"));
    summary += tr("<br>progress: %1 &middot; judge: %2%3")
                   .arg(j.progress ? QString::number(*j.progress) : QStringLiteral("—"),
                        QString::fromStdString(j.judge).toHtmlEscaped(),
                        judgments.size() > 1 ? tr(" (latest of %1 judgments)").arg(judgments.size())
                                             : QString());
    m_summary->setText(summary);
}

void VerdictPanel::showEvidence(Ledger &ledger, const StoredJudgment &j, const RolloutView *rollout)
{
    // Evidence frames: the indices (into the judge's 16) the agreeing samples named, mapped to
    // the rollout's frames through the stored selection.
    QList<int> evidence;
    for (const auto &sample : j.samples)
        if (sample.parsed.is_object() && sample.parsed["evidence_frame_indices"].is_array())
            for (const auto &e : sample.parsed["evidence_frame_indices"])
                if (e.is_number_integer() && j.frameIndices.is_array() && e.get<int>() >= 0 &&
                    e.get<std::size_t>() < j.frameIndices.size()) {
                    const int frame = j.frameIndices[e.get<std::size_t>()].get<int>();
                    if (!evidence.contains(frame))
                        evidence << frame;
                }
    std::sort(evidence.begin(), evidence.end());
    for (int frame : evidence) {
        auto *item = new QListWidgetItem(tr("frame %1").arg(frame), m_evidence);
        item->setData(Qt::UserRole, frame);
        if (rollout && frame >= 0 && frame < static_cast<int>(rollout->frames.size())) {
            try {
                const auto bytes = ledger.artifacts().read(
                    rollout->frames[static_cast<std::size_t>(frame)].sha256);
                const QImage image = QImage::fromData(bytes.data(), static_cast<int>(bytes.size()));
                if (!image.isNull())
                    item->setIcon(QPixmap::fromImage(
                        image.scaled(64, 48, Qt::KeepAspectRatio, Qt::FastTransformation)));
            } catch (const std::exception &) {
                item->setToolTip(tr("frame %1 cannot be read (verify names it)").arg(frame));
            }
        }
    }
    m_evidence->setVisible(!evidence.isEmpty());
}

void VerdictPanel::showRun(Ledger &ledger, qint64 runId, const RolloutView *rollout)
{
    clear();
    showLabels(ledger, runId);
    const std::vector<StoredJudgment> judgments = judgmentsOfRun(ledger, runId); // read once
    for (const StoredJudgment &j : judgments)
        addJudgment(j);
    // The summary: the latest judgment (the run's own verdict unless re-judged later).
    if (judgments.empty()) {
        m_summary->setText(tr("<b>No judgment</b> of this run."));
        return;
    }
    showSummary(judgments);
    showEvidence(ledger, judgments.back(), rollout);
    if (QTreeWidgetItem *top = m_tree->topLevelItem(m_tree->topLevelItemCount() - 1))
        m_tree->setCurrentItem(top->childCount() > 0 ? top->child(0) : top);
}

} // namespace kosmos::ui
