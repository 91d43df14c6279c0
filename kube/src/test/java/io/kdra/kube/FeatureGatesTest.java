package io.kdra.kube;

import static io.kdra.kube.FeatureGates.DRA_ADMIN_ACCESS;
import static io.kdra.kube.FeatureGates.DRA_CONSUMABLE_CAPACITY;
import static io.kdra.kube.FeatureGates.DRA_DEVICE_TAINTS;
import static io.kdra.kube.FeatureGates.DRA_DEVICE_TAINT_RULES;
import static io.kdra.kube.FeatureGates.DRA_PRIORITIZED_LIST;
import static io.kdra.kube.FeatureGates.DRA_RESOURCE_CLAIM_DEVICE_STATUS;
import static io.kdra.kube.FeatureGates.DYNAMIC_RESOURCE_ALLOCATION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class FeatureGatesTest {

    private static final KubernetesVersion V1_31 = new KubernetesVersion(1, 31);
    private static final KubernetesVersion V1_32 = new KubernetesVersion(1, 32);
    private static final KubernetesVersion V1_33 = new KubernetesVersion(1, 33);
    private static final KubernetesVersion V1_34 = new KubernetesVersion(1, 34);
    private static final KubernetesVersion V1_35 = new KubernetesVersion(1, 35);
    private static final KubernetesVersion V1_36 = new KubernetesVersion(1, 36);
    private static final KubernetesVersion V1_37 = new KubernetesVersion(1, 37);

    static Stream<KubernetesVersion> knownVersions() {
        return IntStream.rangeClosed(31, 37).mapToObj(minor -> new KubernetesVersion(1, minor));
    }

    @Test
    void defaultsFollowUpstreamPerVersion() {
        assertThat(enabledByDefault(V1_31)).isEmpty();
        assertThat(enabledByDefault(V1_32)).isEmpty();
        assertThat(enabledByDefault(V1_33)).containsExactly(DRA_RESOURCE_CLAIM_DEVICE_STATUS);
        assertThat(enabledByDefault(V1_34)).containsExactly(
                DRA_ADMIN_ACCESS, DRA_PRIORITIZED_LIST, DRA_RESOURCE_CLAIM_DEVICE_STATUS,
                FeatureGates.DRA_SCHEDULER_FILTER_TIMEOUT, DYNAMIC_RESOURCE_ALLOCATION);
        assertThat(enabledByDefault(V1_35)).isEqualTo(enabledByDefault(V1_34));
        assertThat(enabledByDefault(V1_36)).containsExactly(
                DRA_ADMIN_ACCESS, DRA_CONSUMABLE_CAPACITY, FeatureGates.DRA_DEVICE_BINDING_CONDITIONS,
                DRA_DEVICE_TAINTS, FeatureGates.DRA_EXTENDED_RESOURCE, FeatureGates.DRA_PARTITIONABLE_DEVICES,
                DRA_PRIORITIZED_LIST, DRA_RESOURCE_CLAIM_DEVICE_STATUS,
                FeatureGates.DRA_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION,
                FeatureGates.DRA_SCHEDULER_FILTER_TIMEOUT, DYNAMIC_RESOURCE_ALLOCATION,
                FeatureGates.IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING, FeatureGates.RESOURCE_HEALTH_STATUS,
                FeatureGates.RESOURCE_HEALTH_STATUS_MESSAGE);
        assertThat(enabledByDefault(V1_37)).containsExactly(
                DRA_ADMIN_ACCESS, DRA_CONSUMABLE_CAPACITY, FeatureGates.DRA_DEVICE_BINDING_CONDITIONS,
                DRA_DEVICE_TAINT_RULES, DRA_DEVICE_TAINTS, FeatureGates.DRA_EXTENDED_RESOURCE,
                FeatureGates.DRA_PARTITIONABLE_DEVICES, DRA_PRIORITIZED_LIST, DRA_RESOURCE_CLAIM_DEVICE_STATUS,
                FeatureGates.DRA_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION,
                FeatureGates.DRA_SCHEDULER_FILTER_TIMEOUT, DYNAMIC_RESOURCE_ALLOCATION,
                FeatureGates.IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING,
                FeatureGates.POD_LEVEL_RESOURCES_FIX_KUBELET_QOS_CLASS, FeatureGates.RESOURCE_HEALTH_STATUS,
                FeatureGates.RESOURCE_HEALTH_STATUS_MESSAGE);
    }

    @ParameterizedTest
    @MethodSource("knownVersions")
    void defaultsSatisfyEveryDependencyAndMapEveryGate(KubernetesVersion version) {
        FeatureGates defaults = FeatureGates.defaults(version);

        assertThat(FeatureGates.parse(version, "")).isEqualTo(defaults);
        assertThat(defaults.asMap()).containsOnlyKeys(FeatureGates.knownGates());
        assertThat(defaults.version()).isEqualTo(version);
        assertThat(defaults).hasToString("");
    }

    @Test
    void everyGateOfTheReferenceIsKnown() {
        assertThat(FeatureGates.knownGates()).contains(
                "DynamicResourceAllocation", "DRAAdminAccess", "DRAPrioritizedList", "DRADeviceTaints",
                "DRADeviceTaintRules", "DRAPartitionableDevices", "DRAPartitionableDevicesType",
                "DRAResourceClaimDeviceStatus", "DRAResourceClaimGranularStatusAuthorization",
                "DRAConsumableCapacity", "DRADeviceBindingConditions", "DRAExtendedResource",
                "DRASchedulerFilterTimeout", "ResourceHealthStatus", "ResourceHealthStatusMessage",
                "DRAResourcePoolStatus", "DRAOptionalNodeOperations", "GenericWorkload", "DRAWorkloadResourceClaims",
                "DRAListTypeAttributes", "DRANodeAllocatableResources", "DRADerivedAttributes",
                "DRADeviceCompatibilityGroups", "InPlacePodLevelResourcesVerticalScaling",
                "PodLevelResourcesFixKubeletQOSClass");
    }

    @Test
    void parsesTheFlagOverTheDefaults() {
        FeatureGates gates = FeatureGates.parse(V1_34, " DRADeviceTaints = true ,, DRAPrioritizedList=false,");

        assertThat(gates.enabled(DRA_DEVICE_TAINTS)).isTrue();
        assertThat(gates.enabled(DRA_PRIORITIZED_LIST)).isFalse();
        assertThat(gates.enabled(DRA_ADMIN_ACCESS)).isTrue();
        assertThat(gates.enabled(DRA_CONSUMABLE_CAPACITY)).isFalse();
        assertThat(gates).hasToString("DRADeviceTaints=true,DRAPrioritizedList=false");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "t", "T", "TRUE", "true", "True"})
    void acceptsGoTrueSpellings(String value) {
        assertThat(FeatureGates.parse(V1_34, "DRADeviceTaints=" + value).enabled(DRA_DEVICE_TAINTS)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "f", "F", "FALSE", "false", "False"})
    void acceptsGoFalseSpellings(String value) {
        assertThat(FeatureGates.parse(V1_34, "DRAAdminAccess=" + value).enabled(DRA_ADMIN_ACCESS)).isFalse();
    }

    @Test
    void toStringRoundTripsThroughParse() {
        FeatureGates gates = FeatureGates.defaults(V1_36)
                .with(DRA_DEVICE_TAINT_RULES, true)
                .with(DRA_CONSUMABLE_CAPACITY, false)
                .with(FeatureGates.GENERIC_WORKLOAD, true);

        assertThat(FeatureGates.parse(V1_36, gates.toString())).isEqualTo(gates);
        assertThat(gates).hasToString("DRAConsumableCapacity=false,DRADeviceTaintRules=true,GenericWorkload=true");
    }

    @Test
    void settingAGateToItsDefaultChangesNothing() {
        assertThat(FeatureGates.defaults(V1_34).with(DRA_ADMIN_ACCESS, true)).isEqualTo(FeatureGates.defaults(V1_34))
                .hasToString("");
    }

    @Test
    void unknownGate() {
        assertThatThrownBy(() -> FeatureGates.parse(V1_34, "DRAAdminAccess=false,Foo=true"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unrecognized feature gate: Foo");
        assertThatThrownBy(() -> FeatureGates.defaults(V1_34).with("Foo", true))
                .hasMessage("unrecognized feature gate: Foo");
        assertThatThrownBy(() -> FeatureGates.defaults(V1_34).enabled("Foo"))
                .hasMessage("unrecognized feature gate: Foo");
    }

    @Test
    void valueThatIsNoBoolean() {
        assertThatThrownBy(() -> FeatureGates.parse(V1_34, "Foo=maybe"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid value of Foo=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax");
        assertThatThrownBy(() -> FeatureGates.parse(V1_34, "DRAAdminAccess="))
                .hasMessage("invalid value of DRAAdminAccess=, err: strconv.ParseBool: parsing \"\": invalid syntax");
    }

    @Test
    void missingValue() {
        assertThatThrownBy(() -> FeatureGates.parse(V1_34, "DRADeviceTaints"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("missing bool value for DRADeviceTaints");
    }

    @Test
    void gateLockedToItsDefault() {
        assertThatThrownBy(() -> FeatureGates.parse(V1_35, "DynamicResourceAllocation=false"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot set feature gate DynamicResourceAllocation to false, feature is locked to true");
        assertThatThrownBy(() -> FeatureGates.defaults(V1_37).with(DRA_PRIORITIZED_LIST, false))
                .hasMessage("cannot set feature gate DRAPrioritizedList to false, feature is locked to true");
        // GA but not locked yet: may still be turned off
        assertThat(FeatureGates.defaults(V1_36).with(DRA_PRIORITIZED_LIST, false).enabled(DRA_PRIORITIZED_LIST))
                .isFalse();
    }

    @Test
    void gateThatDoesNotExistYetAtTheEmulatedVersion() {
        assertThatThrownBy(() -> FeatureGates.parse(V1_32, "DRADeviceTaints=true"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot set feature gate DRADeviceTaints to true, feature is PreAlpha at emulated version "
                        + "1.32, min compatibility version 1.31");
        assertThat(FeatureGates.defaults(V1_32).enabled(DRA_DEVICE_TAINTS)).isFalse();
    }

    @Test
    void severalErrorsAreReportedTogether() {
        assertThatThrownBy(() -> FeatureGates.parse(V1_37, "DRAAdminAccess=false,DRAExtendedResource=false"))
                .hasMessage("[cannot set feature gate DRAAdminAccess to false, feature is locked to true, "
                        + "cannot set feature gate DRAExtendedResource to false, feature is locked to true]");
    }

    @Test
    void enabledGateWithADisabledDependency() {
        assertThatThrownBy(() -> FeatureGates.parse(V1_33, "DRAPrioritizedList=true"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("DRAPrioritizedList is enabled, but depends on features that are disabled: "
                        + "[DynamicResourceAllocation]");
        assertThatThrownBy(() -> FeatureGates.parse(V1_36, "DRADeviceTaintRules=true,DRADeviceTaints=false"))
                .hasMessage("DRADeviceTaintRules is enabled, but depends on features that are disabled: "
                        + "[DRADeviceTaints]");
        assertThatThrownBy(() -> FeatureGates.parse(V1_36, "DynamicResourceAllocation=true,DRAResourceClaimDeviceStatus=false"))
                .hasMessage("[DRADeviceBindingConditions is enabled, but depends on features that are disabled: "
                        + "[DRAResourceClaimDeviceStatus], DRAResourceClaimGranularStatusAuthorization is enabled, "
                        + "but depends on features that are disabled: [DRAResourceClaimDeviceStatus]]");
        assertThat(FeatureGates.parse(V1_36, "DRADeviceTaints=false").enabled(DRA_DEVICE_TAINTS)).isFalse();
    }

    @Test
    void dependenciesSetTogetherAreFine() {
        FeatureGates gates = FeatureGates.parse(V1_33, "DynamicResourceAllocation=true,DRAPrioritizedList=true");

        assertThat(gates.enabled(DRA_PRIORITIZED_LIST)).isTrue();
        assertThat(gates.with(DRA_ADMIN_ACCESS, true).enabled(DRA_ADMIN_ACCESS)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.30", "1.38", "2.0"})
    void versionsOutsideTheKnownRangeAreRejected(String version) {
        assertThatThrownBy(() -> FeatureGates.defaults(KubernetesVersion.parse(version)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("emulated Kubernetes version " + version
                        + " is not supported: kdra knows the feature gates of 1.31 to 1.37");
    }

    @Test
    void asMapIsImmutable() {
        Map<String, Boolean> map = FeatureGates.defaults(V1_34).asMap();

        assertThatThrownBy(() -> map.put(DRA_ADMIN_ACCESS, false)).isInstanceOf(UnsupportedOperationException.class);
    }

    private static List<String> enabledByDefault(KubernetesVersion version) {
        return FeatureGates.defaults(version).asMap().entrySet().stream()
                .filter(Map.Entry::getValue)
                .map(Map.Entry::getKey)
                .toList();
    }

    @Test
    void introducedInIsTheFirstVersionOfAGate() {
        assertThat(FeatureGates.introducedIn(FeatureGates.DRA_DEVICE_TAINT_RULES))
                .contains(new KubernetesVersion(1, 35));
        assertThat(FeatureGates.introducedIn("NoSuchGate")).isEmpty();
    }

    @Test
    void aGatesDependentsAreThoseThatCannotBeOnWithoutIt() {
        assertThat(FeatureGates.dependents(FeatureGates.RESOURCE_HEALTH_STATUS))
                .containsExactly(FeatureGates.RESOURCE_HEALTH_STATUS_MESSAGE);
        assertThat(FeatureGates.dependents(FeatureGates.DRA_CONSUMABLE_CAPACITY))
                .contains(FeatureGates.DRA_FRACTIONAL_CAPACITY_RANGE);
        assertThat(FeatureGates.dependents("NoSuchGate")).isEmpty();
    }
}
