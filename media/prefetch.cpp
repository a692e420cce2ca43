#include "prefetch.hpp"

#include <vif/vif.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

namespace vifcli {

namespace {
constexpr std::align_val_t kAlign{4096};

std::atomic<uint64_t> g_frames{0}, g_cpu_ns{0}, g_reading_ns{0};

uint64_t thread_cpu_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// Adds a reader thread's frames, CPU time and reading time to the totals when it ends.
struct ReaderAccount {
    using Clock = std::chrono::steady_clock;
    Clock::time_point born = Clock::now();
    uint64_t cpu0 = thread_cpu_ns();
    Clock::duration waited{};
    uint64_t frames = 0;
    ~ReaderAccount() {
        g_frames += frames;
        g_cpu_ns += thread_cpu_ns() - cpu0;
        const auto reading = Clock::now() - born - waited;
        g_reading_ns +=
            uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(reading).count());
    }
};
} // namespace

ReaderTotals reader_totals() {
    ReaderTotals t;
    t.frames = g_frames.load();
    t.cpu_seconds = 1e-9 * double(g_cpu_ns.load());
    t.reading_seconds = 1e-9 * double(g_reading_ns.load());
    return t;
}

void Prefetcher::AlignedFree::operator()(uint8_t *p) const {
    ::operator delete[](p, kAlign);
}

Prefetcher::Prefetcher(FrameSource &src, std::string name, ReadPlan plan, size_t slots)
    : src_(src), info_(src.info()), name_(std::move(name)), plan_(std::move(plan)),
      mapped_(src.supports_mapping()) {
    if (plan_.subsample == 0) plan_.subsample = 1;
    // Benchmarks: VIF_PREFETCH_DROP_BYTES=N sets the drop batch (1: a drop per frame).
    if (const char *v = std::getenv("VIF_PREFETCH_DROP_BYTES"); v && *v)
        plan_.drop_batch_bytes = std::max<size_t>(1, size_t(std::strtoull(v, nullptr, 10)));
    // Buffers are allocated as the ring fills (see run): an input that ends, or fails, at its
    // first frame never gets more than one.
    slots_.resize(slots < 2 ? 2 : slots);
    thread_ = std::thread([this] { run(); });
}

Prefetcher::~Prefetcher() {
    stop();
}

void Prefetcher::stop() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void Prefetcher::run() {
    const size_t n = slots_.size();
    size_t tail = 0;
    ReaderAccount account;
    auto finish = [&](bool input_ended) {
        std::lock_guard<std::mutex> lk(mu_);
        done_ = true;
        input_ended_ = input_ended;
        cv_.notify_all();
    };
    try {
        if (plan_.skip) {
            uint64_t k = src_.skip(plan_.skip);
            if (k < plan_.skip)
                throw InputError(fmt::format("{} {} skips past the end of the {} ({} frames)",
                                             plan_.skip_option, plan_.skip, name_, k));
        }
        uint64_t delivered = 0;
        for (uint64_t pair = 0;; ++pair) {
            if (pair >= plan_.max_pairs || delivered >= plan_.max_delivered) {
                finish(false);
                return;
            }
            if (pair % plan_.subsample != 0) {
                if (src_.skip(1) == 0) {
                    finish(true);
                    return;
                }
                continue;
            }
            {
                const auto waiting = ReaderAccount::Clock::now();
                std::unique_lock<std::mutex> lk(mu_);
                cv_.wait(lk, [&] { return stop_ || filled_ < n; });
                account.waited += ReaderAccount::Clock::now() - waiting;
                if (stop_) return;
            }
            Slot &s = slots_[tail];
            if (mapped_) {
                if (s.data) done_with(s.data); // the frame this slot held last
                s.data = src_.map_luma();
                if (!s.data) {
                    finish(true);
                    return;
                }
            } else if (!s.buf) {
                s.buf.reset(static_cast<uint8_t *>(::operator new[](info_.luma_bytes(), kAlign)));
                s.data = s.buf.get();
            }
            if (!mapped_ && !src_.read_luma(s.buf.get(), ptrdiff_t(info_.row_bytes()))) {
                finish(true);
                return;
            }
            s.pair = pair;
            s.file_frame = plan_.skip + pair;
            if (!check_samples_needed() && mapped_) populate(s.data);
            check_samples(s.data, s.file_frame);
            tail = (tail + 1) % n;
            ++delivered;
            ++account.frames;
            {
                std::lock_guard<std::mutex> lk(mu_);
                ++filled_;
            }
            cv_.notify_all();
        }
    } catch (const std::bad_alloc &) {
        std::lock_guard<std::mutex> lk(mu_);
        failed_ = true;
        error_ = fmt::format("{}: out of memory for a buffer of one {}x{} frame ({} bytes)", name_,
                             info_.width, info_.height, info_.luma_bytes());
        cv_.notify_all();
    } catch (const std::exception &e) {
        std::lock_guard<std::mutex> lk(mu_);
        failed_ = true;
        error_ = e.what();
        cv_.notify_all();
    }
}

bool Prefetcher::check_samples_needed() const {
    const uint32_t bd = info_.bitdepth;
    return bd > 8 && bd < 16 && !(info_.picture_flags & VIF_PICTURE_MSB_ALIGNED);
}

// The page-aligned part of a mapped plane: [*begin, *end).
static void page_range(const uint8_t *data, size_t bytes, bool outward, uintptr_t *begin,
                       uintptr_t *end) {
    static const uintptr_t page = uintptr_t(::sysconf(_SC_PAGESIZE));
    uintptr_t b = uintptr_t(data), e = b + bytes;
    *begin = outward ? b & ~(page - 1) : (b + page - 1) & ~(page - 1);
    *end = outward ? (e + page - 1) & ~(page - 1) : e & ~(page - 1);
}

void Prefetcher::populate(const uint8_t *data) const {
    uintptr_t b, e;
    page_range(data, info_.luma_bytes(), true, &b, &e);
#ifdef MADV_POPULATE_READ
    if (::madvise(reinterpret_cast<void *>(b), e - b, MADV_POPULATE_READ) == 0) return;
#endif
    // Older kernels: touch a byte of every page.
    static const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    volatile uint8_t sink = 0;
    for (size_t off = 0; off < info_.luma_bytes(); off += page) sink = sink ^ data[off];
}

void Prefetcher::done_with(const uint8_t *data) {
    // Planes come in file order from one mapping: a plane just after the pending ones (what
    // lies between is a frame's chroma and a Y4M frame header, never faulted in) joins them;
    // anything else (a subsampled input's skipped frames) drops them first.
    const uint8_t *end = data + info_.luma_bytes();
    if (pending_begin_ &&
        (data < pending_end_ || size_t(data - pending_end_) > 2 * info_.luma_bytes() + 4096))
        drop_pending();
    if (!pending_begin_) pending_begin_ = data;
    pending_end_ = end;
    if (size_t(pending_end_ - pending_begin_) >= plan_.drop_batch_bytes) drop_pending();
}

void Prefetcher::drop_pending() {
    // Only whole pages inside the range: never a page a later frame's plane shares.
    uintptr_t b, e;
    page_range(pending_begin_, size_t(pending_end_ - pending_begin_), false, &b, &e);
    if (e > b) {
        ::madvise(reinterpret_cast<void *>(b), e - b, MADV_DONTNEED);
        ++drops_;
    }
    pending_begin_ = pending_end_ = nullptr;
}

void Prefetcher::check_samples(const uint8_t *data, uint64_t file_frame) const {
    const uint32_t bd = info_.bitdepth;
    if (!check_samples_needed()) return;
    const size_t count = size_t(info_.width) * info_.height;
    uint16_t acc = 0;
    // memcpy per word keeps this free of aliasing and alignment questions; it vectorises.
    for (size_t i = 0; i < count; ++i) {
        uint16_t v;
        std::memcpy(&v, data + 2 * i, 2);
        acc |= v;
    }
    if ((acc >> bd) == 0) return;
    for (size_t i = 0; i < count; ++i) {
        uint16_t v;
        std::memcpy(&v, data + 2 * i, 2);
        if (v >> bd)
            throw InputError(fmt::format(
                "{}: frame {}: sample value {} at (x={}, y={}) is above the {}-bit maximum {} "
                "(wrong -b/--bitdepth, or big-endian or MSB-aligned data?)",
                name_, file_frame, v, i % info_.width, i / info_.width, bd, (1u << bd) - 1));
    }
}

Prefetcher::Status Prefetcher::next(Frame *out) {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [&] { return filled_ > 0 || done_ || failed_; });
    if (filled_ > 0) {
        const Slot &s = slots_[head_];
        out->data = s.data;
        out->pair = s.pair;
        out->file_frame = s.file_frame;
        return Status::kFrame;
    }
    return failed_ ? Status::kError : Status::kEnd;
}

void Prefetcher::release() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (filled_ == 0) return;
        head_ = (head_ + 1) % slots_.size();
        --filled_;
    }
    cv_.notify_all();
}

} // namespace vifcli
