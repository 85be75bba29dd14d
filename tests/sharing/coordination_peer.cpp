// A second process on a device's coordination segment, for the tests:
//   coordination_peer KEY CLASS PENDING
// joins the segment of KEY as a job of CLASS with PENDING commands
// in flight, prints "joined", and stays until its standard input closes; a
// line "die holding the lock" makes it exit while it holds the segment's
// table lock.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "sharing/coordination_segment.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: coordination_peer KEY CLASS PENDING\n";
    return 2;
  }
  const std::optional<alloy::PriorityClass> priority_class = alloy::parse_priority_class(argv[2]);
  if (!priority_class) {
    std::cerr << "coordination_peer: no class " << argv[2] << "\n";
    return 2;
  }
  alloy::detail::CoordinationSegment segment(argv[1], *priority_class, alloy::detail::SegmentAccess::user);
  segment.add_in_flight(std::atoll(argv[3]));
  std::cout << "joined" << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "die holding the lock") segment.exit_holding_table_lock();
  }
  return 0;
}
