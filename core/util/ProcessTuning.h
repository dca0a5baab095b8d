#pragma once

#include <nlohmann/json_fwd.hpp>

namespace kosmos {

// Process-wide runtime defaults for the programs that run rollouts (kosmos, kosmos-cli),
// applied first thing in main, before any plugin (libtorch and its OpenMP runtime) is loaded.
// Each one yields to the user's own setting of the same thing, and KOSMOS_PROCESS_TUNING=0 turns
// them all off. Measured in docs/benchmarks.md ("Batched episodes"):
//  - glibc's malloc keeps freed memory below 32 MiB in its heaps (M_MMAP_THRESHOLD) and trims a
//    heap's top only past 256 MiB (M_TRIM_THRESHOLD). A model's forward pass allocates and frees
//    activations of a few MiB each call; with glibc's defaults they came from fresh pages every
//    call (mmap/munmap, page faults). Skipped when GLIBC_TUNABLES sets any glibc.malloc tunable
//    or MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ is set.
//  - OMP_WAIT_POLICY=PASSIVE unless set: OpenMP's threads sleep when a parallel region ends
//    instead of spinning, so the cores go to the frame store and validation that run beside the
//    model (libgomp reads it when it is loaded, with the first libtorch plugin).
//
// Applies the defaults once (later calls do nothing); not thread-safe: call it before any thread
// starts.
void applyProcessTuning();

// What applyProcessTuning did in this process ("tuned": false when it was never called: tests,
// embedders), as recorded in each attempt's timings ("process").
nlohmann::json processTuningJson();

} // namespace kosmos
