// The connection dialog's "Check connection" against the sandbox: the click returns at once (the
// check runs on a thread of its own, the UI thread never waits), the items then appear in the
// list with a status and an icon each, and an unreachable Redis lists failures, not passes.
#include "connectiondialog.h"
#include "service/checkrunner.h"
#include "support/clusterfixture.h"
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
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

    // #32 step 4: the dialog offers the cluster form. Seed nodes typed bare become a
    // redis+cluster:// URL when Cluster is picked, the example follows the form, and the check
    // reads the cluster: the slot map and where the domain's queue lives.
    void theClusterFormIsOfferedAndChecked()
    {
        if (m_env.clusterUrl.isEmpty())
            QSKIP("no cluster in this sandbox (tools/sandbox start --cluster)");
        flushCluster(m_env);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cluster.json"));
        QVERIFY(
            writeConfig(path, clusterDomainConfig(m_env, m_env.redisUrl, QStringLiteral("{bull}"),
                                                  QStringLiteral("image-render"),
                                                  QStringLiteral("{bull}:lock:job-recovery"))));
        ConnectionProfile profile;
        profile.configPath = path;
        ConnectionDialog dialog(profile, nullptr, m_env.processEnvironment());
        auto *url = dialog.findChild<QLineEdit *>(QStringLiteral("redisUrl"));
        auto *form = dialog.findChild<QComboBox *>(QStringLiteral("redisForm"));
        auto *hint = dialog.findChild<QLabel *>(QStringLiteral("redisFormHint"));
        auto *button = dialog.findChild<QPushButton *>(QStringLiteral("checkConnection"));
        auto *list = dialog.findChild<QListWidget *>(QStringLiteral("checkItems"));
        QVERIFY(url && form && hint && button && list);
        QCOMPARE(form->currentText(), QStringLiteral("Single node"));
        QStringList seeds;
        for (int port : m_env.clusterPorts.mid(0, 2))
            seeds << QStringLiteral("127.0.0.1:%1").arg(port);
        url->setText(seeds.join(QLatin1Char(',')));
        form->setCurrentIndex(form->findText(QStringLiteral("Cluster")));
        emit form->activated(form->currentIndex());
        QCOMPARE(url->text(), QStringLiteral("redis+cluster://") + seeds.join(QLatin1Char(',')));
        QVERIFY2(hint->text().contains(QLatin1String("redis+cluster://")),
                 qPrintable(hint->text()));
        QCOMPARE(dialog.profile().redisUrl, url->text());
        // Typing another form's URL moves the selector.
        url->setText(QStringLiteral("redis://127.0.0.1:1/0"));
        QCOMPARE(form->currentText(), QStringLiteral("Single node"));
        url->setText(QStringLiteral("redis+cluster://") + seeds.join(QLatin1Char(',')));
        QCOMPARE(form->currentText(), QStringLiteral("Cluster"));

        button->click();
        QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled() && list->count() > 0, 20000);
        QHash<QString, QString> status;
        QHash<QString, QString> text;
        for (int i = 0; i < list->count(); ++i) {
            const QListWidgetItem *item = list->item(i);
            status.insert(item->data(Qt::UserRole).toString(),
                          item->data(Qt::UserRole + 1).toString());
            text.insert(item->data(Qt::UserRole).toString(), item->text());
        }
        for (const QString &id :
             {QStringLiteral("redis.cluster"), QStringLiteral("redis.commands"),
              QStringLiteral("redis.slot.image"), QStringLiteral("redis.slot.lock")})
            QVERIFY2(status.value(id) == QLatin1String("pass"), qPrintable(id + text.value(id)));
        QVERIFY2(text.value(QStringLiteral("redis.cluster")).contains(QLatin1String("3 masters")),
                 qPrintable(text.value(QStringLiteral("redis.cluster"))));
        dialog.resize(900, 760);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QDir().mkpath(QStringLiteral(RECLAIM_BINARY_DIR "/screenshots"));
        QVERIFY(dialog.grab().save(
            QStringLiteral(RECLAIM_BINARY_DIR "/screenshots/check-dialog-cluster.png"), "PNG"));
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
