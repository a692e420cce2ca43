#include "pair/timeline.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <unistd.h>

namespace vifcli {

Timeline g_timeline;

namespace {
double ms(std::chrono::steady_clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}
} // namespace

void Timeline::print() const {
    if (!on_) return;
    std::fprintf(stderr, "vif: timing: %-36s %9.1f ms (kernel's count, 10 ms steps)\n",
                 "process start to main()", process_age_ms_);
    // The same instant on the wall clock: a caller that noted when it started the process
    // (bench/startup) gets the start-up before main() exactly, and the exit from the last line.
    std::fprintf(stderr, "vif: timing: static start-up at %.6f (wall clock)\n", start_wall_);
    auto prev = start_;
    for (const auto &[what, t] : marks_) {
        std::fprintf(stderr, "vif: timing: %-36s %9.1f ms  (at %.1f ms)\n", what.c_str(),
                     ms(t - prev), ms(t - start_));
        prev = t;
    }
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    std::fprintf(stderr, "vif: timing: leaving main() at %lld.%09ld (wall clock)\n",
                 (long long)ts.tv_sec, ts.tv_nsec);
}

double Timeline::wall_clock() {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double Timeline::process_age_ms() {
    // /proc/self/stat field 22: start time in clock ticks after boot; /proc/uptime: now.
    FILE *f = std::fopen("/proc/self/stat", "r");
    if (!f) return 0;
    char buf[1024];
    size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char *p = std::strrchr(buf, ')');
    unsigned long long start = 0;
    for (int field = 2; p && *p && field < 22; ++p)
        if (*p == ' ') ++field;
    if (p) start = std::strtoull(p, nullptr, 10);
    double up = 0;
    if (FILE *u = std::fopen("/proc/uptime", "r")) {
        if (std::fscanf(u, "%lf", &up) != 1) up = 0;
        std::fclose(u);
    }
    const double age = up - double(start) / double(sysconf(_SC_CLK_TCK));
    return age > 0 ? age * 1000 : 0;
}

} // namespace vifcli
