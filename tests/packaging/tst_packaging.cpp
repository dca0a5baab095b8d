// Packaging (docs/packaging.md): the install layout the programs rely on, and the desktop
// integration files. The Debian packages themselves are checked by
// tests/packaging/install-test.sh in a clean Debian 12 root.
#include "ledger/Ledger.h"
#include "util/InstallPaths.h"

#include "TestSupport.h"

#include <QMimeDatabase>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <unistd.h>

using namespace kosmos;
using kosmos::test::runProcess;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Runs a shell command line in `folder`; stdout and the exit code.
test::ProcessResult runIn(const fs::path &folder, const std::string &command)
{
    return runProcess({"/bin/sh", "-c", "cd '" + folder.string() + "' && " + command + " 2>&1"});
}

} // namespace

TEST(InstallPaths, RelativeDataIsTakenFromTheCurrentFolderThenFromTheInstall)
{
    // This test program is <build>/tests/tst_packaging: its installed data folder is
    // <build>/share/kosmos, where the build puts the translations as an install would.
    const fs::path data = installedDataDirectory();
    EXPECT_EQ(data,
              (executablePath().parent_path() / ".." / "share" / "kosmos").lexically_normal());
    TempDir dir;
    const std::string name = "install-paths-test-" + std::to_string(::getpid());
    fs::create_directories(data / name);
    const fs::path cwd = fs::current_path();
    fs::current_path(dir.path());
    EXPECT_EQ(resolveInstalledData(name), data / name) << "not here: taken from the install";
    fs::create_directories(dir / name);
    EXPECT_EQ(resolveInstalledData(name), fs::path(name)) << "here: the current folder wins";
    EXPECT_EQ(resolveInstalledData("no-such-thing"), fs::path("no-such-thing"))
        << "nowhere: unchanged, so the caller's error names what was asked for";
    EXPECT_EQ(resolveInstalledData("/abs/" + name), fs::path("/abs/" + name));
    fs::current_path(cwd);
    fs::remove_all(data / name);
}

TEST(Install, AnInstalledTreeFindsItsPluginsVerbsAndShippedModels)
{
    // `cmake --install` into a fresh prefix, then the installed programs, run from elsewhere,
    // with no environment variables pointing anywhere.
    TempDir prefix;
    std::string install = std::string("'") + KOSMOS_CMAKE_COMMAND + "' --install '" +
                          KOSMOS_BINARY_DIR + "' --prefix '" + prefix.path().string() +
                          "' --component kosmos";
    if (KOSMOS_HAVE_TORCH)
        install += " && '" + std::string(KOSMOS_CMAKE_COMMAND) + "' --install '" +
                   KOSMOS_BINARY_DIR + "' --prefix '" + prefix.path().string() +
                   "' --component torch";
    const auto installed = runIn(prefix.path(), install + " > /dev/null");
    ASSERT_EQ(installed.exitCode, 0) << installed.output;
    const fs::path cli = prefix / "bin/kosmos-cli";
    ASSERT_TRUE(fs::exists(cli));
    EXPECT_TRUE(fs::exists(prefix / "bin/kosmos"));
    EXPECT_TRUE(fs::exists(prefix.path() / KOSMOS_PKGLIBDIR / "plugins"));
    EXPECT_TRUE(fs::exists(prefix / "share/kosmos/examples/tabletop-demo.json"));
    EXPECT_TRUE(fs::exists(prefix / "share/kosmos/python/kosmos_world/server.py"));
    EXPECT_TRUE(
        fs::exists(prefix / "share/applications/io.github.kosmos_workstation.Kosmos.desktop"));
    EXPECT_TRUE(fs::exists(prefix / "share/mime/packages/io.github.kosmos_workstation.Kosmos.xml"));

    TempDir elsewhere;
    ::unsetenv("KOSMOS_PLUGIN_PATH");
    // The front loads the verbs library from lib/<multiarch>/kosmos: `plugins` is a full verb.
    const auto listed = runIn(elsewhere.path(), "'" + cli.string() + "' plugins --json");
    ASSERT_EQ(listed.exitCode, 0) << listed.output;
    const auto plugins = nlohmann::json::parse(listed.output.substr(listed.output.find('[')));
    int synthetic = 0;
    for (const auto &p : plugins) {
        EXPECT_EQ(p["path"].get<std::string>().rfind(prefix.path().string(), 0), 0u)
            << p["path"] << " is not from the installed tree";
        if (p["id"].get<std::string>().rfind("synthetic.", 0) == 0 && p["available"].get<bool>())
            ++synthetic;
    }
    EXPECT_EQ(synthetic, 3) << listed.output;

    const auto demo =
        runIn(elsewhere.path(), "'" + cli.string() + "' demo --ledger d.kosmos > /dev/null && '" +
                                    cli.string() + "' verify d.kosmos");
    EXPECT_EQ(demo.exitCode, 0) << demo.output;

    // LeRobot datasets: without kosmos-datasets the installed CLI says why it cannot read one;
    // with it (the module and Arrow's libraries beside it, found through $ORIGIN), it reads one.
    const std::string dataset =
        (fs::path(KOSMOS_SOURCE_DIR) / "tests/fixtures/lerobot/pusht-h264").string();
    const auto without =
        runIn(elsewhere.path(), "'" + cli.string() + "' dataset inspect '" + dataset + "' 2>&1");
    EXPECT_NE(without.exitCode, 0);
    EXPECT_NE(without.output.find("error [unavailable]"), std::string::npos) << without.output;
    EXPECT_NE(without.output.find("kosmos-datasets"), std::string::npos) << without.output;
    if (KOSMOS_HAVE_ARROW) {
        const auto added =
            runIn(prefix.path(), std::string("'") + KOSMOS_CMAKE_COMMAND + "' --install '" +
                                     KOSMOS_BINARY_DIR + "' --prefix '" + prefix.path().string() +
                                     "' --component datasets > /dev/null");
        ASSERT_EQ(added.exitCode, 0) << added.output;
        const auto with =
            runIn(elsewhere.path(), "'" + cli.string() + "' dataset inspect '" + dataset + "'");
        EXPECT_EQ(with.exitCode, 0) << with.output;
        EXPECT_NE(with.output.find("3 episodes, 72 frames"), std::string::npos) << with.output;
    }

    if (KOSMOS_HAVE_TORCH) {
        // A relative package path: not in the current folder, so from share/kosmos/models.
        const auto tested =
            runIn(elsewhere.path(), "'" + cli.string() +
                                        "' plugins --test torch.generic_world_model "
                                        "--settings '{\"package\": "
                                        "\"models/world\"}'");
        EXPECT_EQ(tested.exitCode, 0) << tested.output;
        const auto missing =
            runIn(elsewhere.path(), "'" + cli.string() +
                                        "' plugins --test torch.generic_world_model "
                                        "--settings '{\"package\": "
                                        "\"models/no-such-model\"}'");
        EXPECT_NE(missing.exitCode, 0);
        EXPECT_NE(missing.output.find("looked in the current folder and in " +
                                      (prefix / "share/kosmos").string()),
                  std::string::npos)
            << missing.output;
    }
}

TEST(DesktopIntegration, ALedgerIsTypedByItsApplicationIdAndOtherSqliteFilesAreNot)
{
    // The MIME package as installed: beside shared-mime-info's own database in one folder,
    // compiled into one mime.cache by update-mime-database (as the package's trigger does), read
    // by Qt's QMimeDatabase (what KDE's file managers use). One cache matters: Qt does not weigh
    // magic priorities across two caches, so a separate folder would lose to /usr/share's
    // application/vnd.sqlite3 where the installed system's merged cache does not.
    TempDir dir;
    const fs::path mime = dir / "share/mime";
    fs::create_directories(mime / "packages");
    fs::create_directories(dir / "home");
    ASSERT_TRUE(fs::exists("/usr/share/mime/packages/freedesktop.org.xml"))
        << "shared-mime-info is not installed (scripts/setup-debian.sh)";
    fs::copy_file("/usr/share/mime/packages/freedesktop.org.xml",
                  mime / "packages/freedesktop.org.xml");
    fs::copy_file(fs::path(KOSMOS_SOURCE_DIR) /
                      "packaging/linux/io.github.kosmos_workstation.Kosmos.mime.xml",
                  mime / "packages/io.github.kosmos_workstation.Kosmos.xml");
    const auto updated =
        runProcess({"/bin/sh", "-c",
                    "update-mime-database '" + mime.string() +
                        "' 2>&1 || echo "
                        "'update-mime-database failed (shared-mime-info installed?)'"});
    ASSERT_TRUE(fs::exists(mime / "mime.cache")) << updated.output;
    ::setenv("XDG_DATA_DIRS", (dir / "share").c_str(), 1);
    ::setenv("XDG_DATA_HOME", (dir / "home").c_str(), 1);

    const fs::path bundle = dir / "l.kosmos";
    {
        Ledger::create(bundle);
    }
    // An SQLite file with another application id, and one with none.
    const fs::path other = dir / "other.sqlite";
    sqlite3 *db = nullptr;
    ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA application_id = 1234; CREATE TABLE t(x);", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    // A text file that carries KOSM at byte 68 but is not SQLite.
    const fs::path text = dir / "notes.txt";
    std::ofstream(text) << std::string(68, 'x') << "KOSM and more text\n";

    const QMimeDatabase mimes;
    const QString ledgerType =
        mimes.mimeTypeForFile(QString::fromStdString((bundle / "ledger.sqlite").string())).name();
    EXPECT_EQ(ledgerType.toStdString(), "application/x-kosmos-ledger");
    EXPECT_TRUE(mimes.mimeTypeForName(QStringLiteral("application/x-kosmos-ledger"))
                    .inherits(QStringLiteral("application/vnd.sqlite3")));
    // The content alone (a copy under another name; GIO reads it for ledger.sqlite too).
    const fs::path copy = dir / "ledger-copy";
    fs::copy_file(bundle / "ledger.sqlite", copy);
    EXPECT_EQ(mimes.mimeTypeForFile(QString::fromStdString(copy.string())).name().toStdString(),
              "application/x-kosmos-ledger");
    EXPECT_EQ(mimes.mimeTypeForFile(QString::fromStdString(other.string())).name().toStdString(),
              "application/vnd.sqlite3");
    EXPECT_NE(mimes.mimeTypeForFile(QString::fromStdString(text.string())).name().toStdString(),
              "application/x-kosmos-ledger");
}
