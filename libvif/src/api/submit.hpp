// The one way pictures reach a backend, shared by vif_submit, vif_submit_multi and
// vif_cuda_submit: the context checked first, a frame index assigned only once the backend took
// the frames, a full queue (VIF_AGAIN) reported with nothing queued, a device error marking the
// context failed, and no exception crossing the C boundary.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include "api/context.hpp"
#include "api/last_error.hpp"

namespace vif {

// The context is usable: not NULL, not failed earlier. `entry` names the calling function.
inline VifStatus check_usable(const VifContext* ctx, const char* entry) {
    if (!ctx) return fail(VIF_ERROR_INVALID_ARGUMENT, std::string(entry) + ": ctx is NULL");
    if (ctx->failed) return fail(VIF_ERROR_INVALID_STATE, "context failed earlier; destroy it");
    return VIF_OK;
}

// Both pictures of a pair (or the reference and rung `which`) have the same size.
inline VifStatus check_same_size(uint32_t rw, uint32_t rh, uint32_t dw, uint32_t dh,
                                 const std::string& which) {
    if (rw == dw && rh == dh) return VIF_OK;
    return fail(VIF_ERROR_INVALID_ARGUMENT, "reference is " + std::to_string(rw) + "x" +
                                                std::to_string(rh) + " but " + which + " is " +
                                                std::to_string(dw) + "x" + std::to_string(dh));
}

// Hands `count` frames to the backend through `enqueue(first_index)` (returns a Status) and
// numbers them. `invalid_state_fails`: a VIF_ERROR_INVALID_STATE from the backend also marks
// the context failed (a ladder left half-queued).
template <class Enqueue>
VifStatus submit_frames(VifContext* ctx, const char* entry, size_t count, bool invalid_state_fails,
                        uint64_t* first_index, Enqueue&& enqueue) {
    try {
        const uint64_t index = ctx->next_index;
        const Status err = enqueue(index);
        if (err.status == VIF_AGAIN) return fail(err); // queue full: nothing queued
        if (err) {
            if (err.status == VIF_ERROR_DEVICE ||
                (invalid_state_fails && err.status == VIF_ERROR_INVALID_STATE))
                ctx->failed = true;
            return fail(err);
        }
        ctx->next_index += count;
        if (first_index) *first_index = index;
        return VIF_OK;
    } catch (const std::exception& e) {
        return fail(VIF_ERROR_INTERNAL, std::string(entry) + ": " + e.what());
    }
}

} // namespace vif
