// A variant's job message and watchdog.
#include "session/variant_job.hpp"

#include "core/hash.hpp"
#include "session/worker_setup.hpp"

namespace evotune {

std::uint64_t validation_seed(std::uint64_t run_seed, const Config& config) {
  return fnv1a64(canonical_json(config), 0x9e3779b97f4a7c15ULL ^ run_seed);
}

PoolJob variant_job(const RunContext& run, std::int64_t ticket, const Config& config,
                    const std::string* cubin, const LaunchLimit& limit) {
  PoolJob job;
  job.message.ticket = ticket;
  job.message.config = config;
  job.message.validation_seed = validation_seed(run.options.seed, config);
  job.message.launch_limit_ms = limit.per_launch_ms;
  job.message.limit_basis = limit.basis;
  if (cubin) {
    job.message.kernel = CompiledKernel{*cubin, run.space.variant_launch(config, run.sizes, run.device)};
    job.message.extra_launches = extra_variant_launches(run.space, config, run.sizes, run.device);
    job.message.deterministic = run.space.deterministic(config, run.sizes, run.device);
  }
  job.deadline_ms = job_deadline_ms(limit, run.options.eval, run.extra_rounds);
  return job;
}

}  // namespace evotune
