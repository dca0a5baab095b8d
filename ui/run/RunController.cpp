#include "run/RunController.h"

#include "ledger/Ledger.h"
#include "pipeline/RolloutEngine.h"
#include "util/CanonicalJson.h"
#include "util/Sha256.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>

namespace kosmos::ui {

RunController::RunController(QString cliPath, QObject *parent)
    : QObject(parent), m_cli(std::move(cliPath)), m_timer(new QTimer(this))
{
    m_timer->setInterval(250);
    connect(m_timer, &QTimer::timeout, this, &RunController::poll);
}

RunController::~RunController() = default;

void RunController::setLedger(const QString &bundle)
{
    m_bundle = bundle;
    m_reader.reset();
    m_followed.clear();
    m_progress = {};
    m_dataVersion = -1;
    try {
        if (Ledger *r = reader()) {
            const auto active = activeProtocols(*r);
            if (!active.empty())
                follow(QString::fromStdString(active.front()));
        }
    } catch (const std::exception &) {
        // A ledger that cannot be read has no batch to follow; the main window says why.
    }
}

Ledger *RunController::reader()
{
    if (!m_reader && !m_bundle.isEmpty())
        m_reader =
            std::make_unique<Ledger>(Ledger::open(m_bundle.toStdString(), {OpenMode::ReadOnly}));
    return m_reader.get();
}

nlohmann::json RunController::preview(const nlohmann::json &protocol, QString *error)
{
    const QString path = saveProtocol(protocol);
    if (path.isEmpty()) {
        if (error)
            *error = m_error;
        return nullptr;
    }
    QProcess cli;
    cli.start(m_cli, {QStringLiteral("run"), path, QStringLiteral("--ledger"), m_bundle,
                      QStringLiteral("--dry-run"), QStringLiteral("--json")});
    cli.waitForFinished(60000);
    const QByteArray out = cli.readAllStandardOutput();
    auto report =
        nlohmann::json::parse(out.constData(), out.constData() + out.size(), nullptr, false);
    if (!report.is_object()) {
        if (error)
            *error = QString::fromUtf8(cli.readAllStandardError()).trimmed();
        return nullptr;
    }
    return report;
}

QString RunController::saveProtocol(const nlohmann::json &protocol)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                        QStringLiteral("/protocols");
    QDir().mkpath(dir);
    std::string sha;
    try {
        sha = Sha256::hex(canonicalJson(protocol));
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
        return {};
    }
    QString path = dir + QStringLiteral("/%1-%2.json")
                             .arg(QString::fromStdString(protocol.value("name", "protocol")),
                                  QString::fromStdString(sha.substr(0, 12)));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_error = tr("cannot save the protocol to %1: %2").arg(path, file.errorString());
        return {};
    }
    file.write(QByteArray::fromStdString(protocol.dump(2)));
    return path;
}

bool RunController::start(const nlohmann::json &protocol, int workers)
{
    if (m_bundle.isEmpty()) {
        m_error = tr("open a ledger first");
        return false;
    }
    const QString path = saveProtocol(protocol);
    if (path.isEmpty())
        return false;
    const QString logs =
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/logs");
    QDir().mkpath(logs);
    m_log =
        logs +
        QStringLiteral("/run-%1.log")
            .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-hhmmss-zzz")));
    QProcess process;
    process.setProgram(m_cli);
    process.setArguments({QStringLiteral("run"), path, QStringLiteral("--ledger"), m_bundle,
                          QStringLiteral("--workers"), QString::number(workers),
                          QStringLiteral("--isolate")});
    process.setStandardOutputFile(m_log);
    process.setStandardErrorFile(m_log, QIODevice::Append);
    qint64 pid = 0;
    if (!process.startDetached(&pid)) {
        m_error = tr("cannot start %1: %2").arg(m_cli, process.errorString());
        return false;
    }
    follow(QString::fromStdString(Sha256::hex(canonicalJson(protocol))));
    return true;
}

void RunController::follow(const QString &protocolSha256)
{
    m_followed = protocolSha256;
    m_dataVersion = -1;
    m_timer->start();
    poll();
}

void RunController::poll()
{
    if (m_followed.isEmpty())
        return;
    try {
        Ledger *r = reader();
        if (!r)
            return;
        const std::int64_t version = r->dataVersion();
        const bool changed = version != m_dataVersion;
        m_dataVersion = version;
        const int finishedBefore = m_progress.finished();
        // Elapsed and remaining time move even when nothing was written.
        m_progress =
            batchProgress(*r, m_followed.toStdString(), QDateTime::currentMSecsSinceEpoch());
        emit progressChanged(m_progress);
        if (changed && m_progress.finished() != finishedBefore)
            emit runsFinished();
        if (!m_progress.active() && m_progress.total > 0)
            m_timer->setInterval(2000); // idle: keep an eye out for a relaunch, cheaply
        else
            m_timer->setInterval(250);
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
    }
}

bool RunController::cancelRun(qint64 runId)
{
    try {
        Ledger writer = Ledger::open(m_bundle.toStdString(), {OpenMode::ReadWrite});
        const bool asked = writer.requestCancel(runId, "cancelled from the workstation");
        poll();
        return asked;
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
        return false;
    }
}

int RunController::retryFailed(const QList<qint64> &runIds, int workers)
{
    m_error.clear();
    RetryResult retry;
    try {
        Ledger writer = Ledger::open(m_bundle.toStdString(), {OpenMode::ReadWrite});
        retry = retryFailedRuns(writer, std::vector<std::int64_t>(runIds.begin(), runIds.end()));
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
        return 0;
    }
    QStringList problems;
    for (const auto &why : retry.skipped)
        problems << QString::fromStdString(why);
    for (const auto &protocol : retry.protocols)
        if (!start(protocol, workers))
            problems << m_error;
    m_error = problems.join(QStringLiteral("; "));
    poll();
    return static_cast<int>(retry.requeued.size());
}

int RunController::cancelBatch()
{
    int asked = 0;
    try {
        Ledger writer = Ledger::open(m_bundle.toStdString(), {OpenMode::ReadWrite});
        for (const RunProgress &run : m_progress.runs)
            if ((run.status == "queued" || run.status == "running") &&
                writer.requestCancel(run.runId, "batch cancelled from the workstation"))
                ++asked;
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
    }
    poll();
    return asked;
}

} // namespace kosmos::ui
