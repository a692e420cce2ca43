#include "commands/device_startup.hpp"

#include <vif/vif.h>

#include <system_error>

namespace vifcli {

DeviceStartup::DeviceStartup(const std::vector<int> &devices)
    : start_(std::chrono::steady_clock::now()) {
    for (int d : devices) records_[d] = Record{};
    std::vector<int> distinct;
    for (const auto &entry : records_) distinct.push_back(entry.first);
    for (int d : distinct) {
        try {
            threads_.emplace_back([this, d] {
                const auto t0 = std::chrono::steady_clock::now();
                const VifStatus st = vif_cuda_prepare(d);
                const auto t1 = std::chrono::steady_clock::now();
                std::lock_guard<std::mutex> lock(mu_);
                Record &r = records_[d];
                r.seconds = std::chrono::duration<double>(t1 - t0).count();
                r.ready_at = std::chrono::duration<double>(t1 - start_).count();
                if (st != VIF_OK) r.error = vif_last_error();
                r.done = true;
                cv_.notify_all();
            });
        } catch (const std::system_error &) {
            // No thread: the device starts in its first vif_create, as without this.
            std::lock_guard<std::mutex> lock(mu_);
            records_[d].done = true;
        }
    }
}

DeviceStartup::~DeviceStartup() {
    for (auto &t : threads_) t.join();
}

bool DeviceStartup::ready(int device) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = records_.find(device);
    return it == records_.end() || it->second.done;
}

void DeviceStartup::wait(int device) const {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
        const auto it = records_.find(device);
        return it == records_.end() || it->second.done;
    });
}

std::map<int, DeviceStartup::Record> DeviceStartup::records() const {
    std::lock_guard<std::mutex> lock(mu_);
    return records_;
}

} // namespace vifcli
