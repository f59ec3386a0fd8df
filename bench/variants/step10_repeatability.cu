// How many different results do 1,000 calls on one float input give? Step 10 adds its partials in
// a fixed order; the atomicAdd variant in the order the blocks finish. Prints one CSV row each.
// usage: step10_repeatability [--n COUNT] [--calls COUNT] [--type float32|float64] [--seed SEED]
#include "reduce.cuh"  // step 10's, atomic_partials.cuh appended (bench/variants.toml)

#include "device_buffer.h"
#include "exit_codes.h"
#include "input.h"
#include "options.h"
#include "report.h"
#include "device_info.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace reduction;

struct Settings {
    std::size_t n = std::size_t{1} << 24;
    std::size_t calls = 1000;
    bool float64 = false;
    std::uint64_t seed = 1;
};

Settings parse(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--help" || flag == "-h") {
            std::printf("usage: %s [--n COUNT] [--calls COUNT] [--type float32|float64] [--seed SEED]\n"
                        "  1,000 calls (default) of step 10 and of its atomicAdd variant on one input;\n"
                        "  CSV: how many distinct results each gave, and their range\n", argv[0]);
            std::exit(exit_ok);
        }
        if (i + 1 >= argc) throw UsageError(flag + " needs a value");
        const std::string value = argv[i + 1];
        if (flag == "--n") settings.n = parse_count(flag, value);
        else if (flag == "--calls") settings.calls = parse_count(flag, value);
        else if (flag == "--seed") settings.seed = parse_count(flag, value);
        else if (flag == "--type" && (value == "float32" || value == "float64")) settings.float64 = value == "float64";
        else if (flag == "--type") throw UsageError("--type must be float32 or float64, not '" + value + "'");
        else throw UsageError("unknown flag '" + flag + "' (accepted: --n, --calls, --type, --seed)");
    }
    if (settings.n == 0 || settings.calls == 0) throw UsageError("--n and --calls must be at least 1");
    return settings;
}

// Calls `reduce` `calls` times on one input and scratch; returns the distinct results, as bits.
template <class T, class Reduce>
std::set<std::vector<unsigned char>> distinct_results(Reduce reduce, const T* in, std::size_t n, std::size_t calls,
                                                      std::size_t scratch_bytes) {
    DeviceBuffer<unsigned char> scratch(scratch_bytes);
    DeviceBuffer<T> out(1);
    if (scratch.size() > 0) CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
    std::set<std::vector<unsigned char>> seen;
    for (std::size_t call = 0; call < calls; ++call) {
        reduce(in, n, out.get(), reinterpret_cast<T*>(scratch.get()), 256, cudaStream_t{});
        T value{};
        CUDA_CHECK(cudaMemcpy(&value, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
        std::vector<unsigned char> bits(sizeof(T));
        std::memcpy(bits.data(), &value, sizeof(T));
        seen.insert(bits);
    }
    return seen;
}

template <class T>
T as_value(const std::vector<unsigned char>& bits) {
    T value{};
    std::memcpy(&value, bits.data(), sizeof(T));
    return value;
}

template <class T>
void report(const char* variant, const char* type, const Settings& s,
            const std::set<std::vector<unsigned char>>& seen) {
    double smallest = 0, largest = 0;
    bool first = true;
    for (const auto& bits : seen) {
        const double v = as_value<T>(bits);
        smallest = first ? v : std::min(smallest, v);
        largest = first ? v : std::max(largest, v);
        first = false;
    }
    std::printf("%s,%s,%zu,%zu,%zu,%.17g,%.17g\n", variant, type, s.n, s.calls, seen.size(), smallest, largest);
}

template <class T>
int run(const Settings& s, const char* type) {
    const std::vector<T> values = generate_input<T>(s.n, Pattern::random, s.seed);
    DeviceBuffer<T> in(s.n);
    CUDA_CHECK(cudaMemcpy(in.get(), values.data(), s.n * sizeof(T), cudaMemcpyHostToDevice));
    report<T>("step10_single_pass", type, s,
              distinct_results<T>(&step10::reduce<T>, in.get(), s.n, s.calls, step10::scratch_bytes<T>(s.n, 256)));
    report<T>("step10_atomic_add", type, s,
              distinct_results<T>(&atomic_partials::reduce<T>, in.get(), s.n, s.calls, 0));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return reduction::run_guarded([&] {
        const Settings settings = parse(argc, argv);
        const DeviceInfo device = open_device(0);  // no GPU: one line and exit 3
        std::printf("%s", stamp_lines(device_stamp(device, argc, argv)).c_str());
        std::printf("variant,type,n,calls,distinct_results,smallest,largest\n");
        return settings.float64 ? run<double>(settings, "float64") : run<float>(settings, "float32");
    });
}
