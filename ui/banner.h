// A strip at the top of the window for problems that concern the whole console (configuration,
// a failed or skipped run): one line per source, replaced rather than stacked, never a modal.
#pragma once

#include <QFrame>
#include <QMap>

class QLabel;
class QPushButton;

namespace reclaim::ui {

class Banner final : public QFrame
{
    Q_OBJECT
public:
    enum class Severity
    {
        Info,
        Warning,
        Error
    };

    explicit Banner(QWidget *parent = nullptr);

    // Sets (or replaces) the message from `source`; an empty text clears it.
    void setMessage(const QString &source, Severity severity, const QString &text,
                    bool offerProfile = false);
    void clearMessage(const QString &source) { setMessage(source, Severity::Info, {}); }
    QString text() const;
    bool hasMessage(const QString &source) const { return m_messages.contains(source); }

signals:
    void profileRequested();

private:
    struct Message
    {
        Severity severity;
        QString text;
        bool offerProfile;
    };
    void render();

    QMap<QString, Message> m_messages;
    QLabel *m_label;
    QPushButton *m_profile;
};

} // namespace reclaim::ui
