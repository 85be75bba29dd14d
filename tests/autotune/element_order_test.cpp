// Element orders: where each canonical element lands, and back.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>

#include "alloy/autotune/element_order.hpp"

namespace {

using alloy::autotune::ElementOrder;
using alloy::autotune::HostArray;

// 0, 1, 2, ... so each element says where it came from.
HostArray counting(std::size_t count) {
  HostArray array(alloy::ScalarType::i32, count);
  std::iota(array.view<std::int32_t>().begin(), array.view<std::int32_t>().end(), 0);
  return array;
}

std::vector<std::int32_t> values(const HostArray& array) {
  const std::span<const std::int32_t> view = array.view<std::int32_t>();
  return {view.begin(), view.end()};
}

}  // namespace

TEST_CASE("Autotune.ElementOrder.places_each_element") {
  // Four records of three fields: r0 = 0 1 2, r1 = 3 4 5, ...
  const HostArray records = counting(12);
  CHECK(values(alloy::autotune::arrange(records, 3, {ElementOrder::Kind::rows, 1})) == values(records));
  CHECK(values(alloy::autotune::arrange(records, 3, {ElementOrder::Kind::columns, 1})) ==
        std::vector<std::int32_t>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
  CHECK(values(alloy::autotune::arrange(records, 3, {ElementOrder::Kind::blocks, 2})) ==
        std::vector<std::int32_t>{0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11});
}

TEST_CASE("Autotune.ElementOrder.arrange_back_undoes_arrange") {
  const HostArray records = counting(8 * 6);
  for (const ElementOrder order : {ElementOrder{ElementOrder::Kind::columns, 1}, ElementOrder{ElementOrder::Kind::blocks, 4},
                                   ElementOrder{ElementOrder::Kind::blocks, 8}}) {
    CAPTURE(order.to_string());
    const HostArray arranged = alloy::autotune::arrange(records, 6, order);
    CHECK(values(arranged) != values(records));
    CHECK(values(alloy::autotune::arrange_back(arranged, 6, order)) == values(records));
  }
}

TEST_CASE("Autotune.ElementOrder.parse_and_fit") {
  CHECK(ElementOrder::parse("rows")->kind == ElementOrder::Kind::rows);
  CHECK(ElementOrder::parse("columns")->kind == ElementOrder::Kind::columns);
  CHECK(ElementOrder::parse("blocks:16")->block == 16);
  CHECK(ElementOrder::parse("blocks:16")->to_string() == "blocks:16");
  CHECK_FALSE(ElementOrder::parse("blocks:0"));
  CHECK_FALSE(ElementOrder::parse("blocks:4x"));
  CHECK_FALSE(ElementOrder::parse("diagonal"));
  CHECK_FALSE(alloy::autotune::order_fits(12, 3, {ElementOrder::Kind::blocks, 2}));
  CHECK(alloy::autotune::order_fits(12, 3, {ElementOrder::Kind::blocks, 3})->find("whole blocks of 3") !=
        std::string::npos);
  CHECK(alloy::autotune::order_fits(10, 3, {ElementOrder::Kind::columns, 1})->find("whole rows of 3") !=
        std::string::npos);
}
