// write_output_file: one place that checks the open, the write and the close.
#include "cli/output_file.hpp"

#include <fstream>

#include "core/error.hpp"

namespace evotune::cli {

void write_output_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  if (!out) throw Error("cannot write " + file.string());
  out << text;
  out.close();
  if (!out) throw Error("cannot write " + file.string());
}

}  // namespace evotune::cli
