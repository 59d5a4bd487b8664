"""Cut a pasted terminal session into sections of one format each.

Sections end at prompt lines (``$ kubectl ...``, ``user@host:~$``, ``➜  ~``,
``PS>``) and wherever the shape of the text changes: a table header, the
``Name:`` line that opens ``kubectl describe``, a YAML document or a JSON
value.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

from .models import Section
from .tables import parse_header

_KUBE_CMD = r"(?:kubectl|kubecolor|k|oc|kubectl\.exe)\b"
_PROMPT = re.compile(
    r"""^\s*(?:\([^)\s]*\)\s*)?(?:
        \[[^\]\n]*\]\s?[$#%]                       # [user@host dir]$
      | [\w.-]+@[\w.-]+(?::[^\s$#%]*)?\s?[$#%]     # user@host:~$  root@h:/#
      | ➜\s+\S+(?:\s+git:\([^)]*\))?(?:\s+✗)?     # oh-my-zsh
      | PS(?:\s+[^>\n]*)?>                         # PowerShell
      | \$                                         # bare prompt
    )(?:\s+(?P<cmd>\S.*?))?\s*$""",
    re.X,
)
_WEAK_PROMPT = re.compile(r"^\s*[#>%]\s+(?P<cmd>" + _KUBE_CMD + r"\s.*?)\s*$")
_BARE_CMD = re.compile(
    r"^(?P<cmd>(?:kubectl|kubecolor)\s+(?:get|describe|logs|top|events|rollout|auth|version)\b.*?)\s*$"
)

_DESCRIBE_START = re.compile(r"^Name:\s+\S")
# Blocks of ``kubectl describe`` that people paste on their own, without the
# ``Name:`` line above them.
_FRAGMENT_START = re.compile(
    r"^(?:(?:Events|Conditions|Containers|Init Containers|Taints|Involved Object):\s*(?:<none>)?$"
    r"|State:\s+(?:Waiting|Running|Terminated)\s*$|Last State:\s+Terminated\s*$)")
_DESCRIBE_KEY = re.compile(r"^[A-Z][\w.()/'-]*(?: [\w.()/'-]+)*:(?:\s|$)")
_YAML_START = re.compile(r"^(?:---\s*$|apiVersion:|kind:\s|items:|- apiVersion:|status:\s*$)")
_YAML_LINE = re.compile(r"^(?:[a-z_][\w.-]*:(?:\s|$)|[\"'][^\"']+[\"']:|-\s|-$|---|\.\.\.|#)")
_JSON_START = re.compile(r"^[{\[]\s*$|^\{\s*\"")
_FORMAT_BY_COLUMNS = (
    ("events-table", ("REASON", "MESSAGE")),
    ("pods-table", ("NAME", "READY", "STATUS", "RESTARTS")),
    ("nodes-table", ("NAME", "STATUS", "ROLES", "VERSION")),
    ("nodeclaims-table", ("NAME", "TYPE", "ZONE", "NODE", "READY")),
    ("nodepools-table", ("NAME", "NODECLASS")),
    ("pvc-table", ("NAME", "STATUS", "VOLUME", "CAPACITY", "STORAGECLASS")),
    ("deployments-table", ("NAME", "READY", "UP-TO-DATE", "AVAILABLE")),
    ("deployments-table", ("NAME", "DESIRED", "CURRENT", "UP-TO-DATE", "AVAILABLE")),   # kubectl < 1.15
    ("replicasets-table", ("NAME", "DESIRED", "CURRENT", "READY")),
)


def prompt_command(line: str) -> tuple[bool, str | None]:
    """(is_prompt, command) for one line."""
    if "$" in line or "#" in line or "➜" in line or "PS" in line or "]" in line:
        m = _PROMPT.match(line)
        if m:
            cmd = m.group("cmd")
            return True, cmd.strip() if cmd else None
    if line.lstrip()[:1] in ("#", ">", "%"):
        m = _WEAK_PROMPT.match(line)
        if m:
            return True, m.group("cmd").strip()
    if line.startswith(("kubectl ", "kubecolor ")):
        m = _BARE_CMD.match(line)
        if m:
            return True, m.group("cmd")
    return False, None


def command_words(command: str | None) -> list[str]:
    """Words of a shell command line (before any pipe)."""
    if not command:
        return []
    return list(_command_words(command))


@lru_cache(maxsize=512)
def _command_words(command: str) -> tuple[str, ...]:
    command = command.split("|", 1)[0]
    try:
        return tuple(shlex.split(command))
    except ValueError:
        return tuple(command.split())


def table_format(header_line: str, command: str | None = None) -> str | None:
    """The format name of a table whose header is ``header_line``."""
    header = parse_header(header_line)
    if header is None:
        return None
    names = set(header.names)
    if not ({"NAME", "NAMESPACE", "LAST SEEN", "LASTSEEN"} & names):
        if "POD" in names and "STATUS" in names:
            return "pods-table"    # kubectl 0.x: POD  IP  CONTAINER(S)  IMAGE(S)  HOST  LABELS  STATUS
        return None
    if ("LAST SEEN" in names or "LASTSEEN" in names or "TYPE" in names) and {"REASON", "MESSAGE"} <= names:
        return "events-table"
    for fmt, cols in _FORMAT_BY_COLUMNS[1:]:
        if names.issuperset(cols):
            return fmt
    words = command_words(command)
    target = _get_target(words)
    if target.startswith("ec2nodeclass") or target == "ec2nc":
        return "ec2nodeclasses-table"
    if target.startswith("nodepool"):
        return "nodepools-table"
    if target.startswith("nodeclaim"):
        return "nodeclaims-table"
    if "STATUS" in names and target in _TABLE_BY_TARGET:
        return _TABLE_BY_TARGET[target]
    return "generic-table"


# ``kubectl get <target>`` whose columns are not the usual ones (old releases,
# ``-o custom-columns``, a shortened copy).
_TABLE_BY_TARGET = {
    "pods": "pods-table", "pod": "pods-table", "po": "pods-table",
    "nodes": "nodes-table", "node": "nodes-table", "no": "nodes-table", "minions": "nodes-table",
    "pvc": "pvc-table", "persistentvolumeclaims": "pvc-table",
}


def _get_target(words: list[str]) -> str:
    if len(words) >= 3 and words[1] == "get":
        for w in words[2:]:
            if not w.startswith("-"):
                return w.lower().split(".", 1)[0]
    return ""


def _block_start(line: str, command: str | None) -> str | None:
    """The format of a block that starts at ``line``, if one does."""
    if not line:
        return None
    first = line[0]
    if first == "N" and _DESCRIBE_START.match(line):
        return "describe"
    if first in "CEILST" and _FRAGMENT_START.match(line):
        return "describe"
    if first in "{[" and _JSON_START.match(line):
        return "json"
    if first in "-akis" and _YAML_START.match(line):
        return "yaml"
    if "A" <= first <= "Z" and ":" not in line and ("  " in line or line.isupper()):
        return table_format(line, command)
    return None


def _dedent(lines: list[str]) -> list[str]:
    indents = [len(l) - len(l.lstrip(" ")) for l in lines if l.strip()]
    cut = min(indents) if indents else 0
    if cut == 0:
        return lines
    return [l[cut:] if l.strip() else "" for l in lines]


def _text_format(command: str | None) -> str:
    words = command_words(command)
    if len(words) >= 2 and words[1] == "logs":
        return "logs"
    return "text"


def _segment(lines: list[str], start: int, command: str | None) -> list[Section]:
    """Cut the output of one command into format-homogeneous sections."""
    lines = _dedent(lines)
    sections: list[Section] = []
    text_fmt = _text_format(command)
    if text_fmt == "logs":
        return _whole(lines, start, command, "logs")
    i, n = 0, len(lines)
    cur_fmt: str | None = None
    cur_start = 0
    json_depth = 0

    def close(end: int) -> None:
        nonlocal cur_fmt
        if cur_fmt is not None:
            sections.extend(_whole(lines[cur_start:end], start + cur_start, command, cur_fmt))
        cur_fmt = None

    while i < n:
        line = lines[i]
        if cur_fmt == "json":
            json_depth += _json_depth_delta(line)
            i += 1
            if json_depth <= 0:
                close(i)
            continue
        kind = _block_start(line, command) if line.strip() else None
        if kind == "json" and _json_depth_delta(line) == 0 and not _object_line(line):
            kind = None   # one JSON object per line: structured logs
        if kind == "describe" and cur_fmt == "describe" and not _DESCRIBE_START.match(line):
            kind = None   # a block inside the describe output being read
        if kind is not None and not (kind == "yaml" and cur_fmt == "yaml"):
            close(i)
            cur_fmt, cur_start = kind, i
            if kind == "json":
                json_depth = _json_depth_delta(line)
                i += 1
                if json_depth <= 0:
                    close(i)
                continue
            i += 1
            continue
        if cur_fmt is None:
            if line.strip():
                cur_fmt, cur_start = text_fmt, i
            i += 1
            continue
        if not _continues(cur_fmt, line):
            close(i)
            cur_fmt, cur_start = text_fmt, i
        i += 1
    close(n)
    return sections


def _whole(body: list[str], start: int, command: str | None, fmt: str) -> list[Section]:
    lead = 0
    while lead < len(body) and not body[lead].strip():
        lead += 1
    end = len(body)
    while end > lead and not body[end - 1].strip():
        end -= 1
    if end <= lead:
        return []
    return [Section(command, fmt, start + lead, "\n".join(body[lead:end]))]


def _continues(fmt: str, line: str) -> bool:
    if fmt in ("text", "logs"):
        return True
    if not line.strip():
        return fmt in ("describe", "yaml")
    if fmt == "yaml":
        return line[0] in " \t" or bool(_YAML_LINE.match(line))
    if fmt == "describe":
        # Describe lines are indented or ``Key:``; after the Events table a
        # wrapped message may continue at column 0.
        return True
    # tables: any non-blank line continues (wrapped messages included)
    return True


_OBJECT_KEYS = ('"kind"', '"status"', '"containerStatuses"', '"conditions"', '"items"')


def _object_line(line: str) -> bool:
    """A Kubernetes object (or its status) printed as JSON on one line, not a JSON log record."""
    head = line[:400]
    return any(k in head for k in _OBJECT_KEYS) and '"level"' not in line and '"msg"' not in line


def _json_depth_delta(line: str) -> int:
    depth = 0
    in_str = False
    escaped = False
    for ch in line:
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth


def split_sections(text: str) -> list[Section]:
    """Split ``text`` into sections by prompt lines and by format changes.

    ``start_line`` is 1-based and points at the first line of the section's
    text (prompt lines themselves are not part of any section).
    """
    if not text:
        return []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    sections: list[Section] = []
    command: str | None = None
    chunk: list[str] = []
    chunk_start = 1
    for lineno, line in enumerate(lines, start=1):
        is_prompt, cmd = prompt_command(line) if line else (False, None)
        if is_prompt:
            if chunk:
                sections.extend(_segment(chunk, chunk_start, command))
            command, chunk, chunk_start = cmd, [], lineno + 1
            continue
        chunk.append(line)
    if chunk:
        sections.extend(_segment(chunk, chunk_start, command))
    return sections
