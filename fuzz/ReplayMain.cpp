// A driver for the fuzz targets where libFuzzer is not linked (GCC builds: the asan preset, so CI's
// ASan + UBSan stage, docs/reliability.md). It runs LLVMFuzzerTestOneInput on every seed input,
// then on inputs mutated from them by a seeded generator (bit flips, bytes set, ranges inserted,
// erased, repeated or spliced from another seed, truncation), for a number of inputs or of seconds.
// There is no coverage feedback: tools/fuzz.sh does the coverage-guided fuzzing with libFuzzer.
//   fuzz_NAME [--seed N] [--runs N] [--seconds S] [--crash-file PATH] FILE_OR_DIR...
// The mutations depend only on the seed and the seed inputs, so a finding is reproduced by running
// the same command again; the input that failed is also written to --crash-file (default
// fuzz-crash-NAME in the working directory) before the sanitizer's report or the uncaught
// exception.
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t kMaxLen = 65536; // as tools/fuzz.sh's -max_len

Bytes g_current;
std::string g_crashFile;

void saveCurrent()
{
    std::ofstream out(g_crashFile, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(g_current.data()),
              static_cast<std::streamsize>(g_current.size()));
}

#if defined(__SANITIZE_ADDRESS__)
void onSanitizerDeath()
{
    saveCurrent();
    std::fprintf(stderr, "fuzz replay: the input that failed is in %s\n", g_crashFile.c_str());
}
#endif

[[noreturn]] void usage(const char *why)
{
    std::fprintf(stderr,
                 "fuzz replay: %s\nusage: fuzz_NAME [--seed N] [--runs N] [--seconds S] "
                 "[--crash-file PATH] FILE_OR_DIR...\n",
                 why);
    std::exit(2);
}

std::uint64_t number(const char *flag, const char *value)
{
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || value[0] == '-')
        usage((std::string(flag) + " needs a whole number, not \"" + value + "\"").c_str());
    return v;
}

Bytes readFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        usage(("cannot read " + path.string()).c_str());
    // At most kMaxLen bytes are read, whatever the file's size.
    Bytes bytes(kMaxLen);
    in.read(reinterpret_cast<char *>(bytes.data()), static_cast<std::streamsize>(kMaxLen));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
}

// JSON tokens and literals the parsers split on or must refuse, and bytes that are not UTF-8.
constexpr std::string_view kTokens[] = {
    "{", "}",     "[",   "]",       "\"",   ":",    ",",    "null", "true", "false", "-1",
    "0", "1e308", "NaN", "\\u0000", "\xc0", "\xff", "\x7f", "\x80", "\xde", "\xdc"};

void mutate(Bytes &b, const std::vector<Bytes> &seeds, std::mt19937_64 &rng)
{
    auto pick = [&rng](std::size_t n) {
        return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n);
    };
    const int count = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < count; ++i) {
        switch (rng() % 8) {
        case 0: // flip a bit
            if (!b.empty())
                b[pick(b.size())] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
            break;
        case 1: // set a byte
            if (!b.empty())
                b[pick(b.size())] = static_cast<std::uint8_t>(rng());
            break;
        case 2: { // insert random bytes
            const std::size_t at = pick(b.size() + 1);
            Bytes ins(1 + pick(8));
            for (auto &c : ins)
                c = static_cast<std::uint8_t>(rng());
            b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), ins.begin(), ins.end());
            break;
        }
        case 3: { // erase a range
            if (b.empty())
                break;
            const std::size_t at = pick(b.size());
            const std::size_t n = 1 + pick(std::min<std::size_t>(b.size() - at, 16));
            b.erase(b.begin() + static_cast<std::ptrdiff_t>(at),
                    b.begin() + static_cast<std::ptrdiff_t>(at + n));
            break;
        }
        case 4: { // repeat a range
            if (b.empty())
                break;
            const std::size_t at = pick(b.size());
            const std::size_t n = 1 + pick(std::min<std::size_t>(b.size() - at, 64));
            const Bytes piece(b.begin() + static_cast<std::ptrdiff_t>(at),
                              b.begin() + static_cast<std::ptrdiff_t>(at + n));
            const std::size_t to = pick(b.size() + 1);
            for (std::size_t k = 1 + pick(4); k > 0; --k)
                b.insert(b.begin() + static_cast<std::ptrdiff_t>(to), piece.begin(), piece.end());
            break;
        }
        case 5: // truncate
            b.resize(pick(b.size() + 1));
            break;
        case 6: { // splice a range of another seed
            const Bytes &other = seeds[pick(seeds.size())];
            if (other.empty())
                break;
            const std::size_t from = pick(other.size());
            const std::size_t n = 1 + pick(std::min<std::size_t>(other.size() - from, 64));
            const std::size_t at = pick(b.size() + 1);
            b.insert(b.begin() + static_cast<std::ptrdiff_t>(at),
                     other.begin() + static_cast<std::ptrdiff_t>(from),
                     other.begin() + static_cast<std::ptrdiff_t>(from + n));
            break;
        }
        default: { // insert a token
            const std::string_view t = kTokens[pick(std::size(kTokens))];
            const std::size_t at = pick(b.size() + 1);
            b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), t.begin(), t.end());
            break;
        }
        }
    }
    if (b.size() > kMaxLen)
        b.resize(kMaxLen);
}

void runOne(const Bytes &input)
{
    g_current = input;
    // A copy of exactly the input's size, so that a read past its end is a heap overflow.
    // Freed also when the target throws (the exception is then the finding, not a leak).
    const std::unique_ptr<std::uint8_t, decltype(&std::free)> data(
        static_cast<std::uint8_t *>(std::malloc(std::max<std::size_t>(input.size(), 1))),
        &std::free);
    std::copy(input.begin(), input.end(), data.get());
    LLVMFuzzerTestOneInput(data.get(), input.size());
}

// Once the inputs have run, a report at exit (a leak) is no input's: the callback must not write
// the last one over what was saved, nor read it after the globals are destroyed.
void noMoreInputs()
{
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(nullptr);
#endif
}

} // namespace

int main(int argc, char **argv)
{
    const std::string name = std::filesystem::path(argv[0]).filename().string();
    std::uint64_t seed = 1;
    std::uint64_t runs = 0;
    std::uint64_t seconds = 0;
    g_crashFile = "fuzz-crash-" + name;
    std::vector<std::filesystem::path> inputs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> const char * {
            if (i + 1 >= argc)
                usage((arg + " needs a value").c_str());
            return argv[++i];
        };
        if (arg == "--seed")
            seed = number("--seed", value());
        else if (arg == "--runs")
            runs = number("--runs", value());
        else if (arg == "--seconds")
            seconds = number("--seconds", value());
        else if (arg == "--crash-file")
            g_crashFile = value();
        else if (arg.rfind("--", 0) == 0)
            usage(("unknown option " + arg).c_str());
        else
            inputs.emplace_back(arg);
    }
    std::vector<Bytes> seeds;
    for (const auto &in : inputs) {
        std::error_code ec;
        if (std::filesystem::is_directory(in, ec)) {
            std::vector<std::filesystem::path> files;
            for (const auto &e : std::filesystem::recursive_directory_iterator(in))
                if (e.is_regular_file())
                    files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (const auto &f : files)
                seeds.push_back(readFile(f));
        } else {
            seeds.push_back(readFile(in));
        }
    }
    if (seeds.empty())
        usage("no seed inputs (name a file or a folder of them)");
#if defined(__SANITIZE_ADDRESS__)
    __sanitizer_set_death_callback(onSanitizerDeath);
#endif

    const auto start = std::chrono::steady_clock::now();
    std::uint64_t done = 0;
    int rc = 0;
    try {
        for (const auto &s : seeds) {
            runOne(s);
            ++done;
        }
        std::mt19937_64 rng(seed);
        std::uint64_t mutated = 0;
        auto more = [&]() {
            if (runs > 0 && mutated >= runs)
                return false;
            if (seconds > 0 && (mutated & 63) == 0 &&
                std::chrono::steady_clock::now() - start >= std::chrono::seconds(seconds))
                return false;
            return runs > 0 || seconds > 0;
        };
        while (more()) {
            Bytes b = seeds[mutated % seeds.size()];
            mutate(b, seeds, rng);
            runOne(b);
            ++mutated;
            ++done;
        }
    } catch (const std::exception &e) {
        saveCurrent();
        std::fprintf(stderr, "fuzz replay: %s: input %llu raised %s; it is in %s\n", name.c_str(),
                     static_cast<unsigned long long>(done), e.what(), g_crashFile.c_str());
        rc = 1;
    } catch (...) {
        saveCurrent();
        std::fprintf(stderr,
                     "fuzz replay: %s: input %llu raised a non-standard exception; it is in %s\n",
                     name.c_str(), static_cast<unsigned long long>(done), g_crashFile.c_str());
        rc = 1;
    }
    noMoreInputs();
    if (rc != 0)
        return rc;
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf(
        "fuzz replay: %s: %zu seed inputs and %llu mutated ones (seed %llu) in %.1f s: clean\n",
        name.c_str(), seeds.size(), static_cast<unsigned long long>(done - seeds.size()),
        static_cast<unsigned long long>(seed), s);
    return 0;
}
