// Walks a space's parameters depth first, each condition checked as soon as the parameters it reads are set:
// counts the valid configs and draws random valid ones without ever holding the candidates.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "space/space_decl.hpp"
#include "space/space_model.hpp"

namespace evotune {

class ConfigWalk {
 public:
  // The model's sizes and device must be set; the walk sets its parameters (and leaves them changed).
  ConfigWalk(const std::vector<TuningParameter>& parameters, std::size_t conditions, bool has_named,
             SpaceModel& model);
  // The number of configs that pass every condition.
  std::uint64_t count();
  // A valid config: each level's values tried in random order, backtracking from dead ends (every valid
  // config can come, though not with equal odds). `pin` {parameter, value index} (file order) fixes one
  // parameter's value. nullopt when none was found within `max_steps` settings.
  std::optional<Config> draw(std::mt19937_64& rng, std::uint64_t max_steps = 1'000'000,
                             std::optional<std::pair<std::size_t, std::size_t>> pin = std::nullopt);
  // Every config that passes every condition, dead branches cut as soon as a condition fails: for a space
  // too large to enumerate candidate by candidate whose valid configs are few (count() first). In the walk's
  // order, or with `candidate_order` in the candidates' (file order, the last parameter fastest).
  std::vector<Config> every_valid(bool candidate_order = false);
  // The valid configs at these positions (ascending, each < count()) of every_valid()'s walk order, in that
  // order: one walk of the conditioned parameters, the free ones decoded from the position, so drawing
  // thousands of configs costs about one count().
  std::vector<Config> at_ranks(const std::vector<std::uint64_t>& ranks);

 private:
  bool holds(std::size_t level);
  void set(std::size_t level, std::size_t value);
  std::uint64_t count_from(std::size_t level);
  // Appends each valid config below `level` as its value indices in file order.
  void collect_from(std::size_t level, std::vector<std::size_t>& chosen,
                    std::vector<std::vector<std::size_t>>& valid);
  // The config of each level's chosen value index.
  Config config_of(const std::vector<std::size_t>& chosen) const;
  bool draw_from(std::size_t level, std::mt19937_64& rng, std::uint64_t& steps,
                 std::vector<std::size_t>& chosen);
  // at_ranks below `level`: `first` is the walk position of the subtree's first valid config, `next` the
  // first rank not yet reached.
  void pick_from(std::size_t level, std::vector<std::size_t>& chosen, const std::vector<std::uint64_t>& ranks,
                 std::uint64_t& first, std::size_t& next, std::vector<Config>& picked);

  const std::vector<TuningParameter>& parameters_;
  SpaceModel& model_;
  bool has_named_;
  std::vector<std::size_t> order_;                // parameters read by some condition first, then the others
  std::size_t constrained_ = 0;                   // levels below this one are read by some condition
  std::vector<std::vector<std::size_t>> checks_;  // per level: the conditions complete once it is set
  std::uint64_t free_product_ = 1;                // combinations of the parameters no condition reads
  std::uint64_t max_steps_ = 0;
  std::optional<std::pair<std::size_t, std::size_t>> pin_;
  std::vector<bool> changed_;  // (file order) parameters set since the named expressions were last evaluated
};

}  // namespace evotune
