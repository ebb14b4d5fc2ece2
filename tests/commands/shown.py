"""The commands that ``README.md`` and the pages under ``docs/`` show a user, exactly as shown.

What counts as a command:

* every line of a shell block (README ```` ```console ````, ``shell``, ``bash``, ``sh``; in the
  docs ``.. code-block::`` of those languages), and every ``$ `` prompt line of any literal
  block (``console`` blocks, ``::`` blocks, files a page includes with ``literalinclude``);
* every line of a ``::`` literal block whose lines all start with a command word;
* a ``.. tfm-command:: ARGS`` directive, which the page shows as ``$ python -m ARGS``;
* an inline literal of the prose (tables included) that starts with a command word
  (``python``, ``pytest``, ``tox``, ``pip``, ``.ci/run``..., optionally after ``VAR=value``).

A ``# comment`` after a command is not part of it, but a comment ``# or: COMMAND`` shows
another command. ``A && B`` shows two commands, ``A`` and ``B``. A line ending in ``\\``
continues on the next, and a here-document (``<<'EOF'``) runs to its delimiter: such a command
keeps its line breaks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

SHELL_LANGUAGES = frozenset({"console", "shell", "bash", "sh", "shell-session", "zsh"})

#: A command starts with one of these programs, optionally after environment assignments.
COMMAND_START = re.compile(
    r"(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:python3?|pytest|tox|pip3?|sphinx-build|ruff|mypy|\.ci/run)(?=\s|$)")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w-]+)::\s*(.*)$")
_EXPLICIT_MARKUP = re.compile(r"^(\s*)\.\.(\s|$)")
_OPTION = re.compile(r"^\s+:[\w-]+:")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
_MD_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_RST_SPAN = re.compile(r"``(?!\s)(.+?)(?<!\s)``", re.S)


def is_command(text: str) -> bool:
    """Whether ``text`` (one inline literal, or one line of a block) starts with a command."""
    return COMMAND_START.match(text) is not None


def _split_comment(line: str) -> tuple[str, str]:
    """``(code, comment)``: a ``#`` outside quotes, at the start or after a space, starts a comment."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def _block_commands(lines: list[str], every_line: bool) -> Iterator[tuple[int, str]]:
    """``(line offset, command)`` for the commands of one dedented literal block.

    With ``$ `` prompts only the prompt lines are commands (the rest is output); otherwise, if
    ``every_line``, every line that is not blank or a comment is one.
    """
    prompted = any(line.startswith("$ ") for line in lines)
    i = 0
    while i < len(lines):
        start, line = i, lines[i]
        i += 1
        if prompted:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        elif not every_line or not line.strip():
            continue
        code, comment = _split_comment(line)
        parts = [code]
        while code.endswith("\\") and i < len(lines):
            code, _ = _split_comment(lines[i])
            parts.append(code)
            i += 1
        heredoc = _HEREDOC.search(parts[0])
        if heredoc:
            while i < len(lines):
                parts.append(lines[i])
                i += 1
                if lines[i - 1].strip() == heredoc.group(2):
                    break
        if "".join(parts).strip():
            yield start, "\n".join(parts)
        alternative = re.match(r"or:\s*(.+)", comment)
        if alternative and is_command(alternative.group(1)):
            yield start, alternative.group(1).strip()


def _dedent(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    margin = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return [x[margin:].rstrip() for x in lines]


def _indented(lines: list[str], first: int, indent: int, skip_options: bool) -> tuple[int, int]:
    """The ``[start, end)`` line range of the block indented deeper than ``indent`` from ``first``."""
    i = first
    if skip_options:
        while i < len(lines) and _OPTION.match(lines[i]):
            i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    start = end = i
    while i < len(lines):
        line = lines[i]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        i += 1
        if line.strip():
            end = i
    return start, end


def _options(lines: list[str], first: int) -> dict[str, str]:
    found = {}
    for line in lines[first:]:
        match = re.match(r"^\s+:([\w-]+):\s*(.*)$", line)
        if not match:
            break
        found[match.group(1)] = match.group(2).strip()
    return found


def _rst(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """``(line number, command)`` of one reStructuredText file (and the files it literalincludes)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    hidden = [False] * len(lines)  # literal content and comments: not prose
    i = 0
    while i < len(lines):
        line = lines[i]
        directive = _DIRECTIVE.match(line)
        markup = _EXPLICIT_MARKUP.match(line)
        indent = len(line) - len(line.lstrip())
        if directive:
            name, argument = directive.group(2), directive.group(3).strip()
            start, end = _indented(lines, i + 1, indent, skip_options=True)
            if name in ("code-block", "code", "sourcecode"):
                block = _dedent(lines[start:end])
                for offset, command in _block_commands(block, argument in SHELL_LANGUAGES):
                    yield start + offset + 1, command
                hidden[start:end] = [True] * (end - start)
            elif name == "tfm-command":
                yield i + 1, f"python -m {argument}"
            elif name == "literalinclude":
                included = (root / "docs" / argument.lstrip("/")) if argument.startswith("/") \
                    else path.parent / argument
                language = _options(lines, i + 1).get("language", "")
                block = _dedent(included.read_text(encoding="utf-8").splitlines())
                for _, command in _block_commands(block, language in SHELL_LANGUAGES):
                    yield i + 1, command
            i += 1
            continue
        if markup:  # a comment, a target or a substitution: not shown as prose
            start, end = _indented(lines, i + 1, indent, skip_options=False)
            hidden[i:end] = [True] * (end - i)
            i = end
            continue
        if line.rstrip().endswith("::"):
            start, end = _indented(lines, i + 1, indent, skip_options=False)
            block = _dedent(lines[start:end])
            every = all(is_command(x) for x in block if x.strip())
            for offset, command in _block_commands(block, every):
                yield start + offset + 1, command
            hidden[start:end] = [True] * (end - start)
            i = max(end, i + 1)
            continue
        i += 1
    prose = "\n".join("" if hide else line for hide, line in zip(hidden, lines, strict=True))
    for match in _RST_SPAN.finditer(prose):
        text = " ".join(match.group(1).split())
        if is_command(text):
            yield prose.count("\n", 0, match.start()) + 1, text


def _markdown(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, command)`` of one Markdown file: its shell blocks and inline code."""
    lines = path.read_text(encoding="utf-8").splitlines()
    prose = list(lines)
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].strip().startswith(fence.group(2)):
            end += 1
        block = [x[len(fence.group(1)):] for x in lines[i + 1:end]]
        for offset, command in _block_commands(block, fence.group(3) in SHELL_LANGUAGES):
            yield i + 2 + offset, command
        prose[i:end + 1] = [""] * (min(end + 1, len(lines)) - i)
        i = end + 1
    text = "\n".join(prose)
    for match in _MD_SPAN.finditer(text):
        span = " ".join(match.group(2).split())
        if is_command(span):
            yield text.count("\n", 0, match.start()) + 1, span


def _split_and(command: str) -> list[str]:
    """``A && B`` (outside quotes, on one line) is two commands."""
    if "\n" in command:
        return [command]
    parts, quote, start = [], "", 0
    for i, char in enumerate(command):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif command.startswith("&&", i):
            parts.append(command[start:i])
            start = i + 2
    return [part.strip() for part in [*parts, command[start:]] if part.strip()]


def documents(root: Path) -> list[Path]:
    """README.md and every page under docs/ (not a build's output)."""
    pages = [p for p in sorted((root / "docs").rglob("*.rst"))
             if not any(part.startswith("_build") for part in p.relative_to(root).parts)]
    return [root / "README.md", *pages]


def shown_commands(root: Path) -> dict[str, list[str]]:
    """Every command shown, exactly as shown, with where it is shown (``docs/x.rst:12``)."""
    found: dict[str, list[str]] = {}
    for path in documents(root):
        where = path.relative_to(root).as_posix()
        commands = _markdown(path) if path.suffix == ".md" else _rst(path, root)
        for line, shown in commands:
            for command in _split_and(shown):
                found.setdefault(command, []).append(f"{where}:{line}")
    return found
