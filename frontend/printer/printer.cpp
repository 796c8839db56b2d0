// Module layout, literals, names and attributes of the canonical printer.
#include "frontend/printer/printer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "frontend/printer/printer_impl.h"

namespace raxc::printer {

std::string format_float(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "\"-nan\"" : "\"nan\"";
  if (std::isinf(value)) return value < 0 ? "\"-inf\"" : "\"inf\"";
  // Integral values in fixed notation with one decimal (TVM prints `%#.1f`); the rest with 17
  // significant digits (`%.17g`), which round-trips every double.
  std::vector<char> buffer(400);
  const char* format = std::nearbyint(value) == value ? "%.1f" : "%.17g";
  int n = std::snprintf(buffer.data(), buffer.size(), format, value);
  return std::string(buffer.data(), size_t(n));
}

std::string quote_string(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\n': out += "\\n"; break;
      default:
        if (c >= ' ' && c <= '~') {
          out += char(c);
        } else {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 0xf];
        }
    }
  }
  return out + "\"";
}

namespace detail {

using namespace ir;

// ---------------------------------------------------------------------------- Lines, names
void Lines::render(std::string& out, int base_indent) const {
  for (const Line& l : lines_) {
    if (!l.text.empty()) out.append(size_t(4 * (l.indent + base_indent)), ' ').append(l.text);
    out += '\n';
  }
}

void NameTable::pop_frame() {
  for (const void* object : frames_.back()) {
    auto it = names_.find(object);
    if (it == names_.end()) continue;
    used_.erase(it->second);
    names_.erase(it);
  }
  frames_.pop_back();
}

std::string NameTable::define(const void* object, std::string_view hint, size_t frame) {
  if (auto it = names_.find(object); it != names_.end()) return it->second;
  std::string base(hint);
  for (char& c : base)
    if (c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
  std::string name = base;
  for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  names_.emplace(object, name);
  if (frames_.empty()) frames_.emplace_back();
  size_t index = frame < frames_.size() ? frame : frames_.size() - 1;
  frames_[index].push_back(object);
  return name;
}

// ---------------------------------------------------------------------------- printer
Printer::Printer(const IRModule& module, const PrintOptions& options, CommentIndex& comments)
    : module_(module), options_(options), comments_(comments) {
  for (const char* reserved : {"I", "T", "R", "cls"}) names_.reserve(reserved);
}

std::string Printer::R(std::string_view attr) {
  uses_relax_ = true;
  return "R." + std::string(attr);
}

std::string Printer::T(std::string_view attr) {
  uses_tir_ = true;
  return "T." + std::string(attr);
}

std::string Printer::I(std::string_view attr) {
  uses_ir_ = true;
  return "I." + std::string(attr);
}

std::vector<std::string> Printer::header_lines() const {
  std::vector<std::string> lines;
  bool dialect_b = options_.tir == PrintOptions::TirDialect::ClassicB;
  if (uses_ir_) lines.push_back("# from tvm.script import ir as I");
  if (uses_tir_) {
    lines.push_back(dialect_b ? "# from tvm.script import tirx as T"
                              : "# from tvm.script import tir as T");
  }
  if (uses_relax_) lines.push_back("# from tvm.script import relax as R");
  return lines;
}

// Globals in TVM's order: PrimFuncs, ExternFuncs, Relax functions, each by name; `main` last.
static std::vector<const GlobalDef*> sorted_globals(const IRModule& module) {
  auto rank = [](const GlobalDef* g) {
    if (g->gvar && g->gvar->name == "main") return 1000;
    if (g->prim_func()) return 1;
    if (g->extern_func()) return 2;
    return 3;
  };
  std::vector<const GlobalDef*> globals;
  for (const GlobalDef& g : module.globals) globals.push_back(&g);
  std::stable_sort(globals.begin(), globals.end(), [&](const GlobalDef* a, const GlobalDef* b) {
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb;
    return a->gvar->name < b->gvar->name;
  });
  return globals;
}

std::string Printer::print() {
  collect_anchors();
  comments_.resolve();
  Lines body;
  in_module_ = module_.top_level == TopLevel::Module;
  if (in_module_) {
    body = module_class();
  } else if (!module_.globals.empty()) {
    body = global(module_.globals.front(), /*top_level=*/true);
  }
  std::string out;
  for (const std::string& line : header_lines()) out += line + "\n";
  if (!out.empty()) out += "\n";
  body.render(out);
  for (const std::string& text : comments_.take_leftovers()) out += text + "\n";
  // TVM strips trailing whitespace; a file ends with one newline.
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (uses_metadata_) {
    out += in_module_ ? "\n\n\n" : "\n\n";
    out += "# Metadata omitted. Use show_meta=True in script() method to show it.";
  }
  out += "\n";
  return out;
}

Lines Printer::module_class() {
  names_.push_frame();
  names_.define(&module_, "Module");
  Lines members;
  if (!module_.attrs.empty()) {
    members.add(0, I("module_attrs") + "(" + attr_dict(module_.attrs) + ")");
  }
  if (!module_.global_infos.empty() || !module_.vdevices.empty()) {
    // The "vdevice" list is printed from the decoded devices; other keys as written.
    std::vector<std::pair<std::string, std::string>> entries;
    bool has_vdevice_key = false;
    for (auto& [key, value] : module_.global_infos.entries) {
      if (key == "vdevice" && !module_.vdevices.empty()) {
        has_vdevice_key = true;
        continue;
      }
      entries.emplace_back(key, global_info_list(key, value));
    }
    if (!module_.vdevices.empty() || has_vdevice_key) {
      std::string list = "[";
      for (size_t i = 0; i < module_.vdevices.size(); ++i) {
        const VDevice* v = module_.vdevices[i];
        if (i) list += ", ";
        list += I("vdevice") + "(" + target_doc(v->target) + ", " + std::to_string(v->dev_id) +
                ", " + quote_string(v->mem_scope) + ")";
      }
      entries.emplace_back("vdevice", list + "]");
    }
    std::sort(entries.begin(), entries.end());
    std::string dict = "{";
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i) dict += ", ";
      dict += quote_string(entries[i].first) + ": " + entries[i].second;
    }
    members.add(0, I("module_global_infos") + "(" + dict + "})");
  }
  for (const GlobalDef* g : sorted_globals(module_)) members.append(global(*g, true));
  if (members.empty()) members.add(0, "pass");
  Lines out;
  std::vector<std::string> keywords;
  if (!module_.check_well_formed) keywords.push_back("check_well_formed=False");
  if (module_.s_tir) keywords.push_back("s_tir=True");
  std::string decorator = "@" + I("ir_module");
  if (!keywords.empty()) {
    decorator += "(";
    for (size_t i = 0; i < keywords.size(); ++i) decorator += (i ? ", " : "") + keywords[i];
    decorator += ")";
  }
  out.add(0, decorator);
  out.add(0, "class Module:");
  out.append(members, 1);
  names_.pop_frame();
  return out;
}

Lines Printer::global(const GlobalDef& g, bool top_level) {
  Lines out;
  std::string name = g.gvar ? g.gvar->name : "main";
  comments_.emit_leading(&g, 0, out);
  size_t first = out.size();
  if (const Function* f = g.function()) {
    // A lone private function has no global symbol to recover its name from (text §3.4).
    if (!in_module_ && f->is_private) name = "main";
    out.append(relax_function(f, name, top_level));
  } else if (const PrimFunc* pf = g.prim_func()) {
    if (!in_module_ && pf->is_private) name = "main";
    out.append(prim_func(pf, name));
  } else if (const ExternFunc* ef = g.extern_func()) {
    std::string args = quote_string(ef->global_symbol);
    if (ef->struct_info) args += ", " + sinfo(ef->struct_info);
    out.add(0, name + " = " + R("ExternFunc") + "(" + args + ")");
  }
  out.append_to(first, comments_.trailing(&g));
  return out;
}

// ---------------------------------------------------------------------------- attributes
std::string Printer::attr_dict(const Attrs& attrs, std::string_view skip_key) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (auto& [key, value] : attrs.entries) {
    if (!skip_key.empty() && key == skip_key) continue;
    entries.emplace_back(key, attr_value(value).text);
  }
  // TVM prints string-keyed maps sorted by key.
  std::stable_sort(entries.begin(), entries.end(),
                   [](auto& a, auto& b) { return a.first < b.first; });
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ", ";
    out += quote_string(entries[i].first) + ": " + entries[i].second;
  }
  return out + "}";
}

Doc Printer::attr_value(const AttrValue& v) {
  const AttrValue::Value& value = v.value;
  if (std::holds_alternative<AttrValue::None>(value)) return {"None"};
  if (auto b = std::get_if<bool>(&value)) return {*b ? "True" : "False"};
  if (auto i = std::get_if<int64_t>(&value)) return {std::to_string(*i)};
  if (auto d = std::get_if<double>(&value)) return {format_float(*d)};
  if (auto s = std::get_if<std::string>(&value)) return {quote_string(*s)};
  if (auto list = std::get_if<AttrValue::List>(&value)) {
    std::string out = "[";
    for (size_t i = 0; i < list->size(); ++i) out += (i ? ", " : "") + attr_value((*list)[i]).text;
    return {out + "]"};
  }
  if (auto dict = std::get_if<AttrValue::Dict>(&value)) {
    std::vector<std::pair<std::string, std::string>> entries;
    bool string_keys = true;
    std::vector<std::string> sort_keys;
    for (auto& [key, item] : *dict) {
      if (!key.get_if<std::string>()) string_keys = false;
      entries.emplace_back(attr_value(key).text, attr_value(item).text);
      sort_keys.push_back(key.get_if<std::string>() ? *key.get_if<std::string>() : "");
    }
    std::vector<size_t> order(entries.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    if (string_keys) {
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return sort_keys[a] < sort_keys[b]; });
    }
    std::string out = "{";
    for (size_t i = 0; i < order.size(); ++i) {
      out += (i ? ", " : "") + entries[order[i]].first + ": " + entries[order[i]].second;
    }
    return {out + "}"};
  }
  if (auto p = std::get_if<const PrimExpr*>(&value)) return prim(*p);
  if (auto m = std::get_if<const IndexMap*>(&value)) return {index_map(*m)};
  if (auto s = std::get_if<const StructInfo*>(&value)) return {sinfo(*s)};
  if (auto e = std::get_if<const Expr*>(&value)) return expr(*e);
  if (auto dt = std::get_if<DataType>(&value))
    return {R("dtype") + "(" + quote_string(dt->str()) + ")"};
  return {"None"};
}

std::string Printer::target_doc(const AttrValue& target) {
  if (target.is_none()) return quote_string("llvm");
  return attr_value(target).text;
}

// A global-info list other than "vdevice": the lowering keeps `I.dummy_global_info()` entries as
// the string "dummy_global_info", and device meshes as "device_mesh" (decoded in the module).
std::string Printer::global_info_list(const std::string& key, const AttrValue& value) {
  auto* items = value.get_if<AttrValue::List>();
  if (!items) return attr_value(value).text;
  std::string list = "[";
  for (size_t i = 0; i < items->size(); ++i) {
    const AttrValue& item = (*items)[i];
    auto* text = item.get_if<std::string>();
    if (i) list += ", ";
    const DeviceMesh* mesh =
        text && *text == "device_mesh" ? module_.find_mesh(key, int64_t(i)) : nullptr;
    if (mesh)
      list += device_mesh_call(*mesh, true);
    else if (text && *text == "dummy_global_info")
      list += I("dummy_global_info") + "()";
    else
      list += attr_value(item).text;
  }
  return list + "]";
}

// `"kind:i:scope"`: i counts the module's vdevices of the same target kind.
std::string Printer::vdevice_string(const VDevice* vdevice) {
  int kind_index = 0;
  for (const VDevice* v : module_.vdevices) {
    if (v == vdevice) break;
    if (v->target_kind == vdevice->target_kind) ++kind_index;
  }
  return quote_string(vdevice->target_kind + ":" + std::to_string(kind_index) + ":" +
                      vdevice->mem_scope);
}

// ---------------------------------------------------------------------------- comment anchors
// Every statement-like node that is printed on a line of its own is an anchor, registered in
// print order so that ties (same start) go to the outermost node.
void Printer::collect_anchors() {
  for (const GlobalDef* g : sorted_globals(module_)) {
    comments_.add_anchor(g, g->span);
    if (const Function* f = g->function()) collect_anchors(f->body);
    if (const PrimFunc* pf = g->prim_func()) collect_anchors(pf->body);
  }
}

void Printer::collect_anchors(const SeqExpr* seq) {
  if (!seq) return;
  for (const BindingBlock* block : seq->blocks) {
    // A dataflow block's span starts at its `with` line: comments before it lead the block,
    // comments between it and the first binding lead that binding.
    if (block->is_dataflow) comments_.add_anchor(block, block->span);
    for (const Binding* b : block->bindings) {
      comments_.add_anchor(b, b->span);
      if (auto f = dyn_cast<Function>(b->value)) collect_anchors(f->body);
      if (auto i = dyn_cast<If>(b->value)) {
        collect_anchors(i->true_branch);
        collect_anchors(i->false_branch);
      }
    }
  }
}

void Printer::collect_anchors(const Stmt* s) {
  if (!s) return;
  if (auto block = dyn_cast<Block>(s); !(block && block->is_root)) comments_.add_anchor(s, s->span);
  switch (s->kind) {
    case StmtKind::Seq:
      for (const Stmt* child : cast<SeqStmt>(s)->stmts) collect_anchors(child);
      break;
    case StmtKind::For: collect_anchors(cast<For>(s)->body); break;
    case StmtKind::While: collect_anchors(cast<While>(s)->body); break;
    case StmtKind::If:
      collect_anchors(cast<IfThenElse>(s)->then_case);
      collect_anchors(cast<IfThenElse>(s)->else_case);
      break;
    case StmtKind::Block:
      collect_anchors(cast<Block>(s)->init);
      collect_anchors(cast<Block>(s)->body);
      break;
    case StmtKind::Let: collect_anchors(cast<LetStmt>(s)->body); break;
    default: break;
  }
}

}  // namespace detail

std::string print_module(const ir::IRModule& module, const PrintOptions& options,
                         const std::vector<Comment>& comments, std::string_view source) {
  detail::CommentIndex index(comments, source);
  detail::Printer printer(module, options, index);
  return printer.print();
}

std::string print_struct_info(const ir::StructInfo* struct_info) {
  static const ir::IRModule kNoModule;
  detail::CommentIndex no_comments({}, {});
  detail::Printer printer(kNoModule, {}, no_comments);
  return printer.struct_info_text(struct_info);
}

}  // namespace raxc::printer
