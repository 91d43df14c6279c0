package io.kdra.framework.conformance;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * How to test one API endpoint with {@link TestResource} (upstream's {@code e2econformance.ResourceTestcase}): the
 * initial object, how to update its spec and status, and patches that make the same changes. Objects are generic
 * (JSON maps), as upstream's test works on unstructured objects.
 *
 * @param apiVersion for example {@code resource.k8s.io/v1}
 * @param kind for example {@code DeviceClass}
 * @param resource the plural resource name, for example {@code deviceclasses}
 * @param namespaced whether objects live in the spec's namespace; cluster-scoped names get {@code -<namespace>}
 * @param initial the object to create (its name defaults to {@code test})
 * @param updateSpec changes the created object, ideally its spec, else a label
 * @param updateStatus adds a status, or {@code null} when the resource has no status subresource
 * @param specPatches patches that make the same change as {@code updateSpec}, each applied to a fresh object
 * @param statusPatches patches of the status, each applied to a fresh object with the updated spec
 */
public record ResourceTestcase(String apiVersion, String kind, String resource, boolean namespaced,
        GenericKubernetesResource initial, UnaryOperator<GenericKubernetesResource> updateSpec,
        UnaryOperator<GenericKubernetesResource> updateStatus, List<Patch> specPatches, List<Patch> statusPatches) {

    /** The kinds of patch the API accepts. */
    public enum PatchKind { STRATEGIC_MERGE, APPLY, JSON_MERGE, JSON }

    /**
     * One patch. Strategic merge, apply and JSON merge patches get the existing object's apiVersion, kind, name,
     * namespace and UID added, so that they are complete and cannot patch a replaced object.
     *
     * @param kind the patch type
     * @param body the patch as JSON
     */
    public record Patch(PatchKind kind, String body) {
    }

    public ResourceTestcase {
        Objects.requireNonNull(initial, "initial");
        Objects.requireNonNull(updateSpec, "updateSpec");
        specPatches = List.copyOf(specPatches);
        statusPatches = List.copyOf(statusPatches);
    }

    boolean hasStatus() {
        return updateStatus != null;
    }
}
