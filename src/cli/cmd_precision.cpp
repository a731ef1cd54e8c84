// tauvta precision: per-layer fixed-point formats. `show` lists every layer's format of a model
// (quantized for a config) or of a compiled artifact; `tune` runs OTune's loop or the format
// search on the simulated accelerator with a checkpoint after every evaluation, then writes the
// best network as DIR/tuned.tauvta with its per-checkpoint tables (OTune's Table 4, Fig. 10, 11).
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/model_args.h"
#include "precision/precision_run.h"

namespace tauvta::cli {

void add_precision_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("precision", "Per-layer fixed-point formats: show them, tune them on the simulated accelerator");
  cmd->require_subcommand(1);
  auto show = std::make_shared<model::ModelSource>();
  CLI::App* s = cmd->add_subcommand("show", "Every layer's output format (Qx.y) of a model quantized for a config, or of a .tauvta");
  add_model_args(s, *show);
  s->callback([show] { precision::show_formats(*show, std::cout); });

  auto set = std::make_shared<precision::FormatSetRequest>();
  CLI::App* st = cmd->add_subcommand("set", "Set layers' formats in a compiled network: patches its ALU immediates and bias data, no re-lowering");
  st->add_option("artifact", set->artifact, "Compiled network (.tauvta)")->required();
  st->add_option("changes", set->changes, "LAYER=Qx.y (a layer, its node or its output value; Qx.y with 1 + x + y = W, or frac_bits)")->required();
  st->add_option("-o,--output", set->out, "Write the patched network here (default: in place, with --force)");
  st->add_flag("--force", set->force, "Overwrite the output (or patch the artifact in place)");
  st->callback([set] { precision::set_formats_in_artifact(*set, std::cout); });

  auto tune = std::make_shared<precision::PrecisionTuneRequest>();
  CLI::App* t = cmd->add_subcommand("tune", "Tune per-layer formats (OTune's loop or a search) on a labelled dataset");
  add_model_args(t, tune->model);
  t->add_option("--images", tune->images, "IDX images (pixels / 255)")->required();
  t->add_option("--labels", tune->labels, "IDX labels")->required();
  t->add_option("--out", tune->out, "Directory for tuned.tauvta, result.json, steps.csv, layers.csv and checkpoint.json")->required();
  t->add_option("--start", tune->start, "Starting formats: calibrated (default), q0 (Q0.(W-1) everywhere) or a file of LAYER=Qx.y lines "
                                               "(layers it does not name start calibrated)");
  t->add_option("--mode", tune->mode, "otune (default): move overflowing layers until all are under --threshold; search: "
                                      "coordinate descent for tuning-split accuracy");
  t->add_option("--threshold", tune->threshold, "OTune: overflow rate every layer must reach (default 1e-4)");
  t->add_option("--limit", tune->limit, "Evaluations at most (default 64)");
  t->add_option("--radius", tune->radius, "Search: binary point moves tried per layer each way (default 2)");
  t->add_option("--min-gain", tune->min_gain, "Search: keep a move only when it raises tuning-split accuracy by more than this "
                                              "(a fraction; default 0)")->check(CLI::Range(0.0, 1.0));
  t->add_option("--tune-images", tune->tune_images, "Images [0, N) are the tuning split (default 2000); the rest are held out");
  t->add_option("--holdout", tune->holdout, "Held-out images evaluated at the end (default: all the rest)");
  t->add_option("--batch", tune->batch, "Images per simulated run (default 50)");
  t->add_option("--boards", tune->boards, "Simulated boards in parallel (default: one per core)");
  t->add_flag("-q,--quiet", tune->quiet, "No progress lines");
  t->add_option("--html", tune->html,
                 "Self-contained HTML report: ranges against each format, overflow rates and maps, accuracy per step");
  t->callback([tune] { precision::tune_formats(*tune, std::cout); });
}

static const CommandRegistrar kPrecisionRegistrar("precision", add_precision_command);

}  // namespace tauvta::cli
