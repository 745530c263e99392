// The connection dialog's "Check connection" against the sandbox: the click returns at once (the
// check runs on a thread of its own, the UI thread never waits), the items then appear in the
// list with a status and an icon each, and an unreachable Redis lists failures, not passes.
#include "connectiondialog.h"
#include "service/checkrunner.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using namespace reclaim;
using namespace reclaim::test;
using namespace reclaim::ui;

class TestUiCheckDialog : public QObject
{
    Q_OBJECT
private:
    SandboxEnv m_env;

    static ConnectionProfile sampleProfile()
    {
        ConnectionProfile p;
        p.configPath = QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json");
        return p;
    }

private slots:
    void initTestCase()
    {
        m_env = SandboxEnv::load();
        if (m_env.pgUrl.isEmpty())
            RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest, which starts one)");
        resetSandbox(m_env);
        migrate(m_env);
    }

    void checkRunsOffTheUiThreadAndListsItems()
    {
        ConnectionDialog dialog(sampleProfile(), nullptr, m_env.processEnvironment());
        auto *button = dialog.findChild<QPushButton *>(QStringLiteral("checkConnection"));
        auto *list = dialog.findChild<QListWidget *>(QStringLiteral("checkItems"));
        auto *status = dialog.findChild<QLabel *>(QStringLiteral("checkStatus"));
        QVERIFY(button && list && status);
        button->click();
        // Back from the click before any item exists: the check did not run on this thread.
        QCOMPARE(list->count(), 0);
        QVERIFY(!button->isEnabled());
        QVERIFY(status->text().startsWith(QLatin1String("Checking")));
        QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled(), 20000);
        QVERIFY(list->count() > 10);
        QStringList ids;
        for (int i = 0; i < list->count(); ++i) {
            const QListWidgetItem *item = list->item(i);
            ids << item->data(Qt::UserRole).toString();
            QVERIFY(!item->icon().isNull());
            const QString s = item->data(Qt::UserRole + 1).toString();
            QVERIFY2(s == QLatin1String("pass") || s == QLatin1String("warn") ||
                         s == QLatin1String("fail"),
                     qPrintable(s));
            QVERIFY(item->text().startsWith(s.toUpper()));
        }
        QVERIFY(ids.contains(QStringLiteral("redis.maxmemory-policy")));
        QVERIFY(ids.contains(QStringLiteral("postgres.index.video")));
        QVERIFY2(!status->text().startsWith(QLatin1String("FAIL")), qPrintable(status->text()));
        // For people to look at: the dialog with the check's items.
        dialog.resize(900, 700);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QDir().mkpath(QStringLiteral(RECLAIM_BINARY_DIR "/screenshots"));
        QVERIFY(dialog.grab().save(
            QStringLiteral(RECLAIM_BINARY_DIR "/screenshots/check-dialog.png"), "PNG"));
    }

    void anUnreachableRedisListsFailures()
    {
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        const quint16 port = closed.serverPort();
        closed.close();
        ConnectionProfile profile = sampleProfile();
        profile.redisUrl = QStringLiteral("redis://127.0.0.1:%1/0").arg(port);
        ConnectionDialog dialog(profile, nullptr, m_env.processEnvironment());
        auto *button = dialog.findChild<QPushButton *>(QStringLiteral("checkConnection"));
        auto *list = dialog.findChild<QListWidget *>(QStringLiteral("checkItems"));
        button->click();
        QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled() && list->count() > 0, 20000);
        int redisItems = 0;
        for (int i = 0; i < list->count(); ++i) {
            const QListWidgetItem *item = list->item(i);
            if (!item->data(Qt::UserRole).toString().startsWith(QLatin1String("redis.")))
                continue;
            ++redisItems;
            QCOMPARE(item->data(Qt::UserRole + 1).toString(), QStringLiteral("fail"));
        }
        QVERIFY(redisItems >= 5);
    }

    // #31 item 8: closing the dialog while its check waits on a Redis that accepts and never
    // answers (here with a 10 s timeout) does not wait for the check: the window is back at
    // once, and the check's thread ends on its own.
    void closingDuringASlowCheckDoesNotWait()
    {
        QTcpServer silent; // listens, never accepts, never answers: the kernel completes connects
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        QFile sample(QStringLiteral(RECLAIM_SOURCE_DIR "/resources/reclaim.sample.json"));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        QJsonObject root = QJsonDocument::fromJson(sample.readAll()).object();
        QJsonObject run = root.value(QStringLiteral("run")).toObject();
        run.insert(QStringLiteral("redisTimeoutMs"), 10000);
        root.insert(QStringLiteral("run"), run);
        QTemporaryDir dir;
        QFile config(dir.filePath(QStringLiteral("slow.json")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QJsonDocument(root).toJson());
        config.close();
        ConnectionProfile profile;
        profile.configPath = config.fileName();
        profile.redisUrl = QStringLiteral("redis://127.0.0.1:%1/0").arg(silent.serverPort());
        auto dialog =
            std::make_unique<ConnectionDialog>(profile, nullptr, m_env.processEnvironment());
        auto *button = dialog->findChild<QPushButton *>(QStringLiteral("checkConnection"));
        QVERIFY(button);
        button->click();
        QTest::qWait(300); // the check is now waiting on the silent server
        QVERIFY(!button->isEnabled());
        QElapsedTimer closing;
        closing.start();
        dialog.reset();
        QVERIFY2(closing.elapsed() < 3000,
                 qPrintable(QStringLiteral("closing took %1 ms").arg(closing.elapsed())));
        silent.close(); // the connects still queued are reset: the orphaned check ends soon
        CheckRunner::waitForOrphans(); // as the console's CheckThreadsJoin does at exit
    }
};

QTEST_MAIN(TestUiCheckDialog)
#include "test_ui_checkdialog.moc"
