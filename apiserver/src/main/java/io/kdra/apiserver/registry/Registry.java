package io.kdra.apiserver.registry;

import io.kdra.apiserver.api.ObjectValidator;
import io.kdra.apiserver.api.FieldError;
import io.kdra.apiserver.admission.AdmissionPlugin;
import io.kdra.apiserver.admission.AdmissionRequest;
import io.kdra.apiserver.admission.AdmissionRequest.Operation;
import io.kdra.apiserver.api.ApiException;
import io.kdra.apiserver.api.InvalidObject;
import io.kdra.apiserver.api.KindRegistry;
import io.kdra.apiserver.api.ResourceType;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.storage.Store;
import io.kdra.apiserver.storage.Store.Change;
import io.kdra.apiserver.storage.StoredObject;
import io.kdra.apiserver.validation.ObjectMetaValidation;
import io.kdra.kube.FeatureGates;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The semantics of writes, independent of HTTP and of API versions (objects are in the storage version): metadata
 * the server owns, status isolation, generation, optimistic concurrency, validation, admission, finalizers and
 * graceful deletion. Every write is one atomic store mutation.
 */
public final class Registry {

    private static final int GENERATE_NAME_ATTEMPTS = 8;

    private final KindRegistry kinds;
    private final Store store;
    private final ServiceAllocation services;
    private final List<KindValidator> builtinValidators;
    private final List<AdmissionPlugin> admission;
    private final ManagedFieldsTracker managedFields;
    private final Deletion deletion;
    private final Clock clock;
    private final FeatureGates gates;

    /** A validator that applies to some kinds only; built-in checks that need the kind to decide. */
    public interface KindValidator {
        boolean appliesTo(ResourceType type);

        ObjectValidator validator();
    }

    /** @param gates the feature gates of the rules the registry applies itself (the pod's QoS class) */
    public Registry(KindRegistry kinds, Store store, List<KindValidator> builtinValidators,
            List<AdmissionPlugin> admission, Clock clock, FeatureGates gates) {
        this.kinds = kinds;
        this.store = store;
        this.services = new ServiceAllocation(store);
        this.builtinValidators = List.copyOf(builtinValidators);
        this.admission = List.copyOf(admission);
        this.clock = clock;
        this.gates = gates;
        this.managedFields = new ManagedFieldsTracker(clock);
        this.deletion = new Deletion(clock);
    }

    public Store store() {
        return store;
    }

    public KindRegistry kinds() {
        return kinds;
    }

    public ObjectNode get(ResourceType type, String namespace, String name) {
        return getStored(type, namespace, name).object();
    }

    /** @return the object with its shared JSON */
    public StoredObject getStored(ResourceType type, String namespace, String name) {
        StoredObject stored = store.getStored(type.storageKey(), namespace, name);
        if (stored == null) {
            throw ApiException.notFound(type, name);
        }
        return stored;
    }

    public Store.Snapshot list(ResourceType type, String namespace) {
        return store.list(type.storageKey(), namespace);
    }

    /** Creates an object; a generateName is expanded, retrying on the rare collision. */
    public ObjectNode create(ResourceType type, String namespace, ObjectNode object, WriteContext context) {
        ObjectNode prepared = prepareCreate(type, namespace, object);
        String generateName = Json.text(prepared, "metadata", "generateName");
        boolean generated = Json.isEmpty(Json.at(prepared, "metadata", "name")) && generateName != null
                && !generateName.isEmpty();
        for (int attempt = 1; ; attempt++) {
            if (generated) {
                Json.metadata(prepared).put("name", NameGenerator.generate(generateName));
            }
            validate(type, prepared, null, false);
            String name = Meta.name(prepared);
            try {
                return store.write(type.storageKey(), storageNamespace(type, namespace), name, context.dryRun(),
                        current -> {
                            if (current != null) {
                                throw ApiException.alreadyExists(type, name);
                            }
                            return Change.put(admitCreate(type, prepared, context, true));
                        });
            } catch (ApiException e) {
                if (!generated || !"AlreadyExists".equals(e.reason()) || attempt == GENERATE_NAME_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Replaces an object (PUT). Through the main resource status changes are ignored; through the status
     * subresource everything but status is.
     */
    public ObjectNode update(ResourceType type, String namespace, String name, ObjectNode object, WriteContext context,
            boolean statusSubresource) {
        checkIdentity(type, namespace, name, object);
        return store.write(type.storageKey(), storageNamespace(type, namespace), name, context.dryRun(), current -> {
            if (current == null) {
                throw ApiException.notFound(type, name);
            }
            return replace(type, current, object, context, statusSubresource ? Target.STATUS : Target.RESOURCE,
                    true);
        });
    }

    /**
     * Patches an object: {@code patch} computes the proposed object from a copy of the current one, which it may
     * change (null when absent, which only an apply patch accepts: it creates the object).
     *
     * @param tracksFields false when the patch itself maintains managedFields (server-side apply)
     */
    public ObjectNode patch(ResourceType type, String namespace, String name, UnaryOperator<ObjectNode> patch,
            WriteContext context, boolean statusSubresource, boolean createIfMissing, boolean tracksFields) {
        String ns = storageNamespace(type, namespace);
        return store.write(type.storageKey(), ns, name, context.dryRun(), current -> {
            if (current == null) {
                if (!createIfMissing || statusSubresource) {
                    throw ApiException.notFound(type, name);
                }
                ObjectNode proposed = patch.apply(null);
                checkIdentity(type, namespace, name, proposed);
                ObjectNode prepared = prepareCreate(type, namespace, proposed);
                validate(type, prepared, null, false);
                return Change.put(admitCreate(type, prepared, context, tracksFields));
            }
            ObjectNode proposed = patch.apply(current.deepCopy());
            checkIdentity(type, namespace, name, proposed);
            return replace(type, current, proposed, context, statusSubresource ? Target.STATUS : Target.RESOURCE,
                    tracksFields);
        });
    }

    /**
     * An in-place resize through {@code pods/resize}: {@code patch} computes the proposed pod from a copy of the current
     * one, of which only the containers' and init containers' {@code resources} and the pod-level {@code resources}
     * are taken (other changes are dropped, as kube-apiserver's resize strategy drops them). The generation is bumped
     * when they change. The pod's QoS class may not change.
     */
    public ObjectNode resize(ResourceType type, String namespace, String name, UnaryOperator<ObjectNode> patch,
            WriteContext context) {
        return store.write(type.storageKey(), storageNamespace(type, namespace), name, context.dryRun(), current -> {
            if (current == null) {
                throw ApiException.notFound(type, name);
            }
            ObjectNode proposed = patch.apply(current.deepCopy());
            checkIdentity(type, namespace, name, proposed);
            return replace(type, current, PodResize.resized(current, proposed), context, Target.RESIZE, true);
        });
    }

    /**
     * Writes a pod's node as {@code pods/binding} does, in one write ({@code bind} sets spec.nodeName and the
     * PodScheduled condition on the current pod). No validator runs and the generation stays: kube-apiserver's
     * binding storage writes the pod directly, bypassing the pod strategy, and an update of a pod may not change its
     * node.
     */
    public ObjectNode bind(ResourceType type, String namespace, String name, UnaryOperator<ObjectNode> bind,
            WriteContext context) {
        return store.write(type.storageKey(), storageNamespace(type, namespace), name, context.dryRun(), current -> {
            if (current == null) {
                throw ApiException.notFound(type, name);
            }
            return replace(type, current, bind.apply(current.deepCopy()), context, Target.BINDING, true);
        });
    }

    /** @return the outcome: the object is gone, or it is terminating (finalizers, grace period) */
    public Deletion.Outcome delete(ResourceType type, String namespace, String name, DeleteOptions options,
            WriteContext context) {
        Deletion.Outcome[] outcome = new Deletion.Outcome[1];
        store.write(type.storageKey(), storageNamespace(type, namespace), name, context.dryRun(), current -> {
            if (current == null) {
                throw ApiException.notFound(type, name);
            }
            deletion.checkPreconditions(type, current, options);
            admit(new AdmissionRequest(Operation.DELETE, type, "", Meta.namespace(current), name, null, current,
                    context.user(), context.dryRun()));
            Change change = deletion.decide(type, current, options);
            outcome[0] = new Deletion.Outcome(change.object(), change.kind() == Change.Kind.DELETE);
            return change;
        });
        return outcome[0];
    }

    private ObjectNode prepareCreate(ResourceType type, String namespace, ObjectNode object) {
        ObjectNode prepared = object.deepCopy();
        ObjectNode metadata = Json.metadata(prepared);
        if (type.namespaced()) {
            String bodyNamespace = Json.text(metadata, "namespace");
            if (bodyNamespace != null && !bodyNamespace.isEmpty() && !bodyNamespace.equals(namespace)) {
                throw ApiException.badRequest(
                        "the namespace of the provided object does not match the namespace sent on the request");
            }
            metadata.put("namespace", namespace);
        } else {
            metadata.remove("namespace");
        }
        if (!Json.isEmpty(metadata.get("resourceVersion"))) {
            throw ApiException.internal("resourceVersion should not be set on objects to be created");
        }
        metadata.remove("resourceVersion");
        metadata.remove("deletionTimestamp");
        metadata.remove("deletionGracePeriodSeconds");
        metadata.put("uid", UUID.randomUUID().toString());
        metadata.put("creationTimestamp", Meta.timestamp(clock.instant()));
        if (KindDefaults.tracksGeneration(type)) {
            metadata.put("generation", 1);
        } else {
            metadata.remove("generation");
        }
        if (type.statusOnCreate() == ResourceType.StatusOnCreate.RESET) {
            prepared.remove("status");
        }
        KindDefaults.applyOnWrite(type, prepared);
        KindDefaults.applyOnCreate(type, prepared, gates);
        if (KindDefaults.isService(type)) {
            services.allocate(prepared, null);
        }
        kinds.dropDisabledFields(type, prepared, null);
        return prepared;
    }

    private ObjectNode admitCreate(ResourceType type, ObjectNode prepared, WriteContext context,
            boolean tracksFields) {
        ObjectNode object = prepared.deepCopy();
        KindDefaults.labelNamespace(type, object);
        if (type.namespaced()) {
            NamespaceLifecycle.checkCreate(store, type, Meta.namespace(object), Meta.name(object));
        }
        admit(new AdmissionRequest(Operation.CREATE, type, "", Meta.namespace(object), Meta.name(object), object, null,
                context.user(), context.dryRun()));
        if (tracksFields) {
            recordUpdate(type, object, null, context);
        }
        return object;
    }

    /** Which path a write to an existing object takes: what it may change and which validation runs. */
    private enum Target { RESOURCE, STATUS, BINDING, RESIZE }

    private Change replace(ResourceType type, ObjectNode current, ObjectNode proposed, WriteContext context,
            Target target, boolean tracksFields) {
        boolean statusSubresource = target == Target.STATUS;
        String proposedVersion = Meta.resourceVersion(proposed);
        if (proposedVersion != null && !proposedVersion.isEmpty()
                && !proposedVersion.equals(Meta.resourceVersion(current))) {
            throw ApiException.modified(type, Meta.name(current));
        }
        String proposedUid = Meta.uid(proposed);
        if (proposedUid != null && !proposedUid.isEmpty() && !proposedUid.equals(Meta.uid(current))) {
            throw ApiException.conflict(type, Meta.name(current), String.format(
                    "Precondition failed: UID in precondition: %s, UID in object meta: %s", Meta.uid(current),
                    proposedUid));
        }
        ObjectNode next = statusSubresource ? withStatus(type, current, proposed)
                : mainResourceUpdate(type, current, proposed, target == Target.BINDING);
        if (statusSubresource) {
            kinds.dropDisabledFields(type, next, current);
        }
        KindDefaults.labelNamespace(type, next);
        if (target == Target.RESIZE) {
            List<FieldError> errors = PodResize.validate(next, current, gates);
            if (!errors.isEmpty()) {
                throw InvalidObject.of(type, Meta.name(current), errors);
            }
        } else if (target != Target.BINDING) {
            validate(type, next, current, statusSubresource);
        }
        String subresource = statusSubresource ? "status" : target == Target.RESIZE ? "resize" : "";
        admit(new AdmissionRequest(Operation.UPDATE, type, subresource, Meta.namespace(current),
                Meta.name(current), next, current, context.user(), context.dryRun()));
        if (!statusSubresource && deletion.finalizedDuringUpdate(current, next)) {
            return Change.delete(next);
        }
        if (tracksFields) {
            recordUpdate(type, next, current, context);
        }
        if (Meta.equalApartFromVolatileFields(next, current)) {
            return Change.none(current);
        }
        return Change.put(next);
    }

    /** Records the writer's fields as the version it wrote shows them, as kube-apiserver does. */
    private void recordUpdate(ResourceType type, ObjectNode next, ObjectNode current, WriteContext context) {
        String version = context.version() == null ? type.storageVersion() : context.version();
        managedFields.recordUpdate(next, current, context.fieldManager(), type.apiVersion(version),
                stored -> kinds.fromStorage(type, stored, version));
    }

    private static ObjectNode withStatus(ResourceType type, ObjectNode current, ObjectNode proposed) {
        ObjectNode next = current.deepCopy();
        JsonNode status = proposed.get("status");
        if (status == null || status.isNull()) {
            next.remove("status");
        } else {
            next.set("status", status.deepCopy());
        }
        KindDefaults.applyOnStatusWrite(type, next, current);
        return next;
    }

    /**
     * The object an update of the main resource stores: the current identity metadata, the current status (a
     * binding alone writes status with the spec), defaults, and the generation bumped when the spec changed (not by
     * a binding).
     */
    private ObjectNode mainResourceUpdate(ResourceType type, ObjectNode current, ObjectNode proposed,
            boolean binding) {
        ObjectNode next = proposed.deepCopy();
        ObjectNode metadata = Json.metadata(next);
        JsonNode currentMetadata = current.get("metadata");
        for (String field : List.of("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                "generation", "namespace", "resourceVersion")) {
            JsonNode value = currentMetadata.get(field);
            if (value == null) {
                metadata.remove(field);
            } else {
                metadata.set(field, value.deepCopy());
            }
        }
        if (!metadata.has("managedFields") && currentMetadata.has("managedFields")) {
            metadata.set("managedFields", currentMetadata.get("managedFields").deepCopy());
        }
        if (type.hasStatus() && !binding) {
            JsonNode status = current.get("status");
            if (status == null) {
                next.remove("status");
            } else {
                next.set("status", status.deepCopy());
            }
        }
        // defaulted before the comparison, so that a body leaving the defaults out changes nothing
        KindDefaults.applyOnWrite(type, next);
        if (KindDefaults.isService(type)) {
            services.allocate(next, current);
        }
        if (!binding) {
            kinds.dropDisabledFields(type, next, current);
        }
        if (KindDefaults.tracksGeneration(type) && !binding && specChanged(current, next)) {
            metadata.put("generation", Meta.generation(current) + 1);
        }
        return next;
    }

    private static boolean specChanged(ObjectNode current, ObjectNode next) {
        ObjectNode a = current.deepCopy();
        ObjectNode b = next.deepCopy();
        for (ObjectNode object : List.of(a, b)) {
            object.remove("metadata");
            object.remove("status");
        }
        return !a.equals(b);
    }

    private void validate(ResourceType type, ObjectNode object, ObjectNode old, boolean statusSubresource) {
        List<FieldError> errors = new ArrayList<>();
        if (!statusSubresource) {
            errors.addAll(ObjectMetaValidation.validate(type, object));
        }
        List<ObjectValidator> validators = new ArrayList<>();
        for (KindValidator builtin : builtinValidators) {
            if (builtin.appliesTo(type)) {
                validators.add(builtin.validator());
            }
        }
        validators.addAll(kinds.validators(type));
        for (ObjectValidator validator : validators) {
            if (old == null) {
                errors.addAll(validator.validateCreate(object));
            } else if (statusSubresource) {
                errors.addAll(validator.validateStatusUpdate(object, old));
            } else {
                errors.addAll(validator.validateUpdate(object, old));
            }
        }
        if (!errors.isEmpty()) {
            throw InvalidObject.of(type, Meta.name(object), errors);
        }
    }

    private void admit(AdmissionRequest request) {
        for (AdmissionPlugin plugin : admission) {
            plugin.admit(request);
        }
    }

    private static void checkIdentity(ResourceType type, String namespace, String name, ObjectNode object) {
        String bodyName = Meta.name(object);
        if (bodyName != null && !bodyName.isEmpty() && !bodyName.equals(name)) {
            throw ApiException.badRequest(String.format(
                    "the name of the object (%s) does not match the name on the URL (%s)", bodyName, name));
        }
        Json.metadata(object).put("name", name);
        if (type.namespaced()) {
            String bodyNamespace = Meta.namespace(object);
            if (bodyNamespace != null && !bodyNamespace.isEmpty() && !bodyNamespace.equals(namespace)) {
                throw ApiException.badRequest(
                        "the namespace of the provided object does not match the namespace sent on the request");
            }
        }
    }

    private static String storageNamespace(ResourceType type, String namespace) {
        return type.namespaced() ? namespace : null;
    }
}
