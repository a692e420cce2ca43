// libvif C++ wrapper: header-only RAII over the C ABI in vif.h. Errors become vif::Error
// exceptions carrying the status and message; nothing else changes.
//
//     vif::Config cfg;                       // defaults from vif_default_config
//     cfg.max_width = 1920; cfg.max_height = 1080;
//     vif::Context ctx(cfg);
//     ctx.submit(ref, dist);                 // VifPicture views, copied before return
//     while (auto s = ctx.receive(false)) use(*s);
#ifndef VIF_VIF_HPP
#define VIF_VIF_HPP

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "vif/vif.h"

namespace vif {

class Error : public std::runtime_error {
public:
    Error(VifStatus status, const std::string& message)
        : std::runtime_error(message), status_(status) {}
    VifStatus status() const noexcept { return status_; }

private:
    VifStatus status_;
};

inline void check(VifStatus status) {
    if (status != VIF_OK && status != VIF_AGAIN) {
        const char* msg = vif_last_error();
        throw Error(status, msg && *msg ? msg : vif_status_string(status));
    }
}

struct Config : VifConfig {
    Config() { vif_default_config(this); }
};

class Context {
public:
    explicit Context(const VifConfig& cfg) { check(vif_create(&ctx_, &cfg)); }
    ~Context() { vif_destroy(ctx_); }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    Context(Context&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)) {}
    Context& operator=(Context&& o) noexcept {
        if (this != &o) {
            vif_destroy(ctx_);
            ctx_ = std::exchange(o.ctx_, nullptr);
        }
        return *this;
    }

    // Queues a frame; returns false (nothing queued) when the queue is full of scores waiting
    // to be received.
    bool try_submit(const VifPicture& ref, const VifPicture& dist, uint64_t* index = nullptr) {
        const VifStatus st = vif_submit(ctx_, &ref, &dist, index);
        check(st);
        return st == VIF_OK;
    }

    // Queues a frame, receiving scores into `sink` whenever the queue is full.
    template <typename Sink>
    uint64_t submit(const VifPicture& ref, const VifPicture& dist, Sink&& sink) {
        uint64_t index = 0;
        while (!try_submit(ref, dist, &index)) sink(*receive(true));
        return index;
    }

    // Scores of the oldest pending frame, or nothing if not ready (block = false) or none
    // pending.
    std::optional<VifScores> receive(bool block) {
        VifScores s;
        const VifStatus st = vif_receive(ctx_, &s, block ? 1 : 0);
        check(st);
        if (st == VIF_AGAIN) return std::nullopt;
        return s;
    }

    VifScores score(const VifPicture& ref, const VifPicture& dist) {
        VifScores s;
        check(vif_score(ctx_, &ref, &dist, &s));
        return s;
    }

    size_t pending() const { return vif_pending(ctx_); }
    const char* backend() const { return vif_backend_name(ctx_); }
    VifContext* get() const noexcept { return ctx_; }

private:
    VifContext* ctx_ = nullptr;
};

inline std::string metric_name(const VifConfig& cfg, VifMetric m) {
    char buf[64];
    check(vif_metric_name(&cfg, m, buf, sizeof buf));
    return buf;
}

} // namespace vif

#endif // VIF_VIF_HPP
