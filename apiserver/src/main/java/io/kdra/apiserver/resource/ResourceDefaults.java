package io.kdra.apiserver.resource;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The defaults kube-apiserver applies when it decodes a resource.k8s.io object ({@code SetDefaults_*} of each
 * version): exact requests and subrequests get {@code allocationMode: ExactCount} and {@code count: 1},
 * tolerations {@code operator: Equal}, device taints a {@code timeAdded} of now (whole seconds).
 *
 * <p>They apply to an object in the version it was sent in, before conversion and validation; validation relies on
 * them (an exact request without allocation mode is invalid). In v1beta1, a request without a device class gets no
 * defaults, because it is meant to have subrequests.
 */
final class ResourceDefaults {

    private ResourceDefaults() {
    }

    /** @return a function that returns a defaulted copy of an object of the kind, in any served version */
    static UnaryOperator<ObjectNode> forKind(String kind, Clock clock) {
        return object -> {
            ObjectNode copy = object.deepCopy();
            boolean v1beta1 = copy.path("apiVersion").asString("").equals(ResourceConverter.GROUP + "/v1beta1");
            switch (kind) {
                case ResourceKinds.RESOURCE_CLAIM -> {
                    claimDevices(copy.at("/spec/devices"), v1beta1);
                    each(copy.at("/status/allocation/devices/results"), ResourceDefaults::tolerations);
                }
                case ResourceKinds.RESOURCE_CLAIM_TEMPLATE -> claimDevices(copy.at("/spec/spec/devices"), v1beta1);
                case ResourceKinds.RESOURCE_SLICE -> each(copy.at("/spec/devices"), device -> {
                    JsonNode fields = v1beta1 ? device.get("basic") : device;
                    each(JsonNodes.get(fields, "taints"), taint -> timeAdded(taint, clock));
                });
                case ResourceKinds.DEVICE_TAINT_RULE -> {
                    if (copy.at("/spec/taint") instanceof ObjectNode taint) {
                        timeAdded(taint, clock);
                    }
                }
                default -> {
                    // DeviceClass has no defaults.
                }
            }
            return copy;
        };
    }

    private static void claimDevices(JsonNode devices, boolean v1beta1) {
        each(JsonNodes.get(devices, "requests"), request -> {
            if (v1beta1) {
                if (!request.path("deviceClassName").asString("").isEmpty()) {
                    exactDefaults(request);
                } else {
                    tolerations(request);
                }
            } else if (request.get("exactly") instanceof ObjectNode exactly) {
                exactDefaults(exactly);
            }
            each(request.get("firstAvailable"), ResourceDefaults::exactDefaults);
        });
    }

    private static void exactDefaults(ObjectNode request) {
        if (request.path("allocationMode").asString("").isEmpty()) {
            request.put("allocationMode", "ExactCount");
        }
        if (request.path("allocationMode").asString("").equals("ExactCount") && request.path("count").asLong(0) == 0) {
            request.put("count", 1);
        }
        tolerations(request);
    }

    private static void tolerations(ObjectNode parent) {
        each(parent.get("tolerations"), toleration -> {
            if (toleration.path("operator").asString("").isEmpty()) {
                toleration.put("operator", "Equal");
            }
        });
    }

    private static void timeAdded(ObjectNode taint, Clock clock) {
        JsonNode timeAdded = taint.get("timeAdded");
        if (timeAdded == null || timeAdded.isNull()) {
            taint.put("timeAdded", Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString());
        }
    }

    private static void each(JsonNode list, Consumer<ObjectNode> action) {
        if (list != null && list.isArray()) {
            list.values().forEach(item -> {
                if (item instanceof ObjectNode object) {
                    action.accept(object);
                }
            });
        }
    }
}
