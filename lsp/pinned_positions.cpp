// Pinning request positions through edits (pinned_positions.h).
#include "lsp/pinned_positions.h"

#include <functional>

namespace raxc::lsp {

using json = nlohmann::json;

PinnedPositions::PinnedPositions(const json& params, const SourceFile& text,
                                 PositionEncoding encoding) {
  std::function<void(const json&, const json::json_pointer&)> walk =
      [&](const json& value, const json::json_pointer& at) {
        if (auto position = parse_position(value)) {
          pins_.push_back({at, offset_at(text, *position, encoding)});
          return;
        }
        if (value.is_object())
          for (auto it = value.begin(); it != value.end(); ++it) walk(it.value(), at / it.key());
        else if (value.is_array())
          for (size_t i = 0; i < value.size(); ++i) walk(value[i], at / i);
      };
  walk(params, json::json_pointer());
}

bool PinnedPositions::follow(const std::vector<frontend::TextEdit>& edits) {
  for (const frontend::TextEdit& edit : edits) {
    for (auto& [at, offset] : pins_) {
      if (offset < edit.begin || (offset == edit.begin && edit.begin == edit.end)) continue;
      if (offset < edit.end || offset == edit.begin) return false;  // its text was replaced
      offset = offset - (edit.end - edit.begin) + static_cast<uint32_t>(edit.text.size());
    }
  }
  return true;
}

json PinnedPositions::place(json params, const SourceFile& text, PositionEncoding encoding) const {
  for (const auto& [at, offset] : pins_) params[at] = to_json(position_at(text, offset, encoding));
  return params;
}

}  // namespace raxc::lsp
