#pragma once

// The ledger's SQL connection, for core's typed readers only (queries/, evaluation/, media/,
// verify/, scaleout/, pipeline/) and the tests. Everything else reads and writes through Ledger's
// typed methods and the typed queries in core/queries; the include check
// (tests/tools/check_includes.sh) refuses this header in app/, ui/, adapters/ and bench/.
// What a row means is defined once, in the schema's views (core/ledger/schema.sql, "Views").

#include "ledger/Ledger.h"
#include "ledger/SqliteDb.h"

namespace kosmos {

class LedgerSql
{
public:
    static sqlite::Database &of(Ledger &ledger) { return ledger.m_db; }
};

} // namespace kosmos
