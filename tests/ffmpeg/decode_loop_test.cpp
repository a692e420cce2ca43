// media/'s one demux/decode loop (decode_loop.hpp): what its callers rely on (a pausing sink,
// the end of the stream, where an error happened), and the segment decoder (several software
// decoders on segments cut at IDR pictures) giving exactly the frames of the reader (one
// decoder from the start), in the number the encode was made with.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "decode_loop.hpp"
#include "decoder_pool.hpp"
#include "ffmpeg_reader.hpp"
#include "ffmpeg_test_util.hpp"
#include "frame_source.hpp"
#include "segment_decoder.hpp"
#include "segment_sharing.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/log.h>
}

namespace vif::fftest {
namespace {

const int kQuiet = (av_log_set_level(AV_LOG_ERROR), 0);
constexpr int kFrames = 75;

// H.264 with an IDR picture every 10 frames (so that segments can be cut), made once.
std::string short_gop_h264(const std::string& ffmpeg, std::string* why) {
    static std::string path;
    if (!path.empty()) return path;
    const std::string out = temp_dir() + "/short_gop.mp4";
    const CommandResult r = run_command(
        shell_quote(ffmpeg) + " -hide_banner -loglevel error -nostdin -y -f lavfi -i " +
        "testsrc2=s=128x72:r=25:d=3 -frames:v " + std::to_string(kFrames) +
        " -pix_fmt yuv420p -c:v libx264 -preset ultrafast -threads 1 -g 10 -keyint_min 10 "
        "-sc_threshold 0 -bf 2 " +
        shell_quote(out));
    if (r.status != 0) {
        *why = r.output;
        return "";
    }
    return path = out;
}

// A bigger clip of the same kind (640x360, 120 frames, an IDR picture every 10), so that one
// software decoder takes a while over it: NVDEC's stand-ins joining then get segments too.
std::string bigger_h264(const std::string& ffmpeg, std::string* why) {
    static std::string path;
    if (!path.empty()) return path;
    const std::string out = temp_dir() + "/short_gop_360p.mp4";
    const CommandResult r = run_command(
        shell_quote(ffmpeg) + " -hide_banner -loglevel error -nostdin -y -f lavfi -i " +
        "testsrc2=s=640x360:r=25:d=5 -frames:v 120 -pix_fmt yuv420p -c:v libx264 -preset "
        "ultrafast -threads 1 -g 10 -keyint_min 10 -sc_threshold 0 -bf 2 " +
        shell_quote(out));
    if (r.status != 0) {
        *why = r.output;
        return "";
    }
    return path = out;
}

// The same in HEVC (libx265), for the decoders kept from one input to the next.
std::string short_gop_hevc(const std::string& ffmpeg, std::string* why) {
    static std::string path;
    if (!path.empty()) return path;
    const std::string out = temp_dir() + "/short_gop_hevc.mp4";
    const CommandResult r = run_command(
        shell_quote(ffmpeg) + " -hide_banner -loglevel error -nostdin -y -f lavfi -i " +
        "testsrc2=s=128x72:r=25:d=3 -frames:v " + std::to_string(kFrames) +
        " -pix_fmt yuv420p -c:v libx265 -x265-params "
        "log-level=error:pools=1:frame-threads=1:keyint=10:min-keyint=10:scenecut=0:bframes=2:"
        "open-gop=0 " +
        shell_quote(out));
    if (r.status != 0) {
        *why = r.output;
        return "";
    }
    return path = out;
}

// The reader's luma planes of `path` (rows packed), its first `limit` frames at most: the
// frames every segment decoder test compares with. False with *err when the reader fails.
bool reader_planes(const std::string& path, size_t limit, std::vector<std::vector<uint8_t>>* out,
                   std::string* err) {
    ffmpeg::VideoReader reader;
    if (!reader.open(path, 1, err)) return false;
    VifPicture pic;
    int r = 1;
    while (out->size() < limit && (r = reader.next(&pic, err)) == 1) {
        std::vector<uint8_t> plane(size_t(pic.width) * pic.height);
        for (uint32_t y = 0; y < pic.height; ++y)
            std::memcpy(plane.data() + size_t(y) * pic.width,
                        static_cast<const uint8_t*>(pic.data) + ptrdiff_t(y) * pic.stride,
                        pic.width);
        out->push_back(std::move(plane));
    }
    return r >= 0;
}

#define VIF_REQUIRE_ENCODE(var)                                                                    \
    VIF_REQUIRE_FFMPEG(ffmpeg_bin_);                                                               \
    std::string why_;                                                                              \
    const std::string var = short_gop_h264(ffmpeg_bin_, &why_);                                    \
    if (var.empty()) GTEST_SKIP() << "no libx264 encode: " << why_

// An opened input and its decoder, for driving DecodeLoop directly.
struct Opened {
    media::VideoInput in;
    AVCodecContext* dec = nullptr;
    ~Opened() {
        avcodec_free_context(&dec);
        avformat_close_input(&in.fmt);
    }
    bool open(const std::string& path, std::string* err) {
        if (!media::open_video_input(path, nullptr, -1, &in, err)) return false;
        dec = avcodec_alloc_context3(in.codec);
        return dec &&
               avcodec_parameters_to_context(dec, in.fmt->streams[in.stream]->codecpar) >= 0 &&
               avcodec_open2(dec, in.codec, nullptr) == 0;
    }
};

// The stream's packets; after `fail_after` of them, an error.
struct Packets : media::PacketSource {
    media::StreamDemuxer demuxer;
    uint64_t fail_after;
    Packets(const Opened& o, uint64_t fail = UINT64_MAX)
        : demuxer(o.in.fmt, o.in.stream), fail_after(fail) {}
    int read(AVPacket* pkt, std::string* error) override {
        if (demuxer.packets() >= fail_after) {
            *error = "source gave up";
            return -1;
        }
        const int r = demuxer.read(pkt);
        return r < 0 ? (*error = "read error", -1) : r;
    }
};

// Counts frames; pauses after each one (pause) or fails at frame `fail_at`.
struct Counter : media::FrameSink {
    bool pause = false;
    int fail_at = -1;
    int frames = 0;
    int take(AVFrame* f, std::string* error) override {
        if (!f->data[0]) return -1;
        if (frames == fail_at) {
            *error = "sink refused";
            return -1;
        }
        ++frames;
        return pause ? 0 : 1;
    }
};

TEST(DecodeLoop, HandsOutEveryFrameThenEnds) {
    VIF_REQUIRE_ENCODE(mp4);
    Opened o;
    std::string err;
    ASSERT_TRUE(o.open(mp4, &err)) << err;
    Packets src(o);
    media::DecodeLoop loop(o.dec, &src);
    Counter sink;
    EXPECT_EQ(loop.run(&sink, &err), 0) << err;
    EXPECT_EQ(sink.frames, kFrames);
    EXPECT_TRUE(loop.flushed());
    EXPECT_EQ(loop.failed_at(), media::DecodeStep::none);
    EXPECT_EQ(src.demuxer.packets(), uint64_t(kFrames));
    EXPECT_EQ(loop.run(&sink, &err), 0); // stays at the end
    EXPECT_EQ(sink.frames, kFrames);
}

TEST(DecodeLoop, APausingSinkGetsOneFrameARun) {
    VIF_REQUIRE_ENCODE(mp4);
    Opened o;
    std::string err;
    ASSERT_TRUE(o.open(mp4, &err)) << err;
    Packets src(o);
    media::DecodeLoop loop(o.dec, &src);
    Counter sink;
    sink.pause = true;
    int runs = 0;
    while (loop.run(&sink, &err) == 1) {
        ++runs;
        ASSERT_EQ(sink.frames, runs);
    }
    EXPECT_EQ(runs, kFrames);
    EXPECT_EQ(loop.failed_at(), media::DecodeStep::none) << err;
}

TEST(DecodeLoop, SaysWhichStepFailed) {
    VIF_REQUIRE_ENCODE(mp4);
    {
        Opened o;
        std::string err;
        ASSERT_TRUE(o.open(mp4, &err)) << err;
        Packets src(o, 20);
        media::DecodeLoop loop(o.dec, &src);
        Counter sink;
        EXPECT_EQ(loop.run(&sink, &err), -1);
        EXPECT_EQ(loop.failed_at(), media::DecodeStep::source);
        EXPECT_EQ(err, "source gave up");
        EXPECT_FALSE(loop.flushed());
        EXPECT_LT(sink.frames, 20); // frames of the packets sent, less those the decoder holds
    }
    {
        Opened o;
        std::string err;
        ASSERT_TRUE(o.open(mp4, &err)) << err;
        Packets src(o);
        media::DecodeLoop loop(o.dec, &src);
        Counter sink;
        sink.fail_at = 5;
        EXPECT_EQ(loop.run(&sink, &err), -1);
        EXPECT_EQ(loop.failed_at(), media::DecodeStep::sink);
        EXPECT_EQ(err, "sink refused");
        EXPECT_EQ(sink.frames, 5);
    }
}

TEST(DecodeLoop, OpenVideoInputNamesTheProblem) {
    media::VideoInput in;
    std::string err;
    EXPECT_FALSE(media::open_video_input(temp_dir() + "/missing.mkv", nullptr, -1, &in, &err));
    EXPECT_EQ(err.rfind("cannot open: ", 0), 0u) << err;
    EXPECT_EQ(in.fmt, nullptr);
}

// The segment decoder in software, several decoders: the frames of the reader, byte for byte.
TEST(SegmentDecoder, SoftwareSegmentsGiveTheReadersFrames) {
    VIF_REQUIRE_ENCODE(mp4);
    std::string err;
    std::vector<std::vector<uint8_t>> want;
    ASSERT_TRUE(reader_planes(mp4, SIZE_MAX, &want, &err)) << err;
    ASSERT_EQ(want.size(), size_t(kFrames));

    vifcli::SegmentDecoderOptions opt;
    opt.cuda = false;
    opt.decoders = 3;
    opt.min_segment_frames = 10;
    vifcli::SegmentDecoder dec(mp4, "test", opt);
    ASSERT_EQ(dec.width(), 128u);
    ASSERT_EQ(dec.height(), 72u);
    vifcli::DecodedFrame f;
    size_t n = 0;
    while (dec.next(&f)) {
        ASSERT_LT(n, want.size());
        ASSERT_NE(f.frame, nullptr);
        EXPECT_EQ(f.index, n);
        bool same = true;
        for (int y = 0; y < 72 && same; ++y)
            same = std::memcmp(f.frame->data[0] + ptrdiff_t(y) * f.frame->linesize[0],
                               want[n].data() + size_t(y) * 128, 128) == 0;
        EXPECT_TRUE(same) << "frame " << n;
        dec.release(&f);
        ++n;
    }
    EXPECT_EQ(n, want.size());
    EXPECT_GT(dec.segments(), 3u); // cut at the IDR pictures, 10 frames apart
}

// Decoder sessions an input costs: the probe's decoder goes on as decoder 0 (one opened, none
// flushed), and the frames are the reader's whether it goes on or starts again (flushed: one
// session more with NVDEC's H.264), with one decoder or three. B-frames make the probe feed
// several packets before its first frame.
TEST(SegmentDecoder, TheProbesDecoderGoesOnAsDecoderZero) {
    VIF_REQUIRE_ENCODE(mp4);
    std::string err;
    std::vector<std::vector<uint8_t>> want;
    ASSERT_TRUE(reader_planes(mp4, SIZE_MAX, &want, &err)) << err;
    ASSERT_EQ(want.size(), size_t(kFrames));
    for (const unsigned decoders : {1u, 3u})
        for (const bool go_on : {true, false}) {
            SCOPED_TRACE("decoders " + std::to_string(decoders) + (go_on ? "" : ", restarted"));
            const vifcli::DecoderSessionCounts before = vifcli::decoder_session_counts();
            vifcli::SegmentDecoderOptions opt;
            opt.cuda = false;
            opt.decoders = decoders;
            opt.min_segment_frames = 10;
            opt.continue_probe = go_on;
            vifcli::SegmentDecoder dec(mp4, "test", opt);
            vifcli::DecodedFrame f;
            size_t n = 0;
            while (dec.next(&f)) {
                ASSERT_LT(n, want.size());
                EXPECT_EQ(f.index, n);
                bool same = true;
                for (int y = 0; y < 72 && same; ++y)
                    same = std::memcmp(f.frame->data[0] + ptrdiff_t(y) * f.frame->linesize[0],
                                       want[n].data() + size_t(y) * 128, 128) == 0;
                EXPECT_TRUE(same) << "frame " << n;
                dec.release(&f);
                ++n;
            }
            EXPECT_EQ(n, want.size());
            dec.stop();
            const vifcli::DecoderSessionCounts after = vifcli::decoder_session_counts();
            EXPECT_EQ(after.opened - before.opened, decoders);
            EXPECT_EQ(after.flushed - before.flushed, go_on ? 0u : 1u);
        }
}

// Software decoders first, NVDEC joining mid-stream (here software stand-ins in its place, the
// sharing rules being the same): the frames of the reader, in order, byte for byte, however the
// segments were shared; a run that NVDEC never joins is decoded by the software decoders alone.
TEST(SegmentDecoder, SoftwareFirstThenJoinedGivesTheReadersFrames) {
    VIF_REQUIRE_FFMPEG(ffmpeg_bin_);
    std::string why;
    const std::string mp4 = bigger_h264(ffmpeg_bin_, &why);
    if (mp4.empty()) GTEST_SKIP() << "no libx264 encode: " << why;
    std::string err;
    std::vector<std::vector<uint8_t>> want;
    ASSERT_TRUE(reader_planes(mp4, SIZE_MAX, &want, &err)) << err;
    ASSERT_EQ(want.size(), 120u);
    // join_at: frames handed out before NVDEC joins (-1: it never does). Which decoder gets
    // which segment depends on timing (the rule itself: SegmentSharing below): every try is
    // checked; those joined mid-stream have had their first segments from software.
    bool mixed = false;
    for (const int join_at : {-1, 0, 0, 0, 7, 25, -25}) {
        // -25: joined after 25 frames, the software decoder stopping once the stand-ins run.
        const bool beside = join_at >= -1;
        SCOPED_TRACE("joined after " + std::to_string(join_at) + " frames");
        vifcli::SegmentDecoderOptions opt;
        opt.cuda = false;
        opt.nvdec_later = true;
        opt.stand_ins_for_nvdec = true;
        opt.decoders = 2;
        opt.software_decoders = 1;
        opt.min_segment_frames = 10;
        opt.software_beside_nvdec = beside;
        vifcli::SegmentDecoder dec(mp4, "test", opt);
        vifcli::DecodedFrame f;
        size_t n = 0;
        if (join_at == 0) dec.join_nvdec();
        while (dec.next(&f)) {
            ASSERT_LT(n, want.size());
            ASSERT_NE(f.frame, nullptr);
            EXPECT_EQ(f.index, n);
            bool same = true;
            for (int y = 0; y < 360 && same; ++y)
                same = std::memcmp(f.frame->data[0] + ptrdiff_t(y) * f.frame->linesize[0],
                                   want[n].data() + size_t(y) * 640, 640) == 0;
            EXPECT_TRUE(same) << "frame " << n;
            dec.release(&f);
            ++n;
            if (join_at != 0 && join_at != -1 && n == size_t(std::abs(join_at))) dec.join_nvdec();
        }
        EXPECT_EQ(n, want.size());
        const vifcli::SegmentSharing sh = dec.sharing();
        EXPECT_EQ(sh.by_nvdec + sh.in_software, dec.segments());
        EXPECT_GE(dec.segments(), 10u);
        if (join_at == -1) {
            EXPECT_EQ(sh.by_nvdec, 0u);
        }
        mixed = mixed || (join_at != -1 && sh.by_nvdec > 0 && sh.in_software > 0);
    }
    EXPECT_TRUE(mixed) << "no run shared the segments between both kinds of decoder";
}

// max_packets (a run of --frames N): the demuxer stops there, the decoders drain, and every
// frame before the reordering margin is the reader's.
TEST(SegmentDecoder, MaxPacketsDecodesOnlyTheStart) {
    VIF_REQUIRE_ENCODE(mp4);
    std::string err;
    std::vector<std::vector<uint8_t>> want;
    ASSERT_TRUE(reader_planes(mp4, 20, &want, &err)) << err;
    ASSERT_EQ(want.size(), 20u);
    for (const unsigned decoders : {1u, 3u}) {
        SCOPED_TRACE("decoders " + std::to_string(decoders));
        vifcli::SegmentDecoderOptions opt;
        opt.cuda = false;
        opt.decoders = decoders;
        opt.min_segment_frames = 10;
        opt.max_packets = 24;
        vifcli::SegmentDecoder dec(mp4, "test", opt);
        vifcli::DecodedFrame f;
        size_t n = 0;
        while (dec.next(&f)) {
            if (n < want.size()) {
                bool same = true;
                for (int y = 0; y < 72 && same; ++y)
                    same = std::memcmp(f.frame->data[0] + ptrdiff_t(y) * f.frame->linesize[0],
                                       want[n].data() + size_t(y) * 128, 128) == 0;
                EXPECT_TRUE(same) << "frame " << n;
            }
            dec.release(&f);
            ++n;
        }
        EXPECT_EQ(n, 24u); // a frame a packet read, none after
    }
}

// The sharing rule (segment_sharing.hpp) on made-up states: 60-frame segments, NVDEC at 600
// frames a second (0.1 s a segment), a software decoder at 100 (0.6 s a segment: with the
// margin and slack it needs 0.95 s, 570 frames of NVDEC's, ahead of next()).
TEST(SegmentSharing, SoftwareBesideNvdecTakesOnlyWhatItFinishesInTime) {
    using vifcli::pick_segment;
    using vifcli::SegmentState;
    using vifcli::SharingPace;
    auto segs = [](int n, int taken, int handed_of_first) {
        std::vector<SegmentState> v(size_t(n), SegmentState{60, true, false, 0});
        for (int i = 0; i < taken; ++i) v[size_t(i)].taken = true;
        v[0].handed = handed_of_first;
        return v;
    };
    SharingPace none; // no NVDEC decoder yet: everyone takes the earliest segment left
    EXPECT_EQ(pick_segment(segs(12, 3, 0), true, none), 3);
    EXPECT_EQ(pick_segment(segs(12, 3, 0), false, none), 3);
    EXPECT_EQ(pick_segment(segs(3, 3, 0), true, none), -1);
    SharingPace p;
    p.nvdec_running = true;
    p.nvdec = 600;
    p.own = 100;
    EXPECT_EQ(pick_segment(segs(12, 3, 0), false, p), 3); // NVDEC: the earliest
    // Software: 570 frames must come first: segments 0..9 are 600, so segment 10.
    EXPECT_EQ(pick_segment(segs(12, 3, 0), true, p), 10);
    // What next() has handed out of segment 0 no longer counts: then segment 11.
    EXPECT_EQ(pick_segment(segs(12, 3, 40), true, p), 11);
    EXPECT_EQ(pick_segment(segs(10, 3, 0), true, p), -1); // none far enough ahead
    // A faster software decoder (300 frames a second: 0.35 s, 210 frames) takes segment 4.
    p.own = 300;
    EXPECT_EQ(pick_segment(segs(12, 3, 0), true, p), 4);
    // NVDEC's pace not known yet: a software decoder beside it waits.
    p.nvdec = 0;
    EXPECT_EQ(pick_segment(segs(12, 3, 0), true, p), -1);
    // Unmeasured software decoders are taken as a sixth of NVDEC's pace (100 here).
    p.nvdec = 600;
    p.own = 0;
    EXPECT_EQ(pick_segment(segs(12, 3, 0), true, p), 10);
    // Beside NVDEC, a segment still being read is not taken (its size is not known), though
    // it counts at least the usual size among those before.
    auto open = segs(12, 3, 0);
    for (auto& x : open) x.frames = 10, x.closed = false;
    p.usual_frames = 60;
    EXPECT_EQ(pick_segment(open, true, p), -1);
    open[11].closed = true;
    EXPECT_EQ(pick_segment(open, true, p), 11);
    // Nor one whose frames do not all fit the decoder's free buffers.
    p.room = 59;
    EXPECT_EQ(pick_segment(segs(12, 3, 0), true, p), -1);
    p.room = 60;
    EXPECT_EQ(pick_segment(segs(12, 3, 0), true, p), 10);
}

// Decoders kept from one input to the next (a batch, decoder_pool.hpp): an HEVC decoder that
// decoded an input to its end decodes the next input of the same shape, with no decoder opened,
// and every input gives the reader's frames (B-frames, IDR pictures 10 frames apart); with one
// decoder and with three (segments). H.264's are not kept.
// Single-threaded software decoders stand for NVDEC's here (the same flush and reuse).
TEST(SegmentDecoder, KeptDecodersGoOnWithTheNextInput) {
    VIF_REQUIRE_FFMPEG(ffmpeg_bin_);
    std::string why;
    const std::string mp4 = short_gop_hevc(ffmpeg_bin_, &why);
    if (mp4.empty()) GTEST_SKIP() << "no libx265 encode: " << why;
    std::string err;
    std::vector<std::vector<uint8_t>> want;
    ASSERT_TRUE(reader_planes(mp4, SIZE_MAX, &want, &err)) << err;
    ASSERT_EQ(want.size(), size_t(kFrames));
    vifcli::keep_decoders(true);
    int run = 0;
    auto decode_all = [&](unsigned decoders) {
        SCOPED_TRACE("run " + std::to_string(++run) + ", decoders " + std::to_string(decoders));
        vifcli::SegmentDecoderOptions opt;
        opt.cuda = false;
        opt.decoders = decoders;
        opt.threads_per_decoder = 1;
        opt.min_segment_frames = 10;
        vifcli::SegmentDecoder dec(mp4, "test", opt);
        vifcli::DecodedFrame f;
        size_t n = 0;
        while (dec.next(&f)) {
            if (n >= want.size()) break;
            bool same = true;
            for (int y = 0; y < 72 && same; ++y)
                same = std::memcmp(f.frame->data[0] + ptrdiff_t(y) * f.frame->linesize[0],
                                   want[n].data() + size_t(y) * 128, 128) == 0;
            EXPECT_TRUE(same) << "frame " << n;
            dec.release(&f);
            ++n;
        }
        EXPECT_EQ(n, want.size());
        if (decoders > 1) {
            EXPECT_GT(dec.segments(), 3u);
        }
        dec.stop();
    };
    // Decoders opened and taken from the kept ones since `a`.
    auto since = [](const vifcli::DecoderSessionCounts& a) {
        const vifcli::DecoderSessionCounts b = vifcli::decoder_session_counts();
        return std::vector<uint64_t>{b.opened - a.opened, b.reused - a.reused};
    };
    vifcli::DecoderSessionCounts c0 = vifcli::decoder_session_counts();
    decode_all(1);
    EXPECT_EQ(since(c0), (std::vector<uint64_t>{1, 0}));
    c0 = vifcli::decoder_session_counts();
    decode_all(1); // the kept one
    EXPECT_EQ(since(c0), (std::vector<uint64_t>{0, 1}));
    // Three decoders: the probe's takes the kept one; the two others open theirs on their own
    // threads, and one that comes late may find a decoder this input already gave back (a
    // 75-frame clip is soon decoded): three in all, at least one kept.
    for (int k = 0; k < 2; ++k) {
        c0 = vifcli::decoder_session_counts();
        decode_all(3);
        const std::vector<uint64_t> n = since(c0);
        EXPECT_EQ(n[0] + n[1], 3u);
        EXPECT_GE(n[1], 1u);
    }
    // H.264 decoders are not kept (a flush re-creates their hardware decoder).
    std::string why264;
    const std::string h264 = short_gop_h264(ffmpeg_bin_, &why264);
    if (!h264.empty()) {
        c0 = vifcli::decoder_session_counts();
        for (int k = 0; k < 2; ++k) {
            vifcli::SegmentDecoderOptions opt;
            opt.cuda = false;
            opt.threads_per_decoder = 1;
            vifcli::SegmentDecoder dec(h264, "test", opt);
            vifcli::DecodedFrame f;
            while (dec.next(&f)) dec.release(&f);
        }
        EXPECT_EQ(since(c0), (std::vector<uint64_t>{2, 0}));
    }
    vifcli::keep_decoders(false); // frees the kept ones
}

// A file FFmpeg cannot read: an InputError that names the input.
TEST(SegmentDecoder, NotAVideoFileIsAnInputError) {
    const std::string txt = temp_dir() + "/not_video_seg.txt";
    std::ofstream(txt) << "not a video\n";
    vifcli::SegmentDecoderOptions opt;
    opt.cuda = false;
    try {
        vifcli::SegmentDecoder dec(txt, "reference 'x'", opt);
        ADD_FAILURE() << "opened a text file";
    } catch (const vifcli::InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("reference 'x': ", 0), 0u) << e.what();
    }
}

} // namespace
} // namespace vif::fftest
