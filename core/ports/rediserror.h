// Typed failures of talking to Redis, as the queue and lock ports report them: each one means
// "could not look", never "nothing there".
#pragma once

#include <QString>

namespace reclaim {

struct RedisError
{
    enum class Kind
    {
        Connect,      // could not reach the server
        Timeout,      // the server did not answer within the configured time
        Io,           // the connection broke mid-conversation
        Closed,       // the connection had already failed and was discarded
        Protocol,     // the reply could not be parsed
        Server,       // the server answered with an error reply
        NoScript,     // EVALSHA of a script the server does not have (restart, SCRIPT FLUSH)
        Reply,        // the reply had a shape the caller did not expect
        Moving,       // a structure changed faster than it could be read to its end
        Layout,       // the data is laid out in a way the caller does not know (a newer BullMQ)
        Tls,          // the TLS handshake or session failed: certificate, host name, protocol
        Auth,         // the server refused the user name and password (or asked for them)
        NoPermission, // the ACL user may not run this command or touch these keys (NOPERM)
        Unanswered,   // the command was sent but its reply never came: it may or may not have run
        Unroutable,   // never sent: in a cluster its keys span slots, or no node can be chosen
        Redirected,   // a cluster kept redirecting the command past its budget: it did not run
    };

    Kind kind = Kind::Io;
    QString message;

    QString describe() const;
    static QString kindName(Kind kind);
    // A reply whose shape the caller (a script or command named by `what`) did not expect.
    static RedisError unexpectedReply(const QString &what);
};

} // namespace reclaim
