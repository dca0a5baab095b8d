#pragma once

#include <cstdint>
#include <string>

// Exit codes of kosmos-cli (also printed by `kosmos-cli --help`).
namespace ExitCode {
constexpr int Ok = 0;            // success; verify: the ledger is clean
constexpr int ProblemsFound = 1; // verify: problems were found (each is listed)
constexpr int Usage = 2;         // bad command line
constexpr int CannotOpen = 3;    // no ledger there, not a ledger, newer schema, migration failed
constexpr int Failed = 4;        // anything else went wrong (I/O, database, invalid input)
constexpr int Interrupted = 130; // events --follow stopped by Ctrl-C / SIGTERM
} // namespace ExitCode

int runInit(const std::string &bundle);
int runInfo(const std::string &bundle, bool json);
int runVerify(const std::string &bundle, bool json);
int runEvents(const std::string &bundle, const std::string &run, bool follow, bool json,
              int pollIntervalMs);
