#include "dataset/ParquetReader.h"

#include "util/Error.h"
#include "util/InstallPaths.h"

#include <cstdlib>
#include <dlfcn.h>

#include <mutex>

namespace kosmos {

namespace fs = std::filesystem;

const ParquetColumn *ParquetTable::find(const std::string &name) const
{
    for (const ParquetColumn &c : columns)
        if (c.name == name)
            return &c;
    return nullptr;
}

namespace {

struct Module
{
    ParquetReader *reader = nullptr;
    ParquetWriter *writer = nullptr;
    std::string error;
};

Module &module()
{
    static Module m;
    static std::once_flag once;
    std::call_once(once, [] {
        fs::path path;
        try {
            path =
                executablePath().parent_path() / ".." / KOSMOS_PKGLIBDIR / "libkosmos-parquet.so";
        } catch (const std::exception &e) {
            m.error = e.what();
            return;
        }
        path = path.lexically_normal();
        if (!fs::exists(path)) {
            m.error = "reading LeRobot datasets needs Kosmos's Parquet module, " + path.string() +
                      ", which this installation does not have (install the kosmos-datasets "
                      "package, or build with Arrow: scripts/setup-arrow.sh, then rebuild)";
            return;
        }
        // Arrow's bundled jemalloc starts a purging thread when libarrow loads (its compiled-in
        // "background_thread:true"), though the module allocates through the system pool: a
        // thread the host did not ask for, alive until its exit. jemalloc reads
        // JE_ARROW_MALLOC_CONF as it starts: off, unless the user has set it.
        ::setenv("JE_ARROW_MALLOC_CONF", "background_thread:false", 0);
        // Never unloaded: Arrow keeps process-wide state (memory pools, registries).
        void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            const char *why = ::dlerror();
            m.error = "cannot load " + path.string() + ": " + (why ? why : "unknown reason");
            return;
        }
        using Entry = ParquetReader *(*)();
        const auto entry = reinterpret_cast<Entry>(::dlsym(library, "kosmos_parquet_reader_v1"));
        m.reader = entry ? entry() : nullptr;
        using WriterEntry = ParquetWriter *(*)();
        const auto writer =
            reinterpret_cast<WriterEntry>(::dlsym(library, "kosmos_parquet_writer_v1"));
        m.writer = writer ? writer() : nullptr;
        if (!m.reader || !m.writer) {
            m.reader = nullptr;
            m.writer = nullptr;
        }
        if (!m.reader)
            m.error = path.string() + " is not Kosmos's Parquet module of this version";
    });
    return m;
}

} // namespace

ParquetReader &parquetReader()
{
    Module &m = module();
    if (!m.reader)
        throw Error(ErrorCode::Unavailable, m.error);
    return *m.reader;
}

ParquetWriter &parquetWriter()
{
    Module &m = module();
    if (!m.writer)
        throw Error(ErrorCode::Unavailable, m.error);
    return *m.writer;
}

bool parquetAvailable(std::string *why)
{
    Module &m = module();
    if (!m.reader && why)
        *why = m.error;
    return m.reader != nullptr;
}

} // namespace kosmos
