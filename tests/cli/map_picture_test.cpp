// `vif --map-format png|y4m` (docs/cli.md, "Per-pixel maps"): the pictures of the maps. A PNG is
// the frame's size with the legend band under it (decoded here with libpng, not with the code
// that wrote it); a hand-built pair with one blurred quadrant is drawn in the low (dark) colours
// there and in the colour of 1 where the filters cannot reach; the Y4M video has one frame per
// scored frame at the source's size and rate; bad requests leave nothing.
#include "cli/cli_harness.hpp"

#include <cstring>

#if VIF_CLI_HAS_PNG
#include <png.h>
#endif

namespace vif_cli_test {
namespace {

constexpr int kSide = 256, kQuad = 128; // the pair: 256x256 gray, top-left 128x128 blurred

// A textured frame and its copy with the top-left quadrant blurred (3 passes of a 9x9 box).
std::pair<std::string, std::string> blurred_quadrant_pair() {
    std::string ref(size_t(kSide) * kSide, '\0');
    uint32_t state = 12345;
    for (char &v : ref) {
        state = state * 1664525u + 1013904223u;
        v = char(32 + (state >> 24) * 3 / 4);
    }
    std::string dis = ref;
    for (int pass = 0; pass < 3; ++pass) {
        std::string next = dis;
        for (int i = 0; i < kQuad; ++i)
            for (int j = 0; j < kQuad; ++j) {
                int sum = 0, n = 0;
                for (int a = std::max(0, i - 4); a <= std::min(kQuad - 1, i + 4); ++a)
                    for (int b = std::max(0, j - 4); b <= std::min(kQuad - 1, j + 4); ++b, ++n)
                        sum += uint8_t(dis[size_t(a) * kSide + b]);
                next[size_t(i) * kSide + j] = char((sum + n / 2) / n);
            }
        dis.swap(next);
    }
    return {ref, dis};
}

// `frames` copies of a gray frame as a Y4M at 30000/1001 frames a second.
std::string as_y4m(const std::string &luma, int frames) {
    std::string out = "YUV4MPEG2 W256 H256 F30000:1001 Ip A1:1 Cmono\n";
    for (int f = 0; f < frames; ++f) out += "FRAME\n" + luma;
    return out;
}

bool inside_quadrant(int x, int y, int margin) {
    return x < kQuad - margin && y < kQuad - margin;
}
bool out_of_reach(int x, int y, int margin) {
    return x >= kQuad + margin || y >= kQuad + margin;
}

class MapPictures : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = (fs::temp_directory_path() /
                ("vif_map_picture_test_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                   .string();
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        const auto [ref, dis] = blurred_quadrant_pair();
        spit(dir_ + "/ref.y4m", as_y4m(ref, 3));
        spit(dir_ + "/dis.y4m", as_y4m(dis, 3));
    }
    void TearDown() override { fs::remove_all(dir_); }
    CliRun map_run(const std::vector<std::string> &extra) {
        std::vector<std::string> a = {
            kCli,     "-r", dir_ + "/ref.y4m", "-d", dir_ + "/dis.y4m", "-q",
            "--json", "-o", dir_ + "/s.json"};
        a.insert(a.end(), extra.begin(), extra.end());
        return run_argv(a, dir_);
    }
    std::string dir_;
};

#if VIF_CLI_HAS_PNG
struct Decoded {
    uint32_t w = 0, h = 0;
    std::vector<uint8_t> rgb;
    std::array<int, 3> at(int x, int y) const {
        const size_t i = (size_t(y) * w + x) * 3;
        return {rgb[i], rgb[i + 1], rgb[i + 2]};
    }
};

Decoded decode_png(const std::string &path) {
    const std::string bytes = slurp(path);
    png_image img{};
    img.version = PNG_IMAGE_VERSION;
    Decoded d;
    if (!png_image_begin_read_from_memory(&img, bytes.data(), bytes.size())) {
        ADD_FAILURE() << path << ": not a PNG: " << img.message;
        return d;
    }
    img.format = PNG_FORMAT_RGB;
    d.w = img.width;
    d.h = img.height;
    d.rgb.resize(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, nullptr, d.rgb.data(), 0, nullptr)) {
        ADD_FAILURE() << path << ": " << img.message;
        d = Decoded{};
    }
    return d;
}

TEST_F(MapPictures, PngIsTheFrameWithALegendAndTheBlurDrawnDark) {
    const CliRun r = map_run({"--map", dir_ + "/maps", "--map-format", "png", "--map-frames", "1",
                              "--map-scales", "0,1"});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(fs::exists(dir_ + "/maps/frame000001_scale0.png"));
    ASSERT_TRUE(fs::exists(dir_ + "/maps/frame000001_scale1.png"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/maps"), fs::directory_iterator{}), 2);
    for (int scale : {0, 1}) {
        SCOPED_TRACE("scale " + std::to_string(scale));
        const Decoded d =
            decode_png(dir_ + "/maps/frame000001_scale" + std::to_string(scale) + ".png");
        // The frame's size (every scale is drawn at it), plus the 40-row legend (under 640 wide).
        ASSERT_EQ(d.w, uint32_t(kSide));
        ASSERT_EQ(d.h, uint32_t(kSide + 40));
        // The legend: white band; the colour bar (band rows 13-24) from 0's colour at x = 8 to
        // 1's at x = width - 9 (docs/cli.md); black ink of the caption (rows 3-9) and of the
        // numbers under the bar (rows 31-37).
        const int band = kSide;
        EXPECT_EQ(d.at(kSide - 1, band), (std::array<int, 3>{255, 255, 255}));
        EXPECT_EQ(d.at(8, band + 18), (std::array<int, 3>{0, 0, 4}));
        EXPECT_EQ(d.at(kSide - 9, band + 18), (std::array<int, 3>{252, 255, 164}));
        EXPECT_EQ(d.at(7, band + 18), (std::array<int, 3>{255, 255, 255})) << "bar starts at 8";
        auto ink = [&](int y0, int y1) {
            int n = 0;
            for (int y = band + y0; y <= band + y1; ++y)
                for (int x = 0; x < kSide; ++x) n += d.at(x, y) == std::array<int, 3>{0, 0, 0};
            return n;
        };
        EXPECT_GT(ink(3, 9), 40) << "the caption";
        EXPECT_GT(ink(31, 37), 20) << "the numbers";
        // The picture: dark inside the blurred quadrant, 1's pale yellow out of its reach.
        const int margin = scale ? 40 : 24;
        double inside = 0;
        size_t n = 0;
        int pale_min = 255;
        for (int y = 0; y < kSide; ++y)
            for (int x = 0; x < kSide; ++x) {
                const auto c = d.at(x, y);
                if (inside_quadrant(x, y, margin)) {
                    inside += (c[0] + c[1] + c[2]) / 3.0;
                    ++n;
                } else if (out_of_reach(x, y, margin)) {
                    pale_min = std::min({pale_min, c[0], c[1]});
                }
            }
        EXPECT_LT(inside / double(n), 80.0) << "mean brightness inside the blurred quadrant";
        EXPECT_GE(pale_min, 240) << "red and green stay near 1's colour where nothing was lost";
    }
}

// The colour scale of docs/cli.md ("png"): RGB stops at 0, 0.25, 0.5, 0.75 and 1, linear
// between, each channel rounded half away from zero; below 0 (and NaN) as 0, above 1 as 1.
// Computed here in float as written there (the build has -ffp-contract=off).
std::array<int, 3> documented_colour(float value) {
    static const float stops[5][3] = {
        {0, 0, 4}, {87, 16, 110}, {188, 55, 84}, {249, 142, 9}, {252, 255, 164}};
    const float v = value >= 0.0f ? std::min(value, 1.0f) : 0.0f;
    const float pos = v * 4.0f;
    const int i = std::min(int(pos), 3);
    const float t = pos - float(i);
    std::array<int, 3> c{};
    for (int ch = 0; ch < 3; ++ch) {
        const float x = stops[i][ch] + t * (stops[i + 1][ch] - stops[i][ch]);
        c[ch] = int(std::floor(double(x) + 0.5));
    }
    return c;
}

// A PNG pixel's colour (docs/cli.md, "png"): the value in 253 steps, index = round(v x 253)
// with v clamped to 0..1 (NaN as 0), halves up, and the colour of index / 253 (float32) in the
// scale above. To check the writer's palette and indices pixel by pixel against the map's exact
// values.
std::array<int, 3> documented_png_colour(float value) {
    const float v = value >= 0.0f ? std::min(value, 1.0f) : 0.0f;
    const long double exact = static_cast<long double>(v) * 253; // exact: 24 + 8 bits
    const int index = int(std::floor(exact + 0.5L));
    return documented_colour(float(index) / 253.0f);
}

// The float32 values of a .npy file the CLI wrote (little-endian '<f4', version 1 header).
std::vector<float> npy_values(const std::string &path) {
    const std::string b = slurp(path);
    if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) {
        ADD_FAILURE() << path << ": not a .npy file";
        return {};
    }
    const size_t start = 10 + (uint8_t(b[8]) | size_t(uint8_t(b[9])) << 8);
    std::vector<float> v((b.size() - start) / 4);
    std::memcpy(v.data(), b.data() + start, v.size() * 4);
    return v;
}

TEST_F(MapPictures, PngColoursAreTheDocumentedScaleOfTheExactValues) {
    for (const char *format : {"npy", "png"}) {
        const CliRun r = map_run({"--map", dir_ + "/" + format, "--map-format", format,
                                  "--map-frames", "1", "--map-scales", "0,1,2,3"});
        ASSERT_EQ(r.code, 0) << format << ": " << r.err;
    }
    size_t changes = 0; // pixels whose right-hand neighbour has another colour
    for (int s = 0; s < 4; ++s) {
        SCOPED_TRACE("scale " + std::to_string(s));
        const std::string name = "/frame000001_scale" + std::to_string(s);
        const std::vector<float> values = npy_values(dir_ + "/npy" + name + ".npy");
        const int sw = kSide >> s, sh = kSide >> s;
        ASSERT_EQ(values.size(), size_t(sw) * sh);
        const Decoded d = decode_png(dir_ + "/png" + name + ".png");
        ASSERT_EQ(d.w, uint32_t(kSide));
        ASSERT_GE(d.h, uint32_t(kSide));
        for (int y = 0; y < kSide; ++y)
            for (int x = 0; x < kSide; ++x) {
                // Nearest neighbour at the frame's size (§12.4).
                const float v = values[size_t(std::min(y >> s, sh - 1)) * sw +
                                       size_t(std::min(x >> s, sw - 1))];
                ASSERT_EQ(d.at(x, y), documented_png_colour(v))
                    << "pixel (" << x << ", " << y << "), value " << v;
                changes += x + 1 < kSide && d.at(x, y) != d.at(x + 1, y);
            }
    }
    EXPECT_GT(changes, size_t(1000)) << "the maps should span many colours";
}
#endif

TEST_F(MapPictures, Y4mIsAHeatVideoAtTheSourcesSizeAndRate) {
    const CliRun r =
        map_run({"--map", dir_ + "/maps", "--map-format", "y4m", "--map-scales", "0,2"});
    ASSERT_EQ(r.code, 0) << r.err;
    for (int scale : {0, 2}) {
        SCOPED_TRACE("scale " + std::to_string(scale));
        const std::string v = slurp(dir_ + "/maps/scale" + std::to_string(scale) + ".y4m");
        const std::string head = "YUV4MPEG2 W256 H256 F30000:1001 Ip A1:1 C420jpeg\n";
        ASSERT_EQ(v.substr(0, head.size()), head);
        const size_t frame = 6 + size_t(kSide) * kSide * 3 / 2; // "FRAME\n", Y, Cb, Cr
        ASSERT_EQ(v.size(), head.size() + 3 * frame) << "one video frame per scored frame";
        for (int f = 0; f < 3; ++f) {
            const size_t at = head.size() + f * frame;
            ASSERT_EQ(v.substr(at, 6), "FRAME\n");
            // Luma: dark (black is 16) inside the quadrant at scale 0, bright (1's pale yellow
            // is about 225) out of reach.
            double inside = 0;
            size_t n = 0;
            int bright_min = 255;
            const int margin = scale ? 64 : 24;
            for (int y = 0; y < kSide; ++y)
                for (int x = 0; x < kSide; ++x) {
                    const int luma = uint8_t(v[at + 6 + size_t(y) * kSide + x]);
                    if (inside_quadrant(x, y, margin)) {
                        inside += luma;
                        ++n;
                    } else if (out_of_reach(x, y, margin)) {
                        bright_min = std::min(bright_min, luma);
                    }
                }
            if (scale == 0) {
                EXPECT_LT(inside / double(n), 60.0) << "frame " << f;
            }
            EXPECT_GE(bright_min, 215) << "frame " << f;
        }
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ + "/maps"), fs::directory_iterator{}), 2);
}

TEST_F(MapPictures, BadRequestsLeaveNothing) {
    // A folder that cannot be made (its parent is a file), for each picture format.
    spit(dir_ + "/file", "x");
    for (const char *format : {"png", "y4m"}) {
        const CliRun r = map_run({"--map", dir_ + "/file/maps", "--map-format", format});
        EXPECT_EQ(r.code, 1) << format;
        EXPECT_NE(r.err.find("--map " + dir_ + "/file/maps: cannot create a folder"),
                  std::string::npos)
            << r.err;
        EXPECT_FALSE(fs::exists(dir_ + "/s.json"));
    }
    // A frame list outside the clip: found after scoring; no folder, no temporary.
    {
        const CliRun r =
            map_run({"--map", dir_ + "/maps", "--map-format", "png", "--map-frames", "0,9"});
        EXPECT_EQ(r.code, 1);
        EXPECT_NE(r.err.find("frame 9 is not in the scored clip"), std::string::npos) << r.err;
    }
    // A video is every frame: a frame selection is a usage error.
    {
        const CliRun r =
            map_run({"--map", dir_ + "/maps", "--map-format", "y4m", "--map-frames", "worst:2"});
        EXPECT_EQ(r.code, 2);
        EXPECT_NE(r.err.find("y4m maps every frame"), std::string::npos) << r.err;
    }
    // An input that fails after two frames: the videos were being written; nothing is left.
    {
        const std::string dis = slurp(dir_ + "/dis.y4m");
        spit(dir_ + "/cut.y4m", dis.substr(0, dis.size() - 1000));
        const CliRun r =
            run_argv({kCli, "-r", dir_ + "/ref.y4m", "-d", dir_ + "/cut.y4m", "-q", "--json", "-o",
                      dir_ + "/s.json", "--map", dir_ + "/maps", "--map-format", "y4m"},
                     dir_);
        EXPECT_EQ(r.code, 1);
        EXPECT_NE(r.err.find("frame 2 is incomplete"), std::string::npos) << r.err;
    }
    std::vector<std::string> left;
    for (const auto &e : fs::directory_iterator(dir_)) left.push_back(e.path().filename());
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{"cut.y4m", "dis.y4m", "file", "ref.y4m"}));
}

// Ladders and batch rows: one map folder per pair, DIR/<output name>/, holding what a single
// `vif --map` run of that pair writes (byte for byte), a failing pair's folder left out.
TEST_F(MapPictures, LaddersAndBatchRowsHaveAMapFolderPerPair) {
    const std::vector<std::string> map_opts = {
        "--map-format", "npy", "--map-scales", "0,2", "--map-frames", "worst:2", "-q"};
    // The single-pair runs: the reference against the blurred copy and against itself.
    for (const char *d : {"dis", "ref"}) {
        std::vector<std::string> a = {kCli,
                                      "-r",
                                      dir_ + "/ref.y4m",
                                      "-d",
                                      dir_ + "/" + d + ".y4m",
                                      "--json",
                                      "-o",
                                      dir_ + "/single_" + d + ".json",
                                      "--backend",
                                      "cpu",
                                      "--map",
                                      dir_ + "/single_" + d};
        a.insert(a.end(), map_opts.begin(), map_opts.end());
        const CliRun r = run_argv(a, dir_);
        ASSERT_EQ(r.code, 0) << r.err;
    }
    auto same_as_single = [&](const std::string &folder, const char *d) {
        std::vector<std::string> got, want;
        for (const auto &e : fs::directory_iterator(folder)) got.push_back(e.path().filename());
        for (const auto &e : fs::directory_iterator(dir_ + "/single_" + d))
            want.push_back(e.path().filename());
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        EXPECT_EQ(got.size(), 4u) << "2 frames x 2 scales";
        EXPECT_EQ(got, want) << folder;
        for (const std::string &f : want)
            EXPECT_EQ(slurp(folder + "/" + f), slurp(dir_ + "/single_" + d + "/" + f))
                << folder << "/" << f;
    };
    {
        std::vector<std::string> a = {kCli,
                                      "-r",
                                      dir_ + "/ref.y4m",
                                      "-d",
                                      dir_ + "/dis.y4m",
                                      "-d",
                                      dir_ + "/ref.y4m",
                                      "-o",
                                      dir_ + "/ladder",
                                      "--map",
                                      dir_ + "/lmaps"};
        a.insert(a.end(), map_opts.begin(), map_opts.end());
        const CliRun r = run_argv(a, dir_);
        ASSERT_EQ(r.code, 0) << r.err;
        same_as_single(dir_ + "/lmaps/dis", "dis");
        same_as_single(dir_ + "/lmaps/ref", "ref");
    }
    {
        // A batch whose third row cannot be read: its folder is not made, the others are.
        spit(dir_ + "/m.csv", "reference,distorted\n" + dir_ + "/ref.y4m," + dir_ + "/dis.y4m\n" +
                                  dir_ + "/ref.y4m," + dir_ + "/ref.y4m\n" + dir_ + "/ref.y4m," +
                                  dir_ + "/nowhere.y4m\n");
        std::vector<std::string> a = {
            kCli, "batch", dir_ + "/m.csv", "--out-dir", dir_ + "/batch", "--map", dir_ + "/bmaps"};
        a.insert(a.end(), map_opts.begin(), map_opts.end());
        const CliRun r = run_argv(a, dir_);
        EXPECT_NE(r.code, 0) << "a failed row";
        same_as_single(dir_ + "/bmaps/dis", "dis");
        same_as_single(dir_ + "/bmaps/ref", "ref");
        std::vector<std::string> folders;
        for (const auto &e : fs::directory_iterator(dir_ + "/bmaps"))
            folders.push_back(e.path().filename());
        std::sort(folders.begin(), folders.end());
        EXPECT_EQ(folders, (std::vector<std::string>{"dis", "ref"}));
    }
    {
        // The same ladder on the cuda backend: the same files as the cpu singles (maps have
        // the same bits on each backend); without a GPU an error (1) and no maps.
        const CliRun r = run_argv({kCli,
                                   "-r",
                                   dir_ + "/ref.y4m",
                                   "-d",
                                   dir_ + "/dis.y4m",
                                   "-d",
                                   dir_ + "/ref.y4m",
                                   "-o",
                                   dir_ + "/l2",
                                   "--map",
                                   dir_ + "/l2maps",
                                   "--map-format",
                                   "npy",
                                   "--map-scales",
                                   "0,2",
                                   "--map-frames",
                                   "worst:2",
                                   "-q",
                                   "--backend",
                                   "cuda"},
                                  dir_);
        if (r.code == 0) {
            same_as_single(dir_ + "/l2maps/dis", "dis");
            same_as_single(dir_ + "/l2maps/ref", "ref");
        } else {
            // No GPU: every rung fails, no pair's folder is made (the ladder's root may stay,
            // empty, as for any ladder whose rungs all fail).
            EXPECT_EQ(r.code, 1) << r.err;
            EXPECT_FALSE(fs::exists(dir_ + "/l2maps/dis"));
            EXPECT_FALSE(fs::exists(dir_ + "/l2maps/ref"));
            EXPECT_TRUE(!fs::exists(dir_ + "/l2maps") || fs::is_empty(dir_ + "/l2maps"));
        }
    }
}

} // namespace
} // namespace vif_cli_test
