#include "panels/VerdictPanel.h"

#include "ledger/Ledger.h"
#include "queries/JudgmentQuery.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kosmos::ui {

VerdictPanel::VerdictPanel(QWidget *parent)
    : QWidget(parent), m_labels(new QLabel(this)), m_tree(new QTreeWidget(this))
{
    m_tree->setHeaderLabels({tr("Judgment / sample"), tr("Outcome / format"), tr("Progress"),
                             tr("Tokens"), tr("Decode ms"), tr("Evidence frames"), tr("Raw text")});
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_labels->setWordWrap(true);
    m_labels->setTextFormat(Qt::RichText);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_labels);
    layout->addWidget(m_tree, 1);
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
}

void VerdictPanel::showRun(Ledger &ledger, qint64 runId)
{
    m_tree->clear();
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
                     QString::fromStdString(l.completion.value_or("—")),
                     l.progress ? QString::number(*l.progress) : QStringLiteral("—"));
        labels << QStringLiteral("<span style='color:%1'>%2</span>")
                      .arg(human ? QStringLiteral("#1a5fb4") : QStringLiteral("#8a5a00"), line);
    }
    m_labels->setText(labels.isEmpty() ? tr("No reference or human label.")
                                       : labels.join(QStringLiteral("<br>")));
    for (const StoredJudgment &j : judgmentsOfRun(ledger, runId)) {
        auto *top = new QTreeWidgetItem(m_tree);
        top->setText(0, tr("Judgment %1 - %2%3")
                            .arg(j.judgmentId)
                            .arg(QString::fromStdString(j.judge))
                            .arg(j.rejudged ? tr(" (re-judged)") : QString()));
        top->setText(1, QString::fromStdString(
                            j.outcome + (j.unknownReason ? " (" + *j.unknownReason + ")" : "")));
        top->setText(2, j.progress ? QString::number(*j.progress) : QStringLiteral("—"));
        top->setToolTip(0, QString::fromStdString(j.settings.dump()));
        QVariantList frames;
        if (j.frameIndices.is_array())
            for (const auto &f : j.frameIndices)
                frames << f.get<int>();
        for (const auto &sample : j.samples) {
            auto *item = new QTreeWidgetItem(top);
            item->setText(
                0, tr("sample %1%2 (seed %3)")
                       .arg(sample.sampleIndex)
                       .arg(sample.tryIndex ? tr(" retry") : QString())
                       .arg(sample.seed ? QString::number(*sample.seed) : QStringLiteral("?")));
            // Whether it was valid, and how it was written when that says more.
            item->setText(1,
                          sample.answerForm.value_or(sample.formatClass) == sample.formatClass
                              ? QString::fromStdString(sample.formatClass)
                              : tr("%1 (written %2)")
                                    .arg(QString::fromStdString(sample.formatClass),
                                         QString::fromStdString(sample.answerForm.value_or(""))));
            QStringList provenance;
            if (sample.serverModel)
                provenance
                    << tr("server model: %1").arg(QString::fromStdString(*sample.serverModel));
            if (sample.systemFingerprint)
                provenance << tr("system fingerprint: %1")
                                  .arg(QString::fromStdString(*sample.systemFingerprint));
            provenance
                << (sample.requestSha256
                        ? tr("request: %1").arg(QString::fromStdString(*sample.requestSha256))
                        : tr("request: not recorded"));
            item->setToolTip(1, provenance.join(QLatin1Char('\n')));
            item->setText(3, sample.generatedTokens ? QString::number(*sample.generatedTokens)
                                                    : QStringLiteral("—"));
            item->setText(4, sample.decodeMs ? QString::number(*sample.decodeMs)
                                             : QStringLiteral("—"));
            QString raw =
                QString::fromStdString(sample.rawText.value_or("(no answer)")).simplified();
            item->setText(6, raw.left(160));
            item->setToolTip(
                6, QString::fromStdString(sample.rawText.value_or(sample.parseError.value_or(""))));
            if (sample.parsed
                    .is_object()) { // stored by core; unparsed answers show their format only
                const auto &parsed = sample.parsed;
                item->setText(2, parsed["progress"].is_number()
                                     ? QString::number(parsed["progress"].get<int>())
                                     : QStringLiteral("—"));
                QVariantList evidence;
                QStringList shown;
                for (const auto &e : parsed["evidence_frame_indices"]) {
                    evidence << e.get<int>();
                    shown << QString::number(e.get<int>());
                }
                item->setText(5, shown.join(QStringLiteral(", ")));
                item->setData(5, Qt::UserRole, evidence);
                item->setData(5, Qt::UserRole + 1, frames);
            }
        }
        top->setExpanded(true);
    }
}

} // namespace kosmos::ui
