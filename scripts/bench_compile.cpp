// Compile-time harness (scripts/bench_compile.sh builds and runs it): one process compiles a template's
// variants with NVRTC, in a source layout with options, or alternating between two such setups variant by
// variant, so that both meet the same machine load; it prints medians of wall time, of this process's CPU
// time and of NVRTC's phases (--time), and for two setups the median of the per-variant CPU differences.
//
//   bench_compile TEMPLATE DEFINES_FILE [WARMUP+]COUNT SETUP [--vs SETUP] [-- BASE OPTION...]
//   SETUP: LAYOUT [NVRTC OPTION...]; BASE OPTIONs go to NVRTC in every setup.
//
// DEFINES_FILE: one variant a line, "NAME=VALUE NAME=VALUE ..."; COUNT variants are compiled, cycling through
// the file. WARMUP compiles of the first setup come first and are not reported (a long-lived compiler
// process); then the file $BENCH_READY, when set, is created, so that a script can start a fresh process to
// compare with in the same moment. LAYOUT, where PREFIX is the template's leading comment and #include lines:
//   defines          the #define lines, #line 1, the template (evotune before the hoisted layout)
//   hoisted          PREFIX, ";" (the end of what NVRTC precompiles), the #define lines, #line, the rest
//   hoisted-noline   the same without #line
#include <nvrtc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

double cpu_ms() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "A=1 B=2" -> "#define A 1\n#define B 2\n"
std::string define_lines(const std::string& line) {
  std::istringstream words(line);
  std::string out;
  for (std::string word; words >> word;) {
    const auto eq = word.find('=');
    out += "#define " + word.substr(0, eq) + " " + word.substr(eq + 1) + "\n";
  }
  return out;
}

// Bytes and lines of the template's leading blank, // comment and #include lines, up to the last #include.
std::pair<std::size_t, int> include_prefix(const std::string& text) {
  std::istringstream lines(text);
  std::size_t position = 0, end = 0;
  int number = 0, end_line = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    position += line.size() + 1;
    if (line.rfind("#include", 0) == 0) {
      end = position;
      end_line = number;
    } else if (!line.empty() && line.rfind("//", 0) != 0) {
      break;
    }
  }
  return {end, end_line};
}

std::string render(const std::string& layout, const std::string& text, const std::string& name,
                   const std::string& defines) {
  const auto [end, lines] = include_prefix(text);
  const std::string line = "#line " + std::to_string(lines + 1) + " \"" + name + "\"\n";
  if (layout == "defines") return defines + "#line 1 \"" + name + "\"\n" + text;
  if (layout == "hoisted") return text.substr(0, end) + ";\n" + defines + line + text.substr(end);
  if (layout == "hoisted-noline") return text.substr(0, end) + ";\n" + defines + text.substr(end);
  std::fprintf(stderr, "unknown layout %s\n", layout.c_str());
  std::exit(2);
}

struct Setup {
  std::string layout, shown;  // shown: the layout and the setup's own options
  std::vector<std::string> options;
  std::vector<double> wall, cpu;
  std::map<std::string, std::vector<double>> phases;
  std::uint64_t cubins = 1469598103934665603ull;  // FNV-1a over the measured cubins, to compare setups
};

// Compiles one variant; false (with the log printed) when NVRTC fails.
bool compile(Setup& setup, const std::string& source, const std::string& name, const std::string& time_file,
             bool measured) {
  std::vector<const char*> options;
  for (const auto& option : setup.options) options.push_back(option.c_str());
  std::remove(time_file.c_str());
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_ms();
  nvrtcProgram program = nullptr;
  nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  const nvrtcResult result = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  std::size_t size = 0;
  nvrtcGetCUBINSize(program, &size);
  std::string cubin(size, '\0');
  if (size) nvrtcGetCUBIN(program, cubin.data());
  const double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_ms() - cpu_start;
  if (result != NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(program, log.data());
    std::printf("%s failed (%s):\n%s\n", setup.shown.c_str(), nvrtcGetErrorString(result), log.c_str());
  }
  nvrtcDestroyProgram(&program);
  if (result != NVRTC_SUCCESS) return false;
  if (!measured) return true;
  setup.wall.push_back(wall);
  setup.cpu.push_back(cpu);
  for (const char c : cubin) setup.cubins = (setup.cubins ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::istringstream rows(read_file(time_file));
  std::string row;
  std::getline(rows, row);  // column titles
  while (std::getline(rows, row)) {
    std::vector<std::string> cells;
    std::istringstream fields(row);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell.substr(cell[0] == ' '));
    if (cells.size() >= 3) setup.phases[cells[1]].push_back(std::atof(cells[2].c_str()));
  }
  return true;
}

void report(const Setup& setup, const std::string& counts) {
  std::printf("%-70s %6s  wall %4.0f  cpu %4.0f ms |", setup.shown.c_str(), counts.c_str(),
              median(setup.wall), median(setup.cpu));
  for (const auto& [phase, times] : setup.phases) std::printf(" %s %.0f", phase.c_str(), median(times));
  std::printf(" | cubins %016llx\n", static_cast<unsigned long long>(setup.cubins));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s TEMPLATE DEFINES_FILE [WARMUP+]COUNT SETUP [--vs SETUP] [-- BASE OPTION...]\n",
                 argv[0]);
    return 2;
  }
  const std::string text = read_file(argv[1]);
  std::string name = argv[1];
  name = name.substr(name.find_last_of('/') + 1);
  std::vector<std::string> variants;
  {
    std::istringstream lines(read_file(argv[2]));
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) variants.push_back(define_lines(line));
  }
  const std::string counts = argv[3];
  const auto plus = counts.find('+');
  const int warmup = plus == std::string::npos ? 0 : std::atoi(counts.c_str());
  const int count = std::atoi(counts.c_str() + (plus == std::string::npos ? 0 : plus + 1));

  std::vector<Setup> setups(1);
  std::vector<std::string> base;
  for (int i = 4; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--vs") {
      setups.emplace_back();
    } else if (word == "--") {
      base.assign(argv + i + 1, argv + argc);
      break;
    } else if (setups.back().layout.empty()) {
      setups.back().layout = setups.back().shown = word;
    } else {
      setups.back().options.push_back(word);
      setups.back().shown += " " + word;
    }
  }
  const std::string time_file = "/tmp/bench_compile_" + std::to_string(getpid()) + ".csv";
  for (Setup& setup : setups) {
    setup.options.insert(setup.options.end(), base.begin(), base.end());
    setup.options.push_back("--time=" + time_file);
  }
  setenv("CUDA_CACHE_DISABLE", "1", 1);

  for (int i = 0; i < warmup; ++i)
    if (!compile(setups[0], render(setups[0].layout, text, name, variants[i % variants.size()]), name,
                 time_file, false))
      return 1;
  if (warmup > 0 && std::getenv("BENCH_READY")) std::ofstream(std::getenv("BENCH_READY"));
  for (int i = 0; i < count; ++i) {
    const std::string& defines = variants[(warmup + i) % variants.size()];
    for (std::size_t k = 0; k < setups.size(); ++k) {
      Setup& setup = setups[i % 2 ? setups.size() - 1 - k : k];  // AB, BA, AB, ...: neither always goes first
      if (!compile(setup, render(setup.layout, text, name, defines), name, time_file, true)) return 1;
    }
  }
  std::remove(time_file.c_str());

  for (const Setup& setup : setups) report(setup, counts);
  if (setups.size() == 2) {
    std::vector<double> differences;
    for (int i = 0; i < count; ++i) differences.push_back(setups[1].cpu[i] - setups[0].cpu[i]);
    std::printf("  second minus first, per variant: cpu median %+.0f ms (%+.1f%% of the first's median)\n",
                median(differences), 100 * median(differences) / median(setups[0].cpu));
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("  peak resident memory %.0f MB\n", usage.ru_maxrss / 1024.0);
}
