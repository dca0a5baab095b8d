// kosmos-cli, the program people start: answers `--version`, `info` and `events` itself (they
// read the ledger only) and hands every other command line to the full program,
// lib/<multiarch>/kosmos/libkosmos-cli-verbs.so, loaded with dlopen. The full program links Qt,
// FFmpeg, OpenCV and the judge's network stack: ~250 shared libraries and ~150 ms in the dynamic
// loader before main (docs/benchmarks.md, "Process start-up"). This front links the ledger, SQLite
// and OpenSSL only, so the commands a script runs in a loop start in a few milliseconds.
//
// The front is deliberately strict: anything but the exact forms below (a --help, an unknown
// option, a missing argument) goes to the full program, which prints the same usage and errors
// as ever.
#include "CliCommands.h"
#include "util/InstallPaths.h"

#include <dlfcn.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#ifdef KOSMOS_CLI_LINKED
extern "C" int kosmos_cli_main(int argc, char *argv[]);
#endif

namespace {

std::optional<int> parseInterval(std::string_view text)
{
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 1 || value > 60000)
        return std::nullopt;
    return value;
}

// The light verbs, when the command line is exactly one of their forms; nullopt: not ours.
std::optional<int> answerHere(const std::vector<std::string_view> &args)
{
    if (args.size() == 1 && (args[0] == "--version" || args[0] == "-v")) {
        std::printf("kosmos-cli %s\n", KOSMOS_VERSION);
        return 0;
    }
    if (args.empty() || (args[0] != "info" && args[0] != "events"))
        return std::nullopt;
    std::vector<std::string_view> positional;
    bool json = false, follow = false;
    int interval = 100;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string_view a = args[i];
        if (a == "--json") {
            json = true;
        } else if (args[0] == "events" && a == "--follow") {
            follow = true;
        } else if (args[0] == "events" && a.starts_with("--interval-ms")) {
            std::string_view value;
            if (a == "--interval-ms" && i + 1 < args.size())
                value = args[++i];
            else if (a.starts_with("--interval-ms="))
                value = a.substr(std::strlen("--interval-ms="));
            else
                return std::nullopt;
            const auto parsed = parseInterval(value);
            if (!parsed)
                return std::nullopt;
            interval = *parsed;
        } else if (a.starts_with("-")) {
            return std::nullopt; // --help, an unknown option, "--": the full program's parser
        } else {
            positional.push_back(a);
        }
    }
    if (args[0] == "info" && positional.size() == 1)
        return runInfo(std::string(positional[0]), json);
    if (args[0] == "events" && positional.size() == 2)
        return runEvents(std::string(positional[0]), std::string(positional[1]), follow, json,
                         interval);
    return std::nullopt;
}

std::string executableDir()
{
    try {
        return kosmos::executablePath().parent_path().string();
    } catch (const std::exception &) {
        return ".";
    }
}

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string_view> args(argv + 1, argv + argc);
    if (const auto code = answerHere(args))
        return finishOutput(*code);

#ifdef KOSMOS_CLI_LINKED
    return kosmos_cli_main(argc, argv); // KOSMOS_CLI_SPLIT=OFF: linked in (app/cli/CMakeLists.txt)
#endif
    // bin/kosmos-cli -> lib/<multiarch>/kosmos/libkosmos-cli-verbs.so, in the build tree and
    // installed alike.
    const std::string library = executableDir() + "/../" KOSMOS_PKGLIBDIR "/libkosmos-cli-verbs.so";
    void *handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = ::dlerror();
        std::fprintf(stderr, "kosmos-cli: error [io]: cannot load %s: %s\n", library.c_str(),
                     why ? why : "unknown reason");
        return ExitCode::Failed;
    }
    using Main = int (*)(int, char **);
    const auto full = reinterpret_cast<Main>(::dlsym(handle, "kosmos_cli_main"));
    if (!full) {
        std::fprintf(stderr, "kosmos-cli: error [io]: %s has no kosmos_cli_main\n",
                     library.c_str());
        return ExitCode::Failed;
    }
    return full(argc, argv);
}
