#include "mjcf/MjcfScene.h"

#include "physics/HeadlessGl.h"
#include "util/Error.h"

#include <mujoco/mujoco.h>
#include <opencv2/core.hpp>

#include <mutex>

static_assert(mjVERSION_HEADER >= 222, "MjcfScene needs MuJoCo 2.2 or later");

namespace kosmos::mjcf {
namespace {

thread_local std::string t_lastWarning;

// MuJoCo's defaults print, ask for Enter and write MUJOCO_LOG.TXT into the working directory;
// here an error is an exception and a warning is kept for the step that made it. These are this
// library's own handlers (the tabletop's MuJoCo 2.2 has its own).
void installHandlers()
{
    static std::once_flag once;
    std::call_once(once, [] {
        mju_user_error = [](const char *message) {
            throw Error(ErrorCode::InvalidInput, std::string("MuJoCo: ") + message);
        };
        mju_user_warning = [](const char *message) { t_lastWarning = message; };
    });
}

mjtObj objOf(ObjectKind kind)
{
    switch (kind) {
    case ObjectKind::Body:
        return mjOBJ_BODY;
    case ObjectKind::Joint:
        return mjOBJ_JOINT;
    case ObjectKind::Geom:
        return mjOBJ_GEOM;
    case ObjectKind::Actuator:
        return mjOBJ_ACTUATOR;
    case ObjectKind::Camera:
        return mjOBJ_CAMERA;
    }
    return mjOBJ_UNKNOWN;
}

const char *kindName(ObjectKind kind)
{
    switch (kind) {
    case ObjectKind::Body:
        return "body";
    case ObjectKind::Joint:
        return "joint";
    case ObjectKind::Geom:
        return "geom";
    case ObjectKind::Actuator:
        return "actuator";
    case ObjectKind::Camera:
        return "camera";
    }
    return "object";
}

} // namespace

struct MjcfScene::Impl
{
    mjModel *model = nullptr;
    mjData *data = nullptr;

    std::unique_ptr<physics::HeadlessGl> gl;
    mjrContext context{};
    mjvScene scene{};
    mjvCamera camera{};
    mjvOption option{};
    bool renderReady = false;
    int bufferWidth = 0;
    int bufferHeight = 0;
    std::vector<unsigned char> rgb;

    void freeRendering()
    {
        if (!renderReady)
            return;
        try {
            gl->makeCurrent();
            mjr_freeContext(&context);
        } catch (const Error &) {
            // the context is gone with the display: nothing of it to free
        }
        mjv_freeScene(&scene);
        renderReady = false;
    }

    ~Impl()
    {
        freeRendering();
        gl.reset();
        if (data)
            mj_deleteData(data);
        if (model)
            mj_deleteModel(model);
    }
};

MjcfScene::MjcfScene(const std::filesystem::path &xml, std::string who)
    : m_impl(std::make_unique<Impl>()), m_who(std::move(who))
{
    installHandlers();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(xml, ec))
        throw Error(ErrorCode::InvalidInput, m_who + ": no scene file " + xml.string());
    char error[1000] = "";
    m_impl->model = mj_loadXML(xml.string().c_str(), nullptr, error, sizeof error);
    if (!m_impl->model)
        throw Error(ErrorCode::InvalidInput, m_who + ": MuJoCo " + version() + " cannot load " +
                                                 xml.string() + ": " + error);
    m_impl->data = mj_makeData(m_impl->model);
    if (!m_impl->data)
        throw Error(ErrorCode::InvalidInput,
                    m_who + ": MuJoCo could not allocate the scene's data");
}

MjcfScene::~MjcfScene() = default;

mjModel_ *MjcfScene::model() const
{
    return m_impl->model;
}

mjData_ *MjcfScene::data() const
{
    return m_impl->data;
}

int MjcfScene::id(ObjectKind kind, const std::string &name) const
{
    const int i = mj_name2id(m_impl->model, objOf(kind), name.c_str());
    if (i < 0)
        throw Error(ErrorCode::InvalidInput,
                    m_who + ": the scene has no " + kindName(kind) + " '" + name + "'");
    return i;
}

int MjcfScene::actuatorOfJoint(const std::string &joint) const
{
    const int j = id(ObjectKind::Joint, joint);
    const mjModel *m = m_impl->model;
    for (int a = 0; a < m->nu; ++a) {
        if (m->actuator_trntype[a] == mjTRN_JOINT &&
            m->actuator_trnid[2 * static_cast<std::ptrdiff_t>(a)] == j)
            return a;
    }
    throw Error(ErrorCode::InvalidInput,
                m_who + ": no actuator of the scene drives the joint '" + joint + "'");
}

std::string MjcfScene::name(ObjectKind kind, int i) const
{
    const char *n = mj_id2name(m_impl->model, objOf(kind), i);
    return n ? n : std::string(kindName(kind)) + " " + std::to_string(i);
}

void MjcfScene::resetData()
{
    mj_resetData(m_impl->model, m_impl->data);
    m_physicsSteps = 0;
}

void MjcfScene::forwardWithoutActuation()
{
    mjModel *m = m_impl->model;
    const int flags = m->opt.disableflags;
    m->opt.disableflags |= mjDSBL_ACTUATION;
    mj_forward(m, m_impl->data);
    m->opt.disableflags = flags;
}

void MjcfScene::step(int substeps, Stepping stepping)
{
    mjModel *m = m_impl->model;
    mjData *d = m_impl->data;
    const int badBefore = d->warning[mjWARN_BADQACC].number;
    if (stepping == Stepping::DmControl && m->opt.integrator != mjINT_RK4) {
        // dm_control's Physics.step with legacy_step (its default): the state's mj_step1 is
        // current, so finish with mj_step2, take the rest whole, and leave mj_step1 done.
        mj_step2(m, d);
        for (int i = 1; i < substeps; ++i)
            mj_step(m, d);
        mj_step1(m, d);
    } else {
        for (int i = 0; i < substeps; ++i)
            mj_step(m, d);
        if (stepping == Stepping::DmControl)
            mj_step1(m, d);
    }
    m_physicsSteps += substeps;
    if (d->warning[mjWARN_BADQACC].number != badBefore)
        throw Error(ErrorCode::RemoteError,
                    m_who + ": the simulation became unstable (" + t_lastWarning + ")");
}

std::vector<std::pair<int, int>> MjcfScene::contacts() const
{
    const mjData *d = m_impl->data;
    std::vector<std::pair<int, int>> out;
    out.reserve(static_cast<std::size_t>(d->ncon));
    for (int i = 0; i < d->ncon; ++i)
        out.emplace_back(d->contact[i].geom1, d->contact[i].geom2);
    return out;
}

cv::Mat MjcfScene::render(const RenderOptions &o)
{
    Impl &p = *m_impl;
    if (!p.gl)
        p.gl = std::make_unique<physics::HeadlessGl>(m_who);
    p.gl->makeCurrent();
    if (p.renderReady && (o.width > p.bufferWidth || o.height > p.bufferHeight))
        p.freeRendering();
    if (!p.renderReady) {
        // The offscreen buffer is the model's visual/global offwidth x offheight: widen it when a
        // larger frame is asked for.
        p.model->vis.global.offwidth = std::max(p.model->vis.global.offwidth, o.width);
        p.model->vis.global.offheight = std::max(p.model->vis.global.offheight, o.height);
        mjv_defaultCamera(&p.camera);
        mjv_defaultOption(&p.option);
        mjv_defaultScene(&p.scene);
        mjv_makeScene(p.model, &p.scene, 2000);
        mjr_defaultContext(&p.context);
        mjr_makeContext(p.model, &p.context, mjFONTSCALE_100);
        mjr_setBuffer(mjFB_OFFSCREEN, &p.context);
        if (p.context.currentBuffer != mjFB_OFFSCREEN)
            throw Error(ErrorCode::InvalidInput, m_who + ": the offscreen buffer is not available");
        p.bufferWidth = p.model->vis.global.offwidth;
        p.bufferHeight = p.model->vis.global.offheight;
        p.renderReady = true;
    }
    p.camera.type = mjCAMERA_FIXED;
    p.camera.fixedcamid = id(ObjectKind::Camera, o.camera);
    p.scene.flags[mjRND_SHADOW] = o.shadows ? 1 : 0;
    p.scene.flags[mjRND_REFLECTION] = o.reflections ? 1 : 0;
    const mjrRect viewport = {0, 0, o.width, o.height};
    mjv_updateScene(p.model, p.data, &p.option, nullptr, &p.camera, mjCAT_ALL, &p.scene);
    mjr_render(viewport, &p.scene, &p.context);
    p.rgb.resize(static_cast<std::size_t>(o.width) * static_cast<std::size_t>(o.height) * 3);
    mjr_readPixels(p.rgb.data(), nullptr, viewport, &p.context);
    cv::Mat upsideDown(o.height, o.width, CV_8UC3, p.rgb.data());
    cv::Mat frame;
    cv::flip(upsideDown, frame, 0); // OpenGL rows are bottom-up
    return frame;
}

std::string MjcfScene::version()
{
    return mj_versionString();
}

NumpyRandomState::NumpyRandomState(std::uint32_t seed)
{
    m_state[0] = seed;
    for (std::uint32_t i = 1; i < 624; ++i)
        m_state[i] = 1812433253u * (m_state[i - 1] ^ (m_state[i - 1] >> 30)) + i;
}

std::uint32_t NumpyRandomState::next()
{
    if (m_index >= 624) {
        for (int i = 0; i < 624; ++i) {
            const std::uint32_t y =
                (m_state[i] & 0x80000000u) | (m_state[(i + 1) % 624] & 0x7fffffffu);
            m_state[i] = m_state[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
        }
        m_index = 0;
    }
    std::uint32_t y = m_state[m_index++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

double NumpyRandomState::randomSample()
{
    const std::uint32_t a = next() >> 5;
    const std::uint32_t b = next() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
}

} // namespace kosmos::mjcf
