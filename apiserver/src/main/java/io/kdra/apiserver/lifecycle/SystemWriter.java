package io.kdra.apiserver.lifecycle;

import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.auth.UserInfo;
import io.kdra.apiserver.registry.DeleteOptions;
import io.kdra.apiserver.registry.Registry;
import io.kdra.apiserver.registry.WriteContext;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The writes controllers make, as a system identity. A target that vanished or changed meanwhile is not an error
 * (the change that caused it arrives as its own event); anything else is logged.
 */
final class SystemWriter {

    private static final Logger LOG = LoggerFactory.getLogger(SystemWriter.class);
    private static final WriteContext CONTEXT = new WriteContext(
            new UserInfo("system:kube-controller-manager", "", List.of("system:authenticated"), Map.of()), false,
            "kube-controller-manager");

    private final Registry registry;

    SystemWriter(Registry registry) {
        this.registry = registry;
    }

    Registry registry() {
        return registry;
    }

    void delete(ResourceType type, String namespace, String name, String uid, String propagation) {
        run(() -> registry.delete(type, namespace, name, new DeleteOptions(null, propagation, uid, null), CONTEXT),
                "delete", type, name);
    }

    void patch(ResourceType type, String namespace, String name, boolean status, UnaryOperator<ObjectNode> change) {
        run(() -> registry.patch(type, namespace, name, change, CONTEXT, status, false, true), "update", type, name);
    }

    private static void run(Runnable write, String verb, ResourceType type, String name) {
        try {
            write.run();
        } catch (ApiException e) {
            if (e.code() != 404 && e.code() != 409) {
                LOG.warn("cannot {} {} {}: {}", verb, type.groupResource(), name, e.getMessage());
            }
        }
    }
}
