// Length-prefixed CBOR messages over pipes: how the tuning process and its workers talk.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace evotune {

// Writes one message (4-byte little-endian length, then CBOR). Throws Error when the pipe is closed or
// broken.
void write_frame(int fd, const nlohmann::json& message);

// Blocks for the next whole message; nullopt at end of file. Throws Error for a torn or malformed message.
std::optional<nlohmann::json> read_frame(int fd);

// Non-blocking side: collects bytes as they arrive and hands out whole messages.
class FrameReader {
 public:
  // Reads what is available on fd now (fd should be non-blocking). False at end of file or on a read error.
  bool pull(int fd);
  // The next whole message received, if any. Throws Error for a malformed one.
  std::optional<nlohmann::json> next();

 private:
  std::string buffer_;
};

}  // namespace evotune
