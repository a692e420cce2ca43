#include "maps/map_writer.hpp"

#include "maps/heat_image.hpp"
#include "maps/map_contexts.hpp"
#include "maps/map_files.hpp"
#include "maps/map_trace.hpp"
#include "maps/png_encode.hpp"
#include "pair/failure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>
#include <vector>

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>

namespace vifcli {
namespace fs = std::filesystem;

namespace {

// Frames waiting for each writer at most: then the receiving thread waits.
constexpr size_t kQueueDepth = 4;

// Writer threads: one for the videos (their frames go in order). For the files of frames while
// the clip is scored (all, a list) one per 4 cores, 2 to 4 (a 720p PNG takes tens of
// milliseconds, scoring a frame a few). worst:N writes only after the last frame, when the
// scoring threads are idle: one a core (up to 16), each file a job of its own, so that the N
// frames' files are written at once.
size_t writer_count(const MapOptions &m) {
    if (m.format == MapOptions::Format::kY4m) return 1;
    const size_t cores = std::max(1u, std::thread::hardware_concurrency());
    if (m.frames == MapOptions::Frames::kWorst) {
        // VIF_MAP_WRITERS=K: K writers (bench/cpu/maps_speed.sh's ways clip-png-w4, -w8: PNG
        // files ~5x slower each with 16 written at once on the 16-core GPU host).
        if (const char *n = std::getenv("VIF_MAP_WRITERS"); n && *n)
            return size_t(std::clamp<long>(std::strtol(n, nullptr, 10), 1, 64));
        return std::clamp<size_t>(cores, 2, 16);
    }
    return std::clamp<size_t>(cores / 4, 2, 4);
}

// Rows a band's view takes beyond the band, above and below: at least the local map's window
// radius (2, docs/algorithm.md §12.3).
constexpr uint32_t kBandHalo = 8;

// vif_local_map of one scale in bands of rows on up to `threads` threads (a band at least 4096
// pixels). A band's view of the terms takes kBandHalo rows above and below it where the scale
// has them, so each of its rows sees every row its window covers, in the same order: the same
// floats as one call over the whole scale (the integer sums are exact; the float ones are
// summed per column top to bottom, then left to right, in both).
// A view of `rows` rows of a scale's maps from row `first` on (its terms are row-major, `width`
// a row): what vif_local_map reads for a band.
VifScaleMap rows_of(const VifScaleMap &sm, uint32_t first, uint32_t rows) {
    const size_t skip = size_t(first) * sm.width;
    VifScaleMap v = sm;
    v.height = rows;
    for (const int32_t **t : {&v.nl, &v.dl, &v.nn, &v.dn})
        if (*t) *t += skip;
    for (const float **t : {&v.num, &v.den})
        if (*t) *t += skip;
    return v;
}

void local_map_in_bands(const VifScaleMap &sm, float *out, unsigned threads) {
    const uint32_t w = sm.width, h = sm.height;
    const uint32_t bands = std::max<uint32_t>(
        1, std::min<uint64_t>({threads, h / (2 * kBandHalo), uint64_t(w) * h / 4096}));
    if (bands == 1) {
        const VifStatus st = vif_local_map(&sm, out);
        if (st != VIF_OK) throw Failure{vif_error("--map: the local VIF map", st)};
        return;
    }
    std::vector<VifStatus> status(bands, VIF_OK);
    std::vector<std::thread> pool;
    for (uint32_t b = 0; b < bands; ++b)
        pool.emplace_back([&, b] {
            const uint32_t i0 = uint32_t(uint64_t(h) * b / bands);
            const uint32_t i1 = uint32_t(uint64_t(h) * (b + 1) / bands);
            const uint32_t top = i0 >= kBandHalo ? i0 - kBandHalo : 0;
            const uint32_t bottom = std::min(h, i1 + kBandHalo);
            const VifScaleMap v = rows_of(sm, top, bottom - top);
            std::vector<float> band(size_t(v.height) * w);
            status[b] = vif_local_map(&v, band.data());
            if (status[b] == VIF_OK)
                std::memcpy(out + size_t(i0) * w, band.data() + size_t(i0 - top) * w,
                            sizeof(float) * size_t(i1 - i0) * w);
        });
    for (std::thread &t : pool) t.join();
    for (VifStatus st : status)
        if (st != VIF_OK) throw Failure{vif_error("--map: the local VIF map", st)};
}

// A buffer of n floats written now, on transparent huge pages where the system gives them on
// request (Linux's "madvise" setting: a fault per 2 MB instead of per 4 KB page).
void resize_on_huge_pages(std::vector<float> &v, size_t n) {
    v.reserve(n); // not written yet: the advice applies to the pages' first faults
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    const uintptr_t b = (reinterpret_cast<uintptr_t>(v.data()) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t e = reinterpret_cast<uintptr_t>(v.data() + n) & ~(kHuge - 1);
    if (e > b) (void)::madvise(reinterpret_cast<void *>(b), e - b, MADV_HUGEPAGE);
#endif
    v.resize(n);
}

} // namespace

MapWriter::MapWriter(const MapOptions &m) : m_(m) {
    if (m.format == MapOptions::Format::kPng && !png_available())
        throw Failure{"--map-format png: this vif was built without libpng (libpng-dev): use "
                      "pgm16, npy or y4m"};
    dir_ = m.dir;
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    std::error_code ec;
    const fs::file_status st = fs::status(dir_, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(st))
            throw Failure{fmt::format("--map {}: exists and is not a folder", m.dir)};
        if (!fs::is_empty(dir_, ec) || ec)
            throw Failure{fmt::format("--map {}: the folder is not empty (give a new or empty "
                                      "folder: the maps replace it as a whole)",
                                      m.dir)};
    }
    const fs::path p(dir_);
    const fs::path parent = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::string templ = (parent / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
    if (!::mkdtemp(templ.data()))
        throw Failure{fmt::format("--map {}: cannot create a folder in {}: {}", m.dir,
                                  parent.string(), std::strerror(errno))};
    // mkdtemp makes it 0700; the folder the user gets has the usual mode (0777 less the umask).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::chmod(templ.c_str(), 0777 & ~mask);
    tmp_ = templ;
    for (size_t i = 0; i < writer_count(m); ++i) writers_.emplace_back([this] { writer_loop(); });
}

MapWriter::~MapWriter() {
    stop_writer();
    for (std::FILE *f : videos_)
        if (f) std::fclose(f);
    if (committed_ || tmp_.empty()) return;
    std::error_code ec;
    fs::remove_all(tmp_, ec);
}

void MapWriter::stop_writer() {
    join_prefill();
    {
        std::lock_guard<std::mutex> lock(mu_);
        closing_ = true;
    }
    work_cv_.notify_all();
    for (std::thread &t : writers_)
        if (t.joinable()) t.join();
}

void MapWriter::check_writer() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.empty()) throw Failure{error_};
}

void MapWriter::enqueue(Kept k) {
    // One job a file: a frame's scales are written by as many writers at once (a video's
    // writer, the only one, takes them in order).
    // The frame's buffers go back to the pool once its last file is written.
    std::shared_ptr<const Kept> frame(new Kept(std::move(k)), [this](const Kept *p) {
        give_back(std::move(const_cast<Kept *>(p)->maps));
        delete p;
    });
    std::unique_lock<std::mutex> lock(mu_);
    space_cv_.wait(lock, [&] {
        return queue_.size() < kQueueDepth * writers_.size() * m_.scales.size() || !error_.empty();
    });
    if (!error_.empty()) throw Failure{error_};
    for (size_t i = 0; i < m_.scales.size(); ++i) queue_.push_back({frame, i});
    lock.unlock();
    // A writer a job (waking every writer for each would have most of them find nothing).
    for (size_t i = 0; i < m_.scales.size(); ++i) work_cv_.notify_one();
}

void MapWriter::writer_loop() {
    // The colour table of the video's pictures (the PNG palette's), made while the clip is
    // scored (the first writer makes it; the others, idle now, wait for it), not when the first
    // files are due.
    if (m_.format == MapOptions::Format::kY4m) warm_colour_table();
    if (m_.format == MapOptions::Format::kPng) (void)heat_palette();
    for (;;) {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
        if (queue_.empty()) return; // closing, all written
        Job job = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        space_cv_.notify_all(); // the threads that enqueue (several for worst:N) wait for room
        std::string failure;
        try {
            map_trace("write frame %llu scale %zu: start", (unsigned long long)job.frame->frame,
                      job.scale);
            write(*job.frame, job.scale);
            map_trace("write frame %llu scale %zu: done", (unsigned long long)job.frame->frame,
                      job.scale);
        } catch (const Failure &f) {
            failure = f.message;
        } catch (const std::exception &e) {
            failure = fmt::format("--map {}: {}", m_.dir, e.what());
        }
        if (!failure.empty()) {
            lock.lock();
            if (error_.empty()) error_ = failure; // the first failure is the one told
            queue_.clear();
            lock.unlock();
            space_cv_.notify_all();
            return;
        }
    }
}

MapWriter::Kept MapWriter::compute(const VifMaps &maps, uint64_t frame, unsigned threads) {
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    Kept k{frame, take_buffers(), {}, {}, maps.scale[0].width, maps.scale[0].height};
    k.maps.resize(m_.scales.size());
    for (size_t i = 0; i < m_.scales.size(); ++i) {
        const VifScaleMap &sm = maps.scale[m_.scales[i]];
        k.maps[i].resize(size_t(sm.width) * sm.height); // within a reused buffer's capacity
        local_map_in_bands(sm, k.maps[i].data(), threads);
        k.w.push_back(sm.width);
        k.h.push_back(sm.height);
    }
    return k;
}

MapWriter::Kept MapWriter::blank(uint64_t frame, uint32_t w, uint32_t h) {
    Kept k{frame, take_buffers(), {}, {}, w, h};
    k.maps.resize(m_.scales.size());
    for (size_t i = 0; i < m_.scales.size(); ++i) {
        // Scale s is the frame halved s times, rounded down (as the scorers do).
        const uint32_t sw = w >> m_.scales[i], sh = h >> m_.scales[i];
        k.maps[i].resize(size_t(sw) * sh); // within a reused buffer's capacity
        k.w.push_back(sw);
        k.h.push_back(sh);
    }
    return k;
}

void MapWriter::hold_rows(const VifMaps &crop, uint32_t top, uint32_t first, uint32_t end,
                          Kept &k) {
    constexpr uint32_t kRadius = 2; // the local map's window, docs/algorithm.md §12.3
    for (size_t i = 0; i < m_.scales.size(); ++i) {
        const uint32_t s = m_.scales[i];
        const VifScaleMap &sm = crop.scale[s];
        const uint32_t w = k.w[i], h = k.h[i];
        const uint32_t i0 = first >> s, i1 = end >= k.frame_h ? h : end >> s;
        const uint32_t at = top >> s; // the crop's first row, in the frame's rows of scale s
        if (i0 >= i1) continue;
        if (sm.width != w || at > i0 || at + sm.height < std::min(h, i1 + kRadius))
            throw Failure{"internal error: --map: a band's maps do not cover its rows"};
        // The view: the band's rows and the window's radius beyond them, where the frame has
        // them (at the frame's edges the window is clipped as over the whole frame).
        const uint32_t v0 = i0 >= kRadius ? i0 - kRadius : 0;
        const uint32_t v1 = std::min(h, i1 + kRadius);
        const VifScaleMap v = rows_of(sm, v0 - at, v1 - v0);
        thread_local std::vector<float> band; // reused: no fresh pages for each band
        band.resize(size_t(v.height) * w);
        const VifStatus st = vif_local_map(&v, band.data());
        if (st != VIF_OK) throw Failure{vif_error("--map: the local VIF map", st)};
        std::memcpy(k.maps[i].data() + size_t(i0) * w, band.data() + size_t(i0 - v0) * w,
                    sizeof(float) * size_t(i1 - i0) * w);
    }
}

MapWriter::Buffers MapWriter::take_buffers() {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_.empty()) return {};
    Buffers b = std::move(pool_.back());
    pool_.pop_back();
    return b;
}

void MapWriter::give_back(Buffers b) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    pool_.push_back(std::move(b));
}

void MapWriter::reserve_frames(size_t frames, uint32_t w, uint32_t h) {
    join_prefill();
    prefill_ = std::thread([this, frames, w, h] {
        auto one = [&] {
            Buffers b(m_.scales.size());
            for (size_t i = 0; i < b.size(); ++i) {
                // Scale s is the frame halved s times, rounded down (as the scorers do).
                const uint32_t s = m_.scales[i];
                resize_on_huge_pages(b[i], size_t(w >> s) * (h >> s)); // written: in memory
            }
            give_back(std::move(b));
        };
        // A thread a frame, or MapContexts::makers_count()'s threads each making its share.
        const size_t makers = std::min(frames, MapContexts::makers_count());
        auto some = [&](size_t first) {
            for (size_t f = first; f < frames; f += makers) one();
        };
        std::vector<std::thread> threads;
        size_t t = 1;
        try {
            for (; t < makers; ++t) threads.emplace_back(some, t);
        } catch (const std::system_error &) {
            for (; t < makers; ++t) some(t);
        }
        if (frames) some(0);
        for (std::thread &th : threads) th.join();
    });
}

void MapWriter::join_prefill() {
    if (prefill_.joinable()) prefill_.join();
}

void MapWriter::write_file(const std::string &name, const std::string &bytes) {
    write_file(name, bytes, nullptr, 0, 1, nullptr); // a head alone
}

void MapWriter::write_file(const std::string &name, const std::string &head, const float *map,
                           size_t n, size_t bytes_each,
                           void (*samples)(const float *, size_t, char *)) {
    const std::string path = tmp_ + "/" + name;
    std::FILE *f = std::fopen(path.c_str(), "wb");
    bool ok = f && std::fwrite(head.data(), 1, head.size(), f) == head.size();
    constexpr size_t kPiece = 16384; // samples converted at a time
    std::vector<char> piece(kPiece * bytes_each);
    for (size_t at = 0; ok && at < n; at += kPiece) {
        const size_t count = std::min(kPiece, n - at);
        samples(map + at, count, piece.data());
        ok = std::fwrite(piece.data(), bytes_each, count, f) == count;
    }
    const int err = errno;
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok)
        throw Failure{fmt::format("--map {}: cannot write {}: {}", m_.dir, name,
                                  std::strerror(err ? err : EIO))};
    ++files_;
}

void MapWriter::write(const Kept &k, size_t i) {
    using Format = MapOptions::Format;
    if (m_.format == Format::kY4m && videos_.empty()) {
        // The first frame opens one video per scale (every frame has the frame's size).
        for (uint32_t sc : m_.scales) {
            const std::string name = fmt::format("scale{}.y4m", sc);
            std::FILE *f = std::fopen((tmp_ + "/" + name).c_str(), "wb");
            if (!f)
                throw Failure{fmt::format("--map {}: cannot write {}: {}", m_.dir, name,
                                          std::strerror(errno))};
            videos_.push_back(f);
            ++files_;
            const std::string head = y4m_header(k.frame_w, k.frame_h, rate_num_, rate_den_);
            if (std::fwrite(head.data(), 1, head.size(), f) != head.size())
                throw Failure{fmt::format("--map {}: cannot write {}: {}", m_.dir, name,
                                          std::strerror(errno ? errno : EIO))};
        }
    }
    const uint32_t sc = m_.scales[i];
    switch (m_.format) {
    case Format::kNpy:
        write_file(fmt::format("frame{:06}_scale{}.npy", k.frame, sc), npy_header(k.w[i], k.h[i]),
                   k.maps[i].data(), k.maps[i].size(), 4, npy_samples);
        break;
    case Format::kPgm16:
        write_file(fmt::format("frame{:06}_scale{}.pgm", k.frame, sc),
                   pgm16_header(k.w[i], k.h[i],
                                fmt::format("libvif local VIF, frame {} scale {}: value = "
                                            "sample / 32768",
                                            k.frame, sc)),
                   k.maps[i].data(), k.maps[i].size(), 2, pgm16_samples);
        break;
    case Format::kPng: {
        // The picture in the colour scale's palette (a byte a pixel), drawn a row at a time as
        // the encoder filters it: each distinct row once, no frame-sized picture (fresh pages
        // on each of worst:N's up to 16 writers, and a pass more over memory).
        thread_local HeatRows picture;
        picture.start(k.maps[i], k.w[i], k.h[i], sc, k.frame_w, k.frame_h,
                      fmt::format("frame {} scale {} local VIF", k.frame, sc));
        write_file(fmt::format("frame{:06}_scale{}.png", k.frame, sc),
                   encode_png(picture.width(), picture.height(), &heat_palette(),
                              [](uint32_t y, bool &same) { return picture.row(y, same); }));
        break;
    }
    case Format::kY4m: {
        const std::string bytes =
            y4m_frame(draw_heat(k.maps[i], k.w[i], k.h[i], sc, k.frame_w, k.frame_h));
        if (std::fwrite(bytes.data(), 1, bytes.size(), videos_[i]) != bytes.size())
            throw Failure{fmt::format("--map {}: cannot write scale{}.y4m: {}", m_.dir, sc,
                                      std::strerror(errno ? errno : EIO))};
        break;
    }
    }
}

void MapWriter::take(const VifScores &s, const VifMaps &maps) {
    const uint64_t idx = maps.frame_index;
    take(s, maps, frame_nums_ && idx < frame_nums_->size() ? (*frame_nums_)[size_t(idx)] : idx);
}

void MapWriter::take(const VifScores &, const VifMaps &maps, uint64_t frame) {
    check_writer();
    switch (m_.frames) {
    case MapOptions::Frames::kAll:
        enqueue(compute(maps, frame));
        return;
    case MapOptions::Frames::kList:
        if (!std::binary_search(m_.list.begin(), m_.list.end(), frame)) return;
        listed_.push_back(frame);
        enqueue(compute(maps, frame));
        return;
    case MapOptions::Frames::kWorst: // WorstPictures scores them again and put()s them
        throw Failure{"internal error: --map-frames worst:N: maps received from the scoring"};
    }
}

void MapWriter::put(const VifMaps &maps, uint64_t frame, unsigned threads, double *computing) {
    check_writer();
    const auto t0 = std::chrono::steady_clock::now();
    Kept k = compute(maps, frame, threads);
    if (computing)
        *computing = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    enqueue(std::move(k));
}

void MapWriter::put_held(Kept k) {
    check_writer();
    enqueue(std::move(k));
}

void MapWriter::commit() {
    if (m_.frames == MapOptions::Frames::kList) {
        std::vector<uint64_t> missing;
        std::sort(listed_.begin(), listed_.end());
        std::set_difference(m_.list.begin(), m_.list.end(), listed_.begin(), listed_.end(),
                            std::back_inserter(missing));
        if (!missing.empty()) {
            const uint64_t last = frame_nums_ && !frame_nums_->empty() ? frame_nums_->back() : 0;
            throw Failure{fmt::format("--map-frames: frame {} is not in the scored clip (its "
                                      "last scored frame is {}); no maps written",
                                      missing.front(), last)};
        }
    }
    map_trace("commit: waiting for the writers");
    stop_writer();
    map_trace("commit: writers joined");
    check_writer();
    for (std::FILE *&f : videos_) {
        const bool ok = std::fclose(f) == 0;
        f = nullptr;
        if (!ok)
            throw Failure{fmt::format("--map {}: cannot write a heat-map video: {}", m_.dir,
                                      std::strerror(errno))};
    }
    videos_.clear();
    // A new or empty DIR: rename() replaces an empty folder in one step.
    if (std::rename(tmp_.c_str(), dir_.c_str()) != 0)
        throw Failure{fmt::format("--map {}: cannot move the maps into place: {}", m_.dir,
                                  std::strerror(errno))};
    committed_ = true;
    map_trace("commit: renamed");
}

} // namespace vifcli
