// Depth-first walk over the parameters with early condition checks (see config_walk.hpp).
#include "space/config_walk.hpp"

#include <algorithm>
#include <numeric>

namespace evotune {

ConfigWalk::ConfigWalk(const std::vector<TuningParameter>& parameters, std::size_t conditions, bool has_named,
                       SpaceModel& model)
    : parameters_(parameters), model_(model), has_named_(has_named) {
  std::vector<bool> read(parameters.size(), false);
  for (std::size_t c = 0; c < conditions; ++c)
    for (const auto p : model.condition_parameters(c)) read[p] = true;
  for (std::size_t p = 0; p < parameters.size(); ++p)
    if (read[p]) order_.push_back(p);
  constrained_ = order_.size();
  for (std::size_t p = 0; p < parameters.size(); ++p)
    if (!read[p]) {
      order_.push_back(p);
      free_product_ *= parameters[p].values.size();
    }
  std::vector<std::size_t> level_of(parameters.size());
  for (std::size_t level = 0; level < order_.size(); ++level) level_of[order_[level]] = level;
  checks_.resize(std::max<std::size_t>(constrained_, 1));
  for (std::size_t c = 0; c < conditions; ++c) {
    std::size_t level = 0;
    for (const auto p : model.condition_parameters(c)) level = std::max(level, level_of[p]);
    checks_[level].push_back(c);
  }
  // Parameters the walk never reaches still need a value for named expressions and geometry.
  for (std::size_t p = 0; p < parameters.size(); ++p) model_.set_parameter(p, parameters[p].values[0]);
  if (has_named_) model_.update(Scope::variant);
  changed_.assign(parameters.size(), false);
}

void ConfigWalk::set(std::size_t level, std::size_t value) {
  const std::size_t p = order_[level];
  model_.set_parameter(p, parameters_[p].values[value]);
  changed_[p] = true;
}

bool ConfigWalk::holds(std::size_t level) {
  if (level >= checks_.size() || checks_[level].empty()) return true;
  // Only the named expressions reading a parameter set since the last check (most read few of them).
  if (has_named_) {
    model_.update_reading(changed_);
    std::fill(changed_.begin(), changed_.end(), false);
  }
  for (const auto c : checks_[level])
    if (!model_.condition_holds(c)) return false;
  return true;
}

std::uint64_t ConfigWalk::count_from(std::size_t level) {
  if (level >= constrained_) return free_product_;
  std::uint64_t total = 0;
  const std::size_t values = parameters_[order_[level]].values.size();
  for (std::size_t v = 0; v < values; ++v) {
    set(level, v);
    if (holds(level)) total += count_from(level + 1);
  }
  return total;
}

std::uint64_t ConfigWalk::count() {
  if (constrained_ == 0) return holds(0) ? free_product_ : 0;  // conditions that read no parameter
  return count_from(0);
}

bool ConfigWalk::draw_from(std::size_t level, std::mt19937_64& rng, std::uint64_t& steps,
                           std::vector<std::size_t>& chosen) {
  if (level == order_.size()) return true;
  const std::size_t values = parameters_[order_[level]].values.size();
  const bool pinned = pin_ && pin_->first == order_[level];
  if (level >= constrained_) {  // no condition reads it: any value
    chosen[level] = pinned ? pin_->second : std::uniform_int_distribution<std::size_t>(0, values - 1)(rng);
    return draw_from(level + 1, rng, steps, chosen);
  }
  std::vector<std::size_t> tries(values);
  std::iota(tries.begin(), tries.end(), 0);
  std::shuffle(tries.begin(), tries.end(), rng);
  if (pinned) tries = {pin_->second};
  for (const auto v : tries) {
    if (++steps > max_steps_) return false;
    set(level, v);
    chosen[level] = v;
    if (holds(level) && draw_from(level + 1, rng, steps, chosen)) return true;
  }
  return false;
}

void ConfigWalk::collect_from(std::size_t level, std::vector<std::size_t>& chosen,
                              std::vector<std::vector<std::size_t>>& valid) {
  if (level == order_.size()) {
    std::vector<std::size_t> digits(order_.size());  // in file order
    for (std::size_t l = 0; l < order_.size(); ++l) digits[order_[l]] = chosen[l];
    valid.push_back(std::move(digits));
    return;
  }
  const std::size_t values = parameters_[order_[level]].values.size();
  for (std::size_t v = 0; v < values; ++v) {
    chosen[level] = v;
    if (level < constrained_) {  // the levels past constrained_ are read by no condition: every value holds
      set(level, v);
      if (!holds(level)) continue;
    }
    collect_from(level + 1, chosen, valid);
  }
}

std::vector<Config> ConfigWalk::every_valid(bool candidate_order) {
  std::vector<std::vector<std::size_t>> found;
  if (constrained_ > 0 || holds(0)) {
    std::vector<std::size_t> chosen(order_.size(), 0);
    collect_from(0, chosen, found);
  }
  if (candidate_order) std::sort(found.begin(), found.end());  // file order, the last parameter fastest
  std::vector<Config> valid;
  valid.reserve(found.size());
  for (const auto& digits : found) {
    Config config;
    for (std::size_t p = 0; p < parameters_.size(); ++p)
      config[parameters_[p].name] = parameters_[p].values[digits[p]];
    valid.push_back(std::move(config));
  }
  return valid;
}

void ConfigWalk::pick_from(std::size_t level, std::vector<std::size_t>& chosen,
                           const std::vector<std::uint64_t>& ranks, std::uint64_t& first, std::size_t& next,
                           std::vector<Config>& picked) {
  if (next == ranks.size()) return;
  if (level >= constrained_) {  // free_product_ valid configs, the last level fastest (as collect_from)
    for (; next < ranks.size() && ranks[next] - first < free_product_; ++next) {
      std::uint64_t offset = ranks[next] - first;
      for (std::size_t l = order_.size(); l-- > constrained_;) {
        const std::size_t values = parameters_[order_[l]].values.size();
        chosen[l] = static_cast<std::size_t>(offset % values);
        offset /= values;
      }
      picked.push_back(config_of(chosen));
    }
    first += free_product_;
    return;
  }
  const std::size_t values = parameters_[order_[level]].values.size();
  for (std::size_t v = 0; v < values && next < ranks.size(); ++v) {
    chosen[level] = v;
    set(level, v);
    if (holds(level)) pick_from(level + 1, chosen, ranks, first, next, picked);
  }
}

std::vector<Config> ConfigWalk::at_ranks(const std::vector<std::uint64_t>& ranks) {
  std::vector<Config> picked;
  picked.reserve(ranks.size());
  if (ranks.empty() || (constrained_ == 0 && !holds(0))) return picked;
  std::vector<std::size_t> chosen(order_.size(), 0);
  std::uint64_t first = 0;
  std::size_t next = 0;
  pick_from(0, chosen, ranks, first, next, picked);
  return picked;
}

std::optional<Config> ConfigWalk::draw(std::mt19937_64& rng, std::uint64_t max_steps,
                                       std::optional<std::pair<std::size_t, std::size_t>> pin) {
  max_steps_ = max_steps;
  pin_ = pin;
  std::uint64_t steps = 0;
  std::vector<std::size_t> chosen(order_.size(), 0);
  if (constrained_ == 0 && !holds(0)) return std::nullopt;
  if (!draw_from(0, rng, steps, chosen)) return std::nullopt;
  return config_of(chosen);
}

Config ConfigWalk::config_of(const std::vector<std::size_t>& chosen) const {
  Config config;
  for (std::size_t level = 0; level < order_.size(); ++level) {
    const auto& parameter = parameters_[order_[level]];
    config[parameter.name] = parameter.values[chosen[level]];
  }
  return config;
}

}  // namespace evotune
