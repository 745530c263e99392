// Packaging: `cmake --install` into a DESTDIR and the .deb from `cpack` both hold the binary,
// the sample configuration, the desktop entry, the icon and a hardened systemd unit; the .deb
// depends on Debian's runtime packages; and the installed binary runs against the sandbox.
#include "support/refapp.h"
#include "support/sandboxenv.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace reclaim::test;

namespace {

struct Ran
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Ran run(const QString &program, const QStringList &args,
        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
        int timeoutMs = 300000)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    Ran r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

const QStringList kFiles{
    QStringLiteral("usr/bin/reclaim"),
    QStringLiteral("usr/share/reclaim/reclaim.sample.json"),
    QStringLiteral("usr/share/reclaim/reclaim.env.example"),
    QStringLiteral("usr/share/reclaim/reclaim-alerts.yml"),
    QStringLiteral("usr/share/applications/reclaim.desktop"),
    QStringLiteral("usr/share/icons/hicolor/scalable/apps/reclaim.svg"),
    QStringLiteral("usr/lib/systemd/system/reclaim.service"),
};

} // namespace

class TestPackaging : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void installTree();
    void debianPackage();

private:
    // Checks the laid-out files under `root` and runs its binary against the sandbox.
    void checkTree(const QString &root);

    SandboxEnv m_env;
};

void TestPackaging::initTestCase()
{
    m_env = SandboxEnv::load();
    if (m_env.pgUrl.isEmpty())
        RECLAIM_SKIP_WITHOUT_SANDBOX("no sandbox (run through ctest -L integration)");
    resetSandbox(m_env);
    migrate(m_env);
}

void TestPackaging::checkTree(const QString &root)
{
    for (const QString &file : kFiles)
        QVERIFY2(QFileInfo::exists(root + QLatin1Char('/') + file), qPrintable(file));
    QVERIFY(QFileInfo(root + QStringLiteral("/usr/bin/reclaim")).isExecutable());

    // The systemd unit: the daemon from /usr/bin, the configuration from /etc/reclaim, hardened.
    const QString unit = QString::fromUtf8(
        readAll(root + QStringLiteral("/usr/lib/systemd/system/reclaim.service")));
    for (const char *line :
         {"ExecStart=/usr/bin/reclaim --daemon --config /etc/reclaim/reclaim.json",
          "EnvironmentFile=-/etc/reclaim/reclaim.env", "DynamicUser=yes", "ProtectSystem=strict",
          "ProtectHome=yes", "NoNewPrivileges=yes", "PrivateTmp=yes", "Restart=on-failure",
          "RestartSec=", "WantedBy=multi-user.target"})
        QVERIFY2(unit.contains(QLatin1String(line)), line);
    // systemd's own parser accepts every key (the unit is pointed at the binary under test).
    const QString systemdAnalyze =
        QStandardPaths::findExecutable(QStringLiteral("systemd-analyze"));
    if (!systemdAnalyze.isEmpty()) {
        QTemporaryDir unitDir;
        QFile copy(unitDir.filePath(QStringLiteral("reclaim.service")));
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(QString(unit)
                       .replace(QStringLiteral("/usr/bin/reclaim"),
                                root + QStringLiteral("/usr/bin/reclaim"))
                       .toUtf8());
        copy.close();
        const Ran verify = run(systemdAnalyze, {QStringLiteral("verify"), copy.fileName()});
        QVERIFY2(!verify.err.contains("Unknown key") && !verify.err.contains("nvalid") &&
                     !verify.err.contains("reclaim.service:"),
                 verify.err.constData());
    }

    // The desktop entry starts the console and names the icon that is installed.
    const QString desktop = QString::fromUtf8(
        readAll(root + QStringLiteral("/usr/share/applications/reclaim.desktop")));
    QVERIFY(desktop.startsWith(QLatin1String("[Desktop Entry]")));
    QVERIFY(desktop.contains(QLatin1String("\nExec=reclaim")));
    QVERIFY(desktop.contains(QLatin1String("\nIcon=reclaim\n")));
    QVERIFY(desktop.contains(QLatin1String("\nType=Application\n")));
    const QString validator =
        QStandardPaths::findExecutable(QStringLiteral("desktop-file-validate"));
    if (!validator.isEmpty()) {
        const Ran v =
            run(validator, {root + QStringLiteral("/usr/share/applications/reclaim.desktop")});
        QVERIFY2(v.exitCode == 0, (v.out + v.err).constData());
    }
    // The icon is well-formed SVG.
    QXmlStreamReader svg(
        readAll(root + QStringLiteral("/usr/share/icons/hicolor/scalable/apps/reclaim.svg")));
    QVERIFY(svg.readNextStartElement());
    QCOMPARE(svg.name(), QStringLiteral("svg"));
    while (!svg.atEnd())
        svg.readNext();
    QVERIFY2(!svg.hasError(), qPrintable(svg.errorString()));

    // The installed binary runs: --version, then a dry run with the installed sample against the
    // sandbox.
    const QString binary = root + QStringLiteral("/usr/bin/reclaim");
    QProcessEnvironment env = m_env.processEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"),
               QStringLiteral("no-such-platform")); // headless modes need no GUI
    const Ran version = run(binary, {QStringLiteral("--version")}, env);
    QCOMPARE(version.exitCode, 0);
    QCOMPARE(version.out.trimmed(), QByteArray("reclaim " RECLAIM_VERSION));
    const Ran once = run(binary,
                         {QStringLiteral("--once"), QStringLiteral("--dry-run"),
                          QStringLiteral("--json"), QStringLiteral("--config"),
                          root + QStringLiteral("/usr/share/reclaim/reclaim.sample.json")},
                         env, 60000);
    QVERIFY2(once.exitCode == 0, once.err.constData());
    const QJsonObject report = QJsonDocument::fromJson(once.out).object();
    QCOMPARE(report.value(QStringLiteral("outcome")).toString(), QStringLiteral("completed"));
    QCOMPARE(report.value(QStringLiteral("dryRun")).toBool(), true);
    QCOMPARE(report.value(QStringLiteral("domains")).toArray().size(), 5);
}

void TestPackaging::installTree()
{
    QTemporaryDir destdir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DESTDIR"), destdir.path());
    const Ran install = run(QStringLiteral(RECLAIM_CMAKE),
                            {QStringLiteral("--install"), QStringLiteral(RECLAIM_BINARY_DIR),
                             QStringLiteral("--prefix"), QStringLiteral("/usr")},
                            env);
    QVERIFY2(install.exitCode == 0, (install.out + install.err).constData());
    checkTree(destdir.path());
}

void TestPackaging::debianPackage()
{
    const QString dpkgDeb = QStandardPaths::findExecutable(QStringLiteral("dpkg-deb"));
    if (dpkgDeb.isEmpty())
        QSKIP("dpkg-deb is not installed");
    QTemporaryDir out;
    const Ran cpack =
        run(QStringLiteral(RECLAIM_CPACK),
            {QStringLiteral("--config"), QStringLiteral(RECLAIM_BINARY_DIR "/CPackConfig.cmake"),
             QStringLiteral("-B"), out.path()});
    QVERIFY2(cpack.exitCode == 0, (cpack.out + cpack.err).constData());
    const QStringList debs =
        QDir(out.path()).entryList({QStringLiteral("reclaim_*.deb")}, QDir::Files);
    QCOMPARE(debs.size(), 1);
    const QString deb = out.filePath(debs.first());
    QVERIFY2(debs.first().startsWith(QStringLiteral("reclaim_" RECLAIM_VERSION "_")),
             qPrintable(debs.first()));

    // Depends: Debian's runtime packages, including the plugin no linker sees.
    const Ran depends = run(dpkgDeb, {QStringLiteral("-f"), deb, QStringLiteral("Depends")});
    QCOMPARE(depends.exitCode, 0);
    const QString dependsLine = QString::fromUtf8(depends.out);
    // (libspdlog1.10's shlibs file asks for the name it provides, libspdlog1.10-fmt9.)
    for (const char *package : {"libqt6core6", "libqt6sql6", "libqt6sql6-psql", "libqt6network6",
                                "libqt6gui6", "libqt6widgets6", "libqt6charts6",
                                "libqt6httpserver6", "libhiredis0.14", "libspdlog1.10(-fmt9)?"})
        QVERIFY2(dependsLine.contains(QRegularExpression(
                     QStringLiteral("(^|[ ,])%1([ ,(]|$)").arg(QLatin1String(package)))),
                 qPrintable(QStringLiteral("%1 missing from Depends: %2")
                                .arg(QLatin1String(package), dependsLine)));
    QCOMPARE(
        QString::fromUtf8(run(dpkgDeb, {QStringLiteral("-f"), deb, QStringLiteral("Package")}).out)
            .trimmed(),
        QStringLiteral("reclaim"));

    const QTemporaryDir root;
    const Ran extract = run(dpkgDeb, {QStringLiteral("-x"), deb, root.path()});
    QVERIFY2(extract.exitCode == 0, extract.err.constData());
    checkTree(root.path());
}

QTEST_GUILESS_MAIN(TestPackaging)
#include "test_packaging.moc"
