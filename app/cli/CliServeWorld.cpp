// `kosmos-cli serve-world`: the reference world server for remote.world (python/kosmos_world,
// docs/remote-worlds.md) started in place of this process, with the package found where this
// program's data is (share/kosmos/python: installed, or the build tree's link to the source).
#include "CliCommands.h"

#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/InstallPaths.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using kosmos::Error;
using kosmos::ErrorCode;

namespace {

// A JSON object given on the command line, checked here so that a typo is named before Python
// starts.
nlohmann::json requireJsonObject(const std::string &text, const char *option)
{
    nlohmann::json value = kosmos::json::parseBounded(text, std::string("--") + option);
    if (!value.is_object())
        throw Error(ErrorCode::InvalidInput,
                    std::string("--") + option + ": expected a JSON object, got " + text);
    return value;
}

// The interpreter: --python, else $KOSMOS_PYTHON, else python3 from PATH. A path is checked; a
// bare name is left to execvp's PATH search (whose failure is reported below).
std::string interpreter(const std::string &given)
{
    std::string python = given;
    if (python.empty())
        if (const char *env = std::getenv("KOSMOS_PYTHON"); env && *env)
            python = env;
    if (python.empty())
        python = "python3";
    if (python.find('/') != std::string::npos && ::access(python.c_str(), X_OK) != 0)
        throw Error(ErrorCode::NotFound, "--python " + python +
                                             ": no executable there (a venv's bin/python, or "
                                             "leave it out for python3 on PATH)");
    return python;
}

} // namespace

int runServeWorld(const ServeWorldOptions &o)
{
    try {
        if (o.envId.empty() == o.model.empty())
            throw Error(ErrorCode::InvalidInput,
                        "serve-world serves an environment (ENV_ID) or a model (--model "
                        "MODULE:FACTORY), one of the two");
        if (!o.model.empty() && o.model.find(':') == std::string::npos)
            throw Error(ErrorCode::InvalidInput,
                        "--model " + o.model + ": expected MODULE:FACTORY (my_models:make_world)");
        const nlohmann::json kwargs = requireJsonObject(o.kwargs, "kwargs");
        const nlohmann::json args = requireJsonObject(o.args, "args");
        if (!o.envId.empty() && (o.shared || !args.empty()))
            throw Error(ErrorCode::InvalidInput,
                        "--shared and --args are for --model; an environment takes --kwargs");
        if (!o.model.empty() && (!o.imports.empty() || !kwargs.empty()))
            throw Error(ErrorCode::InvalidInput,
                        "--import and --kwargs are for an environment; a model takes --args");
        const fs::path package = kosmos::installedDataDirectory() / "python";
        if (!fs::is_regular_file(package / "kosmos_world" / "__main__.py"))
            throw Error(ErrorCode::NotFound, "the reference world server is not at " +
                                                 package.string() +
                                                 "/kosmos_world (the kosmos package installs it in "
                                                 "/usr/share/kosmos/python)");
        const std::string python = interpreter(o.python);

        std::vector<std::string> command = {python, "-m",     "kosmos_world",        "--host",
                                            o.host, "--port", std::to_string(o.port)};
        if (!o.envId.empty()) {
            command.insert(command.end(), {"gym", o.envId, "--kwargs", o.kwargs});
            for (const std::string &module : o.imports)
                command.insert(command.end(), {"--import", module});
        } else {
            command.insert(command.end(), {"model", o.model, "--args", o.args});
            if (o.shared)
                command.emplace_back("--shared");
        }
        // The package first on PYTHONPATH, whatever else the caller has there.
        std::string path = package.string();
        if (const char *old = std::getenv("PYTHONPATH"); old && *old)
            path += std::string(":") + old;
        ::setenv("PYTHONPATH", path.c_str(), 1);
        std::cerr << "kosmos-cli serve-world: PYTHONPATH=" << package.string();
        for (const std::string &a : command)
            std::cerr << ' ' << a;
        std::cerr << std::endl;

        std::vector<char *> argv;
        argv.reserve(command.size() + 1);
        for (std::string &a : command)
            argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        const int error = errno;
        throw Error(ErrorCode::NotFound, "cannot start " + python + ": " + std::strerror(error) +
                                             " (install python3, or name one with --python)");
    } catch (const Error &e) {
        return reportError(e);
    }
}
