package io.kdra.allocator.cel;

import io.kdra.kube.Quantity;
import io.kdra.kube.net.IpAddress;
import io.kdra.kube.net.Cidr;
import com.google.common.primitives.UnsignedLong;
import dev.cel.common.types.TypeType;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** CEL type names of runtime values as cel-go prints them in error messages. */
final class CelValueTypes {

    private static final Map<Class<?>, String> NAMES = names();

    private CelValueTypes() {
    }

    private static Map<Class<?>, String> names() {
        Map<Class<?>, String> names = new LinkedHashMap<>();
        names.put(Long.class, "int");
        names.put(UnsignedLong.class, "uint");
        names.put(Double.class, "double");
        names.put(Boolean.class, "bool");
        names.put(String.class, "string");
        names.put(CelByteString.class, "bytes");
        names.put(NullValue.class, "null_type");
        names.put(List.class, "list");
        names.put(Map.class, "map");
        names.put(Instant.class, "google.protobuf.Timestamp");
        names.put(Duration.class, "google.protobuf.Duration");
        names.put(TypeType.class, "type");
        names.put(Optional.class, "optional_type");
        names.put(Quantity.class, QuantityLibrary.TYPE.name());
        names.put(Semver.class, SemverLibrary.TYPE.name());
        names.put(IpAddress.class, IpLibrary.TYPE.name());
        names.put(Cidr.class, CidrLibrary.TYPE.name());
        names.put(GoUrl.class, UrlLibrary.TYPE.name());
        return names;
    }

    static String nameOf(Object value) {
        return NAMES.entrySet().stream()
                .filter(type -> type.getKey().isInstance(value))
                .map(Map.Entry::getValue)
                .findFirst()
                .orElse(value == null ? "null_type" : value.getClass().getSimpleName());
    }
}
