#include "media/VideoDecoder.h"

#include "util/Error.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <memory>

namespace kosmos {

namespace {

std::string averror(int code)
{
    char buffer[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, buffer, sizeof buffer);
    return buffer;
}

struct FormatCloser
{
    void operator()(AVFormatContext *c) const { avformat_close_input(&c); }
};
struct CodecFreer
{
    void operator()(AVCodecContext *c) const { avcodec_free_context(&c); }
};
struct FrameFreer
{
    void operator()(AVFrame *f) const { av_frame_free(&f); }
};
struct PacketFreer
{
    void operator()(AVPacket *p) const { av_packet_free(&p); }
};
struct SwsFreer
{
    void operator()(SwsContext *s) const { sws_freeContext(s); }
};

} // namespace

DecodedVideo decodeVideo(const std::filesystem::path &path,
                         const std::optional<VideoWindow> &window)
{
    // Kosmos reports decode failures itself, naming the file; keep FFmpeg's own log quiet.
    static const bool quiet = [] {
        av_log_set_level(AV_LOG_FATAL);
        return true;
    }();
    (void)quiet;
    const std::string where = path.string();
    auto fail = [&](const std::string &what) -> void {
        throw Error(ErrorCode::InvalidInput, "cannot decode video " + where + ": " + what);
    };
    AVFormatContext *rawFormat = nullptr;
    int rc = avformat_open_input(&rawFormat, where.c_str(), nullptr, nullptr);
    if (rc < 0)
        fail(averror(rc));
    std::unique_ptr<AVFormatContext, FormatCloser> format(rawFormat);
    if ((rc = avformat_find_stream_info(format.get(), nullptr)) < 0)
        fail(averror(rc));
    const AVCodec *codec = nullptr;
    const int streamIndex =
        av_find_best_stream(format.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (streamIndex < 0 || !codec)
        fail("no video stream");
    AVStream *stream = format->streams[streamIndex];
    std::unique_ptr<AVCodecContext, CodecFreer> ctx(avcodec_alloc_context3(codec));
    avcodec_parameters_to_context(ctx.get(), stream->codecpar);
    if ((rc = avcodec_open2(ctx.get(), codec, nullptr)) < 0)
        fail(averror(rc));

    DecodedVideo video;
    video.codec = codec->name;
    if (stream->avg_frame_rate.num > 0 && stream->avg_frame_rate.den > 0)
        video.fps = av_q2d(stream->avg_frame_rate);
    std::unique_ptr<AVFrame, FrameFreer> frame(av_frame_alloc());
    std::unique_ptr<AVPacket, PacketFreer> packet(av_packet_alloc());
    std::unique_ptr<SwsContext, SwsFreer> sws;
    const double timeBase = av_q2d(stream->time_base);
    constexpr double kEdge = 1e-6; // a window's edges hold the frames exactly on them
    bool past = false;             // a frame after the window was decoded: stop reading
    std::size_t decoded = 0;       // every frame decoded, kept or not (times without a pts)
    if (window && window->from > 0) {
        const auto target = static_cast<int64_t>(window->from / timeBase);
        // Back to the key frame at or before the window; a file that cannot seek is read from
        // its start (the frames before the window are skipped below).
        if (av_seek_frame(format.get(), streamIndex, target, AVSEEK_FLAG_BACKWARD) >= 0)
            avcodec_flush_buffers(ctx.get());
    }

    auto drain = [&]() {
        while (true) {
            const int r = avcodec_receive_frame(ctx.get(), frame.get());
            if (r == AVERROR(EAGAIN) || r == AVERROR_EOF)
                return;
            if (r < 0)
                fail(averror(r));
            const int64_t pts = frame->best_effort_timestamp;
            const double t = pts == AV_NOPTS_VALUE
                                 ? static_cast<double>(decoded) / (video.fps > 0 ? video.fps : 1.0)
                                 : static_cast<double>(pts) * timeBase;
            ++decoded;
            if (window && (t < window->from - kEdge || t > window->to + kEdge)) {
                past = past || t > window->to + kEdge;
                av_frame_unref(frame.get());
                continue;
            }
            sws.reset(sws_getCachedContext(sws.release(), frame->width, frame->height,
                                           static_cast<AVPixelFormat>(frame->format), frame->width,
                                           frame->height, AV_PIX_FMT_RGB24,
                                           SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT,
                                           nullptr, nullptr, nullptr));
            if (!sws)
                fail("unsupported pixel format");
            cv::Mat rgb(frame->height, frame->width, CV_8UC3);
            uint8_t *dst[4] = {rgb.data, nullptr, nullptr, nullptr};
            int dstStride[4] = {static_cast<int>(rgb.step), 0, 0, 0};
            sws_scale(sws.get(), frame->data, frame->linesize, 0, frame->height, dst, dstStride);
            video.timestamps.push_back(t);
            video.frames.push_back(rgb);
            av_frame_unref(frame.get());
        }
    };
    while (!past && av_read_frame(format.get(), packet.get()) >= 0) {
        if (packet->stream_index == streamIndex) {
            if ((rc = avcodec_send_packet(ctx.get(), packet.get())) < 0 && rc != AVERROR(EAGAIN))
                fail(averror(rc));
            drain();
        }
        av_packet_unref(packet.get());
    }
    avcodec_send_packet(ctx.get(), nullptr);
    drain();
    if (video.frames.empty())
        fail(window ? "no frame between " + std::to_string(window->from) + " s and " +
                          std::to_string(window->to) + " s"
                    : std::string("the stream holds no decodable frame"));
    return video;
}

std::string encodeVideo(const std::filesystem::path &path, const std::vector<cv::Mat> &frames,
                        int fps, VideoFor use)
{
    const std::string where = path.string();
    auto fail = [&](const std::string &what) -> void {
        throw Error(ErrorCode::Io, "cannot encode video " + where + ": " + what);
    };
    if (frames.empty())
        fail("no frames");
    AVFormatContext *rawFormat = nullptr;
    int rc = avformat_alloc_output_context2(&rawFormat, nullptr, nullptr, where.c_str());
    if (rc < 0 || !rawFormat)
        fail(averror(rc));
    std::unique_ptr<AVFormatContext, void (*)(AVFormatContext *)> format(
        rawFormat, [](AVFormatContext *c) {
            if (c->pb)
                avio_closep(&c->pb);
            avformat_free_context(c);
        });
    const bool mkv = path.extension() == ".mkv";
    // libx264 reports its settings at the info level on every file: warnings and errors only.
    if (av_log_get_level() > AV_LOG_WARNING)
        av_log_set_level(AV_LOG_WARNING);
    const AVCodec *codec = nullptr;
    const bool lerobot = use == VideoFor::LeRobot || use == VideoFor::LeRobotLossless;
    const bool rgb = use == VideoFor::LeRobotLossless;
    if (!mkv && (use == VideoFor::Browsers || lerobot))
        codec = avcodec_find_encoder_by_name(rgb ? "libx264rgb" : "libx264");
    if (lerobot && !codec) // LeRobot's readers expect H.264 (or AV1, HEVC): no fallback
        fail(std::string(rgb ? "libx264rgb" : "libx264") + " is not in this FFmpeg");
    const bool h264 = codec != nullptr;
    if (!codec)
        codec = avcodec_find_encoder(mkv ? AV_CODEC_ID_FFV1 : AV_CODEC_ID_MPEG4);
    if (!codec)
        fail("encoder not available");
    AVStream *stream = avformat_new_stream(format.get(), nullptr);
    std::unique_ptr<AVCodecContext, CodecFreer> ctx(avcodec_alloc_context3(codec));
    // yuv420p needs an even size: H.264 drops the odd last row/column (scaled from the full frame).
    ctx->width = h264 && !rgb ? frames[0].cols & ~1 : frames[0].cols;
    ctx->height = h264 && !rgb ? frames[0].rows & ~1 : frames[0].rows;
    if (ctx->width == 0 || ctx->height == 0)
        fail("frames of " + std::to_string(frames[0].cols) + "x" + std::to_string(frames[0].rows) +
             " are too small");
    ctx->time_base = AVRational{1, fps};
    ctx->framerate = AVRational{fps, 1};
    ctx->pix_fmt = mkv ? AV_PIX_FMT_BGR0 : rgb ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUV420P;
    AVDictionary *options = nullptr;
    if (h264) {
        ctx->thread_count = 0; // x264's own choice for this machine, as the ffmpeg CLI does
        // LeRobot's encoding: a key frame every 2 frames, so any frame decodes after a short seek.
        ctx->gop_size = lerobot ? 2 : std::max(1, fps * 2);
        av_dict_set(&options, "crf", rgb ? "0" : "18", 0);
        av_dict_set(&options, "preset", lerobot ? "fast" : "medium", 0);
    } else {
        ctx->gop_size = 1;
    }
    if (!mkv && !h264) {
        ctx->flags |= AV_CODEC_FLAG_QSCALE;
        ctx->global_quality = FF_QP2LAMBDA * 1;
    }
    if (format->oformat->flags & AVFMT_GLOBALHEADER)
        ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    rc = avcodec_open2(ctx.get(), codec, &options);
    av_dict_free(&options);
    if (rc < 0)
        fail(averror(rc));
    avcodec_parameters_from_context(stream->codecpar, ctx.get());
    stream->time_base = ctx->time_base;
    if ((rc = avio_open(&format->pb, where.c_str(), AVIO_FLAG_WRITE)) < 0)
        fail(averror(rc));
    AVDictionary *muxer = nullptr;
    if (h264)
        av_dict_set(&muxer, "movflags", "+faststart", 0);
    rc = avformat_write_header(format.get(), &muxer);
    av_dict_free(&muxer);
    if (rc < 0)
        fail(averror(rc));
    std::unique_ptr<SwsContext, SwsFreer> sws(
        sws_getContext(frames[0].cols, frames[0].rows, AV_PIX_FMT_RGB24, ctx->width, ctx->height,
                       ctx->pix_fmt, SWS_BICUBIC, nullptr, nullptr, nullptr));
    std::unique_ptr<AVFrame, FrameFreer> frame(av_frame_alloc());
    frame->format = ctx->pix_fmt;
    frame->width = ctx->width;
    frame->height = ctx->height;
    av_frame_get_buffer(frame.get(), 0);
    std::unique_ptr<AVPacket, PacketFreer> packet(av_packet_alloc());
    auto writePackets = [&]() {
        while (avcodec_receive_packet(ctx.get(), packet.get()) == 0) {
            // A packet with duration 0 loses the last frame in MP4 (build-notes pitfall 6).
            if (packet->duration == 0)
                packet->duration = 1;
            av_packet_rescale_ts(packet.get(), ctx->time_base, stream->time_base);
            packet->stream_index = stream->index;
            av_interleaved_write_frame(format.get(), packet.get());
        }
    };
    for (std::size_t i = 0; i < frames.size(); ++i) {
        av_frame_make_writable(frame.get());
        const uint8_t *src[4] = {frames[i].data, nullptr, nullptr, nullptr};
        const int srcStride[4] = {static_cast<int>(frames[i].step), 0, 0, 0};
        if (frames[i].cols != frames[0].cols || frames[i].rows != frames[0].rows)
            fail("frame " + std::to_string(i) + " is not the size of the first");
        sws_scale(sws.get(), src, srcStride, 0, frames[0].rows, frame->data, frame->linesize);
        frame->pts = static_cast<int64_t>(i);
        if (avcodec_send_frame(ctx.get(), frame.get()) < 0)
            fail("encoder refused frame " + std::to_string(i));
        writePackets();
    }
    avcodec_send_frame(ctx.get(), nullptr);
    writePackets();
    if ((rc = av_write_trailer(format.get())) < 0)
        fail(averror(rc));
    return h264 ? "h264" : mkv ? "ffv1" : "mpeg4";
}

} // namespace kosmos
