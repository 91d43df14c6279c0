package io.kdra.framework.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kdra.framework.Framework;
import io.kdra.framework.Timeouts;
import io.kdra.framework.Waits;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Upstream's {@code e2econformance.TestResource}: create, get, update, update and get status, patch with every given
 * patch type (each on a fresh object), list (also across namespaces) and delete-collection of one resource, through
 * the generic client. After each step an informer on the test's label must have caught up and seen the right sequence
 * of events for the object, with resourceVersions that never decrease. Content is not compared (admission may change
 * what is stored), only name and namespace, as in conformance runs.
 */
public final class TestResource {

    private static final String LABEL = "e2e-test.kubernetes.io";
    private static final Duration EVENT_WAIT = Duration.ofSeconds(5);
    private static final Duration NOT_FOUND_WAIT = Duration.ofSeconds(30);

    private record Event(String type, GenericKubernetesResource object) {
    }

    /** Collects informer events between two checks. */
    private static final class Recorder implements ResourceEventHandler<GenericKubernetesResource> {
        private final List<Event> events = new ArrayList<>();
        private String lastResourceVersion;

        @Override
        public synchronized void onAdd(GenericKubernetesResource object) {
            events.add(new Event("add", object));
        }

        @Override
        public synchronized void onUpdate(GenericKubernetesResource old, GenericKubernetesResource object) {
            events.add(new Event("update", object));
        }

        @Override
        public synchronized void onDelete(GenericKubernetesResource object, boolean finalStateUnknown) {
            events.add(new Event("delete", object));
        }

        synchronized String types() {
            StringBuilder types = new StringBuilder();
            events.forEach(event -> types.append(event.type()).append(','));
            return types.toString();
        }

        /** Checks the events since the last call and forgets them. */
        synchronized void next(String what, String uid) {
            for (Event event : events) {
                assertThat(event.object().getMetadata().getUid()).as("%s: UID of %s event", what, event.type())
                        .isEqualTo(uid);
                String version = event.object().getMetadata().getResourceVersion();
                if ("delete".equals(event.type())) {
                    lastResourceVersion = null;
                } else if (lastResourceVersion != null) {
                    assertThat(new BigInteger(version)).as("%s: resourceVersion after %s", what, lastResourceVersion)
                            .isGreaterThanOrEqualTo(new BigInteger(lastResourceVersion));
                }
                if (!"delete".equals(event.type())) {
                    lastResourceVersion = version;
                }
            }
            events.clear();
        }
    }

    private final Framework f;
    private final ResourceTestcase tc;
    private final KubernetesClient client;
    private final MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList,
            Resource<GenericKubernetesResource>> all;
    private final NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList,
            Resource<GenericKubernetesResource>> scoped;
    private final String name;
    private final List<SharedIndexInformer<GenericKubernetesResource>> informers = new ArrayList<>();
    private final List<Recorder> recorders = new ArrayList<>();

    private TestResource(Framework f, ResourceTestcase tc) {
        this.f = f;
        this.tc = tc;
        this.client = f.client();
        this.all = client.genericKubernetesResources(tc.apiVersion(), tc.kind());
        this.scoped = tc.namespaced() ? all.inNamespace(f.namespace()) : all;
        String initialName = tc.initial().getMetadata() == null || tc.initial().getMetadata().getName() == null
                ? "test" : tc.initial().getMetadata().getName();
        this.name = tc.namespaced() ? initialName : initialName + "-" + f.namespace();
    }

    /** Runs every step; fails the spec at the first step that does not behave. */
    public static void run(Framework f, ResourceTestcase tc) throws Exception {
        TestResource test = new TestResource(f, tc);
        try {
            test.steps();
        } finally {
            test.informers.forEach(SharedIndexInformer::close);
        }
    }

    private void steps() throws Exception {
        f.by("Get " + tc.apiVersion());
        String discovery = client.raw("/apis/" + tc.apiVersion());
        assertThat(discovery).as("API %s", tc.apiVersion()).isNotNull();
        assertThat(discoveredResources(discovery)).as("resources of %s", tc.apiVersion()).contains(tc.resource());

        GenericKubernetesResource desired = desiredInitial();
        startInformer(all);
        if (tc.namespaced()) {
            startInformer(scoped);
        }

        f.by("Creating " + tc.kind() + " " + name);
        GenericKubernetesResource existing = scoped.resource(desired)
                .fieldValidation(FieldValidateable.Validation.STRICT).create();
        f.cleanup("delete " + tc.kind() + " " + name, () -> {
            scoped.withName(name).delete();
            ensureNotFound();
        });
        verify("create", existing, true, "^add,(update,)*$");
        BigInteger createdVersion = new BigInteger(existing.getMetadata().getResourceVersion());

        f.by("Getting " + name);
        existing = scoped.withName(name).get();
        verify("get", existing, true, "^(update,)*$");

        existing = update(existing, tc.updateSpec(), false);
        verify("update", existing, true, "^(update,)+$");
        assertThat(new BigInteger(existing.getMetadata().getResourceVersion()))
                .as("resourceVersion after update").isGreaterThan(createdVersion);

        if (tc.hasStatus()) {
            existing = update(existing, tc.updateStatus(), true);
            verify("update status", existing, true, "^(update,)+$");
            f.by("Getting " + name + " status");
            existing = getStatus();
            verify("get status", existing, true, "^(update,)*$");
        }

        for (ResourceTestcase.Patch patch : tc.specPatches()) {
            existing = recreate(existing);
            f.by("Patching with " + patch.kind());
            existing = patch(scoped.resource(existing), patch, existing, false);
            verify("patch " + patch.kind(), existing, true, "^add,(update,)+$");
        }
        for (ResourceTestcase.Patch patch : tc.statusPatches()) {
            existing = recreate(existing);
            existing = update(existing, tc.updateSpec(), false);
            f.by("Patching status with " + patch.kind());
            existing = patch(scoped.resource(existing), patch, existing, true);
            verify("patch " + patch.kind() + " status", existing, true, "^add,(update,)+$");
        }

        f.by("Listing " + tc.resource() + " with label selector " + LABEL + "=" + f.uniqueName());
        List<GenericKubernetesResource> items = scoped.withLabel(LABEL, f.uniqueName()).list().getItems();
        assertThat(items).as("listed test resources").hasSize(1);
        verify("list", items.get(0), true, "^(update,)*$");
        if (tc.namespaced()) {
            items = all.inAnyNamespace().withLabel(LABEL, f.uniqueName()).list().getItems();
            assertThat(items).as("test resources listed in all namespaces").hasSize(1);
            verify("list all namespaces", items.get(0), true, "^(update,)*$");
        }

        f.by("Deleting " + tc.resource() + " collection with label selector");
        scoped.withLabel(LABEL, f.uniqueName()).delete();
        ensureNotFound();
        verify("delete collection", existing, false, "^(update,)*delete,$");
    }

    private GenericKubernetesResource desiredInitial() {
        GenericKubernetesResource desired = Serialization.clone(tc.initial());
        desired.setApiVersion(tc.apiVersion());
        desired.setKind(tc.kind());
        if (desired.getMetadata() == null) {
            desired.setMetadata(new ObjectMeta());
        }
        desired.getMetadata().setName(name);
        if (tc.namespaced()) {
            desired.getMetadata().setNamespace(f.namespace());
        }
        Map<String, String> labels = desired.getMetadata().getLabels() == null ? new HashMap<>()
                : new HashMap<>(desired.getMetadata().getLabels());
        labels.put(LABEL, f.uniqueName());
        desired.getMetadata().setLabels(labels);
        return desired;
    }

    private void startInformer(NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList,
            Resource<GenericKubernetesResource>> operation) {
        Recorder recorder = new Recorder();
        informers.add(operation.withLabel(LABEL, f.uniqueName()).inform(recorder));
        recorders.add(recorder);
        assertThat(recorder.types()).as("events before the first step").isEmpty();
    }

    private void startInformer(MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList,
            Resource<GenericKubernetesResource>> operation) {
        Recorder recorder = new Recorder();
        informers.add(operation.inAnyNamespace().withLabel(LABEL, f.uniqueName()).inform(recorder));
        recorders.add(recorder);
        assertThat(recorder.types()).as("events before the first step").isEmpty();
    }

    /** Updates through the main resource or the status, re-reading on conflicts as upstream. */
    private GenericKubernetesResource update(GenericKubernetesResource existing,
            UnaryOperator<GenericKubernetesResource> change, boolean status) {
        GenericKubernetesResource current = existing;
        for (int attempt = 0; ; attempt++) {
            GenericKubernetesResource changed = change.apply(Serialization.clone(current));
            f.by((status ? "Updating status of " : "Updating ") + name);
            try {
                return status ? scoped.resource(changed).updateStatus() : scoped.resource(changed).update();
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt >= 10) {
                    throw e;
                }
                current = status ? getStatus() : scoped.withName(name).get();
            }
        }
    }

    private GenericKubernetesResource getStatus() {
        String path = "/apis/" + tc.apiVersion() + (tc.namespaced() ? "/namespaces/" + f.namespace() : "") + "/"
                + tc.resource() + "/" + name + "/status";
        return Serialization.unmarshal(client.raw(path), GenericKubernetesResource.class);
    }

    private GenericKubernetesResource recreate(GenericKubernetesResource existing) {
        f.by("Deleting " + name);
        scoped.withName(name).delete();
        ensureNotFound();
        verify("delete", existing, false, "^(update,)*delete,$");
        f.by("Creating " + name + " again");
        return scoped.resource(desiredInitial()).create();
    }

    private GenericKubernetesResource patch(Resource<GenericKubernetesResource> target, ResourceTestcase.Patch patch,
            GenericKubernetesResource existing, boolean status) {
        String body = patch.body();
        if (patch.kind() != ResourceTestcase.PatchKind.JSON) {
            @SuppressWarnings("unchecked")
            Map<String, Object> object = Serialization.unmarshal(body, Map.class);
            @SuppressWarnings("unchecked")
            Map<String, Object> metadata = (Map<String, Object>) object.computeIfAbsent("metadata",
                    key -> new HashMap<String, Object>());
            metadata.put("name", existing.getMetadata().getName());
            if (existing.getMetadata().getNamespace() != null) {
                metadata.put("namespace", existing.getMetadata().getNamespace());
            }
            metadata.put("uid", existing.getMetadata().getUid());
            object.put("apiVersion", existing.getApiVersion());
            object.put("kind", existing.getKind());
            body = Serialization.asJson(object);
        }
        PatchContext.Builder context = new PatchContext.Builder().withFieldValidation("Strict");
        switch (patch.kind()) {
            case STRATEGIC_MERGE -> context.withPatchType(PatchType.STRATEGIC_MERGE);
            case APPLY -> context.withPatchType(PatchType.SERVER_SIDE_APPLY).withFieldManager("test-apply")
                    .withForce(true);
            case JSON_MERGE -> context.withPatchType(PatchType.JSON_MERGE);
            case JSON -> context.withPatchType(PatchType.JSON);
            default -> throw new IllegalArgumentException("patch kind " + patch.kind());
        }
        return status ? target.subresource("status").patch(context.build(), body)
                : target.patch(context.build(), body);
    }

    private void ensureNotFound() {
        f.by("Checking for existence");
        Waits.until(name + " removed", NOT_FOUND_WAIT)
                .until(() -> scoped.withName(name).get() == null);
    }

    /**
     * Checks the returned object's name and namespace, then that every informer's cache caught up (holding the
     * object at the returned resourceVersion or a later one, or nothing) and that its events since the last check match {@code events}.
     */
    private void verify(String what, GenericKubernetesResource actual, boolean exists, String events) {
        if (exists) {
            assertThat(actual.getMetadata().getName()).as("%s: name", what).isEqualTo(name);
            assertThat(actual.getMetadata().getNamespace()).as("%s: namespace", what)
                    .isEqualTo(tc.namespaced() ? f.namespace() : null);
            assertThat(actual.getMetadata().getResourceVersion()).as("%s: resourceVersion", what).matches("[0-9]+");
        }
        Pattern expected = Pattern.compile(events);
        for (int i = 0; i < informers.size(); i++) {
            SharedIndexInformer<GenericKubernetesResource> informer = informers.get(i);
            Recorder recorder = recorders.get(i);
            Waits.until(what + ": informer cache", f.timeouts().podStartShort())
                    .until(() -> {
                        List<GenericKubernetesResource> cached = informer.getStore().list();
                        // at or past the returned version: a controller may write the object's status at once (the
                        // device taint eviction controller does so for a new DeviceTaintRule)
                        return exists ? cached.size() == 1 && name.equals(cached.get(0).getMetadata().getName())
                                && Long.parseLong(cached.get(0).getMetadata().getResourceVersion())
                                        >= Long.parseLong(actual.getMetadata().getResourceVersion())
                                : cached.isEmpty();
                    });
            Waits.until(what + ": informer events match " + events, EVENT_WAIT)
                    .until(() -> expected.matcher(recorder.types()).matches());
            recorder.next(what, actual.getMetadata().getUid());
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> discoveredResources(String discovery) {
        Map<String, Object> list = Serialization.unmarshal(discovery, Map.class);
        return ((List<Map<String, Object>>) list.get("resources")).stream().map(r -> (String) r.get("name")).toList();
    }
}
