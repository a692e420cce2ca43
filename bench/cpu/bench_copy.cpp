// The cost of the sample check (libvif/src/core/sample_range.hpp): packing a 1080p 10-bit plane into a
// slot with memcpy, against copy_and_or_words, which also ORs the words to catch samples above
// the bit depth. "InCache": the same source plane every time; "OutOfCache": 8 planes in turn.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/sample_range.hpp"

namespace {

constexpr size_t kW = 1920, kH = 1080, kRow = kW * 2;

template <bool kCheck>
void pack(benchmark::State& state) {
    const size_t planes = static_cast<size_t>(state.range(0));
    std::vector<uint8_t> src(kRow * kH * planes, 3), dst(kRow * kH);
    size_t k = 0;
    for (auto _ : state) {
        const uint8_t* s = src.data() + (k++ % planes) * kRow * kH;
        uint32_t acc = 0;
        for (size_t r = 0; r < kH; ++r) {
            if (kCheck)
                acc |= vif::copy_and_or_words(dst.data() + r * kRow, s + r * kRow, kW);
            else
                std::memcpy(dst.data() + r * kRow, s + r * kRow, kRow);
        }
        benchmark::DoNotOptimize(acc);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kRow * kH));
}

void BM_PackPlaneMemcpy(benchmark::State& s) {
    pack<false>(s);
}
void BM_PackPlaneCopyAndOr(benchmark::State& s) {
    pack<true>(s);
}
BENCHMARK(BM_PackPlaneMemcpy)->Arg(1)->Arg(8)->ArgName("planes");
BENCHMARK(BM_PackPlaneCopyAndOr)->Arg(1)->Arg(8)->ArgName("planes");

} // namespace

BENCHMARK_MAIN();
