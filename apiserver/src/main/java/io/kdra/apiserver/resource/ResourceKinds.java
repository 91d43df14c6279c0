package io.kdra.apiserver.resource;

import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.api.BuiltinResources;
import io.kdra.apiserver.api.DisabledFields;
import io.kdra.apiserver.conversion.VersionConverter;
import io.kdra.kube.ExpressionChecker;
import io.kdra.kube.FeatureGates;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import tools.jackson.databind.node.ObjectNode;

/**
 * The resource.k8s.io kinds of Dynamic Resource Allocation, as kube-apiserver validates and converts them. Keys of
 * the returned maps are kind names.
 *
 * <ul>
 *   <li>DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice: served as {@value #V1BETA1},
 *       {@value #V1BETA2} and {@value #V1}; storage version {@value #V1}.</li>
 *   <li>DeviceTaintRule: served as {@value #V1ALPHA3}, {@value #V1BETA2} and {@value #V1} (as Kubernetes 1.37
 *       serves it), which have the same shape; storage version {@value #V1}.</li>
 *   <li>ResourcePoolStatusRequest: served and stored as {@value #V1ALPHA3} only (its status is written once, by
 *       the pool status controller).</li>
 * </ul>
 *
 * <p>Validators get objects in the storage version, with defaults applied (see {@link #defaulters(Clock)}), and check
 * every resource.k8s.io-specific rule of upstream {@code pkg/apis/resource/validation} with the DRA feature gates of
 * Kubernetes 1.36 enabled. Object metadata (names, labels of the object itself) is the API server's business.
 */
public final class ResourceKinds {

    public static final String GROUP = ResourceConverter.GROUP;
    public static final String V1 = "v1";
    public static final String V1BETA2 = "v1beta2";
    public static final String V1BETA1 = "v1beta1";
    public static final String V1ALPHA3 = "v1alpha3";

    public static final String DEVICE_CLASS = "DeviceClass";
    public static final String RESOURCE_CLAIM = "ResourceClaim";
    public static final String RESOURCE_CLAIM_TEMPLATE = "ResourceClaimTemplate";
    public static final String RESOURCE_SLICE = "ResourceSlice";
    public static final String DEVICE_TAINT_RULE = "DeviceTaintRule";
    public static final String RESOURCE_POOL_STATUS_REQUEST = "ResourcePoolStatusRequest";

    private ResourceKinds() {
    }

    /** @return the storage version of a kind of {@link #converters()} */
    public static String storageVersion(String kind) {
        return BuiltinResources.draStorageVersion(kind);
    }

    /** @return the served versions of a kind of {@link #converters()}, oldest first */
    public static List<String> servedVersions(String kind) {
        return BuiltinResources.draServedVersions(kind);
    }

    /**
     * @param celChecker compiles CEL selectors; {@code expr -> Optional.empty()} accepts every expression within the
     *                   10 Ki length limit
     */
    public static Map<String, ObjectValidator> validators(ExpressionChecker celChecker) {
        return Map.of(
                DEVICE_CLASS, new DeviceClassValidator(celChecker),
                RESOURCE_CLAIM, new ResourceClaimValidator(celChecker),
                RESOURCE_CLAIM_TEMPLATE, new ResourceClaimTemplateValidator(celChecker),
                RESOURCE_SLICE, new ResourceSliceValidator(celChecker),
                DEVICE_TAINT_RULE, new DeviceTaintRuleValidator(celChecker),
                RESOURCE_POOL_STATUS_REQUEST, new ResourcePoolStatusRequestValidator(celChecker));
    }

    /**
     * The defaults kube-apiserver applies while decoding a request body: apply them to the object as sent, in any
     * served version, before converting and validating it.
     *
     * @param clock the time source of the {@code timeAdded} of new device taints
     * @return per kind, a function returning a defaulted copy of an object
     */
    public static Map<String, UnaryOperator<ObjectNode>> defaulters(Clock clock) {
        return Map.of(
                DEVICE_CLASS, ResourceDefaults.forKind(DEVICE_CLASS, clock),
                RESOURCE_CLAIM, ResourceDefaults.forKind(RESOURCE_CLAIM, clock),
                RESOURCE_CLAIM_TEMPLATE, ResourceDefaults.forKind(RESOURCE_CLAIM_TEMPLATE, clock),
                RESOURCE_SLICE, ResourceDefaults.forKind(RESOURCE_SLICE, clock),
                DEVICE_TAINT_RULE, ResourceDefaults.forKind(DEVICE_TAINT_RULE, clock));
    }

    /** What each kind drops of the fields of disabled features on writes, for the given gates. */
    public static Map<String, DisabledFields> disabledFields(FeatureGates gates) {
        return ResourceFieldGates.forKinds(gates);
    }

    public static Map<String, VersionConverter> converters() {
        return Map.of(
                DEVICE_CLASS, sameShape(DEVICE_CLASS, servedVersions(DEVICE_CLASS)),
                RESOURCE_CLAIM, v1beta1Reshaped(RESOURCE_CLAIM,
                        claim -> V1beta1Shapes.claimDevicesToV1(claim.at("/spec/devices")),
                        claim -> V1beta1Shapes.claimDevicesFromV1(claim.at("/spec/devices"))),
                RESOURCE_CLAIM_TEMPLATE, v1beta1Reshaped(RESOURCE_CLAIM_TEMPLATE,
                        template -> V1beta1Shapes.claimDevicesToV1(template.at("/spec/spec/devices")),
                        template -> V1beta1Shapes.claimDevicesFromV1(template.at("/spec/spec/devices"))),
                RESOURCE_SLICE, v1beta1Reshaped(RESOURCE_SLICE,
                        slice -> V1beta1Shapes.sliceSpecToV1(slice.get("spec")),
                        slice -> V1beta1Shapes.sliceSpecFromV1(slice.get("spec"))),
                DEVICE_TAINT_RULE, sameShape(DEVICE_TAINT_RULE, servedVersions(DEVICE_TAINT_RULE)));
    }

    private static VersionConverter sameShape(String kind, List<String> versions) {
        return new ResourceConverter(kind, versions, Map.of(), Map.of());
    }

    /** v1beta2 has v1's shape; v1beta1 differs. */
    private static VersionConverter v1beta1Reshaped(String kind, Consumer<ObjectNode> toV1,
                                                    Consumer<ObjectNode> fromV1) {
        return new ResourceConverter(kind, servedVersions(kind), Map.of(V1BETA1, toV1), Map.of(V1BETA1, fromV1));
    }
}
