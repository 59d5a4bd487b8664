"""Versions read from real output, under the KB's component names."""

from __future__ import annotations

from pathlib import Path

from troubleshoot.versions import read_versions, readings

KUBECTL_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kubectl"


def test_kubectl_version_short_gives_kubectl_and_kubernetes(version_text):
    assert read_versions(version_text("kubectl-version-short.txt")) == {"kubectl": "1.26.1", "Kubernetes": "1.26.0"}


def test_kubectl_version_as_yaml_and_as_version_info(version_text):
    assert read_versions(version_text("kubectl-version-client-yaml.txt")) == {"kubectl": "1.25.4"}
    assert read_versions(version_text("kubectl-version-info.txt")) == {"kubectl": "1.8.5", "Kubernetes": "1.8.5"}


def test_an_eks_server_version_also_names_the_eks_version():
    text = "Client Version: v1.30.2\nServer Version: v1.29.6-eks-db838b0\n"
    assert read_versions(text) == {"kubectl": "1.30.2", "Kubernetes": "1.29.6", "EKS": "1.29"}


def test_container_images_name_the_add_ons(version_text):
    assert read_versions(version_text("karpenter-image-jsonpath.txt")) == {"Karpenter": "1.5.0"}
    text = (
        "    Image:          public.ecr.aws/karpenter/controller:1.1.1@sha256:4a3b0f1c2d\n"
        "    Image:          602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni:v1.18.3-eksbuild.1\n"
        "  - image: public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.35.0\n"
        "    image: 602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/coredns:v1.11.1-eksbuild.9\n"
        "    Image:          public.ecr.aws/eks/aws-load-balancer-controller:v2.8.1\n"
        "    Image:          ghcr.io/acme/inventory-sync:0.9.3\n"
    )
    assert read_versions(text) == {"Karpenter": "1.1.1", "VPC CNI": "1.18.3", "EBS CSI driver": "1.35.0",
                                   "CoreDNS": "1.11.1", "AWS Load Balancer Controller": "2.8.1"}


def test_helm_chart_labels_of_a_chart_versioned_like_its_app(version_text):
    assert read_versions(version_text("karpenter-chart-labels.yaml")) == {"Karpenter": "1.3.3"}
    assert read_versions("    helm.sh/chart: karpenter-1.0.5\n") == {"Karpenter": "1.0.5"}
    # the EBS CSI driver chart has its own numbering: its chart label says nothing of the driver
    assert read_versions("    helm.sh/chart: aws-ebs-csi-driver-2.35.1\n") == {}


def test_helm_list_gives_the_app_version():
    text = ("NAME      \tNAMESPACE  \tREVISION\tUPDATED                              \tSTATUS  \tCHART          "
            "\tAPP VERSION\n"
            "karpenter \tkube-system\t3       \t2024-10-02 09:12:44.1 +0000 UTC\tdeployed\tkarpenter-1.0.5\t1.0.5\n")
    assert read_versions(text) == {"Karpenter": "1.0.5"}


def test_terraform_init_names_the_module_and_the_providers(version_text):
    assert read_versions(version_text("terraform-init.txt")) == {
        "Terraform AWS EKS module": "20.24.0", "terraform-provider-aws": "5.70.0",
        "terraform-provider-kubernetes": "2.32.0", "terraform-provider-helm": "2.15.0"}


def test_a_terraform_module_block_pins_or_constrains_the_version():
    pinned = 'module "eks" {\n  source  = "terraform-aws-modules/eks/aws"\n  version = "20.8.4"\n'
    assert read_versions(pinned) == {"Terraform AWS EKS module": "20.8.4"}
    constrained = 'module "eks" {\n  source  = "terraform-aws-modules/eks/aws"\n  version = "~> 20.0"\n'
    assert read_versions(constrained) == {"Terraform AWS EKS module": "~> 20.0"}


def test_describe_node_gives_kubelet_kubernetes_eks_and_containerd():
    text = (KUBECTL_FIXTURES / "describe-node-notready.txt").read_text(encoding="utf-8")
    assert read_versions(text) == {"kubelet": "1.29.3", "Kubernetes": "1.29.3", "EKS": "1.29",
                                   "containerd": "1.7.11"}


def test_get_nodes_wide_version_column():
    text = (KUBECTL_FIXTURES / "get-nodes-wide.txt").read_text(encoding="utf-8")
    found = read_versions(text)
    assert found["kubelet"] and found["Kubernetes"] == found["kubelet"]


def test_eks_platform_version_with_the_cluster_version():
    text = ('{\n    "cluster": {\n        "name": "prod",\n        "version": "1.30",\n'
            '        "platformVersion": "eks.12",\n        "status": "ACTIVE"\n    }\n}\n')
    assert read_versions(text) == {"EKS": "1.30", "Kubernetes": "1.30"}


def test_eks_ami_names_give_the_kubernetes_minor_version():
    text = (KUBECTL_FIXTURES / "nodepool.yaml").read_text(encoding="utf-8")
    found = read_versions(text)
    assert found["EKS"] == "1.29" and found["Kubernetes"] == "1.29"
    assert read_versions("  imageId: bottlerocket-aws-k8s-1.30-x86_64-v1.21.1-82691b51\n")["EKS"] == "1.30"


def test_an_api_version_dates_the_karpenter_release():
    assert read_versions("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\n") == {"Karpenter": ">=0.32.0 <1.1.0"}
    assert read_versions("apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\n") == {"Karpenter": "<0.33.0"}
    # describe prints it as "API Version"
    assert read_versions("API Version:  karpenter.sh/v1\nKind:         NodeClaim\n") == {"Karpenter": ">=0.33.0"}


def test_an_image_tag_beats_what_an_api_version_suggests():
    text = "apiVersion: karpenter.sh/v1beta1\n    image: public.ecr.aws/karpenter/controller:0.37.5\n"
    assert read_versions(text) == {"Karpenter": "0.37.5"}


def test_two_exact_versions_read_as_the_span_between_them():
    text = ("    helm.sh/chart: karpenter-1.0.5\n"
            "    image: public.ecr.aws/karpenter/controller:1.1.1@sha256:0123456789ab\n")
    assert read_versions(text) == {"Karpenter": ">=1.0.5 <=1.1.1"}


def test_readings_say_where_each_version_came_from():
    (reading,) = readings("Server Version: v1.26.0\n")
    assert (reading.component, reading.version, reading.source) == ("Kubernetes", "1.26.0", "kubectl version (server)")


def test_text_without_versions_reads_nothing():
    assert read_versions("") == {}
    assert read_versions("0/3 nodes are available: 3 Insufficient cpu.\n") == {}
