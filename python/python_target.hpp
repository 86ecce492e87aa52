#pragma once
// Potentials written in Python, as the run layer's targets (docs/python.md). A model object gives
//   gradient(x) -> ∇U(x), optional value(x) -> U(x)                               (a potential), or
//   n_data, gradient(x, batch) -> Σ_{i ∈ batch} ∇(−log p(y_i | x)), prior_gradient(x),
//   optional value(x, batch) and prior_value(x)                                     (a minibatch model),
// and becomes the config's target `{"name": "python", ...}` through the registry entry made here, so
// every sampler, manifold, estimator (control variates, SVRG, SAGA) and output applies to it unchanged.
// A compiled potential (a numba cfunc or a ctypes function: `void gradient(const double* x, double* g,
// int64 d)`, optional `double value(const double* x, int64 d)`) is called without the GIL.
//
// The GIL: the run's threads do not hold it; each call into Python takes it for the call's length
// (pybind11's gil_scoped_acquire) and copies x into a fresh NumPy array (the model may keep it), and
// every Python reference a target holds is released under it. A call that raises, returns the wrong
// shape or a non-finite number stops its chain with that message (sgmcmc::Error), as any chain error.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <sgmcmc/run/targets/common.hpp>
#include <sgmcmc/run/targets/estimator.hpp>

namespace sgmcmc::python {

namespace py = pybind11;
using run::json;

/// Keeps a Python thread state for the calling thread until it exits. pybind11's gil_scoped_acquire on a
/// thread Python does not know (the run's worker threads) makes a thread state and deletes it again on
/// release: about 6 µs per call, several times a small NumPy gradient's own cost. Kept, a call takes
/// and gives back the GIL only.
inline void keep_thread_state() {
  struct Kept {
    Kept() {
      py::gil_scoped_acquire gil;
      gil.inc_ref();  // one reference more than the scope's: the state outlives it
    }
    ~Kept() {
      if (!Py_IsInitialized()) return;
      py::gil_scoped_acquire gil;
      gil.dec_ref();  // the constructor's reference; the scope's own, at its end, deletes the state
    }
  };
  thread_local const Kept kept;
}

/// One method of the user's model, kept alive by every copy of a target (copies are made and dropped on
/// the run's threads, so the last reference is released under the GIL).
class Method {
 public:
  Method() = default;
  /// `model.name` (the GIL held); empty when the model has no such method.
  Method(const py::object& model, const char* name, const std::string& owner) : label_(fmt::format("{}.{}", owner, name)) {
    if (!py::hasattr(model, name)) return;
    py::object f = model.attr(name);
    fn_ = std::shared_ptr<PyObject>(f.release().ptr(), [](PyObject* p) {
      py::gil_scoped_acquire gil;
      Py_DECREF(p);
    });
  }
  explicit operator bool() const { return static_cast<bool>(fn_); }
  const std::string& label() const { return label_; }

  /// Calls the method with x (and the batch, when given) and copies the vector it returns into `out`
  /// (size d). Errors are thrown after the GIL is released.
  void vector(const Eigen::VectorXd& x, const std::vector<std::size_t>* batch, double* out, Eigen::Index d) const {
    std::string error;
    keep_thread_state();
    {
      py::gil_scoped_acquire gil;
      try {
        py::object r = call(x, batch);
        auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(r);
        if (!a) error = fmt::format("returned {}, not an array of numbers", describe(r));
        else if (a.ndim() != 1 || a.shape(0) != d) error = fmt::format("returned an array of shape {}, expected ({},)", shape(a), d);
        else {
          const double* v = a.data();
          for (Eigen::Index i = 0; i < d; ++i)
            if (!std::isfinite(v[i])) {
              error = fmt::format("returned a non-finite value ({}) at index {}", v[i], i);
              break;
            }
          if (error.empty()) std::memcpy(out, v, sizeof(double) * static_cast<std::size_t>(d));
        }
      } catch (py::error_already_set& e) {
        error = fmt::format("raised {}", e.what());
      }
    }
    if (!error.empty()) throw Error(fmt::format("python model: {} {}", label_, error));
  }
  /// Calls the method and returns the number it returns.
  double number(const Eigen::VectorXd& x, const std::vector<std::size_t>* batch) const {
    std::string error;
    double u = 0.0;
    keep_thread_state();
    {
      py::gil_scoped_acquire gil;
      try {
        py::object r = call(x, batch);
        PyObject* f = PyNumber_Float(r.ptr());
        if (!f) {
          PyErr_Clear();
          error = fmt::format("returned {}, not a number", describe(r));
        } else {
          u = PyFloat_AS_DOUBLE(f);
          Py_DECREF(f);
          if (!std::isfinite(u)) error = fmt::format("returned a non-finite value ({})", u);
        }
      } catch (py::error_already_set& e) {
        error = fmt::format("raised {}", e.what());
      }
    }
    if (!error.empty()) throw Error(fmt::format("python model: {} {}", label_, error));
    return u;
  }

 private:
  // A fresh array per call: the model may keep what it is given.
  py::object call(const Eigen::VectorXd& x, const std::vector<std::size_t>* batch) const {
    py::array_t<double> xa(x.size());
    std::memcpy(xa.mutable_data(), x.data(), sizeof(double) * static_cast<std::size_t>(x.size()));
    if (!batch) return py::reinterpret_steal<py::object>(check(PyObject_CallOneArg(fn_.get(), xa.ptr())));
    py::array_t<std::int64_t> ba(static_cast<py::ssize_t>(batch->size()));
    std::int64_t* b = ba.mutable_data();
    for (std::size_t k = 0; k < batch->size(); ++k) b[k] = static_cast<std::int64_t>((*batch)[k]);
    return fn_call2(xa, ba);
  }
  py::object fn_call2(const py::object& a, const py::object& b) const {
    PyObject* args[] = {a.ptr(), b.ptr()};
    return py::reinterpret_steal<py::object>(check(PyObject_Vectorcall(fn_.get(), args, 2, nullptr)));
  }
  static PyObject* check(PyObject* r) {
    if (!r) throw py::error_already_set();
    return r;
  }
  static std::string describe(const py::handle& r) { return fmt::format("a {}", py::str(py::type::handle_of(r).attr("__name__")).cast<std::string>()); }
  static std::string shape(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) s += fmt::format("{}{}", a.shape(i), a.ndim() == 1 || i + 1 < a.ndim() ? "," : "");
    return s + ")";
  }
  std::shared_ptr<PyObject> fn_;
  std::string label_;
};

/// A potential U written in Python: gradient(x), and value(x) when `WithValue` (MH samplers, the checks).
template <bool WithValue>
struct PythonPotential {
  Method grad, val;
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R&) const {
    exact_gradient(x, g);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    g.resize(x.size());
    grad.vector(x, nullptr, g.data(), x.size());
  }
  double value(const Eigen::VectorXd& x) const
    requires WithValue
  {
    return val.number(x, nullptr);
  }
};

/// A minibatch model written in Python (models::DataModel, BatchDataModel, FullDataModel): one call
/// per batch, the prior's gradient apart, so the library's batching and estimators apply to it.
template <bool WithValue>
struct PythonDataModel {
  std::size_t n = 0;
  Method grad, prior_grad, val, prior_val;
  mutable Eigen::VectorXd scratch;  // one model per chain (targets are copied per chain)

  std::size_t size() const { return n; }
  void add_prior_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { add(prior_grad, x, nullptr, g, 1.0); }
  void add_example_gradient(const Eigen::VectorXd& x, std::size_t i, Eigen::VectorXd& g, double s) const {
    const std::vector<std::size_t> one{i};
    add(grad, x, &one, g, s);
  }
  void add_batch_gradient(const Eigen::VectorXd& x, const std::vector<std::size_t>& idx, Eigen::VectorXd& g, double s) const {
    add(grad, x, &idx, g, s);
  }
  void add_likelihood_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const { add(grad, x, &all(), g, 1.0); }
  double likelihood_value(const Eigen::VectorXd& x) const {
    if constexpr (WithValue) return val.number(x, &all());
    else throw Error(fmt::format("python model: {} is needed for the exact U", val.label()));
  }
  double prior_value(const Eigen::VectorXd& x) const
    requires WithValue
  {
    return prior_val.number(x, nullptr);
  }
  double example_value(const Eigen::VectorXd& x, std::size_t i) const
    requires WithValue
  {
    const std::vector<std::size_t> one{i};
    return val.number(x, &one);
  }

 private:
  void add(const Method& m, const Eigen::VectorXd& x, const std::vector<std::size_t>* batch, Eigen::VectorXd& g, double s) const {
    scratch.resize(x.size());
    m.vector(x, batch, scratch.data(), x.size());
    g += s * scratch;
  }
  const std::vector<std::size_t>& all() const {
    if (every.size() != n) {
      every.resize(n);
      for (std::size_t i = 0; i < n; ++i) every[i] = i;
    }
    return every;
  }

 public:
  mutable std::vector<std::size_t> every = {};  // 0, 1, ..., n − 1: a full-data pass's batch
};

/// A compiled potential: C function pointers called directly, without the GIL (a numba cfunc's or a
/// ctypes function's address); its value when `WithValue`, so that a sampler or a field that needs U
/// is refused when the config is read, as for any target without one.
template <bool WithValue>
struct CompiledPotential {
  using Gradient = void (*)(const double* x, double* g, std::int64_t d);
  using Value = double (*)(const double* x, std::int64_t d);
  Gradient grad = nullptr;
  Value val = nullptr;
  template <class R>
  void gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g, R&) const {
    exact_gradient(x, g);
  }
  void exact_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& g) const {
    g.resize(x.size());
    grad(x.data(), g.data(), static_cast<std::int64_t>(x.size()));
    if (!g.allFinite()) {
      Eigen::Index i = 0;
      while (std::isfinite(g[i])) ++i;
      throw Error(fmt::format("compiled potential: gradient returned a non-finite value ({}) at index {}", g[i], i));
    }
  }
  double value(const Eigen::VectorXd& x) const
    requires WithValue
  {
    const double u = val(x.data(), static_cast<std::int64_t>(x.size()));
    if (!std::isfinite(u)) throw Error(fmt::format("compiled potential: value returned a non-finite value ({})", u));
    return u;
  }
};

/// What `sgmcmc.compiled(...)` hands the run: the two addresses (the value's 0 when none).
struct CompiledAddresses {
  std::uintptr_t gradient = 0, value = 0;
};

/// The registry entry of the config's target "python" for `model` (a Python object or CompiledAddresses;
/// the GIL held). Its section: `model` (the class's name, recorded for the reader), and for a minibatch
/// model the data target's fields (batch_size, with_replacement, estimator, centre, refresh_every).
inline run::TargetEntry python_target(const py::object& model) {
  std::string owner = py::str(py::type::handle_of(model).attr("__name__")).cast<std::string>();
  if (py::isinstance<CompiledAddresses>(model)) {
    const auto a = model.cast<CompiledAddresses>();
    const auto grad = reinterpret_cast<CompiledPotential<true>::Gradient>(a.gradient);
    const auto val = reinterpret_cast<CompiledPotential<true>::Value>(a.value);
    return {{"python"}, "a compiled potential given to sgmcmc.sample", [grad, val](run::Fields& f, const run::ManifoldChoice& manifold) {
              run::targets::manifold_dim(manifold);
              f.find("model");
              json resolved = {{"name", "python"}, {"model", "compiled"}};
              if (val) return run::targets::make_choice(f, "python", CompiledPotential<true>{grad, val}, std::move(resolved));
              return run::targets::make_choice(f, "python", CompiledPotential<false>{grad, val}, std::move(resolved));
            }};
  }
  const bool data = py::hasattr(model, "n_data"), with_value = py::hasattr(model, "value");
  if (!py::hasattr(model, "gradient")) throw Error(fmt::format("python model: {} has no gradient method", owner));
  if (!data) {
    return {{"python"}, "a potential written in Python, given to sgmcmc.sample",
            [grad = Method(model, "gradient", owner), val = Method(model, "value", owner), owner, with_value](
                run::Fields& f, const run::ManifoldChoice& manifold) {
              run::targets::manifold_dim(manifold);
              f.find("model");
              json resolved = {{"name", "python"}, {"model", owner}};
              if (with_value) return run::targets::make_choice(f, "python", PythonPotential<true>{grad, val}, std::move(resolved));
              return run::targets::make_choice(f, "python", PythonPotential<false>{grad, val}, std::move(resolved));
            }};
  }
  py::object n_attr = model.attr("n_data");
  long long n_data = 0;
  try {
    n_data = n_attr.cast<long long>();
  } catch (const py::cast_error&) {
    throw Error(fmt::format("python model: {}.n_data must be an integer, got {}", owner, py::str(n_attr).cast<std::string>()));
  }
  if (n_data < 1) throw Error(fmt::format("python model: {}.n_data must be at least 1, got {}", owner, n_data));
  if (!py::hasattr(model, "prior_gradient"))
    throw Error(fmt::format("python model: {} has n_data (a minibatch model) but no prior_gradient(x) method", owner));
  if (with_value && !py::hasattr(model, "prior_value"))
    throw Error(fmt::format("python model: {} has value(x, batch) but no prior_value(x) method", owner));
  const auto n = static_cast<std::size_t>(n_data);
  return {{"python"}, "a minibatch model written in Python, given to sgmcmc.sample",
          [n, owner, with_value, grad = Method(model, "gradient", owner), prior_grad = Method(model, "prior_gradient", owner),
           val = Method(model, "value", owner), prior_val = Method(model, "prior_value", owner)](run::Fields& f, const run::ManifoldChoice& manifold) {
            const Eigen::Index dim = run::targets::manifold_dim(manifold);
            f.find("model");
            // A record's own N (resumed with the model given again): the same model, or an error.
            if (const json* recorded = f.find("n_data"); recorded && !(recorded->is_number_unsigned() && recorded->get<std::uint64_t>() == n))
              run::fail(f.at("n_data"), fmt::format("the run was made with {} examples, but {}.n_data is {}", run::describe(*recorded), owner, n));
            const auto batch = f.count("batch_size", std::min<std::uint64_t>(100, n), 1);
            if (batch > n) run::fail(f.at("batch_size"), fmt::format("expected at most the model's {} examples (n_data), got {}", n, batch));
            const bool replace = f.boolean("with_replacement", false);
            json resolved = {{"name", "python"}, {"model", owner}, {"n_data", n}, {"batch_size", batch}, {"with_replacement", replace}};
            const run::targets::DataSpace space{dim, manifold.geometry.flat, 0, {}, std::nullopt};
            const auto choice = [&]<bool V>(PythonDataModel<V> m) {
              return run::targets::make_estimated_choice(f, "python", models::minibatch(std::move(m), batch, run::targets::sampling(replace)),
                                                         std::move(resolved), space);
            };
            if (with_value) return choice(PythonDataModel<true>{n, grad, prior_grad, val, prior_val, {}});
            return choice(PythonDataModel<false>{n, grad, prior_grad, val, prior_val, {}});
          }};
}

}  // namespace sgmcmc::python
