// Framing of worker messages: a 4-byte length, then the message as CBOR.
#include "ipc/frame_pipe.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace evotune {
namespace {

constexpr std::size_t kMaxFrame = std::size_t{1} << 30;

void write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("worker pipe: write failed: ") + std::strerror(errno));
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

// false at end of file before the first byte; Error for end of file in the middle.
bool read_all(int fd, std::uint8_t* data, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::read(fd, data + done, size - done);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("worker pipe: read failed: ") + std::strerror(errno));
    }
    if (got == 0) {
      if (done == 0) return false;
      throw Error("worker pipe: the message was cut off");
    }
    done += static_cast<std::size_t>(got);
  }
  return true;
}

std::uint32_t decode_length(const std::uint8_t* bytes) {
  return std::uint32_t{bytes[0]} | std::uint32_t{bytes[1]} << 8 | std::uint32_t{bytes[2]} << 16 |
         std::uint32_t{bytes[3]} << 24;
}

nlohmann::json decode(const std::uint8_t* data, std::size_t size) {
  try {
    return nlohmann::json::from_cbor(data, data + size);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("worker pipe: malformed message: ") + e.what());
  }
}

}  // namespace

void write_frame(int fd, const nlohmann::json& message) {
  const std::vector<std::uint8_t> body = nlohmann::json::to_cbor(message);
  if (body.size() > kMaxFrame) throw Error("worker pipe: message too large");
  const auto n = static_cast<std::uint32_t>(body.size());
  const std::uint8_t header[4] = {static_cast<std::uint8_t>(n), static_cast<std::uint8_t>(n >> 8),
                                  static_cast<std::uint8_t>(n >> 16), static_cast<std::uint8_t>(n >> 24)};
  write_all(fd, header, sizeof header);
  write_all(fd, body.data(), body.size());
}

std::optional<nlohmann::json> read_frame(int fd) {
  std::uint8_t header[4];
  if (!read_all(fd, header, sizeof header)) return std::nullopt;
  const std::uint32_t size = decode_length(header);
  if (size > kMaxFrame) throw Error("worker pipe: message length out of range");
  std::vector<std::uint8_t> body(size);
  if (size > 0 && !read_all(fd, body.data(), size)) throw Error("worker pipe: the message was cut off");
  return decode(body.data(), body.size());
}

bool FrameReader::pull(int fd) {
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(got));
      continue;
    }
    if (got == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

std::optional<nlohmann::json> FrameReader::next() {
  if (buffer_.size() < 4) return std::nullopt;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(buffer_.data());
  const std::uint32_t size = decode_length(bytes);
  if (size > kMaxFrame) throw Error("worker pipe: message length out of range");
  if (buffer_.size() < 4 + std::size_t{size}) return std::nullopt;
  nlohmann::json message = decode(bytes + 4, size);
  buffer_.erase(0, 4 + std::size_t{size});
  return message;
}

}  // namespace evotune
