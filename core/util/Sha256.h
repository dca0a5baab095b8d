#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace kosmos {

// SHA-256 through OpenSSL's EVP interface (hardware-accelerated where the CPU has SHA-NI).
class Sha256
{
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256 &) = delete;
    Sha256 &operator=(const Sha256 &) = delete;
    Sha256(Sha256 &&) noexcept;
    Sha256 &operator=(Sha256 &&) noexcept;

    void update(const void *data, std::size_t size);
    void update(std::string_view text) { update(text.data(), text.size()); }
    // Finishes the digest and returns it as 64 lowercase hex characters.
    std::string finalHex();

    static std::string hex(std::string_view data);
    static std::string hex(std::span<const std::uint8_t> data);
    // Hashes a whole file by streaming it; throws Error(Io) when it cannot be read.
    static std::string fileHex(const std::filesystem::path &path);
    // fileHex computed once per process for an unchanged file (the same size and modification
    // time): weights, checkpoints and scene folders of many gigabytes are hashed when first used,
    // not per run. Thread-safe; throws Error(Io) when the file cannot be read.
    static std::string cachedFileHex(const std::filesystem::path &path);
    // True for exactly 64 lowercase hex characters.
    static bool isValidHex(std::string_view digest);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace kosmos
