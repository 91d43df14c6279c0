package io.kdra.apiserver.resource;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The request names of a claim, for references from constraints, configs and allocation results: {@code <request>}
 * or {@code <request>/<subrequest>}.
 */
final class RequestNames {

    static final String REFERENCE_MESSAGE = "must be the name of a request in the claim or the name of a request "
            + "and a subrequest separated by '/'";

    /** Request name to its subrequest names; null for a request without subrequests. */
    private final Map<String, Set<String>> names;

    private RequestNames(Map<String, Set<String>> names) {
        this.names = names;
    }

    /** @param devices the claim's {@code spec.devices}, possibly null */
    static RequestNames of(JsonNode devices) {
        Map<String, Set<String>> names = new HashMap<>();
        JsonNode requests = JsonNodes.get(devices, "requests");
        for (JsonNode request : requests != null && requests.isArray() ? requests.values() : List.<JsonNode>of()) {
            String name = request.path("name").asString("");
            JsonNode firstAvailable = request.get("firstAvailable");
            if (firstAvailable == null || !firstAvailable.isArray() || firstAvailable.isEmpty()) {
                names.put(name, null);
                continue;
            }
            Set<String> subrequests = new HashSet<>();
            firstAvailable.values().forEach(subrequest -> subrequests.add(subrequest.path("name").asString("")));
            names.put(name, subrequests);
        }
        return new RequestNames(names);
    }

    boolean has(String reference) {
        String[] segments = reference.split("/", -1);
        if (segments.length > 2 || !names.containsKey(segments[0])) {
            return false;
        }
        if (segments.length == 1) {
            return true;
        }
        Set<String> subrequests = names.get(segments[0]);
        return subrequests != null && subrequests.contains(segments[1]);
    }

    /** {@code validateRequestNameRef}. */
    void checkReference(ValidationRun run, String reference, FieldPath path) {
        String[] segments = reference.split("/", -1);
        if (segments.length > 2) {
            run.add(FieldErrors.invalid(path, reference, REFERENCE_MESSAGE));
            return;
        }
        for (String segment : segments) {
            FieldChecks.dnsLabel(run, segment, path);
        }
        if (!has(reference)) {
            run.add(FieldErrors.invalid(path, reference, REFERENCE_MESSAGE));
        }
    }
}
