// --instrument SPEC (repeatable), --trace-out DIR and the instruments' settings, as `tauvta run`
// takes them (backend::InstrumentOptions).
#pragma once

#include <CLI/CLI.hpp>

#include "backend/accelerator_run.h"

namespace tauvta::cli {

void add_instrument_args(CLI::App* cmd, backend::InstrumentOptions& a);

}  // namespace tauvta::cli
