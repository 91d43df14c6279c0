package io.kdra.apiserver.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.V1;
import io.kubernetes.client.proto.V1Admissionregistration;
import io.kubernetes.client.proto.V1Apps;
import io.kubernetes.client.proto.V1Authentication;
import io.kubernetes.client.proto.V1Authorization;
import io.kubernetes.client.proto.V1Autoscaling;
import io.kubernetes.client.proto.V1Batch;
import io.kubernetes.client.proto.V1Coordination;
import io.kubernetes.client.proto.V1Events;
import io.kubernetes.client.proto.V1Policy;
import io.kubernetes.client.proto.V1Rbac;
import io.kubernetes.client.proto.V1Resource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The message descriptor of each kind, read from the upstream {@code generated.proto} files that client-java-proto
 * publishes: a file's package ({@code k8s.io.api.apps.v1}) names the group and version of its messages. The meta/v1
 * kinds that every group version registers (Status, DeleteOptions, WatchEvent) are found under any apiVersion.
 */
final class ProtoKinds {

    /** Groups whose names have no {@code .k8s.io} suffix, and the one whose package name is shortened. */
    private static final Set<String> BARE_GROUPS = Set.of("apps", "batch", "policy", "autoscaling");
    private static final Map<String, String> RENAMED_GROUPS = Map.of("rbac", "rbac.authorization.k8s.io");
    private static final Set<String> EVERY_VERSION = Set.of("Status", "DeleteOptions", "WatchEvent");

    private static final Map<String, Descriptor> BY_API_VERSION_AND_KIND = index(List.of(V1.getDescriptor(),
            V1Apps.getDescriptor(), V1Batch.getDescriptor(), V1Coordination.getDescriptor(), V1Events.getDescriptor(),
            V1Policy.getDescriptor(), V1Rbac.getDescriptor(), V1Admissionregistration.getDescriptor(),
            V1Resource.getDescriptor(), V1Autoscaling.getDescriptor(), V1Authorization.getDescriptor(),
            V1Authentication.getDescriptor()));

    private ProtoKinds() {}

    /** @return the message of the kind, e.g. ({@code apps/v1}, {@code Deployment}) */
    static Optional<Descriptor> find(String apiVersion, String kind) {
        if (EVERY_VERSION.contains(kind)) {
            return Optional.of(Meta.getDescriptor().findMessageTypeByName(kind));
        }
        return Optional.ofNullable(BY_API_VERSION_AND_KIND.get(apiVersion + "/" + kind));
    }

    static String group(String apiVersion) {
        int slash = apiVersion.lastIndexOf('/');
        return slash < 0 ? "" : apiVersion.substring(0, slash);
    }

    static String version(String apiVersion) {
        return apiVersion.substring(apiVersion.lastIndexOf('/') + 1);
    }

    private static Map<String, Descriptor> index(List<FileDescriptor> files) {
        Map<String, Descriptor> index = new HashMap<>();
        for (FileDescriptor file : files) {
            String apiVersion = apiVersion(file.getPackage());
            for (Descriptor message : file.getMessageTypes()) {
                index.put(apiVersion + "/" + message.getName(), message);
            }
        }
        return Map.copyOf(index);
    }

    /** @param protoPackage e.g. {@code k8s.io.api.core.v1}, {@code k8s.io.api.rbac.v1} */
    private static String apiVersion(String protoPackage) {
        String[] parts = protoPackage.split("\\.");
        String name = parts[parts.length - 2];
        String version = parts[parts.length - 1];
        if (name.equals("core")) {
            return version;
        }
        String group = RENAMED_GROUPS.getOrDefault(name, BARE_GROUPS.contains(name) ? name : name + ".k8s.io");
        return group + "/" + version;
    }
}
