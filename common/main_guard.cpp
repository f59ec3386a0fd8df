#include "main_guard.h"

#include "cuda_check.h"
#include "errors.h"
#include "exit_codes.h"

#include <iostream>
#include <new>

namespace reduction {

int run_guarded(const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return exit_bad_input;
    } catch (const EnvironmentError& e) {
        std::cerr << "error: " << e.what() << "\n";
        return exit_no_gpu;
    } catch (const CudaError& e) {
        std::cerr << "CUDA error: " << e.what() << "\n";
        return exit_no_gpu;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: not enough host memory for the input and its reference; try a smaller --n\n";
        return exit_no_gpu;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return exit_no_gpu;
    }
}

}  // namespace reduction
