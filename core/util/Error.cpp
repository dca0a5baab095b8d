#include "util/Error.h"

namespace kosmos {

std::string_view errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidInput:
        return "invalid_input";
    case ErrorCode::NoLedger:
        return "no_ledger";
    case ErrorCode::NotALedger:
        return "not_a_ledger";
    case ErrorCode::NewerSchema:
        return "newer_schema";
    case ErrorCode::MigrationFailed:
        return "migration_failed";
    case ErrorCode::ReadOnly:
        return "read_only";
    case ErrorCode::NotFound:
        return "not_found";
    case ErrorCode::LeaseLost:
        return "lease_lost";
    case ErrorCode::Immutable:
        return "immutable";
    case ErrorCode::Io:
        return "io";
    case ErrorCode::Corrupt:
        return "corrupt";
    case ErrorCode::Database:
        return "database";
    case ErrorCode::RemoteError:
        return "remote_error";
    case ErrorCode::RemoteTimeout:
        return "remote_timeout";
    case ErrorCode::RemoteDisconnected:
        return "remote_disconnected";
    case ErrorCode::RemoteUnreachable:
        return "remote_unreachable";
    case ErrorCode::Busy:
        return "busy";
    case ErrorCode::Unavailable:
        return "unavailable";
    }
    return "unknown";
}

} // namespace kosmos
