// TIR lowering (text-format.md §6): the three legalized-kernel shapes of §6.8 and the dtype,
// scoping and root-block rules.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "frontend/diagnostics.h"
#include "frontend/lower/context.h"
#include "frontend/lower/prim.h"

namespace raxc::lower {
namespace {

using ir::DataType;
using ir::PrimKind;

const DataType i32 = DataType::Int(32), i64 = DataType::Int(64), f16 = DataType::Float(16),
               f32 = DataType::Float(32);

// Parses a file whose first prim_function (top level or in a module class) is lowered.
struct Lowered {
  std::string text;
  TSParser* parser = ts_parser_new();
  TSTree* tree = nullptr;
  std::unique_ptr<cst::Cst> cst;
  ir::IRModule module;
  DiagnosticSink diags;
  ir::Arena arena;
  std::unique_ptr<LowerContext> ctx;
  const ir::PrimFunc* func = nullptr;

  explicit Lowered(std::string source) : text(std::move(source)) {
    ts_parser_set_language(parser, tree_sitter_relax());
    tree = ts_parser_parse_string(parser, nullptr, text.data(), uint32_t(text.size()));
    cst = std::make_unique<cst::Cst>(text);
    ctx = std::make_unique<LowerContext>(LowerContext{*cst, diags, module, Namespaces(), &arena});
    TSNode def = find(ts_tree_root_node(tree));
    REQUIRE_FALSE(ts_node_is_null(def));
    func = lower_prim_func(*ctx, def);
  }
  ~Lowered() {
    ts_tree_delete(tree);
    ts_parser_delete(parser);
  }
  TSNode find(TSNode node) {
    if (cst->is(node, cst::Kind::prim_function)) return node;
    for (TSNode child : cst->named_children(node)) {
      TSNode found = find(child);
      if (!ts_node_is_null(found)) return found;
    }
    return TSNode{};
  }
  std::string codes() const {
    std::string out;
    for (const Diagnostic& d : diags.diagnostics()) out += std::string(code(d.id)) + " ";
    return out;
  }
  std::string at(Span sp) const { return text.substr(sp.begin, sp.end - sp.begin); }
};

template <class T, class N>
const T* as(const N* node) {
  REQUIRE(node != nullptr);
  const T* t = ir::dyn_cast<T>(node);
  REQUIRE(t != nullptr);
  return t;
}

const ir::Block* root_block(const ir::PrimFunc* f) {
  const auto* root = as<ir::Block>(f->body);
  CHECK(root->is_root);
  CHECK(root->name == "root");
  return root;
}

// ------------------------------------------------------------------ §6.8 (a)
const char* kAddBias = R"(# from tvm.script import tir as T

@T.prim_func(private=True)
def add_bias(x: T.Buffer((T.int64(2), T.int64(3)), "float32"), b: T.Buffer((T.int64(3),), "float32"), T_add: T.Buffer((T.int64(2), T.int64(3)), "float32")):
    T.func_attr({"tir.noalias": True})
    # with T.block("root"):
    for ax0, ax1 in T.grid(T.int64(2), T.int64(3)):
        with T.block("T_add"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(x[v_ax0, v_ax1], b[v_ax1])
            T.writes(T_add[v_ax0, v_ax1])
            T_add[v_ax0, v_ax1] = x[v_ax0, v_ax1] + b[v_ax1]
)";

TEST_CASE("TIR (a): static broadcast kernel", "[lower][tir]") {
  Lowered l(kAddBias);
  CHECK(l.codes() == "");
  const ir::PrimFunc* f = l.func;
  CHECK(f->is_private);
  CHECK_FALSE(f->s_tir);
  REQUIRE(f->params.size() == 3);
  REQUIRE(f->buffer_map.size() == 3);
  const ir::Buffer* x = f->params[0].buffer;
  REQUIRE(x != nullptr);
  CHECK(x->name == "x");
  CHECK(x->dtype == f32);
  REQUIRE(x->shape.size() == 2);
  CHECK(as<ir::IntImm>(x->shape[0])->dtype == i64);
  CHECK(as<ir::IntImm>(x->shape[1])->value == 3);
  CHECK(f->params[0].var->dtype == DataType::Handle());
  REQUIRE(f->attrs.find("tir.noalias"));
  CHECK(*f->attrs.find("tir.noalias")->get_if<bool>() == true);

  const ir::Block* root = root_block(f);
  const auto* outer = as<ir::For>(root->body);
  CHECK(outer->loop_var->name == "ax0");
  CHECK(outer->loop_var->dtype == i64);  // loop vars take the extent's dtype
  CHECK(as<ir::IntImm>(outer->extent)->value == 2);
  CHECK(as<ir::IntImm>(outer->min)->value == 0);
  const auto* inner = as<ir::For>(outer->body);
  CHECK(inner->loop_var->dtype == i64);
  const auto* block = as<ir::Block>(inner->body);
  CHECK(block->name == "T_add");
  REQUIRE(block->iter_vars.size() == 2);
  CHECK(block->iter_vars[0].var->name == "v_ax0");
  CHECK(block->iter_vars[0].var->dtype == i64);
  CHECK(block->iter_vars[0].iter_type == ir::IterType::DataPar);
  CHECK(block->iter_vars[0].binding == outer->loop_var);
  CHECK(block->iter_vars[1].binding == inner->loop_var);
  CHECK(as<ir::IntImm>(block->iter_vars[1].dom.extent)->value == 3);
  REQUIRE(block->reads);
  REQUIRE(block->reads->size() == 2);
  CHECK((*block->reads)[1].buffer == f->params[1].buffer);
  CHECK(as<ir::IntImm>((*block->reads)[1].region[0].extent)->value == 1);
  CHECK((*block->reads)[1].region[0].min == block->iter_vars[1].var);
  REQUIRE(block->writes);
  CHECK(block->writes->size() == 1);
  const auto* store = as<ir::BufferStore>(block->body);
  CHECK(store->buffer == f->params[2].buffer);
  const auto* add = as<ir::PrimBinary>(store->value);
  CHECK(add->kind == PrimKind::Add);
  CHECK(add->dtype == f32);
  CHECK(as<ir::BufferLoad>(add->b)->indices[0] == block->iter_vars[1].var);
  CHECK(l.at(store->span) == "T_add[v_ax0, v_ax1] = x[v_ax0, v_ax1] + b[v_ax1]");
}

// ------------------------------------------------------------------ §6.8 (b)
const char* kColMax = R"(# from tvm.script import tirx as T

@T.prim_func(private=True, s_tir=True)
def col_max(a: T.Buffer((T.int64(16), T.int64(4)), "float16"), out: T.Buffer((T.int64(4),), "float16")):
    T.func_attr({"tirx.noalias": True})
    # with T.sblock("root"):
    for c, r in T.grid(T.int64(4), T.int64(16)):
        with T.sblock("col_max"):
            v_c, v_r = T.axis.remap("SR", [c, r])
            T.reads(a[v_r, v_c])
            T.writes(out[v_c])
            with T.init():
                out[v_c] = T.float16(-65504.0)
            out[v_c] = T.max(out[v_c], a[v_r, v_c])
)";

TEST_CASE("TIR (b): reduction with T.init (v0.25 spelling)", "[lower][tir]") {
  Lowered l(kColMax);
  CHECK(l.codes() == "");
  CHECK(l.func->s_tir);
  CHECK(l.func->attrs.find("tirx.noalias"));
  const ir::Block* root = root_block(l.func);
  const auto* block = as<ir::Block>(as<ir::For>(as<ir::For>(root->body)->body)->body);
  CHECK(block->name == "col_max");
  REQUIRE(block->iter_vars.size() == 2);
  CHECK(block->iter_vars[0].iter_type == ir::IterType::DataPar);
  CHECK(block->iter_vars[1].iter_type == ir::IterType::Reduce);
  CHECK(as<ir::IntImm>(block->iter_vars[1].dom.extent)->value == 16);
  const auto* init = as<ir::BufferStore>(block->init);
  const auto* lowest = as<ir::FloatImm>(init->value);
  CHECK(lowest->dtype == f16);
  CHECK(lowest->value == -65504.0);
  const auto* update = as<ir::BufferStore>(block->body);
  const auto* mx = as<ir::PrimBinary>(update->value);
  CHECK(mx->kind == PrimKind::Max);
  CHECK(mx->dtype == f16);
}

// ------------------------------------------------------------------ §6.8 (c)
const char* kExpNorm = R"(# from tvm.script import tir as T

@T.prim_func(private=True)
def exp_norm(var_x: T.handle, var_y: T.handle):
    T.func_attr({"tir.noalias": True})
    rows, cols = T.int64(), T.int64()
    x = T.match_buffer(var_x, (rows, cols))
    y = T.match_buffer(var_y, (rows, cols))
    # with T.block("root"):
    e = T.alloc_buffer((rows, cols))
    total = T.alloc_buffer((rows,))
    for i, j in T.grid(rows, cols):
        with T.block("exp"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(x[v_i, v_j])
            T.writes(e[v_i, v_j])
            e[v_i, v_j] = T.exp(x[v_i, v_j])
    for i, j in T.grid(rows, cols):
        with T.block("total"):
            v_i, v_j = T.axis.remap("SR", [i, j])
            T.reads(e[v_i, v_j])
            T.writes(total[v_i])
            T.block_attr({"axis": 1})
            with T.init():
                total[v_i] = T.float32(0.0)
            total[v_i] = total[v_i] + e[v_i, v_j]
    for i, j in T.grid(rows, cols):
        with T.block("norm"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(e[v_i, v_j], total[v_i])
            T.writes(y[v_i, v_j])
            y[v_i, v_j] = e[v_i, v_j] / total[v_i]
)";

TEST_CASE("TIR (c): symbolic shapes, match_buffer, root allocations, stages", "[lower][tir]") {
  Lowered l(kExpNorm);
  CHECK(l.codes() == "");
  const ir::PrimFunc* f = l.func;
  REQUIRE(f->params.size() == 2);
  CHECK(f->params[0].buffer == nullptr);
  CHECK(f->params[0].var->dtype == DataType::Handle());
  REQUIRE(f->buffer_map.size() == 2);
  CHECK(f->buffer_map[0].first == f->params[0].var);
  const ir::Buffer* x = f->buffer_map[0].second;
  CHECK(x->name == "x");
  CHECK(x->dtype == f32);  // match_buffer's default dtype
  const auto* rows = as<ir::PrimVar>(x->shape[0]);
  CHECK(rows->name == "rows");
  CHECK(rows->dtype == i64);
  CHECK(f->buffer_map[1].second->shape[0] == rows);  // the same declared variable

  const ir::Block* root = root_block(f);
  REQUIRE(root->alloc_buffers.size() == 2);
  CHECK(root->alloc_buffers[0]->name == "e");
  CHECK(root->alloc_buffers[1]->shape[0] == rows);
  const auto* stages = as<ir::SeqStmt>(root->body);
  REQUIRE(stages->stmts.size() == 3);
  const auto* loop = as<ir::For>(stages->stmts[1]);
  CHECK(loop->extent == rows);
  CHECK(loop->loop_var->dtype == i64);
  const auto* total = as<ir::Block>(as<ir::For>(loop->body)->body);
  CHECK(total->name == "total");
  CHECK(total->iter_vars[1].iter_type == ir::IterType::Reduce);
  REQUIRE(total->annotations.find("axis"));
  CHECK(*total->annotations.find("axis")->get_if<int64_t>() == 1);
  CHECK(as<ir::FloatImm>(as<ir::BufferStore>(total->init)->value)->value == 0.0);
  // Sibling nests reuse the names i, j: each loop has its own variables.
  const auto* first = as<ir::For>(stages->stmts[0]);
  CHECK(first->loop_var != loop->loop_var);
  const auto* exp = as<ir::Block>(as<ir::For>(first->body)->body);
  const auto* call = as<ir::PrimCall>(as<ir::BufferStore>(exp->body)->value);
  CHECK(call->op == "tir.exp");
  const auto* norm = as<ir::Block>(as<ir::For>(as<ir::For>(stages->stmts[2])->body)->body);
  CHECK(as<ir::PrimBinary>(as<ir::BufferStore>(norm->body)->value)->kind == PrimKind::Div);
}

// ------------------------------------------------------------------ other rules
TEST_CASE("TIR dtype rules: int32 default, loop var from extent, block axis widest",
          "[lower][tir]") {
  Lowered l(R"(@T.prim_func
def f(A: T.Buffer((8,), "int32"), B: T.Buffer((T.int64(8),), "int64")):
    for i in range(8):
        A[i] = i + 1
    for i in range(T.int64(2), 8):
        with T.block("b"):
            vi = T.axis.spatial(8, i)
            vj = T.axis.spatial((2, 8), i, dtype="int64")
            B[vi] = vj * 2
)");
  CHECK(l.codes() == "");
  const auto* seq = as<ir::SeqStmt>(root_block(l.func)->body);
  const auto* first = as<ir::For>(seq->stmts[0]);
  CHECK(first->loop_var->dtype == i32);
  const auto* store = as<ir::BufferStore>(first->body);
  CHECK(store->value->dtype == i32);
  const auto* second = as<ir::For>(seq->stmts[1]);
  CHECK(second->loop_var->dtype == i64);  // range(T.int64(2), 8): 8 adopts int64
  CHECK(as<ir::IntImm>(second->min)->value == 2);
  CHECK(as<ir::IntImm>(second->extent)->value == 6);
  const auto* block = as<ir::Block>(second->body);
  CHECK(block->iter_vars[0].var->dtype == i32);
  CHECK(block->iter_vars[1].var->dtype == i64);
  CHECK(as<ir::IntImm>(block->iter_vars[1].dom.min)->value == 2);
  CHECK(as<ir::IntImm>(block->iter_vars[1].dom.extent)->value == 6);
  const auto* body = as<ir::BufferStore>(block->body);
  CHECK(body->value->dtype == i64);
}

TEST_CASE("TIR lets scope over the rest of the suite; reassigned names become local buffers",
          "[lower][tir]") {
  Lowered l(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32"), n: T.int32):
    k: T.int32 = n * 2
    x: T.let[T.int64] = 3
    s = 0
    for i in range(4):
        s = s + i
    A[0] = T.Cast("float32", s + k) + T.Cast("float32", x)
)");
  CHECK(l.codes() == "");
  const auto* let_k = as<ir::LetStmt>(l.func->body);
  CHECK(let_k->var->name == "k");
  CHECK(let_k->var->dtype == i32);
  const auto* let_x = as<ir::LetStmt>(let_k->body);
  CHECK(let_x->var->dtype == i64);
  CHECK(as<ir::IntImm>(let_x->value)->dtype == i64);
  const auto* rest = as<ir::SeqStmt>(let_x->body);
  REQUIRE(rest->stmts.size() == 4);
  const auto* alloc = as<ir::AllocBufferStmt>(rest->stmts[0]);
  CHECK(alloc->buffer->name == "s");
  CHECK(alloc->buffer->scope == "local");
  CHECK(alloc->buffer->shape.empty());
  const auto* loop = as<ir::For>(rest->stmts[2]);
  const auto* update = as<ir::BufferStore>(loop->body);
  CHECK(update->buffer == alloc->buffer);
}

TEST_CASE("TIR without blocks has no root block; explicit root is kept", "[lower][tir]") {
  Lowered plain(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    T.evaluate(0)
)");
  CHECK(plain.codes() == "");
  CHECK(as<ir::Evaluate>(plain.func->body)->value->dtype == i32);

  Lowered explicit_root(R"(@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    with T.block("root"):
        B = T.alloc_buffer((4,))
        for i in range(4):
            with T.block("c"):
                vi = T.axis.remap("S", [i])
                B[vi] = A[vi]
)");
  CHECK(explicit_root.codes() == "");
  const ir::Block* root = root_block(explicit_root.func);
  CHECK(root->alloc_buffers.size() == 1);
  CHECK(ir::isa<ir::For>(root->body));
}

TEST_CASE("TIR errors are reported and lowering continues", "[lower][tir]") {
  Lowered l(R"(@T.prim_func(inline=True)
def f(A: T.Buffer((4,), "float32"), q):
    A[0] = undefined_name
    for i, j in T.grid(4):
        A[i] = 1.0
    T.launch_thread("threadIdx.x", 4)
    A[1] = T.float32(2)
)");
  CHECK(l.codes() == "RX1320 RX1321 RX1302 RX1327 RX1324 ");
  // The bad statements are skipped; the last one still lowered.
  CHECK(as<ir::BufferStore>(l.func->body)->value->dtype == f32);
}

}  // namespace
}  // namespace raxc::lower
