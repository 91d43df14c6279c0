package io.kdra.cluster.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.kdra.cluster.kubelet.PodWorkers.ContainerRecord;
import io.kdra.cluster.kubelet.PodWorkers.PodState;
import io.kdra.cluster.kubelet.PodWorkers.Termination;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod status the kubelet writes: phase, the four kubelet conditions with their transition times, host and pod
 * IPs (both 127.0.0.1: processes share the host network), start time, and the init and regular container statuses
 * with upstream's reasons ({@code ContainerCreating}, {@code PodInitializing}, {@code CrashLoopBackOff},
 * {@code Completed}, {@code Error}, {@code CreateContainerError}), the devices' health and the resources in force
 * (the running containers' and, with pod-level resources or devices that add node resources, the pod's).
 */
final class PodStatusWriter {

    private PodStatusWriter() {}

    static Map<String, Object> status(PodState state, DraManager dra) {
        Pod pod = state.pod;
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("phase", state.phase);
        boolean terminal = state.phase.equals("Succeeded") || state.phase.equals("Failed");

        List<String> incomplete = new ArrayList<>();
        List<Map<String, Object>> initStatuses = new ArrayList<>();
        for (Container container : pod.getSpec().getInitContainers()) {
            ContainerRecord record = state.containers.get("init:" + container.getName());
            boolean done = record != null && record.current == null && record.lastTermination != null
                    && record.lastTermination.exitCode() == 0;
            boolean sidecarRunning = PodWorkers.isSidecar(container) && record != null && record.current != null;
            if (!done && !sidecarRunning) {
                incomplete.add(container.getName());
            }
            initStatuses.add(containerStatus(container, record, done || sidecarRunning && !state.killed,
                    "PodInitializing", null));
        }
        List<String> unready = new ArrayList<>();
        List<Map<String, Object>> statuses = new ArrayList<>();
        String waitingReason = pod.getSpec().getInitContainers().isEmpty() || state.initialized
                ? "ContainerCreating" : "PodInitializing";
        for (Container container : pod.getSpec().getContainers()) {
            ContainerRecord record = state.containers.get(container.getName());
            boolean ready = record != null && record.current != null && !state.killed;
            if (!ready) {
                unready.add(container.getName());
            }
            Map<String, Object> containerStatus = containerStatus(container, record, ready, waitingReason,
                    dra.allocatedResourcesStatus(pod, container));
            if (record != null && record.current != null) {
                resources(container.getResources(), containerStatus);
            }
            statuses.add(containerStatus);
        }

        List<Map<String, Object>> conditions = new ArrayList<>();
        conditions.add(condition(state, "PodReadyToStartContainers", state.prepared && !terminal, null, null));
        conditions.add(condition(state, "Initialized", state.initialized, terminal ? "PodCompleted"
                : "ContainersNotInitialized", "containers with incomplete status: " + goList(incomplete)));
        String notReadyReason = terminal ? "PodCompleted" : "ContainersNotReady";
        String notReadyMessage = "containers with unready status: " + goList(unready);
        conditions.add(condition(state, "ContainersReady", unready.isEmpty(), notReadyReason, notReadyMessage));
        conditions.add(condition(state, "Ready", unready.isEmpty(), notReadyReason, notReadyMessage));
        status.put("conditions", conditions);

        status.put("hostIP", ContainerEnvironment.HOST_IP);
        status.put("hostIPs", List.of(Map.of("ip", ContainerEnvironment.HOST_IP)));
        if (state.prepared) {
            status.put("podIP", ContainerEnvironment.HOST_IP);
            status.put("podIPs", List.of(Map.of("ip", ContainerEnvironment.HOST_IP)));
        }
        if (state.startTime != null) {
            status.put("startTime", time(state.startTime));
        }
        if (!initStatuses.isEmpty()) {
            status.put("initContainerStatuses", initStatuses);
        }
        status.put("containerStatuses", statuses);
        podResources(state, status);
        return status;
    }

    /**
     * The pod-level resources in force, for a pod with pod-level resources or with devices that add node resources:
     * {@code allocatedResources} holds the pod's CPU and memory requests with the devices' share, {@code resources}
     * the pod-level resources.
     */
    private static void podResources(PodState state, Map<String, Object> status) {
        if (state.resources == null) {
            return;
        }
        ResourceRequirements podLevel = state.pod.getSpec().getResources();
        boolean podLevelSet = podLevel != null && (!isEmpty(podLevel.getRequests()) || !isEmpty(podLevel.getLimits()));
        boolean devicesAdd = state.claimAllocatable != null
                && state.claimAllocatable.stream().anyMatch(ClaimAllocatable::addsResources);
        if (!podLevelSet && !devicesAdd) {
            return;
        }
        Map<String, Quantity> allocated = new LinkedHashMap<>();
        state.resources.allocatedRequests().forEach((name, amount) -> allocated.put(name,
                new Quantity(name.equals(PodResourceConfig.CPU) ? amount + "m" : Long.toString(amount))));
        status.put("allocatedResources", allocated);
        if (podLevelSet) {
            status.put("resources", requirements(podLevel));
        }
    }

    /** A running container's resources as applied: its spec's requests and limits, the requests as allocated. */
    private static void resources(ResourceRequirements resources, Map<String, Object> status) {
        if (resources == null || isEmpty(resources.getRequests()) && isEmpty(resources.getLimits())) {
            return;
        }
        Map<String, Object> requirements = requirements(resources);
        if (!isEmpty(resources.getRequests())) {
            status.put("allocatedResources", resources.getRequests());
        }
        status.put("resources", requirements);
    }

    private static Map<String, Object> requirements(ResourceRequirements resources) {
        Map<String, Object> requirements = new LinkedHashMap<>();
        if (!isEmpty(resources.getRequests())) {
            requirements.put("requests", resources.getRequests());
        }
        if (!isEmpty(resources.getLimits())) {
            requirements.put("limits", resources.getLimits());
        }
        return requirements;
    }

    private static boolean isEmpty(Map<String, Quantity> list) {
        return list == null || list.isEmpty();
    }

    private static Map<String, Object> containerStatus(Container container, ContainerRecord record, boolean ready,
            String waitingReason, Object allocatedResourcesStatus) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("name", container.getName());
        status.put("image", container.getImage());
        status.put("imageID", "");
        status.put("ready", ready);
        status.put("restartCount", record == null ? 0 : record.restartCount);
        status.put("started", record != null && record.current != null);
        Map<String, Object> state = new LinkedHashMap<>();
        if (record == null || (record.current == null && record.lastTermination == null)) {
            String reason = record != null && record.waitingReason != null ? record.waitingReason : waitingReason;
            state.put("waiting", waiting(reason, record == null ? null : record.waitingMessage));
        } else if (record.current != null) {
            String id = PodWorkers.containerId(record.current.config().podUid(), record.name,
                    record.current.config().attempt());
            status.put("containerID", id);
            status.put("imageID", container.getImage());
            state.put("running", Map.of("startedAt", time(record.current.startedAt())));
            if (record.lastTermination != null) {
                status.put("lastState", Map.of("terminated", terminated(record.lastTermination)));
            }
        } else if (record.waitingReason != null) {
            state.put("waiting", waiting(record.waitingReason, record.waitingMessage));
            status.put("lastState", Map.of("terminated", terminated(record.lastTermination)));
        } else {
            status.put("containerID", record.lastTermination.containerId());
            status.put("imageID", container.getImage());
            state.put("terminated", terminated(record.lastTermination));
        }
        status.put("state", state);
        if (allocatedResourcesStatus != null) {
            status.put("allocatedResourcesStatus", allocatedResourcesStatus);
        }
        return status;
    }

    private static Map<String, Object> waiting(String reason, String message) {
        Map<String, Object> waiting = new LinkedHashMap<>();
        waiting.put("reason", reason);
        if (message != null) {
            waiting.put("message", message);
        }
        return waiting;
    }

    private static Map<String, Object> terminated(Termination termination) {
        Map<String, Object> terminated = new LinkedHashMap<>();
        terminated.put("exitCode", termination.exitCode());
        terminated.put("reason", termination.reason());
        terminated.put("startedAt", time(termination.startedAt()));
        terminated.put("finishedAt", time(termination.finishedAt()));
        terminated.put("containerID", termination.containerId());
        return terminated;
    }

    private static Map<String, Object> condition(PodState state, String type, boolean value, String reason,
            String message) {
        String text = value ? "True" : "False";
        var previous = state.conditions.get(type);
        if (previous == null || !previous.getKey().equals(text)) {
            previous = Map.entry(text, time(Instant.now()));
            state.conditions.put(type, previous);
        }
        Map<String, Object> condition = new LinkedHashMap<>();
        condition.put("type", type);
        condition.put("status", text);
        condition.put("lastProbeTime", null);
        condition.put("lastTransitionTime", previous.getValue());
        // Explicit nulls: a strategic merge patch merges conditions by type and would keep an old reason.
        condition.put("reason", value ? null : reason);
        condition.put("message", value || reason == null ? null : message);
        return condition;
    }

    /** A string list as Go's {@code %v} prints a {@code []string}: {@code [a b]}. */
    private static String goList(List<String> values) {
        return "[" + String.join(" ", values) + "]";
    }

    private static String time(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }
}
