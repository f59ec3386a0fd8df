// A GPU test that waits on a kernel gives up after a bound that follows from the input size, and
// says which case hung, instead of waiting for CTest's limit (minutes). A kernel that never ends
// (a barrier some threads never reach, an mbarrier phase that never completes, a flag never
// posted, a 32-bit index that wraps before n) cannot be stopped from the host: the guard prints
// the case and ends the process (exit 1, a failure), which frees the GPU.
//
//   {
//       test::HangGuard guard(describe<T>(c), n * sizeof(T));
//       ... launch, then wait for the result ...
//   }   // disarmed here
#pragma once

#include <cstddef>
#include <string>

namespace reduction::test {

// Seconds a case over `bytes` of input may wait on the GPU: 5 s, plus 1 s per 2 GB (a reduction
// reads 2 GB in under a millisecond on any GPU the course runs on), times
// REDUCTION_TEST_TIME_SCALE (default 1; sanitize.sh sets it: compute-sanitizer slows kernels down).
// A call that takes milliseconds and one that never ends are far apart: the bound is generous.
double hang_bound_seconds(std::size_t bytes);

class HangGuard {
public:
    HangGuard(std::string what, std::size_t bytes);
    ~HangGuard();  // disarms, and re-arms the guard it was nested in
    HangGuard(const HangGuard&) = delete;
    HangGuard& operator=(const HangGuard&) = delete;

private:
    HangGuard* outer_;
    std::string what_;
    double seconds_;
    double deadline_;  // steady-clock seconds
};

}  // namespace reduction::test
