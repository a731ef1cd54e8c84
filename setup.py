"""`pip install .` (offline: `pip install --no-build-isolation .`): builds the Python module with the
project's CMake build (into build/ unless TAUVTA_BUILD_DIR says otherwise) and installs the tauvta
package. The C++ build is the same one scripts/build makes; run scripts/setup first on a fresh
machine for its Debian packages."""
import os
import pathlib
import re
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
# The version is declared once, in CMakeLists.txt's project().
VERSION = re.search(r"project\(tauvta VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("TAUVTA_BUILD_DIR", ROOT / "build"))
        if not (build / "CMakeCache.txt").exists():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release"])
        subprocess.check_call(["cmake", "--build", str(build), "--target", "tauvta_python", "-j",
                               str(os.cpu_count() or 2)])
        built = next((build / "python" / "tauvta").glob("_tauvta*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="tauvta",
    version=VERSION,
    description="A VTA-compatible tensor accelerator toolkit: simulator, compiler, tuner, exploration",
    package_dir={"": "python"},
    packages=["tauvta"],
    ext_modules=[Extension("tauvta._tauvta", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    install_requires=["numpy"],
    python_requires=">=3.9",
)
