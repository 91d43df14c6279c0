package io.kdra.framework;

import static org.assertj.core.api.Assertions.assertThat;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.PodSchedulingGroupBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroup;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaim;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.PodGroupTemplate;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.Workload;
import io.fabric8.kubernetes.api.model.scheduling.v1beta1.WorkloadBuilder;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintRule;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's {@code utils.Builder}: the objects of a spec, named as upstream names them. Before each spec it creates
 * the DeviceClass {@code <namespace><nameSuffix>-class} that selects the driver's devices; after it, it deletes the
 * spec's pods and claims and waits until the driver unprepared them, before the driver is torn down.
 *
 * <pre>{@code
 * PodWithTemplate inline = b.podInline();
 * b.create(inline.pod(), inline.template());
 * b.testPod(inline.pod());                  // runs, and every container has user_a=b
 * }</pre>
 */
public final class Builder {

    private static final Logger LOG = LoggerFactory.getLogger(Builder.class);
    /** The request of every claim the builder makes. */
    public static final String REQUEST_NAME = "my-request";
    /** The pod's name for the claim of {@link #podInline()}. */
    public static final String INLINE_CLAIM_NAME = "my-inline-claim";
    /** The pod's name for the claim of {@link #podExternal()}. */
    public static final String EXTERNAL_POD_CLAIM_NAME = "resource-claim";
    /** The opaque parameters of every claim; the driver turns them into {@code user_a=b}. */
    public static final Map<String, String> PARAMETERS = Map.of("a", "b");
    /** The image of the test containers; the embedded cluster's runtime runs no images, a real cluster pulls it. */
    public static final String BUSYBOX_IMAGE = "registry.k8s.io/e2e-test-images/busybox:1.37.0-1";
    /** Pods with this label belong to the driver and survive the teardown. */
    public static final String DRIVER_POD_LABEL = "app.kubernetes.io/part-of";
    private static final Pattern DRIVER_ENV = Pattern.compile("^(?:admin|user|claim)_[a-zA-Z0-9_]*=.*$");

    /** A pod with the ResourceClaimTemplate it uses. */
    public record PodWithTemplate(Pod pod, ResourceClaimTemplate template) {
    }

    /** A Workload whose pod group template uses the ResourceClaimTemplate (upstream's {@code WorkloadInline}). */
    public record WorkloadWithTemplate(Workload workload, ResourceClaimTemplate template) {
    }

    /** A pod with the ResourceClaimTemplate it uses, written in {@code resource.k8s.io/v1beta1}. */
    public record PodWithV1beta1Template(Pod pod,
            io.fabric8.kubernetes.api.model.resource.v1beta1.ResourceClaimTemplate template) {
    }

    /** A pod with the ResourceClaimTemplate it uses, written in {@code resource.k8s.io/v1beta2}. */
    public record PodWithV1beta2Template(Pod pod,
            io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceClaimTemplate template) {
    }

    private final Framework framework;
    private final Driver driver;
    private String classParameters;
    private int podCounter;
    private int workloadCounter;
    private int podGroupCounter;
    private int claimCounter;

    private Builder(Framework framework, Driver driver) {
        this.framework = framework;
        this.driver = driver;
    }

    /** A builder set up before each spec (upstream's {@code NewBuilder}). */
    public static Builder create(Framework framework, Driver driver) {
        Builder builder = new Builder(framework, driver);
        framework.beforeEach("set up builder", builder::setUp);
        return builder;
    }

    /** A builder set up now, inside a spec (upstream's {@code NewBuilderNow}). */
    public static Builder now(Framework framework, Driver driver) {
        Builder builder = new Builder(framework, driver);
        builder.setUp();
        return builder;
    }

    /** Opaque parameters (JSON) of the DeviceClass; the driver turns them into {@code admin_<key>=<value>}. */
    public Builder classParameters(String json) {
        this.classParameters = json;
        return this;
    }

    private void setUp() {
        podCounter = 0;
        workloadCounter = 0;
        podGroupCounter = 0;
        claimCounter = 0;
        create(deviceClass());
        framework.cleanup("builder teardown", this::tearDown);
    }

    /** {@code <namespace><nameSuffix>-class}. */
    public String className() {
        return framework.namespace() + driver.nameSuffix() + "-class";
    }

    public String driverName() {
        return driver.name();
    }

    /** The DeviceClass that selects every device of the driver, with the class parameters if set. */
    public DeviceClass deviceClass() {
        DeviceClassBuilder deviceClass = new DeviceClassBuilder().withNewMetadata().withName(className())
                .endMetadata().withNewSpec().addNewSelector().withNewCel()
                .withExpression("device.driver == \"" + driver.name() + "\"").endCel().endSelector().endSpec();
        if (classParameters != null) {
            deviceClass.editSpec().addNewConfig().withNewOpaque().withDriver(driver.name())
                    .withParameters(Serialization.unmarshal(classParameters, Object.class)).endOpaque().endConfig()
                    .endSpec();
        }
        return deviceClass.build();
    }

    /**
     * An extended resource name of the driver, {@code <driver>/resource-<suffix>}: unique per spec, as the driver
     * name is.
     */
    public String extendedResourceName(String suffix) {
        return driver.name() + "/resource-" + suffix;
    }

    /**
     * The default class renamed to {@code <className>-<last path segment of the name>} and backing the extended
     * resource (DeviceClass {@code spec.extendedResourceName}).
     */
    public DeviceClass classWithExtendedResource(String extendedResource) {
        DeviceClass deviceClass = deviceClass();
        deviceClass.getMetadata().setName(className() + "-" + extendedResource.substring(
                extendedResource.lastIndexOf('/') + 1));
        deviceClass.getSpec().setExtendedResourceName(extendedResource);
        return deviceClass;
    }

    /** A claim {@code external-claim<nameSuffix>}, then {@code external-claim<nameSuffix>-2}, ... */
    public ResourceClaim externalClaim() {
        claimCounter++;
        String name = "external-claim" + driver.nameSuffix() + (claimCounter > 1 ? "-" + claimCounter : "");
        return new ResourceClaimBuilder().withNewMetadata().withName(name).withNamespace(framework.namespace())
                .endMetadata().withSpec(claimSpec()).build();
    }

    /** One request {@value #REQUEST_NAME} for a device of the class, with the parameters {@code {"a":"b"}}. */
    public ResourceClaimSpec claimSpec() {
        return new ResourceClaimSpecBuilder().withNewDevices()
                .addNewRequest().withName(REQUEST_NAME).withNewExactly().withDeviceClassName(className())
                .endExactly().endRequest()
                .addNewConfig().withNewOpaque().withDriver(driver.name()).withParameters(new LinkedHashMap<>(PARAMETERS))
                .endOpaque().endConfig()
                .endDevices().build();
    }

    /** The environment the claim parameters give every container: {@code user_a}, {@code b}. */
    public List<String> parametersEnv() {
        List<String> env = new ArrayList<>();
        PARAMETERS.forEach((key, value) -> {
            env.add("user_" + key);
            env.add(value);
        });
        return env;
    }

    /** A pod {@code tester<nameSuffix>-<n>} with one container that runs until stopped, restart policy Never. */
    public Pod pod() {
        podCounter++;
        return new PodBuilder().withNewMetadata().withName("tester" + driver.nameSuffix() + "-" + podCounter)
                .withNamespace(framework.namespace()).endMetadata()
                .withNewSpec().withRestartPolicy("Never")
                // no command: the container idles like pause until SIGTERM (upstream runs a shell sleep loop)
                .addToContainers(new ContainerBuilder().withName("write-pod").withImage(BUSYBOX_IMAGE).build())
                .endSpec().build();
    }

    /** A pod whose container {@code with-resource} uses the claim {@value #INLINE_CLAIM_NAME} from a template. */
    public PodWithTemplate podInline() {
        Pod pod = pod();
        Container container = pod.getSpec().getContainers().get(0);
        container.setName("with-resource");
        useClaim(container, INLINE_CLAIM_NAME);
        String name = pod.getMetadata().getName();
        pod.getSpec().setResourceClaims(List.of(new PodResourceClaimBuilder()
                .withName(INLINE_CLAIM_NAME).withResourceClaimTemplateName(name).build()));
        ResourceClaimTemplate template = new ResourceClaimTemplateBuilder().withNewMetadata().withName(name)
                .withNamespace(framework.namespace()).endMetadata().withNewSpec().withSpec(claimSpec()).endSpec()
                .build();
        return new PodWithTemplate(pod, template);
    }

    /**
     * Like {@link #podInline()}, with the template in {@code resource.k8s.io/v1beta1}, whose requests have no
     * {@code exactly} level (upstream's {@code PodInlineWithV1beta1}).
     */
    public PodWithV1beta1Template podInlineWithV1beta1() {
        Pod pod = podInline().pod();
        return new PodWithV1beta1Template(pod,
                new io.fabric8.kubernetes.api.model.resource.v1beta1.ResourceClaimTemplateBuilder()
                        .withNewMetadata().withName(pod.getMetadata().getName()).withNamespace(framework.namespace())
                        .endMetadata().withNewSpec().withSpec(claimSpecWithV1beta1()).endSpec().build());
    }

    /** Like {@link #podInline()}, with the template in {@code resource.k8s.io/v1beta2} (v1's shape). */
    public PodWithV1beta2Template podInlineWithV1beta2() {
        Pod pod = podInline().pod();
        return new PodWithV1beta2Template(pod,
                new io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceClaimTemplateBuilder()
                        .withNewMetadata().withName(pod.getMetadata().getName()).withNamespace(framework.namespace())
                        .endMetadata().withNewSpec().withSpec(claimSpecWithV1beta2()).endSpec().build());
    }

    /** {@link #claimSpec()} in {@code resource.k8s.io/v1beta1}. */
    public io.fabric8.kubernetes.api.model.resource.v1beta1.ResourceClaimSpec claimSpecWithV1beta1() {
        return new io.fabric8.kubernetes.api.model.resource.v1beta1.ResourceClaimSpecBuilder().withNewDevices()
                .addNewRequest().withName(REQUEST_NAME).withDeviceClassName(className()).endRequest()
                .addNewConfig().withNewOpaque().withDriver(driver.name()).withParameters(new LinkedHashMap<>(PARAMETERS))
                .endOpaque().endConfig()
                .endDevices().build();
    }

    /** {@link #claimSpec()} in {@code resource.k8s.io/v1beta2}. */
    public io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceClaimSpec claimSpecWithV1beta2() {
        return new io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceClaimSpecBuilder().withNewDevices()
                .addNewRequest().withName(REQUEST_NAME).withNewExactly().withDeviceClassName(className())
                .endExactly().endRequest()
                .addNewConfig().withNewOpaque().withDriver(driver.name()).withParameters(new LinkedHashMap<>(PARAMETERS))
                .endOpaque().endConfig()
                .endDevices().build();
    }

    /** Like {@link #podInline()} with three containers using the claim. */
    public PodWithTemplate podInlineMultiple() {
        PodWithTemplate inline = podInline();
        addCopies(inline.pod());
        return inline;
    }

    /** A pod that uses {@code external-claim<nameSuffix>} as {@value #EXTERNAL_POD_CLAIM_NAME}. */
    public Pod podExternal() {
        return podExternal("external-claim" + driver.nameSuffix());
    }

    /** A pod whose container {@code with-resource} uses the named claim as {@value #EXTERNAL_POD_CLAIM_NAME}. */
    public Pod podExternal(String claimName) {
        Pod pod = pod();
        Container container = pod.getSpec().getContainers().get(0);
        container.setName("with-resource");
        useClaim(container, EXTERNAL_POD_CLAIM_NAME);
        pod.getSpec().setResourceClaims(List.of(new PodResourceClaimBuilder()
                .withName(EXTERNAL_POD_CLAIM_NAME).withResourceClaimName(claimName).build()));
        return pod;
    }

    /** Like {@link #podExternal()} with three containers using the claim. */
    public Pod podExternalMultiple() {
        Pod pod = podExternal();
        addCopies(pod);
        return pod;
    }

    /**
     * A pod {@code tester<nameSuffix>-<n>} in the PodGroup whose container uses every claim of the group, each with
     * the group's name and source, so that the pods of the group share them (upstream's
     * {@code GroupedPodWithClaims}).
     */
    public Pod groupedPodWithClaims(PodGroup podGroup) {
        Pod pod = pod();
        pod.getSpec().setSchedulingGroup(new PodSchedulingGroupBuilder()
                .withPodGroupName(podGroup.getMetadata().getName()).build());
        List<PodResourceClaim> claims = new ArrayList<>();
        List<io.fabric8.kubernetes.api.model.ResourceClaim> containerClaims = new ArrayList<>();
        for (PodGroupResourceClaim claim : podGroup.getSpec().getResourceClaims() == null
                ? List.<PodGroupResourceClaim>of() : podGroup.getSpec().getResourceClaims()) {
            claims.add(new PodResourceClaimBuilder().withName(claim.getName())
                    .withResourceClaimName(claim.getResourceClaimName())
                    .withResourceClaimTemplateName(claim.getResourceClaimTemplateName()).build());
            containerClaims.add(new io.fabric8.kubernetes.api.model.ResourceClaimBuilder().withName(claim.getName())
                    .build());
        }
        pod.getSpec().setResourceClaims(claims);
        pod.getSpec().getContainers().get(0).setResources(new ResourceRequirementsBuilder()
                .withClaims(containerClaims).build());
        return pod;
    }

    /**
     * A Workload {@code tester<nameSuffix>-<n>} (counting from 0) with one pod group template {@code group} of basic
     * scheduling and no claims.
     */
    public Workload workload() {
        Workload workload = new WorkloadBuilder().withNewMetadata().withNamespace(framework.namespace())
                .withName("tester" + driver.nameSuffix() + "-" + workloadCounter).endMetadata()
                .withNewSpec().addNewPodGroupTemplate().withName("group").withNewSchedulingPolicy()
                .withNewBasic().endBasic().endSchedulingPolicy().endPodGroupTemplate().endSpec().build();
        workloadCounter++;
        return workload;
    }

    /** A {@link #workload()} whose template uses the named claim as {@value #EXTERNAL_POD_CLAIM_NAME}. */
    public Workload workloadExternal(String externalClaimName) {
        Workload workload = workload();
        workload.getSpec().getPodGroupTemplates().get(0).setResourceClaims(List.of(new PodGroupResourceClaimBuilder()
                .withName(EXTERNAL_POD_CLAIM_NAME).withResourceClaimName(externalClaimName).build()));
        return workload;
    }

    /**
     * A {@link #workload()} whose template uses the claim {@value #INLINE_CLAIM_NAME} from a ResourceClaimTemplate
     * named like the Workload, with that template.
     */
    public WorkloadWithTemplate workloadInline() {
        Workload workload = workload();
        String name = workload.getMetadata().getName();
        workload.getSpec().getPodGroupTemplates().get(0).setResourceClaims(List.of(new PodGroupResourceClaimBuilder()
                .withName(INLINE_CLAIM_NAME).withResourceClaimTemplateName(name).build()));
        ResourceClaimTemplate template = new ResourceClaimTemplateBuilder().withNewMetadata().withName(name)
                .withNamespace(framework.namespace()).endMetadata().withNewSpec().withSpec(claimSpec()).endSpec()
                .build();
        return new WorkloadWithTemplate(workload, template);
    }

    /**
     * A PodGroup {@code <workload>-<template>-<n>} (counting from 0) made from the Workload's template, as a workload
     * controller makes it: a reference to both, the template's scheduling policy and claims.
     */
    public PodGroup podGroup(Workload workload, PodGroupTemplate template) {
        PodGroup podGroup = new PodGroupBuilder().withNewMetadata().withNamespace(framework.namespace())
                .withName(workload.getMetadata().getName() + "-" + template.getName() + "-" + podGroupCounter)
                .endMetadata()
                .withNewSpec().withNewWorkloadRef().withWorkloadName(workload.getMetadata().getName())
                .withTemplateName(template.getName()).endWorkloadRef()
                .withSchedulingPolicy(template.getSchedulingPolicy())
                .withResourceClaims(template.getResourceClaims()).endSpec().build();
        podGroupCounter++;
        return podGroup;
    }

    private static void useClaim(Container container, String podClaimName) {
        container.setResources(new ResourceRequirementsBuilder().addNewClaim()
                .withName(podClaimName).endClaim().build());
    }

    private static void addCopies(Pod pod) {
        Container first = pod.getSpec().getContainers().get(0);
        for (int i = 1; i <= 2; i++) {
            pod.getSpec().getContainers().add(new ContainerBuilder(first).withName(first.getName() + "-" + i).build());
        }
    }

    /**
     * Creates the objects in order, in the spec's namespace where they are namespaced, and returns them as stored.
     * DeviceClasses, ResourceSlices, DeviceTaintRules and DaemonSets are deleted after the spec.
     */
    public List<HasMetadata> create(HasMetadata... objects) {
        List<HasMetadata> created = new ArrayList<>();
        for (HasMetadata object : objects) {
            created.add(createOne(object));
        }
        return created;
    }

    /** Creates one object, see {@link #create(HasMetadata...)}. */
    public <T extends HasMetadata> T create(T object) {
        return createOne(object);
    }

    private <T extends HasMetadata> T createOne(T object) {
        KubernetesClient client = framework.client();
        if (object instanceof Namespaced && object.getMetadata().getNamespace() == null) {
            object.getMetadata().setNamespace(framework.namespace());
        }
        LOG.info("Creating {} {}", object.getKind(), object.getMetadata().getName());
        T created = client.resource(object).create();
        if (created instanceof DeviceClass || created instanceof ResourceSlice || created instanceof DeviceTaintRule
                || created instanceof DaemonSet) {
            framework.cleanup("delete " + created.getKind() + " " + created.getMetadata().getName(),
                    () -> client.resource(created).delete());
        }
        return created;
    }

    /**
     * Checks that the pod runs and that every container has the environment (default: the claim parameters,
     * {@code user_a=b}); for a driver without kubelet only that the pod is scheduled.
     *
     * @param env alternating names and values
     */
    public void testPod(Pod pod, String... env) throws Exception {
        if (!driver.withKubelet()) {
            Pods.waitForScheduled(framework, pod);
            return;
        }
        Pods.waitForRunning(framework, pod);
        String[] expected = env.length == 0 ? parametersEnv().toArray(String[]::new) : env;
        for (Container container : pod.getSpec().getContainers()) {
            testContainerEnv(framework, pod, container.getName(), false, expected);
        }
    }

    /**
     * Runs {@code env} in the container. With {@code fullMatch} its driver variables ({@code admin_*}, {@code user_*},
     * {@code claim_*}) must be exactly the given ones; otherwise the output must contain each {@code name=value} line
     * end, as upstream's substring match (so {@code container_0_request_0=true} matches the driver's
     * {@code claim_<claim>_container_0_request_0=true}).
     *
     * @param env alternating names and values
     */
    public static void testContainerEnv(Framework framework, Pod pod, String container, boolean fullMatch,
            String... env) throws Exception {
        if (env.length % 2 != 0) {
            throw new IllegalArgumentException("env must alternate names and values, got " + Arrays.toString(env));
        }
        Pods.ExecResult result = Pods.exec(framework, pod, container, "env");
        assertThat(result.stderr()).as("stderr of env in container %s", container).isEmpty();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < env.length; i += 2) {
            expected.add(env[i] + "=" + env[i + 1]);
        }
        if (fullMatch) {
            List<String> actual = result.stdout().lines().filter(line -> DRIVER_ENV.matcher(line).matches())
                    .sorted().toList();
            assertThat(actual).as("driver env variables in container %s", container)
                    .isEqualTo(expected.stream().sorted().toList());
        } else {
            for (String variable : expected) {
                assertThat(result.stdout()).as("env of container %s", container).contains(variable + "\n");
            }
        }
    }

    /** Deletes the spec's PodGroups and waits until they are gone; nothing to do where the API is not served. */
    private void deletePodGroups(KubernetesClient client, String namespace) {
        if (!client.supports(PodGroup.class)) {
            return;
        }
        client.resources(PodGroup.class).inNamespace(namespace).delete();
        Waits.until("podgroups deleted", framework.timeouts().builderTearDown())
                .until(() -> client.resources(PodGroup.class).inNamespace(namespace).list().getItems().isEmpty());
    }

    /** Deletes the pod and waits until it is gone (upstream's 5-minute pod delete timeout). */
    public void deletePodAndWaitForNotFound(Pod pod) {
        framework.client().resource(pod).delete();
        Pods.waitForNotFound(framework, pod, framework.timeouts().podDelete());
    }

    /**
     * Deletes the spec's pods, then its PodGroups (which releases the claims reserved for them), then its claims, and
     * waits until the driver unprepared them, so that the driver is not deleted first.
     */
    private void tearDown() {
        KubernetesClient client = framework.client();
        String namespace = framework.namespace();
        framework.by("delete pods and claims");
        List<Pod> pods = client.pods().inNamespace(namespace).list().getItems().stream()
                .filter(pod -> !"dra-test-driver".equals(pod.getMetadata().getLabels().get(DRIVER_POD_LABEL)))
                .toList();
        for (Pod pod : pods) {
            client.resource(pod).delete();
        }
        List<String> podNames = pods.stream().map(pod -> pod.getMetadata().getName()).toList();
        Waits.until("test pods deleted", framework.timeouts().builderTearDown())
                .until(() -> client.pods().inNamespace(namespace).list().getItems().stream()
                        .noneMatch(pod -> podNames.contains(pod.getMetadata().getName())));
        deletePodGroups(client, namespace);
        client.resources(ResourceClaim.class).inNamespace(namespace).delete();
        for (NodePlugin plugin : driver.nodes().values()) {
            Waits.until("claims unprepared on " + plugin.nodeName(), framework.timeouts().builderTearDown()).until(() -> plugin.preparedClaims().isEmpty());
        }
        Waits.until("claims deleted", framework.timeouts().builderTearDown())
                .until(() -> client.resources(ResourceClaim.class).inNamespace(namespace).list().getItems()
                        .isEmpty());
    }
}
