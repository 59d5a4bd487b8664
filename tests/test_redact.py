"""Tests for troubleshoot.redact: secrets go, everything else stays byte-identical.

All credentials below are fabricated.  Token-shaped strings are assembled at
run time (see the small builders) so that secret scanners do not flag this
file.
"""

from __future__ import annotations

import base64
import json
import string
import time

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from troubleshoot.redact import MARKER_RE, Redaction, redact

# ---------------------------------------------------------------------------
# Builders for fake credentials
# ---------------------------------------------------------------------------


def b64url(obj) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def make_jwt(payload: dict, sig: str = "c2lnbmF0dXJlLW5vdC1yZWFsLTAxMjM0NTY3ODk") -> str:
    return ".".join([b64url({"alg": "RS256", "kid": "k1-not-real"}), b64url(payload), sig])


def sa_token(namespace: str = "payments", name: str = "api") -> str:
    return make_jwt({
        "aud": ["https://kubernetes.default.svc"],
        "exp": 1893456000,
        "iss": "https://oidc.eks.eu-west-1.amazonaws.com/id/0123456789ABCDEF0123456789ABCDEF",
        "kubernetes.io": {"namespace": namespace, "serviceaccount": {"name": name, "uid": "5c1d"}},
        "sub": f"system:serviceaccount:{namespace}:{name}",
    })


AKID = "AKIA" + "Z7QW3RTY5UIOP2AS"
ASID = "ASIA" + "Q4NB7VC2XZ8LKJ3H"
AWS_SECRET = "kR3vT8pLm2Q/xN7wZ4cY1bH6sJ9dF0gA+eU5iO3y"  # 40 chars
AWS_SESSION = "IQoJb3JpZ2luX2Vj" + "EHQaCWV1LXdlc3QtMSJHMEUCIQDf4k2Lm9Np3Qr7StUv1Wx5Yz" * 3
GH_TOKEN = "ghp" + "_" + "R8kLm2Pq4St6Uv8Wx0Yz2Ab4Cd6Ef8Gh0Ij2"
GH_PAT = "github" + "_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCD"
SLACK_BOT = "xox" + "b-" + "2841573961-4928173650-Zq8Wn3Rk5Tp7Vm9Xc2Bd4Fh6"
SLACK_APP = "xa" + "pp-" + "1-A05TESTAPP-5012345678901-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
SLACK_HOOK_PATH = "T0" + "4FAKE123/B06FAKE456/" + "q8Wn3Rk5Tp7Vm9Xc2Bd4Fh6J"
JWT = make_jwt({"sub": "user-42", "iss": "https://auth.example.internal", "exp": 1893456000})
SA_JWT = sa_token()
ECR_PASSWORD = "eyJwYXlsb2FkIjoi" + "N2Q1ZTNjMWE5YjdmNWUzYzFhOWI3ZjVlM2MxYTliN2Y1ZTNjMWE5YjdmNWUz" * 2
EKS_TOKEN = "k8s-aws-v1." + "aHR0cHM6Ly9zdHMuZXUtd2VzdC0xLmFtYXpvbmF3cy5jb20vP0FjdGlvbj1HZXRDYWxsZXJJZGVudGl0eQ"

PEM_KEY_BODY = "\n".join([
    "MIIEowIBAAKCAQEAt3stRk9d2mQ1pXnB0cKq7eWvL4yZ8uJ2hF6gT1sD9aR5oN3b",
    "Vx4cM8kP2wQ7eL1rT6yU0iO9pA3sD5fG7hJ8kL2zX4cV6bN1mQ3wE5rT7yU9iO0p",
    "A2sD4fG6hJ8kL1zX3cV5bN7mQ9wE2rT4yU6iO8pA0sD3fG5hJ7kL9zX2cV4bN6m",
])
PEM_KEY = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_KEY_BODY}\n-----END RSA PRIVATE KEY-----"
PEM_CERT_BODY = "\n".join([
    "MIIDBTCCAe2gAwIBAgIIY3VzdG9tLWNhMA0GCSqGSIb3DQEBCwUAMBUxEzARBgNV",
    "BAMTCmt1YmVybmV0ZXMwHhcNMjQwNTAxMTAwMDAwWhcNMzQwNDI5MTAwMDAwWjAV",
])
PEM_CERT = f"-----BEGIN CERTIFICATE-----\n{PEM_CERT_BODY}\n-----END CERTIFICATE-----"
CLIENT_KEY_DATA = base64.b64encode(PEM_KEY.encode()).decode()
CLIENT_CERT_DATA = base64.b64encode(PEM_CERT.encode()).decode()


def kinds(report: list[Redaction]) -> list[str]:
    return [r.kind for r in report]


def assert_gone(text: str, *secrets: str) -> tuple[str, list[Redaction]]:
    out, report = redact(text)
    for secret in secrets:
        assert secret not in out, f"{secret!r} survived redaction"
        for r in report:
            assert secret not in r.preview
    assert report, "nothing was reported"
    return out, report


# ---------------------------------------------------------------------------
# Each kind of secret, in the kind of paste it usually arrives in
# ---------------------------------------------------------------------------


def test_kubeconfig_token_and_client_credentials():
    text = f"""$ kubectl config view --raw --minify
apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUMvakNDQWVhZ0F3SUJBZ0lCQURBTkJna3Foa2lHOXcwQkFRc0ZBREFWCg==
    server: https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com
  name: arn:aws:eks:eu-west-1:111122223333:cluster/prod
contexts:
- context:
    cluster: arn:aws:eks:eu-west-1:111122223333:cluster/prod
    user: ci-deployer
  name: ci
current-context: ci
kind: Config
users:
- name: ci-deployer
  user:
    token: ci-deployer-7f3a9b2c4d5e6f708192a3b4c5d6e7f8
- name: break-glass
  user:
    client-certificate-data: {CLIENT_CERT_DATA}
    client-key-data: {CLIENT_KEY_DATA}
"""
    out, report = assert_gone(text, "ci-deployer-7f3a9b2c4d5e6f708192a3b4c5d6e7f8",
                              CLIENT_CERT_DATA, CLIENT_KEY_DATA)
    assert "    token: [REDACTED:kubeconfig-token]\n" in out
    assert "    client-certificate-data: [REDACTED:kubeconfig-client-cert]\n" in out
    assert "    client-key-data: [REDACTED:private-key]\n" in out
    # The public CA, the endpoint and the ARNs are not secrets.
    assert "certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0t" in out
    assert "server: https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com" in out
    assert "arn:aws:eks:eu-west-1:111122223333:cluster/prod" in out
    assert [(r.kind, r.line) for r in report] == [
        ("kubeconfig-token", 18),
        ("kubeconfig-client-cert", 21),
        ("private-key", 22),
    ]


def test_kubeconfig_with_service_account_jwt():
    text = f"users:\n- name: sa\n  user:\n    token: {SA_JWT}\n"
    out, report = assert_gone(text, SA_JWT)
    assert out == "users:\n- name: sa\n  user:\n    token: [REDACTED:k8s-service-account-token]\n"
    assert report == [Redaction("k8s-service-account-token", 4, SA_JWT[:4] + "…" + SA_JWT[-4:])]


def test_env_dump():
    text = f"""$ kubectl exec deploy/billing -- env | sort
AWS_ACCESS_KEY_ID={AKID}
AWS_DEFAULT_REGION=eu-west-1
AWS_SECRET_ACCESS_KEY={AWS_SECRET}
AWS_SESSION_TOKEN={AWS_SESSION}
DB_HOST=billing-db.cluster-c9xyzabc1234.eu-west-1.rds.amazonaws.com
DB_PASS=Tr0ub4dor-and-3
DB_PASSWORD=correct-Horse-battery-9
HOME=/root
HOSTNAME=billing-6c8d7f9b5-x2k4q
KUBERNETES_SERVICE_HOST=172.20.0.1
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PWD=/app
SENTRY_DSN_SECRET=5f1e2d3c4b5a69788796a5b4c3d2e1f0
SLACK_BOT_TOKEN={SLACK_BOT}
STRIPE_API_KEY=sk_test_51NfakeFAKEfake0123456789
GITHUB_TOKEN={GH_TOKEN}
"""
    out, report = assert_gone(text, AKID, AWS_SECRET, AWS_SESSION, "Tr0ub4dor-and-3",
                              "correct-Horse-battery-9", "5f1e2d3c4b5a69788796a5b4c3d2e1f0",
                              SLACK_BOT, "sk_test_51NfakeFAKEfake0123456789", GH_TOKEN)
    assert "AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key-id]\n" in out
    assert "AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]\n" in out
    assert "AWS_SESSION_TOKEN=[REDACTED:aws-session-token]\n" in out
    assert "DB_PASS=[REDACTED:password]\n" in out
    assert "DB_PASSWORD=[REDACTED:password]\n" in out
    assert "SENTRY_DSN_SECRET=[REDACTED:secret]\n" in out
    assert "SLACK_BOT_TOKEN=[REDACTED:slack-token]\n" in out
    assert "STRIPE_API_KEY=[REDACTED:secret]\n" in out
    assert "GITHUB_TOKEN=[REDACTED:github-token]\n" in out
    for untouched in ("PWD=/app", "HOME=/root", "HOSTNAME=billing-6c8d7f9b5-x2k4q",
                      "DB_HOST=billing-db.cluster-c9xyzabc1234.eu-west-1.rds.amazonaws.com",
                      "PATH=/usr/local/sbin:/usr/local/bin"):
        assert untouched in out
    assert len(report) == 9


def test_kubectl_get_secret_yaml():
    text = """$ kubectl -n payments get secret payments-db -o yaml
apiVersion: v1
data:
  DB_USER: cGF5bWVudHM=
  password: UzNjcjN0LXBhc3N3b3JkLTIwMjQ=
  tls.key: |
    c2Vjb25kLWxpbmUtb2YtYS1ibG9jay1zY2FsYXI=
    dGhpcmQtbGluZQ==
kind: Secret
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","data":{"DB_USER":"cGF5bWVudHM=","password":"UzNjcjN0LXBhc3N3b3JkLTIwMjQ="},"kind":"Secret","metadata":{"annotations":{},"name":"payments-db","namespace":"payments"},"type":"Opaque"}
  creationTimestamp: "2024-05-02T09:14:55Z"
  name: payments-db
  namespace: payments
  resourceVersion: "48213"
  uid: 6f1c2b7a-0d3e-4f58-9a6b-7c8d9e0f1a2b
type: Opaque
"""
    out, report = assert_gone(text, "cGF5bWVudHM=", "UzNjcjN0LXBhc3N3b3JkLTIwMjQ=",
                              "c2Vjb25kLWxpbmUtb2YtYS1ibG9jay1zY2FsYXI=", "dGhpcmQtbGluZQ==")
    lines = out.split("\n")
    assert lines[3] == "  DB_USER: [REDACTED:k8s-secret-data]"
    assert lines[4] == "  password: [REDACTED:k8s-secret-data]"
    assert lines[5] == "  tls.key: |"
    assert lines[6] == "    [REDACTED:k8s-secret-data]"
    assert lines[7] == "    [REDACTED:k8s-secret-data]"
    assert '"kind":"Secret","metadata":{"annotations":{},"name":"payments-db"' in out
    assert "uid: 6f1c2b7a-0d3e-4f58-9a6b-7c8d9e0f1a2b" in out
    assert len(lines) == len(text.split("\n"))
    # One entry per value; the block scalar counts once.
    assert [(r.kind, r.line) for r in report] == [
        ("k8s-secret-data", 4), ("k8s-secret-data", 5), ("k8s-secret-data", 7),
        ("k8s-secret-data", 13), ("k8s-secret-data", 13),
    ]


def test_secret_list_and_string_data_but_not_configmaps():
    text = f"""apiVersion: v1
items:
- apiVersion: v1
  data:
    ca.crt: {CLIENT_CERT_DATA[:40]}
    token: {base64.b64encode(SA_JWT.encode()).decode()}
  kind: Secret
  metadata:
    name: builder-token
  type: kubernetes.io/service-account-token
- apiVersion: v1
  data:
    LOG_LEVEL: debug
    FEATURE_FLAGS: checkout,search
  kind: ConfigMap
  metadata:
    name: app-config
- apiVersion: v1
  kind: Secret
  metadata:
    name: webhook
  stringData:
    url: plain-text-value-9431
kind: List
metadata:
  resourceVersion: ""
"""
    out, report = redact(text)
    assert "plain-text-value-9431" not in out
    assert CLIENT_CERT_DATA[:40] not in out
    assert "    LOG_LEVEL: debug\n    FEATURE_FLAGS: checkout,search\n" in out
    assert kinds(report) == ["k8s-secret-data"] * 3


def test_kubectl_get_secret_json():
    text = """{
    "apiVersion": "v1",
    "data": {
        ".dockerconfigjson": "eyJhdXRocyI6eyJyZWdpc3RyeS5leGFtcGxlLmNvbSI6eyJhdXRoIjoiWkdWd2JHOTVPbk5sWTNKbGRBPT0ifX19"
    },
    "kind": "Secret",
    "metadata": {
        "name": "regcred",
        "namespace": "default"
    },
    "type": "kubernetes.io/dockerconfigjson"
}
"""
    out, report = assert_gone(text, "eyJhdXRocyI6eyJyZWdpc3RyeS5leGFtcGxl")
    assert '        ".dockerconfigjson": "[REDACTED:k8s-secret-data]"\n    },\n' in out
    assert [(r.kind, r.line) for r in report] == [("k8s-secret-data", 4)]


def test_curl_headers_and_bare_bearer():
    text = (
        f'$ curl -sS -H "Authorization: Bearer {JWT}" https://api.internal.example/v1/orders\n'
        "$ curl -u deploy:Sup3r-Secret-77 https://nexus.example.com/service/rest/v1/status\n"
        "$ curl -H 'Authorization: Basic ZGVwbG95OnN1cGVyc2VjcmV0' https://nexus.example.com\n"
        "$ curl -H 'X-Api-Key: 9b1f2e3d4c5b6a79' https://metrics.example.com/api\n"
        "DEBUG request headers: bearer 4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c\n"
    )
    out, report = assert_gone(text, JWT, "Sup3r-Secret-77", "ZGVwbG95OnN1cGVyc2VjcmV0",
                              "9b1f2e3d4c5b6a79", "4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c")
    assert '-H "Authorization: Bearer [REDACTED:jwt]" https://api.internal.example/v1/orders' in out
    assert "curl -u deploy:[REDACTED:password] https://nexus" in out
    assert "'Authorization: Basic [REDACTED:basic-auth]'" in out
    assert "bearer [REDACTED:bearer-token]\n" in out
    assert [r.line for r in report] == [1, 2, 3, 4, 5]


def test_authorization_header_with_opaque_token():
    out, report = assert_gone("Authorization: Bearer opaque-token-0123456789\n", "opaque-token-0123456789")
    assert out == "Authorization: Bearer [REDACTED:bearer-token]\n"


def test_docker_login_variants():
    text = (
        f"$ docker login -u AWS -p {ECR_PASSWORD} 111122223333.dkr.ecr.eu-west-1.amazonaws.com\n"
        "WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n"
        "$ docker login --username ci --password Hunter-2-Registry registry.example.com\n"
        "$ docker login -u ci -p Plain-Docker-Pass-1 registry.example.com\n"
        "$ aws ecr get-login-password --region eu-west-1 | docker login --username AWS --password-stdin 111122223333.dkr.ecr.eu-west-1.amazonaws.com\n"
        "Login Succeeded\n"
    )
    out, report = assert_gone(text, ECR_PASSWORD, "Hunter-2-Registry", "Plain-Docker-Pass-1")
    assert "-p [REDACTED:ecr-token] 111122223333.dkr.ecr.eu-west-1.amazonaws.com" in out
    assert "--password [REDACTED:password] registry.example.com" in out
    assert "--password-stdin 111122223333.dkr.ecr.eu-west-1.amazonaws.com\nLogin Succeeded\n" in out
    assert "WARNING! Using --password via the CLI is insecure. Use --password-stdin.\n" in out
    assert kinds(report) == ["ecr-token", "password", "password"]


def test_terraform_output():
    text = f"""$ terraform output
ci_access_key_id = "{AKID}"
ci_secret_access_key = "{AWS_SECRET}"
cluster_endpoint = "https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com"
db_password = <sensitive>
$ terraform output -json
{{
  "db_password": {{
    "sensitive": true,
    "type": "string",
    "value": "tf-Generated-Pa55word"
  }},
  "node_role_arn": {{
    "sensitive": false,
    "type": "string",
    "value": "arn:aws:iam::111122223333:role/KarpenterNodeRole-prod"
  }}
}}
"""
    out, report = assert_gone(text, AKID, AWS_SECRET, "tf-Generated-Pa55word")
    assert 'ci_secret_access_key = "[REDACTED:aws-secret-key]"' in out
    assert "db_password = <sensitive>\n" in out
    assert '"value": "[REDACTED:password]"' in out
    assert '"value": "arn:aws:iam::111122223333:role/KarpenterNodeRole-prod"' in out
    assert kinds(report) == ["aws-access-key-id", "aws-secret-key", "password"]


def test_aws_cli_credentials_json_and_files():
    text = f"""$ aws sts assume-role --role-arn arn:aws:iam::111122223333:role/admin --role-session-name dbg
{{
    "Credentials": {{
        "AccessKeyId": "{ASID}",
        "SecretAccessKey": "{AWS_SECRET}",
        "SessionToken": "FwoGZXIvYXdzEBYaDN8kQ2mF0pLr7sT4uYyKxAW7bN3cM9vD2fG8hJ4kL6pQ1rS5tU0w",
        "Expiration": "2024-05-02T10:14:55+00:00"
    }},
    "AssumedRoleUser": {{
        "AssumedRoleId": "AROAEXAMPLEROLEID123:dbg",
        "Arn": "arn:aws:sts::111122223333:assumed-role/admin/dbg"
    }}
}}
$ cat ~/.aws/credentials
[default]
aws_access_key_id = {AKID}
aws_secret_access_key = {AWS_SECRET[::-1]}
"""
    out, report = assert_gone(text, ASID, AWS_SECRET, AWS_SECRET[::-1],
                              "FwoGZXIvYXdzEBYaDN8kQ2mF0pLr7sT4uYyKxAW7bN3cM9vD2fG8hJ4kL6pQ1rS5tU0w")
    assert '"AssumedRoleId": "AROAEXAMPLEROLEID123:dbg"' in out
    assert '"Expiration": "2024-05-02T10:14:55+00:00"' in out
    assert kinds(report) == ["aws-access-key-id", "aws-secret-key", "aws-session-token",
                             "aws-access-key-id", "aws-secret-key"]


def test_credentials_csv_secret_next_to_key_id():
    text = f"User name,Access key ID,Secret access key\nci-bot,{AKID},{AWS_SECRET}\n"
    out, _ = assert_gone(text, AKID, AWS_SECRET)
    assert out.endswith("ci-bot,[REDACTED:aws-access-key-id],[REDACTED:aws-secret-key]\n")


def test_presigned_url_in_image_pull_error():
    sig = "4d9f1b2c3a4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"
    text = ("Failed to pull image: failed to copy: httpReadSeeker: failed open: failed to do request: "
            "Get \"https://prod-eu-west-1-starport-layer-bucket.s3.eu-west-1.amazonaws.com/8b12-111122223333-"
            "5c2e/6a7b8c9d?X-Amz-Security-Token=" + AWS_SESSION.replace("/", "%2F") +
            "&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240502T101455Z&X-Amz-SignedHeaders=host"
            "&X-Amz-Expires=3600&X-Amz-Credential=" + ASID + "%2F20240502%2Feu-west-1%2Fs3%2Faws4_request"
            "&X-Amz-Signature=" + sig + "\": dial tcp 52.218.0.1:443: i/o timeout\n")
    out, report = assert_gone(text, AWS_SESSION[:40], ASID, sig)
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240502T101455Z" in out
    assert out.endswith("\": dial tcp 52.218.0.1:443: i/o timeout\n")
    assert set(kinds(report)) == {"aws-session-token", "aws-access-key-id", "aws-signature"}


def test_passwords_in_args_json_yaml_and_connection_strings():
    text = """+ psql "host=db.internal port=5432 user=app password=Lib-Pq-Pass-1 dbname=orders"
+ ./migrate --db-password=Flag-Eq-Pass-2 --verbose
+ ./migrate --password Flag-Space-Pass-3 --dry-run
+ mysql -h mysql.internal -u root -pMy-Sql-Pass-4 orders
{"level":"debug","msg":"loaded config","config":{"user":"app","password":"Json-Pass-5","pool":10}}
spring.datasource.password=Props-Pass-6
redis:
  password: Yaml-Pass-7
DATABASE_URL=postgres://orders:Url-Pass-8@orders-db.internal:5432/orders?sslmode=require
amqp://guest:Url-Pass-9@rabbitmq.messaging.svc.cluster.local:5672/
$ kubectl create secret generic db --from-literal=username=app --from-literal=password=Literal-Pass-10
    env:
    - name: ORDERS_DB_PASSWORD
      value: Pod-Spec-Pass-11
    - name: LOG_LEVEL
      value: info
"""
    secrets = [
        "Lib-Pq-Pass-1", "Flag-Eq-Pass-2", "Flag-Space-Pass-3", "My-Sql-Pass-4", "Json-Pass-5",
        "Props-Pass-6", "Yaml-Pass-7", "Url-Pass-8", "Url-Pass-9", "Literal-Pass-10", "Pod-Spec-Pass-11",
    ]
    out, report = assert_gone(text, *secrets)
    assert "postgres://orders:[REDACTED:url-credentials]@orders-db.internal:5432/orders?sslmode=require" in out
    assert "--verbose" in out and "--dry-run" in out and "dbname=orders" in out
    assert '"user":"app","password":"[REDACTED:password]","pool":10' in out
    assert "    - name: LOG_LEVEL\n      value: info\n" in out
    assert "--from-literal=username=app" in out
    assert len(report) == len(secrets)


def test_pem_blocks_whole_block_masked():
    text = f"""$ kubectl -n ingress get secret wildcard-tls -o jsonpath='{{.data.tls\\.key}}' | base64 -d
{PEM_KEY}
$ openssl s_client -connect api.example.com:443 -showcerts </dev/null
CONNECTED(00000003)
depth=0 CN = api.example.com
{PEM_CERT}
---
Server certificate
subject=CN = api.example.com
"""
    out, report = assert_gone(text, PEM_KEY_BODY.split("\n")[1], PEM_CERT_BODY.split("\n")[0])
    assert "base64 -d\n[REDACTED:private-key]\n$ openssl" in out
    assert "depth=0 CN = api.example.com\n[REDACTED:certificate]\n---\nServer certificate" in out
    assert report == [
        Redaction("private-key", 2, "BEGIN RSA PRIVATE KEY…"),
        Redaction("certificate", 10, "BEGIN CERTIFICATE…"),
    ]


def test_pem_variants_escaped_indented_and_truncated():
    escaped = PEM_KEY.replace("\n", "\\n")
    text = (
        f'{{"tls.key": "{escaped}\\n", "note": "kept"}}\n'
        "  ssh-key: |\n"
        "    -----BEGIN OPENSSH PRIVATE KEY-----\n"
        "    b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "    QyNTUxOQAAACB8kQ2mF0pLr7sT4uYyKxAW7bN3cM9vD2fG8hJ4kL6pQ1rS5tU0wAAAAJ\n"
        "    -----END OPENSSH PRIVATE KEY-----\n"
        "pasted only the start:\n"
        "-----BEGIN EC PRIVATE KEY-----\n"
        "MHcCAQEEIBkW2mF0pLr7sT4uYyKxAW7bN3cM9vD2fG8hJ4kL6pQ1oAoGCCqGSM49\n"
        "(rest cut)\n"
    )
    out, report = assert_gone(text, PEM_KEY_BODY.split("\n")[0][:30], "b3BlbnNzaC1rZXktdjEAAAAABG5v",
                              "QyNTUxOQAAACB8kQ2m", "MHcCAQEEIBkW2mF0pLr7")
    assert out.startswith('{"tls.key": "[REDACTED:private-key]\\n", "note": "kept"}\n')
    assert "  ssh-key: |\n    [REDACTED:private-key]\npasted only the start:\n" in out
    assert out.endswith("[REDACTED:private-key]\n(rest cut)\n")
    assert kinds(report) == ["private-key"] * 3


def test_pem_placeholder_in_documentation_is_left_alone():
    text = "cat > ca.pem <<'PEM'\n-----BEGIN CERTIFICATE-----\n...your internal root CA...\n-----END CERTIFICATE-----\nPEM\n"
    assert redact(text) == (text, [])


def test_slack_and_github_tokens():
    text = f"""helm upgrade alerts ./chart --set slack.botToken={SLACK_BOT} --set slack.appToken={SLACK_APP}
alertmanager:
  config:
    global:
      slack_api_url: https://hooks.slack.com/services/{SLACK_HOOK_PATH}
remote: Invalid username or password.
fatal: Authentication failed for 'https://{GH_TOKEN}@github.com/acme/platform.git/'
export GH_PAT={GH_PAT}
"""
    out, report = assert_gone(text, SLACK_BOT, SLACK_APP, SLACK_HOOK_PATH, GH_TOKEN, GH_PAT)
    assert "slack_api_url: https://hooks.slack.com/services/[REDACTED:slack-webhook]\n" in out
    assert "https://[REDACTED:github-token]@github.com/acme/platform.git/" in out
    assert "remote: Invalid username or password.\n" in out
    assert kinds(report) == ["slack-token", "slack-token", "slack-webhook", "github-token", "github-token"]


def test_jwts_service_account_tokens_and_eks_tokens():
    text = f"""$ kubectl -n build describe secret builder-token
Name:         builder-token
Namespace:    build
Annotations:  kubernetes.io/service-account.name: builder
Type:  kubernetes.io/service-account-token

Data
====
ca.crt:     1107 bytes
namespace:  5 bytes
token:      {SA_JWT}
$ aws eks get-token --cluster-name prod
{{"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1beta1", "spec": {{}}, "status": {{"expirationTimestamp": "2024-05-02T10:28:55Z", "token": "{EKS_TOKEN}"}}}}
level=info msg="login ok" id_token={JWT}
"""
    out, report = assert_gone(text, SA_JWT, EKS_TOKEN, JWT)
    assert "ca.crt:     1107 bytes\nnamespace:  5 bytes\n" in out
    assert "token:      [REDACTED:k8s-service-account-token]\n" in out
    assert '"token": "[REDACTED:eks-token]"' in out
    assert kinds(report) == ["k8s-service-account-token", "eks-token", "jwt"]


@pytest.mark.parametrize("token", [
    AKID, ASID, AWS_SESSION, "FwoGZXIvYXdz" + "EBYaDN8kQ2mF0pLr7sT4uYyKxAW7bN3cM9vD2fG8hJ4kL6pQ1rS5tU0w",
    GH_TOKEN, GH_PAT, "glpat-" + "Xy9zAb8cDe7fGh6iJk5l", SLACK_BOT, SLACK_APP, JWT, SA_JWT,
    base64.b64encode(SA_JWT.encode()).decode(), ECR_PASSWORD, EKS_TOKEN, CLIENT_KEY_DATA,
], ids=lambda t: t[:12])
def test_self_identifying_formats_need_no_context(token):
    for text in (token, f" {token} ", f"x={token};", f"('{token}')", f"{token}\n{token}"):
        out, report = redact(text)
        assert token not in out
        assert len(report) == text.count(token)
    # Glued to a preceding letter or digit it is part of some other word.
    if token[0] != "e":
        glued = "Q9" + token
        assert redact(glued)[0] == glued or token not in redact(glued)[0]


# ---------------------------------------------------------------------------
# Ordinary text must survive byte for byte
# ---------------------------------------------------------------------------

DESCRIBE_POD = """Name:             checkout-api-7d9c6b8f5-p2xkq
Namespace:        shop
Priority:         0
Service Account:  checkout-api
Node:             ip-10-42-17-203.eu-west-1.compute.internal/10.42.17.203
Start Time:       Thu, 02 May 2024 09:12:41 +0200
Labels:           app.kubernetes.io/name=checkout-api
                  pod-template-hash=7d9c6b8f5
Annotations:      kubectl.kubernetes.io/restartedAt: 2024-05-01T16:03:12Z
Status:           Running
IP:               10.42.18.77
Controlled By:    ReplicaSet/checkout-api-7d9c6b8f5
Containers:
  api:
    Container ID:   containerd://3b0f8e1c2d4a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344
    Image:          111122223333.dkr.ecr.eu-west-1.amazonaws.com/checkout-api:2.31.4
    Image ID:       111122223333.dkr.ecr.eu-west-1.amazonaws.com/checkout-api@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
    Port:           8080/TCP
    State:          Running
      Started:      Thu, 02 May 2024 09:13:02 +0200
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
    Ready:          True
    Restart Count:  3
    Limits:
      memory:  512Mi
    Requests:
      cpu:     250m
      memory:  512Mi
    Environment:
      DB_HOST:                      checkout-db.shop.svc.cluster.local
      DB_PASSWORD:                  <set to the key 'password' in secret 'checkout-db'>  Optional: false
      PAYMENT_API_TOKEN:            <set to the key 'token' in secret 'payment-provider'>  Optional: false
      AWS_STS_REGIONAL_ENDPOINTS:   regional
      AWS_DEFAULT_REGION:           eu-west-1
      AWS_REGION:                   eu-west-1
      AWS_ROLE_ARN:                 arn:aws:iam::111122223333:role/checkout-api-irsa
      AWS_WEB_IDENTITY_TOKEN_FILE:  /var/run/secrets/eks.amazonaws.com/serviceaccount/token
    Mounts:
      /etc/checkout/tls from tls (ro)
      /var/run/secrets/eks.amazonaws.com/serviceaccount from aws-iam-token (ro)
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-9w2lm (ro)
Conditions:
  Type              Status
  Initialized       True
  Ready             True
Volumes:
  aws-iam-token:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  86400
  tls:
    Type:        Secret (a volume populated by a Secret)
    SecretName:  checkout-tls
    Optional:    false
  kube-api-access-9w2lm:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    ConfigMapOptional:       <nil>
    DownwardAPI:             true
QoS Class:                   Burstable
Node-Selectors:              karpenter.sh/capacity-type=spot
Tolerations:                 dedicated=checkout:NoSchedule
                             node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type     Reason     Age                  From     Message
  ----     ------     ----                 ----     -------
  Warning  BackOff    4m (x12 over 41m)    kubelet  Back-off restarting failed container api in pod checkout-api-7d9c6b8f5-p2xkq_shop(0f6e1d2c-3b4a-4958-8a7b-6c5d4e3f2a1b)
  Normal   Pulled     3m                   kubelet  Container image "111122223333.dkr.ecr.eu-west-1.amazonaws.com/checkout-api:2.31.4" already present on machine
  Warning  FailedMount  2m                 kubelet  MountVolume.SetUp failed for volume "tls" : secret "checkout-tls" not found
"""

KARPENTER_LOGS = """{"level":"INFO","time":"2024-05-02T07:41:09.512Z","logger":"controller","message":"created nodeclaim","commit":"490ef94","controller":"provisioner","namespace":"","name":"","reconcileID":"1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9","NodePool":{"name":"default"},"NodeClaim":{"name":"default-8xk2p"},"requests":{"cpu":"1350m","memory":"2154Mi","pods":"9"},"instance-types":"c6a.large, c6i.large, c7a.large, m6a.large, m7i.large and 24 other(s)"}
{"level":"INFO","time":"2024-05-02T07:41:11.204Z","logger":"controller","message":"launched nodeclaim","commit":"490ef94","controller":"nodeclaim.lifecycle","controllerGroup":"karpenter.sh","controllerKind":"NodeClaim","NodeClaim":{"name":"default-8xk2p"},"namespace":"","name":"default-8xk2p","reconcileID":"a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d","provider-id":"aws:///eu-west-1b/i-0a1b2c3d4e5f67890","instance-type":"c6a.large","zone":"eu-west-1b","capacity-type":"spot","allocatable":{"cpu":"1930m","ephemeral-storage":"17Gi","memory":"3114Mi","pods":"29"}}
{"level":"ERROR","time":"2024-05-02T07:44:30.019Z","logger":"controller","message":"failed launching nodeclaim","commit":"490ef94","controller":"nodeclaim.lifecycle","NodeClaim":{"name":"gpu-2rk9d"},"error":"creating instance, insufficient capacity, with fleet error(s), UnfulfillableCapacity: Unable to fulfill capacity due to your request configuration. Please adjust your request and try again.; InsufficientInstanceCapacity: We currently do not have sufficient g5.xlarge capacity in the Availability Zone you requested (eu-west-1a)."}
{"level":"ERROR","time":"2024-05-02T07:45:02.733Z","logger":"controller","message":"Reconciler error","commit":"490ef94","controller":"nodeclass.status","EC2NodeClass":{"name":"default"},"error":"describing instance types, operation error EC2: DescribeInstanceTypes, get identity: get credentials: failed to refresh cached credentials, failed to retrieve credentials, operation error STS: AssumeRoleWithWebIdentity, https response error StatusCode: 403, RequestID: 6b0c2f4e-1d3a-4c59-8e7f-0a1b2c3d4e5f, InvalidIdentityToken: Incorrect token audience"}
{"level":"INFO","time":"2024-05-02T07:50:00.001Z","logger":"controller","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes (2 pods) ip-10-42-33-12.eu-west-1.compute.internal/m5.large/on-demand","commit":"490ef94","controller":"disruption","command-id":"0c9e8d7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f","reason":"underutilized"}
{"level":"INFO","time":"2024-05-02T07:50:12.440Z","logger":"controller","message":"tainted node","commit":"490ef94","controller":"node.termination","Node":{"name":"ip-10-42-33-12.eu-west-1.compute.internal"},"taint.Key":"karpenter.sh/disrupted","taint.Value":"","taint.Effect":"NoSchedule"}
"""

NODEPOOL_YAML = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: gpu
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g5", "g6"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
      taints:
        - key: nvidia.com/gpu
          value: "true"
          effect: NoSchedule
  limits:
    cpu: "256"
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu
spec:
  role: KarpenterNodeRole-prod
  amiSelectorTerms:
    - id: ami-0a1b2c3d4e5f67890
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: prod
  securityGroupSelectorTerms:
    - id: sg-0123456789abcdef0
---
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      tolerations:
        - key: "nvidia.com/gpu"
          operator: "Exists"
          effect: "NoSchedule"
      containers:
        - name: trainer
          env:
            - name: DB_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: trainer-db
                  key: password
            - name: HF_TOKEN_FILE
              value: /var/run/secrets/hf/token
"""

MISC_CLEAN = """FATAL:  password authentication failed for user "orders"
DETAIL:  Connection matched pg_hba.conf line 98: "host all all 0.0.0.0/0 scram-sha-256"
ERROR 1045 (28000): Access denied for user 'root'@'10.42.18.77' (using password: YES)
git@github.com: Permission denied (publickey,password).
Unable to connect to the server: getting credentials: exec: executable aws failed with exit code 255
error: You must be logged in to the server (Unauthorized)
Error from server (Forbidden): secrets "checkout-db" is forbidden: User "system:serviceaccount:shop:checkout-api" cannot get resource "secrets" in API group "" in the namespace "shop"
failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Aacme%2Fapi%3Apull&service=ghcr.io: 401 Unauthorized
{
    "UserId": "AROAEXAMPLEROLEID123:botocore-session-1714640095",
    "Account": "111122223333",
    "Arn": "arn:aws:sts::111122223333:assumed-role/platform-admin/botocore-session-1714640095"
}
arn:aws:secretsmanager:eu-west-1:111122223333:secret:prod/checkout/db-AbCdEf
NAME          TYPE                                  DATA   AGE
checkout-db   Opaque                                2      41d
default-token kubernetes.io/service-account-token   3      410d
Data
====
password:  24 bytes
username:  8 bytes
i-0a1b2c3d4e5f67890  ami-0a1b2c3d4e5f67890  vol-0fedcba9876543210  eni-0123456789abcdef0
sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
5f0c8d1e-2b3a-4c5d-8e9f-0a1b2c3d4e5f
token = data.aws_eks_cluster_auth.this.token
password = var.db_password
automountServiceAccountToken: false
helm install checkout ./chart --set existingSecret=checkout-db --set auth.existingSecret=checkout-auth
Warning: spec.template.spec.containers[0].env[3]: hides previous definition of "API_TOKEN"
https://example.com:8443/reset-password?next=/login
postgres://orders@orders-db.internal:5432/orders
-----BEGIN CERTIFICATE-----
(paste your CA here)
-----END CERTIFICATE-----
"""


@pytest.mark.parametrize("text", [DESCRIBE_POD, KARPENTER_LOGS, NODEPOOL_YAML, MISC_CLEAN],
                         ids=["describe-pod", "karpenter-json", "nodepool-yaml", "misc"])
def test_ordinary_output_is_byte_identical(text):
    out, report = redact(text)
    assert report == []
    assert out == text


def test_crlf_input():
    text = "DB_PASSWORD=Crlf-Pass-123\r\nAWS_REGION=eu-west-1\r\napiVersion: v1\r\ndata:\r\n  k: dmFsdWU=\r\nkind: Secret\r\n"
    out, report = assert_gone(text, "Crlf-Pass-123", "dmFsdWU=")
    assert out == ("DB_PASSWORD=[REDACTED:password]\r\nAWS_REGION=eu-west-1\r\napiVersion: v1\r\ndata:\r\n"
                   "  k: [REDACTED:k8s-secret-data]\r\nkind: Secret\r\n")
    assert [r.line for r in report] == [1, 5]


# ---------------------------------------------------------------------------
# Report, idempotence, size
# ---------------------------------------------------------------------------

EVERYTHING = "\n".join([
    f"AWS_ACCESS_KEY_ID={AKID}",
    f"aws_secret_access_key = {AWS_SECRET}",
    f"AWS_SESSION_TOKEN={AWS_SESSION}",
    f"Authorization: Bearer {JWT}",
    f"    token: {SA_JWT}",
    f"    client-key-data: {CLIENT_KEY_DATA}",
    f"    client-certificate-data: {CLIENT_CERT_DATA}",
    "DB_PASSWORD=Every-Pass-1",
    "--password=Every-Pass-2",
    '"password": "Every-Pass-3"',
    "postgres://u:Every-Pass-4@db:5432/x",
    PEM_KEY,
    SLACK_BOT,
    f"https://hooks.slack.com/services/{SLACK_HOOK_PATH}",
    GH_TOKEN,
    "apiVersion: v1\ndata:\n  password: RXZlcnktUGFzcy01\nkind: Secret",
    "",
])


def test_report_lists_kind_and_line_without_the_secret():
    out, report = redact(EVERYTHING)
    original_lines = EVERYTHING.split("\n")
    assert len(report) == 16
    for r in report:
        assert isinstance(r, Redaction)
        assert r.line >= 1
        assert MARKER_RE.fullmatch(f"[REDACTED:{r.kind}]")
        assert "…" in r.preview
        # The preview never carries enough of the line to rebuild the secret.
        assert len(r.preview) <= 30
    assert [r.line for r in report] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 17, 18, 19, 22]
    assert report[0] == Redaction("aws-access-key-id", 1, "AKIA…P2AS")
    # Each reported line really held the secret in the input.
    assert "Every-Pass-1" in original_lines[report[7].line - 1]
    assert out.count("[REDACTED:") == 16


def test_redacting_twice_changes_nothing():
    once, report = redact(EVERYTHING)
    twice, report2 = redact(once)
    assert twice == once
    assert report2 == []
    for text in (DESCRIBE_POD, KARPENTER_LOGS, MISC_CLEAN):
        assert redact(redact(text)[0])[0] == text


def test_empty_and_marker_only_inputs():
    assert redact("") == ("", [])
    assert redact("[REDACTED:password]") == ("[REDACTED:password]", [])
    assert redact("PASSWORD=[REDACTED:password]\n") == ("PASSWORD=[REDACTED:password]\n", [])


def test_five_megabytes_finishes_quickly():
    chunk = "\n".join([DESCRIBE_POD, KARPENTER_LOGS, NODEPOOL_YAML, MISC_CLEAN, EVERYTHING])
    big = chunk * (5_000_000 // len(chunk) + 1)
    started = time.perf_counter()
    out, report = redact(big)
    elapsed = time.perf_counter() - started
    assert elapsed < 10, f"took {elapsed:.1f}s"
    assert AKID not in out and len(report) >= 16 * (5_000_000 // len(chunk))


@pytest.mark.parametrize("text", [
    "a" * 1_000_000,
    "password=" * 120_000,
    "password: " * 100_000,
    "eyJ" * 330_000,
    "eyJabcdefghijk." * 70_000,
    "-----BEGIN RSA PRIVATE KEY-----\n" * 30_000,
    "-----END X-----" * 60_000,
    "http://a:b" * 100_000,
    "docker login -p " * 60_000,
    "password=" + ")" * 1_000_000,
    "kind: Secret\ndata: " + "x" * 1_000_000,
    "kind: Secret\ndata:\n" + "  k: v\n" * 100_000,
    '"password":"' + "\\a" * 500_000,
    '"x_password": {' * 60_000,
    "mysql " * 160_000,
    "A" * 1_000_000,
], ids=lambda t: repr(t[:16]))
def test_pathological_shapes_stay_linear(text):
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 10


# ---------------------------------------------------------------------------
# Property: a planted secret never survives, whatever surrounds it
# ---------------------------------------------------------------------------

ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"

def _s(alphabet: str, lo: int, hi: int | None = None):
    return st.text(alphabet=alphabet, min_size=lo, max_size=hi if hi is not None else lo)


# A password: starts with a capital, holds a digit, no spaces/quotes/brackets.
passwords = st.builds(
    lambda head, body, digit: head + body + digit,
    st.sampled_from(string.ascii_uppercase),
    _s(ALNUM + "!@%^&*_+=-.~:#", 8, 30),
    st.sampled_from(string.digits),
)
url_passwords = st.builds(
    lambda head, body, digit: head + body + digit,
    st.sampled_from(string.ascii_uppercase),
    _s(ALNUM + "!%^&*_+=-.~:", 8, 30),
    st.sampled_from(string.digits),
)

jwts = st.builds(
    lambda sub, sig: make_jwt({"sub": sub, "iss": "https://auth.example"}, sig),
    _s(ALNUM, 3, 20), _s(ALNUM + "-_", 20, 60),
)
sa_jwts = st.builds(sa_token, _s(string.ascii_lowercase, 3, 12), _s(string.ascii_lowercase, 3, 12))
pem_keys = st.builds(
    lambda lines: "-----BEGIN PRIVATE KEY-----\n" + "\n".join(lines) + "\n-----END PRIVATE KEY-----",
    st.lists(_s(B64, 64), min_size=1, max_size=5),
)
secret_yaml_values = _s(B64, 12, 60).map(lambda v: v + "==")

# (template, secret strategy).  "{s}" is where the secret goes.
PLANTS = {
    "aws-access-key-id": ('"AccessKeyId": "{s}",', _s(string.ascii_uppercase + string.digits, 16).map(lambda s: "AKIA" + s)),
    "aws-session-key-id": ("aws_access_key_id = {s}", _s(string.ascii_uppercase + string.digits, 16).map(lambda s: "ASIA" + s)),
    "aws-secret-key": ("aws_secret_access_key = {s}", _s(B64, 40)),
    "aws-secret-key-env": ("export AWS_SECRET_ACCESS_KEY={s}", _s(B64, 40)),
    "aws-secret-key-json": ('  "SecretAccessKey":"{s}"', _s(B64, 40)),
    "aws-session-token": ("AWS_SESSION_TOKEN={s}", _s(B64, 60, 300).map(lambda s: "IQoJb3JpZ2luX2Vj" + s)),
    "authorization-bearer": ('curl -H "Authorization: Bearer {s}" https://api.example.com', _s(ALNUM + "-._~", 20, 80)),
    "bare-bearer": ("sending bearer {s} upstream", _s(ALNUM + "-._", 20, 80)),
    "kubeconfig-token": ("    token: {s}", passwords),
    "client-key-data": ("    client-key-data: {s}", _s(B64, 40, 120)),
    "client-certificate-data": ("    client-certificate-data: {s}", _s(B64, 40, 120)),
    "jwt": ("id_token: {s}", jwts),
    "jwt-inline": ("token {s} rejected", jwts),
    "sa-token": ("token:      {s}", sa_jwts),
    "password-env": ("DB_PASSWORD={s}", passwords),
    "db-pass-env": ("REDIS_PASS={s}", passwords),
    "secret-env": ("WEBHOOK_SECRET={s}", passwords),
    "token-env": ("export API_TOKEN='{s}'", passwords),
    "password-flag-eq": ("./server --password={s} --port 8080", passwords),
    "password-flag-space": ("./server --password {s} --port 8080", passwords),
    "password-json": ('{{"user": "app", "password": "{s}"}}', passwords),
    "password-yaml": ("  password: {s}", passwords),
    "mysql-p": ("mysql -u root -p{s} orders", passwords),
    "url-credentials": ("postgres://app:{s}@db.internal:5432/app", url_passwords),
    "pem": ("{s}", pem_keys),
    "slack-token": ("SLACK_BOT={s}", _s(string.digits, 10).map(lambda d: "xox" + "b-" + d + "-" + d[::-1] + "-abcDEF123456")),
    "slack-webhook": ("url: https://hooks.slack.com/services/{s}", _s(ALNUM, 24).map(lambda s: "T01ABC/B02DEF/" + s)),
    "github-token": ("git push https://{s}@github.com/acme/x.git", _s(ALNUM, 36).map(lambda s: "gh" + "p_" + s)),
    "github-pat": ("GH={s}", _s(ALNUM + "_", 60).map(lambda s: "github_" + "pat_" + s)),
    "k8s-secret-data": ("apiVersion: v1\ndata:\n  app.key: {s}\nkind: Secret\nmetadata:\n  name: x", secret_yaml_values),
    "k8s-secret-json": ('{{\n  "data": {{\n    "k": "{s}"\n  }},\n  "kind": "Secret"\n}}', secret_yaml_values),
}

surrounding = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)),
    max_size=300,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@pytest.mark.parametrize("plant", sorted(PLANTS))
@given(data=st.data(), before=surrounding, after=surrounding)
def test_planted_secret_never_survives(plant, data, before, after):
    template, secrets = PLANTS[plant]
    secret = data.draw(secrets)
    assume(secret not in before and secret not in after)
    text = before + "\n" + template.format(s=secret) + "\n" + after
    out, report = redact(text)
    assert secret not in out
    assert report
    assert all(secret not in r.preview for r in report)
    assert redact(out)[0] == out


@settings(max_examples=200, deadline=None)
@given(
    before=st.text(alphabet=string.printable, max_size=80),
    after=st.text(alphabet=string.printable, max_size=80),
    akid=_s(string.ascii_uppercase + string.digits, 16),
    jwt=jwts,
    gh=_s(ALNUM, 36),
)
def test_self_identifying_tokens_inline(before, after, akid, jwt, gh):
    key = "AKIA" + akid
    gh = "gh" + "s_" + gh
    text = f"{before} {key} {after} {jwt} {gh}\t{before}"
    out, _ = redact(text)
    assert key not in out and jwt not in out and gh not in out
    assert redact(out)[0] == out
