// The model packages offered by name in the launcher: found from their manifests alone, in the
// installed (or build tree's) models folder and KOSMOS_MODEL_PATH; broken ones left out.
#include "util/ModelPackages.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {
void writeManifest(const fs::path &folder, const std::string &text)
{
    fs::create_directories(folder);
    std::ofstream(folder / "kosmos-model.json") << text;
}
} // namespace

TEST(ModelPackages, ListsPackagesByNameWithThePluginThatRunsThemAndSkipsBrokenOnes)
{
    test::TempDir dir;
    writeManifest(dir / "b-policy", R"({"kosmos_model": 1, "family": "generic_policy",
                                        "description": "a policy"})");
    writeManifest(dir / "a-judge", R"({"kosmos_model": 1, "family": "generic_judge"})");
    writeManifest(dir / "broken", "{\"family\": ");
    writeManifest(dir / "no-family", R"({"kosmos_model": 1})");
    fs::create_directories(dir / "empty-folder");
    std::ofstream(dir / "loose-file.json") << "{}";

    const auto found = findModelPackages({dir.path(), dir / "missing-folder"});
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].name, "a-judge");
    EXPECT_EQ(found[0].pluginId, "torch.generic_judge");
    EXPECT_EQ(found[1].name, "b-policy");
    EXPECT_EQ(found[1].pluginId, "torch.generic_policy");
    EXPECT_EQ(found[1].description, "a policy");
    EXPECT_TRUE(found[1].folder.is_absolute());
}

TEST(ModelPackages, SearchesTheInstalledFolderThenTheEnvironment)
{
    ::setenv("KOSMOS_MODEL_PATH", "/first:/second::", 1);
    const auto folders = modelPackageFolders();
    ::unsetenv("KOSMOS_MODEL_PATH");
    ASSERT_EQ(folders.size(), 3u);
    EXPECT_EQ(folders[0].filename(), "models");
    EXPECT_EQ(folders[0].parent_path().filename(), "kosmos");
    EXPECT_EQ(folders[1], "/first");
    EXPECT_EQ(folders[2], "/second");
}
