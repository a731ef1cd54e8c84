// The `tauvta._tauvta` extension (python/tauvta/__init__.py re-exports it): the toolkit's library
// calls with NumPy arrays in and out and plain Python data for every report. Errors raise
// tauvta.Error with the same one-line message the command line prints.
#include <filesystem>
#include <new>

#include <pybind11/pybind11.h>

#include "common/error.h"
#include "python/bindings.h"
#include "report/html_page.h"

namespace py = pybind11;

PYBIND11_MODULE(_tauvta, m) {
  m.doc() = "tauvta: a VTA-compatible tensor accelerator toolkit (simulator, compiler, tuner, exploration)";
  m.attr("__version__") = tauvta::report::version();
  static py::exception<tauvta::Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tauvta::Error& e) {
      error(e.what());
    } catch (const std::filesystem::filesystem_error& e) {
      error(e.what());  // the user's paths, as the command line reports them
    } catch (const std::bad_alloc&) {
      PyErr_SetString(PyExc_MemoryError, "out of memory (a tensor or program larger than this machine holds)");
    } catch (const tauvta::InternalError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  tauvta::python::bind_config(m);
  tauvta::python::bind_network(m);
  tauvta::python::bind_tools(m);
}
