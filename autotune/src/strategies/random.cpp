// Points drawn uniformly without replacement.
#include "point_pool.hpp"
#include "rng.hpp"
#include "strategies.hpp"

namespace alloy::autotune::strategies {
namespace {

class RandomSearch final : public Strategy {
 public:
  RandomSearch(const SearchSpace& space, std::uint64_t seed) : rng_(seed), pool_(space.size()) {}

  std::string_view name() const override { return "random"; }

  std::optional<std::size_t> propose() override {
    const std::optional<std::size_t> point = pool_.random(rng_);
    if (point) pool_.propose(*point);
    return point;
  }

  void observe(std::size_t point, std::optional<double>) override { pool_.observe(point); }

 private:
  Rng rng_;
  PointPool pool_;
};

}  // namespace

std::unique_ptr<Strategy> make_random(const SearchSpace& space, std::uint64_t seed) {
  return std::make_unique<RandomSearch>(space, seed);
}

}  // namespace alloy::autotune::strategies
