// Step 14's exact sum, bit for bit against the CPU's (common/exact_sum.h, ExactSum::result): inputs
// built to break a float sum (ties, cancellations, subnormals beside the largest values, overflow that
// cancels and overflow that stays, rests that only the digits hold, every NaN and infinity placement, signed zeros) and random inputs
// over 1, 40 and every binade, float32 and float64, sizes from 1 to a few million, three offsets from
// a 16-byte boundary. Each through reduce_op with every block size, and through the kernel itself on
// grids of 1, 3 and 7 blocks and the whole GPU, the loop's kernel and the bulk path's (the loop's
// also launched as one cluster of 3, 7 and 13 blocks where the GPU has clusters), each call twice
// on the same scratch, which must be empty again afterwards; and as unrounded partials of 1 to 4 pieces,
// added as integers and rounded once, as step 15 adds the sums of K GPUs. And the limits of float32's
// shortcuts and of float64's split, each by values whose sum would lose a bit past them.
#include "../catch.h"
#include "cuda_check.h"
#include "device_buffer.h"
#include "exact_sum.h"
#include "gpu_test_support.h"
#include "hang_guard.h"
#include "operators.h"

#include REDUCTION_STEP_HEADER

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace step = REDUCTION_STEP_NS;
using reduction::DeviceBuffer;

const std::vector<int> every_block = {32, 64, 128, 256, 512, 1024};

template <class T>
const char* type_name() { return sizeof(T) == 4 ? "float32" : "float64"; }

template <class T>
std::string bits_text(T value) {
    typename reduction::ExactLayout<T>::Bits bits;
    std::memcpy(&bits, &value, sizeof bits);
    char text[64];
    std::snprintf(text, sizeof text, "%.17g (0x%llx)", static_cast<double>(value), static_cast<unsigned long long>(bits));
    return text;
}

template <class T>
bool same_bits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

// A random finite value: sign, exponent in [low, high] (powers of two), random significand.
template <class T>
T random_value(std::mt19937_64& random, int low, int high) {
    std::uniform_int_distribution<int> exponent(low, high);
    std::uniform_real_distribution<T> significand(1, 2);
    const T value = std::ldexp(significand(random), exponent(random));
    return random() % 2 ? -value : value;
}

// The named inputs of `size` values.
template <class T>
std::vector<std::pair<std::string, std::vector<T>>> inputs(std::size_t size, std::uint64_t seed) {
    using L = std::numeric_limits<T>;
    std::mt19937_64 random(seed);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    auto make = [&](const std::string& name, auto value_of) {
        std::vector<T> values(size);
        for (std::size_t i = 0; i < size; ++i) values[i] = value_of(i);
        out.emplace_back(name, std::move(values));
    };
    std::uniform_real_distribution<T> unit(0, 1);
    make("uniform [0,1)", [&](std::size_t) { return unit(random); });
    make("40 binades, both signs", [&](std::size_t) { return random_value<T>(random, -20, 20); });
    make("every binade, both signs", [&](std::size_t) {
        return random_value<T>(random, L::min_exponent - L::digits, L::max_exponent - 1);  // subnormals to the top
    });
    const T big = L::max(), tiny = L::denorm_min();
    make("largest values cancel, the smallest subnormals remain", [&](std::size_t i) {
        return i % 3 == 0 ? big : i % 3 == 1 ? -big : tiny;
    });
    make("overflow that cancels, then a tie", [&](std::size_t i) {  // big, big, -big, -big, ...: partial sums past the range
        const T ulp_half = std::ldexp(T(1), -L::digits);
        return i == size - 1 ? ulp_half : i % 4 < 2 ? big : -big;
    });
    make("overflow that stays", [&](std::size_t) { return big / 2; });
    make("pairs x, -x and one tiny value", [&](std::size_t i) {
        if (i == size / 2) return tiny;
        const T x = random_value<T>(random, -60, 60);
        return i % 2 ? -x : x;  // with an odd size the last x stays
    });
    // Vector by vector (4 values, float32; at offset 0 a thread's loop hands them over in this order):
    // 2^100, 1, 2^-100, -2^100, then -1, 0, 0, 0. The 1 is high's error, so low holds it; the 2^-100
    // then cannot join low (53 bits) and goes to the digits as a rest; 2^100 and -2^100 cancel in
    // high and the -1 takes the 1: what is left is the digits' 2^-100 per pair of vectors.
    make("rests below low: 2^100, 1, 2^-100, -2^100 and -1", [&](std::size_t i) {
        const std::size_t vector = i / 4, lane = i % 4;
        if (vector % 2 == 1) return lane == 0 ? -T(1) : T(0);
        const T pattern[4] = {std::ldexp(T(1), 100), T(1), std::ldexp(T(1), -100), -std::ldexp(T(1), 100)};
        return pattern[lane];
    });
    // 1, half of 1's last place and 2^-36 of that: just above a tie between two values of T, by less than half a
    // double's last place. float32: rounded to double and then to float, two roundings to nearest, it would
    // go down to the tie's even value; the exact sum goes up.
    make("above a tie by less than a double holds", [&](std::size_t i) {
        const T half = std::ldexp(T(1), -L::digits);
        return i == 0 ? T(1) : i == size / 3 ? half : i == 2 * size / 3 ? std::ldexp(half, -36) : T(0);
    });
    // One thread of block 0 (at offset 0, blocks of 256) gets 2^60 and 100 in its first vector and 2^-60 in its
    // second: low holds 100 and cannot take 2^-60, which goes to block 0's digits. Every other block's sum is
    // exact (zeros): the grid's last block must still add block 0's digits.
    make("a rest in block 0 only", [&](std::size_t i) {
        constexpr std::size_t width = 16 / sizeof(T);  // values per 16-byte vector
        return i == 0 ? std::ldexp(T(1), 60) : i == 1 ? T(100) : i == 256 * width ? std::ldexp(T(1), -60) : T(0);
    });
    make("all -0", [&](std::size_t) { return -T(0); });
    make("-0 and one +0", [&](std::size_t i) { return i == size / 3 ? T(0) : -T(0); });
    make("-1 and 1: an exact zero", [&](std::size_t i) { return size % 2 == 1 && i == size - 1 ? -T(0) : i % 2 ? T(1) : -T(1); });
    make("1 and half-ulps: ties to even", [&](std::size_t i) { return i == 0 ? T(1) : std::ldexp(T(1), -L::digits); });
    make("a NaN among uniform values", [&](std::size_t i) { return i == size / 2 ? L::quiet_NaN() : unit(random); });
    make("+inf among uniform values", [&](std::size_t i) { return i == size - 1 ? L::infinity() : unit(random); });
    make("-inf and huge values", [&](std::size_t i) { return i == 0 ? -L::infinity() : big; });
    make("+inf and -inf", [&](std::size_t i) { return i == 0 ? L::infinity() : i == size - 1 ? -L::infinity() : T(1); });
    return out;
}

template <class T>
T exact_reference(const std::vector<T>& values, std::size_t offset, std::size_t n) {
    reduction::ExactSum<T> sum;
    sum.add(values.data() + offset, n);
    return sum.result();
}

template <class T>
void check_state_empty(const DeviceBuffer<unsigned char>& scratch, const std::string& what) {
    std::vector<unsigned char> left(scratch.bytes());
    CUDA_CHECK(cudaMemcpy(left.data(), scratch.get(), scratch.bytes(), cudaMemcpyDeviceToHost));
    std::size_t nonzero = 0;
    for (unsigned char byte : left) nonzero += byte != 0;
    INFO(what);
    REQUIRE(nonzero == 0);
}

// The calls of one input, queued back to back with one result each, copied back at once and compared
// with the exact sum (a sync per call would make this test's many small calls slow). `what(k)` names
// call k in a failure.
template <class T, class Launch, class What>
void check_calls(int calls, std::size_t bytes, T expected, const Launch& launch, const What& what) {
    DeviceBuffer<T> out(static_cast<std::size_t>(calls));
    CUDA_CHECK(cudaMemset(out.get(), 0x7F, out.bytes()));
    std::vector<T> got(static_cast<std::size_t>(calls));
    {
        const reduction::test::HangGuard guard(what(0) + " and the " + std::to_string(calls - 1) + " calls after it",
                                               bytes * static_cast<std::size_t>(calls));
        for (int k = 0; k < calls; ++k) launch(k, out.get() + k);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpy(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
    }
    for (int k = 0; k < calls; ++k) {
        INFO(what(k) << ": got " << bits_text(got[k]) << ", exact " << bits_text(expected));
        REQUIRE(same_bits(got[k], expected));
    }
}

// Every input of every size through reduce_op, each block size, twice on the same scratch (one per
// block size, kept from input to input: each call must leave it empty).
template <class T>
void check_reduce_op(const std::vector<std::size_t>& sizes, const std::vector<int>& blocks) {
    for (std::size_t size : sizes) {
        std::vector<DeviceBuffer<unsigned char>> scratch;
        for (int block : blocks) {
            scratch.emplace_back(step::scratch_bytes<T>(size, block));
            CUDA_CHECK(cudaMemset(scratch.back().get(), 0, scratch.back().bytes()));
        }
        for (const auto& input : inputs<T>(size + 3, size)) {
            const std::string& name = input.first;  // named, not bound: the lambdas below capture them
            const std::vector<T>& values = input.second;
            DeviceBuffer<T> in(values.size());
            CUDA_CHECK(cudaMemcpy(in.get(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
            for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
                const auto block_of = [&](int k) { return static_cast<std::size_t>(k / 2); };  // call k: blocks[k / 2]
                check_calls<T>(
                    2 * static_cast<int>(blocks.size()), size * sizeof(T), exact_reference(values, offset, size),
                    [&](int k, T* out) {
                        step::reduce(in.get() + offset, size, out, reinterpret_cast<T*>(scratch[block_of(k)].get()),
                                     blocks[block_of(k)], nullptr);
                    },
                    [&](int k) {
                        return std::string(REDUCTION_STEP_TAG " reduce ") + type_name<T>() + " " + name +
                               " n=" + std::to_string(size) + " offset=" + std::to_string(offset) +
                               " block=" + std::to_string(blocks[block_of(k)]) + " call " + std::to_string(k % 2);
                    });
                for (const auto& each : scratch) check_state_empty<T>(each, std::string("scratch after ") + name);
            }
        }
    }
}

// Whether this GPU and the loop's exact kernel as built have thread-block clusters: sm_90 and later, both.
template <class T>
bool has_clusters() {
    int device = 0, major = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, step::exact_kernel_for_block<T>(256)));
    return major >= 9 && attributes.binaryVersion >= 90;
}

// The kernels themselves on grids the launch never picks: any grid gives the same bits.
template <class T, bool Bulk>
void check_kernel_grids() {
    if (Bulk && !step::bulk_copies_available()) {  // as before this step: the loop's kernel sums every size
        WARN("this GPU or build has no bulk copies (sm_90): the bulk path's kernel is not run");
        return;
    }
    constexpr std::size_t chunk = step::chunk_bytes / sizeof(T);
    // The largest, 2^18 + 3: 128 (float32) or 256 (float64) chunks, so that on a grid of 1 block the
    // bulk path's ring of 4 buffers wraps many times. Not larger: on grids of 1 and 3 blocks the
    // float64 inputs of huge values send every element to the digits, a few atomics each, and those
    // calls take most of this test's GPU time (it grows with the size).
    const std::size_t sizes[] = {1, 7, chunk - 1, chunk + 1, 5 * chunk - 3, (std::size_t{1} << 18) + 3};
    const int blocks[] = {32, 256, 1024};
    // The loop's kernel also as one cluster (launch_exact_kernel, where the GPU has clusters) of 3, 7 and
    // 13 blocks (more than 8: a size only some GPUs allow); 7 blocks twice, as a plain grid and as a cluster.
    struct Launch {
        unsigned int grid;
        bool cluster;
    };
    constexpr int launches = 6;
    const auto launch_of = [](int block, int k) {
        const Launch all[launches] = {{1u, false}, {3u, !Bulk}, {7u, false}, {7u, !Bulk}, {13u, !Bulk},
                                      {step::resident_grid<Bulk>(block), false}};
        return all[k];
    };
    // An sm_90 GPU running sm_90 code has clusters of 13 blocks and more (16 on the H200), so the clusters are
    // launched there, never silently left out; elsewhere the same grids run plain.
    const bool clusters = !Bulk && has_clusters<T>();
    if (clusters)
        for (int block : blocks) REQUIRE(step::largest_cluster<T>(block) >= 13);
    else if (!Bulk)
        WARN("this GPU or build has no thread-block clusters (sm_90): the clusters run as plain grids");
    for (std::size_t size : sizes)
        for (const auto& input : inputs<T>(size + 3, 7 * size + 1)) {
            const std::string& name = input.first;
            const std::vector<T>& values = input.second;
            DeviceBuffer<T> in(values.size());
            CUDA_CHECK(cudaMemcpy(in.get(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
            DeviceBuffer<unsigned char> state(step::exact_state_bytes<T>(1024));  // the largest block's
            CUDA_CHECK(cudaMemset(state.get(), 0, state.bytes()));
            for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
                // call k: block blocks[k / (2 * launches)], launch (k / 2) % launches, twice each
                const auto block_of = [&](int k) { return blocks[k / (2 * launches)]; };
                const auto grid_of = [&](int k) { return launch_of(block_of(k), (k / 2) % launches).grid; };
                const auto cluster_of = [&](int k) { return launch_of(block_of(k), (k / 2) % launches).cluster; };
                check_calls<T>(
                    2 * launches * static_cast<int>(std::size(blocks)), size * sizeof(T), exact_reference(values, offset, size),
                    [&](int k, T* out) {
                        auto* grid_state = reinterpret_cast<step::ExactGridState<T>*>(state.get());
                        if (cluster_of(k)) {  // one cluster where the GPU and the build have them, else a plain grid
                            step::launch_exact_kernel<T>(step::exact_kernel_for_block<T>(block_of(k)), grid_of(k), block_of(k),
                                                         clusters, nullptr, in.get() + offset, size, out, grid_state, nullptr);
                        } else {
                            step::exact_kernel_for_block<T, Bulk>(block_of(k))<<<grid_of(k), block_of(k)>>>(
                                in.get() + offset, size, out, grid_state, nullptr);
                        }
                    },
                    [&](int k) {
                        return std::string(REDUCTION_STEP_TAG " exact kernel ") + (Bulk ? "(bulk) " : "") + type_name<T>() +
                               " " + name + " n=" + std::to_string(size) + " offset=" + std::to_string(offset) +
                               " block=" + std::to_string(block_of(k)) + " grid=" + std::to_string(grid_of(k)) +
                               (cluster_of(k) ? " (one cluster where the GPU has them)" : "") + " call " + std::to_string(k % 2);
                    });
            }
            check_state_empty<T>(state, std::string("grid state after ") + name);
        }
}

// What a step over several GPUs does with this step (step 15): each piece of an input summed into an
// unrounded partial (reduce_to_partial), the partials added as integers (there an all-reduce; here the
// CPU), the sum rounded once (round_partial). For 1 to 4 pieces, split as step 15 splits (n / K each, the
// first n % K one more; an empty piece adds a zero partial), each piece on its own block size: the
// CPU's bits every time.
template <class T>
void check_partials() {
    using Partial = step::ExactPartial<T>;
    constexpr std::size_t words = sizeof(Partial) / sizeof(std::int64_t);
    static_assert(sizeof(Partial) == words * sizeof(std::int64_t), "a partial is int64 words only: it adds word by word");
    const int blocks[] = {256, 32, 1024, 64};
    for (std::size_t size : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{65537}, (std::size_t{1} << 20) + 3})
        for (const auto& [name, values] : inputs<T>(size, 11 * size + 5)) {
            const T expected = exact_reference(values, 0, size);
            DeviceBuffer<T> in(values.size()), out(1);
            CUDA_CHECK(cudaMemcpy(in.get(), values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
            for (std::size_t pieces = 1; pieces <= 4; ++pieces) {
                const std::string what = std::string(REDUCTION_STEP_TAG " partials ") + type_name<T>() + " " + name +
                                         " n=" + std::to_string(size) + " in " + std::to_string(pieces) + " pieces";
                DeviceBuffer<Partial> partials(pieces), summed(1);
                CUDA_CHECK(cudaMemset(partials.get(), 0, partials.bytes()));
                std::vector<DeviceBuffer<unsigned char>> scratch;
                const reduction::test::HangGuard guard(what, size * sizeof(T));
                for (std::size_t r = 0, begin = 0; r < pieces; ++r) {
                    const std::size_t count = size / pieces + (r < size % pieces ? 1 : 0);
                    const int block = blocks[r];
                    scratch.emplace_back(step::scratch_bytes<T>(std::max<std::size_t>(count, 1), block));
                    CUDA_CHECK(cudaMemset(scratch.back().get(), 0, scratch.back().bytes()));
                    if (count > 0)
                        step::reduce_to_partial(in.get() + begin, count, partials.get() + r,
                                                reinterpret_cast<T*>(scratch.back().get()), block, nullptr);
                    begin += count;
                }
                std::vector<std::int64_t> host(pieces * words), sum(words, 0);
                CUDA_CHECK(cudaMemcpy(host.data(), partials.get(), partials.bytes(), cudaMemcpyDeviceToHost));
                for (std::size_t r = 0; r < pieces; ++r)
                    for (std::size_t w = 0; w < words; ++w) sum[w] += host[r * words + w];
                CUDA_CHECK(cudaMemcpy(summed.get(), sum.data(), summed.bytes(), cudaMemcpyHostToDevice));
                CUDA_CHECK(cudaMemset(out.get(), 0x7F, sizeof(T)));
                step::round_partial(summed.get(), out.get(), nullptr);
                T got{};
                CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
                INFO(what << ": got " << bits_text(got) << ", exact " << bits_text(expected));
                REQUIRE(same_bits(got, expected));
                for (const auto& each : scratch) check_state_empty<T>(each, "scratch after " + what);
            }
        }
}

// A small float32 input through reduce with every block size: the CPU's bits each time. cudaMalloc aligns to
// 256 bytes, so vector t of the input goes to thread t.
void check_small_float32(const std::vector<float>& values, const std::string& name) {
    const float expected = exact_reference(values, 0, values.size());
    DeviceBuffer<float> in(values.size()), out(1);
    CUDA_CHECK(cudaMemcpy(in.get(), values.data(), sizeof(float) * values.size(), cudaMemcpyHostToDevice));
    for (int block : {32, 64, 128, 256, 512, 1024}) {
        DeviceBuffer<unsigned char> scratch(step::scratch_bytes<float>(values.size(), block));
        CUDA_CHECK(cudaMemset(scratch.get(), 0, scratch.bytes()));
        const std::string what =
            std::string(REDUCTION_STEP_TAG " reduce float32 ") + name + ", block=" + std::to_string(block);
        const reduction::test::HangGuard guard(what, sizeof(float) * values.size());
        step::reduce(in.get(), values.size(), out.get(), reinterpret_cast<float*>(scratch.get()), block, nullptr);
        float got = 0;
        CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
        INFO(what << ": got " << bits_text(got) << ", exact " << bits_text(expected));
        REQUIRE(same_bits(got, expected));
    }
}

// The float32 shortcut's limit: 4 values in one aligned vector (what a thread of a small input adds at
// once), 28 binades apart, whose exact sum needs 54 bits. A = 8 - 2^-21, B = 2^-19 - 2^-26 and
// x = 2^-26 + 2^-49 add up to 16 + 2^-20 + 2^-49: just above the tie between the floats 16 and
// 16 + 2^-19, so it rounds up. Added in one double, the 2^-49 is lost (the double's unit there is
// 2^-48; the tie goes to even), and the sum rounds to 16. The window (27 binades for 4 values) keeps
// this vector off the shortcut.
void check_window_edge() {
    const float a = std::ldexp(1.0f, 3) - std::ldexp(1.0f, -21), b = std::ldexp(1.0f, -19) - std::ldexp(1.0f, -26),
                x = std::ldexp(1.0f, -26) + std::ldexp(1.0f, -49);
    const std::vector<float> values = {a, b, a, x};
    const float expected = exact_reference(values, 0, values.size());
    REQUIRE(expected == 16.0f + std::ldexp(1.0f, -19));
    check_small_float32(values, "at the window's edge");
}

// The one-block float32 sum's limit: 32 values, 25 binades apart (the window for 32 values is 24), whose
// exact sum needs 54 bits. Thirty of 2^26 - 128, then 2^23 + 63 and 1 + 2^-23 (units of 2^-23: the sum's
// lowest bit is set and its top bit is bit 53). Exactly, that is just above a tie between two floats, so
// it rounds up to 2021650816. Added in double in the kernel's order, the lowest bit is lost to the tie
// there, the float tie goes to even, and the sum rounds down to 2021650688. The window keeps this input
// off the double sum; each thread's 4 values lie within its own window (27 binades), so only the block's
// window decides.
void check_one_block_window_edge() {
    std::vector<float> values(32, std::ldexp(1.0f, 26) - 128.0f);
    values[0] = std::ldexp(1.0f, 23) + 63.0f;
    values[1] = 1.0f + std::ldexp(1.0f, -23);
    const float expected = exact_reference(values, 0, values.size());
    REQUIRE(expected == 2021650816.0f);
    check_small_float32(values, "one block at the window's edge");
}

// The float64 split's limits: one thread's 8 values of the loop (vectors t, t + Block, t + 2 Block and t + 3 Block
// of a grid of one block), all other values zero, through the loop's kernel with every block size. In loop order:
// - "48 binades": six of 1 + 7u (u = 2^-52), 1 and 2^-48 + 2^-100, 48 binades apart (the window for 8 values is
//   47). Split at sigma = 16, the rests are six of 7u and 2^-100: the rests' sum, 42u, then takes 2^-100 as a tie
//   and drops it. The exact sum, 7 + 58u + 2^-100, lies just above a tie between two doubles and rounds up; without
//   its 2^-100 it would round to even, down.
// - "the largest below zero": seven of -(1 + 4u) and -(1 + 9u). Split at 16 (2^4 times the largest's power of
//   two, for a sum of 8) every part's addition is exact; split at 8, the parts are whole numbers of 4u, the last one -(1 + 8u),
//   and their sum, past -8, takes 4u as a tie and drops it: it rounds to -8 - 32u where the exact -8 - 37u rounds
//   to -8 - 40u.
// - "a subnormal with a zero top word": the same rests as the first, times 2^-974: six of 2^-974 (1 + 7u), then
//   2^-974 (1 + 2^-48) and 2^-1074, whose top 32 bits are zero: it must count as a value of exponent field 0, 48
//   binades below the others, not as a zero.
void check_float64_split_edges() {
    const double u = std::ldexp(1.0, -52), scale = std::ldexp(1.0, -974);
    const std::pair<std::string, std::vector<double>> groups[] = {
        {"48 binades",
         {1 + 7 * u, 1 + 7 * u, 1 + 7 * u, 1 + 7 * u, 1 + 7 * u, 1 + 7 * u, 1, std::ldexp(1.0, -48) + std::ldexp(1.0, -100)}},
        {"the largest below zero",
         {-(1 + 4 * u), -(1 + 4 * u), -(1 + 4 * u), -(1 + 4 * u), -(1 + 4 * u), -(1 + 4 * u), -(1 + 4 * u), -(1 + 9 * u)}},
        {"a subnormal with a zero top word",
         {scale * (1 + 7 * u), scale * (1 + 7 * u), scale * (1 + 7 * u), scale * (1 + 7 * u), scale * (1 + 7 * u),
          scale * (1 + 7 * u), scale * (1 + std::ldexp(1.0, -48)), std::numeric_limits<double>::denorm_min()}},
    };
    DeviceBuffer<unsigned char> state(step::exact_state_bytes<double>(1024));
    CUDA_CHECK(cudaMemset(state.get(), 0, state.bytes()));
    for (const auto& [name, group] : groups)
        for (int block : every_block) {
            std::vector<double> values(8 * static_cast<std::size_t>(block), 0.0);  // 4 vectors of 2 per thread
            for (std::size_t k = 0; k < 4; ++k)  // thread 0's vector k Block
                for (std::size_t w = 0; w < 2; ++w) values[2 * k * block + w] = group[2 * k + w];
            const double expected = exact_reference(values, 0, values.size());
            DeviceBuffer<double> in(values.size()), out(1);  // cudaMalloc: 16-byte aligned
            CUDA_CHECK(cudaMemcpy(in.get(), values.data(), sizeof(double) * values.size(), cudaMemcpyHostToDevice));
            const std::string what =
                std::string(REDUCTION_STEP_TAG " exact kernel float64 ") + name + ", block=" + std::to_string(block);
            const reduction::test::HangGuard guard(what, sizeof(double) * values.size());
            step::exact_kernel_for_block<double>(block)<<<1, block>>>(
                in.get(), values.size(), out.get(), reinterpret_cast<step::ExactGridState<double>*>(state.get()), nullptr);
            CUDA_CHECK(cudaGetLastError());
            double got = 0;
            CUDA_CHECK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
            INFO(what << ": got " << bits_text(got) << ", exact " << bits_text(expected));
            REQUIRE(same_bits(got, expected));
            check_state_empty<double>(state, "grid state after " + what);
        }
}

}  // namespace

const std::vector<std::size_t> exact_sizes = {1, 2, 3, 5, 17, 1000, 4097, 65537, (std::size_t{1} << 20) + 3, 3000017};

TEST_CASE(REDUCTION_STEP_TAG ": the exact sum through reduce, float32: the CPU's bits", "[exact][own_reduce_float32]") {
    check_reduce_op<float>(exact_sizes, every_block);
}

TEST_CASE(REDUCTION_STEP_TAG ": the exact sum through reduce, float64: the CPU's bits", "[exact][own_reduce_float64]") {
    check_reduce_op<double>(exact_sizes, every_block);
}

// For compute-sanitizer (tests/gpu/sanitize.sh): small sizes, one grid of several blocks, every input.
TEST_CASE(REDUCTION_STEP_TAG ": the exact sum, small cases for compute-sanitizer", "[.][sanitize][exact]") {
    check_reduce_op<float>({5, 20001, 70001}, {256});  // 20001: a grid of 5 blocks, one cluster where the GPU has them
    check_reduce_op<double>({5, 20001, 70001}, {256});
}

// The longest cases here (seconds each), like the two above: each in a process of its own beside the
// others ([own_...]: tests/gpu/step_tests.cmake).
TEST_CASE(REDUCTION_STEP_TAG ": the exact kernel on any grid, float32: the CPU's bits", "[exact][own_grids_float32]") {
    check_kernel_grids<float, false>();
}

TEST_CASE(REDUCTION_STEP_TAG ": the exact kernel on any grid, float64: the CPU's bits", "[exact][own_grids_float64]") {
    check_kernel_grids<double, false>();
}

TEST_CASE(REDUCTION_STEP_TAG ": the bulk path's exact kernel on any grid, float32: the CPU's bits",
          "[exact][own_bulk_grids_float32]") {
    check_kernel_grids<float, true>();
}

TEST_CASE(REDUCTION_STEP_TAG ": the bulk path's exact kernel on any grid, float64: the CPU's bits",
          "[exact][own_bulk_grids_float64]") {
    check_kernel_grids<double, true>();
}

// Seconds of inputs made and summed on the CPU: in a process of its own too.
TEST_CASE(REDUCTION_STEP_TAG ": partials of 1 to 4 pieces, added as integers and rounded once: the CPU's bits",
          "[exact][own_partials]") {
    check_partials<float>();
    check_partials<double>();
}

TEST_CASE(REDUCTION_STEP_TAG ": the float32 shortcut's window: a vector whose sum needs 54 bits", "[exact]") {
    check_window_edge();
}

TEST_CASE(REDUCTION_STEP_TAG ": the one-block float32 sum's window: 32 values whose sum needs 54 bits", "[exact]") {
    check_one_block_window_edge();
}

TEST_CASE(REDUCTION_STEP_TAG ": the float64 split's limits: 8 values whose split would drop a bit", "[exact]") {
    check_float64_split_edges();
}
