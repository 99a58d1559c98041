"""Every code block in README.md and docs/*.md runs, or says why it does not.

A ```python block runs: a document's python blocks run in order in one fresh interpreter
(they share their names, as a reader running them one after another would), in an empty
temporary folder, with this checkout's mindlite; each block is a file there, so graph mode
can read the source of the functions it defines. Any other block (a diagram, printed output,
a shell command, C++ or TOML) and a python block that cannot run here is preceded by a
marker line the runner reads:

    <!-- not run: why -->

The reason must not be empty. A marker before nothing, or a block of another language
without one, fails the document's test, so a new block cannot be skipped silently.
"""
import os
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md"] + sorted(os.path.join("docs", f)
                              for f in os.listdir(os.path.join(ROOT, "docs"))
                              if f.endswith(".md"))
MARKER = re.compile(r"^\s*<!--\s*not run:(.*?)-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")


def blocks(path):
    """[(line number, language, code, reason or None)] of a markdown file's fenced blocks."""
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    out, i, reason, reason_line = [], 0, None, None
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m:
            reason, reason_line = m.group(1).strip(), i + 1
            if not reason:
                raise AssertionError(f"{path}:{i + 1}: a 'not run' marker needs a reason")
            i += 1
            continue
        f = FENCE.match(lines[i])
        if f:
            indent, fence, lang = f.groups()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            code = textwrap.dedent("\n".join(x[len(indent):] if x.startswith(indent) else x
                                             for x in lines[i + 1:j]))
            out.append((i + 1, lang.lower(), code, reason))
            reason = None
            i = j + 1
            continue
        if reason is not None and lines[i].strip():
            raise AssertionError(f"{path}:{reason_line}: a 'not run' marker must stand right "
                                 "before the block it is about")
        i += 1
    return out


def _runnable(path):
    todo = []
    for line, lang, code, reason in blocks(path):
        if reason is not None:
            continue
        assert lang == "python", (f"{path}:{line}: a ```{lang or '(no language)'} block needs "
                                  f"a '<!-- not run: why -->' marker (only python blocks run)")
        todo.append((line, code))
    return todo


@pytest.mark.parametrize("path", DOCS)
def test_doc_code_blocks_run(path, tmp_path):
    todo = _runnable(path)
    if not todo:
        return
    files = []
    for line, code in todo:
        name = tmp_path / f"{os.path.basename(path)[:-3]}_line{line}.py"
        name.write_text(code, encoding="utf-8")
        files.append((line, str(name)))
    script = "\n".join(
        f"print('--- {path}:{line}', flush=True)\n"
        f"exec(compile(open({name!r}).read(), {name!r}, 'exec'))" for line, name in files)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (
        f"{path}: a code block failed\n{done.stdout[-3000:]}\n{done.stderr[-4000:]}")


def test_the_runner_refuses_an_unmarked_block_and_an_empty_reason(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("text\n\n<!-- not run: a diagram -->\n```\na -> b\n```\n\n"
                    "```python\nx = 1\n```\n")
    assert [(lang, reason) for _, lang, _, reason in blocks(str(page))] == [
        ("", "a diagram"), ("python", None)]
    assert _runnable(str(page)) == [(8, "x = 1")]
    page.write_text("```sh\nmake test\n```\n")
    with pytest.raises(AssertionError, match="needs a '<!-- not run: why -->' marker"):
        _runnable(str(page))
    page.write_text("<!-- not run: -->\n```\nx\n```\n")
    with pytest.raises(AssertionError, match="needs a reason"):
        blocks(str(page))
    page.write_text("<!-- not run: why -->\nprose\n```\nx\n```\n")
    with pytest.raises(AssertionError, match="right before the block"):
        blocks(str(page))
