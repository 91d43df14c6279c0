package io.kdra.allocator.cel;

import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.RuntimeEquality;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Map;
import java.util.Set;

/**
 * {@code device.attributes} and {@code device.capacity}: domain to name to value. As in Kubernetes, indexing an unknown
 * domain yields an empty map, so {@code device.attributes["other.example.com"].model} is a missing-key error rather
 * than a missing-domain one, while {@code in}, {@code has()} and iteration see only the domains that exist.
 */
final class DomainMap extends AbstractMap<String, Object> {

    private final Map<String, Map<String, Object>> domains;

    DomainMap(Map<String, Map<String, Object>> domains) {
        this.domains = domains;
    }

    @Override
    public Object get(Object domain) {
        Map<String, Object> names = domains.get(domain);
        return names != null ? names : Map.of();
    }

    @Override
    public boolean containsKey(Object domain) {
        return domains.containsKey(domain);
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return Collections.<String, Object>unmodifiableMap(domains).entrySet();
    }

    /**
     * Replaces the standard {@code in} on maps: cel-java answers {@code in} through {@link #get}, which would report
     * every domain as present.
     */
    static CelFunctionBinding inMapBinding(RuntimeEquality equality) {
        return CelFunctionBinding.from("in_map", Object.class, Map.class, (key, map) -> equality
                .findInMap(map instanceof DomainMap domainMap ? domainMap.domains : map, key)
                .isPresent());
    }
}
