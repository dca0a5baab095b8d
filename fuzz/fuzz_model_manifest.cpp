// A model package's kosmos-model.json (files, hashes, contracts, statistics), read from a
// package folder as the libtorch adapters read it.
#include "FuzzSupport.h"
#include "ModelPackage.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() /
                 ("kosmos-fuzz-package-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        std::ofstream(d / "policy.pt") << "not a module, but a file with a hash";
        return d;
    }();
    {
        std::ofstream out(dir / "kosmos-model.json", std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    kosmos::fuzz::expectNamedErrorsOnly(
        [&] { (void)kosmos::torchadapters::loadModelPackage(dir); });
    return 0;
}
