#pragma once

// Headless OpenGL through EGL on Mesa's surfaceless platform (llvmpipe when there is no GPU;
// docs/physics-world.md), for MuJoCo's renderer. EGL rather than OSMesa: MuJoCo's GL loader takes
// eglGetProcAddress first whenever libEGL is in the process, and the Qt applications always load
// it. One display for the process; a context per simulation, made current on the thread that
// renders. Shared by physics.tabletop (Debian's MuJoCo) and physics.mjcf (the wheel's): nothing
// here calls MuJoCo.

#include <string>

namespace kosmos::physics {

class HeadlessGl
{
public:
    // `who` prefixes the errors (the plugin's id).
    explicit HeadlessGl(std::string who);
    ~HeadlessGl();
    HeadlessGl(const HeadlessGl &) = delete;
    HeadlessGl &operator=(const HeadlessGl &) = delete;

    // Throws Error(InvalidInput) naming what is missing (no display, config or context).
    void makeCurrent();

private:
    void create();
    std::string m_who;
    void *m_display = nullptr;
    void *m_context = nullptr;
};

// Empty when a headless GL context can be made here, else why not (prefixed with `who`).
std::string headlessGlProblem(const std::string &who);

} // namespace kosmos::physics
