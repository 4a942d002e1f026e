"""Builds liboxidnn.so with cargo and ships it, with the generated header, inside the package."""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

ROOT = Path(__file__).resolve().parent.parent


class BuildWithLibrary(build_py):
    """build_py plus `cargo build --release --lib`; copies liboxidnn.so and oxidnn.h."""

    def run(self):
        super().run()
        if not (ROOT / "Cargo.toml").is_file():
            raise SystemExit(f"setup.py: no Cargo.toml in {ROOT}: build from the repository")
        target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")).resolve()
        subprocess.run(["cargo", "build", "--release", "--lib", "--manifest-path",
                        str(ROOT / "Cargo.toml"), "--target-dir", str(target)], check=True)
        dest = Path(self.build_lib) / "oxidnn"
        shutil.copy2(target / "release" / "liboxidnn.so", dest / "liboxidnn.so")
        shutil.copy2(ROOT / "include" / "oxidnn.h", dest / "oxidnn.h")


class BinaryDistribution(Distribution):
    """The wheel holds a native library: platform-specific."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """No extension module (ctypes): the wheel suits any Python 3 on this platform."""

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel},
      distclass=BinaryDistribution)
