// `vif --map DIR` (docs/cli.md, "Per-pixel maps"): the files it writes hold the library's local
// VIF maps (vif_local_map of the frame's received maps: the brief of the option is that the CLI
// writes exactly those), pgm16 samples follow the documented scaling, worst:N keeps the frames
// with the lowest scores, a blurred quadrant shows as low values there, and bad requests fail
// with a message and leave nothing behind.
#include "cli/cli_harness.hpp"

namespace vif_cli_test {
namespace {

constexpr uint32_t kW = 160, kH = 90, kFrames = 3; // src01_160x90_8b_vmafrepo (3 frames scored)

struct NpyArray {
    uint32_t rows = 0, cols = 0;
    std::vector<float> values;
};

// A float32 .npy as `vif --map-format npy` writes it (little-endian, C order, 2-D).
NpyArray read_npy(const std::string &path) {
    const std::string b = slurp(path);
    EXPECT_GE(b.size(), 10u);
    EXPECT_EQ(b.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const size_t hl = uint8_t(b[8]) | size_t(uint8_t(b[9])) << 8;
    const std::string head = b.substr(10, hl);
    EXPECT_EQ((10 + hl) % 64, 0u) << "the data is 64-byte aligned";
    EXPECT_NE(head.find("'descr': '<f4'"), std::string::npos) << head;
    EXPECT_NE(head.find("'fortran_order': False"), std::string::npos) << head;
    NpyArray a;
    std::smatch m;
    if (!std::regex_search(head, m, std::regex(R"('shape': \((\d+), (\d+)\))"))) {
        ADD_FAILURE() << "no shape in " << head;
        return a;
    }
    a.rows = uint32_t(std::stoul(m[1]));
    a.cols = uint32_t(std::stoul(m[2]));
    const size_t n = size_t(a.rows) * a.cols;
    EXPECT_EQ(b.size(), 10 + hl + 4 * n);
    a.values.resize(n);
    if (b.size() == 10 + hl + 4 * n) std::memcpy(a.values.data(), b.data() + 10 + hl, 4 * n);
    return a;
}

// The library's local maps of every frame of the src01 pair, per scale, for one variant.
std::vector<std::array<std::vector<float>, VIF_NUM_SCALES>> library_maps(VifVariant variant) {
    const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo");
    const std::string ref = slurp(kData + "/" + c.ref_file), dis = slurp(kData + "/" + c.dist_file);
    const size_t frame_bytes = size_t(kW) * kH * 3 / 2;
    VifConfig cfg;
    vif_default_config(&cfg);
    cfg.variant = variant;
    cfg.backend = VIF_BACKEND_CPU;
    cfg.max_width = kW;
    cfg.max_height = kH;
    cfg.bitdepth = 8;
    cfg.maps = 1;
    VifContext *ctx = nullptr;
    EXPECT_EQ(vif_create(&ctx, &cfg), VIF_OK);
    std::vector<std::array<std::vector<float>, VIF_NUM_SCALES>> out;
    for (uint32_t f = 0; f < kFrames && ctx; ++f) {
        VifPicture r{ref.data() + f * frame_bytes, kW, kW, kH, 8, 0};
        VifPicture d{dis.data() + f * frame_bytes, kW, kW, kH, 8, 0};
        EXPECT_EQ(vif_submit(ctx, &r, &d, nullptr), VIF_OK);
        VifScores s;
        VifMaps m;
        EXPECT_EQ(vif_receive_maps(ctx, &s, &m, 1), VIF_OK);
        out.emplace_back();
        for (int sc = 0; sc < VIF_NUM_SCALES; ++sc) {
            out.back()[sc].resize(size_t(m.scale[sc].width) * m.scale[sc].height);
            EXPECT_EQ(vif_local_map(&m.scale[sc], out.back()[sc].data()), VIF_OK);
        }
    }
    vif_destroy(ctx);
    return out;
}

std::vector<std::string> src01_args(const std::string &dir) {
    const GoldenCase &c = find_case("src01_160x90_8b_vmafrepo");
    std::vector<std::string> a = {kCli,
                                  "-r",
                                  kData + "/" + c.ref_file,
                                  "-d",
                                  kData + "/" + c.dist_file,
                                  "--frames",
                                  std::to_string(kFrames),
                                  "-q",
                                  "--json",
                                  "-o",
                                  dir + "/scores.json",
                                  "--precision",
                                  "max"};
    for (const std::string &s : raw_args(c)) a.push_back(s);
    return a;
}

std::vector<std::string> files_in(const std::string &dir) {
    std::vector<std::string> names;
    for (const auto &e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
}

class MapCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = (fs::temp_directory_path() /
                ("vif_map_test_" + std::to_string(::getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name()))
                   .string();
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string dir_;
};

TEST_F(MapCli, NpyFilesHoldTheLibrarysLocalMapsBitForBit) {
    for (const VifVariant variant : {VIF_VARIANT_INTEGER, VIF_VARIANT_FLOAT}) {
        const bool integer = variant == VIF_VARIANT_INTEGER;
        SCOPED_TRACE(integer ? "integer" : "float");
        const std::string maps = dir_ + (integer ? "/int" : "/float");
        auto args = src01_args(dir_);
        for (const char *a : {"--map-format", "npy", "--variant"}) args.push_back(a);
        args.push_back(integer ? "integer" : "float");
        args.push_back("--map");
        args.push_back(maps);
        const CliRun r = run_argv(args, dir_);
        ASSERT_EQ(r.code, 0) << r.err;
        const auto expected = library_maps(variant);
        ASSERT_EQ(expected.size(), kFrames);
        EXPECT_EQ(files_in(maps).size(), size_t(kFrames) * VIF_NUM_SCALES);
        for (uint32_t f = 0; f < kFrames; ++f)
            for (int s = 0; s < VIF_NUM_SCALES; ++s) {
                const NpyArray a = read_npy(maps + "/frame00000" + std::to_string(f) + "_scale" +
                                            std::to_string(s) + ".npy");
                EXPECT_EQ(a.cols, kW >> s); // the scale's size (docs/algorithm.md §4.1)
                EXPECT_EQ(a.rows, kH >> s);
                ASSERT_EQ(a.values.size(), expected[f][s].size())
                    << "frame " << f << " scale " << s;
                EXPECT_EQ(std::memcmp(a.values.data(), expected[f][s].data(), 4 * a.values.size()),
                          0)
                    << "frame " << f << " scale " << s;
                float lo = 2.0f;
                for (float v : a.values) lo = std::min(lo, v);
                EXPECT_LT(lo, 1.0f) << "an encode at this quality loses detail somewhere";
            }
    }
}

// Maps come from the backend that scores (docs/api.md, "Per-pixel maps": the CUDA kernels write
// the CPU's bits), so the files are the same bytes whichever backend the run takes: `auto` (the
// GPU where there is one) and `cuda` against `cpu`. Without a GPU, `--backend cuda` fails with
// exit status 1 (not a usage error) and leaves no map folder.
TEST_F(MapCli, EveryBackendWritesTheSameMapFiles) {
    for (const char *feature : {"vif", "float_vif"}) {
        auto run = [&](const std::string &backend) {
            auto args = src01_args(dir_);
            for (const char *a : {"--map-format", "npy", "--feature", feature}) args.push_back(a);
            args.insert(args.end(), {"--backend", backend, "--map", dir_ + "/" + backend});
            return run_argv(args, dir_);
        };
        const CliRun cpu = run("cpu");
        ASSERT_EQ(cpu.code, 0) << cpu.err;
        const std::vector<std::string> want = files_in(dir_ + "/cpu");
        EXPECT_EQ(want.size(), size_t(kFrames) * VIF_NUM_SCALES) << feature;
        for (const std::string &backend : {std::string("auto"), std::string("cuda")}) {
            const CliRun r = run(backend);
            if (backend == "cuda" && r.code != 0) {
                EXPECT_EQ(r.code, 1) << r.err; // no GPU here: an error, not a usage error
                EXPECT_FALSE(fs::exists(dir_ + "/cuda")) << "nothing left behind";
                continue;
            }
            ASSERT_EQ(r.code, 0) << backend << ": " << r.err;
            EXPECT_EQ(files_in(dir_ + "/" + backend), want) << feature << " " << backend;
            for (const std::string &f : want)
                EXPECT_EQ(slurp(dir_ + "/" + backend + "/" + f), slurp(dir_ + "/cpu/" + f))
                    << feature << " --backend " << backend << ": " << f;
        }
        for (const char *b : {"cpu", "auto", "cuda"}) fs::remove_all(dir_ + "/" + b);
    }
}

TEST_F(MapCli, Pgm16SamplesAreTheValueTimes32768) {
    auto args = src01_args(dir_);
    args.push_back("--map");
    args.push_back(dir_ + "/maps");
    args.push_back("--map-scales");
    args.push_back("1,0"); // any order, both written
    args.push_back("--map-frames");
    args.push_back("2");
    const CliRun r = run_argv(args, dir_);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(files_in(dir_ + "/maps"),
              (std::vector<std::string>{"frame000002_scale0.pgm", "frame000002_scale1.pgm"}));
    const auto expected = library_maps(VIF_VARIANT_INTEGER);
    for (int s = 0; s < 2; ++s) {
        const std::string b = slurp(dir_ + "/maps/frame000002_scale" + std::to_string(s) + ".pgm");
        const uint32_t w = s ? kW / 2 : kW, h = s ? kH / 2 : kH;
        const std::string head = "P5\n# libvif local VIF, frame 2 scale " + std::to_string(s) +
                                 ": value = sample / 32768\n" + std::to_string(w) + " " +
                                 std::to_string(h) + "\n65535\n";
        ASSERT_EQ(b.substr(0, head.size()), head);
        ASSERT_EQ(b.size(), head.size() + size_t(w) * h * 2);
        ASSERT_EQ(expected[2][s].size(), size_t(w) * h);
        for (size_t i = 0; i < size_t(w) * h; ++i) {
            const unsigned sample = unsigned(uint8_t(b[head.size() + 2 * i])) << 8 |
                                    uint8_t(b[head.size() + 2 * i + 1]);
            const double v = expected[2][s][i];
            const unsigned want =
                v <= 0 ? 0u : unsigned(std::min(65535.0, std::nearbyint(v * 32768)));
            ASSERT_EQ(sample, want) << "scale " << s << " pixel " << i;
        }
    }
}

TEST_F(MapCli, WorstNKeepsTheFramesWithTheLowestScores) {
    auto args = src01_args(dir_);
    for (const char *a : {"--map-frames", "worst:1", "--map-scales", "0", "--debug-metrics"})
        args.push_back(a);
    args.push_back("--map");
    args.push_back(dir_ + "/maps");
    const CliRun r = run_argv(args, dir_);
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(slurp(dir_ + "/scores.json"));
    double lowest = 2.0;
    uint64_t worst = 0;
    for (const auto &f : j["frames"]) {
        const double v = f["metrics"]["integer_vif"].get<double>(); // the combined score
        if (v < lowest) {
            lowest = v;
            worst = f["frameNum"].get<uint64_t>();
        }
    }
    char name[64];
    std::snprintf(name, sizeof name, "frame%06llu_scale0.pgm", (unsigned long long)worst);
    EXPECT_EQ(files_in(dir_ + "/maps"), std::vector<std::string>{name});
}

// worst:N scores the clip without maps and maps the N worst frames afterwards, scored again
// (tools/vif/maps/worst_pictures.hpp): their files are those `--map-frames all` writes for them,
// byte for byte, on 8-bit, 10-bit and odd-width inputs, from a file mapping (the pictures kept
// in place) and read into buffers (--no-mmap: copied); N above the frame count maps every frame.
TEST_F(MapCli, WorstNFilesAreThoseOfTheAllRun) {
    for (const char *name : {"src01_160x90_8b_vmafrepo", "cosmospan_576x324_10b_crf35",
                             "bsds100007pan_481x271_8b_crf35"}) {
        const GoldenCase &c = find_case(name);
        auto run = [&](const std::string &frames, const std::string &out, bool no_mmap = false) {
            std::vector<std::string> a = {kCli,
                                          "-r",
                                          kData + "/" + c.ref_file,
                                          "-d",
                                          kData + "/" + c.dist_file,
                                          "-q",
                                          "-o",
                                          dir_ + "/" + out + ".json",
                                          "--map",
                                          dir_ + "/" + out,
                                          "--map-format",
                                          "npy",
                                          "--map-frames",
                                          frames,
                                          "--backend",
                                          "cpu"};
            for (const std::string &s : raw_args(c)) a.push_back(s);
            if (no_mmap) a.push_back("--no-mmap"); // pictures read into reused buffers: copied
            const CliRun r = run_argv(a, dir_);
            EXPECT_EQ(r.code, 0) << name << " " << frames << ": " << r.err;
        };
        run("all", "all");
        run("worst:2", "worst");
        run("worst:2", "worst_copied", true);
        run("worst:1000", "every");
        // Every frame scored again in 3 bands of rows (crops of its pictures, scored on contexts
        // of their own: tools/vif/maps/worst_pictures.hpp), mapped and copied: the same files.
        ::setenv("VIF_MAP_BANDS", "3", 1);
        run("worst:1000", "every_bands");
        run("worst:1000", "every_bands_copied", true);
        ::unsetenv("VIF_MAP_BANDS");
        // And on contexts made for a band's crop (VIF_MAP_BAND_CONTEXTS: fewer rows than the
        // frame's where the frame is high enough), 2 and 3 bands.
        ::setenv("VIF_MAP_BAND_CONTEXTS", "2", 1);
        run("worst:1000", "every_bandctx");
        ::setenv("VIF_MAP_BAND_CONTEXTS", "3", 1);
        // (and each band's local maps in 3 parts of rows, each on a thread: as after the last
        // frame where cores are idle, VIF_MAP_LOCAL_PARTS)
        ::setenv("VIF_MAP_LOCAL_PARTS", "3", 1);
        run("worst:1000", "every_bandctx_copied", true);
        ::unsetenv("VIF_MAP_LOCAL_PARTS");
        ::unsetenv("VIF_MAP_BAND_CONTEXTS");
        const std::vector<std::string> all = files_in(dir_ + "/all");
        const size_t frames = all.size() / VIF_NUM_SCALES;
        ASSERT_GE(frames, 1u) << name;
        const std::vector<std::string> worst = files_in(dir_ + "/worst");
        EXPECT_EQ(worst.size(), std::min<size_t>(frames, 2) * VIF_NUM_SCALES) << name;
        for (const std::string &f : worst)
            EXPECT_EQ(slurp(dir_ + "/worst/" + f), slurp(dir_ + "/all/" + f)) << name << " " << f;
        EXPECT_EQ(files_in(dir_ + "/worst_copied"), worst) << name;
        for (const std::string &f : worst)
            EXPECT_EQ(slurp(dir_ + "/worst_copied/" + f), slurp(dir_ + "/all/" + f))
                << name << " (--no-mmap) " << f;
        for (const char *d : {"every", "every_bands", "every_bands_copied", "every_bandctx",
                              "every_bandctx_copied"}) {
            EXPECT_EQ(files_in(dir_ + "/" + d), all) << name << " " << d;
            for (const std::string &f : all)
                EXPECT_EQ(slurp(dir_ + "/" + d + "/" + f), slurp(dir_ + "/all/" + f))
                    << name << " " << d << " " << f;
        }
        // The scores do not depend on the maps asked for.
        EXPECT_EQ(json::parse(slurp(dir_ + "/worst.json"))["frames"],
                  json::parse(slurp(dir_ + "/all.json"))["frames"])
            << name;
        for (const char *d : {"all", "worst", "worst_copied", "every", "every_bands",
                              "every_bands_copied", "every_bandctx", "every_bandctx_copied"})
            fs::remove_all(dir_ + "/" + d);
    }
}

// A clip whose worst frames come late (the N worst change at its end) and one whose worst come
// first: 12 textured 176x144 frames, each a new picture, and two noisy copies whose noise is
// strong on the last three frames (late) or the first three (early), weak elsewhere.
struct NoisyClips {
    static constexpr int kW = 176, kH = 144, kN = 12;
    static std::string y4m(const std::vector<std::string> &frames) {
        std::string out = "YUV4MPEG2 W176 H144 F25:1 Ip A1:1 Cmono\n";
        for (const std::string &f : frames) out += "FRAME\n" + f;
        return out;
    }
    // Writes ref.y4m, late.y4m and early.y4m into `dir`.
    static void write(const std::string &dir) {
        uint32_t state = 2024;
        auto next = [&] { return (state = state * 1664525u + 1013904223u) >> 24; };
        std::vector<std::string> ref(kN), late(kN), early(kN);
        for (int f = 0; f < kN; ++f) {
            std::string &r = ref[size_t(f)];
            r.resize(size_t(kW) * kH);
            for (int y = 0; y < kH; ++y)
                for (int x = 0; x < kW; ++x)
                    r[size_t(y) * kW + x] = char(
                        (64 + 60 * std::sin((x + 3 * f) / 5.0) * std::cos(y / 7.0) + next() / 4));
            auto noisy = [&](int amp) {
                std::string d = r;
                for (char &v : d)
                    v = char(
                        std::clamp(int(uint8_t(v)) + int(next() % (2 * amp + 1)) - amp, 0, 255));
                return d;
            };
            late[size_t(f)] = noisy(f >= kN - 3 ? 30 + 10 * (f - (kN - 3)) : 2);
            early[size_t(f)] = noisy(f < 3 ? 50 - 10 * f : 2);
        }
        spit(dir + "/ref.y4m", y4m(ref));
        spit(dir + "/late.y4m", y4m(late));
        spit(dir + "/early.y4m", y4m(early));
    }
};

// worst:N of ladders and batch rows scores each pair without maps and its N worst frames again
// with them, as a pair's (tools/vif/maps/worst_pictures.hpp): each rung's or row's folder holds
// its N lowest-scoring frames (by the single pair's scores) with the files a single pair's
// `--map-frames all` writes for them, byte for byte, whatever the thread count; worst frames
// that only come at the clip's end are those kept.
TEST_F(MapCli, LaddersAndBatchRowsMapTheirWorstFramesAsAPairDoes) {
    NoisyClips::write(dir_);
    const std::vector<std::string> opts = {"--map-format", "npy", "--backend", "cpu", "-q"};
    auto with = [&](std::vector<std::string> a, const std::vector<std::string> &more) {
        a.insert(a.end(), opts.begin(), opts.end());
        a.insert(a.end(), more.begin(), more.end());
        const CliRun r = run_argv(a, dir_);
        EXPECT_EQ(r.code, 0) << a[1] << " " << r.err;
    };
    // The single pairs: every frame's maps and the scores that pick the worst three.
    std::map<std::string, std::vector<std::string>> want; // pair -> the worst frames' files
    for (const std::string d : {"late", "early"}) {
        with({kCli, "-r", dir_ + "/ref.y4m", "-d", dir_ + "/" + d + ".y4m", "--json", "-o",
              dir_ + "/" + d + ".json", "--debug-metrics", "--map", dir_ + "/all_" + d},
             {});
        std::vector<std::pair<double, uint64_t>> by_score;
        const json scores = json::parse(slurp(dir_ + "/" + d + ".json"));
        for (const auto &f : scores["frames"])
            by_score.emplace_back(f["metrics"]["integer_vif"].get<double>(),
                                  f["frameNum"].get<uint64_t>());
        ASSERT_EQ(by_score.size(), size_t(NoisyClips::kN)) << d;
        std::sort(by_score.begin(), by_score.end());
        std::vector<uint64_t> worst;
        for (size_t i = 0; i < 3; ++i) worst.push_back(by_score[i].second);
        std::sort(worst.begin(), worst.end());
        // The clips are what they claim: the strong noise is where the worst frames are.
        EXPECT_EQ(worst,
                  (d == "late" ? std::vector<uint64_t>{9, 10, 11} : std::vector<uint64_t>{0, 1, 2}))
            << d;
        for (uint64_t f : worst)
            for (int sc = 0; sc < VIF_NUM_SCALES; ++sc) {
                char name[64];
                std::snprintf(name, sizeof name, "frame%06llu_scale%d.npy", (unsigned long long)f,
                              sc);
                want[d].push_back(name);
            }
        std::sort(want[d].begin(), want[d].end());
    }
    auto check = [&](const std::string &root, const std::string &what) {
        for (const std::string d : {"late", "early"}) {
            const std::string folder = root + "/" + d;
            ASSERT_TRUE(fs::is_directory(folder)) << what << " " << folder;
            EXPECT_EQ(files_in(folder), want[d]) << what << " " << d;
            for (const std::string &f : want[d])
                EXPECT_EQ(slurp(folder + "/" + f), slurp(dir_ + "/all_" + d + "/" + f))
                    << what << " " << d << " " << f;
        }
    };
    const std::vector<std::string> ladder = {
        kCli, "-r", dir_ + "/ref.y4m", "-d", dir_ + "/late.y4m", "-d", dir_ + "/early.y4m"};
    with(ladder, {"-o", dir_ + "/ladder", "--map", dir_ + "/lmaps", "--map-frames", "worst:3"});
    check(dir_ + "/lmaps", "ladder");
    with(ladder, {"-o", dir_ + "/ladder1", "--map", dir_ + "/lmaps1", "--map-frames", "worst:3",
                  "--threads", "1"});
    check(dir_ + "/lmaps1", "ladder --threads 1");
    spit(dir_ + "/m.csv", "reference,distorted\n" + dir_ + "/ref.y4m," + dir_ + "/late.y4m\n" +
                              dir_ + "/ref.y4m," + dir_ + "/early.y4m\n");
    with({kCli, "batch", dir_ + "/m.csv", "--out-dir", dir_ + "/batch"},
         {"--map", dir_ + "/bmaps", "--map-frames", "worst:3"});
    check(dir_ + "/bmaps", "batch");
    // A pair, on one thread and on every core, with the early start (the worst so far scored
    // again while the last frames are: on one thread the late clip's worst frames enter after
    // it) or without (VIF_MAP_EARLY=0: every frame whole after the last one, as for a clip
    // shorter than the frames in flight), and with more contexts than frames
    // (VIF_MAP_CONTEXT_COUNT; these frames are too small to be split into bands: the bands are
    // WorstNFilesAreThoseOfTheAllRun's) or one: the same files.
    // And 8 contexts made by 3 threads in turn (VIF_MAP_MAKERS).
    for (const char *way : {"early", "no-early", "8-contexts", "1-context", "3-makers"}) {
        const std::string w = way;
        ::setenv("VIF_MAP_EARLY", w == "no-early" ? "0" : "1", 1);
        ::setenv("VIF_MAP_CONTEXT_COUNT",
                 w == "8-contexts" || w == "3-makers" ? "8"
                 : w == "1-context"                   ? "1"
                                                      : "",
                 1);
        ::setenv("VIF_MAP_MAKERS", w == "3-makers" ? "3" : "", 1);
        for (const char *threads : {"1", "0"}) {
            const std::string out = dir_ + "/pmaps" + threads + way;
            fs::create_directories(out);
            with({kCli, "-r", dir_ + "/ref.y4m", "-d", dir_ + "/late.y4m", "-o",
                  dir_ + "/p" + threads + way + ".json"},
                 {"--map", out + "/late", "--map-frames", "worst:3", "--threads", threads});
            EXPECT_EQ(files_in(out + "/late"), want["late"]) << threads << " " << way;
            for (const std::string &f : want["late"])
                EXPECT_EQ(slurp(out + "/late/" + f), slurp(dir_ + "/all_late/" + f))
                    << "pair --threads " << threads << " " << way << " " << f;
        }
    }
    ::unsetenv("VIF_MAP_EARLY");
    ::unsetenv("VIF_MAP_CONTEXT_COUNT");
    ::unsetenv("VIF_MAP_MAKERS");
}

// A hand-built pair (8-bit gray, 256x256): the top-left quadrant blurred. The scale-0 map is
// low inside the quadrant and about 1 wherever the filters cannot reach from it.
TEST_F(MapCli, ABlurredQuadrantIsWhereTheMapIsLow) {
    const int w = 256, h = 256, q = 128;
    std::string ref(size_t(w) * h, '\0');
    uint32_t state = 12345;
    for (char &v : ref) {
        state = state * 1664525u + 1013904223u;
        v = char(32 + (state >> 24) * 3 / 4);
    }
    std::string dis = ref;
    for (int pass = 0; pass < 3; ++pass) { // 3 passes of a 9x9 box mean inside the quadrant
        std::string next = dis;
        for (int i = 0; i < q; ++i)
            for (int j = 0; j < q; ++j) {
                int sum = 0, n = 0;
                for (int a = std::max(0, i - 4); a <= std::min(q - 1, i + 4); ++a)
                    for (int b = std::max(0, j - 4); b <= std::min(q - 1, j + 4); ++b, ++n)
                        sum += uint8_t(dis[size_t(a) * w + b]);
                next[size_t(i) * w + j] = char((sum + n / 2) / n);
            }
        dis.swap(next);
    }
    spit(dir_ + "/ref.yuv", ref);
    spit(dir_ + "/dis.yuv", dis);
    const CliRun r = run_argv({kCli,
                               "-r",
                               dir_ + "/ref.yuv",
                               "-d",
                               dir_ + "/dis.yuv",
                               "-w",
                               "256",
                               "-h",
                               "256",
                               "-p",
                               "400",
                               "-b",
                               "8",
                               "-q",
                               "--json",
                               "-o",
                               dir_ + "/s.json",
                               "--map",
                               dir_ + "/maps",
                               "--map-format",
                               "npy",
                               "--map-scales",
                               "0"},
                              dir_);
    ASSERT_EQ(r.code, 0) << r.err;
    const NpyArray a = read_npy(dir_ + "/maps/frame000000_scale0.npy");
    ASSERT_EQ(a.rows, uint32_t(h));
    ASSERT_EQ(a.cols, uint32_t(w));
    const int margin = 24;
    double inside = 0, outside_min = 2;
    size_t n = 0;
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const float v = a.values[size_t(i) * w + j];
            if (i < q - margin && j < q - margin) {
                inside += v;
                ++n;
            } else if (i >= q + margin || j >= q + margin) {
                outside_min = std::min(outside_min, double(v));
            }
        }
    EXPECT_LT(inside / double(n), 0.5);
    EXPECT_GT(outside_min, 0.99);
}

TEST_F(MapCli, BadRequestsFailCleanlyAndLeaveNothing) {
    // A frame outside the clip: found after scoring; no folder, no temporary, no scores file.
    {
        auto args = src01_args(dir_);
        for (const char *a : {"--map-frames", "1,7"}) args.push_back(a);
        args.push_back("--map");
        args.push_back(dir_ + "/maps");
        const CliRun r = run_argv(args, dir_);
        EXPECT_EQ(r.code, 1);
        EXPECT_NE(r.err.find("--map-frames: frame 7 is not in the scored clip"), std::string::npos)
            << r.err;
        EXPECT_TRUE(files_in(dir_).empty()) << files_in(dir_).front();
    }
    // A folder that cannot be made (its parent is a file).
    {
        spit(dir_ + "/file", "x");
        auto args = src01_args(dir_);
        args.push_back("--map");
        args.push_back(dir_ + "/file/maps");
        const CliRun r = run_argv(args, dir_);
        EXPECT_EQ(r.code, 1);
        EXPECT_NE(r.err.find("--map " + dir_ + "/file/maps: cannot create a folder"),
                  std::string::npos)
            << r.err;
        EXPECT_EQ(files_in(dir_), std::vector<std::string>{"file"});
        fs::remove(dir_ + "/file");
    }
    // A folder with something in it is not replaced.
    {
        fs::create_directories(dir_ + "/maps");
        spit(dir_ + "/maps/keep", "mine");
        auto args = src01_args(dir_);
        args.push_back("--map");
        args.push_back(dir_ + "/maps");
        const CliRun r = run_argv(args, dir_);
        EXPECT_EQ(r.code, 1);
        EXPECT_NE(r.err.find("the folder is not empty"), std::string::npos) << r.err;
        EXPECT_EQ(files_in(dir_ + "/maps"), std::vector<std::string>{"keep"});
        EXPECT_EQ(files_in(dir_), std::vector<std::string>{"maps"});
        fs::remove_all(dir_ + "/maps");
    }
    // Usage errors (exit 2) before anything is read.
    const std::vector<std::pair<std::vector<std::string>, std::string>> usage = {
        {{"--map-format", "gif"}, "unknown --map-format 'gif'"},
        {{"--map-format", "y4m", "--map-frames", "worst:1"}, "y4m maps every frame"},
        {{"--map-scales", "4"}, "--map-scales 4: too large"},
        {{"--map-frames", "worst:0"}, "worst:N: N must be at least 1"},
        {{"--map-frames", "1,x"}, "expected a whole number"},
        {{"--check-parity"}, "--map takes no --check-parity"},
        {{"--feature", "vif", "--feature", "float_vif"}, "--map takes one variant"},
    };
    for (const auto &[extra, msg] : usage) {
        auto args = src01_args(dir_);
        args.push_back("--map");
        args.push_back(dir_ + "/maps");
        for (const std::string &e : extra) args.push_back(e);
        const CliRun r = run_argv(args, dir_);
        EXPECT_EQ(r.code, 2) << msg;
        EXPECT_NE(r.err.find(msg), std::string::npos) << r.err;
    }
    {
        auto args = src01_args(dir_);
        for (const char *a : {"--map-scales", "0"}) args.push_back(a);
        const CliRun r = run_argv(args, dir_);
        EXPECT_EQ(r.code, 2);
        EXPECT_NE(r.err.find("need --map DIR"), std::string::npos) << r.err;
    }
    EXPECT_TRUE(files_in(dir_).empty());
}

} // namespace
} // namespace vif_cli_test
