#include "host/PluginRegistry.h"
#include "util/Error.h"

#include <gtest/gtest.h>

#include <QCoreApplication>

using namespace kosmos;

namespace {

const PluginInfo *byFile(const PluginRegistry &r, const std::string &fragment)
{
    for (const auto &p : r.plugins()) {
        if (p.path.filename().string().find(fragment) != std::string::npos)
            return &p;
    }
    return nullptr;
}

} // namespace

TEST(PluginHost, FindsTheSyntheticPluginsFromMetadataAlone)
{
    PluginRegistry registry;
    registry.scan({KOSMOS_PLUGIN_DIR});
    // 10 built in (synthetic 3, judges 2, replay policy, remote policies 3, remote world), plus
    // the torch.* families when the build found libtorch.
    int builtIn = 0;
    for (const auto &p : registry.plugins()) {
        if (p.id.rfind("torch.", 0) != 0) {
            ++builtIn;
            continue;
        }
        EXPECT_TRUE(p.metadata["requires"]["libtorch"].get<bool>()) << p.id;
        const Availability torchAvailable = registry.availability(p.id, nlohmann::json::object());
        EXPECT_FALSE(torchAvailable.available) << p.id;
        EXPECT_NE(torchAvailable.reason.find("package"), std::string::npos)
            << torchAvailable.reason;
    }
    ASSERT_EQ(builtIn, 10 + static_cast<int>(KOSMOS_PHYSICS_PLUGINS));
    for (const char *id :
         {"synthetic.scripted_policy", "synthetic.tabletop", "synthetic.frame_judge"}) {
        const PluginInfo *p = registry.find(id);
        ASSERT_NE(p, nullptr) << id;
        EXPECT_TRUE(p->usable);
        EXPECT_EQ(p->apiVersion, kAdapterApiVersion);
        EXPECT_TRUE(p->metadata.contains("settings_schema")) << id;
        EXPECT_FALSE(p->metadata["requires"]["cuda"].get<bool>()) << id;
        EXPECT_TRUE(registry.availability(id, nlohmann::json::object()).available);
    }
    EXPECT_EQ(registry.find("synthetic.scripted_policy")->family, "policy");
    // The HTTP judge is found, and says why it cannot run until it is configured.
    const Availability http = registry.availability("openai.chat_judge", nlohmann::json::object());
    EXPECT_FALSE(http.available);
    EXPECT_NE(http.reason.find("endpoint unset"), std::string::npos) << http.reason;
    // Settings that fail a plugin's schema are refused before it is asked, naming the field.
    EXPECT_THROW(registry.createPolicy("synthetic.scripted_policy", {{"skill", "wizard"}}), Error);
    const Availability bad =
        registry.availability("synthetic.scripted_policy", {{"skil", "expert"}});
    EXPECT_FALSE(bad.available);
    EXPECT_NE(bad.reason.find("skil: is not a setting"), std::string::npos) << bad.reason;
    auto policy = registry.createPolicy("synthetic.scripted_policy", {{"skill", "noisy"}});
    ASSERT_NE(policy, nullptr);
    EXPECT_EQ(policy->actionContract().dimension(), 7);
    EXPECT_NE(registry.createWorldModel("synthetic.tabletop", nlohmann::json::object()), nullptr);
    EXPECT_NE(registry.createJudge("synthetic.frame_judge", nlohmann::json::object()), nullptr);
}

TEST(PluginHost, ListsEveryBrokenPluginWithItsReasonAndNeverCrashes)
{
    PluginRegistry registry;
    registry.scan({KOSMOS_FIXTURE_PLUGIN_DIR});
    ASSERT_EQ(registry.plugins().size(), 7u);

    const PluginInfo *good = byFile(registry, "Good");
    ASSERT_NE(good, nullptr);
    EXPECT_TRUE(good->usable) << good->problem;

    const PluginInfo *wrongApi = byFile(registry, "WrongApi");
    ASSERT_NE(wrongApi, nullptr);
    EXPECT_FALSE(wrongApi->usable);
    EXPECT_NE(wrongApi->problem.find("wrong API version 9"), std::string::npos)
        << wrongApi->problem;

    const PluginInfo *noMeta = byFile(registry, "NoMetadata");
    ASSERT_NE(noMeta, nullptr);
    EXPECT_FALSE(noMeta->usable);
    EXPECT_NE(noMeta->problem.find("missing plugin metadata"), std::string::npos)
        << noMeta->problem;

    const PluginInfo *garbage = byFile(registry, "garbage");
    ASSERT_NE(garbage, nullptr);
    EXPECT_FALSE(garbage->usable);
    EXPECT_NE(garbage->problem.find("not a loadable Qt plugin"), std::string::npos)
        << garbage->problem;

    // Metadata is fine, but the library cannot be loaded: unavailable with the loader's reason.
    const PluginInfo *unloadable = byFile(registry, "Unloadable");
    ASSERT_NE(unloadable, nullptr);
    EXPECT_TRUE(unloadable->usable) << "its metadata is readable without loading it";
    const Availability a = registry.availability("fixture.unloadable", nlohmann::json::object());
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("failed to load"), std::string::npos) << a.reason;
    EXPECT_THROW(registry.createPolicy("fixture.unloadable", nlohmann::json::object()), Error);

    // An adapter that cannot run says why; it is never faked.
    const Availability w = registry.availability("fixture.needs_weights", nlohmann::json::object());
    EXPECT_FALSE(w.available);
    EXPECT_NE(w.reason.find("weights path not set"), std::string::npos) << w.reason;
    try {
        registry.createPolicy("fixture.needs_weights", nlohmann::json::object());
        FAIL() << "an unavailable adapter was instantiated";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("unavailable: weights path not set"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(
        registry.availability("fixture.needs_weights", {{"weights_path", "/models/x"}}).available);
}

TEST(PluginHost, UnknownIdsAndWrongFamiliesAreClearErrors)
{
    PluginRegistry registry;
    registry.scan({KOSMOS_PLUGIN_DIR});
    try {
        registry.createPolicy("openvla", nlohmann::json::object());
        FAIL();
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::NotFound);
        EXPECT_NE(std::string(e.what()).find("unknown plugin id 'openvla'"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("synthetic.scripted_policy"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(registry.createPolicy("synthetic.tabletop", nlohmann::json::object()), Error);
    EXPECT_THROW(registry.createPolicy("synthetic.scripted_policy", {{"skill", "psychic"}}), Error);
}

TEST(PluginHost, SearchPathIsTheInstallFolderThenTheEnvironment)
{
    ::setenv("KOSMOS_PLUGIN_PATH", "/opt/a:/opt/b", 1);
    const auto path = PluginRegistry::searchPath("/usr/bin", {"/extra"});
    ::unsetenv("KOSMOS_PLUGIN_PATH");
    ASSERT_EQ(path.size(), 4u);
    EXPECT_EQ(path[0], std::filesystem::path("/usr/bin/../" KOSMOS_PKGLIBDIR "/plugins"));
    EXPECT_EQ(path[1], std::filesystem::path("/opt/a"));
    EXPECT_EQ(path[2], std::filesystem::path("/opt/b"));
    EXPECT_EQ(path[3], std::filesystem::path("/extra"));
}
