// Inside the ONNX frontend: one node at a time, checked against the operator table and rewritten
// into the one form per operator that the rest of tauvta sees (docs/graph.md, "Import
// normalizations"). Only onnx_import.cpp uses this header.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/onnx_ops.h"

namespace tauvta::graph {

struct ImportContext {
  std::string source;             // the file name (or what the caller called the bytes)
  int64_t opset = 0;              // the model's default-domain opset
  Graph* graph = nullptr;         // inputs and initializers so far; normalized nodes are appended
  std::set<std::string> names;    // every node and value name in use
  std::vector<std::string> legacy_softmax;  // Softmax nodes (opset < 13) to rewrite once ranks are known

  // `base`, or base_1, base_2, ... : a node or value name nobody uses yet (and reserves it).
  std::string fresh(const std::string& base);
  // Adds a constant under a fresh name derived from `base` and returns the name.
  std::string add_constant(const std::string& base, Tensor t);
  // "FILE: node 'x' (Op): <msg>" as an Error.
  [[noreturn]] void fail(const Node& n, const std::string& msg) const;
};

// Checks `n` (arity, attributes allowed at its version, attribute values the frontend supports)
// and appends its normalized form to ctx.graph->nodes (zero nodes for Constant, which becomes an
// initializer). The node's inputs must already be available (nodes arrive in topological order).
void normalize_node(Node n, const OnnxOpSpec& spec, int version, ImportContext& ctx);

// Rewrites the legacy (opset < 13) Softmax nodes recorded in ctx: a softmax over the last axis
// stays one Softmax {axis=-1}; any other axis becomes Flatten -> Softmax -> Reshape(Shape(x)).
void rewrite_legacy_softmax(ImportContext& ctx);

}  // namespace tauvta::graph
