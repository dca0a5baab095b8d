// kosmos-bench-startup: whole-process start-up of kosmos-cli verbs that touch no images, against
// `sqlite3 --version` in the same run (docs/benchmarks.md, "Process start-up").
//   kosmos-bench-startup BUNDLE [--runs N]
// Each command is started N times (default 101) with posix_spawn, its output to /dev/null; the
// wall time from spawn to reaped exit is reported as median and min-max.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <string>
#include <vector>

extern char **environ;

namespace {

std::vector<double> timeRuns(const std::vector<std::string> &command, int runs)
{
    std::vector<char *> argv;
    for (const auto &a : command)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto t = std::chrono::steady_clock::now();
        pid_t pid = 0;
        if (posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
            std::fprintf(stderr, "cannot start %s\n", argv[0]);
            break;
        }
        int status = 0;
        waitpid(pid, &status, 0);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t)
                         .count());
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            std::fprintf(stderr, "%s exited with status %d\n", argv[0], WEXITSTATUS(status));
            break;
        }
    }
    posix_spawn_file_actions_destroy(&actions);
    std::sort(ms.begin(), ms.end());
    return ms;
}

std::string selfDir()
{
    char self[4096] = {};
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    const std::string path(self, static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    return path.substr(0, path.rfind('/'));
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: kosmos-bench-startup BUNDLE [--runs N]\n");
        return 2;
    }
    const std::string bundle = argv[1];
    int runs = 101;
    for (int i = 2; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--runs")
            runs = std::stoi(argv[++i]);
    const std::string cli = selfDir() + "/kosmos-cli";
    const auto anchor = timeRuns({"sqlite3", "--version"}, runs);
    if (anchor.empty())
        return 1;
    const double anchorMedian = anchor[anchor.size() / 2];
    std::printf("| command | runs | median ms | min-max ms | vs sqlite3 --version |\n"
                "|---|---|---|---|---|\n");
    std::printf("| `sqlite3 --version` | %zu | %.2f | %.2f-%.2f | 1.00x |\n", anchor.size(),
                anchorMedian, anchor.front(), anchor.back());
    const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
        {"`kosmos-cli --version`", {cli, "--version"}},
        {"`kosmos-cli info BUNDLE`", {cli, "info", bundle}},
        {"`kosmos-cli info BUNDLE --json`", {cli, "info", bundle, "--json"}},
        {"`kosmos-cli events BUNDLE 1`", {cli, "events", bundle, "1"}},
        {"`kosmos-cli verify --help` (the full program, for comparison)",
         {cli, "verify", "--help"}},
    };
    for (const auto &[name, command] : commands) {
        const auto ms = timeRuns(command, runs);
        if (ms.empty())
            continue;
        const double median = ms[ms.size() / 2];
        std::printf("| %s | %zu | %.2f | %.2f-%.2f | %.1fx |\n", name.c_str(), ms.size(), median,
                    ms.front(), ms.back(), median / anchorMedian);
    }
    return 0;
}
