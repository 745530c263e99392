#include "auditview.h"

#include "auditmodel.h"
#include "config/connectionurl.h"
#include "service/auditworker.h"
#include "tablestyle.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace reclaim::ui {

namespace {

constexpr int kPageSize = 200;

const char *const kResults[] = {"started",        "applied", "stale",    "fenced",
                                "enqueue-failed", "dropped", "rejected", "rejection-undone",
                                "lock-lost",      "unknown", "error"};

// Seconds back from now for each "since" choice (0: any time).
const std::pair<const char *, int> kSince[] = {
    {"Any time", 0}, {"Last hour", 3600}, {"Last 24 hours", 86400}, {"Last 7 days", 7 * 86400}};

} // namespace

AuditView::AuditView(QWidget *parent)
    : QWidget(parent, Qt::Window), m_model(new AuditModel(this)), m_view(new QTableView(this)),
      m_job(new QLineEdit(this)), m_domain(new QLineEdit(this)), m_actor(new QLineEdit(this)),
      m_result(new QComboBox(this)), m_since(new QComboBox(this)),
      m_export(new QPushButton(QStringLiteral("Export audit\u2026"), this)),
      m_note(new QLabel(this)), m_status(new QLabel(this))
{
    setWindowTitle(QStringLiteral("Reclaim audit history"));
    m_job->setPlaceholderText(QStringLiteral("job row id, exactly"));
    m_job->setClearButtonEnabled(true);
    m_domain->setPlaceholderText(QStringLiteral("any domain"));
    m_domain->setClearButtonEnabled(true);
    m_actor->setPlaceholderText(QStringLiteral("user or user@host"));
    m_actor->setClearButtonEnabled(true);
    m_result->addItem(QStringLiteral("Any result"), QString());
    for (const char *r : kResults)
        m_result->addItem(QString::fromLatin1(r), QString::fromLatin1(r));
    for (const auto &[text, seconds] : kSince)
        m_since->addItem(QString::fromLatin1(text), seconds);

    auto *filters = new QHBoxLayout;
    const auto add = [&](const QString &label, QWidget *field, int stretch) {
        auto *l = new QLabel(label, this);
        l->setBuddy(field);
        l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred); // the edits give way
        field->setMinimumWidth(std::min(field->sizeHint().width(), 120));
        filters->addWidget(l);
        filters->addWidget(field, stretch);
    };
    add(QStringLiteral("&Job:"), m_job, 3);
    add(QStringLiteral("D&omain:"), m_domain, 2);
    add(QStringLiteral("O&perator:"), m_actor, 2);
    add(QStringLiteral("Res&ult:"), m_result, 0);
    add(QStringLiteral("&Time:"), m_since, 0);
    filters->addWidget(m_export);

    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::RichText);
    m_note->setVisible(false);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_view->setModel(m_model);
    configureTable(m_view);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    QHeaderView *header = m_view->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setStretchLastSection(true);
    const QFontMetrics fm(m_view->font());
    header->resizeSection(AuditModel::TimeColumn,
                          fm.horizontalAdvance(QStringLiteral("0000-00-00 00:00:00")) + 16);
    header->resizeSection(AuditModel::ResultColumn,
                          fm.horizontalAdvance(QStringLiteral("rejection-undone")) + 16);
    header->resizeSection(AuditModel::JobColumn, fm.horizontalAdvance(QLatin1Char('x')) * 26);
    header->resizeSection(AuditModel::ActionColumn,
                          fm.horizontalAdvance(QStringLiteral("REQUEUE")) + 16);
    header->resizeSection(AuditModel::OperatorColumn, fm.horizontalAdvance(QLatin1Char('x')) * 24);
    header->resizeSection(AuditModel::PreconditionColumn,
                          fm.horizontalAdvance(QStringLiteral("PROCESSING \u00b7 "
                                                              "0000-00-00 00:00:00.000000")) +
                              16);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 4);
    layout->addLayout(filters);
    layout->addWidget(m_note);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    resize(1200, 640);

    // Typing refines the filter; a short pause before asking PostgreSQL again.
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(300);
    connect(&m_debounce, &QTimer::timeout, this, &AuditView::reload);
    for (QLineEdit *edit : {m_job, m_domain, m_actor}) {
        connect(edit, &QLineEdit::textEdited, &m_debounce, qOverload<>(&QTimer::start));
        connect(edit, &QLineEdit::returnPressed, this, &AuditView::reload);
    }
    connect(m_job, &QLineEdit::returnPressed, this,
            [this] { emit jobSearched(m_job->text().trimmed()); });
    connect(m_result, &QComboBox::currentIndexChanged, this, &AuditView::reload);
    connect(m_since, &QComboBox::currentIndexChanged, this, &AuditView::reload);
    connect(m_model, &AuditModel::moreRequested, this, &AuditView::requestPage);
    connect(m_export, &QPushButton::clicked, this, &AuditView::openExportDialog);
    updateStatus();
}

AuditView::~AuditView() = default;

void AuditView::setConfig(const ReclaimConfig &config)
{
    if (m_thread) {
        AuditWorker *worker = m_thread->worker();
        QMetaObject::invokeMethod(
            worker, [worker, config] { worker->setConfig(config); }, Qt::QueuedConnection);
        reload();
        return;
    }
    m_thread = std::make_unique<AuditThread>(config);
    AuditWorker *worker = m_thread->worker();
    connect(worker, &AuditWorker::pageLoaded, this, &AuditView::showPage);
    connect(worker, &AuditWorker::exportFinished, this,
            [this](const QString &path, qint64 rows, const QString &error) {
                m_exporting = false;
                m_export->setEnabled(true);
                m_error = error.isEmpty()
                              ? QString()
                              : QStringLiteral("Export failed: %1").arg(redactSecrets(error));
                updateStatus();
                if (error.isEmpty())
                    m_status->setText(
                        QStringLiteral("Exported %1 audit rows to %2").arg(rows).arg(path));
                emit exportFinished(path, rows, error);
            });
    reload();
}

AuditFilter AuditView::filter() const
{
    AuditFilter f;
    f.rowId = m_job->text().trimmed();
    f.domain = m_domain->text().trimmed();
    f.actor = m_actor->text().trimmed();
    f.result = m_result->currentData().toString();
    if (const int seconds = m_since->currentData().toInt(); seconds > 0)
        f.from = QDateTime::currentDateTimeUtc().addSecs(-seconds);
    return f;
}

void AuditView::setFilter(const AuditFilter &f)
{
    const QSignalBlocker b1(m_result), b2(m_since);
    m_job->setText(f.rowId);
    m_domain->setText(f.domain);
    m_actor->setText(f.actor);
    m_result->setCurrentIndex(std::max(0, m_result->findData(f.result)));
    m_since->setCurrentIndex(0);
    reload();
}

void AuditView::setJobNote(const QString &html)
{
    m_note->setText(html);
    m_note->setVisible(!html.isEmpty());
}

QString AuditView::jobNote() const
{
    return m_note->isVisible() ? m_note->text() : QString();
}

void AuditView::focusJobField()
{
    m_job->setFocus(Qt::ShortcutFocusReason);
    m_job->selectAll();
}

void AuditView::reload()
{
    m_debounce.stop();
    m_shownFilter = filter();
    m_model->clear();
    m_error.clear();
    ++m_ticket; // answers to earlier requests are for another filter: dropped
    requestPage();
}

void AuditView::requestPage()
{
    if (!m_thread)
        return;
    m_model->setLoading(true);
    AuditWorker *worker = m_thread->worker();
    const AuditPageRequest request{m_shownFilter, m_model->lastId(), kPageSize};
    const int ticket = m_ticket;
    QMetaObject::invokeMethod(
        worker, [worker, ticket, request] { worker->loadPage(ticket, request); },
        Qt::QueuedConnection);
    updateStatus();
}

void AuditView::showPage(int ticket, const AuditPage &page, const QString &error)
{
    if (ticket != m_ticket)
        return;
    if (!error.isEmpty()) {
        m_model->setFailed(true);
        m_error = QStringLiteral("Could not read the audit trail: %1").arg(redactSecrets(error));
    } else {
        m_model->appendPage(page);
        ++m_pagesShown;
    }
    updateStatus();
    emit pageShown();
}

void AuditView::updateStatus()
{
    QString text;
    if (!m_error.isEmpty())
        text = m_error;
    else if (m_model->loading())
        text = m_model->rowCount() == 0 ? QStringLiteral("Loading the newest audit rows\u2026")
                                        : QStringLiteral("%1 rows shown; loading older ones\u2026")
                                              .arg(m_model->rowCount());
    else if (m_model->rowCount() == 0)
        text = QStringLiteral("No audit rows match.");
    else
        text = m_model->more()
                   ? QStringLiteral("%1 rows shown, newest first; scroll down for older ones.")
                         .arg(m_model->rowCount())
                   : QStringLiteral("All %1 matching rows shown, newest first.")
                         .arg(m_model->rowCount());
    if (m_exporting)
        text += QStringLiteral(" Exporting\u2026");
    m_status->setText(text);
    m_status->setStyleSheet(m_error.isEmpty() ? QString() : QStringLiteral("color: #b71c1c"));
}

QString AuditView::statusText() const
{
    return m_status->text();
}

bool AuditView::exportTo(const QString &path)
{
    if (!m_thread || m_exporting)
        return false;
    m_exporting = true;
    m_export->setEnabled(false);
    AuditWorker *worker = m_thread->worker();
    const AuditFilter f = m_shownFilter;
    QMetaObject::invokeMethod(
        worker, [worker, f, path] { worker->exportAll(f, path); }, Qt::QueuedConnection);
    updateStatus();
    return true;
}

void AuditView::openExportDialog()
{
    auto *dialog = new QFileDialog(this, QStringLiteral("Export the matching audit rows"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setNameFilters({QStringLiteral("CSV (*.csv)"), QStringLiteral("JSON (*.json)")});
    dialog->setDefaultSuffix(QStringLiteral("csv"));
    dialog->selectFile(
        QStringLiteral("reclaim-audit-%1.csv")
            .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
    connect(dialog, &QFileDialog::filterSelected, dialog, [dialog](const QString &filter) {
        dialog->setDefaultSuffix(filter.startsWith(QStringLiteral("JSON")) ? QStringLiteral("json")
                                                                           : QStringLiteral("csv"));
    });
    connect(dialog, &QFileDialog::fileSelected, this,
            [this](const QString &path) { exportTo(path); });
    dialog->open();
}

} // namespace reclaim::ui
