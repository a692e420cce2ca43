// Whether a worker takes its next part from the queue before it needs it (to open that part's
// inputs while its part decodes). Taken early, a part is that worker's: near the end of the
// queue, another worker that finishes sooner would find nothing left and wait for the end while
// this one still has two parts to go (4x H200, 2026-11-27: 16 host-decoded ladder groups of
// 1080p on 8 workers, parts scored 2 2 3 2 1 2 1 3, the last ones ending from 9.4 to 23.7 s,
// against 19.0 s on one GPU's 8 workers that took 2 each). So a part is taken early only while
// the queue still holds one for every other worker scoring without a next part of its own:
// those take theirs from the queue when they finish, whoever finishes first.
#ifndef VIF_TOOLS_BATCH_OPEN_AHEAD_HPP
#define VIF_TOOLS_BATCH_OPEN_AHEAD_HPP

#include <cstddef>

namespace vif::batch {

/** `queued`: parts in the queue; `scoring_without_next`: workers scoring a part with no next
 *  part taken, the asking worker included. */
inline bool may_take_ahead(size_t queued, size_t scoring_without_next) {
    const size_t others = scoring_without_next > 0 ? scoring_without_next - 1 : 0;
    return queued > others;
}

} // namespace vif::batch

#endif
