// Lowering of distributed Relax's device meshes and placements (TVM's relax.distributed):
// shared by the module's global infos, R.DTensor annotations and the R.dist.* operators.
#pragma once
#include <optional>

#include "frontend/ir/distributed.h"
#include "frontend/lower/relax_lower.h"

namespace raxc::lower {

// A call of R.device_mesh (or R.dist.device_mesh).
bool is_device_mesh_call(const LowerContext& ctx, TSNode node);

// R.device_mesh(shape, I.Range(begin, end) | [device ids]) as a mesh made in `arena`; RX1216 and
// null when malformed.
ir::DeviceMesh* lower_device_mesh(LowerContext& ctx, ir::Arena& arena, TSNode call);

// A device_mesh argument: "name[index]" naming a mesh of the global infos (RX1217-RX1219
// otherwise), or an inline R.device_mesh(...) (made in ctx.arena).
const ir::DeviceMesh* resolve_device_mesh(LowerContext& ctx, TSNode node);

// A placement string for `mesh`: well formed (RX1220) with one entry per mesh dimension (RX1221).
std::optional<ir::Placement> lower_placement(LowerContext& ctx, TSNode node,
                                             const ir::DeviceMesh& mesh);

// Every sharded axis exists in a tensor of rank `ndim` (RX1222 at `at`; an unknown rank has none,
// as in TVM's DTensorStructInfo).
bool check_sharded_axes(LowerContext& ctx, const ir::Placement& placement, int ndim, Span at);

}  // namespace raxc::lower
