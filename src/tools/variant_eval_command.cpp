// The eval command line shared by `evotune sanitize` and `evotune profile`.
#include "tools/variant_eval_command.hpp"

namespace evotune {

std::vector<std::string> variant_eval_command(const VariantEval& variant,
                                              const std::filesystem::path& kernel_file,
                                              const std::vector<std::string>& eval_options) {
  std::vector<std::string> command{variant.evotune,
                                   "eval",
                                   kernel_file.string(),
                                   "--space",
                                   variant.space_file.string(),
                                   "--params",
                                   key_value_text(variant.params),
                                   "--device",
                                   std::to_string(variant.device),
                                   "--seed",
                                   std::to_string(variant.seed)};
  command.insert(command.end(), eval_options.begin(), eval_options.end());
  if (!variant.problem.empty()) command.insert(command.end(), {"--problem", variant.problem});
  return command;
}

}  // namespace evotune
