package io.kdra.apiserver;

import io.kdra.apiserver.admission.AdmissionPlugin;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.registry.Registry.KindValidator;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.validation.ObjectValidator;
import io.kdra.apiserver.validation.PodClaimValidation;
import java.util.List;
import java.util.function.Predicate;

/** The validation and admission the server applies by itself, whatever plug-ins are registered. */
final class BuiltinPlugins {

    private final Store store;

    BuiltinPlugins(Store store) {
        this.store = store;
    }

    List<KindValidator> validators() {
        return List.of(forKinds(type -> type.group().isEmpty() && type.kind().equals("Pod"), new PodClaimValidation()));
    }

    List<AdmissionPlugin> admission() {
        return List.of();
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
