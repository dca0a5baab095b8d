#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace kosmos {

// Who holds a lease, precisely enough to tell later whether that process is still alive: the
// host, the kernel's boot id and PID namespace (a PID means nothing across reboots or
// containers), the PID and the process's start time in clock ticks since boot (a PID is reused;
// PID + start time is not).
struct ProcessIdentity
{
    std::string host;
    std::string bootId;
    std::string pidNamespace;
    std::int64_t pid = 0;
    std::int64_t startTicks = 0;
    // The process that reaps this one and records how it ended (a `run --isolate` supervisor),
    // on the same host, boot and PID namespace; 0 when none was declared.
    std::int64_t supervisorPid = 0;
    std::int64_t supervisorStartTicks = 0;

    nlohmann::json toJson() const;
    // Missing or malformed fields give an identity that is never judged dead.
    static ProcessIdentity fromJson(const nlohmann::json &json);

    // This process.
    static const ProcessIdentity &current();
    // Declares that this process's parent supervises it: it waits for this process and records
    // how it ended (a signal, an exit status). From then on current() names the parent as the
    // supervisor, so a sibling that finds this process dead leaves its attempts to the parent.
    static void declareSupervisedByParent();
};

// True only when `holder` provably no longer runs: it was recorded on this host, this boot and
// this PID namespace, and its PID is gone or belongs to a process started at another time.
// Anything it cannot prove (another host, missing fields, unreadable /proc) is alive.
bool provablyDead(const ProcessIdentity &holder);

// True when `holder` declared a supervisor that is not provably dead: a dead holder's end is then
// the supervisor's to record (with the signal or status only a parent can read), not a sibling's.
bool supervisorRuns(const ProcessIdentity &holder);

// The Slurm job this process runs in, from the environment Slurm sets for a job's tasks
// (job_id, array_job_id, array_task_id, node, cluster, partition: those that are set), or null
// outside Slurm. Recorded with every attempt a Slurm task claims.
nlohmann::json slurmContext();

// The start time of a process in clock ticks since boot (/proc/<pid>/stat field 22), or -1
// when the process does not exist or /proc cannot be read.
std::int64_t processStartTicks(std::int64_t pid);

} // namespace kosmos
