#include "result_file.hpp"

#include "vif/vif_log.h"

namespace gstvif {

struct ResultFile::Impl {
    VifLog *log = nullptr;
    std::vector<int> variants;
};

ResultFile::ResultFile() : impl_(new Impl) {}
ResultFile::~ResultFile() {
    abandon();
}

bool ResultFile::open(const std::string &path, ResultFormat format, const Scorer &scorer,
                      uint32_t width, uint32_t height, uint32_t bitdepth,
                      const std::string &reference, const std::string &distorted,
                      std::string *error) {
    abandon();
    VifLogRun run = {};
    run.width = width;
    run.height = height;
    run.bitdepth = bitdepth;
    run.backend = scorer.backend_name();
    run.reference = reference.c_str();
    run.distorted = distorted.c_str();
    run.subsample = 1;
    run.precision = VIF_LOG_PRECISION_LIBVMAF;
    const VifLogFormat f = format == ResultFormat::kXml   ? VIF_LOG_XML
                           : format == ResultFormat::kCsv ? VIF_LOG_CSV
                                                          : VIF_LOG_JSON;
    if (vif_log_create(&impl_->log, f, &run, path.c_str()) != VIF_OK) {
        *error = vif_last_error();
        impl_->log = nullptr;
        return false;
    }
    for (size_t v = 0; v < scorer.variants(); ++v) {
        int index = 0;
        if (vif_log_add_variant(impl_->log, &scorer.config(v), VIF_LOG_METRICS_DEFAULT, &index) !=
            VIF_OK) {
            *error = vif_last_error();
            abandon();
            return false;
        }
        impl_->variants.push_back(index);
    }
    return true;
}

bool ResultFile::finish(const std::vector<const std::vector<VifScores> *> &scores, double fps,
                        std::string *error) {
    if (!impl_->log) return true;
    for (size_t v = 0; v < scores.size() && v < impl_->variants.size(); ++v)
        for (size_t f = 0; f < scores[v]->size(); ++f)
            if (vif_log_add_frame(impl_->log, impl_->variants[v], f, &(*scores[v])[f]) != VIF_OK) {
                *error = vif_last_error();
                abandon();
                return false;
            }
    vif_log_set_fps(impl_->log, fps);
    const bool ok = vif_log_finish(impl_->log) == VIF_OK;
    if (!ok) *error = vif_last_error();
    abandon();
    return ok;
}

void ResultFile::abandon() {
    if (impl_ && impl_->log) vif_log_destroy(impl_->log);
    if (impl_) {
        impl_->log = nullptr;
        impl_->variants.clear();
    }
}

} // namespace gstvif
