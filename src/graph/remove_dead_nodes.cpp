#include <algorithm>
#include <set>

#include "graph/passes.h"

namespace tauvta::graph {

Graph remove_dead_nodes(const Graph& input) {
  Graph g = input;
  std::set<std::string> live(g.outputs.begin(), g.outputs.end());
  std::vector<bool> keep(g.nodes.size(), false);
  for (size_t k = g.nodes.size(); k-- > 0;) {
    const Node& n = g.nodes[k];
    keep[k] = std::any_of(n.outputs.begin(), n.outputs.end(), [&](const std::string& o) { return live.count(o) != 0; });
    if (keep[k]) live.insert(n.inputs.begin(), n.inputs.end());
  }
  std::vector<Node> nodes;
  std::set<std::string> exists(g.inputs.begin(), g.inputs.end());
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    if (!keep[k]) continue;
    exists.insert(g.nodes[k].outputs.begin(), g.nodes[k].outputs.end());
    nodes.push_back(std::move(g.nodes[k]));
  }
  g.nodes = std::move(nodes);
  std::erase_if(g.initializers, [&](const auto& kv) { return live.count(kv.first) == 0; });
  for (const auto& [name, t] : g.initializers) exists.insert(name);
  std::erase_if(g.values, [&](const auto& kv) { return exists.count(kv.first) == 0; });
  verify(g);
  return g;
}

}  // namespace tauvta::graph
