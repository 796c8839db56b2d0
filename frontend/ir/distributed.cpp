// Text forms of distributed Relax: placements ("S[1], R") and device-mesh references
// ("mesh[0]"), with TVM's relax.distributed spelling.
#include "frontend/ir/distributed.h"

#include <cctype>

namespace raxc::ir {

int64_t DeviceMesh::device_count() const {
  if (device_range) return device_range->second - device_range->first;
  return int64_t(device_ids.size());
}

namespace {
// Reads a non-negative decimal integer at `i`; nullopt when there is none or it overflows int.
std::optional<int> read_index(std::string_view text, size_t& i) {
  size_t start = i;
  int64_t value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    value = value * 10 + (text[i] - '0');
    if (value > INT32_MAX) return std::nullopt;
    ++i;
  }
  if (i == start) return std::nullopt;
  return int(value);
}
}  // namespace

// TVM reads the text character by character, skipping commas and spaces between entries, so
// "S[1]R" and "S[1], R" are the same placement; an empty text is an empty placement (a 0-d
// mesh never occurs, and the length check against the mesh reports it).
std::optional<Placement> parse_placement(std::string_view text) {
  Placement placement;
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == ',' || c == ' ') {
      ++i;
    } else if (c == 'R') {
      placement.push_back(kReplica);
      ++i;
    } else if (c == 'S') {
      ++i;
      if (i >= text.size() || text[i] != '[') return std::nullopt;
      ++i;
      std::optional<int> axis = read_index(text, i);
      if (!axis || i >= text.size() || text[i] != ']') return std::nullopt;
      ++i;
      placement.push_back(*axis);
    } else {
      return std::nullopt;
    }
  }
  return placement;
}

std::string placement_text(const Placement& placement) {
  std::string text;
  for (size_t i = 0; i < placement.size(); ++i) {
    if (i) text += ", ";
    text += placement[i] == kReplica ? "R" : "S[" + std::to_string(placement[i]) + "]";
  }
  return text;
}

std::optional<std::pair<std::string, int64_t>> parse_mesh_reference(std::string_view text) {
  size_t open = text.find('[');
  if (open == std::string_view::npos || open == 0 || text.back() != ']') return std::nullopt;
  size_t i = open + 1;
  std::optional<int> index = read_index(text, i);
  if (!index || i != text.size() - 1) return std::nullopt;
  return std::pair{std::string(text.substr(0, open)), int64_t(*index)};
}

namespace {
std::string int_list(const std::vector<int64_t>& values, bool as_tuple) {
  std::string text = as_tuple ? "(" : "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(values[i]);
  }
  if (as_tuple && values.size() == 1) text += ",";
  return text + (as_tuple ? ")" : "]");
}
}  // namespace

std::string mesh_reference_text(const DeviceMesh& mesh) {
  if (!mesh.global_info_key.empty())
    return mesh.global_info_key + "[" + std::to_string(mesh.index) + "]";
  std::string devices = mesh.device_range
                            ? "I.Range(" + std::to_string(mesh.device_range->first) + ", " +
                                  std::to_string(mesh.device_range->second) + ")"
                            : int_list(mesh.device_ids, false);
  return "R.device_mesh(" + int_list(mesh.shape, true) + ", " + devices + ")";
}

bool same_mesh(const DeviceMesh* a, const DeviceMesh* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (!a->global_info_key.empty() && !b->global_info_key.empty())
    return a->global_info_key == b->global_info_key && a->index == b->index;
  return a->shape == b->shape && a->device_range == b->device_range &&
         a->device_ids == b->device_ids;
}

bool same_distribution(const Distribution* a, const Distribution* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return same_mesh(a->mesh, b->mesh) && a->placement == b->placement;
}

}  // namespace raxc::ir
