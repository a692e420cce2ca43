#include "commands/device_startup.hpp"

#include <vif/vif.h>

#include <system_error>

namespace vifcli {

DeviceStartup::DeviceStartup(const std::vector<int> &devices, Prepare prepare)
    : start_(std::chrono::steady_clock::now()) {
    if (!prepare)
        prepare = [](int d, std::string *error) {
            if (vif_cuda_prepare(d) == VIF_OK) return true;
            *error = vif_last_error();
            return false;
        };
    for (int d : devices) records_[d] = Record{};
    std::vector<int> distinct;
    for (const auto &entry : records_) distinct.push_back(entry.first);
    for (int d : distinct) {
        try {
            threads_.emplace_back([this, d, prepare] {
                const auto t0 = std::chrono::steady_clock::now();
                std::string error;
                const bool ok = prepare(d, &error);
                const auto t1 = std::chrono::steady_clock::now();
                std::lock_guard<std::mutex> lock(mu_);
                Record &r = records_[d];
                r.seconds = std::chrono::duration<double>(t1 - t0).count();
                r.ready_at = std::chrono::duration<double>(t1 - start_).count();
                if (!ok) r.error = error.empty() ? "start-up failed" : error;
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
