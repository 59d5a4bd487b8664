"""Structured fields read from the common message families (troubleshoot.engine.fields)."""

from __future__ import annotations

import json

from troubleshoot.engine.explain import describe
from troubleshoot.engine.fields import components_of, paste_fields, read_fields
from troubleshoot.engine.reader import read


def fields_of(text: str) -> dict[str, list[str]]:
    merged: dict[str, list[str]] = {}
    for f in paste_fields(read(text))[0]:
        for k, v in f.items():
            merged.setdefault(k, []).extend(x for x in v if x not in merged.get(k, []))
    return merged


def test_an_sdk_v2_denial_gives_service_operation_code_action_and_role() -> None:
    f = read_fields(
        "creating launch template, operation error EC2: CreateLaunchTemplate, https response error StatusCode: 403, "
        "RequestID: 2f1d6a0e, api error UnauthorizedOperation: You are not authorized to perform this operation. "
        "User: arn:aws:sts::111122223333:assumed-role/KarpenterControllerRole-prod/1725005 is not authorized to "
        "perform: ec2:CreateLaunchTemplate on resource: arn:aws:ec2:eu-west-1:111122223333:launch-template/* "
        "because no identity-based policy allows the ec2:CreateLaunchTemplate action."
    )
    assert f["aws.service"] == ["EC2"] and f["aws.operation"] == ["CreateLaunchTemplate"]
    assert f["aws.status"] == ["403"] and "UnauthorizedOperation" in f["aws.code"]
    assert f["aws.action"] == ["ec2:CreateLaunchTemplate"]
    assert f["aws.role"] == ["KarpenterControllerRole-prod"]
    assert f["aws.deny"] == ["implicit"]
    assert f["component"] == ["Karpenter"]


def test_the_denied_action_names_the_component_when_the_role_does_not() -> None:
    f = read_fields("AccessDenied: User: arn:aws:sts::111122223333:assumed-role/eks-node-role/i-0abc is not "
                    "authorized to perform: ec2:AssignPrivateIpAddresses")
    assert f["component"] == ["VPC CNI"]
    f = read_fields("UnauthorizedOperation: You are not authorized to perform this operation. User: "
                    "arn:aws:sts::111122223333:assumed-role/prod-external-dns/sess is not authorized to perform: "
                    "route53:ChangeResourceRecordSets on resource: arn:aws:route53:::hostedzone/Z1 with an explicit "
                    "deny in a service control policy")
    assert f["component"] == ["external-dns"] and f["aws.deny"] == ["explicit"]


def test_an_iam_user_denied_an_action_is_not_taken_for_the_controller_that_calls_it() -> None:
    # in-cluster controllers act through roles; a user's access keys belong to a person, a pipeline or
    # another tool (here Cluster API's bootstrap user), so the action alone names no component
    f = read_fields("AccessDenied: User: arn:aws:iam::111122223333:user/ci-deployer is not authorized to perform: "
                    "elasticloadbalancing:DescribeTargetGroups")
    assert f["aws.action"] == ["elasticloadbalancing:DescribeTargetGroups"] and "component" not in f
    f = read_fields("AccessDenied: User: arn:aws:sts::111122223333:assumed-role/platform-nodes/i-0abc is not "
                    "authorized to perform: elasticloadbalancing:DescribeTargetGroups")
    assert f["component"] == ["AWS Load Balancer Controller"]


def test_the_printer_of_a_json_log_is_a_component() -> None:
    rec = {"level": "error", "caller": "ipamd/ipamd.go:512", "msg": "Failed to allocate ENI",
           "error": "AccessDenied: User: arn:aws:sts::111122223333:assumed-role/nodes/i-1 is not authorized "
                    "to perform: ec2:CreateNetworkInterface"}
    f = fields_of(json.dumps(rec))
    assert f["printed_by"] == ["VPC CNI"] and "VPC CNI" in f["component"]


def test_botocore_client_error() -> None:
    f = read_fields("botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the "
                    "AssumeRoleWithWebIdentity operation: Not authorized to perform sts:AssumeRoleWithWebIdentity")
    assert f["aws.code"] == ["AccessDenied"] and f["aws.operation"] == ["AssumeRoleWithWebIdentity"]
    assert f["aws.action"] == ["sts:AssumeRoleWithWebIdentity"]


def test_kubectls_unauthorized_is_not_an_aws_code() -> None:
    f = read_fields("error: You must be logged in to the server (Unauthorized)")
    assert "aws.code" not in f
    assert f["k8s.reason"] == ["Unauthorized"]


def test_klog_structured_unauthorized_is_a_status_reason() -> None:
    f = read_fields('E1102 09:14:21.529417    2931 kubelet_node_status.go:96] "Unable to register node with API '
                    'server" err="Unauthorized" node="ip-10-0-1-2.ec2.internal"')
    assert f["k8s.reason"] == ["Unauthorized"]
    assert "k8s.reason" not in read_fields('err="UnauthorizedOperation: You are not authorized"')


def test_rbac_forbidden_with_group_and_namespace() -> None:
    f = read_fields('Error from server (Forbidden): deployments.apps "web" is forbidden: User '
                    '"system:serviceaccount:ci:deployer" cannot patch resource "deployments" in API group "apps" '
                    'in the namespace "prod"')
    assert f["k8s.reason"] == ["Forbidden"]
    assert (f["k8s.user"], f["k8s.verb"], f["k8s.resource"], f["k8s.group"], f["k8s.namespace"], f["k8s.name"]) == (
        ["system:serviceaccount:ci:deployer"], ["patch"], ["deployments"], ["apps"], ["prod"], ["web"])


def test_rbac_forbidden_at_cluster_scope_and_the_old_wording() -> None:
    f = read_fields('nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" '
                    "at the cluster scope")
    assert f["k8s.group"] == ["core"] and "k8s.namespace" not in f and f["k8s.resource"] == ["nodes"]
    f = read_fields('User "alice" cannot list pods in the namespace "default"')
    assert (f["k8s.verb"], f["k8s.resource"], f["k8s.namespace"]) == (["list"], ["pods"], ["default"])


def test_unknown_kind_and_version() -> None:
    f = read_fields('error: resource mapping not found for name: "default" namespace: "" from "np.yaml": no matches '
                    'for kind "NodePool" in version "karpenter.sh/v1beta1"')
    assert (f["crd.kind"], f["crd.version"]) == (["NodePool"], ["karpenter.sh/v1beta1"])
    assert f["component"] == ["Karpenter"]


def test_webhooks_admission_and_conversion() -> None:
    f = read_fields('Internal error occurred: failed calling webhook "mservice.elbv2.k8s.aws": failed to call '
                    'webhook: Post "https://aws-load-balancer-webhook-service.kube-system.svc:443/mutate-v1-service?'
                    'timeout=10s": no endpoints available for service "aws-load-balancer-webhook-service"')
    assert f["webhook"] == ["mservice.elbv2.k8s.aws"] and f["webhook.type"] == ["admission"]
    assert f["component"] == ["AWS Load Balancer Controller"]
    f = read_fields('conversion webhook for karpenter.sh/v1beta1, Kind=NodePool failed: Post "https://karpenter.'
                    'kube-system.svc:8443/conversion/karpenter.sh?timeout=30s": service "karpenter" not found')
    assert f["webhook.type"] == ["conversion"] and f["webhook"] == ["karpenter.sh/v1beta1, Kind=NodePool"]
    assert "Karpenter" in f["component"]


def test_terraform_address_and_helm_action() -> None:
    f = fields_of("\u2577\n\u2502 Error: creating EKS Node Group (prod:ng): operation error EKS: CreateNodegroup, "
                  "https response error StatusCode: 400\n\u2502 \n\u2502   with module.eks.module.eks_managed_node_"
                  'group["default"].aws_eks_node_group.this[0],\n\u2502   on main.tf line 3, in resource '
                  '"aws_eks_node_group" "this":\n\u2575')
    assert f["tf.address"] == ['module.eks.module.eks_managed_node_group["default"].aws_eks_node_group.this[0]']
    assert f["tf.resource"] == ["aws_eks_node_group"] and "Terraform" in f["component"]
    assert (f["aws.service"], f["aws.operation"]) == (["EKS"], ["CreateNodegroup"])
    f = read_fields("Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress")
    assert f["helm.action"] == ["upgrade"] and f["component"] == ["Helm"]


def test_event_reason_and_go_error_chain() -> None:
    f = read_fields('  Warning  FailedCreatePodSandBox  2m  kubelet  Failed to create pod sandbox: rpc error: code = '
                    'Unknown desc = failed to setup network for sandbox "abc": plugin type="aws-cni" failed (add): '
                    "add cmd: failed to assign an IP address to container")
    assert f["event.reason"] == ["FailedCreatePodSandBox"]
    assert f["error.root"] == ["failed to assign an IP address to container"]


def test_components_of_hints() -> None:
    assert components_of("ebs-csi-controller-sa") == ["EBS CSI driver"]
    assert components_of("nothing here") == []


def test_describe_puts_what_was_read_into_words() -> None:
    per, comps = paste_fields(read(
        '{"level":"ERROR","logger":"controller","controller":"nodeclass","message":"Reconciler error","error":'
        '"AccessDenied: User: arn:aws:sts::111122223333:assumed-role/prod-karpenter/s is not authorized to perform: '
        'iam:PassRole on resource: arn:aws:iam::111122223333:role/nodes"}'))
    said = describe(per, comps)
    assert said[0] == "AWS denied `iam:PassRole` to role `prod-karpenter`, from Karpenter"


def test_a_long_hostile_line_costs_its_length() -> None:
    line = "User " + "a" * 19000 + " cannot " + "b" * 5000
    assert read_fields(line) == {} or "k8s.verb" not in read_fields(line)
    read_fields("x" * 30000 + " is forbidden: " + 'User "u" cannot get resource "pods"')


def test_a_registrys_401_is_not_the_kubernetes_apis_answer() -> None:
    f = read_fields('Failed to pull image "ghcr.io/a/b:1": failed to resolve reference "ghcr.io/a/b:1": '
                    "failed to authorize: failed to fetch anonymous token: unexpected status: 401 Unauthorized")
    assert "k8s.reason" not in f
    assert read_fields("Error: Unauthorized")["k8s.reason"] == ["Unauthorized"]


def test_every_component_hint_is_gated_by_a_literal_its_matches_contain() -> None:
    from troubleshoot.engine.components import _COMPONENT_HINTS, _COMPONENT_KEYS

    samples = {
        "Karpenter": ["karpenter", "NodeClaim", "nodepool", "EC2NodeClass", "provisioner", "controller.provisioning"],
        "VPC CNI": ["aws-node", "ipamd", "ipamd.go", "aws-cni", "amazon-vpc-cni", "AmazonEKS_CNI_Policy"],
        "kubelet": ["kubelet", "kubelet.go", "kuberuntime_manager.go", "pod_workers.go"],
        "Terraform": ["with module.eks", "main.tf line 3", "terraform"],
    }
    assert set(_COMPONENT_KEYS) == {name for name, _ in _COMPONENT_HINTS}
    for name, texts in samples.items():
        for text in texts:
            assert name in components_of(text), (name, text)
