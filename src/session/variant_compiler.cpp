// Compile-ahead: the GPU evaluates one variant while NVRTC compiles the next ones on other cores.
#include "session/variant_compiler.hpp"

#include <thread>

namespace evotune {

VariantCompiler::VariantCompiler(const SearchSpace& space, Sizes sizes, std::string arch,
                                 const Compiler& compiler, CompileService& service, Store* store)
    : space_(space),
      sizes_(std::move(sizes)),
      arch_(std::move(arch)),
      compiler_(compiler),
      service_(service),
      store_(store) {}

VariantCompiler::Pending VariantCompiler::start(Config config, KernelSource source,
                                                const std::string& kernel_name) {
  Pending pending;
  CompileRequest request{source.text, source.file_name, kernel_name, arch_, space_.compiler_options()};
  pending.key = CompileKey{source.hash, arch_, Compiler::nvrtc_version(), compiler_.options_key(request)};
  pending.variant.config = std::move(config);
  pending.variant.source = std::move(source);
  if (store_) {
    if (auto cached = store_->find_compile(pending.key)) {
      pending.variant.result =
          CompileResult{cached->status, cached->message, cached->info, std::move(cached->cubin)};
      pending.variant.result.info.from_cache = true;
      pending.variant.compile_id = cached->id;
      return pending;
    }
  }
  pending.compile = service_.submit(std::move(request));
  return pending;
}

CompiledVariant VariantCompiler::finish(Pending pending) {
  if (pending.compile.valid()) {
    pending.variant.result = pending.compile.get();
    if (store_) {
      const auto& result = pending.variant.result;
      pending.variant.compile_id =
          store_->put_compile(pending.key, result.status, result.message, result.info, result.cubin);
    }
  }
  return std::move(pending.variant);
}

CompiledVariant VariantCompiler::compile_reference() {
  const auto& reference = space_.reference();
  KernelSource source = render_source(space_.reference_source(), reference.file.filename().string(),
                                      space_.reference_constants(sizes_), true, reference.file.parent_path());
  return finish(start({}, std::move(source), reference.name));
}

std::optional<CompiledVariant> VariantCompiler::compile_derived_inputs() {
  const KernelDecl* derived = space_.derived_inputs();
  if (!derived) return std::nullopt;
  KernelSource source =
      render_source(space_.derived_inputs_source(), derived->file.filename().string(),
                    space_.derived_inputs_constants(sizes_), true, derived->file.parent_path());
  return finish(start({}, std::move(source), derived->name));
}

void VariantCompiler::submit(const Config& config) {
  KernelSource source =
      render_source(space_.template_source(), space_.kernel().file.filename().string(),
                    space_.compile_time_constants(config, sizes_), true, space_.kernel().file.parent_path());
  // A variant of several launches reports its worst kernel: the largest of each figure over the module's.
  queue_.push_back(
      start(config, std::move(source), space_.launches().size() > 1 ? "" : space_.kernel().name));
}

std::optional<CompiledVariant> VariantCompiler::take_ready_now() {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (it->compile.valid() && it->compile.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      continue;
    Pending pending = std::move(*it);
    queue_.erase(it);
    return finish(std::move(pending));
  }
  return std::nullopt;
}

std::optional<CompiledVariant> VariantCompiler::take_first_ready(std::chrono::milliseconds wait) {
  // std::future has no wait-for-any: poll the pending compiles every millisecond until `wait` has passed.
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    if (queue_.empty()) return std::nullopt;
    if (auto variant = take_ready_now()) return variant;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::optional<CompiledVariant> VariantCompiler::take_first_ready_blocking() {
  for (;;) {
    if (queue_.empty()) return std::nullopt;
    if (auto variant = take_first_ready(std::chrono::milliseconds(100))) return variant;
  }
}

}  // namespace evotune
