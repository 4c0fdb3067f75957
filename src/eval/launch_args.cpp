// Packing of scalar and pointer kernel arguments.
#include "eval/launch_args.hpp"

#include <cuda.h>

#include <cstring>

#include "core/error.hpp"
#include "eval/host_convert.hpp"

namespace evotune {

std::size_t packed_bytes(const ArgSpec& arg) {
  switch (arg.kind) {
    case ArgSpec::Kind::buffer:
      return sizeof(CUdeviceptr);
    case ArgSpec::Kind::scalar:
      return size_of(arg.dtype);
    case ArgSpec::Kind::tensor_map:
      return sizeof(CUtensorMap);
  }
  return 0;
}

KernelArgs::KernelArgs(const std::vector<ArgSpec>& args, const BufferLookup& buffer_address)
    : slots_(args.size()) {
  std::vector<std::size_t> map_of(args.size(), 0);
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].kind == ArgSpec::Kind::tensor_map) map_of[i] = maps_.size(), maps_.emplace_back();
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& arg = args[i];
    const std::string& buffer = arg.kind == ArgSpec::Kind::tensor_map ? arg.map.buffer : arg.name;
    if (arg.kind == ArgSpec::Kind::scalar) {
      const std::string bytes = scalar_bytes(arg.value, arg.dtype);
      std::memcpy(slots_[i].bytes, bytes.data(), bytes.size());
      continue;
    }
    const std::optional<std::uint64_t> address = buffer_address(buffer);
    if (!address) throw Error("argument " + std::to_string(i) + " '" + arg.name + "' names no buffer");
    if (arg.kind == ArgSpec::Kind::buffer)
      std::memcpy(slots_[i].bytes, &*address, sizeof *address);
    else
      maps_[map_of[i]] = cuda::encode_tensor_map(arg.name, arg.map, arg.dtype, *address);
  }
  for (std::size_t i = 0; i < args.size(); ++i)
    pointers_.push_back(args[i].kind == ArgSpec::Kind::tensor_map ? static_cast<void*>(&maps_[map_of[i]])
                                                                  : static_cast<void*>(slots_[i].bytes));
}

}  // namespace evotune
