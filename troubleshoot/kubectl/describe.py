"""Indentation-based reader for ``kubectl describe`` output.

Describe prints ``Key:  value`` lines; nested blocks are indented by two
spaces, multi-line values (Labels, Taints, Tolerations) continue on lines
aligned under the value, and a few blocks are tables (Conditions, Events).
This module builds a small tree of ``DNode`` and offers helpers to read it;
``describe_map`` turns the tree into resources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .tables import Header, is_dash_line, parse_header, split_row

_KEY = re.compile(r"^(?P<key>[A-Za-z][\w.()/'-]*(?: [\w.()/'-]+)*):(?:[ \t]+(?P<value>.*?))?\s*$")
_TOP_KEY = re.compile(r"^[A-Z][\w.()/'-]*(?: [\w.()/'-]+)*:(?:\s|$)")
_NAME_LINE = re.compile(r"^Name:\s+\S")


@dataclass
class DNode:
    key: str | None
    value: str
    indent: int
    line: str
    children: list[DNode] = field(default_factory=list)
    table: bool = False

    def child(self, key: str) -> DNode | None:
        for node in self.children:
            if node.key == key:
                return node
        return None

    def get(self, key: str, default: str = "") -> str:
        node = self.child(key)
        return node.value if node is not None else default

    def lines(self) -> list[str]:
        """This node's line and all lines below it, in order."""
        out = [self.line]
        for c in self.children:
            out.extend(c.lines())
        return out

    def multiline_values(self) -> list[str]:
        """Value plus continuation lines (Labels, Taints, Tolerations)."""
        values = [self.value] if self.value else []
        for c in self.children:
            values.append(c.line.strip())
        return [v for v in values if v and v not in ("<none>", "<nil>")]


@dataclass
class DescribeObject:
    top: DNode                     # synthetic root; children are top-level keys
    unparsed: list[str] = field(default_factory=list)

    def get(self, key: str, default: str = "") -> str:
        return self.top.get(key, default)

    def child(self, key: str) -> DNode | None:
        return self.top.child(key)

    def keys(self) -> set[str]:
        return {c.key for c in self.top.children if c.key}


def split_objects(text: str) -> list[list[str]]:
    """One list of lines per described object (each starts at ``Name:``)."""
    objects: list[list[str]] = []
    current: list[str] = []
    for line in text.split("\n"):
        if _NAME_LINE.match(line) and current and any(l.strip() for l in current):
            objects.append(current)
            current = []
        current.append(line)
    if current and any(l.strip() for l in current):
        objects.append(current)
    return objects


def _looks_like_table_header(text: str) -> bool:
    header = parse_header(text, describe_style=True)
    if header is None:
        return False
    # kubectl 1.x: Type Reason Age From Message; kubectl 0.x/1.0: FirstSeen LastSeen
    # Count From SubobjectPath Reason Message, or From SubobjectPath Status Reason Message.
    return header.names[0] in ("Type", "Reason", "Kind") or {"Reason", "Message"} <= set(header.names)


def parse_object(lines: list[str]) -> DescribeObject:
    root = DNode(None, "", -1, "")
    obj = DescribeObject(root)
    stack: list[DNode] = [root]
    last_top: DNode | None = None
    for line in lines:
        if not line.strip():
            continue
        expanded = line.expandtabs(8) if "\t" in line else line
        indent = len(expanded) - len(expanded.lstrip(" "))
        stripped = expanded.strip()
        if indent == 0 and not _TOP_KEY.match(expanded):
            # A column-0 line that is not a key: a wrapped table row or junk.
            if last_top is not None and last_top.table:
                last_top.children.append(DNode(None, stripped, 99, line))
            else:
                obj.unparsed.append(line)
            continue
        while len(stack) > 1 and stack[-1].indent >= indent:
            stack.pop()
        parent = stack[-1]
        table_owner = _table_owner(stack)
        if table_owner is not None:
            table_owner.children.append(DNode(None, stripped, indent, line))
            continue
        if parent.key is not None and not parent.children and not parent.value \
                and _looks_like_table_header(stripped):
            parent.table = True
            parent.children.append(DNode(None, stripped, indent, line))
            continue
        m = _KEY.match(stripped)
        if m:
            node = DNode(m.group("key"), (m.group("value") or "").strip(), indent, line)
        else:
            node = DNode(None, stripped, indent, line)
        parent.children.append(node)
        stack.append(node)
        if indent == 0:
            last_top = node
    return obj


def _table_owner(stack: list[DNode]) -> DNode | None:
    for node in stack:
        if node.table:
            return node
    return None


@dataclass
class TableRow:
    cells: dict[str, str]
    lines: list[str]


def read_table(node: DNode | None, first_values: set[str] | None = None) -> list[TableRow]:
    """Rows of a describe table (Events, node/pod Conditions).

    Lines that do not fit the header are treated as continuations of the
    previous row's last column (a message that wrapped).
    """
    if node is None or not node.table or not node.children:
        return []
    header = parse_header(node.children[0].value, describe_style=True)
    if header is None:
        return []
    indent = node.children[0].indent
    hdr = Header(header.names, [s + indent for s in header.starts], node.children[0].line)
    rows: list[TableRow] = []
    for child in node.children[1:]:
        raw = child.line.expandtabs(8) if "\t" in child.line else child.line
        if is_dash_line(raw):
            continue
        cells = split_row(hdr, raw) if child.indent != 99 else None
        ok = cells is not None and (first_values is None or cells[0] in first_values)
        if ok and cells is not None:
            rows.append(TableRow(dict(zip(header.names, cells)), [child.line]))
        elif rows:
            last = header.names[-1]
            rows[-1].cells[last] = f"{rows[-1].cells.get(last, '')} {child.value}".strip()
            rows[-1].lines.append(child.line)
    return rows


_EVENT_TYPES = {"Normal", "Warning", "Error"}


def read_events_table(node: DNode | None) -> list[TableRow]:
    if node is not None and node.table and node.children:
        header = parse_header(node.children[0].value, describe_style=True)
        if header is not None and "Type" not in header.names:
            return _read_old_events(node)
    return read_table(node, _EVENT_TYPES)


_OLD_REASON = re.compile(r"^[A-Za-z]+$")


def _read_old_events(node: DNode) -> list[TableRow]:
    """Rows of the events table of kubectl 0.x/1.0, which has no Type column.

    Its columns were separated by tabs, not aligned, so cells are found by
    splitting; the Reason is the last one-word cell before the message.
    """
    rows: list[TableRow] = []
    for child in node.children[1:]:
        line = child.line
        if is_dash_line(line.expandtabs(8)) or not line.strip():
            continue
        cells = [c.strip() for c in (line.split("\t") if "\t" in line else re.split(r"\s{2,}", line))]
        cells = [c for c in cells if c]
        reason_at = next((i for i in range(len(cells) - 2, -1, -1) if _OLD_REASON.match(cells[i])), -1)
        if reason_at < 0:
            if rows:
                rows[-1].cells["Message"] = f"{rows[-1].cells['Message']} {line.strip()}".strip()
                rows[-1].lines.append(line)
            continue
        source = next((c for c in cells[:reason_at] if c.startswith("{") or c in ("scheduler", "kubelet")), "")
        rows.append(TableRow({"Type": "", "Reason": cells[reason_at], "Age": "", "From": source,
                              "Message": " ".join(cells[reason_at + 1:])}, [line]))
    return rows


# ``kubectl describe pod`` pasted through a tool that dropped the indentation:
# every line at column 0. The keys say where each line belongs.
_POD_TOP_KEYS = frozenset({
    "Name", "Namespace", "Priority", "Priority Class Name", "Service Account", "Node", "Start Time",
    "Labels", "Annotations", "Status", "Reason", "Message", "IP", "IPs", "Controlled By", "Containers",
    "Init Containers", "Conditions", "Volumes", "QoS Class", "Node-Selectors", "Tolerations", "Events",
    "Nominated Node Name", "Readiness Gates", "Runtime Class Name", "SeccompProfile",
})
_CONTAINER_KEYS = frozenset({
    "Container ID", "Image", "Image ID", "Port", "Ports", "Host Port", "Host Ports", "Command", "Args",
    "State", "Last State", "Ready", "Restart Count", "Limits", "Requests", "Liveness", "Readiness",
    "Startup", "Environment", "Environment Variables from", "Mounts", "SeccompProfile",
})
_STATE_KEYS = frozenset({"Started", "Finished", "Reason", "Exit Code", "Message", "Signal"})


def reindent_flat(lines: list[str]) -> list[str]:
    """Give a flattened ``describe pod`` its indentation back; other text is returned as is."""
    body = [l for l in lines if l.strip()]
    if len(body) < 8 or sum(1 for l in body if l[:1] in " \t") > len(body) // 10:
        return lines
    if not any(l.startswith("Containers:") for l in body):
        return lines
    out: list[str] = []
    where = "top"          # top, containers, container, state
    for line in lines:
        m = _KEY.match(line.strip())
        key = m.group("key") if m else None
        if key in _POD_TOP_KEYS and not (where == "state" and key in _STATE_KEYS) \
                and not (where in ("container", "state") and key in ("Ready", "Reason", "Message")):
            where = "containers" if key in ("Containers", "Init Containers") else "top"
            out.append(line)
        elif where in ("containers", "container", "state") and key is not None and not m.group("value") \
                and key not in _CONTAINER_KEYS and key not in _STATE_KEYS and key[:1].islower():
            where = "container"
            out.append("  " + line)
        elif where in ("container", "state") and key in _STATE_KEYS and where == "state":
            out.append("      " + line)
        elif where in ("container", "state") and key in _CONTAINER_KEYS:
            where = "state" if key in ("State", "Last State") else "container"
            out.append("    " + line)
        elif where == "top" and out and line.strip():
            out.append("                " + line)   # continuation of Labels, Annotations, ...
        elif where in ("container", "state") and line.strip():
            out.append("      " + line)
        else:
            out.append(line)
    return out


def to_plain(node: DNode) -> object:
    """Generic describe of a custom resource -> nested dict/list.

    Keys keep their describe spelling (``Last Transition Time``); lists of
    maps are detected by a key repeating inside the same block.
    """
    if not node.children:
        return node.value
    if all(c.key is None for c in node.children):
        return [c.value for c in node.children]
    items: list[dict[str, object]] = [{}]
    for c in node.children:
        if c.key is None:
            continue
        if c.key in items[-1]:
            items.append({})
        items[-1][c.key] = to_plain(c)
    if len(items) == 1:
        return items[0]
    return items
