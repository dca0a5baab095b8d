#include "TerminalProgress.h"

#include "util/Clock.h"

#include <cstdio>
#include <unistd.h>

TerminalProgress::TerminalProgress() : m_enabled(::isatty(STDERR_FILENO) == 1) {}

TerminalProgress::~TerminalProgress()
{
    finish();
}

void TerminalProgress::update(std::string_view stage, std::int64_t done, std::int64_t total)
{
    if (!m_enabled)
        return;
    const std::int64_t now = kosmos::nowMs();
    const bool stageChanged = stage != m_lastStage;
    if (!stageChanged && done != total && now - m_lastDrawMs < 100)
        return; // at most 10 redraws a second
    m_lastDrawMs = now;
    m_lastStage = std::string(stage);
    constexpr int kWidth = 30;
    const int filled = total > 0 ? static_cast<int>(kWidth * done / total) : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r\033[K%-10.*s [%s] %lld/%lld", static_cast<int>(stage.size()),
                 stage.data(), bar.c_str(), static_cast<long long>(done),
                 static_cast<long long>(total));
    std::fflush(stderr);
    m_drawn = true;
}

void TerminalProgress::finish()
{
    if (m_drawn) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
        m_drawn = false;
    }
}
