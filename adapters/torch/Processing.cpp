#include "Processing.h"

#include "util/Error.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace kosmos::torchadapters {

cv::Mat squareImage(const cv::Mat &rgb, int size)
{
    if (rgb.empty() || rgb.type() != CV_8UC3)
        throw Error(ErrorCode::InvalidInput, "policy input: expected an 8-bit RGB image");
    if (rgb.cols == size && rgb.rows == size)
        return rgb.clone();
    cv::Mat out;
    const bool shrink = rgb.cols > size || rgb.rows > size;
    cv::resize(rgb, out, cv::Size(size, size), 0, 0, shrink ? cv::INTER_AREA : cv::INTER_LANCZOS4);
    return out;
}

cv::Mat openVlaImage(const cv::Mat &rgb, int size)
{
    cv::Mat image = squareImage(rgb, 256);
    // JPEG round trip, as the reference client does (OpenCV encodes BGR).
    cv::Mat bgr;
    cv::cvtColor(image, bgr, cv::COLOR_RGB2BGR);
    std::vector<unsigned char> jpeg;
    cv::imencode(".jpg", bgr, jpeg, {cv::IMWRITE_JPEG_QUALITY, 95});
    cv::Mat decoded = cv::imdecode(jpeg, cv::IMREAD_COLOR);
    cv::cvtColor(decoded, image, cv::COLOR_BGR2RGB);
    cv::Mat out;
    cv::resize(image, out, cv::Size(size, size), 0, 0, cv::INTER_LANCZOS4);
    return out;
}

std::vector<float> chwFloat(const cv::Mat &rgb)
{
    if (rgb.type() != CV_8UC3)
        throw Error(ErrorCode::InvalidInput, "chwFloat: expected an 8-bit RGB image");
    const int h = rgb.rows, w = rgb.cols;
    std::vector<float> out(static_cast<std::size_t>(3 * h * w));
    for (int y = 0; y < h; ++y) {
        const auto *row = rgb.ptr<cv::Vec3b>(y);
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c)
                out[(static_cast<std::size_t>(c) * static_cast<std::size_t>(h) +
                     static_cast<std::size_t>(y)) *
                        static_cast<std::size_t>(w) +
                    static_cast<std::size_t>(x)] = static_cast<float>(row[x][c]) / 255.0f;
    }
    return out;
}

std::string openVlaPrompt(const std::string &instruction)
{
    std::string lower = instruction;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return "In: What action should the robot take to " + lower + "?\nOut:";
}

std::string miniVlaPrompt(const std::string &instruction, const std::string &tmpl)
{
    std::string lower = instruction;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string text = tmpl.empty() ? "<|im_start|>user\nWhat action should the robot take to "
                                      "{instruction}?<|im_end|>\n<|im_start|>assistant\n"
                                    : tmpl;
    const std::string key = "{instruction}";
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + lower.size()))
        text.replace(at, key.size(), lower);
    return text;
}

double binCentre(int index, int nBins)
{
    // bins = linspace(-1, 1, nBins); centre i = (bins[i] + bins[i + 1]) / 2.
    const double step = 2.0 / (nBins - 1);
    return -1.0 + step * index + step / 2.0;
}

std::vector<double> decodeActionTokens(const std::vector<std::int64_t> &tokens, int vocabSize,
                                       int nBins)
{
    std::vector<double> out;
    out.reserve(tokens.size());
    for (const std::int64_t t : tokens) {
        const std::int64_t idx =
            std::clamp<std::int64_t>(vocabSize - t - 1, 0, static_cast<std::int64_t>(nBins - 2));
        out.push_back(binCentre(static_cast<int>(idx), nBins));
    }
    return out;
}

bool isActionToken(std::int64_t token, int vocabSize, int nBins)
{
    return token >= vocabSize - nBins && token < vocabSize;
}

double bridgeGripperPlusMinusOne(double a)
{
    return a > 0.5 ? 1.0 : -1.0;
}

double plusMinusOneToZeroOne(double a)
{
    return a > 0.0 ? 1.0 : 0.0;
}

TemporalEnsembler::TemporalEnsembler(int horizon, double expWeight)
    : m_horizon(horizon), m_k(expWeight)
{
    if (horizon < 1)
        throw Error(ErrorCode::InvalidInput, "temporal ensembling: horizon must be 1 or more");
}

std::vector<double> TemporalEnsembler::weights(int n) const
{
    std::vector<double> w(static_cast<std::size_t>(n));
    double sum = 0;
    for (int i = 0; i < n; ++i)
        sum += w[static_cast<std::size_t>(i)] = std::exp(-m_k * i);
    for (double &v : w)
        v /= sum;
    return w;
}

Action TemporalEnsembler::push(const ActionChunk &chunk)
{
    if (static_cast<int>(chunk.size()) < m_horizon)
        throw Error(ErrorCode::InvalidInput,
                    "temporal ensembling: a chunk of " + std::to_string(chunk.size()) +
                        " actions is shorter than the horizon " + std::to_string(m_horizon));
    m_history.emplace_back(chunk.begin(), chunk.begin() + m_horizon);
    if (static_cast<int>(m_history.size()) > m_horizon)
        m_history.pop_front();
    const int n = static_cast<int>(m_history.size());
    const auto w = weights(n);
    Action out(chunk.front().size(), 0.0);
    for (int i = 0; i < n; ++i) {
        // The i-th oldest chunk predicted this step as its (n - 1 - i)-th action.
        const Action &prediction =
            m_history[static_cast<std::size_t>(i)][static_cast<std::size_t>(n - 1 - i)];
        for (std::size_t d = 0; d < out.size(); ++d)
            out[d] += w[static_cast<std::size_t>(i)] * prediction[d];
    }
    return out;
}

ObservationHistory::ObservationHistory(int window) : m_window(window)
{
    if (window < 1)
        throw Error(ErrorCode::InvalidInput, "observation history: window must be 1 or more");
}

void ObservationHistory::push(const cv::Mat &frame)
{
    if (m_frames.empty())
        for (int i = 0; i < m_window; ++i)
            m_frames.push_back(frame);
    else {
        m_frames.push_back(frame);
        m_frames.pop_front();
    }
    ++m_seen;
}

std::vector<bool> ObservationHistory::padMask() const
{
    std::vector<bool> mask(static_cast<std::size_t>(m_window), false);
    for (int i = 0; i < m_window; ++i)
        mask[static_cast<std::size_t>(i)] = i >= m_window - m_seen;
    return mask;
}

void ObservationHistory::reset()
{
    m_frames.clear();
    m_seen = 0;
}

bool needsSubgoal(int step, int every)
{
    return every > 0 && step % every == 0;
}

double StickyGripper::apply(double requested)
{
    const double asked = requested > 0.5 ? 1.0 : 0.0;
    if (asked == m_state) {
        m_asking = 0;
    } else if (++m_asking >= m_repeat) {
        m_state = asked;
        m_asking = 0;
    }
    return m_state;
}

void StickyGripper::reset()
{
    m_state = 1.0;
    m_asking = 0;
}

ActionChunk scaleForWorld(const ActionChunk &chunk, double scale, int scaledDims)
{
    ActionChunk out = chunk;
    for (auto &a : out)
        for (int d = 0; d < scaledDims && d < static_cast<int>(a.size()); ++d)
            a[static_cast<std::size_t>(d)] *= scale;
    return out;
}

} // namespace kosmos::torchadapters
