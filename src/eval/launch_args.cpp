// Packing of scalar and pointer kernel arguments.
#include "eval/launch_args.hpp"

#include <cstring>

#include "core/error.hpp"
#include "eval/host_convert.hpp"

namespace evotune {

KernelArgs::KernelArgs(const std::vector<ArgSpec>& args, const BufferLookup& buffer_address)
    : slots_(args.size()) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& arg = args[i];
    if (arg.kind == ArgSpec::Kind::buffer) {
      const std::optional<std::uint64_t> address = buffer_address(arg.name);
      if (!address) throw Error("argument " + std::to_string(i) + " '" + arg.name + "' names no buffer");
      std::memcpy(slots_[i].bytes, &*address, sizeof *address);
    } else {
      const std::string bytes = scalar_bytes(arg.value, arg.dtype);
      std::memcpy(slots_[i].bytes, bytes.data(), bytes.size());
    }
  }
  for (auto& slot : slots_) pointers_.push_back(slot.bytes);
}

}  // namespace evotune
