// Distributed Relax (TVM's relax.distributed): device meshes declared in the module's global
// infos, placements written as "S[1], R", and the distribution a DTensor StructInfo carries.
// The text forms are parsed and printed here, once, for lowering, analysis and the printer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/span.h"

namespace raxc::ir {

// R.device_mesh(shape, I.Range(begin, end)) or R.device_mesh(shape, [device ids]).
struct DeviceMesh {
  std::vector<int64_t> shape;
  // Exactly one of the two is set: the range form or the explicit device list.
  std::optional<std::pair<int64_t, int64_t>> device_range;
  std::vector<int64_t> device_ids;
  // Where the module declares it ("mesh", 0 for "mesh[0]"); empty key for a mesh written inline
  // in an annotation.
  std::string global_info_key;
  int index = -1;
  Span span;

  size_t ndim() const { return shape.size(); }
  int64_t device_count() const;
};

// One entry per mesh dimension: the tensor axis sharded over it ("S[axis]"), or kReplica ("R").
using Placement = std::vector<int>;
inline constexpr int kReplica = -1;

// TVM's placement text: "R", "S[0]", entries separated by commas and/or spaces ("S[1], R",
// "S[1]R"). nullopt when malformed.
std::optional<Placement> parse_placement(std::string_view text);
// As TVM prints it: "S[1], R".
std::string placement_text(const Placement& placement);

// "mesh[0]" → ("mesh", 0); nullopt when the text is not of that form.
std::optional<std::pair<std::string, int64_t>> parse_mesh_reference(std::string_view text);
// "mesh[0]" for a declared mesh; the R.device_mesh(...) call text for an inline one.
std::string mesh_reference_text(const DeviceMesh& mesh);

// What a DTensor adds to a tensor StructInfo: where it lives and how it is split.
struct Distribution {
  const DeviceMesh* mesh = nullptr;
  Placement placement;
};

// The same mesh: the same declaration, or (inline meshes) the same shape and devices.
bool same_mesh(const DeviceMesh* a, const DeviceMesh* b);
bool same_distribution(const Distribution* a, const Distribution* b);

}  // namespace raxc::ir
