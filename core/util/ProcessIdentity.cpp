#include "util/ProcessIdentity.h"

#include "util/ProcessStats.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>
#include <utility>

namespace kosmos {

namespace {

std::string firstLine(const char *path)
{
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string hostName()
{
    char buffer[256] = {};
    if (::gethostname(buffer, sizeof buffer - 1) != 0)
        return {};
    return buffer;
}

std::string currentPidNamespace()
{
    char buffer[128] = {};
    const ssize_t n = ::readlink("/proc/self/ns/pid", buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

} // namespace

namespace {

// State letter and start time of a process; nullopt when it does not exist.
std::optional<std::pair<char, std::int64_t>> statOf(std::int64_t pid)
{
    const auto fields = procStatFields(pid);
    if (!fields || fields->size() < 20 || (*fields)[0].empty())
        return std::nullopt;
    try {
        return std::make_pair((*fields)[0][0],
                              static_cast<std::int64_t>(std::stoll((*fields)[19])));
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

} // namespace

std::int64_t processStartTicks(std::int64_t pid)
{
    const auto stat = statOf(pid);
    return stat ? stat->second : -1;
}

nlohmann::json ProcessIdentity::toJson() const
{
    nlohmann::json out = {{"host", host},
                          {"boot_id", bootId},
                          {"pid_namespace", pidNamespace},
                          {"pid", pid},
                          {"start_ticks", startTicks}};
    if (supervisorPid > 0)
        out["supervisor"] = {{"pid", supervisorPid}, {"start_ticks", supervisorStartTicks}};
    return out;
}

ProcessIdentity ProcessIdentity::fromJson(const nlohmann::json &json)
{
    ProcessIdentity p;
    if (!json.is_object())
        return p;
    auto text = [&](const char *key) {
        const auto it = json.find(key);
        return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto number = [&](const char *key) {
        const auto it = json.find(key);
        return it != json.end() && it->is_number_integer() ? it->get<std::int64_t>()
                                                           : std::int64_t{0};
    };
    p.host = text("host");
    p.bootId = text("boot_id");
    p.pidNamespace = text("pid_namespace");
    p.pid = number("pid");
    p.startTicks = number("start_ticks");
    const auto supervisor = json.find("supervisor");
    if (supervisor != json.end() && supervisor->is_object()) {
        const auto spid = supervisor->find("pid");
        const auto sticks = supervisor->find("start_ticks");
        if (spid != supervisor->end() && spid->is_number_integer() && sticks != supervisor->end() &&
            sticks->is_number_integer()) {
            p.supervisorPid = spid->get<std::int64_t>();
            p.supervisorStartTicks = sticks->get<std::int64_t>();
        }
    }
    return p;
}

namespace {

// The supervisor declared by declareSupervisedByParent(), with the PID of the process that
// declared it (a forked child inherits the variables, not the declaration).
struct DeclaredSupervisor
{
    std::atomic<std::int64_t> declaredBy{0};
    std::atomic<std::int64_t> pid{0};
    std::atomic<std::int64_t> startTicks{0};
};

DeclaredSupervisor &declaredSupervisor()
{
    static DeclaredSupervisor s;
    return s;
}

} // namespace

const ProcessIdentity &ProcessIdentity::current()
{
    // Computed per call in a forked child would be wrong: fork keeps statics. Cache by PID.
    thread_local ProcessIdentity cached;
    const std::int64_t pid = ::getpid();
    if (cached.pid != pid) {
        ProcessIdentity p;
        p.host = hostName();
        p.bootId = firstLine("/proc/sys/kernel/random/boot_id");
        p.pidNamespace = currentPidNamespace();
        p.pid = pid;
        p.startTicks = processStartTicks(pid);
        cached = p;
    }
    const DeclaredSupervisor &s = declaredSupervisor();
    if (s.declaredBy.load() == pid) {
        cached.supervisorPid = s.pid.load();
        cached.supervisorStartTicks = s.startTicks.load();
    } else {
        cached.supervisorPid = 0;
        cached.supervisorStartTicks = 0;
    }
    return cached;
}

void ProcessIdentity::declareSupervisedByParent()
{
    DeclaredSupervisor &s = declaredSupervisor();
    const std::int64_t parent = ::getppid();
    s.pid.store(parent);
    s.startTicks.store(processStartTicks(parent));
    s.declaredBy.store(::getpid());
}

bool supervisorRuns(const ProcessIdentity &holder)
{
    if (holder.supervisorPid <= 0)
        return false;
    ProcessIdentity supervisor = holder;
    supervisor.pid = holder.supervisorPid;
    supervisor.startTicks = holder.supervisorStartTicks;
    supervisor.supervisorPid = 0;
    return !provablyDead(supervisor);
}

bool provablyDead(const ProcessIdentity &holder)
{
    const ProcessIdentity &self = ProcessIdentity::current();
    if (holder.pid <= 0 || holder.startTicks <= 0 || holder.host.empty() || holder.bootId.empty() ||
        holder.pidNamespace.empty())
        return false;
    if (holder.host != self.host || holder.bootId != self.bootId ||
        holder.pidNamespace != self.pidNamespace || self.bootId.empty() ||
        self.pidNamespace.empty())
        return false;
    if (holder.pid == self.pid)
        return holder.startTicks != self.startTicks;
    const auto stat = statOf(holder.pid);
    if (!stat) {
        // Gone, unless /proc itself is unreadable (then nothing is proven).
        std::ifstream selfStat("/proc/self/stat");
        return static_cast<bool>(selfStat);
    }
    // Another process under a reused PID, or this one dead and not yet reaped (zombie).
    return stat->second != holder.startTicks || stat->first == 'Z' || stat->first == 'X';
}

nlohmann::json slurmContext()
{
    if (!std::getenv("SLURM_JOB_ID"))
        return nullptr;
    nlohmann::json out = nlohmann::json::object();
    const std::pair<const char *, const char *> fields[] = {
        {"job_id", "SLURM_JOB_ID"},
        {"array_job_id", "SLURM_ARRAY_JOB_ID"},
        {"array_task_id", "SLURM_ARRAY_TASK_ID"},
        {"node", "SLURMD_NODENAME"},
        {"cluster", "SLURM_CLUSTER_NAME"},
        {"partition", "SLURM_JOB_PARTITION"}};
    for (const auto &[key, variable] : fields)
        if (const char *value = std::getenv(variable); value && *value)
            out[key] = value;
    return out;
}

} // namespace kosmos
