#include "python/progress.h"

#include <memory>

namespace tauvta::python {

std::function<void(const std::string&)> line_progress(const py::object& cb) {
  if (cb.is_none()) return [](const std::string&) {};
  // The callable is copied along with the std::function on threads without the GIL, so it is
  // held by a shared_ptr (no Python reference counting) released with the GIL taken.
  std::shared_ptr<py::object> held(new py::object(cb), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
  return [held](const std::string& line) {
    py::gil_scoped_acquire gil;
    (*held)(line);
  };
}

}  // namespace tauvta::python
