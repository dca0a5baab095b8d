// kosmos-bench-export: MP4 export of a long run against the ffmpeg command line
// (docs/benchmarks.md, "Export").
//   kosmos-bench-export [WORKDIR] [--frames N]
// Makes one synthetic tabletop run of N frames (320x256, default 1,000), then in the same run:
//  - exports its video (H.264, libx264 crf 18 preset medium, yuv420p, faststart) without and
//    with the overlay: every frame read from the store (hash-checked), decoded, encoded;
//  - writes the same PNG frames to a folder and times the `ffmpeg` CLI encoding them with the
//    same codec settings.
#include "SyntheticFactory.h"
#include "ledger/Ledger.h"
#include "media/RolloutExport.h"
#include "pipeline/RolloutEngine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

double seconds(const std::chrono::steady_clock::time_point &t)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    fs::path dir = "bench-data";
    int frames = 1000;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--frames" && i + 1 < argc)
            frames = std::stoi(argv[++i]);
        else
            dir = arg;
    }
    fs::create_directories(dir);
    const fs::path bundle = dir / "export.kosmos";
    fs::remove_all(bundle);
    Ledger::create(bundle);
    const Protocol protocol = Protocol::fromJson(
        {{"kosmos_protocol", 1},
         {"name", "export-bench"},
         {"seed", 3},
         {"horizon", frames - 1},
         {"episodes_per_task", 1},
         {"tasks", {{{"id", "t"}, {"instruction", "put the red block in the green square"}}}},
         {"policies", {{{"plugin", "bench-policy"}}}},
         {"world_model", {{"plugin", "bench-world"}}}});
    bench::SyntheticFactory factory("noisy");
    RolloutEngine engine(bundle, factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    engine.run(protocol, batch, stop);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const std::int64_t runId = batch.runIds.at(0);

    // The anchor's input: the run's PNG frames, as stored.
    const fs::path pngs = dir / "export-frames";
    fs::remove_all(pngs);
    exportRollout(ledger, runId, pngs, ExportOptions{true, false, false, false});

    std::vector<double> plain, overlay, cli;
    const fs::path out = dir / "export-out";
    for (int round = 0; round < 3; ++round) {
        auto t = std::chrono::steady_clock::now();
        exportRollout(ledger, runId, out, ExportOptions{false, false, true, false});
        plain.push_back(seconds(t));
        t = std::chrono::steady_clock::now();
        exportRollout(ledger, runId, out, ExportOptions{false, false, true, true});
        overlay.push_back(seconds(t));
        const std::string command =
            "ffmpeg -loglevel error -y -framerate 5 -i '" + (pngs / "frames").string() +
            "/frame_%05d.png' -c:v libx264 -crf 18 -preset medium -g 10 -pix_fmt yuv420p -movflags "
            "+faststart '" +
            (dir / "ffmpeg.mp4").string() + "'";
        t = std::chrono::steady_clock::now();
        if (std::system(command.c_str()) != 0)
            std::fprintf(stderr, "ffmpeg failed: %s\n", command.c_str());
        cli.push_back(seconds(t));
    }
    std::printf("| what | %d frames, median of 3 (min-max) | frames/s | vs ffmpeg CLI |\n"
                "|---|---|---|---|\n",
                frames);
    const auto row = [&](const char *what, const std::vector<double> &v) {
        std::printf("| %s | %.2f s (%.2f-%.2f) | %.0f | %.2fx |\n", what, median(v),
                    *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()),
                    frames / median(v), median(cli) / median(v));
    };
    row("`ffmpeg` CLI, the same PNG frames, libx264 crf 18 medium, keyint 10, yuv420p, faststart",
        cli);
    row("Kosmos export, video only (store read + hash check + decode + encode)", plain);
    row("Kosmos export, video with the overlay", overlay);
    return 0;
}
