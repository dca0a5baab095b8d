#include "run/SettingsForm.h"

#include "util/SettingsSchema.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace kosmos::ui {

SettingsForm::SettingsForm(QWidget *parent)
    : QWidget(parent), m_form(new QFormLayout), m_problem(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(m_form);
    layout->addWidget(m_problem);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #b00020"));
}

void SettingsForm::clear()
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_editors.clear();
}

QWidget *SettingsForm::editor(const QString &field) const
{
    for (const auto &[name, widget] : m_editors)
        if (name == field)
            return widget;
    return nullptr;
}

void SettingsForm::setSchema(const nlohmann::json &schema, const nlohmann::json &values,
                             const QMap<QString, QList<SettingChoice>> &choices)
{
    clear();
    m_schema = schema.is_object() ? schema : nlohmann::json::object();
    m_given = values.is_object() ? values : nlohmann::json::object();
    const auto properties = m_schema.value("properties", nlohmann::json::object());
    for (const auto &[key, spec] : properties.items()) {
        const QString name = QString::fromStdString(key);
        const nlohmann::json initial = values.is_object() && values.contains(key)
                                           ? values[key]
                                           : spec.value("default", nlohmann::json());
        const std::string type = spec.value("type", std::string());
        QWidget *w = nullptr;
        if (type == "string" && choices.contains(name)) {
            auto *box = new QComboBox(this);
            box->addItem(tr("(choose)"), QStringLiteral("null"));
            for (const SettingChoice &c : choices[name]) {
                box->addItem(c.label,
                             QString::fromStdString(nlohmann::json(c.value.toStdString()).dump()));
                box->setItemData(box->count() - 1, c.toolTip.isEmpty() ? c.value : c.toolTip,
                                 Qt::ToolTipRole);
            }
            auto select = [box](const QString &value) {
                const QString stored =
                    QString::fromStdString(nlohmann::json(value.toStdString()).dump());
                int index = box->findData(stored);
                if (index < 0) {
                    index = std::max(0, box->count() - 1);
                    box->insertItem(index, value, stored);
                }
                box->setCurrentIndex(index);
            };
            box->addItem(tr("Other folder..."), QStringLiteral("browse"));
            if (initial.is_string() && !initial.get<std::string>().empty())
                select(QString::fromStdString(initial.get<std::string>()));
            else
                box->setCurrentIndex(0);
            connect(box, &QComboBox::activated, this, [this, box, select, name](int index) {
                if (box->itemData(index).toString() != QLatin1String("browse"))
                    return;
                const QString folder =
                    QFileDialog::getExistingDirectory(this, tr("Choose a folder: %1").arg(name));
                if (folder.isEmpty())
                    box->setCurrentIndex(0);
                else
                    select(folder);
            });
            connect(box, &QComboBox::currentIndexChanged, this, &SettingsForm::check);
            w = box;
        } else if (spec.contains("enum") && spec["enum"].is_array()) {
            auto *box = new QComboBox(this);
            if (!spec.contains("default"))
                box->addItem(tr("(default)"), QStringLiteral("null"));
            for (const auto &option : spec["enum"])
                box->addItem(QString::fromStdString(option.is_string() ? option.get<std::string>()
                                                                       : option.dump()),
                             QString::fromStdString(option.dump()));
            const int index = box->findData(QString::fromStdString(initial.dump()));
            box->setCurrentIndex(std::max(0, index));
            connect(box, &QComboBox::currentIndexChanged, this, &SettingsForm::check);
            w = box;
        } else if (type == "integer") {
            auto *spin = new QSpinBox(this);
            spin->setRange(spec.value("minimum", std::numeric_limits<int>::min()),
                           spec.value("maximum", std::numeric_limits<int>::max()));
            spin->setValue(initial.is_number() ? initial.get<int>() : spin->minimum());
            connect(spin, &QSpinBox::valueChanged, this, &SettingsForm::check);
            w = spin;
        } else if (type == "number") {
            auto *spin = new QDoubleSpinBox(this);
            spin->setDecimals(4);
            spin->setRange(spec.value("minimum", -1e12), spec.value("maximum", 1e12));
            spin->setValue(initial.is_number() ? initial.get<double>() : 0.0);
            connect(spin, &QDoubleSpinBox::valueChanged, this, &SettingsForm::check);
            w = spin;
        } else if (type == "boolean") {
            auto *box = new QCheckBox(this);
            box->setChecked(initial.is_boolean() && initial.get<bool>());
            connect(box, &QCheckBox::toggled, this, &SettingsForm::check);
            w = box;
        } else {
            auto *line = new QLineEdit(this);
            if (type == "string")
                line->setText(initial.is_string()
                                  ? QString::fromStdString(initial.get<std::string>())
                                  : QString());
            else
                line->setText(initial.is_null() ? QString()
                                                : QString::fromStdString(initial.dump()));
            line->setProperty("json", type != "string");
            connect(line, &QLineEdit::textChanged, this, &SettingsForm::check);
            w = line;
        }
        w->setObjectName(name);
        w->setToolTip(QString::fromStdString(spec.value("description", std::string())));
        m_form->addRow(name, w);
        m_editors.append({name, w});
    }
    if (m_editors.isEmpty())
        m_form->addRow(new QLabel(tr("This plugin has no settings."), this));
    check();
}

nlohmann::json SettingsForm::values() const
{
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[name, w] : m_editors) {
        const std::string key = name.toStdString();
        if (auto *box = qobject_cast<QComboBox *>(w)) {
            const auto chosen =
                nlohmann::json::parse(box->currentData().toString().toStdString(), nullptr, false);
            if (chosen.is_null() || chosen.is_discarded())
                continue; // "(default)", "(choose)": left out
            out[key] = chosen;
        } else if (auto *spin = qobject_cast<QSpinBox *>(w))
            out[key] = spin->value();
        else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(w))
            out[key] = dspin->value();
        else if (auto *check = qobject_cast<QCheckBox *>(w))
            out[key] = check->isChecked();
        else if (auto *line = qobject_cast<QLineEdit *>(w)) {
            if (line->text().isEmpty())
                continue; // left out: "required" says so when it must be there
            if (line->property("json").toBool())
                out[key] = nlohmann::json::parse(line->text().toStdString(), nullptr, false);
            else
                out[key] = line->text().toStdString();
        }
        // A default nobody set stays implicit.
        const auto &spec = m_schema["properties"][key];
        if (!m_given.contains(key) && spec.contains("default") && out.contains(key) &&
            out[key] == spec["default"])
            out.erase(key);
    }
    return out;
}

nlohmann::json SettingsForm::effectiveValues() const
{
    nlohmann::json out = values();
    const nlohmann::json properties = m_schema.value("properties", nlohmann::json::object());
    for (const auto &[key, spec] : properties.items())
        if (!out.contains(key) && spec.is_object() && spec.contains("default"))
            out[key] = spec["default"];
    return out;
}

QStringList SettingsForm::problems() const
{
    QStringList out;
    for (const auto &p : checkSettings(m_schema, values()))
        out << QString::fromStdString((p.field.empty() ? std::string("settings") : p.field) + ": " +
                                      p.message);
    return out;
}

void SettingsForm::check()
{
    const QStringList found = problems();
    m_problem->setText(found.join(QLatin1Char('\n')));
    m_problem->setVisible(!found.isEmpty());
    emit changed();
}

} // namespace kosmos::ui
