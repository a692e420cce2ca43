#include "pair/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace vifcli {

void Progress::update(uint64_t done, bool force) {
    if (!on_) return;
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    double s = std::chrono::duration<double>(now - start_).count();
    double fps = s > 0 ? double(done) / s : 0;
    if (total_ && *total_ > 0) {
        const int width = 30;
        int fill = int(double(width) * double(std::min(done, *total_)) / double(*total_));
        std::fprintf(stderr, "\r[%s%s] %llu/%llu frames  %.1f fps ",
                     std::string(size_t(fill), '#').c_str(),
                     std::string(size_t(width - fill), '.').c_str(), (unsigned long long)done,
                     (unsigned long long)*total_, fps);
    } else {
        std::fprintf(stderr, "\r%llu frames  %.1f fps ", (unsigned long long)done, fps);
    }
    std::fflush(stderr);
    shown_ = true;
}

void Progress::finish() {
    if (on_ && shown_) {
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }
}

} // namespace vifcli
