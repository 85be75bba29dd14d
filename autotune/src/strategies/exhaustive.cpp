// Every point once, in the space's order; the seed is unused.
#include <cstddef>

#include "point_pool.hpp"
#include "strategies.hpp"

namespace alloy::autotune::strategies {
namespace {

class Exhaustive final : public Strategy {
 public:
  explicit Exhaustive(const SearchSpace& space) : pool_(space.size()) {}

  std::string_view name() const override { return "exhaustive"; }

  std::optional<std::size_t> propose() override {
    // Points already seen through observe() are skipped on the way.
    while (next_ < pool_.size() && !pool_.available(next_)) ++next_;
    if (next_ == pool_.size()) return std::nullopt;
    pool_.propose(next_);
    return next_++;
  }

  void observe(std::size_t point, std::optional<double>) override { pool_.observe(point); }

 private:
  PointPool pool_;
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_exhaustive(const SearchSpace& space, std::uint64_t) {
  return std::make_unique<Exhaustive>(space);
}

}  // namespace alloy::autotune::strategies
