#include "synthetic/TabletopScene.h"

#include "util/Error.h"
#include "util/JsonFields.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace kosmos::synthetic {

const std::vector<NamedColour> &blockColours()
{
    static const std::vector<NamedColour> colours = {
        {"red", {215, 40, 40}}, {"blue", {40, 80, 215}}, {"yellow", {230, 200, 30}}};
    return colours;
}

const std::vector<NamedColour> &targetColours()
{
    static const std::vector<NamedColour> colours = {{"green", {70, 175, 85}},
                                                     {"purple", {150, 80, 185}}};
    return colours;
}

std::optional<cv::Vec3b> colourOf(const std::string &name)
{
    for (const auto &list : {blockColours(), targetColours()}) {
        for (const auto &c : list) {
            if (name == c.name)
                return c.rgb;
        }
    }
    return std::nullopt;
}

std::optional<TaskWords> parseInstruction(const std::string &instruction)
{
    TaskWords words;
    for (const auto &c : blockColours()) {
        if (instruction.find(std::string(c.name) + " block") != std::string::npos)
            words.block = c.name;
    }
    for (const auto &c : targetColours()) {
        if (instruction.find(std::string(c.name) + " square") != std::string::npos)
            words.target = c.name;
    }
    if (words.block.empty() || words.target.empty())
        return std::nullopt;
    return words;
}

namespace {

cv::Point toPixel(const cv::Vec2d &m)
{
    return {static_cast<int>(std::lround(m[0] * kPixelsPerMetre)),
            static_cast<int>(std::lround(m[1] * kPixelsPerMetre))};
}

cv::Vec2d readPoint(const nlohmann::json &v, const std::string &where)
{
    if (!v.is_array() || v.size() < 2 || !v[0].is_number() || !v[1].is_number())
        json::fail(where, "expected [x, y] in metres");
    const cv::Vec2d p(v[0].get<double>(), v[1].get<double>());
    if (p[0] < 0 || p[0] > kWidth / kPixelsPerMetre || p[1] < 0 || p[1] > kHeight / kPixelsPerMetre)
        json::fail(where, "outside the 0.40 m x 0.32 m table");
    return p;
}

double distance(const cv::Vec2d &a, const cv::Vec2d &b)
{
    return std::hypot(a[0] - b[0], a[1] - b[1]);
}

} // namespace

void TabletopScene::reset(const nlohmann::json &start, std::uint64_t seed)
{
    m_state = SceneState{};
    std::mt19937_64 rng(seed);
    const double jitter = start.value("randomize_m", 0.0);
    std::uniform_real_distribution<double> u(-jitter, jitter);
    auto jittered = [&](cv::Vec2d p) {
        if (jitter > 0) {
            p[0] = std::clamp(p[0] + u(rng), 0.03, 0.37);
            p[1] = std::clamp(p[1] + u(rng), 0.03, 0.29);
        }
        return p;
    };
    m_state.blocks = {{"red", {0.08, 0.08}}, {"blue", {0.08, 0.24}}, {"yellow", {0.17, 0.16}}};
    m_state.targets = {{"green", {0.31, 0.09}}, {"purple", {0.31, 0.23}}};
    if (start.contains("blocks")) {
        m_state.blocks.clear();
        for (const auto &[name, point] :
             json::requireObject(start, "blocks", "start_state").items()) {
            if (!colourOf(name))
                json::fail("start_state.blocks." + name, "unknown block colour");
            m_state.blocks[name] = readPoint(point, "start_state.blocks." + name);
        }
    }
    if (start.contains("targets")) {
        m_state.targets.clear();
        for (const auto &[name, point] :
             json::requireObject(start, "targets", "start_state").items()) {
            if (!colourOf(name))
                json::fail("start_state.targets." + name, "unknown target colour");
            m_state.targets[name] = readPoint(point, "start_state.targets." + name);
        }
    }
    for (auto &[name, p] : m_state.blocks)
        p = jittered(p);
    m_state.blockStarts = m_state.blocks;
    if (start.contains("ee")) {
        const auto &ee = start["ee"];
        const cv::Vec2d xy = readPoint(ee, "start_state.ee");
        m_state.ee = {xy[0], xy[1],
                      ee.size() > 2 ? std::clamp(ee[2].get<double>(), 0.0, kMaxZ) : 0.1};
    }

    // The table: a warm surface with a fixed wood-like grain (deterministic per seed).
    m_table = cv::Mat(kHeight, kWidth, CV_8UC3);
    std::uniform_int_distribution<int> grain(-6, 6);
    for (int y = 0; y < kHeight; ++y) {
        const int row = grain(rng);
        for (int x = 0; x < kWidth; ++x) {
            const int wave = static_cast<int>(4.0 * std::sin(x * 0.07 + y * 0.013));
            const int v = row + wave;
            m_table.at<cv::Vec3b>(y, x) =
                cv::Vec3b(cv::saturate_cast<uchar>(200 + v), cv::saturate_cast<uchar>(182 + v),
                          cv::saturate_cast<uchar>(150 + v));
        }
    }
}

void TabletopScene::step(const Action &a)
{
    auto clamp = [](double v, double lim) {
        return std::clamp(std::isfinite(v) ? v : 0.0, -lim, lim);
    };
    auto &s = m_state;
    s.ee[0] = std::clamp(s.ee[0] + clamp(a.at(0), 0.05), 0.0, kWidth / kPixelsPerMetre);
    s.ee[1] = std::clamp(s.ee[1] + clamp(a.at(1), 0.05), 0.0, kHeight / kPixelsPerMetre);
    s.ee[2] = std::clamp(s.ee[2] + clamp(a.at(2), 0.05), 0.0, kMaxZ);
    s.yaw += clamp(a.at(5), 0.25);
    const bool open = a.at(6) >= 0.5;
    if (s.gripperOpen && !open && !s.held && s.ee[2] < 0.03) {
        // Closing near a block grasps it.
        double best = 0.02;
        for (const auto &[name, p] : s.blocks) {
            const double d = distance(p, {s.ee[0], s.ee[1]});
            if (d < best) {
                best = d;
                s.held = name;
            }
        }
    }
    if (!s.gripperOpen && open && s.held)
        s.held.reset(); // released where it is
    s.gripperOpen = open;
    if (s.held)
        s.blocks[*s.held] = {s.ee[0], s.ee[1]};
}

cv::Mat TabletopScene::render() const
{
    cv::Mat img = m_table.clone();
    const auto &s = m_state;
    const int half = static_cast<int>(kTargetSize * kPixelsPerMetre / 2);
    for (const auto &[name, p] : s.targets) {
        const cv::Vec3b c = *colourOf(name);
        const cv::Point centre = toPixel(p);
        cv::rectangle(img, centre - cv::Point(half, half), centre + cv::Point(half, half),
                      cv::Scalar(c[0], c[1], c[2]), cv::FILLED, cv::LINE_AA);
    }
    const int blockHalf = static_cast<int>(kBlockSize * kPixelsPerMetre / 2);
    auto drawBlock = [&](const std::string &name, const cv::Vec2d &p, double lift) {
        const cv::Vec3b c = *colourOf(name);
        const int h = static_cast<int>(blockHalf * (1.0 + lift * 2.5));
        const cv::Point centre = toPixel(p);
        cv::rectangle(img, centre - cv::Point(h, h) + cv::Point(3, 3),
                      centre + cv::Point(h, h) + cv::Point(3, 3), cv::Scalar(120, 105, 85),
                      cv::FILLED, cv::LINE_AA); // shadow
        cv::rectangle(img, centre - cv::Point(h, h), centre + cv::Point(h, h),
                      cv::Scalar(c[0], c[1], c[2]), cv::FILLED, cv::LINE_AA);
    };
    for (const auto &[name, p] : s.blocks) {
        if (!s.held || *s.held != name)
            drawBlock(name, p, 0.0);
    }
    if (s.held)
        drawBlock(*s.held, s.blocks.at(*s.held), s.ee[2]);

    // The gripper: a dark body whose size grows as it comes closer to the camera, two fingers
    // whose gap shows open/closed, rotated by yaw.
    const cv::Point c = toPixel({s.ee[0], s.ee[1]});
    const double scale = 1.0 + s.ee[2] * 5.0;
    const int body = static_cast<int>(7 * scale);
    cv::circle(img, c + cv::Point(4, 4), body, cv::Scalar(110, 95, 80), cv::FILLED, cv::LINE_AA);
    cv::circle(img, c, body, cv::Scalar(55, 55, 60), cv::FILLED, cv::LINE_AA);
    const double gap = (s.gripperOpen ? 9.0 : 4.0) * scale;
    const double len = 8.0 * scale;
    const cv::Vec2d along(std::cos(s.yaw), std::sin(s.yaw));
    const cv::Vec2d across(-along[1], along[0]);
    for (int side : {-1, 1}) {
        const cv::Vec2d base = cv::Vec2d(c.x, c.y) + across * (side * gap);
        const cv::Point p0(static_cast<int>(base[0] - along[0] * len / 2),
                           static_cast<int>(base[1] - along[1] * len / 2));
        const cv::Point p1(static_cast<int>(base[0] + along[0] * len / 2),
                           static_cast<int>(base[1] + along[1] * len / 2));
        cv::line(img, p0, p1, cv::Scalar(35, 35, 40), static_cast<int>(std::max(2.0, 2.5 * scale)),
                 cv::LINE_AA);
    }
    return img;
}

GroundTruth TabletopScene::groundTruth(const std::string &instruction) const
{
    GroundTruth gt;
    const auto words = parseInstruction(instruction);
    if (!words || !m_state.blocks.count(words->block) || !m_state.targets.count(words->target)) {
        gt.details = {{"error", "the instruction names no block/target of this scene"}};
        return gt;
    }
    const auto &s = m_state;
    const cv::Vec2d block = s.blocks.at(words->block);
    const cv::Vec2d target = s.targets.at(words->target);
    const bool held = s.held && *s.held == words->block;
    const double half = kTargetSize / 2;
    const bool inside =
        std::fabs(block[0] - target[0]) <= half && std::fabs(block[1] - target[1]) <= half;
    const double toTarget = distance(block, target);
    const double nearBlock = distance(block, {s.ee[0], s.ee[1]});
    gt.success = inside && !held;
    if (gt.success)
        gt.progress = 5;
    else if (held && inside)
        gt.progress = 4;
    else if (held && s.ee[2] > 0.04)
        gt.progress = 3;
    else if (held || distance(block, s.blockStarts.at(words->block)) > 0.03)
        gt.progress = 2;
    else if (nearBlock < 0.03)
        gt.progress = 1;
    gt.details = {{"block", words->block},
                  {"target", words->target},
                  {"block_xy_m", {block[0], block[1]}},
                  {"distance_to_target_m", toTarget},
                  {"held", held},
                  {"wrong_block_moved", [&] {
                       for (const auto &[name, p] : s.blocks) {
                           if (name != words->block && distance(p, s.blockStarts.at(name)) > 0.03)
                               return true;
                       }
                       return false;
                   }()}};
    return gt;
}

std::vector<double> TabletopScene::proprio() const
{
    return {m_state.ee[0], m_state.ee[1], m_state.ee[2], m_state.yaw,
            m_state.gripperOpen ? 1.0 : 0.0};
}

} // namespace kosmos::synthetic
