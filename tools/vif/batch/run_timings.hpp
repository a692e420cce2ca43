// Where a batch's time went, per device (`vif batch --timings`): what bounds a run on one or
// several GPUs -- the devices' start-up, making scoring contexts, decoding, scoring -- read
// from one run's stderr. Collects and formats; measures nothing itself.
#ifndef VIF_TOOLS_BATCH_RUN_TIMINGS_HPP
#define VIF_TOOLS_BATCH_RUN_TIMINGS_HPP

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace vif::batch {

/** One group (a part of a reference group) scored by one worker. Times in seconds; begin and
 *  end from the run's start. */
struct GroupTiming {
    size_t slot = 0;   ///< the device's place in --devices
    size_t worker = 0; ///< the worker that scored it
    size_t rows = 0;
    double begin = 0, end = 0;
    double open = 0, context = 0, decode_wait = 0, score_wait = 0;
    double record = 0;         ///< recording its finished rows (output identity, progress log)
    uint64_t frames = 0;       ///< reference frames scored
    bool device_path = false;  ///< decoded by NVDEC on its GPU
    bool opened_ahead = false; ///< its inputs opened while the worker's part before was scored
};

/** A device's start-up (vif_cuda_prepare), when there was one. */
struct StartupTiming {
    std::string device; ///< "CUDA device 1"
    double seconds = 0, ready_at = 0;
    std::string error;
    bool not_started = false; ///< the run did not pay for its start-up
    bool starting = false;    ///< started, not ready when the rows were done
};

class RunTimings {
public:
    void add(const GroupTiming &g); ///< thread-safe
    /** The lines to print: one for the run (wall time, start-ups) and one per slot that has a
     *  name in `slots` ("CUDA device 0: 50 rows in 10 groups, busy 1.20 s from 0.31 s to
     *  1.55 s; open 0.10 s, contexts 4 made (0.12 s), decode wait 0.80 s, scoring wait 0.20 s;
     *  decoding per row 0.016 s (most 0.030 s)"). `contexts_made[i]`: contexts slot i made. */
    std::vector<std::string> lines(double wall, const std::vector<StartupTiming> &startups,
                                   const std::vector<std::string> &slots,
                                   const std::vector<size_t> &contexts_made) const;
    /** The workers' shares, where there are several: "timings: workers: parts scored 2 2 3 1
     *  (by worker); their last parts ended from 17.90 s to 27.40 s" -- a run whose workers end
     *  far apart lost the difference to too few parts at the end. Empty with one worker. */
    std::string workers_line() const;

private:
    mutable std::mutex mu_;
    std::vector<GroupTiming> groups_;
};

/** Total length of the union of [begin, end) intervals: the time at least one was going. */
double covered_seconds(std::vector<std::pair<double, double>> intervals);

} // namespace vif::batch

#endif
