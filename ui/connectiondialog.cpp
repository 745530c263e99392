#include "connectiondialog.h"

#include "service/checkrunner.h"
#include "settings.h"
#include "urlpassword.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QUrl>
#include <QVBoxLayout>

namespace reclaim::ui {

namespace {

// Moves the secret of "scheme://user:secret@host/..." (any form, host lists included) into the
// password field.
QString takePassword(QLineEdit *urlEdit, QLineEdit *passwordEdit)
{
    const auto taken = takeUrlPassword(urlEdit->text());
    if (taken && !taken->password.isEmpty()) {
        passwordEdit->setText(taken->password);
        urlEdit->setText(taken->url);
    }
    return urlEdit->text().trimmed();
}

struct FormText
{
    RedisForm form;
    const char *name;
    const char *example;
};

// What the form selector offers, with the example the URL field then shows.
constexpr FormText kForms[] = {
    {RedisForm::SingleNode, "Single node",
     "redis://[user@]host[:port][/db], rediss:// for TLS, unix:///path/redis.sock"},
    {RedisForm::Sentinel, "Sentinel",
     "redis+sentinel://[user@]sentinel1[:26379][,sentinel2...]/master-name[/db]"},
    {RedisForm::Cluster, "Cluster",
     "redis+cluster://[user@]node1[:6379][,node2...] (database 0; rediss+cluster:// for TLS)"},
};

} // namespace

ConnectionDialog::ConnectionDialog(const ConnectionProfile &profile, QWidget *parent,
                                   const QProcessEnvironment &env)
    : QDialog(parent), m_config(new QLineEdit(profile.configPath, this)),
      m_pgUrl(new QLineEdit(profile.postgresUrl, this)),
      m_pgPassword(new QLineEdit(profile.postgresPassword, this)),
      m_redisUrl(new QLineEdit(profile.redisUrl, this)), m_redisForm(new QComboBox(this)),
      m_redisFormHint(new QLabel(this)),
      m_redisPassword(new QLineEdit(profile.redisPassword, this)),
      m_redisTlsCa(new QLineEdit(profile.redisTlsCa, this)),
      m_redisTlsCert(new QLineEdit(profile.redisTlsCert, this)),
      m_redisTlsKey(new QLineEdit(profile.redisTlsKey, this)),
      m_redisTlsServerName(new QLineEdit(profile.redisTlsServerName, this)),
      m_sources(new QLabel(this)), m_problem(new QLabel(this)),
      m_checkButton(new QPushButton(QStringLiteral("Check connection"), this)),
      m_checkStatus(new QLabel(this)), m_checkItems(new QListWidget(this)),
      m_checkRunner(new CheckRunner(this)), m_env(env)
{
    setWindowTitle(QStringLiteral("Connection profile"));
    m_config->setObjectName(QStringLiteral("configPath"));
    m_pgUrl->setObjectName(QStringLiteral("postgresUrl"));
    m_pgPassword->setObjectName(QStringLiteral("postgresPassword"));
    m_redisUrl->setObjectName(QStringLiteral("redisUrl"));
    m_redisForm->setObjectName(QStringLiteral("redisForm"));
    m_redisFormHint->setObjectName(QStringLiteral("redisFormHint"));
    for (const FormText &f : kForms)
        m_redisForm->addItem(QString::fromLatin1(f.name), int(f.form));
    m_redisForm->setToolTip(
        QStringLiteral("The Redis deployment: one node, a master found through Sentinel, or a "
                       "Redis Cluster (every master reached by slot). Picking one rewrites the "
                       "URL's scheme."));
    m_redisFormHint->setWordWrap(true);
    m_redisFormHint->setStyleSheet(QStringLiteral("color:#5f6368"));
    m_redisUrl->setPlaceholderText(
        QStringLiteral("empty: the configuration file's (or RECLAIM_REDIS_URL)"));
    m_redisPassword->setObjectName(QStringLiteral("redisPassword"));
    m_redisTlsCa->setObjectName(QStringLiteral("redisTlsCa"));
    m_redisTlsCert->setObjectName(QStringLiteral("redisTlsCert"));
    m_redisTlsKey->setObjectName(QStringLiteral("redisTlsKey"));
    m_redisTlsServerName->setObjectName(QStringLiteral("redisTlsServerName"));
    m_redisTlsCa->setPlaceholderText(QStringLiteral("rediss:// only; empty: the system's CAs"));
    m_redisTlsCert->setPlaceholderText(QStringLiteral("PEM, for servers that require one"));
    m_redisTlsKey->setPlaceholderText(QStringLiteral("its unencrypted PEM key"));
    m_redisTlsServerName->setPlaceholderText(QStringLiteral("empty: the URL's host"));
    m_problem->setObjectName(QStringLiteral("problem"));
    m_checkButton->setObjectName(QStringLiteral("checkConnection"));
    m_checkStatus->setObjectName(QStringLiteral("checkStatus"));
    m_checkItems->setObjectName(QStringLiteral("checkItems"));
    m_pgUrl->setPlaceholderText(
        QStringLiteral("empty: the configuration file's (or RECLAIM_PG_URL)"));
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
    form->addRow(QStringLiteral("Redis deployment:"), m_redisForm);
    form->addRow(QStringLiteral("Redis URL:"), m_redisUrl);
    form->addRow(QString(), m_redisFormHint);
    form->addRow(QStringLiteral("Redis password:"), m_redisPassword);
    // A file chooser beside each TLS path; the paths are remembered, the files are read at
    // every connection.
    const auto fileRow = [this](QLineEdit *edit, const QString &title) {
        auto *pick = new QPushButton(QStringLiteral("Browse\u2026"), this);
        connect(pick, &QPushButton::clicked, this, [this, edit, title] {
            const QString path = QFileDialog::getOpenFileName(
                this, title, edit->text(),
                QStringLiteral("PEM (*.pem *.crt *.key);;All files (*)"));
            if (!path.isEmpty())
                edit->setText(path);
        });
        auto *row = new QHBoxLayout;
        row->addWidget(edit, 1);
        row->addWidget(pick);
        return row;
    };
    form->addRow(QStringLiteral("Redis TLS CA file:"),
                 fileRow(m_redisTlsCa, QStringLiteral("Redis CA certificate")));
    form->addRow(QStringLiteral("Redis client certificate:"),
                 fileRow(m_redisTlsCert, QStringLiteral("Redis client certificate")));
    form->addRow(QStringLiteral("Redis client key:"),
                 fileRow(m_redisTlsKey, QStringLiteral("Redis client key")));
    form->addRow(QStringLiteral("Redis TLS server name:"), m_redisTlsServerName);

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

    m_checkButton->setToolTip(
        QStringLiteral("Check the servers, queues and lock as reclaim --check does, without "
                       "writing anything"));
    connect(m_checkButton, &QPushButton::clicked, this, &ConnectionDialog::runCheck);
    connect(m_checkRunner, &CheckRunner::finished, this, &ConnectionDialog::showCheck);
    m_checkStatus->setWordWrap(true);
    m_checkItems->setWordWrap(true);
    m_checkItems->setAlternatingRowColors(true);
    m_checkItems->hide();
    auto *checkRow = new QHBoxLayout;
    checkRow->addWidget(m_checkButton);
    checkRow->addWidget(m_checkStatus, 1);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(m_sources);
    layout->addWidget(m_problem);
    layout->addLayout(checkRow);
    layout->addWidget(m_checkItems, 1);
    layout->addWidget(buttons);
    for (QLineEdit *e : {m_pgUrl, m_pgPassword, m_redisUrl, m_redisPassword})
        connect(e, &QLineEdit::textChanged, this, &ConnectionDialog::updateSources);
    connect(m_redisUrl, &QLineEdit::textChanged, this, &ConnectionDialog::followRedisUrl);
    connect(m_redisForm, &QComboBox::activated, this, &ConnectionDialog::applyRedisForm);
    followRedisUrl();
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
    p.redisTlsCa = m_redisTlsCa->text().trimmed();
    p.redisTlsCert = m_redisTlsCert->text().trimmed();
    p.redisTlsKey = m_redisTlsKey->text().trimmed();
    p.redisTlsServerName = m_redisTlsServerName->text().trimmed();
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

void ConnectionDialog::followRedisUrl()
{
    if (const auto form = redisFormOf(m_redisUrl->text()))
        m_redisForm->setCurrentIndex(m_redisForm->findData(int(*form)));
    showRedisFormHint();
}

void ConnectionDialog::applyRedisForm()
{
    const auto form = RedisForm(m_redisForm->currentData().toInt());
    if (!m_redisUrl->text().trimmed().isEmpty()) {
        // A socket cannot be a cluster: the URL is cleared and the example shows the form.
        const QString rewritten = withRedisForm(m_redisUrl->text(), form);
        m_redisUrl->setText(rewritten);
    }
    showRedisFormHint();
}

void ConnectionDialog::showRedisFormHint()
{
    const auto form = RedisForm(m_redisForm->currentData().toInt());
    for (const FormText &f : kForms)
        if (f.form == form)
            m_redisFormHint->setText(QString::fromLatin1(f.example));
}

void ConnectionDialog::runCheck()
{
    takePassword(m_pgUrl, m_pgPassword);
    takePassword(m_redisUrl, m_redisPassword);
    const auto loaded = loadProfile(profile(), m_env);
    if (!loaded) {
        setProblem(loaded.error());
        return;
    }
    setProblem({});
    if (!m_checkRunner->start(*loaded))
        return; // one is in flight; its items will show
    m_checkButton->setEnabled(false);
    m_checkStatus->setText(QStringLiteral("Checking\u2026"));
}

void ConnectionDialog::showCheck(const CheckReport &report)
{
    m_checkButton->setEnabled(true);
    m_checkItems->clear();
    for (const CheckItem &item : report.items) {
        const QStyle::StandardPixmap icon =
            item.status == CheckStatus::Pass   ? QStyle::SP_DialogApplyButton
            : item.status == CheckStatus::Warn ? QStyle::SP_MessageBoxWarning
                                               : QStyle::SP_MessageBoxCritical;
        QString text =
            QStringLiteral("%1  %2: %3")
                .arg(CheckReport::statusName(item.status).toUpper(), item.id, item.summary);
        if (!item.fix.isEmpty())
            text += QStringLiteral("\nFix: ") + item.fix;
        auto *row = new QListWidgetItem(style()->standardIcon(icon), text, m_checkItems);
        row->setData(Qt::UserRole, item.id);
        row->setData(Qt::UserRole + 1, CheckReport::statusName(item.status));
    }
    m_checkStatus->setText(QStringLiteral("%1: %2 passed, %3 warned, %4 failed (%5 ms)")
                               .arg(CheckReport::statusName(report.result()).toUpper())
                               .arg(report.ids(CheckStatus::Pass).size())
                               .arg(report.ids(CheckStatus::Warn).size())
                               .arg(report.ids(CheckStatus::Fail).size())
                               .arg(report.elapsedMs));
    m_checkItems->show();
    if (height() < 560)
        resize(width(), 560);
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
