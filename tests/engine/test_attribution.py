"""Who an article is written for, and who printed a paste: the rules that keep answers on the right controller."""

from __future__ import annotations

from troubleshoot.engine.attribution import conflicts, display, owners
from troubleshoot.engine.components import components_of
from troubleshoot.engine.explain import why
from troubleshoot.engine.reader import clean, read


def test_an_article_is_owned_by_the_controllers_its_slug_names() -> None:
    assert owners("karpenter-iam-denied", ["Karpenter", "IAM", "EC2"]) == {"karpenter"}
    assert owners("ingress-nginx-errors", ["ingress-nginx", "Kubernetes", "Helm"]) == {"ingressnginx"}


def test_a_mechanism_article_listing_controllers_as_examples_is_owned_by_none() -> None:
    # rbac-forbidden lists Helm, x509 lists Helm: a forbidden call by Karpenter or an ALB webhook's
    # certificate are still theirs
    assert owners("rbac-forbidden", ["Kubernetes", "EKS", "Helm"]) == frozenset()
    assert owners("x509-unknown-authority", ["Kubernetes", "containerd", "Helm"]) == frozenset()
    assert not conflicts(owners("rbac-forbidden", ["Kubernetes", "Helm"]), ["karpenter"])


def test_an_owned_article_also_covers_the_controllers_its_messages_name() -> None:
    named = components_of('failed calling webhook "webhook.cert-manager.io"')
    own = owners("helm-release-state", ["Helm", "Terraform"], named)
    assert own == {"helm", "certmanager"}  # Terraform is listed, but the slug is about Helm
    assert not conflicts(own, ["certmanager"])
    assert conflicts(owners("karpenter-iam-denied", ["Karpenter"]), ["vpccni"])


def test_the_load_balancer_controllers_reconcilers_name_it() -> None:
    line = ('{"level":"error","logger":"controller","msg":"Reconciler error","controller":"ingress",'
            '"name":"web","namespace":"default","error":"UnauthorizedOperation: You are not authorized"}')
    (first, *_) = read(line)
    assert "controller=ingress" in first.source
    assert components_of(first.source) == ["AWS Load Balancer Controller"]
    assert components_of("controller=targetGroupBinding") == ["AWS Load Balancer Controller"]
    assert components_of("controller=nodeclaim.disruption") != ["AWS Load Balancer Controller"]


def test_a_conflict_is_explained_with_the_components_usual_name() -> None:
    assert display("awsloadbalancercontroller") == "AWS Load Balancer Controller"
    text = why([], [], ["awsloadbalancercontroller"])[-1]
    assert text.endswith("(AWS Load Balancer Controller)")


def test_links_rendered_by_markdown_are_read_as_the_bare_address() -> None:
    raw = ('Post "[https://svc.ns.svc:443/validate?timeout=10s](https://svc.ns.svc/validate?timeout=10s)": '
           "x509: certificate signed by unknown authority")
    assert clean(raw) == 'Post "https://svc.ns.svc:443/validate?timeout=10s": x509: certificate signed by unknown authority'
    assert clean("see [the docs](https://example.com/x)") == "see [the docs](https://example.com/x)"
