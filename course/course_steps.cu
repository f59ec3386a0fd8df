#include "course_steps.h"

#include "step01_interleaved/reduce.cuh"
#include "step02_nondivergent/reduce.cuh"
#include "step03_sequential/reduce.cuh"
#include "step04_first_add/reduce.cuh"
#include "step05_warp_unroll/reduce.cuh"
#include "step06_template/reduce.cuh"
#include "step07_multi_level/reduce.cuh"
#include "step08_warp_shuffle/reduce.cuh"
#include "step09_vector_loads/reduce.cuh"
#include "step10_single_pass/reduce.cuh"
#include "step11_any_operator/reduce.cuh"
#include "step12_small_n/reduce.cuh"

namespace reduction {

const std::vector<StepApi>& course_steps() {
    static const std::vector<StepApi> steps = {
        REDUCTION_STEP_API(step01),
        REDUCTION_STEP_API(step02),
        REDUCTION_STEP_API(step03),
        REDUCTION_STEP_API(step04),
        REDUCTION_STEP_API(step05),
        REDUCTION_STEP_API(step06),
        REDUCTION_STEP_API(step07),
        REDUCTION_STEP_API(step08),
        REDUCTION_STEP_API(step09),
        REDUCTION_STEP_API(step10),
        REDUCTION_STEP_API(step11),
        REDUCTION_STEP_API(step12),
    };
    return steps;
}

const StepOps* step_ops(const StepApi& step) {
    static const StepOps step11_ops = REDUCTION_STEP_OPS(step11);
    static const StepOps step12_ops = REDUCTION_STEP_OPS(step12);
    if (std::string(step.name) == step11::name) return &step11_ops;
    if (std::string(step.name) == step12::name) return &step12_ops;
    if (&step == &cub_step()) return &cub_ops();
    return nullptr;
}

const StepApi* find_step(const std::string& key) {
    if (key == "cub") return &cub_step();
    std::string prefix = key;
    if (prefix.rfind("step", 0) != 0) prefix = "step" + std::string(key.size() == 1 ? "0" : "") + key;
    for (const StepApi& step : course_steps()) {
        const std::string name = step.name;
        if (name == prefix || name.rfind(prefix + "_", 0) == 0) return &step;
    }
    return nullptr;
}

}  // namespace reduction
