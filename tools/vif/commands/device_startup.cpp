#include "commands/device_startup.hpp"

#include <vif/vif.h>

#include <algorithm>
#include <system_error>

namespace vifcli {

DeviceStartup::DeviceStartup(const std::vector<int> &devices, Prepare prepare, Plan plan,
                             Changed changed)
    : start_(std::chrono::steady_clock::now()), prepare_(std::move(prepare)),
      plan_(std::move(plan)), changed_(std::move(changed)) {
    if (!prepare_)
        prepare_ = [](int d, std::string *error) {
            if (vif_cuda_prepare(d) == VIF_OK) return true;
            *error = vif_last_error();
            return false;
        };
    for (int d : devices)
        if (std::find(order_.begin(), order_.end(), d) == order_.end()) order_.push_back(d);
    std::lock_guard<std::mutex> lock(mu_);
    for (int d : order_) records_[d] = Record{};
    if (plan_ && order_.size() > 1) {
        start(order_.front());
        // (No thread for it: no plan will come; the others start now.)
        if (records_[order_.front()].done)
            for (int d : order_) start(d);
    } else {
        for (int d : order_) start(d);
    }
}

DeviceStartup::~DeviceStartup() {
    // A start-up thread may start others (the plan): join until none is left.
    for (;;) {
        std::vector<std::thread> threads;
        {
            std::lock_guard<std::mutex> lock(mu_);
            threads.swap(threads_);
        }
        if (threads.empty()) break;
        for (auto &t : threads) t.join();
    }
}

void DeviceStartup::start(int d) {
    Record &r = records_[d];
    if (r.started) return;
    r.started = true;
    r.left_out = false;
    try {
        threads_.emplace_back([this, d] { run(d); });
    } catch (const std::system_error &) {
        // No thread: the device starts in its first vif_create, as without this.
        r.done = true;
    }
}

void DeviceStartup::run(int d) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string error;
    const bool ok = prepare_(d, &error);
    const auto t1 = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(t1 - t0).count();
    {
        std::lock_guard<std::mutex> lock(mu_);
        Record &r = records_[d];
        r.seconds = seconds;
        r.ready_at = std::chrono::duration<double>(t1 - start_).count();
        if (!ok) r.error = error.empty() ? "start-up failed" : error;
        r.done = true;
    }
    cv_.notify_all();
    if (changed_) changed_();
    if (!plan_ || order_.size() < 2 || d != order_.front()) return;
    // The first device is ready: how many others pay for their start-up now. (All of them when
    // it failed to start: the rows need another device.)
    const size_t others = order_.size() - 1;
    std::string why;
    size_t n = ok ? std::min(others, plan_(seconds, others, &why)) : others;
    if (!ok) why = "the first device failed to start: every other one starts";
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (rest_wanted_ && n < others) {
            // A device failed (start_rest) before the plan was made: the rows need the others.
            n = others;
            why = "a device failed before the plan was made: every other one starts (" + why + ")";
        }
        plan_note_ = why;
        for (size_t i = 1; i < order_.size(); ++i) {
            if (i <= n)
                start(order_[i]);
            else if (!records_[order_[i]].started)
                records_[order_[i]].left_out = true;
        }
    }
    cv_.notify_all();
    if (changed_) changed_();
}

void DeviceStartup::start_rest() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        rest_wanted_ = true; // (for a plan still to come)
        for (int d : order_)
            if (records_[d].left_out) start(d);
    }
    cv_.notify_all();
    if (changed_) changed_();
}

bool DeviceStartup::ready(int device) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = records_.find(device);
    return it == records_.end() || it->second.done;
}

bool DeviceStartup::left_out(int device) const {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = records_.find(device);
    return it != records_.end() && it->second.left_out;
}

void DeviceStartup::wait(int device) const {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
        const auto it = records_.find(device);
        return it == records_.end() || it->second.done || it->second.left_out;
    });
}

std::string DeviceStartup::plan_note() const {
    std::lock_guard<std::mutex> lock(mu_);
    return plan_note_;
}

std::map<int, DeviceStartup::Record> DeviceStartup::records() const {
    std::lock_guard<std::mutex> lock(mu_);
    return records_;
}

} // namespace vifcli
