// `evotune convert T1.json -o space.json`: writes the evotune space a T1 file (or a space that extends
// another) is read as, for editing or reading.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "core/error.hpp"
#include "space/search_space.hpp"
#include "space/space_extends.hpp"
#include "space/space_file.hpp"
#include "space/t1_space.hpp"

namespace evotune::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
};

void run(const ConvertOptions& options) {
  const SearchSpace space = SearchSpace::load(options.input);  // the whole check, the conversion included
  const auto text = read_text_file(options.input);
  const auto given = nlohmann::ordered_json::parse(text ? *text : std::string(), nullptr, false);
  if (!is_t1_document(given) && !extends_another(given))
    throw Error(
        options.input +
        ": already an evotune space file of its own (it has a top-level Name and no Extends), not a T1 "
        "file");
  auto document = nlohmann::ordered_json::parse(space.json_text());
  // Relative file paths resolve against the space file's folder: the output's, from now on. Each kernel file
  // is where the reader found it.
  const auto folder = std::filesystem::absolute(options.output).parent_path();
  const std::pair<const char*, const KernelDecl*> kernels[] = {{"KernelSpecification", &space.kernel()},
                                                               {"Reference", &space.reference()},
                                                               {"DerivedInputs", space.derived_inputs()}};
  for (const auto& [section, kernel] : kernels)
    if (kernel && document.contains(section) && document[section].contains("KernelFile"))
      document[section]["KernelFile"] =
          std::filesystem::absolute(kernel->file).lexically_relative(folder).generic_string();
  write_output_file(options.output, document.dump(2) + "\n");
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "convert", "Write the evotune space a T1 tuning file (or a space that Extends another) is read as");
  auto options = std::make_shared<ConvertOptions>();
  command->add_option("file", options->input, "T1 JSON file (BAT, Kernel Tuner), or a space with Extends")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-o,--output", options->output, "The evotune space file to write")->required();
  command->callback([options] { run(*options); });
}

}  // namespace evotune::cli
