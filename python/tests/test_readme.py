"""The Python examples of python/README.md and of the main README run, and print what their
comments say."""
import contextlib
import io
import re
from pathlib import Path

import pytest

PYTHON = Path(__file__).resolve().parents[1]
ROOT = PYTHON.parent


def blocks():
    return re.findall(r"```python\n(.*?)```", (PYTHON / "README.md").read_text(), re.S)


def expected_prints(code):
    """For each `print(` line, the comment on it or on the comment line after it."""
    lines, out = code.splitlines(), []
    for i, line in enumerate(lines):
        if line.startswith("print("):
            comment = line.partition("#")[2] if "#" in line else lines[i + 1].lstrip("# ")
            out.append(comment.strip())
    return out


@pytest.mark.parametrize("index", range(len(blocks())))
def test_python_readme_example(index, monkeypatch):
    code = blocks()[index]
    monkeypatch.chdir(ROOT)  # the model example's path is relative to the repository root
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        exec(compile(code, f"README block {index}", "exec"), {})
    printed = stdout.getvalue().splitlines()
    want = expected_prints(code)
    assert len(printed) == len(want) > 0
    for got, comment in zip(printed, want):
        assert comment.startswith(got), (got, comment)


def test_main_readme_example():
    text = (ROOT / "README.md").read_text()
    (code,) = re.findall(r'venv/bin/python -c "(.*?)"', text)
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        exec(code, {})
    assert stdout.getvalue().strip() == "(5, 2, 8)"
