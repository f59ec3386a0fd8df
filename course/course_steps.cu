#include "course_steps.h"

#include "course_step_list.h"  // generated from course/steps.csv: the steps' headers and the two lists below

#include <utility>

namespace reduction {

const std::vector<StepApi>& course_steps() {
    static const std::vector<StepApi> steps = {REDUCTION_COURSE_STEP_APIS};
    return steps;
}

const StepOps* step_ops(const StepApi& step) {
    static const std::vector<std::pair<std::string, StepOps>> steps_ops = {REDUCTION_COURSE_STEP_OPS};
    if (&step == &cub_step()) return &cub_ops();
    for (const auto& [name, ops] : steps_ops)
        if (name == step.name) return &ops;
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
