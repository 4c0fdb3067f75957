// Renders and compiles variants through the store's compile cache, several compiles in flight at once.
#pragma once

#include <chrono>
#include <deque>
#include <future>
#include <optional>
#include <string>

#include "compile/compile_service.hpp"
#include "compile/compiler.hpp"
#include "core/config.hpp"
#include "core/outcome.hpp"
#include "gen/kernel_source.hpp"
#include "space/search_space.hpp"
#include "store/store.hpp"

namespace evotune {

struct CompiledVariant {
  Config config;
  KernelSource source;
  CompileResult result;                    // result.info.from_cache tells where it came from
  std::optional<std::int64_t> compile_id;  // row in the compile cache, when a store is attached
};

// Submit configs; take_first_ready() hands each back as soon as its compile has finished, the oldest of the
// finished ones first, so that one slow compile never keeps the others' results (and the compilers that would
// take the next configs) waiting behind it. Cache look-ups and writes happen on the calling thread (the store
// is not shared between threads); NVRTC runs on workers.
class VariantCompiler {
 public:
  // `store` may be null (compile-only checks without a database).
  VariantCompiler(const SearchSpace& space, Sizes sizes, std::string arch, const Compiler& compiler,
                  CompileService& service, Store* store);

  // The reference kernel, compiled (or read from the cache) now.
  CompiledVariant compile_reference();
  // The space's DerivedInputs kernel, the same way; nullopt for a space without one.
  std::optional<CompiledVariant> compile_derived_inputs();
  void submit(const Config& config);
  // The oldest variant whose compile has finished, waiting at most `wait` for one to finish; nullopt when
  // none has by then (or nothing is pending).
  std::optional<CompiledVariant> take_first_ready(
      std::chrono::milliseconds wait = std::chrono::milliseconds(0));
  // As above, waiting as long as it takes; nullopt only when nothing is pending.
  std::optional<CompiledVariant> take_first_ready_blocking();
  std::size_t pending() const { return queue_.size(); }
  // The CUDA header folders the compiler uses (GPU workers compile their builtin kernels with them).
  const std::vector<std::string>& include_dirs() const { return compiler_.include_dirs(); }

 private:
  struct Pending {
    CompiledVariant variant;
    CompileKey key;
    std::future<CompileResult> compile;  // invalid when the cache answered
  };
  Pending start(Config config, KernelSource source, const std::string& kernel_name);
  CompiledVariant finish(Pending pending);
  std::optional<CompiledVariant> take_ready_now();

  const SearchSpace& space_;
  Sizes sizes_;
  std::string arch_;
  const Compiler& compiler_;
  CompileService& service_;
  Store* store_;
  std::deque<Pending> queue_;
};

}  // namespace evotune
