#include "batch/outputs.hpp"

#include "batch/unnamed_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <csignal>
#include <cstdlib>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace vif::batch {
namespace {

// Temporary files being written (write_atomically on several worker threads), for the signal
// handler: a slot is claimed with its flag; the handler only reads the flags and unlinks.
constexpr int kTempSlots = 64;
char g_temp_path[kTempSlots][PATH_MAX];
std::atomic<int> g_temp_used[kTempSlots];
// Set by the signal handler before it removes the temporaries: a writer on another thread that
// creates its file after the handler looked at its slot sees it and removes the file itself
// (the handler sets this, then reads the slots; a writer claims its slot, creates the file,
// then reads this: one of the two always removes the file).
std::atomic<int> g_exiting{0};

// Registers a temporary file while it exists (-1 when every slot is taken: not removed then).
class PendingTemp {
public:
    explicit PendingTemp(const std::string& path) {
        if (path.size() >= PATH_MAX) return;
        for (int i = 0; i < kTempSlots; ++i) {
            int expected = 0;
            if (g_temp_used[i].compare_exchange_strong(expected, 2)) {
                std::memcpy(g_temp_path[i], path.c_str(), path.size() + 1);
                g_temp_used[i].store(1); // complete: the handler may use it now
                slot_ = i;
                return;
            }
        }
    }
    ~PendingTemp() {
        if (slot_ >= 0) g_temp_used[slot_].store(0);
    }
    PendingTemp(const PendingTemp&) = delete;
    PendingTemp& operator=(const PendingTemp&) = delete;

private:
    int slot_ = -1;
};

// Test hook: VIF_TEST_RAISE_IN_WRITE=SIG raises that signal once a temporary file is written and
// before it is renamed, the moment where a signal would otherwise leave it behind.
void test_raise_in_write() {
    const char* v = std::getenv("VIF_TEST_RAISE_IN_WRITE");
    if (const int sig = v ? std::atoi(v) : 0; sig > 0) ::raise(sig);
}
std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}
} // namespace

std::vector<std::string> output_stems(const std::vector<ManifestRow>& rows) {
    std::vector<std::string> stems;
    std::map<std::string, int> uses;
    for (const ManifestRow& r : rows) {
        std::string stem = std::filesystem::path(r.distorted).stem().string();
        if (stem.empty() || stem == "summary") stem = "row" + std::to_string(r.row);
        stems.push_back(stem);
        ++uses[lower(stem)];
    }
    std::set<std::string> taken;
    for (size_t i = 0; i < rows.size(); ++i)
        if (uses[lower(stems[i])] > 1) stems[i] += ".row" + std::to_string(rows[i].row);
    // A suffixed name may still meet a file really called that: add the row again until unique.
    for (size_t i = 0; i < rows.size(); ++i) {
        while (!taken.insert(lower(stems[i])).second)
            stems[i] += ".row" + std::to_string(rows[i].row);
    }
    return stems;
}

size_t remove_stale_temporaries(const std::vector<std::string>& paths) {
    std::map<std::string, std::set<std::string>> names_in; // folder -> output names
    for (const std::string& p : paths) {
        const std::filesystem::path fp(p);
        names_in[fp.parent_path().string()].insert(fp.filename().string());
    }
    size_t removed = 0;
    for (const auto& [dir, names] : names_in) {
        std::error_code ec;
        for (const auto& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
            const std::string n = e.path().filename().string();
            const size_t at = n.rfind(".tmp.");
            if (at == std::string::npos || !names.count(n.substr(0, at))) continue;
            const std::string pid = n.substr(at + 5);
            if (pid.empty() || pid.size() > 9 ||
                pid.find_first_not_of("0123456789") != std::string::npos)
                continue;
            // A live process (this one, or another run) may still be writing it.
            if (::kill(pid_t(std::stol(pid)), 0) == 0 || errno != ESRCH) continue;
            std::error_code rm;
            removed += std::filesystem::remove(e.path(), rm);
        }
    }
    return removed;
}

namespace {

// Writes all of `content` to fd and flushes it to disk; 0 or the errno.
int write_all_and_sync(int fd, const std::string& content) {
    size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : ENOSPC;
        done += size_t(n);
    }
    // On disk before it is named: after a crash the name holds the old file or the whole new one.
    return ::fsync(fd) != 0 ? errno : 0;
}

// The folder's entries on disk too (the name just made or moved).
void sync_folder(const std::string& path) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

} // namespace

void write_atomically(const std::string& path, const std::string& content) {
    // A new output is written to a file without a name (O_TMPFILE) in its folder and named only
    // once complete: a process that ends before, however it ends (a signal, kill -9, a crash),
    // leaves nothing behind. An output written again (its name taken) is named under a
    // temporary name first and renamed over the old one; a filesystem without O_TMPFILE writes
    // under that temporary name.
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    const std::string dir = std::filesystem::path(path).parent_path().string();
    int fd = open_unnamed(dir, 0644);
    const bool unnamed = fd >= 0;
    std::optional<PendingTemp> pending;
    // A temporary name made: a signal's handler ending the process on another thread may have
    // passed its slot already, so the file goes and this thread waits for the end.
    auto named_now = [&] {
        if (!g_exiting.load()) return;
        ::unlink(tmp.c_str());
        for (;;) ::pause();
    };
    if (!unnamed) {
        pending.emplace(tmp);
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) throw std::runtime_error(tmp + ": cannot create: " + std::strerror(errno));
        named_now();
    }
    int err = write_all_and_sync(fd, content);
    if (err) {
        ::close(fd);
        if (!unnamed) ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": write failed: " + std::strerror(err));
    }
    test_raise_in_write();
    if (unnamed) {
        if (g_exiting.load()) { // (a signal's handler is ending the process: nothing is named)
            ::close(fd);
            for (;;) ::pause();
        }
        err = link_unnamed(fd, path);
        if (err == 0) {
            err = ::close(fd) != 0 ? errno : 0;
            if (err) throw std::runtime_error(path + ": write failed: " + std::strerror(err));
            sync_folder(path);
            return;
        }
        pending.emplace(tmp);
        ::unlink(tmp.c_str()); // (a name this process's id left, as O_TRUNC would overwrite)
        if (err == EEXIST) err = link_unnamed(fd, tmp);
        if (err) {
            ::close(fd);
            throw std::runtime_error(path +
                                     ": cannot name the finished file: " + std::strerror(err));
        }
        named_now();
    }
    if (::close(fd) != 0) {
        err = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": write failed: " + std::strerror(err));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        err = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error(
            path + ": cannot rename the finished file into place: " + std::strerror(err));
    }
    sync_folder(path);
}

void remove_pending_temporaries_signal_safe() {
    g_exiting.store(1);
    for (int i = 0; i < kTempSlots; ++i)
        if (g_temp_used[i].load() == 1) ::unlink(g_temp_path[i]);
}

std::string output_over_input(const std::vector<std::string>& outputs,
                              const std::vector<std::string>& inputs) {
    std::map<std::pair<dev_t, ino_t>, std::string> input_at;
    for (const std::string& in : inputs) {
        struct stat st {};
        if (in != "-" && ::stat(in.c_str(), &st) == 0 && !S_ISCHR(st.st_mode))
            input_at.emplace(std::make_pair(st.st_dev, st.st_ino), in);
    }
    for (const std::string& out : outputs) {
        struct stat st {};
        if (::stat(out.c_str(), &st) != 0) continue; // not there yet: nothing to overwrite
        const auto it = input_at.find({st.st_dev, st.st_ino});
        if (it != input_at.end())
            return "output '" + out + "' is the input '" + it->second +
                   "': refusing to overwrite an input (give another output folder)";
    }
    return "";
}

} // namespace vif::batch
