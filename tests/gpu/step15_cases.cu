// Every GPU case of step 15 in one process per launch form: the team (GPUs, streams, NCCL
// communicators) is made once per K and each case is one run of the step's own harness on it
// (run_typed, as the program's main() does), with the step's command line. What only a fresh
// process shows (bad command lines, more ranks than GPUs) stays in step15_multi_gpu.sh.
//
//   step15_cases --list                 the cases, one per line (tests/gpu/step15_cases.txt holds them)
//   step15_cases --gpus K[,K2 ...]      one process driving K GPUs, then K2 ...: every case for each K
//   mpirun -np K step15_cases           one MPI rank per GPU: every case for K
//
// Each case prints "ok" or "FAIL" with its name; a failure also prints the run's report and
// message. A float sum's case on an input file of hard values also compares the total's bits with the
// CPU's exact sum rounded once (common/exact_sum.h): the same bits for every K. A case that waits on the GPU past its bound (hang_guard.h) ends the program, named.
// Exit 0 when every case passed, 1 otherwise, 77 (Skipped) without a GPU or with fewer GPUs than asked.
#include STEP15_HEADER

#include "exact_sum.h"
#include "hang_guard.h"
#include "input.h"
#include "run_multi_gpu.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <unistd.h>

namespace {

using namespace reduction;
using namespace reduction::multi_gpu;

constexpr int skipped = 77;

struct Case {
    std::string name;
    std::vector<std::string> args;  // the step's command line, after the program name
    std::string exact_file;         // a float sum's input file: the total must be its exact sum's bits
};

// The cases of one K; `data` is the folder of the input files (files()). Every case is small:
// 3 timed calls after 1 warm-up, as a test needs, not a measurement.
std::vector<Case> cases_for(int k, const std::string& data) {
    const std::string K = "K=" + std::to_string(k) + " ";
    std::vector<Case> cases;
    const auto add = [&](std::string name, std::vector<std::string> args) {
        for (const char* timing : {"--iters", "3", "--warmup", "1"}) args.emplace_back(timing);
        cases.push_back({K + name, std::move(args), ""});
    };
    for (const char* type : {"int32", "float32", "float64"}) {
        for (const char* op : {"sum", "max", "min"}) {
            const std::string t = type, o = op;
            add(t + " " + o + " n=1 (one shard, " + std::to_string(k - 1) + " empty)",
                {"--type", t, "--op", o, "--n", "1"});
            add(t + " " + o + " n=2^20+3 (unequal shards)", {"--type", t, "--op", o, "--n", "1048579"});
        }
    }
    const std::string last_empty = std::to_string(k - 1 > 0 ? k - 1 : 1);
    add("int32 n=" + last_empty + " (n < K: the last shard empty)", {"--n", last_empty});
    add("int32 n=2^24+1, alternating", {"--n", "16777217", "--pattern", "alternating"});
    // Long enough (hundreds of microseconds) that an all-reduce not ordered after the reduction (another
    // stream) reads the partial before the last block writes it.
    add("int32 n=2^28+1 (a long reduction: the all-reduce must wait for it)", {"--n", "268435457"});
    add("int32 --from-one-gpu n=2^24+1", {"--from-one-gpu", "--n", "16777217"});
    add("float32 --from-one-gpu n=1000003", {"--from-one-gpu", "--type", "float32", "--n", "1000003"});
    add("float64 --csv n=1000003", {"--type", "float64", "--n", "1000003", "--csv"});
    add("float32 --json n=1000003", {"--type", "float32", "--n", "1000003", "--json"});
    add("int32 --input (1000003 random values)", {"--input", data + "/random_int32.bin"});
    for (const char* where : {"first", "last"})
        for (const char* op : {"max", "min"})
            add(std::string("float32 ") + op + ", NaN " + where + " (an input file)",
                {"--type", "float32", "--op", op, "--input", data + "/nan_" + where + ".bin"});
    for (const char* type : {"float32", "float64"}) {
        const std::string file = data + "/hard_" + type + ".bin";
        add(std::string(type) + " sum, exact bits: cancelling huge values, subnormals, every binade (an input file)",
            {"--type", type, "--input", file, "--json"});
        cases.back().exact_file = file;
    }
    const std::pair<const char*, const char*> specials[] = {{"signed_zeros", "-0 everywhere, one +0 last"},
                                                            {"infinities", "-inf first, +inf last"}};
    for (const auto& special : specials) {
        const std::string file = data + "/" + special.first + "_float32.bin";
        add(std::string("float32 sum, exact bits: ") + special.second + " (an input file)",
            {"--type", "float32", "--input", file, "--json"});
        cases.back().exact_file = file;
    }
    return cases;
}

// 1000003 values whose float sum loses most of its bits unless it is exact: huge values that cancel
// (2^(max_exponent - 4), then its negative), the smallest subnormal, and random values of every
// binade from the subnormals to 2^20. Rounded sums of any split differ in their last bits.
template <class T>
std::vector<T> hard_values() {
    using L = std::numeric_limits<T>;
    std::mt19937_64 random(2024);
    std::uniform_int_distribution<int> exponent(L::min_exponent - L::digits, 20);
    std::uniform_real_distribution<T> significand(1, 2);
    const T huge = std::ldexp(T(1), L::max_exponent - 4);
    std::vector<T> values(1000003);
    for (std::size_t i = 0; i < values.size(); ++i) {
        const T value = std::ldexp(significand(random), exponent(random));
        values[i] = i % 4 == 0 ? huge : i % 4 == 1 ? -huge : i % 4 == 2 ? L::denorm_min() : random() % 2 ? -value : value;
    }
    return values;
}

// The bits of a float sum's case against the exact sum of its input file: the total comes from the
// run's JSON report ("result", printed with max_digits10 digits: it reads back to the same value).
template <class T>
bool exact_bits_match(const std::string& report, const std::string& file, std::string& why) {
    const std::vector<T> values = reduction::read_input_file<T>(file);  // the harness's reader, as --input uses
    const T expected = reduction::exact_sum(values.data(), values.size());
    const std::string key = "\"result\": \"";
    const std::size_t at = report.find(key);
    if (at == std::string::npos) {
        why = "the report has no result";
        return false;
    }
    const std::string text = report.substr(at + key.size(), report.find('"', at + key.size()) - at - key.size());
    T got;  // read back as T directly: through a double, a float could round twice
    if constexpr (sizeof(T) == 4) got = std::strtof(text.c_str(), nullptr);
    else got = std::strtod(text.c_str(), nullptr);
    char wanted[64];
    std::snprintf(wanted, sizeof wanted, "%.*g", std::numeric_limits<T>::max_digits10, static_cast<double>(expected));
    why = "total " + text + ", exact sum rounded once " + wanted;
    return std::memcmp(&got, &expected, sizeof(T)) == 0;
}

// The input files, written by the leading rank: 1000003 random int32 values; five float32 values
// with a NaN first, then last (max and min skip it: 2 and -1, on every split over the shards).
void write_files(const std::string& data) {
    std::mt19937 random(12345);
    std::vector<std::int32_t> values(1000003);
    for (auto& v : values) v = static_cast<std::int32_t>(random());
    std::ofstream(data + "/random_int32.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> first{nan, 0.5f, 2.0f, -1.0f, 0.25f}, last{0.5f, 2.0f, -1.0f, 0.25f, nan};
    std::ofstream(data + "/nan_first.bin", std::ios::binary).write(reinterpret_cast<const char*>(first.data()), 20);
    std::ofstream(data + "/nan_last.bin", std::ios::binary).write(reinterpret_cast<const char*>(last.data()), 20);
    const std::vector<float> hard32 = hard_values<float>();
    const std::vector<double> hard64 = hard_values<double>();
    std::ofstream(data + "/hard_float32.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(hard32.data()), static_cast<std::streamsize>(hard32.size() * sizeof(float)));
    std::ofstream(data + "/hard_float64.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(hard64.data()), static_cast<std::streamsize>(hard64.size() * sizeof(double)));
    // 1001 values: every GPU's special inputs must reach the others (a +0 in the last shard makes the sum
    // +0; -inf in the first and +inf in the last make it NaN)
    std::vector<float> zeros(1001, -0.0f), infinities(1001, 1.0f);
    zeros.back() = 0.0f;
    infinities.front() = -std::numeric_limits<float>::infinity();
    infinities.back() = std::numeric_limits<float>::infinity();
    std::ofstream(data + "/signed_zeros_float32.bin", std::ios::binary).write(reinterpret_cast<const char*>(zeros.data()), 4004);
    std::ofstream(data + "/infinities_float32.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(infinities.data()), 4004);
}

// One case on the team: the step's run, its report captured (printed only if the case fails).
int run_case(Team& team, const Case& c, std::string& report) {
    std::vector<std::string> words{"step15_multi_gpu"};
    words.insert(words.end(), c.args.begin(), c.args.end());
    std::vector<const char*> argv;
    for (const std::string& w : words) argv.push_back(w.c_str());
    const int argc = static_cast<int>(argv.size());
    std::ostringstream captured;
    std::streambuf* const printed = std::cout.rdbuf(captured.rdbuf());
    const int code = run_guarded([&] {
        Options options = parse_options(argc, argv.data(), Tool::multi_gpu);
        draw_seed(options.input);  // only the leading rank's input is made: the others receive their shards
        // Every case's input is at most 2^24+1 int32 and its run takes milliseconds; NCCL connects the GPUs on
        // their first exchange, which can take seconds: the bound of 10 GB of input (10 s) covers both.
        const test::HangGuard guard(c.name, std::size_t{10} << 30);
        return dispatch_type(options.type, [&](auto zero) {
            return run_typed<step15::Entry, decltype(zero)>(team, options, argc, argv.data());
        });
    });
    std::cout.rdbuf(printed);
    report = captured.str();
    return code;
}

// Every case for one team; the number that failed.
int run_all(Team& team, const std::string& data) {
    int failed = 0, ran = 0;
    const std::vector<Case> cases = cases_for(team.size(), data);
    for (const Case& c : cases) {
        std::string report;
        const int code = run_case(team, c, report);
        ++ran;
        if (!team.leads()) continue;
        std::string why;
        if (code == exit_ok && !c.exact_file.empty() &&
            !(c.exact_file.find("float64") != std::string::npos ? exact_bits_match<double>(report, c.exact_file, why)
                                                                 : exact_bits_match<float>(report, c.exact_file, why))) {
            ++failed;
            std::printf("FAIL  %s: not the exact sum's bits: %s\n%s", c.name.c_str(), why.c_str(), report.c_str());
        } else if (code == exit_ok) {
            std::printf("ok    %s\n", c.name.c_str());
        } else {
            ++failed;
            std::printf("FAIL  %s: exit %d (0 expected)\n%s", c.name.c_str(), code, report.c_str());
        }
        std::fflush(stdout);
        if (code != exit_ok && code != exit_wrong_result) break;  // a CUDA or NCCL error: the team may be broken
    }
    if (team.leads()) std::printf("%d of %zu case(s) run for K=%d, %d failed\n", ran, cases.size(), team.size(), failed);
    return failed + (ran == static_cast<int>(cases.size()) ? 0 : 1);
}

// A folder for the input files, made by the leading rank and named to every rank.
std::string data_folder(Team& team) {
    char path[256] = {};
    if (team.leads()) {
        std::snprintf(path, sizeof path, "%s/step15_cases_XXXXXX", std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(path)) throw EnvironmentError(std::string("cannot make a folder for the input files: ") + path);
        write_files(path);
    }
    team.broadcast_from_leader(path, sizeof path);
    return path;
}

void remove_folder(Team& team, const std::string& data) {
    team.all_ranks(true);  // every rank is done reading
    if (!team.leads()) return;
    for (const char* file : {"random_int32.bin", "nan_first.bin", "nan_last.bin", "hard_float32.bin", "hard_float64.bin",
                             "signed_zeros_float32.bin", "infinities_float32.bin"})
        std::remove((data + "/" + file).c_str());
    rmdir(data.c_str());
}

int main_guarded(int argc, char** argv) {
    std::vector<int> ks;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--list") {
            for (int k : {1, 2, 4})
                for (const Case& c : cases_for(k, "DATA")) std::printf("%s\n", c.name.c_str());
            return 0;
        }
        if (arg == "--gpus" && i + 1 < argc) {
            std::stringstream list(argv[++i]);
            for (std::string k; std::getline(list, k, ',');) ks.push_back(std::atoi(k.c_str()));
            continue;
        }
        std::fprintf(stderr, "usage: %s --list | --gpus K[,K ...] | (under mpirun, no option)\n", argv[0]);
        return exit_bad_input;
    }
#if defined(REDUCTION_WITH_MPI)
    if (launched_by_mpi()) {
        MPI_Init(&argc, &argv);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int failed = 0;
        const int code = run_guarded([&] {
            std::unique_ptr<Team> team = Team::from_mpi();
            const std::string data = data_folder(*team);
            failed = run_all(*team, data);
            remove_folder(*team, data);
            return static_cast<int>(exit_ok);
        });
        if (code != exit_ok) MPI_Abort(MPI_COMM_WORLD, code);
        MPI_Finalize();
        return failed ? 1 : 0;
    }
#endif
    if (ks.empty()) {
        std::fprintf(stderr, "%s: --gpus K[,K ...] is needed outside mpirun\n", argv[0]);
        return exit_bad_input;
    }
    int failed = 0;
    const int code = run_guarded([&] {
        const int present = visible_gpus();
        for (int k : ks) {
            if (k < 1 || k > present) {
                std::printf("SKIPPED: K=%d needs %d GPUs; this machine has %d\n", k, k, present);
                return skipped;
            }
        }
        for (int k : ks) {
            std::unique_ptr<Team> team = Team::local(k);
            const std::string data = data_folder(*team);
            failed += run_all(*team, data);
            remove_folder(*team, data);
        }
        return static_cast<int>(exit_ok);
    });
    if (code == exit_no_gpu) {
        std::printf("SKIPPED: no usable GPU\n");
        return skipped;
    }
    return code != exit_ok ? code : failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) { return main_guarded(argc, argv); }
