"""Builds libvif's Python extension with the project's CMake (see pyproject.toml).

The extension (libvif._core) and the shared libraries it links (libvif.so.1, and
libvif_ffmpeg.so.1 in FFmpeg builds) go into the package folder, found there through the
module's $ORIGIN run path. Extra CMake arguments come from the environment variable CMAKE_ARGS
(e.g. CMAKE_ARGS="-DVIF_ENABLE_CUDA=OFF"); VIF_JOBS sets the parallel jobs. Unless CMAKE_ARGS
names CMAKE_CUDA_ARCHITECTURES, the wheel gets the `package` preset's list (CMakePresets.json),
not a developer build's default (the GPU present only), so that it runs on any recent GPU.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def package_cuda_architectures() -> list:
    """-DCMAKE_CUDA_ARCHITECTURES=... of the `package` preset, or nothing if it cannot be read."""
    try:
        presets = json.loads((ROOT / "CMakePresets.json").read_text())
        for preset in presets["configurePresets"]:
            if preset["name"] == "package":
                return ["-DCMAKE_CUDA_ARCHITECTURES=" +
                        preset["cacheVariables"]["CMAKE_CUDA_ARCHITECTURES"]]
    except (OSError, ValueError, KeyError):
        pass
    return []


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        package_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = Path(self.build_temp).resolve() / "cmake"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), *generator,
            "-DCMAKE_BUILD_TYPE=Release", "-DVIF_BUILD_PYTHON=ON", "-DVIF_BUILD_TESTS=OFF",
            "-DVIF_BUILD_BENCHMARKS=OFF", "-DVIF_BUILD_TOOLS=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
            *shlex.split(os.environ.get("CMAKE_ARGS", "")),
        ]
        cmake_args = os.environ.get("CMAKE_ARGS", "")
        if "CMAKE_CUDA_ARCHITECTURES" not in cmake_args and "VIF_ENABLE_CUDA=OFF" not in cmake_args:
            configure += package_cuda_architectures()
        if shutil.which("ccache"):
            configure += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache",
                          "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
        jobs = os.environ.get("VIF_JOBS", str(os.cpu_count() or 2))
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "vif_python", "-j", jobs],
                       check=True)
        subprocess.run(["cmake", "--install", str(build_dir), "--component", "python",
                        "--prefix", str(package_dir.parent)], check=True)
        # Wheels hold no symbolic links: keep each library once, under its soname.
        for link in package_dir.iterdir():
            if link.is_symlink():
                target = link.resolve()
                link.unlink()
                target.rename(link)


setup(
    ext_modules=[CMakeExtension("libvif._core")],
    cmdclass={"build_ext": CMakeBuild},
    # Keep setuptools' build folders apart from the CMake tree that scripts/setup.sh makes.
    options={"build": {"build_base": "build-python"}},
)
