#include "Vocabulary.h"

#include "evaluation/Calibration.h"
#include "stats/Proportion.h"

#include <QCoreApplication>

#include <cstdio>

namespace kosmos::ui {

QString valueText(const QString &stored)
{
    // QT_TRANSLATE_NOOP keeps each word in the .ts under the context "Vocabulary".
    static const char *const kWords[][2] = {
        {"queued", QT_TRANSLATE_NOOP("Vocabulary", "queued")},
        {"running", QT_TRANSLATE_NOOP("Vocabulary", "running")},
        {"completed", QT_TRANSLATE_NOOP("Vocabulary", "completed")},
        {"failed", QT_TRANSLATE_NOOP("Vocabulary", "failed")},
        {"cancelled", QT_TRANSLATE_NOOP("Vocabulary", "cancelled")},
        {"interrupted", QT_TRANSLATE_NOOP("Vocabulary", "interrupted")},
        {"success", QT_TRANSLATE_NOOP("Vocabulary", "success")},
        {"failure", QT_TRANSLATE_NOOP("Vocabulary", "failure")},
        {"unknown", QT_TRANSLATE_NOOP("Vocabulary", "unknown")},
        {"none", QT_TRANSLATE_NOOP("Vocabulary", "none")},
        {"valid", QT_TRANSLATE_NOOP("Vocabulary", "valid")},
        {"invalid", QT_TRANSLATE_NOOP("Vocabulary", "invalid")},
        {"met", QT_TRANSLATE_NOOP("Vocabulary", "met")},
        {"not_met", QT_TRANSLATE_NOOP("Vocabulary", "not met")},
        {"unclear", QT_TRANSLATE_NOOP("Vocabulary", "unclear")},
    };
    for (const auto &[word, shown] : kWords)
        if (stored == QLatin1String(word))
            return QCoreApplication::translate("Vocabulary", shown);
    return stored;
}

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("Vocabulary", text);
}

// The clips a line counts, as its "needs" names them.
QString clipsOf(GateCheck check)
{
    switch (check) {
    case GateCheck::LabelledSuccesses:
    case GateCheck::Sensitivity:
        return tr("labelled successes");
    case GateCheck::LabelledFailures:
    case GateCheck::Specificity:
        return tr("labelled failures");
    case GateCheck::DecisiveClips:
    case GateCheck::Leniency:
        break;
    }
    return tr("decisive labelled clips");
}

// The C library's rounding, as core's texts (82.5 -> "82"; Qt's own formatting rounds up).
QString signedNumber(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%+.3f", value);
    return QString::fromLatin1(text);
}

QString percentText(double rate)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", rate * 100);
    return QString::fromLatin1(text);
}

} // namespace

QString gateLineWords(const GateLine &line)
{
    const bool isRate =
        line.check == GateCheck::Sensitivity || line.check == GateCheck::Specificity;
    QString name;
    switch (line.check) {
    case GateCheck::DecisiveClips:
        name = tr("decisive labelled clips >= %1").arg(static_cast<int>(line.bound));
        break;
    case GateCheck::LabelledSuccesses:
        name = tr("labelled successes >= %1").arg(static_cast<int>(line.bound));
        break;
    case GateCheck::LabelledFailures:
        name = tr("labelled failures >= %1").arg(static_cast<int>(line.bound));
        break;
    case GateCheck::Sensitivity:
        name = tr("sensitivity >= %1").arg(line.bound, 0, 'f', 2);
        break;
    case GateCheck::Specificity:
        name = tr("specificity >= %1").arg(line.bound, 0, 'f', 2);
        break;
    case GateCheck::Leniency:
        name = tr("|leniency offset| <= %1").arg(line.bound, 0, 'f', 2);
        break;
    }
    QString figure;
    if (isRate) {
        const Proportion &p = line.rate;
        figure = p.rate ? QString::fromStdString(intervalText(p)) : tr("n = 0 (no rate)");
        if (p.rate && p.lower && p.upper) {
            if (*p.rate >= line.bound && *p.lower < line.bound)
                figure += tr("; the interval reaches below the bound: a pass on the point value");
            else if (*p.rate < line.bound && *p.upper >= line.bound)
                figure += tr("; the interval reaches the bound: a fail on the point value");
        }
    } else if (line.check == GateCheck::Leniency) {
        figure = line.pairs <= 0
                     ? QStringLiteral("n = 0")
                     : tr("%1 [95% CI %2, %3] over %4 pairs")
                           .arg(signedNumber(line.offset), signedNumber(line.offsetLower),
                                signedNumber(line.offsetUpper))
                           .arg(line.pairs);
    } else {
        figure = QString::number(line.count);
        if (line.check == GateCheck::DecisiveClips)
            figure += tr(" (%1 indecisive)").arg(line.indecisive);
    }
    const QString clips = clipsOf(line.check);
    QString needed;
    switch (line.need) {
    case GateNeed::Nothing:
        break;
    case GateNeed::Measure:
        needed = tr("%1 to measure it").arg(clips);
        break;
    case GateNeed::OnBound:
        needed =
            line.check == GateCheck::Leniency
                ? tr("the observed offset lies on the bound: no number of clips settles it")
                : tr("the observed rate lies on the bound: no number of %1 settles it").arg(clips);
        break;
    case GateNeed::ClassBelowMinimum:
        needed = tr("%1 more %2 (fewer than the gate's %3 %2)")
                     .arg(line.more.value_or(0))
                     .arg(clips)
                     .arg(line.classMinimum);
        break;
    case GateNeed::More: {
        if (!isRate && line.check != GateCheck::Leniency) {
            needed = tr("%1 more %2").arg(line.more.value_or(0)).arg(clips);
            break;
        }
        const QString quantity = line.more ? tr("about %1 more %2").arg(*line.more).arg(clips)
                                           : tr("more than a million %1").arg(clips);
        if (line.check == GateCheck::Leniency)
            needed = line.towardPass
                         ? tr("%1 (at the observed offset) for the interval to clear the bound")
                               .arg(quantity)
                         : tr("%1 (at the observed offset) for the interval to fall outside the "
                              "bound")
                               .arg(quantity);
        else
            needed = (line.towardPass
                          ? tr("%1 (at the observed %2%) for the interval to clear the bound")
                          : tr("%1 (at the observed %2%) for the interval to fall below the "
                               "bound"))
                         .arg(quantity)
                         .arg(percentText(line.rate.rate.value_or(0)));
        break;
    }
    }
    return needed.isEmpty() ? tr("%1: %2").arg(name, figure)
                            : tr("%1: %2; needs %3").arg(name, figure, needed);
}

} // namespace kosmos::ui
