#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// A one-line progress bar on stderr, drawn only when stderr is a terminal.
class TerminalProgress
{
public:
    TerminalProgress();
    ~TerminalProgress();
    TerminalProgress(const TerminalProgress &) = delete;
    TerminalProgress &operator=(const TerminalProgress &) = delete;

    void update(std::string_view stage, std::int64_t done, std::int64_t total);
    void finish();

private:
    bool m_enabled = false;
    bool m_drawn = false;
    std::int64_t m_lastDrawMs = 0;
    std::string m_lastStage;
};
