// Distributed Relax in lowering: R.device_mesh(...) declarations of the global infos, and the
// device mesh / placement pair that R.DTensor annotations and the R.dist.* operators name
// (TVM's relax.distributed). Every check TVM makes when it builds these objects is made here,
// where the text is, so a mistake is reported once at its string.
#include "frontend/lower/distributed.h"

#include "frontend/lower/literals.h"

namespace raxc::lower {

using cst::Field;
using cst::Kind;

namespace {

void report(LowerContext& ctx, DiagPayload what, Span at) {
  ctx.diags.report(make_diagnostic(std::move(what), at));
}

// A list or tuple of integer literals; nullopt (nothing reported) for anything else.
std::optional<std::vector<int64_t>> int_list(LowerContext& ctx, TSNode node) {
  while (ctx.cst.is(node, Kind::parenthesized_expression)) node = ctx.cst.field(node, Field::value);
  if (!ctx.cst.is(node, Kind::list) && !ctx.cst.is(node, Kind::tuple)) return std::nullopt;
  std::vector<int64_t> values;
  for (TSNode item : ctx.cst.named_children(node)) {
    if (!ctx.cst.is(item, Kind::integer)) return std::nullopt;
    std::optional<IntLiteral> v = parse_int_literal(ctx.cst.text(item));
    if (!v || v->overflow || v->magnitude > uint64_t(INT32_MAX)) return std::nullopt;
    values.push_back(int64_t(v->magnitude));
  }
  return values;
}

// I.Range(begin, end) (T.Range inside a lone function, as TVM prints an inline mesh).
std::optional<std::pair<int64_t, int64_t>> device_range(LowerContext& ctx, TSNode node) {
  if (!ctx.cst.is(node, Kind::call)) return std::nullopt;
  TSNode callee = ctx.cst.field(node, Field::function);
  if (namespace_path(ctx, callee, Namespace::Ir) != "Range" &&
      namespace_path(ctx, callee, Namespace::Tir) != "Range")
    return std::nullopt;
  std::vector<TSNode> args = ctx.cst.named_children(ctx.cst.field(node, Field::arguments));
  if (args.size() != 2) return std::nullopt;
  std::vector<int64_t> bounds;
  for (TSNode a : args) {
    if (!ctx.cst.is(a, Kind::integer)) return std::nullopt;
    std::optional<IntLiteral> v = parse_int_literal(ctx.cst.text(a));
    if (!v || v->overflow || v->magnitude > uint64_t(INT32_MAX)) return std::nullopt;
    bounds.push_back(int64_t(v->magnitude));
  }
  return std::pair{bounds[0], bounds[1]};
}

}  // namespace

bool is_device_mesh_call(const LowerContext& ctx, TSNode node) {
  if (!ctx.cst.is(node, Kind::call)) return false;
  std::string path = namespace_path(ctx, ctx.cst.field(node, Field::function), Namespace::Relax);
  return path == "device_mesh" || path == "dist.device_mesh";
}

ir::DeviceMesh* lower_device_mesh(LowerContext& ctx, ir::Arena& arena, TSNode call) {
  Span at = ctx.cst.span(call);
  TSNode shape{}, devices{};
  size_t position = 0;
  for (TSNode a : ctx.cst.named_children(ctx.cst.field(call, Field::arguments))) {
    if (ctx.cst.is(a, Kind::keyword_argument)) {
      std::string_view key = ctx.cst.text(ctx.cst.field(a, Field::name));
      TSNode v = ctx.cst.field(a, Field::value);
      if (key == "shape") {
        shape = v;
      } else if (key == "device_ids" || key == "device_range") {
        devices = v;
      } else {
        report(
            ctx,
            diag::UnexpectedKeywordArgument{.callee = "R.device_mesh", .keyword = std::string(key)},
            ctx.cst.span(a));
        return nullptr;
      }
      continue;
    }
    if (position == 0) shape = a;
    if (position == 1) devices = a;
    if (position++ >= 2) {
      report(ctx, diag::InvalidDeviceMeshCall{.expected = "two arguments, a shape and the devices"},
             at);
      return nullptr;
    }
  }
  std::optional<std::vector<int64_t>> dims;
  if (!ts_node_is_null(shape)) dims = int_list(ctx, shape);
  if (!dims || dims->empty()) {
    report(ctx,
           diag::InvalidDeviceMeshCall{.expected = "a shape: a tuple of integers such as (2, 2)"},
           ts_node_is_null(shape) ? at : ctx.cst.span(shape));
    return nullptr;
  }
  auto* mesh = arena.make<ir::DeviceMesh>();
  mesh->shape = *dims;
  mesh->span = at;
  if (!ts_node_is_null(devices)) {
    mesh->device_range = device_range(ctx, devices);
    if (!mesh->device_range) {
      if (std::optional<std::vector<int64_t>> ids = int_list(ctx, devices)) mesh->device_ids = *ids;
    }
  }
  if (ts_node_is_null(devices) || (!mesh->device_range && mesh->device_ids.empty())) {
    report(ctx,
           diag::InvalidDeviceMeshCall{
               .expected = "the devices: I.Range(begin, end) or a list of device ids"},
           ts_node_is_null(devices) ? at : ctx.cst.span(devices));
    return nullptr;
  }
  // TVM's DeviceMesh requires as many devices as the shape has places.
  int64_t places = 1;
  for (int64_t d : mesh->shape) places *= d;
  if (mesh->device_count() != places) {
    report(ctx,
           diag::InvalidDeviceMeshCall{.expected = std::to_string(places) +
                                                   " device(s) for its shape, not " +
                                                   std::to_string(mesh->device_count())},
           ctx.cst.span(devices));
    return nullptr;
  }
  return mesh;
}

const ir::DeviceMesh* resolve_device_mesh(LowerContext& ctx, TSNode node) {
  if (is_device_mesh_call(ctx, node)) return lower_device_mesh(ctx, *ctx.arena, node);
  std::optional<std::string> text;
  if (ctx.cst.is(node, Kind::string)) text = string_value(ctx, node);
  std::optional<std::pair<std::string, int64_t>> ref;
  if (text) ref = ir::parse_mesh_reference(*text);
  Span at = ctx.cst.span(node);
  if (!ref) {
    report(
        ctx,
        diag::MalformedDeviceMeshReference{.mesh = text.value_or(std::string(ctx.cst.text(node)))},
        at);
    return nullptr;
  }
  if (const ir::DeviceMesh* mesh = ctx.module.find_mesh(ref->first, ref->second)) return mesh;
  int64_t count = 0;
  for (const ir::DeviceMesh* m : ctx.module.device_meshes)
    count += m->global_info_key == ref->first;
  if (count == 0)
    report(ctx, diag::UndefinedDeviceMesh{.mesh = *text, .key = ref->first}, at);
  else
    report(ctx, diag::DeviceMeshIndexOutOfRange{.mesh = *text, .count = count, .key = ref->first},
           at);
  return nullptr;
}

std::optional<ir::Placement> lower_placement(LowerContext& ctx, TSNode node,
                                             const ir::DeviceMesh& mesh) {
  std::optional<std::string> text;
  if (ctx.cst.is(node, Kind::string)) text = string_value(ctx, node);
  std::optional<ir::Placement> placement;
  if (text) placement = ir::parse_placement(*text);
  Span at = ctx.cst.span(node);
  if (!placement) {
    report(ctx,
           diag::MalformedPlacement{.placement = text.value_or(std::string(ctx.cst.text(node)))},
           at);
    return std::nullopt;
  }
  if (placement->size() != mesh.ndim()) {
    report(ctx,
           diag::PlacementMeshRankMismatch{.placement = *text,
                                           .count = placement->size(),
                                           .mesh = ir::mesh_reference_text(mesh),
                                           .mesh_ndim = mesh.ndim()},
           at);
    return std::nullopt;
  }
  return placement;
}

bool check_sharded_axes(LowerContext& ctx, const ir::Placement& placement, int ndim, Span at) {
  for (int axis : placement) {
    if (axis == ir::kReplica || (ndim >= 0 && axis < ndim)) continue;
    report(ctx,
           diag::ShardingAxisOutOfRange{
               .placement = ir::placement_text(placement),
               .axis = axis,
               .ndim = ndim < 0 ? "an unknown ndim" : "ndim " + std::to_string(ndim)},
           at);
    return false;
  }
  return true;
}

}  // namespace raxc::lower
