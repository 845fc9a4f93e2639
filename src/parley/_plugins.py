"""Plugins: objects named by installed packages' entry points or by "package.module:attribute" specs.

Shared by the agent and mediator registries. Every failure (a module that cannot be imported, a
missing attribute, an exception while importing) becomes one `ScenarioError` line naming the plugin,
its distribution and the cause, never a traceback: a broken plugin is its author's fault, and
whatever else is installed keeps working.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from parley.errors import ScenarioError

logger = logging.getLogger(__name__)

QUOTED_LIMIT = 80
"""Characters of a user-given name quoted in a message (a longer one is cut, marked with "…")."""
CAUSE_LIMIT = 200
"""Characters of a plugin's own error message quoted in ours."""


@dataclass(frozen=True, slots=True)
class Plugin:
    """An entry point of an installed distribution, not loaded yet.

    Attributes:
        kind: What it provides, for messages ("agent", "mediator").
        name: The entry point's name (the name it is used by).
        value: What it points at, "package.module:attribute".
        distribution: "name version" of the distribution that declares it ("" if unknown).
    """

    kind: str
    name: str
    value: str
    distribution: str

    @property
    def label(self) -> str:
        """Who it is, for messages: "agent plugin 'tiny' (distribution parley-tiny 0.1)"."""
        where = f" (distribution {self.distribution})" if self.distribution else ""
        return f"{self.kind} plugin {quoted(self.name)}{where}"

    def load(self) -> object:
        """Import the object the entry point names.

        Raises:
            ScenarioError: it cannot be imported (one line naming the plugin and the cause).
        """
        try:
            return _import_object(self.value)
        except _Missing as missing:
            raise ScenarioError(f"{self.label} could not be loaded: {missing}") from None
        except Exception as error:  # the plugin's own code failed while importing: its fault, one line
            raise ScenarioError(
                f"{self.label} could not be loaded from {quoted(self.value)}: {cause(error)}"
            ) from None


def discover(group: str, kind: str, reserved: Collection[str] = ()) -> dict[str, Plugin]:
    """The entry points of group, by name, without importing anything they name.

    A name in reserved (a built-in's) or declared twice keeps its first owner; the others are
    ignored with a logged warning.

    Args:
        group: Entry-point group, e.g. "parley.agents".
        kind: What the group provides, for messages.
        reserved: Names taken by built-ins.
    """
    found: dict[str, Plugin] = {}
    for point in importlib.metadata.entry_points(group=group):
        plugin = Plugin(kind, point.name, point.value, _distribution(point))
        if point.name in reserved:
            logger.warning("%s is ignored: a built-in %s has that name", plugin.label, kind)
        elif point.name in found:
            logger.warning("%s is ignored: %s has that name", plugin.label, found[point.name].label)
        else:
            found[point.name] = plugin
    return found


def _distribution(point: importlib.metadata.EntryPoint) -> str:
    dist = point.dist
    if dist is None:
        return ""
    return f"{dist.name} {dist.version}"


def is_spec(name: str) -> bool:
    """Whether name is meant as a "package.module:attribute" spec (it holds a colon)."""
    return ":" in name


def load_spec(kind: str, spec: str) -> object:
    """The object a "package.module:attribute" spec names (the attribute may be dotted).

    Args:
        kind: What it should provide, for messages ("agent").
        spec: The spec.

    Raises:
        ScenarioError: the spec is malformed, the module cannot be imported (or raised while
            importing), or it has no such attribute; one line each.
    """
    module, _, attribute = spec.partition(":")
    if not _dotted(module) or not _dotted(attribute):
        raise ScenarioError(
            f"{kind} {quoted(spec)} is not a valid package.module:attribute spec"
            f"{non_ascii_note(spec)}; expected e.g. mypackage.agents:make_negotiator"
        )
    try:
        return _import_object(spec)
    except _Missing as missing:
        raise ScenarioError(f"{kind} {quoted(spec)}: {missing}") from None
    except Exception as error:  # the module's own code failed while importing
        raise ScenarioError(
            f"{kind} {quoted(spec)}: importing {quoted(module)} raised {cause(error)}"
        ) from None


def _dotted(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


class _Missing(Exception):
    """The module or the attribute a value names does not exist (the message says which)."""


def _import_object(value: str) -> object:
    module_name, _, attribute = value.partition(":")
    module_name = module_name.strip()
    try:
        target: object = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if missing and (module_name == missing or module_name.startswith(missing + ".")):
            raise _Missing(
                f"no module named {quoted(missing)} (is its package installed, or on PYTHONPATH?)"
            ) from None
        raise
    for part in filter(None, attribute.strip().split(".")):
        if not hasattr(target, part):
            raise _Missing(f"module {quoted(module_name)} has no attribute {quoted(attribute.strip())}")
        target = getattr(target, part)
    return target


def quoted(text: str) -> str:
    """repr(text), cut to `QUOTED_LIMIT` characters: a name from a command line may be huge."""
    shown = text if len(text) <= QUOTED_LIMIT else text[: QUOTED_LIMIT - 1] + "…"
    return repr(shown)


def cause(error: BaseException) -> str:
    """The error as "TypeName: message" on one line, the message cut to `CAUSE_LIMIT` characters."""
    message = " ".join(str(error).split())
    if len(message) > CAUSE_LIMIT:
        message = message[: CAUSE_LIMIT - 1] + "…"
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def non_ascii_note(name: str) -> str:
    """A note naming the non-ASCII characters of name ("" for an ASCII name), to append to a message.

    E.g. " (it holds non-ASCII characters: U+043E CYRILLIC SMALL LETTER O)".

    A look-alike letter or an invisible character makes a name that reads right fail to match.
    """
    odd = sorted({char for char in name if not char.isascii()})
    if not odd:
        return ""
    shown = ", ".join(_describe(c) for c in odd[:3])
    more = f" and {len(odd) - 3} more" if len(odd) > 3 else ""
    return f" (it holds non-ASCII characters: {shown}{more})"


def _describe(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # how Python keeps a command-line byte that is not UTF-8
        return f"byte 0x{code - 0xDC00:02X}, which is not UTF-8"
    return f"U+{code:04X} {unicodedata.name(char, 'unnamed')}"
