#include "hang_guard.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

namespace reduction::test {
namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double time_scale() {
    const char* text = std::getenv("REDUCTION_TEST_TIME_SCALE");
    if (!text) return 1.0;
    char* end = nullptr;
    const double scale = std::strtod(text, &end);
    return end != text && *end == '\0' && scale > 0 ? scale : 1.0;
}

// The armed guard, shared with the watching thread.
std::mutex armed_mutex;
HangGuard* armed = nullptr;
std::string armed_what;
double armed_seconds = 0, armed_deadline = 0;

// One thread for the whole process, started by the first guard, never joined: it outlives every
// case, and std::_Exit ends it with the process.
void watch() {
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        std::lock_guard<std::mutex> lock(armed_mutex);
        if (armed && now_seconds() > armed_deadline) {
            std::printf("HUNG: %s: waited %.0f s on the GPU without an answer (the bound for this input). The kernel "
                        "never ends: a barrier or wait that some thread never reaches or that is never satisfied, or "
                        "a loop whose index never reaches n. The process ends here, which stops the kernel.\n",
                        armed_what.c_str(), armed_seconds);
            std::fflush(stdout);
            std::_Exit(1);
        }
    }
}

void start_watching() {
    static std::once_flag started;
    std::call_once(started, [] { std::thread(watch).detach(); });
}

}  // namespace

double hang_bound_seconds(std::size_t bytes) { return (5.0 + static_cast<double>(bytes) / 2e9) * time_scale(); }

HangGuard::HangGuard(std::string what, std::size_t bytes)
    : outer_(nullptr), what_(std::move(what)), seconds_(hang_bound_seconds(bytes)), deadline_(now_seconds() + seconds_) {
    start_watching();
    std::lock_guard<std::mutex> lock(armed_mutex);
    outer_ = armed;
    armed = this;
    armed_what = what_;
    armed_seconds = seconds_;
    armed_deadline = deadline_;
}

HangGuard::~HangGuard() {
    std::lock_guard<std::mutex> lock(armed_mutex);
    armed = outer_;
    if (outer_) {
        armed_what = outer_->what_;
        armed_seconds = outer_->seconds_;
        armed_deadline = outer_->deadline_;
    }
}

}  // namespace reduction::test
