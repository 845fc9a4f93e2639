"""The README's "## Python API" example runs as written (at most 15 lines, in a fresh interpreter)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

README = Path(__file__).resolve().parents[2] / "README.md"
HEADING = "## Python API"
MAX_LINES = 15


def readme_example(text: str) -> str | None:
    """The first ```python block under the "## Python API" heading (None: no such heading).

    Raises:
        AssertionError: the heading is there but holds no Python block.
    """
    match = re.search(rf"^{re.escape(HEADING)}[ \t]*$", text, flags=re.MULTILINE)
    if match is None:
        return None
    rest = text[match.end() :]
    following = re.search(r"^## ", rest, flags=re.MULTILINE)
    body = rest[: following.start()] if following else rest
    block = re.search(r"^```python\n(.*?)^```", body, flags=re.MULTILINE | re.DOTALL)
    assert block is not None, f'README.md has "{HEADING}" but no ```python block under it'
    return block.group(1)


def test_the_readme_python_example_runs(tmp_path: Path) -> None:
    code = readme_example(README.read_text(encoding="utf-8"))
    if code is None:
        pytest.skip(f'README.md has no "{HEADING}" heading yet: nothing to run')
    assert len(code.splitlines()) <= MAX_LINES, code
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "120"},
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip(), "the example prints nothing"


def test_the_extractor_finds_the_block_under_the_heading() -> None:
    page = f"# t\n\n{HEADING}\n\ntext\n\n```python\nprint(1)\n```\n\n## Next\n\n```python\nprint(2)\n```\n"
    assert readme_example(page) == "print(1)\n"
    assert readme_example("# t\n\n## Python APIs\n\n```python\nprint(1)\n```\n") is None
    with pytest.raises(AssertionError, match="no ```python block"):
        readme_example(f"{HEADING}\n\n```bash\nls\n```\n## Next\n```python\nprint(2)\n```\n")
