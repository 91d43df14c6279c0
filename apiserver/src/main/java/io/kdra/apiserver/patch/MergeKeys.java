package io.kdra.apiserver.patch;

import java.util.Map;
import java.util.Set;

/**
 * The list semantics of the built-in kinds that strategic merge patch and server-side apply need: lists merged by
 * a key field (containers by name, conditions by type ...) and lists of scalars merged as sets (finalizers).
 * Every other list is atomic: a patch replaces it whole. Keyed by the list's field name.
 */
public final class MergeKeys {

    private static final Map<String, String> KEYS = Map.ofEntries(
            Map.entry("containers", "name"),
            Map.entry("initContainers", "name"),
            Map.entry("ephemeralContainers", "name"),
            Map.entry("env", "name"),
            Map.entry("ports", "containerPort"),
            Map.entry("volumeMounts", "mountPath"),
            Map.entry("volumeDevices", "devicePath"),
            Map.entry("volumes", "name"),
            Map.entry("imagePullSecrets", "name"),
            Map.entry("resourceClaims", "name"),
            Map.entry("schedulingGates", "name"),
            Map.entry("topologySpreadConstraints", "topologyKey"),
            Map.entry("hostAliases", "ip"),
            Map.entry("podIPs", "ip"),
            Map.entry("hostIPs", "ip"),
            Map.entry("conditions", "type"),
            Map.entry("addresses", "type"),
            Map.entry("ownerReferences", "uid"),
            Map.entry("reservedFor", "uid"));

    private static final Set<String> SETS = Set.of("finalizers");

    private MergeKeys() {}

    /** @return the merge key of the list field, or null when the list is not merged by key */
    public static String keyOf(String field) {
        return KEYS.get(field);
    }

    /** @return whether the list field holds scalars merged as a set */
    public static boolean isSet(String field) {
        return SETS.contains(field);
    }
}
