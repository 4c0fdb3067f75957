// Live progress on a terminal (one rewritten line on stderr), periodic spdlog lines otherwise.
#include "session/progress.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>

namespace evotune {

std::string format_duration(double seconds) {
  const long total = static_cast<long>(seconds + 0.5);
  char buffer[32];
  if (total >= 3600)
    std::snprintf(buffer, sizeof buffer, "%ldh%02ldm", total / 3600, (total % 3600) / 60);
  else if (total >= 60)
    std::snprintf(buffer, sizeof buffer, "%ldm%02lds", total / 60, total % 60);
  else
    std::snprintf(buffer, sizeof buffer, "%lds", total);
  return buffer;
}

Progress::Progress(std::int64_t total, bool live_line, std::string verb)
    : total_(total),
      live_line_(live_line),
      verb_(std::move(verb)),
      start_(std::chrono::steady_clock::now()),
      last_print_(start_) {}

Progress::~Progress() { finish(); }

std::string Progress::line() const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string text = std::to_string(done_) + "/" + std::to_string(total_) + " " + verb_ + ", " +
                     std::to_string(failed_) + " failed";
  if (best_us_) {
    char best[64];
    std::snprintf(best, sizeof best, ", best %.2f us", *best_us_);
    text += best + std::string(" (") + best_label_ + ")";
  }
  if (done_ > 0 && done_ < total_)
    text += ", ETA " +
            format_duration(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_));
  text += ", elapsed " + format_duration(elapsed);
  if (!note_.empty()) text += "; WARNING: " + note_;
  return text;
}

void Progress::update(bool ok, std::optional<double> best_us, const std::string& best_label) {
  ++done_;
  if (!ok) ++failed_;
  if (best_us) {
    best_us_ = best_us;
    best_label_ = best_label;
  }
  const auto now = std::chrono::steady_clock::now();
  if (note_source_ && now - last_note_ >= std::chrono::seconds(2)) {
    note_ = note_source_();
    last_note_ = now;
  }
  if (live_line_) {
    std::fprintf(stderr, "\r\033[K%s", line().c_str());
    std::fflush(stderr);
  } else if (now - last_print_ >= std::chrono::seconds(10) || done_ == total_) {
    if (note_.empty())
      spdlog::info("progress: {}", line());
    else
      spdlog::warn("progress: {}", line());
    last_print_ = now;
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (live_line_ && done_ > 0) std::fprintf(stderr, "\n");
}

}  // namespace evotune
