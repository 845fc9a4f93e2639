"""Where a scenario comes from: one place that turns a path (a parley YAML file, a GENIUS domain file or
folder, a GeniusWeb profile or folder, an LLM-Deliberation or TextArena game folder) into a Scenario,
detecting its format, and that writes a scenario out in a format (YAML, GENIUS, GeniusWeb).

Kept free of numpy, pydantic and YAML at import time (the CLI reads `FORMATS` for its help pages):
every importer is imported when a file of its format is read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Literal

from parley.errors import ScenarioError

if TYPE_CHECKING:
    from parley.scenarios.model import Scenario

ScenarioFormat = Literal["yaml", "genius", "geniusweb", "llm-deliberation", "textarena"]
FORMATS: tuple[ScenarioFormat, ...] = ("yaml", "genius", "geniusweb", "llm-deliberation", "textarena")
"""Every format a scenario can be read from."""
ExportFormat = Literal["yaml", "genius", "geniusweb"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("yaml", "genius", "geniusweb")
"""Every format a scenario can be written in."""
MAX_SCENARIO_BYTES = 16 * 1024 * 1024
"""Largest scenario file read: the biggest GENIUS domains are a few hundred kB."""
_SNIFF_BYTES = 4096
_SHOWN_ENTRIES = 4
_DESCRIPTIONS: dict[ScenarioFormat, str] = {
    "yaml": "yaml (.yaml/.yml file)",
    "genius": "genius (domain XML, or a folder of one and its profiles)",
    "geniusweb": "geniusweb (JSON profiles)",
    "llm-deliberation": "llm-deliberation (config.txt, scores_files/, initial_deal.txt)",
    "textarena": "textarena (config.txt, scores_files/)",
}


def parse_format(text: str) -> ScenarioFormat:
    """text as a format name.

    Raises:
        ScenarioError: not one of FORMATS.
    """
    if text not in FORMATS:
        raise ScenarioError(f"unknown format {text!r}; expected one of: {', '.join(FORMATS)}")
    return text


def split_reference(reference: str) -> tuple[ScenarioFormat | None, str]:
    """A scenario reference "FORMAT:PATH" split in its format and path (no prefix: None and reference).

    Only a known format name counts as a prefix, so "C:/games" and "lamen/hotel" stay as they are.
    """
    head, separator, rest = reference.partition(":")
    if separator and head in FORMATS:
        return head, rest
    return None, reference


def is_path_like(text: str) -> bool:
    """Whether a scenario argument names a file or folder rather than a shipped scenario: it exists, or
    it ends like a scenario file (a missing "my.yaml" is reported as a missing file, not a bad name)."""
    try:
        exists = os.path.lexists(text)
    except (OSError, ValueError):  # a name the system cannot even look up
        exists = False
    return exists or text.lower().endswith((".yaml", ".yml", ".xml", ".json"))


def load_path(
    path: str | Path, *, format: ScenarioFormat | str | None = None, name: str | None = None
) -> Scenario:
    """The scenario a file or folder holds, its format detected unless given.

    Args:
        path: A scenario file or folder.
        format: One of FORMATS to skip detection (None: detect, see `detect_format`).
        name: Scenario id to use instead of the one the source gives.

    Raises:
        ScenarioError: the path is missing, unreadable, too large, of no or of several formats, or
            invalid in its format (one line naming the file and what is wrong).
    """
    location = Path(path)
    _check_exists(location)
    chosen = parse_format(format) if format is not None else detect_format(location)
    if location.is_file():
        _check_size(location)
    try:
        scenario = _LOADERS[chosen](location, name)
    except (OSError, UnicodeError) as error:
        raise ScenarioError(f"cannot read it as {chosen}: {_reason(error)}", source=str(location)) from None
    except RecursionError:
        raise ScenarioError(f"cannot read it as {chosen}: nested too deeply", source=str(location)) from None
    if name is not None and scenario.name != name:
        scenario = dataclasses.replace(scenario, name=name)
    return scenario


def detect_format(path: Path) -> ScenarioFormat:
    """The format of a scenario file or folder.

    Raises:
        ScenarioError: the path is missing or unreadable, or it matches no format or several (the
            message names what was found and the formats tried).
    """
    _check_exists(path)
    found = _folder_formats(path) if path.is_dir() else _file_formats(path)
    if len(found) == 1:
        return found[0]
    kind = "folder" if path.is_dir() else "file"
    if found:
        choices = "|".join(found)
        raise ScenarioError(
            f"ambiguous {kind}: it reads as {' and as '.join(found)}; choose one with --format {choices}",
            source=str(path),
        )
    tried = "; ".join(_DESCRIPTIONS[f] for f in (_FOLDER_FORMATS if path.is_dir() else _FILE_FORMATS))
    found_there = _what_is_there(path)
    near = _near_miss(path) if path.is_dir() else None
    reason = f"{found_there}; {near}" if near else found_there
    raise ScenarioError(f"not a scenario {kind}: {reason}; tried {tried}", source=str(path))


def export_scenario(scenario: Scenario, format: ExportFormat | str, folder: str | Path) -> list[Path]:
    """Write scenario into folder in a format, all files or none.

    The files are written into a new temporary folder beside folder first and moved in only once
    all are written (a file already there under the same name is replaced).

    Args:
        scenario: What to write.
        format: One of EXPORT_FORMATS.
        folder: The folder to write in (created, with its parents, if missing).

    Returns:
        The files written, in folder.

    Raises:
        ScenarioError: an unknown format, a scenario the format cannot express, or a folder that
            cannot be written (nothing is left behind).
    """
    if format not in EXPORT_FORMATS:
        raise ScenarioError(f"unknown export format {format!r}; expected one of: {', '.join(EXPORT_FORMATS)}")
    target = Path(folder)
    if target.exists() and not target.is_dir():
        raise ScenarioError("expected a folder to write in, got a file", source=str(target))
    anchor = _existing_ancestor(target)
    staging = anchor / f".parley-export-{uuid.uuid4().hex}"
    try:  # (not tempfile.mkdtemp: its folder is private, and a new --out folder is this very folder)
        staging.mkdir()
    except OSError as error:
        raise ScenarioError(f"cannot write in {anchor}: {_reason(error)}", source=str(target)) from None
    try:
        written = _EXPORTERS[format](scenario, staging)
        return _move_into(staging, target, written)
    except OSError as error:
        raise ScenarioError(
            f"cannot write the {format} files: {_reason(error)}", source=str(target)
        ) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# -- detection ---------------------------------------------------------------------------------------


_FILE_FORMATS: tuple[ScenarioFormat, ...] = ("yaml", "genius", "geniusweb")
_GENIUS_FORMATS: tuple[Literal["genius", "geniusweb"], ...] = ("genius", "geniusweb")
_YAML_KEYS = re.compile(r"^(issues|parties):", re.MULTILINE)
_FOLDER_FORMATS: tuple[ScenarioFormat, ...] = ("genius", "geniusweb", "llm-deliberation", "textarena")


def _file_formats(path: Path) -> list[ScenarioFormat]:
    _check_size(path)
    head = _head(path)
    if b"\x00" in head:
        raise ScenarioError("not a scenario file: it is binary", source=str(path))
    if path.suffix.lower() in (".yaml", ".yml"):
        return ["yaml"]
    found: list[ScenarioFormat] = [fmt for fmt in _GENIUS_FORMATS if _looks_like(fmt, path)]
    if not found and _YAML_KEYS.search(head.decode("utf-8", errors="replace")):
        found.append("yaml")  # a scenario file under another name ("scenario.txt")
    return found


def _folder_formats(path: Path) -> list[ScenarioFormat]:
    found: list[ScenarioFormat] = []
    from parley.scenarios.importers.deliberation import detect_family, looks_like_game

    try:
        if looks_like_game(path):
            found.append(detect_family(path))
        found.extend(fmt for fmt in _GENIUS_FORMATS if _looks_like(fmt, path))
    except OSError as error:
        raise ScenarioError(f"cannot read the folder: {_reason(error)}", source=str(path)) from None
    return found


def _looks_like(fmt: Literal["genius", "geniusweb"], path: Path) -> bool:
    """Whether the GENIUS or GeniusWeb importer recognises path (False when it is not installed)."""
    try:
        module = _importer(fmt)
    except ScenarioError:
        return False
    check = module.looks_like_genius if fmt == "genius" else module.looks_like_geniusweb
    try:
        return bool(check(path))
    except (OSError, UnicodeError, ValueError, RecursionError):
        return False  # (unreadable as that format: detection goes on, the error names every format)


def _what_is_there(path: Path) -> str:
    """A few words on what a path that matched no format holds."""
    if not path.is_dir():
        return f"a {path.suffix or 'suffix-less'} file"
    try:
        entries = sorted(entry.name + ("/" if entry.is_dir() else "") for entry in path.iterdir())
    except OSError as error:
        raise ScenarioError(f"cannot read the folder: {_reason(error)}", source=str(path)) from None
    if not entries:
        return "it is empty"
    shown = ", ".join(entries[:_SHOWN_ENTRIES]) + (", …" if len(entries) > _SHOWN_ENTRIES else "")
    hint = (
        " (config.txt without scores_files/)"
        if "config.txt" in entries and "scores_files/" not in entries
        else ""
    )
    return f"it holds {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} ({shown}){hint}"


def _near_miss(path: Path) -> str | None:
    """Why a folder of XML or JSON files is no GENIUS or GeniusWeb scenario, in the importer's own
    words (e.g. two domain files), or None."""
    try:
        suffixes = {entry.suffix.lower() for entry in path.iterdir() if entry.is_file()}
    except OSError:
        return None
    probes: tuple[tuple[ScenarioFormat, str], ...] = (("genius", ".xml"), ("geniusweb", ".json"))
    for fmt, suffix in probes:
        if suffix not in suffixes:
            continue
        try:
            _LOADERS[fmt](path, None)
        except ScenarioError as error:
            return f"as {fmt}: {str(error).removeprefix(f'{path}: ')}"
        except (OSError, UnicodeError, ValueError, RecursionError):
            continue
    return None


def _check_exists(path: Path) -> None:
    try:
        exists = path.exists()
    except (OSError, ValueError):
        exists = False
    if not exists:
        raise ScenarioError("no such file or folder", source=str(path))


def _check_size(path: Path) -> None:
    try:
        size = path.stat().st_size
    except OSError as error:
        raise ScenarioError(f"cannot read the file: {_reason(error)}", source=str(path)) from None
    if size > MAX_SCENARIO_BYTES:
        raise ScenarioError(
            f"expected a scenario file of at most {MAX_SCENARIO_BYTES:,} bytes, got {size:,}",
            source=str(path),
        )


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as file:
            return file.read(_SNIFF_BYTES)
    except OSError as error:
        raise ScenarioError(f"cannot read the file: {_reason(error)}", source=str(path)) from None


def _reason(error: BaseException) -> str:
    return str(getattr(error, "strerror", None) or error)


# -- the formats -------------------------------------------------------------------------------------


def _load_yaml(path: Path, name: str | None) -> Scenario:
    if path.is_dir():
        raise ScenarioError("expected a YAML scenario file, got a folder", source=str(path))
    from parley.scenarios.loader import validate_file

    return validate_file(path)


def _load_genius(path: Path, name: str | None) -> Scenario:
    return _importer("genius").load_genius(path, name=name)


def _load_geniusweb(path: Path, name: str | None) -> Scenario:
    return _importer("geniusweb").load_geniusweb(path, name=name)


def _game_loader(family: Literal["llm-deliberation", "textarena"]) -> Callable[[Path, str | None], Scenario]:
    def load(path: Path, name: str | None) -> Scenario:
        from parley.scenarios.importers.deliberation import load_deliberation_game

        return load_deliberation_game(path, name=name, family=family)

    return load


def _importer(module: str) -> ModuleType:
    """The GENIUS or GeniusWeb importer module (typed loosely: the formats' own modules type it).

    Raises:
        ScenarioError: it is not installed with this parley.
    """
    import importlib

    try:
        return importlib.import_module(f"parley.scenarios.importers.{module}")
    except ImportError:
        raise ScenarioError(f"the {module} importer is not part of this parley installation") from None


_LOADERS: dict[ScenarioFormat, Callable[[Path, str | None], Scenario]] = {
    "yaml": _load_yaml,
    "genius": _load_genius,
    "geniusweb": _load_geniusweb,
    "llm-deliberation": _game_loader("llm-deliberation"),
    "textarena": _game_loader("textarena"),
}


def _export_yaml(scenario: Scenario, folder: Path) -> list[Path]:
    from parley.scenarios.writer import scenario_to_yaml

    path = folder / f"{file_stem(scenario.name)}.yaml"
    path.write_text(scenario_to_yaml(scenario), encoding="utf-8")
    return [path]


def _export_genius(scenario: Scenario, folder: Path) -> list[Path]:
    return list(_importer("genius").export_genius(scenario, folder))


def _export_geniusweb(scenario: Scenario, folder: Path) -> list[Path]:
    return list(_importer("geniusweb").export_geniusweb(scenario, folder))


_EXPORTERS: dict[ExportFormat, Callable[[Scenario, Path], list[Path]]] = {
    "yaml": _export_yaml,
    "genius": _export_genius,
    "geniusweb": _export_geniusweb,
}


def file_stem(name: str) -> str:
    """A scenario name as a safe file stem: letters, digits, '.', '_' and '-' kept, the rest '_'."""
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")[:100]
    return stem or "scenario"


def _existing_ancestor(path: Path) -> Path:
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    return ancestor


def _move_into(staging: Path, target: Path, written: list[Path]) -> list[Path]:
    """Move the staged files into target: the whole staging folder when target is new, else file by
    file (each move atomic). A failure removes the folders this call created."""
    names = [path.relative_to(staging) for path in written]
    created = [parent for parent in (target, *target.parents) if not parent.exists()]
    try:
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging, target)
        else:
            for name in names:
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / name, target / name)
    except OSError:
        for parent in created:  # the deepest first
            with contextlib.suppress(OSError):
                parent.rmdir()
        raise
    return [target / name for name in names]
