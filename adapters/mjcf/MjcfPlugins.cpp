#include "mjcf/MjcfPlugins.h"

#include "mjcf/MjcfWorld.h"
#include "physics/HeadlessGl.h"
#include "util/Error.h"
#include "util/Sha256.h"

namespace kosmos::mjcf {

Availability MjcfWorldPlugin::availability(const nlohmann::json &settings) const
{
    try {
        const WorldSettings s = WorldSettings::fromJson(settings);
        for (const MjcfTask &task : loadTasks(s))
            scenePathOf(task, s.lookup);
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
    if (const std::string problem = physics::headlessGlProblem("physics.mjcf"); !problem.empty())
        return Availability::no(problem);
    return Availability::yes();
}

std::unique_ptr<WorldModel> MjcfWorldPlugin::createWorldModel(const nlohmann::json &settings)
{
    return std::make_unique<MjcfWorld>(WorldSettings::fromJson(settings));
}

nlohmann::json MjcfWorldPlugin::componentIdentity(const nlohmann::json &settings) const
{
    const WorldSettings s = WorldSettings::fromJson(settings);
    const MjcfWorld world(s);
    nlohmann::json tasks = nlohmann::json::array();
    Sha256 all;
    all.update("mujoco " + MjcfScene::version() + "\n");
    for (const MjcfTask &task : world.tasks()) {
        nlohmann::json p = world.sceneProvenance(task);
        all.update(task.id + " " + task.sha256 + " " + p["scene_folder_sha256"].get<std::string>() +
                   "\n");
        p.erase("scene_files"); // the folder digest stands for them
        tasks.push_back(std::move(p));
    }
    return {{"weights_sha256", all.finalHex()},
            {"details",
             {{"mujoco", MjcfScene::version()},
              {"tasks", tasks},
              {"provenance_note", "scene files hashed here from the installed package"}}}};
}

} // namespace kosmos::mjcf
