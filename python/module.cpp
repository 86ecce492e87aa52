// The Python extension `sgmcmc._sgmcmc` (docs/python.md): runs a config, samples a Python or compiled
// potential, resumes a record — through the run layer's own run and resume paths (run/runner.hpp,
// run/resume.hpp), so a run from Python is the command line's run draw for draw — and hands the fit's
// draws to NumPy. python/sgmcmc/__init__.py is the API; this file is what it calls.
//
// A run goes on a thread of its own while the calling thread, without the GIL, waits for it and checks
// for Ctrl-C every 50 ms: Python runs its SIGINT handler only on the main thread, in bytecode or in
// PyErr_CheckSignals. An interrupt sets the run's stop flag (run::Options::stop): the chains stop within
// 64 steps and the fit holds what they drew, status "interrupted", which resume continues.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/ranges.h>

#include <sgmcmc/cli/detail/report.hpp>
#include "capture.hpp"
#include "python_target.hpp"
#include <sgmcmc/run/builtin.hpp>
#include <sgmcmc/run/json_file.hpp>
#include <sgmcmc/run/output/builtin_formats.hpp>
#include <sgmcmc/run/output/json_record.hpp>
#include <sgmcmc/run/resume.hpp>
#include <sgmcmc/run/runner.hpp>

namespace sgmcmc::python {
namespace {

namespace output = run::output;

/// The shipped registry, plus the target "python" when a model is given.
run::Registry registry_for(const py::object& model) {
  run::Registry r = run::builtin_registry();
  if (!model.is_none()) r.add(python_target(model));
  return r;
}

/// Runs `work(options)` on a thread of its own; the calling thread waits without the GIL and turns
/// Ctrl-C into the run's stop flag. Rethrows the run's error here; an exception another signal handler
/// raised (a SIGALRM timeout) stops the run too and is raised when it has stopped.
void interruptible(unsigned threads, const std::function<void(const run::Options&)>& work) {
  std::atomic<bool> stop{false};
  run::Options opt;
  opt.threads = threads;
  opt.stop = &stop;
  std::optional<py::error_already_set> raised;
  std::exception_ptr error;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        work(opt);
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard lock(m);
      done = true;
      cv.notify_all();
    });
    for (;;) {
      {
        std::unique_lock lock(m);
        if (cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) break;
      }
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {  // a handler raised: stop; Ctrl-C's KeyboardInterrupt keeps the draws
        if (PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) PyErr_Clear();
        else if (!raised) raised.emplace();  // takes the exception (error_already_set fetches it)
        else PyErr_Clear();
        stop = true;
      }
    }
    worker.join();
  }
  if (raised) throw std::move(*raised);
  if (error) std::rethrow_exception(error);
}

std::shared_ptr<Capture> run_json(const json& config, unsigned threads, const py::object& model) {
  const run::Registry registry = registry_for(model);
  auto capture = std::make_shared<Capture>();
  output::Writer* writers[] = {capture.get()};
  interruptible(threads, [&](const run::Options& opt) { run::run(config, opt, registry, writers); });
  return capture;
}

std::shared_ptr<Capture> run_text(const std::string& text, unsigned threads, const py::object& model) {
  return run_json(run::parse_json_text(text, "config"), threads, model);
}

/// A config file, read as `sgmcmc run CONFIG` reads it (its errors name the file).
std::shared_ptr<Capture> run_file(const std::string& path, unsigned threads, const py::object& model) {
  return run_json(run::read_json_file(path), threads, model);
}

std::shared_ptr<Capture> resume_record(const std::string& record_text, std::optional<std::uint64_t> steps, unsigned threads,
                                       const py::object& model) {
  const json record = run::parse_json_text(record_text, "record");
  const run::Registry registry = registry_for(model);
  auto capture = std::make_shared<Capture>();
  output::Writer* writers[] = {capture.get()};
  interruptible(threads, [&](const run::Options& opt) { run::resume(record, steps, opt, registry, writers); });
  return capture;
}

std::shared_ptr<Capture> resume_path(const std::string& path, std::optional<std::uint64_t> steps, unsigned threads, const py::object& model) {
  const run::Registry registry = registry_for(model);
  auto capture = std::make_shared<Capture>();
  output::Writer* writers[] = {capture.get()};
  interruptible(threads, [&](const run::Options& opt) { run::resume_file(path, steps, opt, registry, writers); });
  return capture;
}

// Which of a chain's rows (first, count): the warm-up rows, or the draws after the burn-in.
using Span = std::pair<std::size_t, std::size_t>;
Span sampling_rows(const Capture::Chain& ch) { return {ch.warmup_rows, ch.rows() - ch.warmup_rows}; }
Span warmup_rows(const Capture::Chain& ch) { return {0, ch.warmup_rows}; }

/// (chains, most rows, width): each chain's rows `rows_of` of `per_row` (row-major, `width` numbers a
/// row), NaN where a chain has fewer (one stopped early).
template <class RowsOf, class PerRow>
py::array_t<double> stacked(const Capture& c, std::size_t width, RowsOf rows_of, PerRow per_row) {
  std::size_t most = 0;
  for (const auto& ch : c.chains()) most = std::max(most, rows_of(ch).second);
  py::array_t<double> out(std::vector<std::size_t>{c.chains().size(), most, width});
  double* o = out.mutable_data();
  std::fill(o, o + out.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t i = 0; i < c.chains().size(); ++i) {
    const auto [first, count] = rows_of(c.chains()[i]);
    for (std::size_t r = 0; r < count; ++r) per_row(c.chains()[i], first + r, o + (i * most + r) * width);
  }
  return out;
}

py::array_t<double> draws(const Capture& c, bool warmup) {
  const auto dim = static_cast<std::size_t>(c.header().dim());
  const auto copy = [dim](const Capture::Chain& ch, std::size_t r, double* to) { std::copy_n(ch.values.data() + r * dim, dim, to); };
  return warmup ? stacked(c, dim, warmup_rows, copy) : stacked(c, dim, sampling_rows, copy);
}

/// Statistic name -> (chains, draws) after the burn-in; lp when the run kept it.
py::dict stats(const Capture& c) {
  py::dict out;
  const auto column = [&](auto get) {
    py::array_t<double> a = stacked(c, 1, sampling_rows, [&](const Capture::Chain& ch, std::size_t r, double* to) { *to = get(ch, r); });
    return a.attr("reshape")(a.shape(0), a.shape(1));
  };
  for (const Statistic* s : c.header().statistics)
    out[py::str(std::string(s->name))] = column([s](const Capture::Chain& ch, std::size_t r) { return s->get(ch.stats[r]); });
  if (c.header().has_lp) out["lp"] = column([](const Capture::Chain& ch, std::size_t r) { return ch.lp[r]; });
  return out;
}

/// The pointwise log-likelihood (chains, draws, N), when the run kept it.
py::object log_likelihood(const Capture& c) {
  const auto n = static_cast<std::size_t>(c.header().log_likelihood);
  if (n == 0) return py::none();
  return stacked(c, n, sampling_rows, [n](const Capture::Chain& ch, std::size_t r, double* to) { std::copy_n(ch.log_lik.data() + r * n, n, to); });
}

/// The whole run record, draws included: the document `sgmcmc run -o` writes.
std::string record_text(const Capture& c) {
  output::RecordInMemory memory;
  output::Writer* writers[] = {&memory};
  c.replay(writers);
  return memory.record().dump();
}

/// Writes the fit in a registered format (`sgmcmc run --format`'s names) at `path` (the -o path);
/// returns the files written.
std::vector<std::string> write_format(const Capture& c, const std::string& path, const std::string& format) {
  const output::Formats formats = output::builtin_formats();
  const output::FormatEntry* entry = formats.find(format);
  if (!entry) throw Error(fmt::format("format: unknown format '{}' (known: {})", printable(format), fmt::join(formats.names(), ", ")));
  std::unique_ptr<output::Writer> w = entry->make(output::OutputPath(path, formats.endings()));
  output::Writer* writers[] = {w.get()};
  c.replay(writers);
  return w->files();
}

/// The command line's `sgmcmc summary --json` of the fit.
std::string summary(const Capture& c) {
  std::vector<Eigen::MatrixXd> chains;
  const Eigen::Index dim = c.header().dim();
  for (const auto& ch : c.chains()) {
    const auto [first, count] = sampling_rows(ch);
    chains.push_back(Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        ch.values.data() + first * static_cast<std::size_t>(dim), static_cast<Eigen::Index>(count), dim));
  }
  json record = c.record();
  std::ostringstream os;
  cli::detail::print_summary(record, chains, c.header().parameters, os, /*as_json=*/true);
  return os.str();
}

}  // namespace
}  // namespace sgmcmc::python

PYBIND11_MODULE(_sgmcmc, m) {
  namespace py = pybind11;
  using namespace sgmcmc::python;
  m.doc() = "sgmcmc's engine (docs/python.md); use the package `sgmcmc`, not this module";
  py::register_exception<sgmcmc::Error>(m, "Error", PyExc_ValueError);

  py::class_<CompiledAddresses>(m, "CompiledAddresses")
      .def(py::init([](std::uintptr_t gradient, std::uintptr_t value) {
             if (gradient == 0) throw sgmcmc::Error("compiled: the gradient's address is 0");
             return CompiledAddresses{gradient, value};
           }),
           py::arg("gradient"), py::arg("value") = 0)
      .def_readonly("gradient", &CompiledAddresses::gradient)
      .def_readonly("value", &CompiledAddresses::value);

  py::class_<Capture, std::shared_ptr<Capture>>(m, "Capture")
      .def("draws", [](const Capture& c) { return draws(c, false); })
      .def("warmup_draws", [](const Capture& c) { return draws(c, true); })
      .def("stats", &stats)
      .def("log_likelihood", &log_likelihood)
      .def("names", [](const Capture& c) { return sgmcmc::run::output::bracket_names(c.header().parameters); })
      .def("record_without_draws", [](const Capture& c) { return c.record().dump(); })
      .def("record", &record_text)
      .def("write", &write_format, py::arg("path"), py::arg("format"))
      .def("summary", &summary);

  m.def("run", &run_text, py::arg("config"), py::arg("threads") = 0, py::arg("model") = py::none());
  m.def("run_file", &run_file, py::arg("path"), py::arg("threads") = 0, py::arg("model") = py::none());
  m.def("resume_record", &resume_record, py::arg("record"), py::arg("steps") = py::none(), py::arg("threads") = 0,
        py::arg("model") = py::none());
  m.def("resume_path", &resume_path, py::arg("path"), py::arg("steps") = py::none(), py::arg("threads") = 0,
        py::arg("model") = py::none());
}
