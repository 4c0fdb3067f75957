// The attention reference kernel against a float64 CPU computation, on ragged, causal and both head sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compile/compiler.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"
#include "eval/host_convert.hpp"
#include "eval/launch_args.hpp"
#include "gen/kernel_source.hpp"
#include "space/search_space.hpp"

namespace evotune {
namespace {

// softmax(Q K^T * scale) V in float64, from the fp16 inputs as the GPU sees them.
std::vector<double> attention_float64(const std::vector<double>& q, const std::vector<double>& k,
                                      const std::vector<double>& v, const Sizes& sizes) {
  const std::int64_t bh = sizes.at("B") * sizes.at("H"), s = sizes.at("S"), d = sizes.at("D");
  const bool causal = sizes.at("CAUSAL") != 0;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> out(q.size()), p(s);
  for (std::int64_t h = 0; h < bh; ++h) {
    const std::int64_t base = h * s * d;
    for (std::int64_t i = 0; i < s; ++i) {
      double row_max = -INFINITY;
      for (std::int64_t j = 0; j < s; ++j) {
        double dot = 0;
        for (std::int64_t c = 0; c < d; ++c) dot += q[base + i * d + c] * k[base + j * d + c];
        p[j] = (causal && j > i) ? -INFINITY : dot * scale;
        row_max = std::max(row_max, p[j]);
      }
      double sum = 0;
      for (std::int64_t j = 0; j < s; ++j) sum += p[j] = std::exp(p[j] - row_max);
      for (std::int64_t c = 0; c < d; ++c) {
        double acc = 0;
        for (std::int64_t j = 0; j < s; ++j) acc += p[j] * v[base + j * d + c];
        out[base + i * d + c] = acc / sum;
      }
    }
  }
  return out;
}

struct Case {
  const char* problem;
  const char* space = "search_spaces/flash_attn_fwd.json";
};

class AttentionReference : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionReference, MatchesFloat64OnTheCpu) {
  if (cuda::device_count() == 0) GTEST_SKIP() << cuda::no_device_reason();
  const SearchSpace space = SearchSpace::load(GetParam().space);
  const Sizes sizes = space.resolve_problem(GetParam().problem);
  const DeviceInfo device = cuda::query_device(0);
  const cuda::PrimaryContext context(0);
  context.make_current();

  const Compiler compiler(cuda_include_dirs());
  const KernelSource source =
      render_source(space.reference_source(), "flash_attn_ref.cu", space.reference_constants(sizes));
  const CompileResult compiled = compiler.compile(
      {source.text, source.file_name, space.reference().name, device.arch(), space.compiler_options()});
  ASSERT_EQ(compiled.status, Status::ok) << compiled.message;

  std::mt19937_64 rng(GetParam().problem[0] + 17);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::map<std::string, cuda::DeviceMemory> memory;
  std::map<std::string, std::vector<double>> host;
  const DType dtype = space.buffers(sizes).front().dtype;  // f16 or bf16, the same for Q, K, V, O
  ASSERT_TRUE(dtype == DType::f16 || dtype == DType::bf16);
  const auto to_bits = dtype == DType::f16 ? double_to_half : double_to_bfloat16;
  for (const BufferSpec& buffer : space.buffers(sizes)) {
    ASSERT_EQ(buffer.dtype, dtype);
    std::vector<std::uint16_t> bits(buffer.count, to_bits(NAN));  // outputs start as NaN
    if (buffer.is_input)
      for (auto& b : bits) b = to_bits(uniform(rng));
    host[buffer.name] = to_doubles(bits.data(), dtype, buffer.count);
    memory.emplace(buffer.name, cuda::DeviceMemory(bits.size() * 2));
    memory.at(buffer.name).upload(bits.data(), bits.size() * 2);
  }
  const LaunchSpec launch = space.reference_launch(sizes, device);
  KernelArgs args(launch.args, [&](const std::string& name) -> std::optional<std::uint64_t> {
    if (!memory.contains(name)) return std::nullopt;
    return memory.at(name).get();
  });
  const cuda::Module module = cuda::Module::load(compiled.cubin);
  const auto& g = launch.grid;
  const auto& b = launch.block;
  cuda::check(cuda::driver().cuLaunchKernel(module.function(launch.kernel_name), g[0], g[1], g[2], b[0], b[1],
                                            b[2], launch.dynamic_smem_bytes, nullptr, args.params(), nullptr),
              "cuLaunchKernel");
  cuda::check(cuda::driver().cuCtxSynchronize(), "cuCtxSynchronize");

  std::vector<std::uint16_t> out_bits(host["O"].size());
  memory.at("O").download(out_bits.data(), out_bits.size() * 2);
  const std::vector<double> out =
      to_doubles(out_bits.data(), dtype, static_cast<std::int64_t>(out_bits.size()));
  const std::vector<double> expected = attention_float64(host["Q"], host["K"], host["V"], sizes);
  double max_abs = 0, diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(std::isfinite(out[i])) << "element " << i << " not written or not finite";
    max_abs = std::max(max_abs, std::fabs(out[i] - expected[i]));
    diff2 += (out[i] - expected[i]) * (out[i] - expected[i]);
    ref2 += expected[i] * expected[i];
  }
  std::printf("reference vs float64 (%s, %s): max_abs %.3g, rel_l2 %.3g\n", GetParam().problem,
              std::string(to_string(dtype)).c_str(), max_abs, std::sqrt(diff2 / ref2));
  // fp32 arithmetic on the inputs, output rounded to the element type: half an ulp of values below 1 is
  // <= 2.5e-4 in fp16 and <= 2e-3 in bf16.
  const double limit = dtype == DType::f16 ? 1e-3 : 4e-3;
  EXPECT_LE(max_abs, limit);
  EXPECT_LE(std::sqrt(diff2 / ref2), limit);
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionReference,
                         ::testing::Values(Case{"B=1,H=2,S=77,D=64,CAUSAL=0"},
                                           Case{"B=2,H=1,S=130,D=64,CAUSAL=1"},
                                           Case{"B=1,H=2,S=96,D=128,CAUSAL=0"},
                                           Case{"B=1,H=1,S=200,D=128,CAUSAL=1"},
                                           Case{"B=1,H=8,S=512,D=64,CAUSAL=0"},
                                           Case{"B=1,H=2,S=77,D=64,CAUSAL=1",
                                                "search_spaces/flash_attn_fwd_mma_bf16.json"},
                                           Case{"B=1,H=2,S=96,D=128,CAUSAL=0",
                                                "search_spaces/flash_attn_fwd_mma_bf16.json"}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.problem;
                           if (std::string(info.param.space).find("bf16") != std::string::npos) name += "_bf16";
                           for (char& c : name)
                             if (c == '=' || c == ',') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace evotune
