// The course's steps in order (course/steps.csv) as StepApi (course/README.md); CUB in course_cub.cu, the read
// probe in course_probe.cu. Each step's entry is compiled in a file of its own, written by course/CMakeLists.txt,
// so that the steps compile side by side.
#include "course_steps.h"
#include "course_step_list.h"  // generated from course/steps.csv: each step's entry functions and the two lists below
#include <string>
#include <utility>

namespace reduction {
const std::vector<StepApi>& course_steps() {
    static const std::vector<StepApi> steps = {REDUCTION_COURSE_STEP_APIS};
    return steps;
}

const StepOps* step_ops(const StepApi& step) {
    static const std::vector<StepOps> steps_ops = {REDUCTION_COURSE_STEP_OPS};
    if (&step == &cub_step()) return &cub_ops();
    for (const StepOps& ops : steps_ops)
        if (std::string(ops.sum.name) == step.name) return &ops;
    return nullptr;
}

const StepApi* find_step(const std::string& key) {
    for (const StepApi* other : {&cub_step(), cub_gpu_to_gpu_step(), &read_probe_step(), &read_probe_bulk_step()})
        if (other && key == other->name) return other;
    std::string prefix = key;
    if (prefix.rfind("step", 0) != 0) prefix = "step" + std::string(key.size() == 1 ? "0" : "") + key;
    for (const StepApi& step : course_steps())
        if (const std::string name = step.name; name == prefix || name.rfind(prefix + "_", 0) == 0) return &step;
    return nullptr;
}
}  // namespace reduction
