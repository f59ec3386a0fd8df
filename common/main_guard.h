// The one place where failures become messages and exit codes, for every executable.
#pragma once

#include <functional>

namespace reduction {

// Runs body() and returns its exit code; an exception becomes one line on stderr and:
// UsageError -> 2, EnvironmentError / CudaError / out of host memory -> 3, anything else -> 3.
int run_guarded(const std::function<int()>& body);

}  // namespace reduction
