package io.kdra.plugin.metadata;

/**
 * Where device metadata files appear inside a container: a consumer-facing layout, fixed by upstream's
 * {@code k8s.io/dynamic-resource-allocation/api/metadata}. Each driver writes its own file per request, named after the
 * driver, so several drivers serving one request do not collide.
 */
public final class MetadataPaths {

    /** The directory inside containers that holds every metadata file. */
    public static final String CONTAINER_DIR = "/var/run/kubernetes.io/dra-device-attributes";
    /** Under {@link #CONTAINER_DIR}: claims a pod references by their own name, keyed by that name. */
    public static final String RESOURCE_CLAIMS_SUB_DIR = "resourceclaims";
    /** Under {@link #CONTAINER_DIR}: claims generated from a template, keyed by the pod's name for the claim. */
    public static final String RESOURCE_CLAIM_TEMPLATES_SUB_DIR = "resourceclaimtemplates";
    /** Appended to the driver name to form the file name. */
    public static final String FILE_SUFFIX = "-metadata.json";

    private MetadataPaths() {
    }

    /** {@code <driver>-metadata.json}. */
    public static String fileName(String driverName) {
        return driverName + FILE_SUFFIX;
    }

    /** The in-container path of a driver's file for a request of a claim the pod references by name. */
    public static String resourceClaimFilePath(String driverName, String claimName, String requestName) {
        return String.join("/", CONTAINER_DIR, RESOURCE_CLAIMS_SUB_DIR, claimName, requestName,
                fileName(driverName));
    }

    /**
     * The in-container path of a driver's file for a request of a claim generated from a template.
     *
     * @param podClaimName the entry's name in {@code pod.spec.resourceClaims}
     */
    public static String resourceClaimTemplateFilePath(String driverName, String podClaimName, String requestName) {
        return String.join("/", CONTAINER_DIR, RESOURCE_CLAIM_TEMPLATES_SUB_DIR, podClaimName, requestName,
                fileName(driverName));
    }
}
