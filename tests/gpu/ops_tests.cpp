// A step with --op (step11_any_operator on), with Max and Min: the same tree, another operator. A maximum or minimum
// never rounds, so the result must equal std::max_element / std::min_element exactly, for every
// size, block size, type and misalignment of the input, with infinities among the values, and the
// same on a second call that reuses the scratch (the slots must have been emptied).
// Failures print the seed; REDUCTION_TEST_SEED=<seed> replays them.
#include "../catch.h"
#include "../each_type.h"
#include "gpu_test_support.h"

#include "step_under_test.h"

#include "device_buffer.h"
#include "input.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

namespace {

using namespace reduction;

const std::size_t sizes[] = {1,    2,    3,    15,    17,     31,      33,    255,
                             257,  1000, 1025, 4097,  65537,  1000003, (std::size_t{1} << 24) + 1};
const int blocks[] = {32, 64, 128, 256, 512, 1024};
const std::size_t offsets[] = {0, 1, 2, 3};  // elements past a 256-byte aligned allocation
constexpr std::size_t guard_elements = 64;     // poison after the input

// Bytes that make a value past n (or before the input) win: 0x7F... is a huge positive int32,
// float or double, 0xFE... a hugely negative one. A kernel that reads outside [0, n) fails.
int poison_byte(OpKind op) { return op == OpKind::max ? 0x7F : 0xFE; }

template <class T>
T host_expected(OpKind op, const std::vector<T>& values) {
    return op == OpKind::max ? *std::max_element(values.begin(), values.end())
                             : *std::min_element(values.begin(), values.end());
}

template <class T>
bool same_value(T a, T b) {
    return a == b;  // max and min pick one of the inputs: exact equality, infinities included
}

// One input uploaded at `offset` elements into a poisoned buffer; runs the operator twice on one
// scratch and returns both results.
template <class T>
class OpRunner {
public:
    OpRunner(std::size_t capacity) : input_(capacity + 4 + guard_elements) {}

    void upload(const std::vector<T>& values, std::size_t offset, OpKind op) {
        CUDA_CHECK(cudaMemset(input_.get(), poison_byte(op), input_.bytes()));
        CUDA_CHECK(cudaMemcpy(input_.get() + offset, values.data(), values.size() * sizeof(T), cudaMemcpyHostToDevice));
        offset_ = offset;
        n_ = values.size();
    }

    // Twice on one scratch, through the harness's StepRun: the second call finds the slots the first
    // left behind, which must be zero again.
    std::pair<T, T> run_twice(OpKind op, int block) {
        const std::string what = std::string(test::step_ops_under_test().for_op(op).name) + " " + op_name(op) + " " +
                                 type_name(element_type_of<T>()) + " n=" + std::to_string(n_) + " block=" +
                                 std::to_string(block) + " input offset=" + std::to_string(offset_);
        const auto runs = test::run_twice(test::step_ops_under_test().for_op(op), input_.get() + offset_, n_, block, what);
        return {runs.first, runs.second};
    }

private:
    DeviceBuffer<T> input_;
    std::size_t offset_ = 0;
    std::size_t n_ = 0;
};

template <class T>
std::string describe(OpKind op, std::size_t n, int block, std::size_t offset, const char* input, std::uint64_t seed,
                     T got, T again, T expected) {
    std::ostringstream out;
    out.precision(std::numeric_limits<T>::max_digits10);
    out << REDUCTION_STEP_TAG << " " << op_name(op) << " " << type_name(element_type_of<T>()) << " n=" << n << " block=" << block
        << " offset=" << offset << " input=" << input << " seed=" << seed << ": got " << +got << ", then " << +again
        << ", expected " << +expected;
    return out.str();
}

// Every size, block size and offset, for both operators, on random values.
template <class T>
void check_ops_matrix(std::uint64_t seed) {
    OpRunner<T> runner(sizes[std::size(sizes) - 1]);
    int checked = 0, failed = 0;
    for (std::size_t n : sizes) {
        const std::vector<T> values = generate_input<T>(n, Pattern::random, seed + n);
        for (OpKind op : {OpKind::max, OpKind::min}) {
            const T expected = host_expected(op, values);
            for (std::size_t offset : offsets) {
                runner.upload(values, offset, op);
                for (int block : blocks) {
                    const auto [got, again] = runner.run_twice(op, block);
                    ++checked;
                    if (!same_value(got, expected) || !same_value(again, expected)) {
                        ++failed;
                        FAIL_CHECK(describe<T>(op, n, block, offset, "random", seed + n, got, again, expected));
                    }
                }
            }
        }
    }
    INFO(type_name(element_type_of<T>()) << ": " << failed << " of " << checked << " cases failed");
    CHECK(failed == 0);
    CHECK(checked == int(std::size(sizes) * 2 * std::size(offsets) * std::size(blocks)));
}

// Infinities: one +inf and one -inf among random values decide max and min; and an input of only
// -inf (for max) or only +inf (for min) must give that infinity, not the operator's identity.
template <class T>
void check_infinities(std::uint64_t seed) {
    const T inf = std::numeric_limits<T>::infinity();
    const std::size_t n = 1000003;
    OpRunner<T> runner(n);
    int failed = 0;
    for (int block : {32, 256, 1024}) {
        std::vector<T> values = generate_input<T>(n, Pattern::random, seed);
        const std::size_t plus_at = seed % n;
        std::size_t minus_at = (seed / 7 + n / 2) % n;
        if (minus_at == plus_at) minus_at = (minus_at + 1) % n;  // both must stay in the input
        values[plus_at] = inf;
        values[minus_at] = -inf;
        for (OpKind op : {OpKind::max, OpKind::min}) {
            for (std::size_t offset : offsets) {
                runner.upload(values, offset, op);
                const auto [got, again] = runner.run_twice(op, block);
                const T expected = op == OpKind::max ? inf : -inf;
                if (!same_value(got, expected) || !same_value(again, expected)) {
                    ++failed;
                    FAIL_CHECK(describe<T>(op, n, block, offset, "random with +inf and -inf", seed, got, again, expected));
                }
            }
        }
        for (OpKind op : {OpKind::max, OpKind::min}) {
            const T only = op == OpKind::max ? -inf : inf;  // the value the identity must lose to
            for (std::size_t count : {std::size_t{1}, std::size_t{33}, n}) {
                const std::vector<T> same(count, only);
                runner.upload(same, 1, op);
                const auto [got, again] = runner.run_twice(op, block);
                if (!same_value(got, only) || !same_value(again, only)) {
                    ++failed;
                    FAIL_CHECK(describe<T>(op, count, block, 1, op == OpKind::max ? "all -inf" : "all +inf", seed, got,
                                           again, only));
                }
            }
        }
    }
    CHECK(failed == 0);
}

// The expected max or min with NaNs skipped, as the reference and the kernels' `b > a ? b : a`
// do (an input only ever arrives as the operator's second operand, so a NaN never wins); the
// operator's identity when every value is NaN.
template <class T>
T expected_skipping_nan(OpKind op, const std::vector<T>& values) {
    T best = op == OpKind::max ? Max::identity<T>() : Min::identity<T>();
    for (T v : values) {
        if (std::isnan(v)) continue;
        if (op == OpKind::max ? v > best : v < best) best = v;
    }
    return best;
}

// NaN at the head, in the middle and at the tail, alone and all three, in one tile (at most 4,096
// elements: one block, one pass) and in many; every value NaN; and +0 and -0 deciding the result.
// max over {+0, -0} may return either zero (whichever arrives first): they compare equal, and so
// they pass here.
template <class T>
void check_nans(std::uint64_t seed) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    OpRunner<T> runner(1000003);
    int failed = 0, checked = 0;
    const auto check = [&](OpKind op, const std::vector<T>& values, const char* what, std::size_t offset, int block) {
        runner.upload(values, offset, op);
        const auto [got, again] = runner.run_twice(op, block);
        const T expected = expected_skipping_nan(op, values);
        ++checked;
        if (!same_value(got, expected) || !same_value(again, expected)) {  // a NaN result never equals
            ++failed;
            FAIL_CHECK(describe<T>(op, values.size(), block, offset, what, seed, got, again, expected) +
                       ". A NaN must lose: an input may only be the operator's second operand, b > a ? b : a.");
        }
    };
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{33}, std::size_t{4096},
                          std::size_t{4097}, std::size_t{1000003}}) {
        const std::vector<T> random = generate_input<T>(n, Pattern::random, seed + n);
        const std::size_t places[] = {0, n / 2, n - 1};
        for (OpKind op : {OpKind::max, OpKind::min}) {
            for (int block : {32, 256, 1024}) {
                for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
                    for (std::size_t at : places) {
                        std::vector<T> values = random;
                        values[at] = nan;
                        check(op, values, at == 0 ? "random, NaN first" : at == n - 1 ? "random, NaN last" : "random, NaN in the middle",
                              offset, block);
                    }
                    std::vector<T> values = random;
                    for (std::size_t at : places) values[at] = nan;
                    check(op, values, "random, NaN first, in the middle and last", offset, block);
                    check(op, std::vector<T>(n, nan), "every value NaN", offset, block);
                    // zeros of both signs deciding: every other value below them (max) or above (min)
                    std::vector<T> zeros(n);
                    for (std::size_t i = 0; i < n; ++i) zeros[i] = (op == OpKind::max ? -1 : 1) * (std::abs(random[i]) + 1);
                    zeros[places[0]] = T(0);
                    zeros[places[2]] = -T(0);
                    check(op, zeros, "+0 and -0 decide", offset, block);
                }
            }
        }
    }
    INFO(type_name(element_type_of<T>()) << ": " << failed << " of " << checked << " NaN and zero cases failed");
    CHECK(failed == 0);
}

}  // namespace

REDUCTION_SEEDED_TEST_CASE("max and min equal std::max_element and std::min_element", "[gpu][ops]", test::for_each_type,
                           check_ops_matrix)

REDUCTION_SEEDED_TEST_CASE("max and min with +inf and -inf inputs", "[gpu][ops]", test::for_each_float_type,
                           check_infinities)

REDUCTION_SEEDED_TEST_CASE("max and min skip NaN wherever it is; +0 and -0", "[gpu][ops]", test::for_each_float_type,
                           check_nans)
