#include "connectiondialog.h"

#include "settings.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QUrl>
#include <QVBoxLayout>

namespace reclaim::ui {

namespace {

// Splits "scheme://user:secret@host/..." into the URL without the secret and the secret.
QString takePassword(QLineEdit *urlEdit, QLineEdit *passwordEdit)
{
    const QUrl url(urlEdit->text().trimmed(), QUrl::StrictMode);
    if (url.isValid() && !url.password().isEmpty()) {
        passwordEdit->setText(url.password());
        urlEdit->setText(Settings::withoutPassword(urlEdit->text()));
    }
    return urlEdit->text().trimmed();
}

} // namespace

ConnectionDialog::ConnectionDialog(const ConnectionProfile &profile, QWidget *parent,
                                   const QProcessEnvironment &env)
    : QDialog(parent), m_config(new QLineEdit(profile.configPath, this)),
      m_pgUrl(new QLineEdit(profile.postgresUrl, this)),
      m_pgPassword(new QLineEdit(profile.postgresPassword, this)),
      m_redisUrl(new QLineEdit(profile.redisUrl, this)),
      m_redisPassword(new QLineEdit(profile.redisPassword, this)), m_sources(new QLabel(this)),
      m_problem(new QLabel(this)), m_env(env)
{
    setWindowTitle(QStringLiteral("Connection profile"));
    m_config->setObjectName(QStringLiteral("configPath"));
    m_pgUrl->setObjectName(QStringLiteral("postgresUrl"));
    m_pgPassword->setObjectName(QStringLiteral("postgresPassword"));
    m_redisUrl->setObjectName(QStringLiteral("redisUrl"));
    m_redisPassword->setObjectName(QStringLiteral("redisPassword"));
    m_problem->setObjectName(QStringLiteral("problem"));
    m_pgUrl->setPlaceholderText(
        QStringLiteral("empty: the configuration file's (or RECLAIM_PG_URL)"));
    m_redisUrl->setPlaceholderText(
        QStringLiteral("empty: the configuration file's (or RECLAIM_REDIS_URL)"));
    m_pgPassword->setEchoMode(QLineEdit::Password);
    m_redisPassword->setEchoMode(QLineEdit::Password);
    m_pgPassword->setPlaceholderText(QStringLiteral("kept in memory only"));
    m_redisPassword->setPlaceholderText(QStringLiteral("kept in memory only"));

    auto *browse = new QPushButton(QStringLiteral("Browse\u2026"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, QStringLiteral("Reclaim configuration"), m_config->text(),
            QStringLiteral("JSON (*.json);;All files (*)"));
        if (!path.isEmpty())
            m_config->setText(path);
    });
    auto *configRow = new QHBoxLayout;
    configRow->addWidget(m_config, 1);
    configRow->addWidget(browse);

    auto *form = new QFormLayout;
    form->addRow(QStringLiteral("Configuration file:"), configRow);
    form->addRow(QStringLiteral("PostgreSQL URL:"), m_pgUrl);
    form->addRow(QStringLiteral("PostgreSQL password:"), m_pgPassword);
    form->addRow(QStringLiteral("Redis URL:"), m_redisUrl);
    form->addRow(QStringLiteral("Redis password:"), m_redisPassword);

    auto *note =
        new QLabel(QStringLiteral("Passwords are never saved: the URLs are remembered without "
                                  "them. A password comes from this "
                                  "dialog (kept in memory until the console quits), or from "
                                  "RECLAIM_PG_URL / RECLAIM_REDIS_URL in "
                                  "the environment, or from the configuration file's URL."),
                   this);
    note->setWordWrap(true);
    m_sources->setWordWrap(true);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color:#b71c1c; font-weight:bold"));
    m_problem->hide();

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Connect"));
    connect(buttons, &QDialogButtonBox::accepted, this, &ConnectionDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &ConnectionDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(m_sources);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);
    for (QLineEdit *e : {m_pgUrl, m_pgPassword, m_redisUrl, m_redisPassword})
        connect(e, &QLineEdit::textChanged, this, &ConnectionDialog::updateSources);
    updateSources();
    resize(640, sizeHint().height());
}

ConnectionProfile ConnectionDialog::profile() const
{
    ConnectionProfile p;
    p.configPath = m_config->text().trimmed();
    // Text that is not a URL at all is passed on as typed, so loading reports it rather than
    // silently falling back to the file's URL.
    auto url = [](const QLineEdit *e) {
        const QString clean = Settings::withoutPassword(e->text());
        return clean.isEmpty() ? e->text().trimmed() : clean;
    };
    p.postgresUrl = url(m_pgUrl);
    p.redisUrl = url(m_redisUrl);
    p.postgresPassword = m_pgPassword->text();
    p.redisPassword = m_redisPassword->text();
    return p;
}

void ConnectionDialog::setProblem(const QString &problem)
{
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
}

void ConnectionDialog::updateSources()
{
    const ConnectionProfile p = profile();
    m_sources->setText(QStringLiteral("PostgreSQL password: %1.\nRedis password: %2.")
                           .arg(postgresPasswordSource(p, m_env), redisPasswordSource(p, m_env)));
}

void ConnectionDialog::accept()
{
    takePassword(m_pgUrl, m_pgPassword);
    takePassword(m_redisUrl, m_redisPassword);
    const auto loaded = loadProfile(profile(), m_env);
    if (!loaded) {
        setProblem(loaded.error());
        return;
    }
    setProblem({});
    QDialog::accept();
}

} // namespace reclaim::ui
