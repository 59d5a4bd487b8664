"""Catalogue of the problem codes the analysers emit.

Codes are stable identifiers (``Area.Cause``) meant to be linked to
knowledge-base articles; the text here is a one-line description for UIs
and for people writing those links.
"""

from __future__ import annotations

PROBLEM_CODES: dict[str, str] = {
    # scheduling (Pod)
    "FailedScheduling.UntoleratedTaint": "Nodes carry a taint the pod does not tolerate.",
    "FailedScheduling.InsufficientResources": "No node has enough free cpu/memory/pods/ephemeral-storage/GPU.",
    "FailedScheduling.TooManyPods": "Nodes are at their maximum pod count.",
    "FailedScheduling.NodeAffinity": "No node matches the pod's node affinity or nodeSelector.",
    "FailedScheduling.PodAffinity": "Pod (anti-)affinity rules rule out every node.",
    "FailedScheduling.TopologySpread": "Topology spread constraints rule out every node.",
    "FailedScheduling.UnboundPVC": "The pod uses PersistentVolumeClaims that are not bound.",
    "FailedScheduling.VolumeNodeAffinityConflict": "The pod's volume lives in another zone than the nodes.",
    "FailedScheduling.NodeUnschedulable": "Nodes are cordoned (unschedulable).",
    "FailedScheduling.PortConflict": "Requested host ports are taken on every node.",
    "FailedScheduling.VolumeLimits": "Nodes reached their attachable volume limit.",
    "FailedScheduling.NoNodes": "The cluster has no nodes to schedule on.",
    "FailedScheduling.FargateProfile": "The Fargate profile is misconfigured or blocked.",
    "FailedScheduling.Other": "Scheduling failed for a reason not classified above.",
    "Karpenter.IncompatibleNodePool": "Karpenter found no NodePool compatible with the pod.",
    "Pod.Pending": "The pod is Pending and the input does not say why.",
    # containers (Pod)
    "CrashLoopBackOff": "A container keeps exiting; no termination detail in the input.",
    "CrashLoopBackOff.OOMKilled": "A container keeps being OOMKilled (exit code 137).",
    "CrashLoopBackOff.ExitCode": "A container keeps exiting with an error code.",
    "CrashLoopBackOff.ProbeFailure": "A container is restarted because its liveness/startup probe fails.",
    "ImagePull.NotFound": "The image or tag does not exist.",
    "ImagePull.Unauthorized": "The registry refused the pull (credentials / permissions).",
    "ImagePull.RateLimited": "The registry rate-limited pulls (e.g. Docker Hub).",
    "ImagePull.WrongArchitecture": "The image has no variant for the node's CPU architecture.",
    "ImagePull.Network": "The registry could not be reached.",
    "ImagePull.InvalidName": "The image reference is malformed.",
    "ImagePull.Other": "The image could not be pulled; no detail in the input.",
    "CreateContainerConfigError.MissingSecret": "A referenced Secret does not exist.",
    "CreateContainerConfigError.MissingConfigMap": "A referenced ConfigMap does not exist.",
    "CreateContainerConfigError.MissingKey": "A referenced key is missing from a Secret/ConfigMap.",
    "CreateContainerConfigError.Other": "The container configuration could not be prepared.",
    "Probe.NotReady": "The pod runs but its readiness probe fails.",
    "Pod.NotReady": "The pod runs but not all containers are ready.",
    "Pod.Evicted": "The kubelet evicted the pod (node resource pressure).",
    "Pod.FailedMount": "A volume could not be attached or mounted.",
    "Pod.SandboxCreationFailed": "The pod sandbox (network, IP address) could not be created.",
    "Pod.Terminating": "The pod is being deleted.",
    "Pod.ContainerCreating": "The pod is stuck in ContainerCreating and the input does not say why.",
    "Container.Restarts": "A container runs but has restarted many times after failing.",
    "Container.OOMKilled": "A container runs but was OOMKilled (exit code 137) before its last restart.",
    # events and logs
    "Event.Warning": "A warning event that no other rule explains (one finding per reason and message).",
    "Log.Error": "An error in a controller, kubelet or application log (one finding per message).",
    # nodes
    "Node.NotReady": "The kubelet reports the node NotReady.",
    "Node.Unknown": "The kubelet stopped posting node status.",
    "Node.MemoryPressure": "The node is low on memory.",
    "Node.DiskPressure": "The node is low on disk space.",
    "Node.PIDPressure": "The node is running out of process IDs.",
    "Node.NetworkUnavailable": "The node's pod network is not configured.",
    "Node.Unschedulable": "The node is cordoned.",
    "Node.TaintNotTolerated": "Node taints that pending pods in the input do not tolerate.",
    # karpenter
    "NodeClaim.NotLaunched": "Karpenter could not launch an instance for the NodeClaim.",
    "NodeClaim.NotRegistered": "The instance launched but its node never joined the cluster.",
    "NodeClaim.NotInitialized": "The node joined but did not finish initialising.",
    "NodeClaim.NotReady": "The NodeClaim is not Ready.",
    "NodeClaim.Drifted": "The NodeClaim drifted from its NodePool/EC2NodeClass and will be replaced.",
    "NodeClaim.UnregisteredTaintNotFound": "The node joined without the karpenter.sh/unregistered taint "
                                           "(custom AMI / userData), so Karpenter never registers it.",
    "Karpenter.ConsolidationBlocked": "Karpenter may not consolidate or disrupt the node (PDB, do-not-disrupt, ...).",
    "NodePool.LimitReached": "The NodePool reached one of its spec.limits: Karpenter launches no more nodes from it.",
    "NodeClaim.Warning": "The NodeClaim has warning events.",
    "NodePool.NotReady": "The NodePool is not Ready (e.g. its node class is not ready).",
    "EC2NodeClass.NotReady": "The EC2NodeClass is not Ready (subnets, security groups, AMIs, role).",
    # storage and workloads
    "PVC.Pending": "The PersistentVolumeClaim is not bound.",
    "PVC.Lost": "The PersistentVolumeClaim lost its volume.",
    "Deployment.ProgressDeadlineExceeded": "The rollout stopped progressing.",
    "Deployment.ReplicaFailure": "The Deployment cannot create pods.",
    "Deployment.Unavailable": "Fewer replicas are available than desired.",
    "ReplicaSet.FailedCreate": "The ReplicaSet cannot create pods (quota, admission, ...).",
}
