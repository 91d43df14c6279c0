package io.kdra.apiserver;

import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.admission.AdmissionPlugin;
import io.kdra.apiserver.admission.AdminAccessValidation;
import io.kdra.apiserver.admission.DeviceStatusAuthorization;
import io.kdra.apiserver.auth.RbacAuthorizer;
import io.kdra.kube.FeatureGates;
import java.util.ArrayList;
import io.kdra.apiserver.admission.NodeBoundSliceAdmission;
import io.kdra.apiserver.admission.QuotaAdmission;
import io.kdra.apiserver.api.BuiltinResources;
import io.kdra.apiserver.json.Json;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.registry.Registry.KindValidator;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.validation.ContainerResourceValidation;
import io.kdra.apiserver.validation.DataKeyValidation;
import io.kdra.apiserver.validation.PodClaimValidation;
import io.kdra.apiserver.validation.PodUpdateValidation;
import java.util.List;
import java.util.function.Predicate;

/** The validation and admission the server applies by itself, whatever plug-ins are registered. */
final class BuiltinPlugins {

    private final Store store;
    private final FeatureGates gates;

    BuiltinPlugins(Store store, FeatureGates gates) {
        this.store = store;
        this.gates = gates;
    }

    List<KindValidator> validators() {
        return List.of(
                forKinds(BuiltinPlugins::isPod, new PodClaimValidation()),
                forKinds(BuiltinPlugins::isPod, new ContainerResourceValidation()),
                forKinds(BuiltinPlugins::isPod, new PodUpdateValidation()),
                forKinds(type -> isCoreKind(type, "ConfigMap"), DataKeyValidation.configMaps()),
                forKinds(type -> isCoreKind(type, "Secret"), DataKeyValidation.secrets()),
                forKinds(type -> isResourceKind(type, "ResourceClaim"),
                        new AdminAccessValidation(this::namespaceLabels, false)),
                forKinds(type -> isResourceKind(type, "ResourceClaimTemplate"),
                        new AdminAccessValidation(this::namespaceLabels, true)));
    }

    List<AdmissionPlugin> admission() {
        List<AdmissionPlugin> plugins = new ArrayList<>(List.of(new QuotaAdmission(store),
                new NodeBoundSliceAdmission()));
        if (granularStatusAuthorization()) {
            plugins.add(new DeviceStatusAuthorization(new RbacAuthorizer(store)));
        }
        return plugins;
    }

    /**
     * The per-driver authorization of claim device status is on from 1.36 unless switched off; the server applies it
     * at older versions too (where the gate does not exist yet), so that a 1.37 suite's status specs hold on the
     * default 1.34 cluster.
     */
    private boolean granularStatusAuthorization() {
        return !gates.version().atLeast(1, 36)
                || gates.enabled(FeatureGates.DRA_RESOURCE_CLAIM_GRANULAR_STATUS_AUTHORIZATION);
    }

    private Map<String, String> namespaceLabels(String namespace) {
        ObjectNode ns = namespace == null ? null : store.get("/namespaces", null, namespace);
        return ns == null ? Map.of() : Json.stringMap(ns, "metadata", "labels");
    }

    private static boolean isPod(ResourceType type) {
        return isCoreKind(type, "Pod");
    }

    private static boolean isCoreKind(ResourceType type, String kind) {
        return type.group().isEmpty() && type.kind().equals(kind);
    }

    private static boolean isResourceKind(ResourceType type, String kind) {
        return type.group().equals(BuiltinResources.RESOURCE_GROUP) && type.kind().equals(kind);
    }

    private static KindValidator forKinds(Predicate<ResourceType> kinds, ObjectValidator validator) {
        return new KindValidator() {
            @Override
            public boolean appliesTo(ResourceType type) {
                return kinds.test(type);
            }

            @Override
            public ObjectValidator validator() {
                return validator;
            }
        };
    }
}
