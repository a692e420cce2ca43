// See random_access.hpp. The NAL unit types are read from the packet itself (length-prefixed
// as in MP4/Matroska, or Annex-B start codes as in raw streams).
#include "random_access.hpp"

#include <cstddef>
#include <cstdint>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace vif::media {

namespace {

// Reads one NAL unit length prefix or finds the next Annex-B start code; calls f(nal_header_ptr,
// size) for each NAL unit of the packet.
template <typename F>
void for_each_nal(const uint8_t *p, size_t n, int length_size, F f) {
    const bool annexb =
        n >= 3 && p[0] == 0 && p[1] == 0 && (p[2] == 1 || (p[2] == 0 && n >= 4 && p[3] == 1));
    if (!annexb) {
        size_t i = 0;
        while (i + size_t(length_size) <= n) {
            size_t len = 0;
            for (int k = 0; k < length_size; ++k) len = (len << 8) | p[i + size_t(k)];
            i += size_t(length_size);
            if (len == 0 || len > n - i) return;
            f(p + i, len);
            i += len;
        }
        return;
    }
    size_t i = 0;
    while (i + 3 <= n) {
        if (p[i] == 0 && p[i + 1] == 0 && p[i + 2] == 1) {
            i += 3;
            size_t j = i;
            while (j + 3 <= n && !(p[j] == 0 && p[j + 1] == 0 && (p[j + 2] == 1 || p[j + 2] == 0)))
                ++j;
            if (j + 3 > n) j = n;
            if (j > i) f(p + i, j - i);
            i = j;
        } else {
            ++i;
        }
    }
}

} // namespace

bool clean_random_access(const AVCodecParameters *par, const AVPacket *pkt) {
    if (!(pkt->flags & AV_PKT_FLAG_KEY) || !pkt->data) return false;
    if (par->codec_id == AV_CODEC_ID_AV1) return true;
    int length_size = 4;
    const uint8_t *x = par->extradata;
    if (par->codec_id == AV_CODEC_ID_H264) {
        if (x && par->extradata_size >= 7 && x[0] == 1) length_size = (x[4] & 3) + 1;
        bool idr = false, other_slice = false;
        for_each_nal(pkt->data, size_t(pkt->size), length_size, [&](const uint8_t *nal, size_t) {
            const int type = nal[0] & 0x1f;
            if (type == 5) idr = true;
            if (type >= 1 && type <= 4) other_slice = true;
        });
        return idr && !other_slice;
    }
    if (par->codec_id == AV_CODEC_ID_HEVC) {
        if (x && par->extradata_size >= 23 && x[0] == 1) length_size = (x[21] & 3) + 1;
        bool idr = false, other_slice = false;
        for_each_nal(pkt->data, size_t(pkt->size), length_size, [&](const uint8_t *nal, size_t) {
            const int type = (nal[0] >> 1) & 0x3f;
            if (type == 19 || type == 20)
                idr = true; // IDR_W_RADL, IDR_N_LP
            else if (type < 32)
                other_slice = true; // any other VCL unit
        });
        return idr && !other_slice;
    }
    return false;
}

} // namespace vif::media
