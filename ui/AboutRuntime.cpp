#include "AboutRuntime.h"

#include <QCoreApplication>

namespace kosmos::ui {

QStringList libtorchAboutLines(const std::vector<std::pair<std::string, nlohmann::json>> &plugins)
{
    QStringList users;
    QStringList versions;
    for (const auto &[id, metadata] : plugins) {
        if (!metadata.is_object())
            continue;
        const auto requires_ = metadata.value("requires", nlohmann::json::object());
        if (!requires_.is_object() || !requires_.value("libtorch", false))
            continue;
        users << QString::fromStdString(id);
        const auto runtime = metadata.value("runtime", nlohmann::json::object());
        if (runtime.is_object() && runtime.contains("libtorch") &&
            runtime["libtorch"].is_string()) {
            const QString version = QString::fromStdString(runtime["libtorch"].get<std::string>());
            if (!version.isEmpty() && !versions.contains(version))
                versions << version;
        }
    }
    QStringList lines;
    if (users.isEmpty())
        lines << QCoreApplication::translate("About", "libtorch: no installed plugin uses it");
    else
        lines << QCoreApplication::translate(
                     "About", "libtorch %1: used by %2 (loaded only when one of them runs)")
                     .arg(versions.isEmpty() ? QStringLiteral("?")
                                             : versions.join(QStringLiteral(" / ")),
                          users.join(QStringLiteral(", ")));
    lines << QCoreApplication::translate("About", "plugins found: %1")
                 .arg(static_cast<int>(plugins.size()));
    return lines;
}

} // namespace kosmos::ui
