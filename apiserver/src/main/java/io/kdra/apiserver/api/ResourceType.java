package io.kdra.apiserver.api;

import java.util.List;
import java.util.Set;

/**
 * One served resource: where it lives in the URL space, what its objects are called and which versions and
 * subresources it has. Objects are stored in {@link #storageVersion()}; the other {@link #versions()} are served by
 * conversion. A resource may instead serve the objects another one stores, as kube-apiserver serves events.k8s.io
 * Events from the core Events' storage: then every version is served by conversion to and from the owner's storage
 * version.
 *
 * @param group API group, empty for the core group
 * @param versions served versions, preferred first
 * @param storageVersion the version objects are kept in; with a storage owner, the version converted to and from
 *     the owner's
 * @param kind the object kind, e.g. {@code ResourceClaim}
 * @param plural the URL name, e.g. {@code resourceclaims}
 * @param namespaced whether objects live in a namespace
 * @param shortNames kubectl short names, e.g. {@code po}
 * @param subresources e.g. {@code status}, {@code scale}, {@code binding}, {@code eviction}
 * @param statusOnCreate what happens to {@code status} in a create request
 * @param storageOwner the resource whose stored objects this one serves, or null when it stores its own
 */
public record ResourceType(
        String group,
        List<String> versions,
        String storageVersion,
        String kind,
        String plural,
        boolean namespaced,
        List<String> shortNames,
        List<String> categories,
        Set<String> subresources,
        StatusOnCreate statusOnCreate,
        ResourceType storageOwner) {

    private static final List<String> VERBS =
            List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
    private static final List<String> NAMESPACE_VERBS =
            List.of("create", "delete", "get", "list", "patch", "update", "watch");

    /** How a create request treats the status the client sent, as the kind's strategy upstream does. */
    public enum StatusOnCreate {
        /** status is dropped (kinds with a status subresource, e.g. ResourceClaim) */
        RESET,
        /** status is kept as sent (Node, and kinds without a status subresource) */
        KEEP
    }

    public ResourceType {
        versions = List.copyOf(versions);
        shortNames = List.copyOf(shortNames);
        categories = List.copyOf(categories);
        subresources = Set.copyOf(subresources);
    }

    public String singular() {
        return kind.toLowerCase(java.util.Locale.ROOT);
    }

    public String listKind() {
        return kind + "List";
    }

    /**
     * @return the verbs of the main resource as kube-apiserver lists them; namespaces cannot be deleted as a
     *     collection
     */
    public List<String> verbs() {
        return group.isEmpty() && kind.equals("Namespace") ? NAMESPACE_VERBS : VERBS;
    }

    public boolean hasSubresource(String name) {
        return subresources.contains(name);
    }

    public boolean hasStatus() {
        return subresources.contains("status");
    }

    /** @return e.g. {@code resource.k8s.io/v1}, or {@code v1} for the core group */
    public String apiVersion(String version) {
        return group.isEmpty() ? version : group + "/" + version;
    }

    /** @return the group-qualified resource, e.g. {@code resourceclaims.resource.k8s.io} or {@code pods} */
    public String groupResource() {
        return group.isEmpty() ? plural : plural + "." + group;
    }

    /** @return the group-qualified kind, e.g. {@code ResourceClaim.resource.k8s.io} or {@code Pod} */
    public String groupKind() {
        return group.isEmpty() ? kind : kind + "." + group;
    }

    /** @return the key the store files this resource under, independent of the version; the owner's if it has one */
    public String storageKey() {
        return storageOwner == null ? group + "/" + plural : storageOwner.storageKey();
    }

    /** @return whether this resource keeps its objects itself rather than serving another resource's */
    public boolean ownsStorage() {
        return storageOwner == null;
    }

    /**
     * @return whether objects served in this version are the stored objects as they are (so their stored JSON can
     *     be sent); never for a resource that serves another's objects
     */
    public boolean isStoredIn(String version) {
        return storageOwner == null && storageVersion.equals(version);
    }

    public boolean serves(String version) {
        return versions.contains(version);
    }
}
