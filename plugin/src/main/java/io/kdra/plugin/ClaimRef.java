package io.kdra.plugin;

/**
 * A ResourceClaim as the kubelet names it in a NodeUnprepareResources call: the claim object may be gone already, so
 * this is all a driver gets.
 *
 * @param namespace the claim's namespace
 * @param name the claim's name
 * @param uid the claim's UID; responses are keyed by it
 */
public record ClaimRef(String namespace, String name, String uid) {

    /** {@code <namespace>/<name>}. */
    @Override
    public String toString() {
        return namespace + "/" + name;
    }
}
