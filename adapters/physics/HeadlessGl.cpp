#include "physics/HeadlessGl.h"

#include "util/Error.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>

namespace kosmos::physics {
namespace {

EGLDisplay eglDisplayOnce()
{
    static EGLDisplay display = [] {
        EGLDisplay d = EGL_NO_DISPLAY;
        const auto getPlatformDisplay = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
            eglGetProcAddress("eglGetPlatformDisplayEXT"));
        if (getPlatformDisplay)
            d = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
        EGLint major = 0, minor = 0;
        if (d == EGL_NO_DISPLAY || !eglInitialize(d, &major, &minor))
            return EGL_NO_DISPLAY;
        return d;
    }();
    return display;
}

} // namespace

HeadlessGl::HeadlessGl(std::string who) : m_who(std::move(who)) {}

void HeadlessGl::create()
{
    EGLDisplay display = eglDisplayOnce();
    if (display == EGL_NO_DISPLAY)
        throw Error(ErrorCode::InvalidInput,
                    m_who + ": no EGL surfaceless display (install libegl-mesa0)");
    // EGL_SURFACE_TYPE defaults to windows, which a surfaceless display has none of.
    const EGLint attributes[] = {EGL_SURFACE_TYPE,
                                 EGL_PBUFFER_BIT,
                                 EGL_RED_SIZE,
                                 8,
                                 EGL_GREEN_SIZE,
                                 8,
                                 EGL_BLUE_SIZE,
                                 8,
                                 EGL_DEPTH_SIZE,
                                 24,
                                 EGL_RENDERABLE_TYPE,
                                 EGL_OPENGL_BIT,
                                 EGL_NONE};
    EGLConfig config = nullptr;
    EGLint count = 0;
    if (!eglChooseConfig(display, attributes, &config, 1, &count) || count < 1)
        throw Error(ErrorCode::InvalidInput, m_who + ": no EGL config for OpenGL");
    if (!eglBindAPI(EGL_OPENGL_API))
        throw Error(ErrorCode::InvalidInput, m_who + ": EGL has no desktop OpenGL");
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, nullptr);
    if (context == EGL_NO_CONTEXT)
        throw Error(ErrorCode::InvalidInput,
                    m_who + ": no EGL context (error " + std::to_string(eglGetError()) + ")");
    m_display = display;
    m_context = context;
}

void HeadlessGl::makeCurrent()
{
    if (!m_context)
        create();
    eglBindAPI(EGL_OPENGL_API);
    if (!eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, m_context))
        throw Error(ErrorCode::InvalidInput, m_who + ": eglMakeCurrent failed (error " +
                                                 std::to_string(eglGetError()) + ")");
}

HeadlessGl::~HeadlessGl()
{
    if (m_context) {
        if (eglGetCurrentContext() == m_context)
            eglMakeCurrent(m_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(m_display, m_context);
    }
}

std::string headlessGlProblem(const std::string &who)
{
    try {
        HeadlessGl probe(who);
        probe.makeCurrent();
        return {};
    } catch (const Error &e) {
        return e.what();
    }
}

} // namespace kosmos::physics
