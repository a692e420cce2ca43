#include "element.hpp"

#include <gst/video/video.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cuda_memory.hpp"
#include "formats.hpp"
#include "messages.hpp"
#include "pad.hpp"
#include "result_file.hpp"
#include "scoring.hpp"

GST_DEBUG_CATEGORY_STATIC(gst_vif_debug);
#define GST_CAT_DEFAULT gst_vif_debug

namespace gstvif {

// Property values, read by the streaming thread under the object lock.
struct Properties {
    Variant variant = Variant::kInteger;
    VifBackend backend = VIF_BACKEND_AUTO;
    int device = 0;
    guint threads = 0;
    bool frame_message = true;
    std::string result_file;
    ResultFormat result_format = ResultFormat::kJson;
    double enhn_gain_limit = 100.0;
    double kernelscale = 1.0;
};

struct DistStream {
    std::string name; // pad name, for messages and warnings
    PadPool pool;
    std::unique_ptr<ResultFile> file;
};

struct ElementState {
    Properties props;
    // Streaming-thread state, reset when the element stops.
    Scorer scorer;
    MetricNames names;
    std::map<guint, DistStream> streams; // by pad index
    bool opened = false;
    bool scoring_ended = false; // a distorted pad ended early: only pass-through from now on
    bool finished = false;
    uint32_t width = 0, height = 0, bitdepth = 0;
    bool cuda = false;
    std::chrono::steady_clock::time_point started;
    CudaContextShare cuda_share;
};

} // namespace gstvif

using gstvif::ElementState;

enum {
    PROP_0,
    PROP_VARIANT,
    PROP_BACKEND,
    PROP_DEVICE_ID,
    PROP_THREADS,
    PROP_FRAME_MESSAGE,
    PROP_RESULT_FILE,
    PROP_RESULT_FORMAT,
    PROP_ENHN_GAIN_LIMIT,
    PROP_KERNELSCALE,
};

#define GST_TYPE_VIF_VARIANT (gst_vif_variant_get_type())
static GType gst_vif_variant_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {static_cast<gint>(gstvif::Variant::kInteger), "Integer VIF (libvmaf's vif, bit-exact)",
         "integer"},
        {static_cast<gint>(gstvif::Variant::kFloat), "Float VIF (libvmaf's float_vif)", "float"},
        {static_cast<gint>(gstvif::Variant::kBoth), "Both variants", "both"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstVifVariant", values));
    return type;
}

#define GST_TYPE_VIF_BACKEND (gst_vif_backend_get_type())
static GType gst_vif_backend_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {VIF_BACKEND_AUTO, "CUDA for CUDA memory or when a GPU is present, else CPU", "auto"},
        {VIF_BACKEND_CPU, "CPU", "cpu"},
        {VIF_BACKEND_CUDA, "CUDA", "cuda"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstVifBackend", values));
    return type;
}

#define GST_TYPE_VIF_RESULT_FORMAT (gst_vif_result_format_get_type())
static GType gst_vif_result_format_get_type() {
    static GType type = 0;
    static const GEnumValue values[] = {
        {static_cast<gint>(gstvif::ResultFormat::kJson), "libvmaf JSON", "json"},
        {static_cast<gint>(gstvif::ResultFormat::kXml), "libvmaf XML", "xml"},
        {static_cast<gint>(gstvif::ResultFormat::kCsv), "libvmaf CSV", "csv"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstVifResultFormat", values));
    return type;
}

G_DEFINE_TYPE(GstVif, gst_vif, GST_TYPE_AGGREGATOR)

// ---- Pads -----------------------------------------------------------------------------------

// The sink pads, sorted by index, each with a reference the caller drops (unref_pads).
static std::vector<GstVifPad *> sorted_pads(GstVif *self) {
    std::vector<GstVifPad *> pads;
    GST_OBJECT_LOCK(self);
    for (GList *l = GST_ELEMENT(self)->sinkpads; l; l = l->next)
        pads.push_back(GST_VIF_PAD(gst_object_ref(l->data)));
    GST_OBJECT_UNLOCK(self);
    std::sort(pads.begin(), pads.end(),
              [](GstVifPad *a, GstVifPad *b) { return a->index < b->index; });
    return pads;
}

static void unref_pads(std::vector<GstVifPad *> &pads) {
    for (auto *p : pads) gst_object_unref(p);
    pads.clear();
}

static GstAggregatorPad *gst_vif_create_new_pad(GstAggregator *agg, GstPadTemplate *templ,
                                                const gchar *req_name, const GstCaps *caps) {
    GstAggregatorPad *pad =
        GST_AGGREGATOR_CLASS(gst_vif_parent_class)->create_new_pad(agg, templ, req_name, caps);
    if (!pad) return nullptr;
    GstVifPad *vpad = GST_VIF_PAD(pad);
    gchar *name = gst_pad_get_name(GST_PAD(pad));
    guint index = 0;
    if (sscanf(name, "sink_%u", &index) == 1) vpad->index = index;
    g_free(name);
    return pad;
}

// Luma size, depth and memory of `pad` against every other pad with caps: the message of the
// first difference, empty if they agree.
static std::string check_against_others(GstVif *self, GstVifPad *pad) {
    std::string why;
    auto pads = sorted_pads(self);
    for (auto *other : pads) {
        if (other == pad || !other->has_info) continue;
        gchar *a = gst_pad_get_name(GST_PAD(pad)), *b = gst_pad_get_name(GST_PAD(other));
        const int wa = GST_VIDEO_INFO_WIDTH(&pad->info), ha = GST_VIDEO_INFO_HEIGHT(&pad->info);
        const int wb = GST_VIDEO_INFO_WIDTH(&other->info), hb = GST_VIDEO_INFO_HEIGHT(&other->info);
        gchar *msg = nullptr;
        if (wa != wb || ha != hb)
            msg = g_strdup_printf("%s is %dx%d but %s is %dx%d: every pad must carry frames of "
                                  "one size (scale the distorted streams first)",
                                  a, wa, ha, b, wb, hb);
        else if (pad->layout.bitdepth != other->layout.bitdepth)
            msg = g_strdup_printf("%s has %u-bit luma but %s has %u-bit: every pad must have "
                                  "the same bit depth",
                                  a, pad->layout.bitdepth, b, other->layout.bitdepth);
        else if (pad->cuda_memory != other->cuda_memory)
            msg = g_strdup_printf("%s carries %s memory but %s carries %s memory: the pads must "
                                  "all be in system memory or all in CUDA memory",
                                  a, pad->cuda_memory ? "CUDA" : "system", b,
                                  other->cuda_memory ? "CUDA" : "system");
        if (msg) why = msg;
        g_free(msg);
        g_free(a);
        g_free(b);
        if (!why.empty()) break;
    }
    unref_pads(pads);
    return why;
}

static gboolean gst_vif_sink_event(GstAggregator *agg, GstAggregatorPad *apad, GstEvent *event) {
    GstVif *self = GST_VIF(agg);
    GstVifPad *pad = GST_VIF_PAD(apad);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CAPS) {
        GstCaps *caps = nullptr;
        gst_event_parse_caps(event, &caps);
        GstVideoInfo info;
        gstvif::LumaLayout layout;
        gchar *name = gst_pad_get_name(GST_PAD(pad));
        std::string error;
        if (!gst_video_info_from_caps(&info, caps) || !gstvif::luma_layout(info, &layout)) {
            gchar *s = gst_caps_to_string(caps);
            error = std::string(name) + ": caps " + s + " are not a raw video format vif scores";
            g_free(s);
        }
        const GstCapsFeatures *features = gst_caps_get_features(caps, 0);
        const bool cuda = features && gst_caps_features_contains(features, "memory:CUDAMemory");
        if (error.empty() && cuda && self->state->props.backend == VIF_BACKEND_CPU)
            error = std::string(name) +
                    ": CUDA memory needs the cuda (or auto) backend, but backend=cpu";
        if (error.empty()) {
            // Compare through the pad itself: take the new caps, restore them on a mismatch.
            const GstVifPad saved = *pad;
            pad->info = info;
            pad->layout = layout;
            pad->cuda_memory = cuda;
            pad->has_info = TRUE;
            error = check_against_others(self, pad);
            if (!error.empty()) {
                pad->info = saved.info;
                pad->layout = saved.layout;
                pad->cuda_memory = saved.cuda_memory;
                pad->has_info = saved.has_info;
            }
        }
        if (error.empty() && self->state->opened &&
            (GST_VIDEO_INFO_WIDTH(&info) != static_cast<gint>(self->state->width) ||
             GST_VIDEO_INFO_HEIGHT(&info) != static_cast<gint>(self->state->height) ||
             layout.bitdepth != self->state->bitdepth))
            error = std::string(name) + ": the frame size or bit depth changed during the "
                                        "stream; vif scores one size per run";
        g_free(name);
        if (!error.empty()) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("%s", error.c_str()), (nullptr));
            gst_event_unref(event);
            return FALSE;
        }
        // The reference's caps are the src pad's: have the aggregator renegotiate.
        if (pad->index == 0) gst_pad_mark_reconfigure(GST_AGGREGATOR_SRC_PAD(agg));
    } else if (GST_EVENT_TYPE(event) == GST_EVENT_SEGMENT && pad->index == 0) {
        const GstSegment *segment = nullptr;
        gst_event_parse_segment(event, &segment);
        gst_aggregator_update_segment(agg, segment);
    }
    return GST_AGGREGATOR_CLASS(gst_vif_parent_class)->sink_event(agg, apad, event);
}

static gboolean gst_vif_sink_query(GstAggregator *agg, GstAggregatorPad *apad, GstQuery *query) {
    GstVif *self = GST_VIF(agg);
    GstVifPad *pad = GST_VIF_PAD(apad);
    switch (GST_QUERY_TYPE(query)) {
    case GST_QUERY_CAPS: {
        GstCaps *filter = nullptr;
        gst_query_parse_caps(query, &filter);
        GstCaps *templ = gst_pad_get_pad_template_caps(GST_PAD(pad));
        GstCaps *result = templ;
        // The reference leaves on the src pad: it can only take what downstream takes.
        if (pad->index == 0) {
            result = gst_pad_peer_query_caps(GST_AGGREGATOR_SRC_PAD(agg), templ);
            gst_caps_unref(templ);
        }
        if (filter) {
            GstCaps *f = gst_caps_intersect_full(filter, result, GST_CAPS_INTERSECT_FIRST);
            gst_caps_unref(result);
            result = f;
        }
        gst_query_set_caps_result(query, result);
        gst_caps_unref(result);
        return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS: {
        GstCaps *caps = nullptr;
        gst_query_parse_accept_caps(query, &caps);
        GstCaps *templ = gst_pad_get_pad_template_caps(GST_PAD(pad));
        gst_query_set_accept_caps_result(query, gst_caps_is_subset(caps, templ));
        gst_caps_unref(templ);
        return TRUE;
    }
    case GST_QUERY_ALLOCATION:
        // Any stride or plane offset is fine (frames are mapped through GstVideoMeta).
        gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
        return TRUE;
    case GST_QUERY_CONTEXT: {
        GST_OBJECT_LOCK(self);
        const int device = self->state->props.device;
        const bool cpu = self->state->props.backend == VIF_BACKEND_CPU;
        GST_OBJECT_UNLOCK(self);
        const gchar *type = nullptr;
        gst_query_parse_context_type(query, &type);
        // Upstream CUDA elements (nvh264dec, cudaupload) then allocate in the CUDA runtime's
        // primary context, the one libvif computes in.
        if (!cpu && type && strcmp(type, "gst.cuda.context") == 0 &&
            self->state->cuda_share.ensure(GST_ELEMENT(self), device) &&
            self->state->cuda_share.handle_query(GST_ELEMENT(self), query))
            return TRUE;
        break;
    }
    default:
        break;
    }
    return GST_AGGREGATOR_CLASS(gst_vif_parent_class)->sink_query(agg, apad, query);
}

static GstFlowReturn gst_vif_update_src_caps(GstAggregator *agg, GstCaps *downstream,
                                             GstCaps **ret) {
    GstPad *ref = gst_element_get_static_pad(GST_ELEMENT(agg), "sink_0");
    if (!ref) return GST_AGGREGATOR_FLOW_NEED_DATA;
    GstCaps *caps = gst_pad_get_current_caps(ref);
    gst_object_unref(ref);
    if (!caps) return GST_AGGREGATOR_FLOW_NEED_DATA;
    *ret = gst_caps_intersect(caps, downstream);
    gst_caps_unref(caps);
    if (gst_caps_is_empty(*ret)) {
        GST_ELEMENT_ERROR(agg, CORE, NEGOTIATION,
                          ("downstream of vif does not accept the reference's caps"), (nullptr));
        gst_caps_unref(*ret);
        *ret = nullptr;
        return GST_FLOW_NOT_NEGOTIATED;
    }
    return GST_FLOW_OK;
}

// ---- Scoring --------------------------------------------------------------------------------

static GstClockTime running_time(GstAggregatorPad *pad, GstBuffer *buf) {
    GstClockTime ts = GST_BUFFER_PTS_IS_VALID(buf) ? GST_BUFFER_PTS(buf) : GST_BUFFER_DTS(buf);
    if (!GST_CLOCK_TIME_IS_VALID(ts)) return GST_CLOCK_TIME_NONE;
    GST_OBJECT_LOCK(pad);
    const GstClockTime rt = gst_segment_to_running_time(&pad->segment, GST_FORMAT_TIME, ts);
    GST_OBJECT_UNLOCK(pad);
    return rt;
}

static void post_error(GstVif *self, const std::string &text) {
    GST_ELEMENT_ERROR(self, STREAM, FAILED, ("%s", text.c_str()), (nullptr));
}

// The sink of every score: a per-frame message and the pad's pool.
static gstvif::Scorer::Sink score_sink(GstVif *self) {
    return [self](gstvif::FrameResult &r) {
        ElementState &st = *self->state;
        auto it = st.streams.find(r.tag.pad);
        if (it == st.streams.end()) return;
        it->second.pool.add(r, st.scorer.variants());
        GST_OBJECT_LOCK(self);
        const bool post = st.props.frame_message;
        GST_OBJECT_UNLOCK(self);
        if (post)
            gst_element_post_message(
                GST_ELEMENT(self),
                gst_message_new_element(
                    GST_OBJECT(self),
                    gstvif::frame_structure(st.names, r, it->second.name.c_str())));
    };
}

// Creates the contexts (and result files) at the first frame, from the pads' caps.
static bool open_scoring(GstVif *self, const std::vector<GstVifPad *> &pads) {
    ElementState &st = *self->state;
    GstVifPad *ref = pads[0];
    if (!ref->has_info) {
        post_error(self, "sink_0 (the reference) has no caps");
        return false;
    }
    st.width = GST_VIDEO_INFO_WIDTH(&ref->info);
    st.height = GST_VIDEO_INFO_HEIGHT(&ref->info);
    st.bitdepth = ref->layout.bitdepth;
    st.cuda = ref->cuda_memory;
    GST_OBJECT_LOCK(self);
    gstvif::Properties props = st.props;
    GST_OBJECT_UNLOCK(self);
    gstvif::ScoringSettings s;
    s.variant = props.variant;
    s.backend = props.backend;
    if (st.cuda && s.backend == VIF_BACKEND_AUTO) s.backend = VIF_BACKEND_CUDA;
    s.device = props.device;
    s.threads = props.threads;
    s.enhn_gain_limit = props.enhn_gain_limit;
    s.kernelscale = props.kernelscale;
    size_t rungs = pads.size() - 1;
    if (!st.scorer.open(s, st.width, st.height, st.bitdepth, rungs)) {
        post_error(self, st.scorer.error());
        return false;
    }
    st.names.build(st.scorer);
    for (size_t i = 1; i < pads.size(); ++i) {
        gchar *name = gst_pad_get_name(GST_PAD(pads[i]));
        st.streams[pads[i]->index].name = name;
        g_free(name);
    }
    if (!props.result_file.empty()) {
        const bool pattern = props.result_file.find("%u") != std::string::npos;
        if (rungs > 1 && !pattern) {
            post_error(self, "result-file \"" + props.result_file +
                                 "\": several distorted pads need a name with %u (replaced "
                                 "by each pad's number), one file per pad");
            return false;
        }
        for (auto &kv : st.streams) {
            std::string path = props.result_file;
            if (pattern) {
                gchar *p = g_strdup_printf(props.result_file.c_str(), kv.first);
                path = p;
                g_free(p);
            }
            kv.second.file.reset(new gstvif::ResultFile);
            std::string error;
            if (!kv.second.file->open(path, props.result_format, st.scorer, st.width, st.height,
                                      st.bitdepth, "sink_0", kv.second.name, &error)) {
                post_error(self, "result-file: " + error);
                return false;
            }
        }
    }
    GST_INFO_OBJECT(self, "scoring %ux%u %u-bit on %s, %zu distorted pad(s)", st.width, st.height,
                    st.bitdepth, st.scorer.backend_name(), rungs);
    st.started = std::chrono::steady_clock::now();
    st.opened = true;
    return true;
}

struct Matched {
    GstVifPad *pad;
    GstBuffer *buf; // peeked (owned)
};

// Scores one reference buffer against the matched distorted buffers.
static bool score_frame(GstVif *self, GstVifPad *ref, GstBuffer *refbuf, GstClockTime rt,
                        const std::vector<Matched> &matched) {
    ElementState &st = *self->state;
    std::vector<gstvif::FrameTag> tags;
    GstClockTime pts = GST_BUFFER_PTS(refbuf);
    GST_OBJECT_LOCK(ref);
    const GstClockTime stream_time =
        gst_segment_to_stream_time(&GST_AGGREGATOR_PAD(ref)->segment, GST_FORMAT_TIME, pts);
    GST_OBJECT_UNLOCK(ref);
    for (const auto &m : matched) {
        gstvif::FrameTag t;
        t.pad = m.pad->index;
        t.frame = m.pad->scored++;
        t.pts = pts;
        t.stream_time = stream_time;
        t.running_time = rt;
        t.duration = GST_BUFFER_DURATION(refbuf);
        tags.push_back(std::move(t));
    }
    const auto sink = score_sink(self);
    if (st.cuda) {
        gstvif::DeviceLuma r;
        const char *why = nullptr;
        if (!gstvif::cuda_map_luma(refbuf, ref->info, &r, &why)) {
            post_error(self, std::string("sink_0: ") + why);
            return false;
        }
        const uint32_t flags = ref->layout.msb_aligned ? VIF_PICTURE_MSB_ALIGNED : 0;
        bool ok = true;
        std::vector<gstvif::DeviceLuma> ds(matched.size());
        size_t mapped = 0;
        for (; mapped < matched.size(); ++mapped) {
            const std::string &name = st.streams[matched[mapped].pad->index].name;
            if (!gstvif::cuda_map_luma(matched[mapped].buf, matched[mapped].pad->info, &ds[mapped],
                                       &why)) {
                post_error(self, name + ": " + why);
                ok = false;
                break;
            }
            const uint32_t dflags =
                matched[mapped].pad->layout.msb_aligned ? VIF_PICTURE_MSB_ALIGNED : 0;
            if (dflags != flags) {
                post_error(self, "the reference and " + name +
                                     " store their samples differently (MSB-aligned or not); "
                                     "on CUDA memory both pads need the same layout");
                ++mapped; // unmapped below with the others
                ok = false;
                break;
            }
        }
        if (ok) {
            // libvif reads the planes on the device after this returns: the buffers stay
            // referenced until the scores are back, so their memory cannot be reused earlier.
            for (size_t k = 0; k < matched.size(); ++k) {
                GstBuffer *hold_ref = gst_buffer_ref(refbuf),
                          *hold_dist = gst_buffer_ref(matched[k].buf);
                tags[k].release = [hold_ref, hold_dist]() {
                    gst_buffer_unref(hold_ref);
                    gst_buffer_unref(hold_dist);
                };
            }
            // A pair, or a whole ladder in one call (the reference's work done once).
            ok = st.scorer.submit_each(
                [&](VifContext *c) {
                    return gstvif::cuda_submit(c, r, ds, st.width, st.height, st.bitdepth, flags);
                },
                std::move(tags), sink);
            if (!ok) post_error(self, st.scorer.error());
        }
        for (size_t k = 0; k < mapped; ++k) gstvif::cuda_unmap_luma(&ds[k]);
        gstvif::cuda_unmap_luma(&r);
        return ok;
    }

    // System memory: libvif copies the planes during the submit, so they are unmapped at once.
    GstVideoFrame rf;
    if (!gst_video_frame_map(&rf, &ref->info, refbuf, GST_MAP_READ)) {
        post_error(self, "sink_0: the buffer could not be mapped for reading");
        return false;
    }
    auto picture = [](const GstVideoFrame &f, const GstVifPad *pad) {
        VifPicture p;
        p.data = GST_VIDEO_FRAME_PLANE_DATA(&f, 0);
        p.stride = GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
        p.width = GST_VIDEO_FRAME_WIDTH(&f);
        p.height = GST_VIDEO_FRAME_HEIGHT(&f);
        p.bitdepth = pad->layout.bitdepth;
        p.flags = pad->layout.msb_aligned ? VIF_PICTURE_MSB_ALIGNED : 0;
        return p;
    };
    const VifPicture refpic = picture(rf, ref);
    std::vector<GstVideoFrame> frames(matched.size());
    std::vector<VifPicture> pics(matched.size());
    std::vector<const VifPicture *> dists;
    bool ok = true;
    size_t mapped = 0;
    for (; mapped < matched.size(); ++mapped) {
        if (!gst_video_frame_map(&frames[mapped], &matched[mapped].pad->info, matched[mapped].buf,
                                 GST_MAP_READ)) {
            post_error(self, st.streams[matched[mapped].pad->index].name +
                                 ": the buffer could not be mapped for reading");
            ok = false;
            break;
        }
        pics[mapped] = picture(frames[mapped], matched[mapped].pad);
        dists.push_back(&pics[mapped]);
    }
    if (ok) {
        ok = st.scorer.submit_host(refpic, dists, std::move(tags), sink);
        if (!ok) post_error(self, st.scorer.error());
    }
    for (size_t k = 0; k < mapped; ++k) gst_video_frame_unmap(&frames[k]);
    gst_video_frame_unmap(&rf);
    return ok;
}

// End of the reference: every score, the summaries, the result files.
static bool finish_scoring(GstVif *self) {
    ElementState &st = *self->state;
    if (st.finished) return true;
    st.finished = true;
    if (!st.opened) return true;
    bool ok = st.scorer.drain(true, score_sink(self));
    if (!ok) post_error(self, st.scorer.error());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count();
    for (auto &kv : st.streams) {
        GstStructure *s = kv.second.pool.summary(st.names, kv.second.name.c_str());
        if (s)
            gst_element_post_message(GST_ELEMENT(self),
                                     gst_message_new_element(GST_OBJECT(self), s));
        if (!kv.second.file || !ok) continue;
        if (kv.second.pool.frames() == 0) {
            kv.second.file->abandon();
            GST_ELEMENT_WARNING(
                self, STREAM, FAILED,
                ("%s: no frame was scored, so no result file is written", kv.second.name.c_str()),
                (nullptr));
            continue;
        }
        std::vector<const std::vector<VifScores> *> scores;
        for (size_t v = 0; v < st.scorer.variants(); ++v)
            scores.push_back(&kv.second.pool.scores(v));
        std::string error;
        const double fps = seconds > 0 ? kv.second.pool.frames() / seconds : 0.0;
        if (!kv.second.file->finish(scores, fps, &error)) {
            post_error(self, "result-file: " + error);
            ok = false;
        }
    }
    st.scorer.close();
    return ok;
}

static GstFlowReturn gst_vif_aggregate(GstAggregator *agg, gboolean timeout) {
    GstVif *self = GST_VIF(agg);
    ElementState &st = *self->state;
    auto pads = sorted_pads(self);
    if (pads.empty() || pads[0]->index != 0) {
        // sink_0 not requested yet (a sometimes-pad links it late): wait for it, unless every
        // distorted stream has already ended.
        bool all_eos = true;
        for (auto *p : pads)
            all_eos = all_eos && gst_aggregator_pad_is_eos(GST_AGGREGATOR_PAD(p)) &&
                      !gst_aggregator_pad_has_buffer(GST_AGGREGATOR_PAD(p));
        unref_pads(pads);
        if (all_eos) {
            GST_ELEMENT_ERROR(self, CORE, PAD, ("vif has no sink_0 (the reference pad)"),
                              (nullptr));
            return GST_FLOW_ERROR;
        }
        g_usleep(2000);
        return GST_FLOW_OK;
    }
    GstVifPad *ref = pads[0];
    GstAggregatorPad *aref = GST_AGGREGATOR_PAD(ref);
    GstBuffer *refbuf = gst_aggregator_pad_peek_buffer(aref);
    if (!refbuf) {
        GstFlowReturn ret = GST_FLOW_OK;
        if (gst_aggregator_pad_is_eos(aref)) {
            if (pads.size() == 1 && !st.opened)
                GST_ELEMENT_WARNING(self, STREAM, FAILED,
                                    ("vif had no distorted pad (sink_1, ...): nothing was scored"),
                                    (nullptr));
            for (size_t i = 1; i < pads.size(); ++i)
                if (!st.scoring_ended &&
                    gst_aggregator_pad_has_buffer(GST_AGGREGATOR_PAD(pads[i]))) {
                    gchar *n = gst_pad_get_name(GST_PAD(pads[i]));
                    GST_ELEMENT_WARNING(self, STREAM, FAILED,
                                        ("the reference ended before %s: its remaining frames "
                                         "are not scored",
                                         n),
                                        (nullptr));
                    g_free(n);
                }
            ret = finish_scoring(self) ? GST_FLOW_EOS : GST_FLOW_ERROR;
        }
        unref_pads(pads);
        return ret;
    }

    // No distorted pad yet (decodebin and other sometimes-pads link theirs late): the first
    // frames wait for it instead of passing unscored. Polled, since no data arrives to wake
    // the aggregator; a live pipeline's timeout lets the reference through.
    if (pads.size() == 1 && !timeout && !st.opened) {
        gst_buffer_unref(refbuf);
        unref_pads(pads);
        g_usleep(2000);
        return GST_FLOW_OK;
    }

    const GstClockTime rt = running_time(aref, refbuf);
    // Half a frame either way counts as the same instant.
    GstClockTime tol = 0;
    if (GST_BUFFER_DURATION_IS_VALID(refbuf))
        tol = GST_BUFFER_DURATION(refbuf) / 2;
    else if (ref->has_info && GST_VIDEO_INFO_FPS_N(&ref->info) > 0)
        tol = gst_util_uint64_scale(GST_SECOND / 2, GST_VIDEO_INFO_FPS_D(&ref->info),
                                    GST_VIDEO_INFO_FPS_N(&ref->info));

    std::vector<Matched> matched;
    GstFlowReturn ret = GST_FLOW_OK;
    bool wait = false;
    if (!st.scoring_ended && pads.size() > 1) {
        for (size_t i = 1; i < pads.size() && !st.scoring_ended; ++i) {
            GstAggregatorPad *ap = GST_AGGREGATOR_PAD(pads[i]);
            GstBuffer *b = nullptr;
            GstClockTime drt = GST_CLOCK_TIME_NONE;
            // Distorted frames from before this reference frame have no partner: drop them.
            while ((b = gst_aggregator_pad_peek_buffer(ap)) != nullptr) {
                drt = running_time(ap, b);
                if (GST_CLOCK_TIME_IS_VALID(rt) && GST_CLOCK_TIME_IS_VALID(drt) && drt + tol < rt) {
                    GST_DEBUG_OBJECT(pads[i],
                                     "dropping a frame at %" GST_TIME_FORMAT
                                     " (reference at %" GST_TIME_FORMAT ")",
                                     GST_TIME_ARGS(drt), GST_TIME_ARGS(rt));
                    gst_buffer_unref(b);
                    gst_aggregator_pad_drop_buffer(ap);
                    continue;
                }
                break;
            }
            if (!b) {
                if (gst_aggregator_pad_is_eos(ap)) {
                    gchar *n = gst_pad_get_name(GST_PAD(pads[i]));
                    GST_ELEMENT_WARNING(self, STREAM, FAILED,
                                        ("%s ended before the reference: scoring stops here "
                                         "(the reference passes through unscored)",
                                         n),
                                        (nullptr));
                    g_free(n);
                    st.scoring_ended = true;
                } else if (!timeout) {
                    wait = true; // its next frame has not arrived yet
                }
                continue;
            }
            if (GST_CLOCK_TIME_IS_VALID(rt) && GST_CLOCK_TIME_IS_VALID(drt) && drt > rt + tol) {
                gst_buffer_unref(b); // a later frame: this reference frame has none on this pad
                continue;
            }
            matched.push_back({pads[i], b});
        }
    }
    if (wait && !st.scoring_ended) {
        for (auto &m : matched) gst_buffer_unref(m.buf);
        gst_buffer_unref(refbuf);
        unref_pads(pads);
        return GST_FLOW_OK;
    }
    if (st.scoring_ended) {
        for (auto &m : matched) gst_buffer_unref(m.buf);
        matched.clear();
    }
    if (!matched.empty()) {
        bool ok = st.opened || open_scoring(self, pads);
        if (ok) ok = score_frame(self, ref, refbuf, rt, matched);
        for (auto &m : matched) {
            gst_aggregator_pad_drop_buffer(GST_AGGREGATOR_PAD(m.pad));
            gst_buffer_unref(m.buf);
        }
        if (!ok) ret = GST_FLOW_ERROR;
    }
    gst_aggregator_pad_drop_buffer(aref);
    unref_pads(pads);
    if (ret != GST_FLOW_OK) {
        gst_buffer_unref(refbuf);
        return ret;
    }
    // The reference leaves unchanged.
    return gst_aggregator_finish_buffer(agg, refbuf);
}

static void reset_state(GstVif *self) {
    ElementState &st = *self->state;
    for (auto &kv : st.streams)
        if (kv.second.file) kv.second.file->abandon();
    st.scorer.close();
    st.streams.clear();
    st.opened = st.scoring_ended = st.finished = false;
    st.cuda = false;
    auto pads = sorted_pads(self);
    for (auto *p : pads) p->scored = 0;
    unref_pads(pads);
}

static gboolean gst_vif_start(GstAggregator *agg) {
    reset_state(GST_VIF(agg));
    return TRUE;
}

static gboolean gst_vif_stop(GstAggregator *agg) {
    reset_state(GST_VIF(agg)); // an unfinished result file never appears
    return TRUE;
}

static GstFlowReturn gst_vif_flush(GstAggregator *agg) {
    GstVif *self = GST_VIF(agg);
    ElementState &st = *self->state;
    // Scores of frames before a flushing seek are still delivered; the run goes on.
    if (st.opened && !st.scorer.drain(true, score_sink(self))) {
        post_error(self, st.scorer.error());
        return GST_FLOW_ERROR;
    }
    return GST_FLOW_OK;
}

// ---- Properties and class -------------------------------------------------------------------

static void gst_vif_set_property(GObject *object, guint id, const GValue *value, GParamSpec *ps) {
    GstVif *self = GST_VIF(object);
    gstvif::Properties &p = self->state->props;
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_VARIANT:
        p.variant = static_cast<gstvif::Variant>(g_value_get_enum(value));
        break;
    case PROP_BACKEND:
        p.backend = static_cast<VifBackend>(g_value_get_enum(value));
        break;
    case PROP_DEVICE_ID:
        p.device = g_value_get_int(value);
        break;
    case PROP_THREADS:
        p.threads = g_value_get_uint(value);
        break;
    case PROP_FRAME_MESSAGE:
        p.frame_message = g_value_get_boolean(value);
        break;
    case PROP_RESULT_FILE: {
        const gchar *s = g_value_get_string(value);
        p.result_file = s ? s : "";
        break;
    }
    case PROP_RESULT_FORMAT:
        p.result_format = static_cast<gstvif::ResultFormat>(g_value_get_enum(value));
        break;
    case PROP_ENHN_GAIN_LIMIT:
        p.enhn_gain_limit = g_value_get_double(value);
        break;
    case PROP_KERNELSCALE:
        p.kernelscale = g_value_get_double(value);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void gst_vif_get_property(GObject *object, guint id, GValue *value, GParamSpec *ps) {
    GstVif *self = GST_VIF(object);
    const gstvif::Properties &p = self->state->props;
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_VARIANT:
        g_value_set_enum(value, static_cast<gint>(p.variant));
        break;
    case PROP_BACKEND:
        g_value_set_enum(value, p.backend);
        break;
    case PROP_DEVICE_ID:
        g_value_set_int(value, p.device);
        break;
    case PROP_THREADS:
        g_value_set_uint(value, p.threads);
        break;
    case PROP_FRAME_MESSAGE:
        g_value_set_boolean(value, p.frame_message);
        break;
    case PROP_RESULT_FILE:
        g_value_set_string(value, p.result_file.empty() ? nullptr : p.result_file.c_str());
        break;
    case PROP_RESULT_FORMAT:
        g_value_set_enum(value, static_cast<gint>(p.result_format));
        break;
    case PROP_ENHN_GAIN_LIMIT:
        g_value_set_double(value, p.enhn_gain_limit);
        break;
    case PROP_KERNELSCALE:
        g_value_set_double(value, p.kernelscale);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, ps);
        break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void gst_vif_finalize(GObject *object) {
    GstVif *self = GST_VIF(object);
    delete self->state;
    self->state = nullptr;
    G_OBJECT_CLASS(gst_vif_parent_class)->finalize(object);
}

static void gst_vif_class_init(GstVifClass *klass) {
    GObjectClass *gobject = G_OBJECT_CLASS(klass);
    GstElementClass *element = GST_ELEMENT_CLASS(klass);
    GstAggregatorClass *agg = GST_AGGREGATOR_CLASS(klass);
    GST_DEBUG_CATEGORY_INIT(gst_vif_debug, "vif", 0, "libvif VIF element");

    gobject->set_property = gst_vif_set_property;
    gobject->get_property = gst_vif_get_property;
    gobject->finalize = gst_vif_finalize;
    const GParamFlags rw = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                    GST_PARAM_MUTABLE_READY);
    g_object_class_install_property(
        gobject, PROP_VARIANT,
        g_param_spec_enum("variant", "Variant",
                          "Which VIF: integer (libvmaf's vif, VMAF's default), float "
                          "(float_vif) or both (two sets of keys per message)",
                          GST_TYPE_VIF_VARIANT, static_cast<gint>(gstvif::Variant::kInteger), rw));
    g_object_class_install_property(
        gobject, PROP_BACKEND,
        g_param_spec_enum("backend", "Backend",
                          "Where to compute: auto (CUDA for CUDA memory or when a GPU is "
                          "present, else CPU), cpu, cuda",
                          GST_TYPE_VIF_BACKEND, VIF_BACKEND_AUTO, rw));
    g_object_class_install_property(gobject, PROP_DEVICE_ID,
                                    g_param_spec_int("device-id", "CUDA device",
                                                     "CUDA device ordinal for the cuda backend", 0,
                                                     G_MAXINT, 0, rw));
    g_object_class_install_property(
        gobject, PROP_THREADS,
        g_param_spec_uint("threads", "Threads",
                          "CPU backend: worker threads (0: one per hardware thread)", 0, 256, 0,
                          rw));
    g_object_class_install_property(
        gobject, PROP_FRAME_MESSAGE,
        g_param_spec_boolean("frame-message", "Frame messages",
                             "Post a \"vif\" element message for every scored frame and pad", TRUE,
                             static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
                                                      GST_PARAM_MUTABLE_PLAYING)));
    g_object_class_install_property(
        gobject, PROP_RESULT_FILE,
        g_param_spec_string("result-file", "Result file",
                            "Write libvmaf's JSON/XML/CSV file here at the end of the stream "
                            "(the vif CLI's bytes); with several distorted pads the name needs "
                            "%u (the pad's number)",
                            nullptr, rw));
    g_object_class_install_property(
        gobject, PROP_RESULT_FORMAT,
        g_param_spec_enum("result-format", "Result format", "Format of result-file",
                          GST_TYPE_VIF_RESULT_FORMAT,
                          static_cast<gint>(gstvif::ResultFormat::kJson), rw));
    g_object_class_install_property(
        gobject, PROP_ENHN_GAIN_LIMIT,
        g_param_spec_double("enhn-gain-limit", "Enhancement gain limit",
                            "libvmaf's vif_enhn_gain_limit (1 to 100; keys get _egl_N below "
                            "100)",
                            1.0, 100.0, 100.0, rw));
    g_object_class_install_property(
        gobject, PROP_KERNELSCALE,
        g_param_spec_double("kernelscale", "Kernel scale",
                            "libvmaf's vif_kernelscale, float variant only (1.0, 0.5, 1.5, 2.0, "
                            "... as libvmaf accepts)",
                            0.1, 4.0, 1.0, rw));

    GstCaps *caps = gstvif::sink_template_caps();
    gst_element_class_add_pad_template(
        element, gst_pad_template_new_with_gtype("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST, caps,
                                                 GST_TYPE_VIF_PAD));
    gst_element_class_add_pad_template(
        element, gst_pad_template_new_with_gtype("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps,
                                                 GST_TYPE_AGGREGATOR_PAD));
    gst_caps_unref(caps);
    gst_element_class_set_static_metadata(
        element, "VIF video quality", "Filter/Analyzer/Video",
        "Visual Information Fidelity (libvmaf's integer and float VIF, bit-exact) of distorted "
        "streams (sink_1, sink_2, ...) against a reference (sink_0), posted per frame as \"vif\" "
        "element messages and pooled per pad as \"vif-summary\"; the reference passes through "
        "to src",
        "libvif");

    agg->create_new_pad = gst_vif_create_new_pad;
    agg->sink_event = gst_vif_sink_event;
    agg->sink_query = gst_vif_sink_query;
    agg->update_src_caps = gst_vif_update_src_caps;
    agg->aggregate = gst_vif_aggregate;
    agg->start = gst_vif_start;
    agg->stop = gst_vif_stop;
    agg->flush = gst_vif_flush;
    agg->get_next_time = gst_aggregator_simple_get_next_time;
    gst_type_mark_as_plugin_api(GST_TYPE_VIF_PAD, static_cast<GstPluginAPIFlags>(0));
}

static void gst_vif_init(GstVif *self) {
    self->state = new ElementState;
}
