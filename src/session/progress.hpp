// Progress of a long run: done/total, failures, best so far, ETA. A live line on a terminal, log lines
// otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace evotune {

class Progress {
 public:
  // total: the number of variants this run means to handle; verb: what is done to each ("evaluated").
  Progress(std::int64_t total, bool live_line, std::string verb = "evaluated");
  ~Progress();
  void update(bool ok, std::optional<double> best_us, const std::string& best_label);
  // A warning appended to the progress line while it is not empty (asked at most every 2 s): a GPU that
  // throttles during the run.
  void set_note_source(std::function<std::string()> source) { note_source_ = std::move(source); }
  void finish();

  std::int64_t done() const { return done_; }
  std::int64_t failed() const { return failed_; }

 private:
  std::string line() const;

  std::int64_t total_;
  bool live_line_;
  std::string verb_;
  std::int64_t done_ = 0;
  std::int64_t failed_ = 0;
  std::optional<double> best_us_;
  std::string best_label_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
  bool finished_ = false;
  std::function<std::string()> note_source_;
  std::string note_;
  std::chrono::steady_clock::time_point last_note_{};
};

// "1h02m", "3m07s", "12s".
std::string format_duration(double seconds);

}  // namespace evotune
