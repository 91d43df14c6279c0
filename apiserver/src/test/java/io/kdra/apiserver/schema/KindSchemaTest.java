package io.kdra.apiserver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.AnyType;
import io.fabric8.kubernetes.api.model.Duration;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kdra.apiserver.api.BuiltinResources;
import io.kdra.apiserver.json.Json;
import io.kdra.apiserver.resource.GoldenObjects;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.temporal.Temporal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

class KindSchemaTest {

    static Stream<Arguments> servedKinds() {
        return BuiltinResources.all().stream().flatMap(type -> type.versions().stream()
                .map(version -> Arguments.of(type.group(), version, type.kind())));
    }

    @ParameterizedTest(name = "{0}/{1} {2}")
    @MethodSource("servedKinds")
    void everyServedKindHasASchema(String group, String version, String kind) {
        assertThat(KindSchema.of(group, version, kind)).isPresent();
    }

    /**
     * Every value type reachable from a served kind is one the decoder knows, so that a model upgrade bringing a new
     * Java type (as ZonedDateTime for a Lease's times) fails here rather than turning valid objects into 400s.
     */
    @Test
    void everyTypeInTheServedKindsIsOneTheDecoderKnows() {
        Set<Class<?>> structs = new HashSet<>();
        Set<String> unknown = new TreeSet<>();
        servedKinds().forEach(kind -> {
            Object[] names = kind.get();
            ModelClasses.find((String) names[0], (String) names[1], (String) names[2])
                    .ifPresent(root -> collectLeaves(root, structs, unknown));
        });

        assertThat(unknown).isEmpty();
        assertThat(structs).hasSizeGreaterThan(100);
    }

    private static void collectLeaves(Type type, Set<Class<?>> structs, Set<String> unknown) {
        if (type instanceof ParameterizedType parameterized) {
            for (Type argument : parameterized.getActualTypeArguments()) {
                collectLeaves(argument, structs, unknown);
            }
            return;
        }
        Class<?> c = (Class<?>) type;
        if (c.getName().startsWith("java.")) {
            if (!DECODED_JAVA_TYPES.contains(c) && !Temporal.class.isAssignableFrom(c)) {
                unknown.add(c.getName());
            }
            return;
        }
        if (c.isInterface() || DECODED_MODEL_TYPES.contains(c) || !structs.add(c)) {
            return;
        }
        StructFields.of(c).fields().values().forEach(field -> collectLeaves(field, structs, unknown));
    }

    private static final Set<Class<?>> DECODED_JAVA_TYPES = Set.of(String.class, Integer.class, Long.class,
            Boolean.class, Double.class, Float.class, Object.class);
    private static final Set<Class<?>> DECODED_MODEL_TYPES = Set.of(Quantity.class, IntOrString.class,
            MicroTime.class, Duration.class, AnyType.class);

    @Test
    void subresourceBodiesHaveSchemas() {
        assertThat(KindSchema.of("", "v1", "Binding")).isPresent();
        assertThat(KindSchema.of("policy", "v1", "Eviction")).isPresent();
        assertThat(KindSchema.of("autoscaling", "v1", "Scale")).isPresent();
        assertThat(KindSchema.of("example.com", "v1", "Widget")).isEmpty();
    }

    static Stream<Arguments> goldenObjects() {
        return Stream.of(
                Arguments.of("deviceclass", "DeviceClass", List.of("v1", "v1beta2", "v1beta1")),
                Arguments.of("resourceclaim", "ResourceClaim", List.of("v1", "v1beta2", "v1beta1")),
                Arguments.of("resourceclaimtemplate", "ResourceClaimTemplate", List.of("v1", "v1beta2", "v1beta1")),
                Arguments.of("resourceslice-node", "ResourceSlice", List.of("v1", "v1beta2", "v1beta1")),
                Arguments.of("resourceslice-counters", "ResourceSlice", List.of("v1", "v1beta2", "v1beta1")),
                Arguments.of("resourceslice-partitions", "ResourceSlice", List.of("v1", "v1beta2", "v1beta1")),
                Arguments.of("devicetaintrule", "DeviceTaintRule", List.of("v1", "v1beta2", "v1alpha3")));
    }

    /** The golden objects use every DRA field the server converts and validates: the model must know them all. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldenObjects")
    void goldenObjectsHaveNoUnknownField(String object, String kind, List<String> versions) {
        for (String version : versions) {
            ObjectNode golden = GoldenObjects.load(object, version);
            ObjectNode decoded = golden.deepCopy();

            assertThat(schema("resource.k8s.io", version, kind).decode(decoded)).as(version).isEmpty();
            assertThat(decoded).as(version).isEqualTo(golden);
        }
    }

    @Test
    void unknownFieldsAtAnyDepthAreDroppedAndNamedWithListIndices() {
        ObjectNode claim = object("""
                {"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","lables":{}},
                 "spec":{"devices":{"requests":[
                   {"name":"a","exactly":{"deviceClassName":"gpu"}},
                   {"name":"b","exactly":{"deviceClassName":"gpu","cont":2,"selectors":[{"cel":{"expresion":"x"}}]}}],
                  "constraints":[{"requests":["a"],"matchAttribute":"x","distinct":true}]}},
                 "statuss":{}}""");

        List<String> unknown = schema("resource.k8s.io", "v1", "ResourceClaim").decode(claim);

        assertThat(unknown).containsExactly("metadata.lables", "spec.devices.requests[1].exactly.cont",
                "spec.devices.requests[1].exactly.selectors[0].cel.expresion", "spec.devices.constraints[0].distinct",
                "statuss");
        assertThat(Json.string(claim)).doesNotContain("lables", "cont", "expresion", "distinct", "statuss")
                .contains("\"deviceClassName\":\"gpu\"", "\"matchAttribute\":\"x\"");
    }

    @Test
    void theShapeOfEachVersionIsItsOwn() {
        String device = """
                {"apiVersion":"resource.k8s.io/%s","kind":"ResourceSlice","metadata":{"name":"s"},
                 "spec":{"driver":"d","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n",
                  "devices":[{"name":"gpu-0","basic":{"attributes":{"model":{"string":"a"}}}}]}}""";

        assertThat(schema("resource.k8s.io", "v1beta1", "ResourceSlice").decode(object(device.formatted("v1beta1"))))
                .isEmpty();
        assertThat(schema("resource.k8s.io", "v1", "ResourceSlice").decode(object(device.formatted("v1"))))
                .containsExactly("spec.devices[0].basic");
    }

    static Stream<Arguments> valuesOfTheWrongType() {
        return Stream.of(
                Arguments.of("Pod", "{'metadata':{'name':7}}",
                        "number into Go struct field ObjectMeta.metadata.name of type string"),
                Arguments.of("Pod", "{'spec':{'containers':{'name':'c'}}}",
                        "object into Go struct field PodSpec.spec.containers of type []v1.Container"),
                Arguments.of("Pod", "{'spec':{'containers':[{'name':'c','ports':[{'containerPort':'80'}]}]}}",
                        "string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"),
                Arguments.of("Pod", "{'spec':{'activeDeadlineSeconds':1.5}}",
                        "number 1.5 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64"),
                Arguments.of("Pod", "{'spec':{'priority':3000000000}}",
                        "number 3000000000 into Go struct field PodSpec.spec.priority of type int32"),
                Arguments.of("Pod", "{'metadata':{'labels':{'a':true}}}",
                        "bool into Go struct field ObjectMeta.metadata.labels of type string"),
                Arguments.of("Lease", "{'spec':{'renewTime':7}}",
                        "number into Go struct field LeaseSpec.spec.renewTime of type v1.MicroTime"),
                Arguments.of("Pod", "{'spec':'x'}", "string into Go struct field Pod.spec of type v1.PodSpec"),
                Arguments.of("ResourceClaim",
                        "{'spec':{'devices':{'requests':[{'name':'a','exactly':{'count':'2'}}]}}}",
                        "string into Go struct field ExactDeviceRequest.spec.devices.requests.exactly.count of type "
                                + "int64"));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("valuesOfTheWrongType")
    void aValueOfTheWrongTypeIsNamedAsGoNamesIt(String kind, String json, String cannotUnmarshal) {
        KindSchema schema = switch (kind) {
            case "Pod" -> schema("", "v1", kind);
            case "Lease" -> schema("coordination.k8s.io", "v1", kind);
            default -> schema("resource.k8s.io", "v1", kind);
        };

        assertThat(mismatch(schema, json.replace('\'', '"'))).isEqualTo("json: cannot unmarshal " + cannotUnmarshal);
    }

    @Test
    void quantitiesIntOrStringsOpaqueValuesAndNullsAreAcceptedAsGoAcceptsThem() {
        ObjectNode slice = object("""
                {"spec":{"devices":[{"name":"d","capacity":{"memory":{"value":"1Gi"},"cores":{"value":8}},
                  "attributes":{"n":{"int":3}}}]}}""");
        assertThat(schema("resource.k8s.io", "v1", "ResourceSlice").decode(slice)).isEmpty();

        ObjectNode claim = object("""
                {"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{"f:x":{}}}}],"labels":null},
                 "spec":{"devices":{"config":[{"opaque":{"driver":"d","parameters":{"any":["thing",1,{"x":null}]}}}]}},
                 "status":{"devices":[{"driver":"d","pool":"p","device":"x","data":[1,2]}]}}""");
        assertThat(schema("resource.k8s.io", "v1", "ResourceClaim").decode(claim)).isEmpty();

        ObjectNode pod = object("""
                {"spec":{"containers":[{"name":"c","ports":[{"containerPort":80}],
                  "livenessProbe":{"httpGet":{"port":"http"}},"readinessProbe":{"httpGet":{"port":8080}}}]}}""");
        assertThat(schema("", "v1", "Pod").decode(pod)).isEmpty();

        assertThat(mismatch(schema("resource.k8s.io", "v1", "ResourceSlice"),
                "{\"spec\":{\"devices\":[{\"name\":\"d\",\"capacity\":{\"m\":{\"value\":true}}}]}}"))
                .startsWith("quantities must match the regular expression");
    }

    private static String mismatch(KindSchema schema, String json) {
        return assertThatThrownBy(() -> schema.decode(object(json))).isInstanceOf(DecodingException.class)
                .actual().getMessage();
    }

    private static KindSchema schema(String group, String version, String kind) {
        return KindSchema.of(group, version, kind).orElseThrow();
    }

    private static ObjectNode object(String json) {
        return (ObjectNode) Json.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
