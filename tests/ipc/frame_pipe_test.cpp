// Length-prefixed CBOR frames over a pipe: blocking round trips, end of file, torn messages, piecewise reads.
#include "ipc/frame_pipe.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace evotune {
namespace frame_pipe_test {

using nlohmann::json;

// Both ends of a pipe, closed when the test ends.
struct Pipe {
  int read_fd = -1;
  int write_fd = -1;
  Pipe() {
    int fds[2];
    EXPECT_EQ(pipe2(fds, O_CLOEXEC), 0);
    read_fd = fds[0];
    write_fd = fds[1];
  }
  ~Pipe() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read_fd >= 0) close(std::exchange(read_fd, -1));
  }
  void close_write() {
    if (write_fd >= 0) close(std::exchange(write_fd, -1));
  }
  void make_read_non_blocking() { fcntl(read_fd, F_SETFL, fcntl(read_fd, F_GETFL) | O_NONBLOCK); }
  void write_bytes(const std::string& bytes) {
    ASSERT_EQ(::write(write_fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
};

// The exact bytes write_frame puts on the wire for a (small) message.
std::string frame_bytes(const json& message) {
  Pipe pipe;
  write_frame(pipe.write_fd, message);
  pipe.close_write();
  std::string bytes;
  char chunk[4096];
  for (ssize_t got; (got = ::read(pipe.read_fd, chunk, sizeof chunk)) > 0;) bytes.append(chunk, got);
  return bytes;
}

json sample_message() {
  return {{"type", "result"}, {"ticket", 42}, {"time_us", 0.1 + 0.2}, {"text", std::string("zero\0byte", 9)}};
}

TEST(FramePipe, WriteThenReadRoundTripsSeveralMessages) {
  Pipe pipe;
  const json binary = {{"cubin", json::binary({0x7f, 'E', 'L', 'F', 0x00, 0x00, 0xff, 0x00})},
                       {"text", std::string("a\0b\n", 4)}};
  write_frame(pipe.write_fd, sample_message());
  write_frame(pipe.write_fd, binary);
  write_frame(pipe.write_fd, json::object());
  EXPECT_EQ(read_frame(pipe.read_fd), sample_message());
  const auto second = read_frame(pipe.read_fd);
  ASSERT_TRUE(second);
  EXPECT_EQ(*second, binary);
  EXPECT_EQ(second->at("cubin").get_binary().size(), 8u);
  EXPECT_EQ(second->at("text").get<std::string>().size(), 4u);
  EXPECT_EQ(read_frame(pipe.read_fd), json::object());
}

TEST(FramePipe, LargeMessageCrossesThePipeWhileTheReaderReads) {
  std::vector<std::uint8_t> payload(5 << 20);
  for (std::size_t i = 0; i < payload.size(); ++i)
    payload[i] = static_cast<std::uint8_t>(i * 131 + (i >> 13));
  const json message = {{"blob", json::binary(payload)}, {"tail", "end"}};
  Pipe pipe;
  std::thread writer([&] { write_frame(pipe.write_fd, message); });  // far beyond the pipe's buffer
  const auto received = read_frame(pipe.read_fd);
  writer.join();
  ASSERT_TRUE(received);
  EXPECT_EQ(received->at("blob").get_binary(), json::binary_t(payload));
  EXPECT_EQ(received->at("tail"), "end");
}

TEST(FramePipe, ReadFrameIsNulloptAtEndOfFile) {
  Pipe pipe;
  write_frame(pipe.write_fd, sample_message());
  pipe.close_write();
  EXPECT_TRUE(read_frame(pipe.read_fd));
  EXPECT_EQ(read_frame(pipe.read_fd), std::nullopt);
  EXPECT_EQ(read_frame(pipe.read_fd), std::nullopt);
}

TEST(FramePipe, TornMessagesAreErrors) {
  const std::string whole = frame_bytes(sample_message());
  ASSERT_GT(whole.size(), 8u);
  // Each cut: only the length header, half the body, half the header.
  for (const std::size_t cut : {std::size_t{4}, whole.size() / 2 + 2, std::size_t{2}}) {
    Pipe pipe;
    pipe.write_bytes(whole.substr(0, cut));
    pipe.close_write();
    EXPECT_THROW(read_frame(pipe.read_fd), Error) << "cut after " << cut << " bytes";
  }
}

TEST(FramePipe, MalformedBodyIsAnError) {
  Pipe pipe;
  pipe.write_bytes(std::string("\x02\x00\x00\x00\xff\xff", 6));  // "break" codes: not CBOR
  EXPECT_THROW(read_frame(pipe.read_fd), Error);
  FrameReader reader;
  Pipe other;
  other.make_read_non_blocking();
  other.write_bytes(std::string("\x01\x00\x00\x00\xff", 5));
  EXPECT_TRUE(reader.pull(other.read_fd));
  EXPECT_THROW(reader.next(), Error);
}

TEST(FrameReader, AssemblesAMessageArrivingOneByteAtATime) {
  const std::string bytes = frame_bytes(sample_message());
  Pipe pipe;
  pipe.make_read_non_blocking();
  FrameReader reader;
  EXPECT_TRUE(reader.pull(pipe.read_fd));  // nothing yet: open, no message
  EXPECT_EQ(reader.next(), std::nullopt);
  for (std::size_t i = 0; i + 1 < bytes.size(); ++i) {
    pipe.write_bytes(bytes.substr(i, 1));
    ASSERT_TRUE(reader.pull(pipe.read_fd));
    ASSERT_EQ(reader.next(), std::nullopt) << "a message after only " << i + 1 << " bytes";
  }
  pipe.write_bytes(bytes.substr(bytes.size() - 1));
  EXPECT_TRUE(reader.pull(pipe.read_fd));
  EXPECT_EQ(reader.next(), sample_message());
  EXPECT_EQ(reader.next(), std::nullopt);
}

TEST(FrameReader, AssemblesMessagesSplitAcrossUnevenChunks) {
  std::string stream;
  for (int i = 0; i < 5; ++i) stream += frame_bytes({{"index", i}, {"pad", std::string(i * 37, 'x')}});
  Pipe pipe;
  pipe.make_read_non_blocking();
  FrameReader reader;
  std::vector<json> received;
  for (std::size_t at = 0, step = 3; at < stream.size(); at += step, step = step * 2 + 1) {
    pipe.write_bytes(stream.substr(at, step));
    ASSERT_TRUE(reader.pull(pipe.read_fd));
    while (auto message = reader.next()) received.push_back(*message);
  }
  ASSERT_EQ(received.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(received[i].at("index"), i);
}

TEST(FrameReader, HandsOutSeveralMessagesFromOneReadThenSeesEndOfFile) {
  Pipe pipe;
  pipe.make_read_non_blocking();
  for (int i = 0; i < 3; ++i) write_frame(pipe.write_fd, {{"ticket", i}});
  pipe.close_write();
  FrameReader reader;
  EXPECT_FALSE(reader.pull(pipe.read_fd));  // everything, then end of file
  for (int i = 0; i < 3; ++i) {
    const auto message = reader.next();
    ASSERT_TRUE(message) << i;
    EXPECT_EQ(message->at("ticket"), i);
  }
  EXPECT_EQ(reader.next(), std::nullopt);
}

}  // namespace frame_pipe_test
}  // namespace evotune
