#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QWidget>

#include <nlohmann/json.hpp>

class QFormLayout;
class QLabel;

namespace kosmos::ui {

// A form built from a plugin's settings_schema: a combo box for an enum, spin boxes for
// integers and numbers (with their bounds), a check box for booleans, a line for strings, and
// JSON text for anything else. Values are checked against the schema as they change; the first
// problem is shown under the form with its field named.
// A string field with choices (the model packages found for a `package` setting) is a list of
// them, with the value given kept as one more, and "Other folder..." to pick one. An enum
// without a default starts at "(default)", which leaves the setting out (the plugin decides).
struct SettingChoice
{
    QString label;
    QString value;
    QString toolTip;
};

class SettingsForm : public QWidget
{
    Q_OBJECT
public:
    explicit SettingsForm(QWidget *parent = nullptr);
    void setSchema(const nlohmann::json &schema, const nlohmann::json &values = nullptr,
                   const QMap<QString, QList<SettingChoice>> &choices = {});
    // The settings: every key that was given, plus every other whose value differs from the
    // schema's default (so loading and saving a protocol does not change its hash).
    nlohmann::json values() const;
    // values() with every default the schema declares filled in: what the component will run
    // with, as a new policy is stored (so its runs say what ran, not "{}").
    nlohmann::json effectiveValues() const;
    // Problems of values() against the schema, "field: message" each; empty when it fits.
    QStringList problems() const;
    // The editor of one top-level field (tests drive the form through it).
    QWidget *editor(const QString &field) const;

signals:
    void changed();

private:
    void clear();
    void check();

    nlohmann::json m_schema;
    QFormLayout *m_form;
    QLabel *m_problem;
    QList<QPair<QString, QWidget *>> m_editors;
    nlohmann::json m_given; // the values passed in: their keys are always written back
};

} // namespace kosmos::ui
