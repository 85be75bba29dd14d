// Everything a program needs to use alloy.
#pragma once

#include "alloy/backend/device.hpp"
#include "alloy/backend/event.hpp"
#include "alloy/backend/memory.hpp"
#include "alloy/backend/program.hpp"
#include "alloy/backend/queue.hpp"
#include "alloy/buffer.hpp"
#include "alloy/device_info.hpp"
#include "alloy/dialect.hpp"
#include "alloy/error.hpp"
#include "alloy/graph.hpp"
#include "alloy/interval_set.hpp"
#include "alloy/kernel_args.hpp"
#include "alloy/launch_range.hpp"
#include "alloy/log.hpp"
#include "alloy/program_cache.hpp"
#include "alloy/runtime.hpp"
