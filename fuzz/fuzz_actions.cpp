// Imported actions: the first byte chooses the format (.csv, .json, .npy), the rest is the file.
#include "FuzzSupport.h"
#include "media/ActionFiles.h"

#include <cmath>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    static const char *const kFormats[] = {".csv", ".json", ".npy"};
    const std::string format = kFormats[data[0] % 3];
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        const auto table = kosmos::parseActions(kosmos::fuzz::text(data + 1, size - 1), format,
                                                "actions" + format);
        for (const auto &row : table.rows) {
            if (row.size() != table.rows.front().size())
                __builtin_trap(); // ragged rows must have been refused
            if (row.empty() || row.size() > kosmos::kMaxActionDimension)
                __builtin_trap(); // 1 to 64 values per action, in every format
            for (const double v : row)
                if (!std::isfinite(v))
                    __builtin_trap(); // non-finite actions are refused with row and column
        }
    });
    return 0;
}
