// The body of each task that compile-ahead gives oneTBB, in a file of its
// own. ThreadSanitizer cannot see libtbb (Debian does not build it with
// TSan) hand a task from the thread that spawned it to a worker, so it may
// report the worker's first read of the task's own fields as a race.
// tests/tsan.supp names this file for reads at the top of a stack only: a
// race in the work the task goes on to do has its top frame elsewhere and is
// still reported.
#pragma once

namespace alloy::autotune::detail {

template <class Owner, void (Owner::*step)()>
struct TbbTaskBody {
  Owner* owner;
  void operator()() const { (owner->*step)(); }
};

}  // namespace alloy::autotune::detail
