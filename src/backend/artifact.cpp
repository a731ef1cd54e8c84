#include "backend/artifact.h"

#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_parse.h"
#include "hw/isa_layout.h"

namespace tauvta::backend {

namespace {

using nlohmann::json;
constexpr char kMagic[8] = {'T', 'A', 'U', 'V', 'T', 'A', '\x1a', '\n'};

uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// Appends binary sections to the blob and reads them back with bounds checks.
struct Blob {
  std::vector<uint8_t> bytes;
  json put(const uint8_t* p, size_t n) {
    const size_t at = bytes.size();
    bytes.insert(bytes.end(), p, p + n);
    return json{{"offset", at}, {"bytes", n}};
  }
};

struct BlobReader {
  const uint8_t* data;
  uint64_t size;
  const std::string& source;
  std::pair<const uint8_t*, uint64_t> get(const json& ref) const {
    const uint64_t off = ref.at("offset").get<uint64_t>(), n = ref.at("bytes").get<uint64_t>();
    if (off > size || n > size - off) {
      throw Error(fmt::format("{}: corrupted artifact: a section [{}, +{}) lies past the {}-byte blob", source, off, n, size));
    }
    return {data + off, n};
  }
};

json tensor_json(const graph::Tensor& t, Blob& blob) {
  json j = blob.put(t.raw(), t.byte_size());
  j["dtype"] = int(t.dtype());
  j["shape"] = t.shape();
  return j;
}

graph::Tensor tensor_from(const json& j, const BlobReader& r) {
  const int dt = j.at("dtype").get<int>();
  if (dt < 0 || dt >= graph::kNumDTypes) throw Error(fmt::format("{}: corrupted artifact: dtype {}", r.source, dt));
  const graph::Shape shape = j.at("shape").get<graph::Shape>();
  for (const int64_t d : shape) {
    if (d < 0) throw Error(fmt::format("{}: corrupted artifact: a tensor of shape {}", r.source, graph::shape_string(shape)));
  }
  // The section's length against the shape before the tensor is allocated.
  const auto [p, n] = r.get(j);
  const int64_t need = graph::tensor_bytes(graph::DType(dt), shape);  // saturates
  if (n != uint64_t(need)) throw Error(fmt::format("{}: corrupted artifact: a tensor of {} bytes holds {}", r.source, need, n));
  graph::Tensor t(graph::DType(dt), shape);
  if (n) std::memcpy(t.raw(), p, n);
  return t;
}

json attr_json(const graph::AttrValue& a, Blob& blob) {
  return std::visit(
      [&](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) return {{"int", v}};
        if constexpr (std::is_same_v<T, float>) return {{"float", v}};
        if constexpr (std::is_same_v<T, std::string>) return {{"string", v}};
        if constexpr (std::is_same_v<T, std::vector<int64_t>>) return {{"ints", v}};
        if constexpr (std::is_same_v<T, std::vector<float>>) return {{"floats", v}};
        if constexpr (std::is_same_v<T, std::vector<std::string>>) return {{"strings", v}};
        if constexpr (std::is_same_v<T, graph::Tensor>) return {{"tensor", tensor_json(v, blob)}};
      },
      a);
}

graph::AttrValue attr_from(const json& j, const BlobReader& r) {
  if (j.contains("int")) return j.at("int").get<int64_t>();
  if (j.contains("float")) return j.at("float").get<float>();
  if (j.contains("string")) return j.at("string").get<std::string>();
  if (j.contains("ints")) return j.at("ints").get<std::vector<int64_t>>();
  if (j.contains("floats")) return j.at("floats").get<std::vector<float>>();
  if (j.contains("strings")) return j.at("strings").get<std::vector<std::string>>();
  if (j.contains("tensor")) return tensor_from(j.at("tensor"), r);
  throw Error(fmt::format("{}: corrupted artifact: an attribute of unknown type", r.source));
}

json graph_json(const graph::Graph& g, Blob& blob) {
  json j;
  j["name"] = g.name;
  j["opset"] = g.opset;
  j["inputs"] = g.inputs;
  j["outputs"] = g.outputs;
  json nodes = json::array();
  for (const graph::Node& n : g.nodes) {
    json a = json::object();
    for (const auto& [k, v] : n.attrs) a[k] = attr_json(v, blob);
    nodes.push_back({{"name", n.name}, {"op", n.op_type}, {"inputs", n.inputs}, {"outputs", n.outputs}, {"attrs", a}});
  }
  j["nodes"] = nodes;
  json inits = json::object();
  for (const auto& [k, t] : g.initializers) inits[k] = tensor_json(t, blob);
  j["initializers"] = inits;
  json values = json::object();
  for (const auto& [k, v] : g.values) {
    values[k] = {{"dtype", int(v.dtype)}, {"shape", v.shape}, {"known", v.known_shape},
                 {"bits", v.quant.bits}, {"frac", v.quant.frac_bits}, {"channel_frac", v.quant.channel_frac_bits}};
  }
  j["values"] = values;
  return j;
}

graph::Graph graph_from(const json& j, const BlobReader& r) {
  graph::Graph g;
  g.name = j.at("name").get<std::string>();
  g.opset = j.at("opset").get<int64_t>();
  g.inputs = j.at("inputs").get<std::vector<std::string>>();
  g.outputs = j.at("outputs").get<std::vector<std::string>>();
  for (const json& n : j.at("nodes")) {
    graph::Node node;
    node.name = n.at("name").get<std::string>();
    node.op_type = n.at("op").get<std::string>();
    node.inputs = n.at("inputs").get<std::vector<std::string>>();
    node.outputs = n.at("outputs").get<std::vector<std::string>>();
    for (const auto& [k, v] : n.at("attrs").items()) node.attrs[k] = attr_from(v, r);
    g.nodes.push_back(std::move(node));
  }
  for (const auto& [k, v] : j.at("initializers").items()) g.initializers[k] = tensor_from(v, r);
  for (const auto& [k, v] : j.at("values").items()) {
    graph::ValueInfo vi;
    vi.name = k;
    const int dt = v.at("dtype").get<int>();
    if (dt < 0 || dt >= graph::kNumDTypes) throw Error(fmt::format("{}: corrupted artifact: dtype {}", r.source, dt));
    vi.dtype = graph::DType(dt);
    vi.shape = v.at("shape").get<graph::Shape>();
    vi.known_shape = v.at("known").get<bool>();
    vi.quant.bits = v.at("bits").get<int>();
    vi.quant.frac_bits = v.at("frac").get<int>();
    vi.quant.channel_frac_bits = v.at("channel_frac").get<std::vector<int>>();
    g.values[k] = vi;
  }
  graph::verify(g);
  return g;
}

// The manifest's numbers are integers except under these keys. nlohmann converts a float read into
// an integer field with a cast, undefined for one out of range (a layer's macs of 1e300), so a
// float anywhere else is refused before any field is read. Iterative: the manifest comes from the
// file.
void check_manifest_numbers(const json& manifest, const std::string& source) {
  static const std::set<std::string> float_keys = {"compile_seconds", "lower_seconds", "percentile", "float", "floats",
                                                   "CLOCK_MHZ", "DRAM_BANDWIDTH_GBPS", "PEAK_GOPS", "HLS_MHZ"};
  std::vector<std::pair<const json*, const std::string*>> todo = {{&manifest, nullptr}};
  while (!todo.empty()) {
    const auto [v, key] = todo.back();
    todo.pop_back();
    if (v->is_object()) {
      for (auto it = v->begin(); it != v->end(); ++it) todo.emplace_back(&it.value(), &it.key());
    } else if (v->is_array()) {
      for (const json& e : *v) todo.emplace_back(&e, key);
    } else if (v->is_number_float() && !(key && float_keys.count(*key))) {
      throw Error(fmt::format("{}: corrupted artifact manifest: {} = {} is not an integer", source,
                              key ? *key : std::string("a value"), v->dump()));
    }
  }
}

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

uint64_t get_u64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

}  // namespace

std::vector<uint8_t> serialize_network(const CompiledNetwork& net) {
  Blob blob;
  json m;
  m["format"] = "tauvta compiled network";
  m["config"] = net.config.to_json();
  m["config_name"] = net.config.name();
  m["graph"] = graph_json(net.graph, blob);
  json layers = json::array();
  for (const NetworkLayer& l : net.layers) {
    json j = {{"name", l.name}, {"op", l.op}, {"nodes", l.nodes}, {"placement", placement_name(l.placement)},
              {"reason", l.reason}, {"schedule_source", l.schedule_source}, {"macs", l.macs},
              {"program_layer", l.program_layer}, {"cpu_part", l.cpu_part}, {"inputs", l.inputs},
              {"outputs", l.outputs}};
    if (l.workload) j["workload"] = lower::workload_to_json(*l.workload);
    if (l.schedule && l.workload) j["schedule"] = l.schedule->to_entity(l.workload->kind);
    layers.push_back(j);
  }
  m["layers"] = layers;
  json parts = json::array();
  for (const graph::Graph& p : net.cpu_parts) parts.push_back(p.nodes.empty() ? "" : p.nodes[0].name);
  m["cpu_parts"] = parts;
  json dv = json::object();
  for (const auto& [k, forms] : net.dram_values) {
    json fs = json::array();
    for (const DramValue& d : forms) {
      fs.push_back({{"shape", {d.shape.n, d.shape.c, d.shape.h, d.shape.w}}, {"block", d.block}, {"region", d.region}});
    }
    dv[k] = fs;
  }
  m["dram_values"] = dv;
  m["views"] = net.views;
  json folds = json::object();
  for (const auto& [k, f] : net.folds) {
    folds[k] = {{"source", f.source}, {"kernel_w", f.kernel_w}, {"stride_w", f.stride_w}, {"pad_left", f.pad_left},
                {"dilation_w", f.dilation_w}, {"out_w", f.out_w}};
    if (f.rows()) {
      folds[k]["kernel_h"] = f.kernel_h;
      folds[k]["stride_h"] = f.stride_h;
      folds[k]["pad_top"] = f.pad_top;
      folds[k]["dilation_h"] = f.dilation_h;
      folds[k]["out_h"] = f.out_h;
    }
    if (!f.constants.empty()) folds[k]["constants"] = f.constants;
  }
  m["folds"] = folds;
  if (net.quant_source) {
    const graph::QuantizeOptions& q = net.quant_source->options;
    m["quant_source"] = {{"float_graph", graph_json(net.quant_source->float_graph, blob)},
                         {"act_bits", q.act_bits}, {"wgt_bits", q.wgt_bits}, {"acc_bits", q.acc_bits},
                         {"act_stat", graph::calib_statistic_name(q.act_stat)}, {"percentile", q.percentile},
                         {"wgt_stat", graph::calib_statistic_name(q.wgt_stat)}, {"per_channel", q.per_channel},
                         {"formats", q.formats}};
  }
  m["compile_seconds"] = net.compile_seconds;
  m["lower_seconds"] = net.lower_seconds;
  const lower::Program& p = net.program;
  json prog;
  prog["image_bytes"] = p.image_bytes;
  prog["alignment"] = p.alignment;
  json pl = json::array();
  for (const lower::ProgramLayer& l : p.layers) {
    json imms = json::array(), cs = json::array();
    for (const lower::ImmSite& x : l.sites.imms) imms.push_back({x.stream, x.insn, x.requant, int(x.role), x.piece});
    for (const lower::ConstSite& x : l.sites.consts) cs.push_back({x.offset, x.bytes, x.requant, int(x.role)});
    pl.push_back({{"name", l.name}, {"first_stream", l.first_stream}, {"streams", l.num_streams}, {"insns", l.num_insns},
                  {"patch_sites", {{"imms", imms}, {"consts", cs}}}});
  }
  prog["layers"] = pl;
  json regions = json::object();
  for (const auto& [k, r] : p.regions) regions[k] = {{"offset", r.offset}, {"bytes", r.bytes}};
  prog["regions"] = regions;
  const hw::IsaLayout layout(net.config);
  json streams = json::array();
  for (const lower::ProgramStream& s : p.streams) {
    std::vector<uint8_t> raw;
    raw.reserve(s.insns.size() * 16);
    for (const hw::Insn& insn : s.insns) {
      const hw::RawInsn r = layout.encode(insn);
      for (int i = 0; i < 8; ++i) raw.push_back(uint8_t(r.lo >> (8 * i)));
      for (int i = 0; i < 8; ++i) raw.push_back(uint8_t(r.hi >> (8 * i)));
    }
    json j = blob.put(raw.data(), raw.size());
    j["layer"] = s.layer;
    streams.push_back(j);
  }
  prog["streams"] = streams;
  json consts = json::array();
  for (const lower::DramChunk& c : p.constants) {
    json j = blob.put(c.bytes.data(), c.bytes.size());
    j["image_offset"] = c.offset;
    consts.push_back(j);
  }
  prog["constants"] = consts;
  m["program"] = prog;

  const std::string manifest = m.dump();
  std::vector<uint8_t> out(kMagic, kMagic + 8);
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(kArtifactVersion >> (8 * i)));
  put_u64(out, manifest.size());
  out.insert(out.end(), manifest.begin(), manifest.end());
  put_u64(out, blob.bytes.size());
  out.insert(out.end(), blob.bytes.begin(), blob.bytes.end());
  put_u64(out, fnv1a(out.data(), out.size()));
  return out;
}

CompiledNetwork deserialize_network(const std::vector<uint8_t>& b, const std::string& source) {
  if (b.size() < 12 || std::memcmp(b.data(), kMagic, 8) != 0) {
    throw Error(fmt::format("{}: not a tauvta compiled network (no TAUVTA header)", source));
  }
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= uint32_t(b[size_t(8 + i)]) << (8 * i);
  if (version != kArtifactVersion) {
    throw Error(fmt::format("{}: written by artifact format version {}, this tauvta reads version {}: "
                            "compile the model again",
                            source, version, kArtifactVersion));
  }
  auto truncated = [&] { return Error(fmt::format("{}: truncated artifact ({} bytes)", source, b.size())); };
  if (b.size() < 12 + 8 + 8 + 8) throw truncated();
  const uint64_t mlen = get_u64(b.data() + 12);
  if (mlen > b.size() - 20 - 16) throw truncated();
  const uint64_t blob_at = 20 + mlen;
  const uint64_t blen = get_u64(b.data() + blob_at);
  if (blen > b.size() - blob_at - 8 - 8) throw truncated();
  const uint64_t sum_at = blob_at + 8 + blen;
  if (sum_at + 8 != b.size()) throw Error(fmt::format("{}: corrupted artifact: {} trailing bytes", source, b.size() - sum_at - 8));
  if (get_u64(b.data() + sum_at) != fnv1a(b.data(), sum_at)) {
    throw Error(fmt::format("{}: corrupted artifact: checksum mismatch", source));
  }
  const BlobReader r{b.data() + blob_at + 8, blen, source};
  try {
    const json m = parse_json_bounded(source, b.begin() + 20, b.begin() + int64_t(blob_at));
    check_manifest_numbers(m, source);
    CompiledNetwork net;
    net.config = hw::HwConfig::from_json(m.at("config"), source + " config");
    net.graph = graph_from(m.at("graph"), r);
    for (const json& j : m.at("layers")) {
      NetworkLayer l;
      l.name = j.at("name");
      l.op = j.at("op");
      l.nodes = j.at("nodes").get<std::vector<std::string>>();
      l.placement = j.at("placement") == "vta" ? Placement::kVta : Placement::kCpu;
      l.reason = j.at("reason");
      l.schedule_source = j.at("schedule_source");
      l.macs = j.at("macs");
      l.program_layer = j.at("program_layer");
      l.cpu_part = j.at("cpu_part");
      l.inputs = j.at("inputs").get<std::vector<std::string>>();
      l.outputs = j.at("outputs").get<std::vector<std::string>>();
      if (j.contains("workload")) l.workload = lower::workload_from_json(j.at("workload"));
      if (j.contains("schedule")) l.schedule = lower::Schedule::from_entity(j.at("schedule"));
      net.layers.push_back(std::move(l));
    }
    for (const json& name : m.at("cpu_parts")) {
      const graph::Node* node = net.graph.node(name.get<std::string>());
      if (!node) throw Error(fmt::format("{}: corrupted artifact: CPU layer '{}' is not in the graph", source, name.get<std::string>()));
      net.cpu_parts.push_back(cpu_part_graph(net.graph, *node));
    }
    for (const auto& [k, fs] : m.at("dram_values").items()) {
      for (const json& f : fs) {
        DramValue d;
        d.shape = {f.at("shape").at(0), f.at("shape").at(1), f.at("shape").at(2), f.at("shape").at(3)};
        d.block = f.at("block");
        d.region = f.at("region");
        net.dram_values[k].push_back(d);
      }
    }
    net.views = m.at("views").get<std::map<std::string, std::string>>();
    for (const auto& [k, f] : m.at("folds").items()) {
      InputFold& fold = net.folds[k];
      fold.source = f.at("source");
      fold.kernel_w = f.at("kernel_w");
      fold.stride_w = f.at("stride_w");
      fold.pad_left = f.at("pad_left");
      fold.dilation_w = f.at("dilation_w");
      fold.out_w = f.at("out_w");
      if (f.contains("out_h")) {  // rows folded too (artifacts before row folding fold columns only)
        fold.kernel_h = f.at("kernel_h");
        fold.stride_h = f.at("stride_h");
        fold.pad_top = f.at("pad_top");
        fold.dilation_h = f.at("dilation_h");
        fold.out_h = f.at("out_h");
      }
      if (f.contains("constants")) fold.constants = f.at("constants").get<std::vector<int64_t>>();
      if (fold.constants.size() > 4096) throw Error(fmt::format("{}: corrupted artifact: fold '{}' has {} constant lanes", source, k, fold.constants.size()));
      for (const int64_t v : {fold.kernel_w, fold.stride_w, fold.dilation_w, fold.out_w, fold.kernel_h, fold.stride_h, fold.dilation_h}) {
        if (v < 1 || v > (int64_t(1) << 20)) throw Error(fmt::format("{}: corrupted artifact: fold '{}' has a size or step of {}", source, k, v));
      }
      if (fold.out_h < -1 || fold.out_h > (int64_t(1) << 20)) throw Error(fmt::format("{}: corrupted artifact: fold '{}' has out_h {}", source, k, fold.out_h));
    }
    if (m.contains("quant_source")) {
      const json& q = m.at("quant_source");
      CompiledNetwork::QuantSource src;
      src.float_graph = graph_from(q.at("float_graph"), r);
      src.options.act_bits = q.at("act_bits");
      src.options.wgt_bits = q.at("wgt_bits");
      src.options.acc_bits = q.at("acc_bits");
      src.options.act_stat = graph::parse_calib_statistic(q.at("act_stat"));
      src.options.percentile = q.at("percentile");
      src.options.wgt_stat = graph::parse_calib_statistic(q.at("wgt_stat"));
      src.options.per_channel = q.at("per_channel");
      src.options.formats = q.at("formats").get<std::map<std::string, int>>();
      net.quant_source = std::move(src);
    }
    net.compile_seconds = m.at("compile_seconds");
    net.lower_seconds = m.at("lower_seconds");
    const json& prog = m.at("program");
    lower::Program& p = net.program;
    p.config = net.config;
    p.image_bytes = prog.at("image_bytes");
    p.alignment = prog.at("alignment");
    // A board's DRAM image: VTA addresses DRAM with 32-bit element indices, so no program needs
    // more than this; a larger value is a corrupted file, not a DRAM to reserve.
    constexpr uint64_t kMaxImageBytes = uint64_t(1) << 40;
    if (p.image_bytes > kMaxImageBytes) {
      throw Error(fmt::format("{}: corrupted artifact: program image_bytes {} is over the 2^40-byte limit", source, p.image_bytes));
    }
    if (p.alignment == 0 || (p.alignment & (p.alignment - 1)) != 0 || p.alignment > (uint64_t(1) << 30)) {
      throw Error(fmt::format("{}: corrupted artifact: program alignment {} is not a power of two up to 2^30", source, p.alignment));
    }
    for (const json& l : prog.at("layers")) {
      lower::ProgramLayer pl{l.at("name"), l.at("first_stream"), l.at("streams"), l.at("insns"), {}};
      if (l.contains("patch_sites")) {
        for (const json& x : l.at("patch_sites").at("imms")) {
          const int role = x.at(3);
          if (role < 0 || role > int(lower::ImmRole::kShl)) throw Error(fmt::format("{}: corrupted artifact: patch site role {}", source, role));
          pl.sites.imms.push_back({x.at(0), x.at(1), x.at(2), lower::ImmRole(role), x.at(4)});
        }
        for (const json& x : l.at("patch_sites").at("consts")) {
          const int role = x.at(3);
          if (role < 0 || role > int(lower::ConstRole::kWeights)) throw Error(fmt::format("{}: corrupted artifact: patch site role {}", source, role));
          pl.sites.consts.push_back({x.at(0), x.at(1), x.at(2), lower::ConstRole(role)});
        }
      }
      p.layers.push_back(std::move(pl));
    }
    for (const auto& [k, v] : prog.at("regions").items()) {
      const lower::DramRegion reg{v.at("offset"), v.at("bytes")};
      if (reg.offset > p.image_bytes || reg.bytes > p.image_bytes - reg.offset) {
        throw Error(fmt::format("{}: corrupted artifact: region '{}' lies outside the image", source, k));
      }
      p.regions[k] = reg;
    }
    const hw::IsaLayout layout(net.config);
    for (const json& s : prog.at("streams")) {
      const auto [ptr, n] = r.get(s);
      if (n % 16 != 0 || n == 0) throw Error(fmt::format("{}: corrupted artifact: a stream of {} bytes", source, n));
      lower::ProgramStream st;
      st.layer = s.at("layer");
      if (st.layer >= p.layers.size()) throw Error(fmt::format("{}: corrupted artifact: a stream names layer {}", source, st.layer));
      for (uint64_t i = 0; i < n / 16; ++i) {
        const hw::RawInsn raw{get_u64(ptr + 16 * i), get_u64(ptr + 16 * i + 8)};
        st.insns.push_back(layout.decode(raw, i));
      }
      p.streams.push_back(std::move(st));
    }
    for (const lower::ProgramLayer& l : p.layers) {
      if (l.first_stream + l.num_streams > p.streams.size()) {
        throw Error(fmt::format("{}: corrupted artifact: layer '{}' names streams past the end", source, l.name));
      }
    }
    for (const json& c : prog.at("constants")) {
      const auto [ptr, n] = r.get(c);
      const uint64_t at = c.at("image_offset");
      if (at > p.image_bytes || n > p.image_bytes - at) {
        throw Error(fmt::format("{}: corrupted artifact: constants outside the image", source));
      }
      p.constants.push_back(lower::DramChunk{at, std::vector<uint8_t>(ptr, ptr + n)});
    }
    for (const NetworkLayer& l : net.layers) {
      if (l.program_layer >= int64_t(p.layers.size()) || l.cpu_part >= int64_t(net.cpu_parts.size())) {
        throw Error(fmt::format("{}: corrupted artifact: layer '{}' points past the program", source, l.name));
      }
    }
    return net;
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: corrupted artifact manifest: {}", source, e.what()));
  }
}

void save_network(const CompiledNetwork& net, const std::filesystem::path& path, bool force) {
  if (!force && std::filesystem::exists(path)) {
    throw Error(fmt::format("{}: file exists; pass --force to overwrite it", path.string()));
  }
  const std::vector<uint8_t> bytes = serialize_network(net);
  write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

CompiledNetwork load_network(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open", path.string()));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return deserialize_network(bytes, path.string());
}

bool is_network_artifact(const std::filesystem::path& path) {
  // A file named .tauvta is read as one, so a damaged artifact gets the artifact's error rather
  // than the ONNX parser's.
  if (path.extension() == ".tauvta") return true;
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, 8);
  return in.gcount() == 8 && std::memcmp(head, kMagic, 8) == 0;
}

}  // namespace tauvta::backend
