package io.kdra.kubelet.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;
import io.kdra.kubelet.api.dra.v1.DRAPluginGrpc;
import io.kdra.kubelet.api.dra.v1alpha4.NodeGrpc;
import io.kdra.kubelet.api.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.kdra.kubelet.api.pluginregistration.v1.RegistrationGrpc;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Checks the generated stubs against the hand-written table {@code kubelet-contracts.txt}, which is taken from the
 * reference protos. Full method names come from the gRPC service descriptors (what goes on the wire); types and field
 * numbers come from the protobuf descriptors behind them.
 */
class KubeletContractsTest {

    private static final List<io.grpc.ServiceDescriptor> SERVICES = List.of(
            RegistrationGrpc.getServiceDescriptor(),
            NodeGrpc.getServiceDescriptor(),
            io.kdra.kubelet.api.dra.v1beta1.DRAPluginGrpc.getServiceDescriptor(),
            DRAPluginGrpc.getServiceDescriptor(),
            DRAResourceHealthGrpc.getServiceDescriptor(),
            io.kdra.kubelet.api.drahealth.v1beta1.DRAResourceHealthGrpc.getServiceDescriptor(),
            io.kdra.kubelet.api.drahealth.v1.DRAResourceHealthGrpc.getServiceDescriptor());

    @Test
    void generatedContractsMatchTheReferenceTable() throws IOException {
        List<String> rendered = new ArrayList<>();
        SERVICES.forEach(service -> rendered.addAll(render(service)));

        assertThat(rendered).containsExactlyElementsOf(expectedTable());
    }

    @Test
    void everyServiceUsesTheUpstreamWireName() {
        assertThat(SERVICES).extracting(io.grpc.ServiceDescriptor::getName).containsExactly(
                "pluginregistration.Registration",
                "v1alpha3.Node",
                "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin",
                "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin",
                "v1alpha1.DRAResourceHealth",
                "v1beta1.DRAResourceHealth",
                "v1.DRAResourceHealth");
    }

    private static List<String> render(io.grpc.ServiceDescriptor service) {
        List<String> lines = new ArrayList<>();
        ServiceDescriptor proto = null;
        for (io.grpc.MethodDescriptor<?, ?> method : service.getMethods()) {
            MethodDescriptor protoMethod =
                    ((ProtoMethodDescriptorSupplier) method.getSchemaDescriptor()).getMethodDescriptor();
            if (proto == null) {
                proto = protoMethod.getService();
                lines.add("service " + proto.getFullName());
            }
            String stream = method.getType() == MethodType.SERVER_STREAMING ? "stream " : "";
            lines.add("  rpc /" + method.getFullMethodName()
                    + " (" + protoMethod.getInputType().getFullName() + ")"
                    + " returns (" + stream + protoMethod.getOutputType().getFullName() + ")");
        }
        for (Descriptor message : proto.getFile().getMessageTypes()) {
            lines.add("message " + message.getFullName());
            message.getFields().forEach(field -> lines.add("  " + field.getNumber() + " " + field.getName() + " "
                    + typeOf(field)));
        }
        for (EnumDescriptor enumType : proto.getFile().getEnumTypes()) {
            lines.add("enum " + enumType.getFullName());
            enumType.getValues().forEach(value -> lines.add("  " + value.getNumber() + " " + value.getName()));
        }
        return lines;
    }

    private static String typeOf(FieldDescriptor field) {
        if (field.isMapField()) {
            Descriptor entry = field.getMessageType();
            return "map<" + scalarOrNamed(entry.findFieldByName("key")) + ", "
                    + scalarOrNamed(entry.findFieldByName("value")) + ">";
        }
        String prefix = field.isRepeated() ? "repeated " : field.hasPresence() && !isMessage(field) ? "optional " : "";
        return prefix + scalarOrNamed(field);
    }

    private static boolean isMessage(FieldDescriptor field) {
        return field.getJavaType() == FieldDescriptor.JavaType.MESSAGE;
    }

    private static String scalarOrNamed(FieldDescriptor field) {
        return switch (field.getType()) {
            case MESSAGE -> field.getMessageType().getFullName();
            case ENUM -> field.getEnumType().getFullName();
            default -> field.getType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private static List<String> expectedTable() throws IOException {
        try (InputStream in = KubeletContractsTest.class.getResourceAsStream("/kubelet-contracts.txt")) {
            return Stream.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"))
                    .filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .toList();
        }
    }
}
