// Parts that would go to NVDEC decoded on the host instead, while the host has a place for them.
// A GPU's NVDEC engines bind a catalogue of encoded rows long before its cores do (2x H200,
// 32 cores: 16 ladders of 1080p H.264 took 22.1 s on one GPU's NVDEC, using 3 of the cores, and
// 21.5 s decoded on the cores alone), so the cores decode a share of the parts beside NVDEC: a
// part decides when it is opened, takes a place if one is free, and keeps it until it has been
// scored. The places are how many parts the cores keep decoding at once.
#ifndef VIF_TOOLS_BATCH_HOST_SHARE_HPP
#define VIF_TOOLS_BATCH_HOST_SHARE_HPP

#include <cstddef>
#include <memory>
#include <mutex>

namespace vif::batch {

class HostShare {
public:
    explicit HostShare(size_t places) : state_(std::make_shared<State>()) {
        state_->free = places;
    }
    size_t places_taken() const {
        std::lock_guard<std::mutex> lock(state_->mu);
        return state_->taken;
    }
    /** A place, held until the token is dropped; null when every place is taken. */
    std::shared_ptr<void> try_take() {
        {
            std::lock_guard<std::mutex> lock(state_->mu);
            if (state_->free == 0) return nullptr;
            --state_->free;
            ++state_->taken;
        }
        std::shared_ptr<State> st = state_;
        return std::shared_ptr<void>(static_cast<void *>(st.get()), [st](void *) {
            std::lock_guard<std::mutex> lock(st->mu);
            ++st->free;
        });
    }

private:
    struct State {
        mutable std::mutex mu;
        size_t free = 0;
        size_t taken = 0; ///< places given out in all (for --timings)
    };
    std::shared_ptr<State> state_;
};

} // namespace vif::batch

#endif
