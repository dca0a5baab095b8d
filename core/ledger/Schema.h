#pragma once

#include <string_view>
#include <vector>

namespace kosmos {

// One forward migration: the SQL that takes a ledger from toVersion - 1 to toVersion.
struct Migration
{
    int toVersion = 0;
    std::string_view sql;
};

// A schema: how to create it at `version`, and how to reach it from older versions.
struct SchemaSpec
{
    int version = 0;
    std::string_view createSql;
    std::vector<Migration> migrations;
};

// This build's schema (core/ledger/schema.sql and its migrations).
const SchemaSpec &currentSchema();

// 0x4B4F534D, "KOSM", written to PRAGMA application_id.
inline constexpr int kLedgerApplicationId = 1263489869;

// Triggers the schema defines; verify reports any that is missing (a hand-edited ledger).
std::vector<std::string_view> requiredTriggers();

// The views the schema defines (what a run's rows mean), with their text as SQLite keeps it in
// sqlite_master; verify reports a missing or changed one (a hand-edited ledger).
struct SchemaView
{
    std::string_view name;
    std::string_view sql;
};
std::vector<SchemaView> requiredViews();

} // namespace kosmos
