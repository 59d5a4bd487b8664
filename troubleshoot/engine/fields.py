"""Read the structured fields of the common message families out of a paste.

A message is more than its words: an AWS denial names the action and the principal that was
refused, a Kubernetes API status names the verb, resource and user, a webhook failure names
the webhook, Terraform names the resource address. Matching on those fields recognises a
failure whatever words surround it (``ec2:CreateNetworkInterface`` denied to the node role is
a VPC CNI problem, whichever component's log it is quoted from).

``read_fields(line)`` returns the fields of one logical line as ``{name: [values]}``;
``paste_fields(lines)`` adds the paste-wide components; :mod:`explain` puts what was read
into words for people. Field names:

=================  ==========================================================================
``aws.code``       ``AccessDenied``, ``UnauthorizedOperation``, ``InsufficientInstanceCapacity`` ...
``aws.service``    ``EC2``, ``IAM``, ``STS`` ... (SDK v2 ``operation error EC2: RunInstances``)
``aws.operation``  ``RunInstances``, ``AssumeRoleWithWebIdentity`` ...
``aws.action``     ``ec2:RunInstances`` (the IAM action that was not allowed)
``aws.principal``  the ARN that was refused; ``aws.role`` its role (or user) name
``aws.status``     the HTTP status of the AWS call
``aws.deny``       ``explicit`` (an SCP / boundary / explicit deny) or ``implicit``
``k8s.reason``     API status reason: ``Forbidden``, ``NotFound``, ``Unauthorized``, ``Invalid`` ...
``k8s.verb`` ...   ``k8s.resource``, ``k8s.group``, ``k8s.namespace``, ``k8s.user`` of a forbidden call
``webhook``        the webhook's name; ``webhook.type`` ``admission`` / ``conversion``
``crd.kind``       a kind the server does not know; ``crd.version`` its apiVersion
``event.reason``   the reason of a Kubernetes event line (``FailedScheduling`` ...)
``tf.address``     a Terraform resource address; ``tf.resource`` its resource type
``helm.release``   a Helm release name; ``helm.action`` install / upgrade / rollback ...
``error.head``     the first clause of a Go error chain; ``error.root`` its last clause
``printed_by``     the component that printed the line (journal unit, klog file, logger ...)
``component``      the components the line is about (printer, denied role, action, webhook ...)
=================  ==========================================================================

Plain Python, no Django. Every expression here is linear on its input (no nested quantifiers
over the same characters), so a hostile paste costs what its length costs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .components import ACTION_COMPONENT, KNOWN_COMPONENTS, components_of, has_aws_hint
from .types import Line

__all__ = [
    "Fields", "read_fields", "paste_fields", "components_of", "FIELD_NAMES", "FIELD_CAPTURES", "KNOWN_COMPONENTS",
]

Fields = dict[str, list[str]]

FIELD_NAMES = frozenset({
    "aws.code", "aws.service", "aws.operation", "aws.action", "aws.principal", "aws.role", "aws.status",
    "aws.deny", "k8s.reason", "k8s.verb", "k8s.resource", "k8s.group", "k8s.namespace", "k8s.user",
    "k8s.name", "webhook", "webhook.type", "crd.kind", "crd.version", "event.reason", "tf.address",
    "tf.resource", "helm.release", "helm.action", "error.head", "error.root", "printed_by", "component",
})

# The value a field gives a fix placeholder (``{{action}}``, ``{{role}}`` ...) when a symptom's
# conditions matched on that line.
FIELD_CAPTURES = {
    "aws.action": "action", "aws.role": "role", "aws.principal": "principal", "aws.code": "error_code",
    "aws.service": "service", "aws.operation": "operation", "aws.resource": "resource_arn",
    "k8s.user": "user", "k8s.verb": "verb", "k8s.resource": "resource", "k8s.group": "api_group",
    "k8s.namespace": "namespace", "k8s.name": "name", "webhook": "webhook", "crd.kind": "kind",
    "crd.version": "api_version", "event.reason": "reason", "tf.address": "tf_address", "tf.resource": "tf_resource",
    "helm.release": "release", "helm.action": "helm_action",
}

# --------------------------------------------------------------------------- AWS

_AWS_V2 = re.compile(
    r"operation error (?P<service>[A-Za-z0-9 ]{2,40}?): (?P<op>\w+), (?:exceeded maximum number of attempts, "
    r"\d+, )?https response error StatusCode: (?P<status>\d{3})(?:, RequestID: [\w-]*)?"
    r"(?:, [\w ]{1,40}?)?(?:, api error (?P<code>\w+))?"
)
_AWS_V1_STATUS = re.compile(r"status code: (?P<status>\d{3}), request id")
_AWS_PY = re.compile(r"An error occurred \((?P<code>\w+)\) when calling the (?P<op>\w+) operation")
_AWS_CODE = re.compile(
    r"(?<![\w.])(?P<code>AccessDenied(?:Exception)?|UnauthorizedOperation|UnauthorizedAccess|"
    r"Unauthorized(?:Exception)?|InvalidClientTokenId|ExpiredToken(?:Exception)?|SignatureDoesNotMatch|"
    r"InvalidIdentityToken|WebIdentityErr|AuthFailure|RequestExpired|OptInRequired|"
    r"InsufficientInstanceCapacity|InsufficientFreeAddressesInSubnet|InsufficientCapacity\w*|"
    r"MaxSpotInstanceCountExceeded|InstanceLimitExceeded|VcpuLimitExceeded|SpotMaxPriceTooLow|"
    r"Unsupported|InvalidParameter(?:Value|Combination|Exception)?|InvalidParameterException|"
    r"ResourceInUseException|ResourceNotFoundException|ResourceLimitExceeded|LimitExceeded(?:Exception)?|"
    r"Throttling(?:Exception)?|RequestLimitExceeded|TooManyRequestsException|ThrottlingException|"
    r"NoCredentialProviders|EC2RoleRequestError|InvalidSubnet(?:ID)?\.\w+|InvalidGroup\.\w+|"
    r"InvalidAMIID\.\w+|InvalidLaunchTemplate\w*\.\w+|InvalidInstanceID\.\w+|InvalidVolume\.\w+|"
    r"VolumeInUse|IncorrectState|InvalidPermission\.\w+|DependencyViolation|NodeCreationFailure|"
    r"AsgInstanceLaunchFailures|InstanceLimitExceeded|Ec2SubnetInvalidConfiguration|"
    r"KMSKeyNotAccessibleFault|InvalidKMSKey\.\w+|EntityAlreadyExists|NoSuchEntity|MalformedPolicyDocument|"
    r"ValidationError|ValidationException|ServiceUnavailable|InternalError|RequestError|"
    r"ClientException|ServerException|AccessDeniedException|UnrecognizedClientException)"
    r"(?=: |\b)"
)
_DENIED = re.compile(
    r"(?:User|Principal):? (?P<principal>arn:aws[\w-]*:(?:sts|iam)::[\w*]*:[\w-]+/[^\s\"',]+|anonymous)"
    r" is not authorized to perform: (?P<action>[\w-]+:[\w*]+)"
    r"(?: on resource: (?P<resource>[^\s\"',]+))?(?P<rest>[^\n]{0,160})"
)
_DENIED_SHORT = re.compile(
    r"(?:[Nn]ot authorized to perform(?: action)?|not allowed to perform|is not authorized to perform)"
    r":? (?P<action>[a-z0-9-]+:[A-Za-z*]+)"
)
_ROLE_OF = re.compile(r":(?:assumed-role|role|user)/(?P<name>[^/\s\"',]+)")


def _aws(text: str, out: Fields) -> None:
    if not has_aws_hint(text):
        return
    if m := _AWS_V2.search(text):
        _add(out, "aws.service", m.group("service").strip())
        _add(out, "aws.operation", m.group("op"))
        _add(out, "aws.status", m.group("status"))
        if m.group("code"):
            _add(out, "aws.code", m.group("code"))
    if m := _AWS_PY.search(text):
        _add(out, "aws.code", m.group("code"))
        _add(out, "aws.operation", m.group("op"))
    if "status code:" in text and (m := _AWS_V1_STATUS.search(text)):
        _add(out, "aws.status", m.group("status"))
    for m in _AWS_CODE.finditer(text):
        code = m.group("code")
        if code in ("Unauthorized", "Unsupported", "InternalError", "ServiceUnavailable") and "aws.status" not in out \
                and "aws.service" not in out:
            continue  # too common outside AWS (kubectl's Unauthorized, an HTTP 503)
        _add(out, "aws.code", code)
    found_action = False
    for m in _DENIED.finditer(text):
        found_action = True
        principal, action = m.group("principal"), m.group("action")
        _add(out, "aws.principal", principal)
        _add(out, "aws.action", action)
        if m.group("resource"):
            _add(out, "aws.resource", m.group("resource").rstrip("."))
        if r := _ROLE_OF.search(principal):
            _add(out, "aws.role", r.group("name"))
        rest = m.group("rest")
        _add(out, "aws.deny", "explicit" if "explicit deny" in rest else "implicit")
    if not found_action:
        for m in _DENIED_SHORT.finditer(text):
            _add(out, "aws.action", m.group("action"))


# ---------------------------------------------------------------------- Kubernetes

_FORBIDDEN = re.compile(
    r"User \"(?P<user>[^\"]{1,200})\" cannot (?P<verb>[\w-]+) (?:resource \"(?P<resource>[\w./-]+)\""
    r"(?: in API group \"(?P<group>[\w.-]*)\")?|(?P<res2>[\w./-]+))"
    r"(?: in the namespace \"(?P<ns>[\w.-]+)\"| at the cluster scope)?"
)
# what stands before `User "..."`, searched in the few characters before it only
_FORBIDDEN_OBJECT = re.compile(r"(?P<res>[\w.-]{1,100})(?: \"(?P<name>[^\"]{1,253})\")? is forbidden: $")
_SERVER_REASON = re.compile(r"Error from server \((?P<reason>\w+)\)")
# "(Unauthorized)" as kubectl prints an API status, a bare "Unauthorized" line (Terraform) or client-go's
# "failed to list *v1.Node: Unauthorized", klog's structured err="Unauthorized"; a registry's
# "401 Unauthorized" is not the Kubernetes API's answer.
_STATUS_REASON = re.compile(
    r"\((?P<reason>Unauthorized|Forbidden)\)|^(?:[Ee]rror: )?(?P<bare>Unauthorized)$"
    r"|(?<=\w: )(?P<tail>Unauthorized)$|\berr=\\?\"(?P<klog>Unauthorized)\\?\""
    r"|the server has asked for the client to provide credentials"
    r"|(?P<invalid>is invalid: )|(?P<immutable>field is immutable)|(?P<conflict>the object has been modified)"
)
_NO_KIND = re.compile(r"no matches for kind \"(?P<kind>\w+)\" in version \"(?P<version>[\w./-]+)\"")
_NO_KIND_OLD = re.compile(r"no kind \"(?P<kind>\w+)\" is registered for version \"(?P<version>[\w./-]+)\"")
_NO_RESOURCE = re.compile(r"the server (?:could not find the requested resource|doesn't have a resource type "
                          r"\"(?P<res>[\w.-]+)\")")
_WEBHOOK = re.compile(
    r"(?:failed calling webhook|admission webhook|calling webhook|webhook) \\?\"(?P<name>[\w.-]+)\\?\""
    r"|(?P<conv>conversion webhook) for (?P<gvk>[\w./-]+(?:, Kind=\w+)?)"
)
_WEBHOOK_SERVICE = re.compile(r"https://(?P<svc>[\w-]+)\.(?P<ns>[\w-]+)\.svc(?::\d+)?/")


def _kubernetes(text: str, out: Fields) -> None:
    if "cannot" in text and (m := _FORBIDDEN.search(text)):
        _add(out, "k8s.reason", "Forbidden")
        _add(out, "k8s.user", m.group("user"))
        _add(out, "k8s.verb", m.group("verb"))
        before = _FORBIDDEN_OBJECT.search(text[max(0, m.start() - 400) : m.start()])
        resource = m.group("resource") or m.group("res2") or (before.group("res") if before else None)
        if resource:
            _add(out, "k8s.resource", resource)
        if m.group("group") is not None:
            _add(out, "k8s.group", m.group("group") or "core")
        if m.group("ns"):
            _add(out, "k8s.namespace", m.group("ns"))
        if before and before.group("name"):
            _add(out, "k8s.name", before.group("name"))
    if "Error from server" in text and (m := _SERVER_REASON.search(text)):
        _add(out, "k8s.reason", m.group("reason"))
    status_hint = ("Unauthorized" in text or "Forbidden" in text or "asked for the client" in text
                   or "is invalid" in text or "immutable" in text or "has been modified" in text)
    for m in _STATUS_REASON.finditer(text.strip()) if status_hint else ():
        if m.group("reason"):
            _add(out, "k8s.reason", m.group("reason"))
        elif m.group("invalid") or m.group("immutable"):
            _add(out, "k8s.reason", "Invalid")
        elif m.group("conflict"):
            _add(out, "k8s.reason", "Conflict")
        else:
            _add(out, "k8s.reason", "Unauthorized")
    for rx in (_NO_KIND, _NO_KIND_OLD) if "no " in text and "kind" in text else ():
        for m in rx.finditer(text):
            _add(out, "crd.kind", m.group("kind"))
            _add(out, "crd.version", m.group("version"))
    if "the server" in text and (m := _NO_RESOURCE.search(text)):
        _add(out, "k8s.reason", "NotFound")
        if m.group("res"):
            _add(out, "k8s.resource", m.group("res"))
    if "webhook" in text:
        for m in _WEBHOOK.finditer(text):
            if m.group("conv"):
                _add(out, "webhook.type", "conversion")
                _add(out, "webhook", m.group("gvk"))
            else:
                _add(out, "webhook", m.group("name"))
                _add(out, "webhook.type", "conversion" if "conversion" in text else "admission")
        if m := _WEBHOOK_SERVICE.search(text):
            _add(out, "component", *components_of(m.group("svc")))


# ---------------------------------------------------------------- events, tools, chains

_EVENT = re.compile(
    r"^\s*(?:\S+\s+){0,3}?(?:Warning|Normal)\s+(?P<reason>[A-Z][A-Za-z]+)\s"
    r"|\b(?:reason|Reason)[:=]\s*\"?(?P<reason2>(?:Failed|Back|Node|Evicted|Unhealthy|Insufficient|Invalid)[A-Za-z]*)"
)
# the From column of a `kubectl describe` event row: the controller that reported the event
_EVENT_FROM = re.compile(r"^\s*(?:Warning|Normal)\s+[A-Z][A-Za-z]+\s+(?:\S+(?: \(x\d+ over \S+\))?)?\s{2,}"
                         r"(?P<from>[a-z][\w./:-]{2,80})\s{2,}\S")
_TF_WITH = re.compile(r"\bwith (?P<addr>(?:module\.[\w-]+(?:\[[^\]]{0,80}\])?\.)*(?:data\.)?"
                      r"(?P<type>[a-z][a-z0-9]*_[\w]+)\.[\w-]+(?:\[[^\]]{0,80}\])?)")
_TF_IN = re.compile(r"in (?:resource|data) \"(?P<type>[a-z][a-z0-9]*_\w+)\" \"(?P<name>[\w-]+)\"")
_HELM = re.compile(
    r"\b(?P<action>INSTALLATION|UPGRADE|ROLLBACK|UNINSTALLATION) FAILED\b"
    r"|(?:release|Release) (?:name )?\"?(?P<release>[a-z0-9][a-z0-9.-]{0,52})\"? (?:failed|has no deployed|not found)"
    r"|cannot re-use a name that is still in use|another operation \(install/upgrade/rollback\) is in progress"
    r"|has no deployed releases"
)
_CHAIN_SPLIT = re.compile(r": (?=[a-z\"'])")
_CHAIN_HEAD = re.compile(r"^(?:error |Error: |err=)?\"?(?P<head>(?:failed to|unable to|error |could not|cannot )"
                         r"[^:]{3,120})$", re.IGNORECASE)


def _tools(text: str, out: Fields) -> None:
    if ("Warning" in text or "Normal" in text or "eason" in text) and (m := _EVENT.search(text)):
        _add(out, "event.reason", m.group("reason") or m.group("reason2"))
        if (f := _EVENT_FROM.match(text)) and (printer := components_of(f.group("from"))):
            _add(out, "printed_by", *printer)
            _add(out, "component", *printer)
    if "with " in text and (m := _TF_WITH.search(text)):
        _add(out, "tf.address", m.group("addr"))
        _add(out, "tf.resource", m.group("type"))
        _add(out, "component", "Terraform")
    if "resource \"" in text or "data \"" in text:
        for m in _TF_IN.finditer(text):
            _add(out, "tf.resource", m.group("type"))
            _add(out, "component", "Terraform")
    helm_hint = "FAILED" in text or "elease" in text or "re-use" in text or "another operation" in text
    if helm_hint and (m := _HELM.search(text)):
        _add(out, "component", "Helm")
        if m.group("action"):
            _add(out, "helm.action", m.group("action").lower())
        if m.group("release"):
            _add(out, "helm.release", m.group("release"))
    if ": " in text:
        parts = [p.strip(" \"'") for p in _CHAIN_SPLIT.split(text) if p.strip(" \"'")]
        if len(parts) >= 3:
            if m := _CHAIN_HEAD.match(parts[0]):
                _add(out, "error.head", m.group("head").strip())
            _add(out, "error.root", parts[-1][:200])


# ----------------------------------------------------------------------------- API


def _add(out: Fields, name: str, *values: str) -> None:
    if not any(values):
        return
    bucket = out.setdefault(name, [])
    for value in values:
        if value and value not in bucket:
            bucket.append(value)


def read_fields(line: Line | str) -> Fields:
    """The fields of one logical line (see the module docstring for the names)."""
    text = line.text if isinstance(line, Line) else line
    source = line.source if isinstance(line, Line) else ""
    out: Fields = {}
    if len(text) > 20000:
        text = text[:20000]
    _aws(text, out)
    _kubernetes(text, out)
    _tools(text, out)
    if source:
        printed = components_of(source)
        _add(out, "printed_by", *(printed or [source.split()[0]]))
        _add(out, "component", *printed)
    for role in out.get("aws.role", []):
        _add(out, "component", *components_of(role))
    # an action names the controller that calls it, unless AWS says an IAM user was denied: in-cluster
    # controllers act through roles, a user's keys are a person's, a pipeline's or another tool's
    principals = out.get("aws.principal", [])
    if not principals or not all(":user/" in p for p in principals):
        for action in out.get("aws.action", []):
            _add(out, "component", *(name for name, rx in ACTION_COMPONENT if rx.search(action)))
    for hook in out.get("webhook", []):
        _add(out, "component", *components_of(hook))
    if "aws.principal" in out or "k8s.user" in out or "webhook" in out or "printed_by" in out:
        return out
    if out:  # a recognised message with no named principal: its own words may name the component
        _add(out, "component", *components_of(text))
    return out


def paste_fields(lines: Sequence[Line]) -> tuple[list[Fields], list[str]]:
    """Per-line fields, and the components the whole paste is about (most frequent first)."""
    per_line = [read_fields(line) for line in lines]
    counts: dict[str, int] = {}
    for line, fields in zip(lines, per_line):
        names = set(fields.get("component", [])) | set(components_of(line.source))
        if not fields:
            names |= set(components_of(line.text[:400]))
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return per_line, sorted(counts, key=lambda n: (-counts[n], n))
