// Reads a fuzzer's input as a stream of typed values; past the end every read gives zeros, so a
// target never has to check the size (clang's FuzzedDataProvider does the same; this one also
// builds with GCC for the replay tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace vif_fuzz {

class Input {
public:
    Input(const uint8_t* data, size_t size) : p_(data), n_(size) {}

    size_t remaining() const { return n_; }

    template <typename T>
    T take() {
        T v{};
        const size_t k = n_ < sizeof(T) ? n_ : sizeof(T);
        if (k) std::memcpy(&v, p_, k);
        p_ += k;
        n_ -= k;
        return v;
    }
    uint8_t u8() { return take<uint8_t>(); }
    uint16_t u16() { return take<uint16_t>(); }
    uint32_t u32() { return take<uint32_t>(); }
    uint64_t u64() { return take<uint64_t>(); }
    double f64() { return take<double>(); }
    bool flag() { return u8() & 1; }

    // A value in [lo, hi].
    uint32_t range(uint32_t lo, uint32_t hi) { return lo + u32() % (hi - lo + 1); }

    // The rest of the input.
    const uint8_t* rest(size_t* size) {
        *size = n_;
        const uint8_t* r = p_;
        p_ += n_;
        n_ = 0;
        return r;
    }

private:
    const uint8_t* p_;
    size_t n_;
};

} // namespace vif_fuzz

// Aborts with a message: a broken contract is a crash for the fuzzer.
#define VIF_FUZZ_CHECK(cond, ...)                                                                  \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "fuzz contract broken at %s:%d: %s\n  ", __FILE__, __LINE__,      \
                         #cond);                                                                   \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, "\n");                                                            \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)
