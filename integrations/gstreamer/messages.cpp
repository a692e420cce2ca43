#include "messages.hpp"

namespace gstvif {

void MetricNames::build(const Scorer &scorer) {
    variants = scorer.variants();
    for (size_t v = 0; v < variants; ++v)
        for (int m = 0; m < 5; ++m) {
            char buf[64] = {0};
            vif_metric_name(&scorer.config(v), static_cast<VifMetric>(VIF_METRIC_SCALE0 + m), buf,
                            sizeof buf);
            keys[v][m] = buf;
        }
}

static double metric(const VifScores &s, int m) {
    return vif_metric_value(&s, static_cast<VifMetric>(VIF_METRIC_SCALE0 + m));
}

GstStructure *frame_structure(const MetricNames &names, const FrameResult &r,
                              const char *pad_name) {
    GstStructure *s = gst_structure_new(
        "vif", "frame", G_TYPE_UINT64, static_cast<guint64>(r.tag.frame), "timestamp",
        G_TYPE_UINT64, static_cast<guint64>(r.tag.pts), "stream-time", G_TYPE_UINT64,
        static_cast<guint64>(r.tag.stream_time), "running-time", G_TYPE_UINT64,
        static_cast<guint64>(r.tag.running_time), "duration", G_TYPE_UINT64,
        static_cast<guint64>(r.tag.duration), "pad", G_TYPE_STRING, pad_name, nullptr);
    for (size_t v = 0; v < names.variants; ++v)
        for (int m = 0; m < 5; ++m)
            gst_structure_set(s, names.keys[v][m].c_str(), G_TYPE_DOUBLE, metric(r.scores[v], m),
                              nullptr);
    return s;
}

void PadPool::add(const FrameResult &r, size_t variants) {
    for (size_t v = 0; v < variants; ++v) all_[v].push_back(r.scores[v]);
    ++frames_;
}

GstStructure *PadPool::summary(const MetricNames &names, const char *pad_name) const {
    if (frames_ == 0) return nullptr;
    GstStructure *s = gst_structure_new("vif-summary", "pad", G_TYPE_STRING, pad_name, "frames",
                                        G_TYPE_UINT64, static_cast<guint64>(frames_), nullptr);
    const VifPoolMethod methods[4] = {VIF_POOL_MEAN, VIF_POOL_HARMONIC_MEAN, VIF_POOL_MIN,
                                      VIF_POOL_MAX};
    const char *method_names[4] = {"mean", "harmonic_mean", "min", "max"};
    std::vector<double> values(frames_);
    for (size_t v = 0; v < names.variants; ++v)
        for (int m = 0; m < 5; ++m) {
            for (size_t f = 0; f < frames_; ++f) values[f] = metric(all_[v][f], m);
            GstStructure *pooled = gst_structure_new_empty("pooled");
            for (int k = 0; k < 4; ++k) {
                double out = 0.0;
                vif_pool(values.data(), values.size(), methods[k], 0.0, &out);
                gst_structure_set(pooled, method_names[k], G_TYPE_DOUBLE, out, nullptr);
            }
            gst_structure_set(s, names.keys[v][m].c_str(), GST_TYPE_STRUCTURE, pooled, nullptr);
            gst_structure_free(pooled);
        }
    return s;
}

} // namespace gstvif
