// PgWatchdog on a local socket pair: a read blocked past the deadline returns because the
// watchdog shut the socket down; a call that came back in time is left alone.
#include "postgres/pgwatchdog.h"

#include <QTest>
#include <sys/socket.h>
#include <unistd.h>

using namespace reclaim;

class TestPgWatchdog : public QObject
{
    Q_OBJECT
private slots:
    void aBlockedReadIsEndedAtTheDeadline()
    {
        int fds[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
        PgWatchdog watchdog;
        watchdog.arm(fds[0], std::chrono::milliseconds(100));
        char byte = 0;
        // Nobody writes to fds[1]: without the watchdog this read never returns.
        const ssize_t n = ::recv(fds[0], &byte, 1, 0);
        QCOMPARE(n, ssize_t(0));
        QVERIFY(watchdog.disarm());
        ::close(fds[0]);
        ::close(fds[1]);
    }

    void aCallThatCameBackInTimeIsLeftAlone()
    {
        int fds[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
        PgWatchdog watchdog;
        watchdog.arm(fds[0], std::chrono::milliseconds(200));
        QCOMPARE(::send(fds[1], "x", 1, 0), ssize_t(1));
        char byte = 0;
        QCOMPARE(::recv(fds[0], &byte, 1, 0), ssize_t(1));
        QVERIFY(!watchdog.disarm());
        // A later call with a longer deadline is ended by the watchdog: by then the first
        // call's deadline has long passed, and its socket must still work.
        int later[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, later), 0);
        watchdog.arm(later[0], std::chrono::milliseconds(400));
        QCOMPARE(::recv(later[0], &byte, 1, 0), ssize_t(0));
        QVERIFY(watchdog.disarm());
        QCOMPARE(::send(fds[1], "y", 1, 0), ssize_t(1));
        QCOMPARE(::recv(fds[0], &byte, 1, 0), ssize_t(1));
        QCOMPARE(byte, 'y');
        for (int fd : {fds[0], fds[1], later[0], later[1]})
            ::close(fd);
    }
};

QTEST_GUILESS_MAIN(TestPgWatchdog)
#include "test_pgwatchdog.moc"
