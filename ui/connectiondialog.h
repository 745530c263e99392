// Edits the connection profile: configuration file, PostgreSQL and Redis URLs, and passwords
// that are kept in memory only. Problems are shown inline; the dialog stays open to fix them.
// "Check connection" runs `reclaim --check` on the profile on a thread of its own and lists its
// items with their status.
#pragma once

#include "connectionprofile.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace reclaim {
class CheckRunner;
struct CheckReport;
} // namespace reclaim

namespace reclaim::ui {

class ConnectionDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectionDialog(
        const ConnectionProfile &profile, QWidget *parent = nullptr,
        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

    // The edited profile; URLs without passwords (a password typed into a URL moves to the
    // password field).
    ConnectionProfile profile() const;
    // Shown in the dialog when it opens, e.g. why the last load failed.
    void setProblem(const QString &problem);

    void accept() override;

    // Loads the profile and starts the check; the items appear when it finishes. The UI thread
    // never waits for it.
    void runCheck();

private:
    void updateSources();
    // The deployment selector follows the URL's scheme; picking a form rewrites the scheme.
    void followRedisUrl();
    void applyRedisForm();
    void showRedisFormHint();
    void showCheck(const reclaim::CheckReport &report);

    QLineEdit *m_config;
    QLineEdit *m_pgUrl;
    QLineEdit *m_pgPassword;
    QLineEdit *m_redisUrl;
    QComboBox *m_redisForm;
    QLabel *m_redisFormHint;
    QLineEdit *m_redisPassword;
    QLineEdit *m_redisTlsCa;
    QLineEdit *m_redisTlsCert;
    QLineEdit *m_redisTlsKey;
    QLineEdit *m_redisTlsServerName;
    QLabel *m_sources;
    QLabel *m_problem;
    QPushButton *m_checkButton;
    QLabel *m_checkStatus;
    QListWidget *m_checkItems;
    CheckRunner *m_checkRunner;
    QProcessEnvironment m_env;
};

} // namespace reclaim::ui
