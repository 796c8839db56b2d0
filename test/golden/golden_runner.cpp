// raxc_golden — the golden test runner for test/cases/**/*.rx.
//
// For every case it runs `<raxc> check --diagnostics-format=json FILE` and compares the
// diagnostics with the expectations written in the file as comments:
//
//   x = R.foo(y)  # expect-error RX3001: argument 'y' .* Tensor
//       → an error RX3001 on this line whose message contains a match of the RE2 pattern
//   # expect-warning@+1 RX4001: possibly incompatible
//       → the same, on the line 1 below the comment (@-2: two lines above); use this form where
//         a trailing comment would change the syntax under test
//   # expect-error RX1001            (no ':' pattern) → any message
//
//   y = R.add(x, x)  # sinfo: R.Tensor((4,), dtype="float32")
//       → the variable bound last on this line (temporaries of the normal form come first) has
//         exactly this inferred StructInfo, as `raxc check --diagnostics-format=json
//         --show-struct-info` prints it (the engine behind `raxc check`). --update leaves these
//         comments alone.
//
// Severities: expect-error, expect-warning, expect-note. Each expectation must match its own
// actual diagnostic (code, severity, line, RE2::PartialMatch of the message) and every actual
// error and warning must be expected; so a file without expectations must produce none. raxc
// must exit 0 (no errors) or 1 (errors), consistently with the diagnostics, print valid JSON
// and nothing on stderr.
//
// Run cases: each own-line comment
//
//   # run: "[[1, 2], [3, 4]]" random --default-dim 3
//   # out: [[2 4]
//   # out:  [6 8]]
//
// also runs `<raxc> run --diagnostics-format=json FILE ARGS...` (FILE absolute, in the case's
// directory, so a relative .npy path in ARGS is relative to the case), ARGS split like a POSIX
// shell (quotes group words, backslash escapes). The `# out:` lines right after a `# run:` line
// are its expected stdout, line by line (one space after "out:" is the separator, so
// `# out:  [6 8]]` expects " [6 8]]"; `# out:` alone is an empty line; trailing blanks are
// ignored): such a run must exit 0 and print exactly that. A run without `# out:` lines only
// contributes its diagnostics. The diagnostics of every run (exit 1: compile or run-time
// errors, 2: bad arguments; the JSON array after anything R.print wrote) are pooled with those
// of `raxc check`, identical ones once, and compared with the expectations as above. A run must
// not crash, write to stderr, or take longer than kRunSeconds.
//
// --update rewrites the expectations from the actual output: old expect comments are removed
// and new ones are written as own-line `# expect-…@+N CODE: <RE2::QuoteMeta(message)>` comments
// just above their line, atomically (temporary file + rename); then the case is run again to
// check that the rewritten file passes. It also rewrites the `# out:` block of every run that
// exits 0 from its actual stdout (adding the block when there is none) and removes the block
// of a run that fails; expectations that still match are left as written. A diagnostic
// without a place (an empty range at offset 0, such as RX5001 for a missing --entry) is on line
// 1 whatever precedes it: --update writes those as the file's first lines, `# expect-error
// RX5001: …` (the line itself) then `# expect-error@-1 …` and so on.
//
// Usage: raxc_golden --raxc PATH [--root DIR] [--update] [-j N] [-v] [PATH...]
//   PATH: .rx files or directories searched recursively (default: test/cases). With --root,
//   the runner works from DIR, so files are reported relative to it (file:line:col: error: …).
#include <fcntl.h>
#include <poll.h>
#include <re2/re2.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace fs = std::filesystem;

namespace {

struct Options {
  std::string raxc;
  std::vector<std::string> paths;
  bool update = false;
  bool verbose = false;
  unsigned jobs = 0;
};

// ---------------------------------------------------------------------------- processes

// A run case longer than this is killed (a hang in the JIT or an endless kernel loop).
constexpr int kRunSeconds = 120;

struct ProcessResult {
  bool started = false;
  std::string spawn_error;
  int exit_status = -1;  // when exited normally
  int signal = 0;        // when killed by a signal
  bool timed_out = false;
  std::string out, err;
};

// Runs argv[0] with stdin from /dev/null, collecting stdout and stderr; in `cwd` when not
// empty; killed after `timeout_seconds` when positive.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd = {},
                          int timeout_seconds = 0) {
  ProcessResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    result.spawn_error = std::strerror(errno);
    return result;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.spawn_error = std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    result.spawn_error = std::strerror(rc);
    close(out_pipe[0]);
    close(err_pipe[0]);
    return result;
  }
  result.started = true;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  char buffer[1 << 15];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (open_count > 0) {
    int wait_ms = -1;
    if (timeout_seconds > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        result.timed_out = true;
        kill(pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(left.count());
    }
    int ready = poll(fds, 2, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  for (pollfd& p : fds)
    if (p.fd >= 0) close(p.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

// ---------------------------------------------------------------------------- files

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

// Splits at '\n'; a '\r' stays with its line. "a\n" gives {"a", ""}: the last entry is the
// (possibly empty) line an end-of-file position lies on.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  lines.push_back(text.substr(start));
  return lines;
}

std::string without_cr(const std::string& line) {
  return !line.empty() && line.back() == '\r' ? line.substr(0, line.size() - 1) : line;
}

bool write_atomically(const std::string& path, const std::string& text, std::string& error) {
  fs::path target(path);
  std::string templ =
      (target.parent_path() / ("." + target.filename().string() + ".golden-XXXXXX")).string();
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) {
    error = std::string("cannot create a temporary file: ") + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = std::string("cannot write: ") + std::strerror(errno);
      close(fd);
      unlink(name.data());
      return false;
    }
    done += static_cast<size_t>(n);
  }
  struct stat info {};
  if (stat(path.c_str(), &info) == 0) fchmod(fd, info.st_mode & 07777);
  if (fsync(fd) != 0 || close(fd) != 0) {
    error = std::string("cannot write: ") + std::strerror(errno);
    unlink(name.data());
    return false;
  }
  if (rename(name.data(), path.c_str()) != 0) {
    error = std::string("cannot rename: ") + std::strerror(errno);
    unlink(name.data());
    return false;
  }
  return true;
}

// ---------------------------------------------------------------------------- expectations

struct Expectation {
  int comment_line = 0;  // 1-based line of the comment
  int line = 0;          // 1-based target line
  std::string severity;  // "error", "warning", "note"
  std::string code;
  std::string pattern;
  std::shared_ptr<RE2> regex;  // null: any message
};

struct Actual {
  std::string code, severity, message;
  int line = 0, column = 0;
  bool placeless = false;  // an empty range at offset 0: about the file or the command line
};

// `# sinfo: <StructInfo>`: the exact text expected for the last binding on its line.
struct SinfoExpectation {
  int line = 0;  // 1-based
  std::string text;
};

struct BoundSinfo {  // one entry of raxc's "struct_info" dump
  int line = 0, column = 0;
  std::string name, text;
};

const RE2& expect_re() {
  static const RE2 re(
      R"(#\s*expect-(error|warning|note)(?:@([+-][0-9]+))?\s+(RX[0-9]{4})(?:\s*:\s*(.*?))?\s*$)");
  return re;
}
const RE2& expect_start_re() {  // where an expectation comment starts (also malformed ones)
  static const RE2 re(R"((#\s*expect-))");
  return re;
}
const RE2& own_line_re() {  // a line holding nothing but an expectation
  static const RE2 re(R"(^\s*#\s*expect-)");
  return re;
}

// A case's report; printed in file order once all cases ran.
struct Report {
  std::string path;
  std::string messages;
  bool failed = false;
  bool updated = false;

  void error(int line, int column, const std::string& message) {
    failed = true;
    messages += path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                ": error: " + message + "\n";
  }
  void note(int line, int column, const std::string& message) {
    messages += path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                ": note: " + message + "\n";
  }
  void text(const std::string& message) { messages += message; }
};

std::vector<Expectation> parse_expectations(const std::vector<std::string>& lines, Report& report) {
  std::vector<Expectation> result;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = without_cr(lines[i]);
    int number = static_cast<int>(i) + 1;
    re2::StringPiece start;
    if (!RE2::PartialMatch(line, expect_start_re(), &start)) continue;
    std::string severity, offset, code, pattern;
    // Match from the comment's '#', so text before it cannot confuse the pattern.
    std::string comment = line.substr(static_cast<size_t>(start.data() - line.data()));
    if (!RE2::PartialMatch(comment, expect_re(), &severity, &offset, &code, &pattern)) {
      report.error(number, static_cast<int>(start.data() - line.data()) + 1,
                   "malformed expectation; write `# expect-error[@+N] RXnnnn: <RE2 pattern>`");
      continue;
    }
    Expectation e;
    e.comment_line = number;
    e.line = number + (offset.empty() ? 0 : std::stoi(offset));
    e.severity = severity;
    e.code = code;
    e.pattern = pattern;
    if (e.line < 1 || e.line > static_cast<int>(lines.size())) {
      report.error(number, 1,
                   "expectation targets line " + std::to_string(e.line) + ", outside the file");
      continue;
    }
    if (!pattern.empty()) {
      RE2::Options options;
      options.set_log_errors(false);
      e.regex = std::make_shared<RE2>(pattern, options);
      if (!e.regex->ok()) {
        report.error(number, 1, "invalid RE2 pattern '" + pattern + "': " + e.regex->error());
        continue;
      }
    }
    result.push_back(std::move(e));
  }
  return result;
}

// Only a trailing comment counts: prose comments may mention the syntax.
const RE2& sinfo_re() {
  static const RE2 re(R"(^\s*[^#\s][^#]*#\s*sinfo:\s*(.*?)\s*$)");
  return re;
}

std::vector<SinfoExpectation> parse_sinfo_expectations(const std::vector<std::string>& lines) {
  std::vector<SinfoExpectation> result;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string text;
    if (RE2::PartialMatch(without_cr(lines[i]), sinfo_re(), &text))
      result.push_back({static_cast<int>(i) + 1, text});
  }
  return result;
}

// `# run: ARGS` and the `# out:` lines right after it.
struct RunSpec {
  int line = 0;                   // 1-based line of `# run:`
  std::string text;               // ARGS as written
  std::vector<std::string> args;  // split like a POSIX shell
  bool has_out = false;
  std::vector<std::string> out;  // the expected stdout, line by line, trailing blanks removed
};

const RE2& run_re() {
  static const RE2 re(R"(^\s*#\s*run:(.*)$)");
  return re;
}
const RE2& out_re() {
  static const RE2 re(R"(^\s*#\s*out:(.*)$)");
  return re;
}

std::string trim_right(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// The text of an `# out:` line: one blank after the colon separates, the rest is the line.
std::string out_text(const std::string& rest) {
  size_t skip = !rest.empty() && (rest[0] == ' ' || rest[0] == '\t') ? 1 : 0;
  return trim_right(rest.substr(skip));
}

// Splits like a POSIX shell (no expansions): blanks separate words; '...' is literal; in
// "..." a backslash escapes " \ $ ` and a newline; elsewhere a backslash escapes any character.
bool split_words(const std::string& text, std::vector<std::string>& words, std::string& error) {
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (i + 1 < text.size()) word += text[++i];
    } else if (c == '\'') {
      size_t close = text.find('\'', i + 1);
      if (close == std::string::npos) {
        error = "unterminated ' quote";
        return false;
      }
      word += text.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("\"\\$`\n").find(text[j + 1]) != std::string_view::npos)
          ++j;
        word += text[j];
      }
      if (j >= text.size()) {
        error = "unterminated \" quote";
        return false;
      }
      i = j;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return true;
}

std::vector<RunSpec> parse_runs(const std::vector<std::string>& lines, Report& report) {
  std::vector<RunSpec> result;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string rest;
    if (RE2::PartialMatch(without_cr(lines[i]), out_re())) {  // not below a `# run:` line
      report.error(static_cast<int>(i) + 1, 1,
                   "`# out:` must follow a `# run:` line or another `# out:` line");
      continue;
    }
    if (!RE2::PartialMatch(without_cr(lines[i]), run_re(), &rest)) continue;
    RunSpec spec;
    spec.line = static_cast<int>(i) + 1;
    size_t first = rest.find_first_not_of(" \t");
    spec.text = first == std::string::npos ? "" : trim_right(rest.substr(first));
    for (; i + 1 < lines.size(); ++i) {
      if (!RE2::PartialMatch(without_cr(lines[i + 1]), out_re(), &rest)) break;
      spec.has_out = true;
      spec.out.push_back(out_text(rest));
    }
    std::string error;
    if (!split_words(spec.text, spec.args, error)) {
      report.error(spec.line, 1, "malformed `# run:` arguments: " + error);
      continue;
    }
    result.push_back(std::move(spec));
  }
  return result;
}

// ---------------------------------------------------------------------------- running raxc

struct RunOutcome {
  bool ok = false;  // raxc ran properly and printed valid JSON
  std::vector<Actual> actuals;
  std::vector<BoundSinfo> bound;  // with --show-struct-info
};

std::string indent(const std::string& text) {
  std::string out;
  for (const std::string& line : split_lines(text))
    if (!line.empty()) out += "    | " + line + "\n";
  return out;
}

// The diagnostics (and with `bound`, the struct_info dump) of raxc's JSON output; counts the
// errors. Throws when the JSON does not have the expected shape.
void read_diagnostics(const nlohmann::json& j, std::vector<Actual>& actuals,
                      std::vector<BoundSinfo>* bound, int& errors) {
  if (!j.is_array()) throw std::runtime_error("the output is not a JSON array");
  for (const nlohmann::json& file : j) {
    for (const nlohmann::json& d : file.at("diagnostics")) {
      Actual a;
      a.code = d.at("code").get<std::string>();
      a.severity = d.at("severity").get<std::string>();
      a.message = d.at("message").get<std::string>();
      a.line = d.at("range").at("start").at("line").get<int>();
      a.column = d.at("range").at("start").at("column").get<int>();
      a.placeless = d.at("range").at("start").value("offset", -1) == 0 &&
                    d.at("range").at("end").value("offset", -1) == 0;
      errors += a.severity == "error";
      actuals.push_back(std::move(a));
    }
    if (!bound) continue;
    for (const nlohmann::json& b : file.at("struct_info"))
      bound->push_back({b.at("line").get<int>(), b.at("column").get<int>(),
                        b.at("name").get<std::string>(), b.at("struct_info").get<std::string>()});
  }
}

RunOutcome run_raxc(const Options& options, const std::string& path, Report& report,
                    bool with_struct_info) {
  RunOutcome outcome;
  std::vector<std::string> argv = {options.raxc, "check", "--diagnostics-format=json", path};
  if (with_struct_info) argv.insert(argv.begin() + 3, "--show-struct-info");
  ProcessResult p = run_process(argv);
  if (!p.started) {
    report.error(1, 1, "cannot run " + options.raxc + ": " + p.spawn_error);
    return outcome;
  }
  if (p.signal != 0) {
    report.error(
        1, 1,
        "raxc was killed by signal " + std::to_string(p.signal) + " (" + strsignal(p.signal) + ")");
    report.text(indent(p.err));
    return outcome;
  }
  if (p.exit_status != 0 && p.exit_status != 1) {
    report.error(1, 1,
                 "raxc exited with status " + std::to_string(p.exit_status) +
                     " (expected 0: clean or 1: errors reported)");
    report.text(indent(p.err) + indent(p.out));
    return outcome;
  }
  if (!p.err.empty()) {
    report.error(1, 1, "raxc wrote to stderr in JSON mode");
    report.text(indent(p.err));
    return outcome;
  }
  int errors = 0;
  try {
    read_diagnostics(nlohmann::json::parse(p.out), outcome.actuals,
                     with_struct_info ? &outcome.bound : nullptr, errors);
  } catch (const std::exception& e) {
    report.error(1, 1, std::string("cannot read raxc's JSON output: ") + e.what());
    report.text(indent(p.out));
    return outcome;
  }
  if ((errors > 0) != (p.exit_status == 1)) {
    report.error(1, 1,
                 "raxc exited with status " + std::to_string(p.exit_status) + " but reported " +
                     std::to_string(errors) + " error(s)");
    return outcome;
  }
  outcome.ok = true;
  return outcome;
}

// One `# run:` line's outcome.
struct RunResult {
  bool ok = false;  // raxc run finished properly: exit 0, or 1/2 with coded errors in JSON
  int exit_status = -1;
  std::vector<std::string> out;  // stdout of a run that exited 0, lines without trailing blanks
  std::vector<Actual> actuals;
};

// A successful run's stdout as `# out:` lines compare it: trailing blanks removed, no entry
// for the end of a final newline.
std::vector<std::string> output_lines(const std::string& text) {
  if (text.empty()) return {};
  std::vector<std::string> lines = split_lines(text);
  if (text.back() == '\n') lines.pop_back();
  for (std::string& line : lines) line = trim_right(line);
  return lines;
}

// Lines indented for a report, empty ones kept (output comparisons show them).
std::string indent_all(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += "    | " + line + "\n";
  return out;
}

// The JSON array a failed run prints after anything R.print wrote: parsed from the first line
// start from which the rest of the output is one JSON value.
std::optional<nlohmann::json> trailing_json(const std::string& out) {
  size_t at = 0;
  while (at < out.size()) {
    if (out[at] == '[') {
      nlohmann::json j = nlohmann::json::parse(out.begin() + static_cast<long>(at), out.end(),
                                               nullptr, false);
      if (!j.is_discarded()) return j;
    }
    size_t newline = out.find('\n', at);
    if (newline == std::string::npos) break;
    at = newline + 1;
  }
  return std::nullopt;
}

RunResult run_raxc_run(const Options& options, const std::string& path, const RunSpec& spec,
                       Report& report) {
  RunResult result;
  std::error_code ec;
  fs::path file = fs::absolute(path, ec);
  std::vector<std::string> argv = {options.raxc, "run", "--diagnostics-format=json",
                                   file.string()};
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  ProcessResult p = run_process(argv, file.parent_path().string(), kRunSeconds);
  std::string what = "`raxc run FILE " + spec.text + "`";
  if (!p.started) {
    report.error(spec.line, 1, "cannot run " + options.raxc + ": " + p.spawn_error);
    return result;
  }
  if (p.timed_out) {
    report.error(spec.line, 1,
                 what + " did not finish in " + std::to_string(kRunSeconds) + " s (killed)");
    return result;
  }
  if (p.signal != 0) {
    report.error(spec.line, 1,
                 what + " was killed by signal " + std::to_string(p.signal) + " (" +
                     strsignal(p.signal) + ")");
    report.text(indent(p.err));
    return result;
  }
  result.exit_status = p.exit_status;
  if (p.exit_status != 0 && p.exit_status != 1 && p.exit_status != 2) {
    report.error(spec.line, 1,
                 what + " exited with status " + std::to_string(p.exit_status) +
                     " (expected 0, 1: errors or 2: bad arguments)");
    report.text(indent(p.err) + indent(p.out));
    return result;
  }
  if (!p.err.empty()) {
    report.error(spec.line, 1, what + " wrote to stderr in JSON mode");
    report.text(indent(p.err));
    return result;
  }
  if (p.exit_status == 0) {
    result.out = output_lines(p.out);
    result.ok = true;
    return result;
  }
  std::optional<nlohmann::json> j = trailing_json(p.out);
  int errors = 0;
  try {
    if (!j) throw std::runtime_error("no JSON array at the end of the output");
    read_diagnostics(*j, result.actuals, nullptr, errors);
  } catch (const std::exception& e) {
    report.error(spec.line, 1, "cannot read the JSON diagnostics of " + what + ": " + e.what());
    report.text(indent(p.out));
    return result;
  }
  if (errors == 0) {
    report.error(spec.line, 1,
                 what + " exited with status " + std::to_string(p.exit_status) +
                     " but reported no error");
    return result;
  }
  result.ok = true;
  return result;
}

// Everything the raxc invocations of a case report.
struct CaseOutcome {
  bool ok = false;  // `raxc check` and every run ran properly
  RunOutcome check;
  std::vector<RunSpec> runs;
  std::vector<RunResult> results;  // per run
  std::vector<Actual> pooled;      // check's diagnostics, then new ones of the runs
};

bool same(const Actual& x, const Actual& y) {
  return x.code == y.code && x.severity == y.severity && x.message == y.message &&
         x.line == y.line && x.column == y.column;
}

CaseOutcome evaluate(const Options& options, const std::string& path,
                     const std::vector<std::string>& lines, Report& report,
                     bool with_struct_info) {
  CaseOutcome c;
  c.runs = parse_runs(lines, report);
  c.check = run_raxc(options, path, report, with_struct_info);
  if (!c.check.ok) return c;
  c.ok = true;
  c.pooled = c.check.actuals;
  for (const RunSpec& spec : c.runs) {
    c.results.push_back(run_raxc_run(options, path, spec, report));
    c.ok &= c.results.back().ok;
    for (const Actual& a : c.results.back().actuals)
      if (std::none_of(c.pooled.begin(), c.pooled.end(),
                       [&](const Actual& b) { return same(a, b); }))
        c.pooled.push_back(a);
  }
  return c;
}

// ---------------------------------------------------------------------------- comparing

// Pairs expectations with actual diagnostics one to one (bipartite matching: a loose pattern
// must not steal the only diagnostic a stricter one matches). Returns, per expectation, the
// matched actual or -1.
std::vector<int> match(const std::vector<Expectation>& expected,
                       const std::vector<Actual>& actual) {
  std::vector<std::vector<int>> candidates(expected.size());
  for (size_t e = 0; e < expected.size(); ++e) {
    const Expectation& x = expected[e];
    for (size_t a = 0; a < actual.size(); ++a) {
      const Actual& y = actual[a];
      if (x.code == y.code && x.severity == y.severity && x.line == y.line &&
          (!x.regex || RE2::PartialMatch(y.message, *x.regex)))
        candidates[e].push_back(static_cast<int>(a));
    }
  }
  std::vector<int> owner(actual.size(), -1), assigned(expected.size(), -1);
  std::vector<char> seen;
  std::function<bool(int)> augment = [&](int e) {
    for (int a : candidates[e]) {
      if (seen[a]) continue;
      seen[a] = 1;
      if (owner[a] < 0 || augment(owner[a])) {
        owner[a] = e;
        assigned[e] = a;
        return true;
      }
    }
    return false;
  };
  for (size_t e = 0; e < expected.size(); ++e) {
    seen.assign(actual.size(), 0);
    augment(static_cast<int>(e));
  }
  return assigned;
}

bool compare(const std::vector<Expectation>& expected, const std::vector<Actual>& actual,
             Report& report) {
  std::vector<int> assigned = match(expected, actual);
  std::vector<char> used(actual.size(), 0);
  for (int a : assigned)
    if (a >= 0) used[a] = 1;
  bool ok = true;
  for (size_t e = 0; e < expected.size(); ++e) {
    if (assigned[e] >= 0) continue;
    ok = false;
    const Expectation& x = expected[e];
    report.error(x.comment_line, 1,
                 "expected " + x.severity + " " + x.code + " on line " + std::to_string(x.line) +
                     (x.pattern.empty() ? "" : " matching /" + x.pattern + "/") +
                     " was not reported");
    for (size_t a = 0; a < actual.size(); ++a)
      if (!used[a] && actual[a].line == x.line)
        report.note(actual[a].line, actual[a].column,
                    "reported on that line: " + actual[a].severity + " " + actual[a].code + ": " +
                        actual[a].message);
  }
  for (size_t a = 0; a < actual.size(); ++a) {
    const Actual& y = actual[a];
    if (used[a] || y.severity == "note") continue;
    ok = false;
    report.error(y.line, y.column, "unexpected " + y.severity + " " + y.code + ": " + y.message);
  }
  return ok;
}

// Each `# sinfo:` line against the binding whose variable starts last on that line.
void compare_sinfo(const std::vector<SinfoExpectation>& expected,
                   const std::vector<BoundSinfo>& bound, Report& report) {
  std::map<int, const BoundSinfo*> last_on_line;
  for (const BoundSinfo& b : bound) {
    const BoundSinfo*& slot = last_on_line[b.line];
    if (slot == nullptr || b.column >= slot->column) slot = &b;
  }
  for (const SinfoExpectation& e : expected) {
    auto it = last_on_line.find(e.line);
    if (it == last_on_line.end()) {
      report.error(e.line, 1,
                   "`# sinfo:` on a line where no variable is bound (or its function "
                   "was not analysed because of errors)");
    } else if (it->second->text != e.text) {
      report.error(e.line, it->second->column,
                   "'" + it->second->name + "' has StructInfo '" + it->second->text +
                       "', expected '" + e.text + "'");
    }
  }
}

// A run with `# out:` lines must exit 0 and print exactly them.
void compare_output(const RunSpec& spec, const RunResult& result, Report& report) {
  if (!result.ok || !spec.has_out) return;
  if (result.exit_status != 0) {
    report.error(spec.line, 1,
                 "`raxc run FILE " + spec.text + "` exited with status " +
                     std::to_string(result.exit_status) +
                     "; the `# out:` lines below it expect a successful run");
    return;
  }
  const std::vector<std::string>& want = spec.out;
  const std::vector<std::string>& got = result.out;
  if (want == got) return;
  size_t k = 0;
  while (k < want.size() && k < got.size() && want[k] == got[k]) ++k;
  int line = spec.line + 1 + static_cast<int>(std::min(k, want.size() - 1));
  if (k < want.size() && k < got.size())
    report.error(line, 1,
                 "output line " + std::to_string(k + 1) + " is '" + got[k] + "', expected '" +
                     want[k] + "'");
  else
    report.error(line, 1,
                 "the output has " + std::to_string(got.size()) + " line(s), expected " +
                     std::to_string(want.size()));
  report.text("    actual output of `raxc run FILE " + spec.text + "`:\n" + indent_all(got));
}

// ---------------------------------------------------------------------------- --update

// RE2::QuoteMeta, then made readable: backslashes are kept only before RE2 metacharacters
// (`missing ':'` rather than `missing\ \'\:\'`), a raw newline/CR becomes \n/\r (the comment
// stays on one line) and a final space becomes \x20 (trailing blanks are not part of a pattern).
std::string quote_pattern(const std::string& message) {
  static const std::string kMeta = "\\.+*?()|[]{}^$";
  std::string quoted = RE2::QuoteMeta(message);
  std::string out;
  for (size_t i = 0; i < quoted.size(); ++i) {
    if (quoted[i] != '\\' || i + 1 >= quoted.size()) {
      out += quoted[i];
      continue;
    }
    char c = quoted[++i];
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else if (c == ' ' && i + 1 == quoted.size()) {
      out += "\\x20";
    } else if (std::isalnum(u) || kMeta.find(c) != std::string::npos) {
      out += '\\';  // metacharacters, and QuoteMeta's own \x00
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

// The file's text with the expectations replaced by the actual diagnostics.
std::string rewrite(const std::vector<std::string>& lines, const std::vector<Actual>& actual,
                    bool crlf) {
  // 1. Drop old expectation comments; remember where every old line went.
  std::vector<std::string> kept;
  std::vector<int> new_index(lines.size() + 1, 0);  // old 0-based index -> new 0-based index
  std::vector<char> dropped(lines.size(), 0);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::string body = without_cr(line);
    bool has_cr = body.size() != line.size();
    if (RE2::PartialMatch(body, own_line_re())) {
      dropped[i] = 1;
      continue;
    }
    re2::StringPiece start;
    if (RE2::PartialMatch(body, expect_start_re(), &start)) {
      body.resize(static_cast<size_t>(start.data() - body.data()));
      while (!body.empty() && (body.back() == ' ' || body.back() == '\t')) body.pop_back();
      if (has_cr) body += '\r';
    } else {
      body = line;
    }
    new_index[i] = static_cast<int>(kept.size());
    kept.push_back(body);
  }
  if (kept.empty()) kept.push_back("");
  // A diagnostic on a dropped comment line moves to the next line that stays.
  int next = static_cast<int>(kept.size());
  for (size_t i = lines.size(); i-- > 0;) {
    if (dropped[i])
      new_index[i] = std::min(next, static_cast<int>(kept.size()) - 1);
    else
      next = new_index[i];
  }
  // 2. Group the errors and warnings by their new line, in output order. One on an `# out:`
  // line (a diagnostic without a place is on line 1) goes above its `# run:` line: the block
  // must stay together.
  std::map<int, std::vector<const Actual*>> by_line;
  std::vector<const Actual*> top;  // placeless ones: on line 1 whatever is written above it
  for (const Actual& a : actual) {
    if (a.severity == "note") continue;
    if (a.placeless) {
      top.push_back(&a);
      continue;
    }
    int old = std::clamp(a.line, 1, static_cast<int>(lines.size())) - 1;
    int line = new_index[old];
    while (line > 0 && RE2::PartialMatch(without_cr(kept[line]), out_re()) &&
           (RE2::PartialMatch(without_cr(kept[line - 1]), out_re()) ||
            RE2::PartialMatch(without_cr(kept[line - 1]), run_re())))
      --line;
    by_line[line].push_back(&a);
  }
  for (auto& [line, list] : by_line)
    std::stable_sort(list.begin(), list.end(),
                     [](const Actual* x, const Actual* y) { return x->column < y->column; });
  // 3. Write the expectations above their lines, indented like them; the placeless ones first
  // (the first on line 1 targets itself, the next ones point back to it).
  std::string eol = crlf ? "\r\n" : "\n";
  std::string out;
  for (size_t j = 0; j < top.size(); ++j)
    out += "# expect-" + top[j]->severity + (j ? "@-" + std::to_string(j) : "") + " " +
           top[j]->code + ": " + quote_pattern(top[j]->message) + eol;
  for (size_t i = 0; i < kept.size(); ++i) {
    auto it = by_line.find(static_cast<int>(i));
    if (it != by_line.end()) {
      const std::string& target = kept[i];
      std::string lead = target.substr(0, target.find_first_not_of(" \t"));
      if (lead.size() == target.size() ||
          (lead.size() + 1 == target.size() && target.back() == '\r'))
        lead.clear();  // blank line: no indentation
      size_t k = it->second.size();
      for (size_t j = 0; j < k; ++j) {
        const Actual& a = *it->second[j];
        out += lead + "# expect-" + a.severity + "@+" + std::to_string(k - j) + " " + a.code +
               ": " + quote_pattern(a.message) + eol;
      }
    }
    out += kept[i];
    if (i + 1 < kept.size()) out += '\n';
  }
  return out;
}

// Whether --update must rewrite `# out:` blocks: a successful run whose block differs or is
// missing, or a failed run that has one.
bool outputs_differ(const CaseOutcome& c) {
  for (size_t i = 0; i < c.results.size(); ++i) {
    const RunResult& r = c.results[i];
    if (!r.ok) continue;
    if (r.exit_status == 0 ? !c.runs[i].has_out || c.runs[i].out != r.out : c.runs[i].has_out)
      return true;
  }
  return false;
}

// The file's text with the `# out:` block under each `# run:` line replaced by the actual
// output of a successful run, removed for a failed one (indented like the `# run:` line).
std::string rewrite_outputs(const std::vector<std::string>& lines, const CaseOutcome& c,
                            bool crlf) {
  std::map<size_t, const RunResult*> by_line;  // 0-based index of the `# run:` line
  for (size_t i = 0; i < c.results.size(); ++i)
    if (c.results[i].ok) by_line[static_cast<size_t>(c.runs[i].line - 1)] = &c.results[i];
  std::vector<std::string> kept;
  for (size_t i = 0; i < lines.size(); ++i) {
    kept.push_back(lines[i]);
    auto it = by_line.find(i);
    if (it == by_line.end()) continue;
    while (i + 1 < lines.size() && RE2::PartialMatch(without_cr(lines[i + 1]), out_re())) ++i;
    if (it->second->exit_status != 0) continue;
    std::string lead = lines[it->first].substr(0, lines[it->first].find_first_not_of(" \t"));
    for (const std::string& out : it->second->out)
      kept.push_back(lead + (out.empty() ? "# out:" : "# out: " + out) + (crlf ? "\r" : ""));
  }
  std::string text;
  for (size_t i = 0; i < kept.size(); ++i) text += kept[i] + (i + 1 < kept.size() ? "\n" : "");
  return text;
}

// ---------------------------------------------------------------------------- one case

void run_case(const Options& options, Report& report) {
  std::string text;
  if (!read_file(report.path, text)) {
    report.error(1, 1, "cannot read the file");
    return;
  }
  std::vector<std::string> lines = split_lines(text);
  Report parse_report{report.path, "", false, false};
  std::vector<Expectation> expected = parse_expectations(lines, parse_report);
  std::vector<SinfoExpectation> sinfo = parse_sinfo_expectations(lines);
  CaseOutcome outcome = evaluate(options, report.path, lines, report, !sinfo.empty());
  if (!outcome.check.ok) {
    report.text(parse_report.messages);
    return;
  }
  if (!options.update) {
    report.text(parse_report.messages);
    report.failed |= parse_report.failed;
    compare(expected, outcome.pooled, report);
    compare_sinfo(sinfo, outcome.check.bound, report);
    for (size_t i = 0; i < outcome.results.size(); ++i)
      compare_output(outcome.runs[i], outcome.results[i], report);
    return;
  }
  // --update: rewrite when anything differs (malformed expectations included), then re-check.
  // `# sinfo:` comments are written by hand: a mismatch is reported, never rewritten. A run
  // that did not finish properly leaves the file as it is.
  compare_sinfo(sinfo, outcome.check.bound, report);
  if (!outcome.ok) return;
  bool crlf = text.find("\r\n") != std::string::npos;
  bool rewritten = false;
  auto write = [&](const std::string& updated) {
    rewritten = true;
    if (updated == text) return true;
    std::string error;
    if (!write_atomically(report.path, updated, error)) {
      report.error(1, 1, "cannot update: " + error);
      return false;
    }
    report.updated = true;
    text = updated;
    lines = split_lines(text);
    return true;
  };
  // 1. The `# out:` blocks. They move the lines below them, so the case runs again.
  if (outputs_differ(outcome)) {
    if (!write(rewrite_outputs(lines, outcome, crlf))) return;
    parse_report = Report{report.path, "", false, false};
    expected = parse_expectations(lines, parse_report);
    Report again{report.path, "", false, false};
    outcome = evaluate(options, report.path, lines, again, false);
    if (!outcome.ok) {
      report.error(1, 1, "the case no longer runs properly after updating its `# out:` lines");
      report.text(again.messages);
      return;
    }
  }
  // 2. The expectations.
  Report check{report.path, "", false, false};
  if (parse_report.failed || !compare(expected, outcome.pooled, check))
    if (!write(rewrite(lines, outcome.pooled, crlf))) return;
  if (!rewritten) return;
  // 3. The rewritten file must pass.
  Report recheck{report.path, "", false, false};
  std::vector<Expectation> again = parse_expectations(lines, recheck);
  CaseOutcome second = evaluate(options, report.path, lines, recheck, false);
  if (second.check.ok) {
    compare(again, second.pooled, recheck);
    for (size_t i = 0; i < second.results.size(); ++i)
      compare_output(second.runs[i], second.results[i], recheck);
  }
  if (recheck.failed || !second.ok) {
    report.error(1, 1, "the updated expectations do not pass (the comments changed the output?)");
    report.text(recheck.messages);
  }
}

// ---------------------------------------------------------------------------- main

int usage(const char* message) {
  if (message) std::cerr << "raxc_golden: " << message << "\n";
  std::cerr << "usage: raxc_golden --raxc PATH [--root DIR] [--update] [-j N] [-v] [PATH...]\n"
               "  runs `raxc check --diagnostics-format=json` on every .rx file under PATH\n"
               "  (default test/cases), and `raxc run` for each `# run: ARGS` line, and\n"
               "  compares with its `# expect-error RXnnnn: <RE2>` and `# out:` comments;\n"
               "  --update rewrites the comments from the actual output\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::string root;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name) -> std::optional<std::string> {
      std::string prefix = std::string(name) + "=";
      if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
      if (arg == name && i + 1 < argc) return std::string(argv[++i]);
      return std::nullopt;
    };
    if (arg == "--update") {
      options.update = true;
    } else if (arg == "-v" || arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "-h" || arg == "--help") {
      usage(nullptr);
      return 0;
    } else if (arg.rfind("--raxc", 0) == 0) {
      auto v = value("--raxc");
      if (!v) return usage("--raxc needs a path");
      options.raxc = *v;
    } else if (arg.rfind("--root", 0) == 0) {
      auto v = value("--root");
      if (!v) return usage("--root needs a directory");
      root = *v;
    } else if (arg.rfind("-j", 0) == 0) {
      std::string n = arg.size() > 2 ? arg.substr(2) : (i + 1 < argc ? argv[++i] : "");
      options.jobs = static_cast<unsigned>(std::max(1, std::atoi(n.c_str())));
    } else if (!arg.empty() && arg[0] == '-') {
      return usage(("unknown option " + arg).c_str());
    } else {
      options.paths.push_back(arg);
    }
  }
  if (options.raxc.empty()) return usage("--raxc is required");
  std::error_code ec;
  // Resolve the paths given before moving to --root.
  options.raxc = fs::absolute(options.raxc, ec).string();
  for (std::string& p : options.paths) p = fs::absolute(p, ec).string();
  if (!root.empty() && chdir(root.c_str()) != 0) {
    std::cerr << "raxc_golden: cannot enter " << root << ": " << std::strerror(errno) << "\n";
    return 2;
  }
  if (access(options.raxc.c_str(), X_OK) != 0) {
    std::cerr << "raxc_golden: " << options.raxc << " is not executable (build it first)\n";
    return 2;
  }
  if (options.paths.empty()) options.paths.push_back("test/cases");

  // Collect the cases, reported relative to the working directory when inside it.
  std::vector<std::string> files;
  fs::path cwd = fs::current_path();
  auto add = [&](const fs::path& p) {
    fs::path rel = p.lexically_relative(cwd);
    bool inside = !rel.empty() && rel.native().rfind("..", 0) != 0;
    files.push_back((inside ? rel : p).string());
  };
  for (const std::string& p : options.paths) {
    if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && it->path().extension() == ".rx") add(it->path());
      }
    } else if (fs::exists(p, ec)) {
      add(p);
    } else {
      std::cerr << "raxc_golden: " << p << " does not exist\n";
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());

  std::vector<Report> reports(files.size());
  for (size_t i = 0; i < files.size(); ++i) reports[i].path = files[i];
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(files.size(), 1));
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (unsigned w = 0; w < jobs; ++w)
    workers.emplace_back([&] {
      for (size_t i = next++; i < reports.size(); i = next++) run_case(options, reports[i]);
    });
  for (std::thread& t : workers) t.join();

  size_t failed = 0, updated = 0;
  for (const Report& r : reports) {
    std::cout << r.messages;
    if (r.failed) ++failed;
    if (r.updated) ++updated;
    if (options.verbose || r.updated)
      std::cout << (r.failed ? "FAIL " : r.updated ? "UPDATED " : "ok   ") << r.path << "\n";
  }
  std::cout << "golden: " << files.size() << " case(s), " << files.size() - failed << " passed, "
            << failed << " failed";
  if (options.update) std::cout << ", " << updated << " updated";
  std::cout << "\n";
  if (files.empty()) {
    std::cerr << "raxc_golden: no .rx files found\n";
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
