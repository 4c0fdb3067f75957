// The GPU target: one worker per GPU of --devices, each variant compiled with NVRTC and checked against the
// reference kernel.
#include <fmt/format.h>

#include "compile/compiler.hpp"
#include "core/error.hpp"
#include "eval/device_query.hpp"
#include "session/tune_target.hpp"
#include "session/worker_setup.hpp"

namespace evotune {
namespace {

class GpuTarget final : public TuneTarget {
 public:
  GpuTarget(DeviceInfo device, std::string nvrtc_version, std::vector<int> ordinals,
            const TuneOptions& options, const SearchSpace& space, const Sizes& sizes)
      : TuneTarget(std::move(device), std::move(nvrtc_version)),
        ordinals_(std::move(ordinals)),
        options_(options),
        space_(space),
        sizes_(sizes) {}

  bool compiles_variants() const override { return true; }

  std::string where() const override { return std::to_string(ordinals_.size()) + " GPU worker(s)"; }

  std::vector<WorkerSetup> worker_setups(VariantCompiler* compiler) const override {
    const CompiledVariant reference = compiler->compile_reference();
    if (reference.result.status != Status::ok)
      throw Error("the reference kernel " + space_.reference().file.string() +
                  " does not compile: " + reference.result.message);
    const auto derived = compiler->compile_derived_inputs();
    if (derived && derived->result.status != Status::ok)
      throw Error("the DerivedInputs kernel " + space_.derived_inputs()->file.string() +
                  " does not compile (an error of the space, not of a variant): " + derived->result.message);
    std::vector<WorkerSetup> setups = gpu_worker_setups(
        ordinals_, space_.buffers(sizes_),
        CompiledKernel{reference.result.cubin, space_.reference_launch(sizes_, device())},
        space_.tolerances(), options_.eval, compiler->include_dirs(),
        extra_problem_setups(space_, sizes_, device()),
        derived_inputs_setup(space_, derived ? derived->result.cubin : "", sizes_, device()));
    // Every worker can time the library baseline (its jobs go to whichever is idle).
    if (const auto baseline = space_.baseline(sizes_))
      for (WorkerSetup& setup : setups) std::get<GpuSetup>(setup).baseline = *baseline;
    return setups;
  }

  std::string describe_ready(double reference_ms) const override {
    return fmt::format("reference kernel: {:.3f} ms per launch", reference_ms);
  }

  std::vector<GpuState> gpu_states() const override {
    std::vector<GpuState> states;
    for (const int ordinal : ordinals_)
      if (auto state = read_gpu_state(ordinal)) states.push_back(std::move(*state));
    return states;
  }

 private:
  std::vector<int> ordinals_;
  const TuneOptions& options_;
  const SearchSpace& space_;
  const Sizes& sizes_;
};

}  // namespace

std::unique_ptr<TuneTarget> gpu_target(const TuneOptions& options, const SearchSpace& space,
                                       const Sizes& sizes) {
  const int count = gpu_count();
  if (count == 0) throw Error("evotune tune needs a GPU: " + no_gpu_reason() + " (or pass --replay FILE)");
  std::vector<int> ordinals = parse_device_list(options.devices, count);
  DeviceInfo device = common_device(ordinals);
  std::string nvrtc_version = Compiler::nvrtc_version();
  return std::make_unique<GpuTarget>(std::move(device), std::move(nvrtc_version), std::move(ordinals),
                                     options, space, sizes);
}

}  // namespace evotune
