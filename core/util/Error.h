#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace kosmos {

// Every failure Kosmos reports carries a stable code (for programs and exit statuses) and a
// message that names what was wrong and where (for people).
enum class ErrorCode
{
    InvalidInput,       // a caller passed something malformed; nothing was written
    NoLedger,           // there is no ledger at the given path
    NotALedger,         // the file is not a Kosmos ledger (or not SQLite at all)
    NewerSchema,        // made by a newer Kosmos; this build refuses to touch it
    MigrationFailed,    // an older ledger could not be migrated; the original is untouched
    ReadOnly,           // a write was attempted on a read-only ledger
    NotFound,           // a run, attempt, artifact ... does not exist
    LeaseLost,          // the lease expired and was taken over, or the attempt is finished
    Immutable,          // the database refused to change a finished record
    Io,                 // the file system failed
    Corrupt,            // stored content does not match its hash or its rules
    Database,           // any other SQLite failure
    RemoteError,        // a served model answered with an error (traceback, HTTP status, "error")
    RemoteTimeout,      // a served model did not answer in time
    RemoteDisconnected, // the connection to a served model closed before it answered
    RemoteUnreachable,  // a served model could not be reached at all
    Busy,               // another live process holds what was asked for (a run, an import)
    Unavailable,        // this build or installation lacks what was asked for (a module)
};

std::string_view errorCodeName(ErrorCode code);

class Error : public std::runtime_error
{
public:
    Error(ErrorCode code, const std::string &message) : std::runtime_error(message), m_code(code) {}
    ErrorCode code() const { return m_code; }

private:
    ErrorCode m_code;
};

} // namespace kosmos
