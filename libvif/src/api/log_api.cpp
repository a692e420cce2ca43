// The vif_log_* entry points (vif/vif_log.h): arguments checked here, exceptions turned into
// statuses with a message. The table and the text are log_text's, the file log_file's.
#include "api/checks.hpp"
#include "api/last_error.hpp"
#include "core/log_file.hpp"
#include "core/log_text.hpp"

#include <vif/vif_log.h>

#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

struct VifLog {
    VifLogFormat format = VIF_LOG_JSON;
    int precision = VIF_LOG_PRECISION_LIBVMAF;
    vif::log::LogTable table;                      // keys/columns of every variant, side by side
    std::vector<std::vector<uint64_t>> frame_nums; // per variant
    std::vector<size_t> first_column;              // per variant: its first column in the table
    std::vector<int> metrics;                      // per variant
    std::unique_ptr<vif::log::LogFile> file;
    bool finished = false;
};

namespace {

using vif::fail;

bool format_known(int f) {
    return f == VIF_LOG_JSON || f == VIF_LOG_XML || f == VIF_LOG_CSV || f == VIF_LOG_SUMMARY;
}

bool precision_known(int p) {
    return p == VIF_LOG_PRECISION_LIBVMAF || p == VIF_LOG_PRECISION_MAX || (p >= 0 && p <= 17);
}

VifStatus check_renderable(const VifLog &log) {
    if (log.frame_nums.empty())
        return fail(VIF_ERROR_INVALID_STATE, "the log has no variant (vif_log_add_variant)");
    for (size_t v = 0; v < log.frame_nums.size(); ++v) {
        if (log.frame_nums[v].empty())
            return fail(VIF_ERROR_INVALID_STATE, "the log has no frame" +
                                                     std::string(v ? " for variant " : "") +
                                                     (v ? std::to_string(v) : ""));
        if (log.frame_nums[v].size() != log.frame_nums[0].size())
            return fail(VIF_ERROR_INVALID_STATE, "variant " + std::to_string(v) + " has " +
                                                     std::to_string(log.frame_nums[v].size()) +
                                                     " frames, variant 0 has " +
                                                     std::to_string(log.frame_nums[0].size()));
    }
    return VIF_OK;
}

VifStatus render_text(const VifLog &log, VifLogFormat format, std::string *out) {
    const VifStatus st = check_renderable(log);
    if (st != VIF_OK) return st;
    vif::log::LogTable t = log.table; // frame_nums are variant 0's (all agree)
    t.frame_nums = log.frame_nums[0];
    *out = vif::log::render(t, format, log.precision);
    return VIF_OK;
}

} // namespace

extern "C" {

VifStatus vif_log_create(VifLog **log, VifLogFormat format, const VifLogRun *run,
                         const char *path) {
    if (!log || !run) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_create: NULL log or run");
    *log = nullptr;
    const int f = vif::enum_value(format);
    if (!format_known(f))
        return fail(VIF_ERROR_INVALID_ARGUMENT, "unknown log format " + std::to_string(f) +
                                                    " (VIF_LOG_JSON, _XML, _CSV or _SUMMARY)");
    if (!precision_known(run->precision))
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "log precision " + std::to_string(run->precision) +
                        " is not VIF_LOG_PRECISION_LIBVMAF, VIF_LOG_PRECISION_MAX or 0..17");
    if (run->bitdepth != 8 && run->bitdepth != 10 && run->bitdepth != 12 && run->bitdepth != 16)
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "log bit depth " + std::to_string(run->bitdepth) + " is not 8, 10, 12 or 16");
    if (run->width == 0 || run->height == 0)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "log frame size " + std::to_string(run->width) +
                                                    "x" + std::to_string(run->height) +
                                                    " is empty");
    for (uint32_t r : run->reserved)
        if (r != 0) return fail(VIF_ERROR_INVALID_ARGUMENT, "VifLogRun.reserved is not zero");
    try {
        auto l = std::make_unique<VifLog>();
        l->format = format;
        l->precision = run->precision;
        vif::log::LogTable &t = l->table;
        t.version = vif_version();
        t.fps = run->fps;
        t.width = run->width;
        t.height = run->height;
        t.bitdepth = run->bitdepth;
        t.backend = run->backend ? run->backend : "";
        t.reference = run->reference ? run->reference : "";
        t.distorted = run->distorted ? run->distorted : "";
        t.subsample = run->subsample ? run->subsample : 1;
        t.details = run->details != 0;
        if (path) l->file = std::make_unique<vif::log::LogFile>(path);
        *log = l.release();
        vif::clear_error();
        return VIF_OK;
    } catch (const std::bad_alloc &) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_log_create: out of memory");
    } catch (const std::exception &e) {
        return fail(VIF_ERROR_INVALID_ARGUMENT, std::string("log ") + e.what());
    }
}

VifStatus vif_log_add_variant(VifLog *log, const VifConfig *cfg, int metrics, int *variant) {
    if (!log || !cfg || !variant)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_add_variant: NULL argument");
    if (metrics < 1 || metrics > VIF_METRIC_COUNT)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_add_variant: metrics " +
                                                    std::to_string(metrics) + " is not in 1.." +
                                                    std::to_string(int(VIF_METRIC_COUNT)));
    for (const auto &f : log->frame_nums)
        if (!f.empty())
            return fail(VIF_ERROR_INVALID_STATE,
                        "vif_log_add_variant: frames were added already; add every variant first");
    try {
        std::vector<std::string> keys;
        for (int m = 0; m < metrics; ++m) {
            char name[64];
            const VifStatus st = vif_metric_name(cfg, VifMetric(m), name, sizeof name);
            if (st != VIF_OK) return st; // vif_metric_name said why
            keys.emplace_back(name);
        }
        vif::log::LogTable &t = log->table;
        const char *vname =
            vif::enum_value(cfg->variant) == VIF_VARIANT_INTEGER ? "integer" : "float";
        t.variant += (t.variant.empty() ? "" : "+") + std::string(vname);
        log->first_column.push_back(t.keys.size());
        log->metrics.push_back(metrics);
        for (auto &k : keys) {
            t.keys.push_back(std::move(k));
            t.columns.emplace_back();
        }
        log->frame_nums.emplace_back();
        *variant = int(log->frame_nums.size() - 1);
        vif::clear_error();
        return VIF_OK;
    } catch (const std::bad_alloc &) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_log_add_variant: out of memory");
    }
}

VifStatus vif_log_add_frame(VifLog *log, int variant, uint64_t frame_num, const VifScores *scores) {
    if (!log || !scores)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_add_frame: NULL argument");
    if (variant < 0 || size_t(variant) >= log->frame_nums.size())
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "vif_log_add_frame: no variant " + std::to_string(variant));
    std::vector<uint64_t> &nums = log->frame_nums[size_t(variant)];
    const size_t k = nums.size();
    for (size_t v = 0; v < log->frame_nums.size(); ++v) {
        const auto &other = log->frame_nums[v];
        if (v != size_t(variant) && other.size() > k && other[k] != frame_num)
            return fail(VIF_ERROR_INVALID_ARGUMENT,
                        "vif_log_add_frame: frame " + std::to_string(k) + " of variant " +
                            std::to_string(variant) + " is frameNum " + std::to_string(frame_num) +
                            ", variant " + std::to_string(v) + " has " + std::to_string(other[k]));
    }
    const size_t first = log->first_column[size_t(variant)];
    const int metrics = log->metrics[size_t(variant)];
    try {
        for (int m = 0; m < metrics; ++m) log->table.columns[first + size_t(m)].reserve(k + 1);
        nums.reserve(k + 1);
    } catch (const std::bad_alloc &) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_log_add_frame: out of memory");
    }
    // Capacity is there: nothing below throws, so the log never holds half a frame.
    for (int m = 0; m < metrics; ++m)
        log->table.columns[first + size_t(m)].push_back(vif_metric_value(scores, VifMetric(m)));
    nums.push_back(frame_num);
    vif::clear_error();
    return VIF_OK;
}

VifStatus vif_log_set_fps(VifLog *log, double fps) {
    if (!log) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_set_fps: NULL log");
    log->table.fps = fps;
    vif::clear_error();
    return VIF_OK;
}

size_t vif_log_frames(const VifLog *log) {
    return log && !log->frame_nums.empty() ? log->frame_nums[0].size() : 0;
}

VifStatus vif_log_render(const VifLog *log, VifLogFormat format, char *buf, size_t size,
                         size_t *length) {
    if (!log || !length) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_render: NULL argument");
    if (!buf && size > 0)
        return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_render: NULL buffer of non-zero size");
    const int f = vif::enum_value(format);
    if (!format_known(f))
        return fail(VIF_ERROR_INVALID_ARGUMENT, "unknown log format " + std::to_string(f));
    try {
        std::string text;
        const VifStatus st = render_text(*log, format, &text);
        if (st != VIF_OK) return st;
        *length = text.size();
        if (size == 0 && !buf) {
            vif::clear_error();
            return VIF_OK;
        }
        if (size < text.size() + 1)
            return fail(VIF_ERROR_INVALID_ARGUMENT,
                        "vif_log_render: the buffer holds " + std::to_string(size) +
                            " bytes, the text needs " + std::to_string(text.size() + 1));
        std::memcpy(buf, text.c_str(), text.size() + 1);
        vif::clear_error();
        return VIF_OK;
    } catch (const std::bad_alloc &) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_log_render: out of memory");
    } catch (const std::exception &e) {
        return fail(VIF_ERROR_INTERNAL, std::string("vif_log_render: ") + e.what());
    }
}

VifStatus vif_log_finish(VifLog *log) {
    if (!log) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_finish: NULL log");
    if (!log->file) return fail(VIF_ERROR_INVALID_STATE, "vif_log_finish: the log has no path");
    if (log->finished) return fail(VIF_ERROR_INVALID_STATE, "vif_log_finish: already finished");
    try {
        std::string text;
        const VifStatus st = render_text(*log, log->format, &text);
        if (st != VIF_OK) return st;
        log->finished = true; // the file is spent whether the write works or not
        log->file->commit(text);
        vif::clear_error();
        return VIF_OK;
    } catch (const std::bad_alloc &) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_log_finish: out of memory");
    } catch (const std::exception &e) {
        return fail(VIF_ERROR_INTERNAL, std::string("log ") + e.what());
    }
}

void vif_log_destroy(VifLog *log) {
    delete log;
}

VifStatus vif_log_format_value(double value, int precision, char *buf, size_t size) {
    if (!buf) return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_format_value: NULL buffer");
    if (!precision_known(precision))
        return fail(VIF_ERROR_INVALID_ARGUMENT,
                    "vif_log_format_value: precision " + std::to_string(precision) +
                        " is not VIF_LOG_PRECISION_LIBVMAF, VIF_LOG_PRECISION_MAX or 0..17");
    try {
        const std::string s = vif::log::format_value(value, precision);
        if (size < s.size() + 1)
            return fail(VIF_ERROR_INVALID_ARGUMENT, "vif_log_format_value: the buffer holds " +
                                                        std::to_string(size) + " bytes, " +
                                                        std::to_string(s.size() + 1) + " needed");
        std::memcpy(buf, s.c_str(), s.size() + 1);
        vif::clear_error();
        return VIF_OK;
    } catch (const std::bad_alloc &) {
        return fail(VIF_ERROR_OUT_OF_MEMORY, "vif_log_format_value: out of memory");
    }
}

} // extern "C"
